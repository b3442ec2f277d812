"""`dishgraph explore BASE TARGET --out pair.html`: a self-contained page to explore a dish pair."""

from __future__ import annotations

from pathlib import Path

import typer

from dishgraph.commands._common import console, emit_json, open_graph, print_note
from dishgraph.commands._options import AllActionsOpt, BaseArg, DbOpt, JsonOpt, TargetArg, UriOpt, pair_of, renamed

EXPLORE_CLS = renamed({"--html": "--out"})


def explore(
    base: str | None = BaseArg,
    target: str | None = TargetArg,
    out: Path = typer.Option(..., "--out", "-o", help="HTML file to write (one page, no network needed)."),
    top: int = typer.Option(25, "--top", min=1, help="Most frequent actions drawn per dish (and mined pivots)."),
    compute: bool = typer.Option(
        False,
        "--compute/--no-compute",
        help="WRITES to the database: first compute and store what the graph lacks for this pair (USES "
        "frequencies, mined pivots, fast order estimation). Default: open read-only and show what is stored.",
    ),
    all_actions: bool = AllActionsOpt,
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """Write an interactive page of a dish pair: frequent actions, pivots, MUST_PRECEDE edges, example phrases.
    Reads only, unless --compute."""
    from dishgraph.explore.view import write_page

    b, t = pair_of(base, target)
    with open_graph(db, uri, read_only=not compute) as g:
        summary = write_page(g, b, t, out, top, compute=compute, all_actions=all_actions)
    if as_json:
        return emit_json(summary)
    console.print(
        f"wrote {out}: {summary['nodes']} actions drawn; pivots: {summary['pivot_actions']} actions, "
        f"{summary['pivot_edges']} edges (one per source), {summary['pivots']} drawn; "
        f"{sum(summary['constraints'].values())} order constraints "
        f"({'computed now: ' + ', '.join(summary['computed']) if summary['computed'] else 'as stored'})"
    )
    for note in summary["notes"]:
        print_note(f"{note}")
