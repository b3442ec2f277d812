"""`dishgraph explore BASE TARGET --html out.html`: a self-contained page to explore a dish pair."""

from __future__ import annotations

from pathlib import Path

import typer

from dishgraph.commands._common import console, emit_json, open_graph, print_note
from dishgraph.commands._options import DbOpt, JsonOpt, UriOpt


def explore(
    base: str = typer.Argument(..., help="Base dish."),
    target: str = typer.Argument(..., help="Target dish (a release target, or another dish with recipes)."),
    html: Path = typer.Option(..., "--html", help="HTML file to write (one page, no network needed)."),
    top: int = typer.Option(25, "--top", min=1, help="Most frequent actions drawn per dish (and mined pivots)."),
    no_compute: bool = typer.Option(
        False, "--no-compute", help="Only show what the graph holds (open read-only, compute nothing)."
    ),
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """Write an interactive page of a dish pair: frequent actions, pivots, MUST_PRECEDE edges, example phrases."""
    from dishgraph.explore.view import write_page

    with open_graph(db, uri, read_only=no_compute) as g:
        summary = write_page(g, base, target, html, top, compute=not no_compute)
    if as_json:
        return emit_json(summary)
    console.print(
        f"wrote {html}: {summary['nodes']} actions, {summary['pivots']} pivots, "
        f"{sum(summary['constraints'].values())} order constraints"
    )
    for note in summary["notes"]:
        print_note(f"{note}")
