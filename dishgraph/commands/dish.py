"""`dishgraph dish NAME`: one dish at a glance (one call of `DishGraph.dish`)."""

from __future__ import annotations

import typer

from dishgraph.commands._common import console, emit_json, open_graph, rows_table
from dishgraph.commands._options import AllActionsOpt, ByOpt, DbOpt, JsonOpt, UriOpt, check_by


def dish(
    name: str = typer.Argument(..., help="The dish (a misspelled name is told the closest ones)."),
    top: int = typer.Option(10, "--top", min=1, max=1000, help="Top actions shown."),
    all_actions: bool = AllActionsOpt,
    by: str = ByOpt,
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """One dish at a glance: who named it, its recipes per source, its top actions, the dish pairs it is in
    and its order constraints per source."""
    check_by(by, all_actions)
    with open_graph(db, uri, read_only=True) as g:
        card = g.dish(name, top=top, all_actions=all_actions, by=by)
    if as_json:
        return emit_json(card)
    console.print(
        f"{card['dish']}: {card['recipes']} recipes" + (f"; named by {card['named_by']}" if card["named_by"] else "")
    )
    if card["recipes_by_source"]:
        console.print(rows_table(card["recipes_by_source"], "recipes by source"))
    if card["top_actions"]:
        rows = [{**a, "freq": round(a["freq"], 3) if a["freq"] is not None else None} for a in card["top_actions"]]
        console.print(rows_table(rows, f"top {len(rows)} actions"))
    elif card["recipes"]:
        console.print("no action frequencies stored (`dishgraph ingest` parses; `pivots mine` stores them)")
    if card["pairs"]:
        console.print(rows_table(card["pairs"], "dish pairs"))
    constraints = card["order_constraints"]
    if constraints:
        console.print(rows_table([{"source": k, "constraints": v} for k, v in constraints.items()], "order"))
    else:
        console.print("no order constraints (`dishgraph order estimate` estimates them from parsed recipes)")
