"""`dishgraph stats`: counts per label and relationship type, and action-graph statistics."""

from __future__ import annotations

import typer

from dishgraph.commands._common import console, emit_json, open_store, rows_table
from dishgraph.commands._options import AllActionsOpt, ByOpt, DbOpt, JsonOpt, UriOpt, check_by


def stats(
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
    top: int = typer.Option(3, min=0, max=1000, help="Top proto-actions shown per dish."),
    all_actions: bool = AllActionsOpt,
    by: str = ByOpt,
):
    """Counts per label and relationship type, recipes with actions, steps and omissions per recipe."""
    from dishgraph.graph.info import graph_stats

    check_by(by, all_actions)
    with open_store(db, uri, read_only=True) as store:
        data = graph_stats(store, top=top, all_actions=all_actions, by=by)
    if as_json:
        return emit_json(data)
    if not data["recipes"]:
        return console.print(EMPTY_HINT)
    c = data["counts"]
    console.print(rows_table([{"label": k, "count": v} for k, v in c["nodes"].items() if v], "nodes"))
    console.print(rows_table([{"type": k, "count": v} for k, v in c["relationships"].items() if v], "relationships"))
    console.print(rows_table([_graph_row(data)], "action graphs"))
    rows = [
        {
            "dish": d,
            "recipes": data["dish_recipes"].get(d),
            "top actions": ", ".join(f"{a['action']} ({a['recipes']})" for a in acts),
        }
        for d, acts in list(data["top_actions_per_dish"].items())[:10]
    ]
    if rows:
        console.print(rows_table(rows, "top proto-actions of the 10 dishes with the most recipes"))


EMPTY_HINT = (
    "the graph holds no recipe yet: load one with `dishgraph ingest counterfactual` (the CRG release), "
    "`dishgraph ingest corpus FILE`, or run the whole main job with `dishgraph demo`"
)


def _graph_row(data: dict) -> dict:
    return {
        "recipes": data["recipes"],
        "with ≥1 action": f"{data['share_with_actions']:.1%}",
        "steps/recipe": f"{data['steps_per_recipe']:.2f}",
        "inherited/recipe": f"{data['inherited_per_recipe']:.2f}",
        "distinct proto-actions": data["distinct_proto_actions"],
    }
