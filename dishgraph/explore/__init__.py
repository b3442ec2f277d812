"""Dish-pair explorer: one self-contained HTML page per (base, target) pair.

from dishgraph import DishGraph
from dishgraph.explore import pair_view, render_html
with DishGraph.open() as g:
    html = render_html(pair_view(g, "白灼菜心", "白灼秋葵", top=25))
"""

from dishgraph.explore.render import embed_json, render_html
from dishgraph.explore.view import action_label, pair_view

__all__ = ["action_label", "embed_json", "pair_view", "render_html"]
