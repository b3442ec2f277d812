"""`dishgraph explore BASE TARGET --html out.html`: a self-contained page to explore a dish pair."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from dishgraph.commands._common import (DbOpt, JsonOpt, UriOpt, console, emit_json, err_console, open_store, print_error, print_note)


def explore(base: str = typer.Argument(..., help="Base dish."),
            target: str = typer.Argument(..., help="Target dish (a release target, or another dish with recipes)."),
            html: Path = typer.Option(..., "--html", help="HTML file to write (one page, no network needed)."),
            top: int = typer.Option(25, "--top", min=1, help="Most frequent actions drawn per dish (and mined pivots)."),
            no_compute: bool = typer.Option(False, "--no-compute",
                                            help="Only show what the graph holds (open read-only, compute nothing)."),
            db: Optional[str] = DbOpt, uri: Optional[str] = UriOpt, as_json: bool = JsonOpt):
    """Write an interactive page of a dish pair: frequent actions, pivots, MUST_PRECEDE edges, example phrases."""
    from dishgraph.api import DishGraph
    from dishgraph.explore import pair_view, render_html

    with DishGraph(open_store(db, uri, read_only=no_compute)) as g:
        view = pair_view(g, base, target, top, compute=not no_compute)
    if not view["nodes"]:
        print_error(f"the graph knows no actions, pivots or constraints of {base} / {target}")
        raise typer.Exit(1)
    html.parent.mkdir(parents=True, exist_ok=True)
    html.write_text(render_html(view), encoding="utf-8")
    summary = {"html": str(html), "nodes": len(view["nodes"]), "pivots": len(view["pivots"]),
               "constraints": {k: len(v) for k, v in view["constraints"].items()}, "computed": view["computed"],
               "notes": view["notes"]}
    if as_json:
        return emit_json(summary)
    console.print(f"wrote {html}: {summary['nodes']} actions, {summary['pivots']} pivots, "
                  f"{sum(summary['constraints'].values())} order constraints")
    for note in view["notes"]:
        print_note(f"{note}")


TOP_LEVEL = [explore]
