"""Dish-pair explorer: one self-contained HTML page per (base, target) pair.

from dishgraph import DishGraph
from dishgraph.explore import pair_view, render_html
with DishGraph.open(read_only=True) as g:
    html = render_html(pair_view(g, "白灼菜心", "白灼秋葵", top=25))  # what the graph stores

``pair_view(..., compute=True)`` on a graph opened for writing first computes and stores what the pair lacks.
"""

from dishgraph.explore.render import embed_json, render_html
from dishgraph.explore.view import action_label, pair_view

__all__ = ["action_label", "embed_json", "pair_view", "render_html"]
