"""`dishgraph demo`: the main job on the embedded database (the README's first command)."""

from __future__ import annotations

from pathlib import Path

import typer

from dishgraph.cli_errors import exit_on
from dishgraph.commands._common import console, emit_json, open_store, rows_table
from dishgraph.commands._options import DbOpt, JsonOpt, UriOpt
from dishgraph.commands.ingest import capped_workers

DEMO_DATA = ("counterfactual", "diner", "xiachufang")  # what `run_demo` reads


def demo(
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    data: Path | None = typer.Option(
        None, "--data", help="Data root holding counterfactual/ and diner/ (default: `dishgraph data locate`)."
    ),
    out: Path = typer.Option(Path("report"), "--out", "-o", help="Report folder (index.html, report.json)."),
    fetch: bool = typer.Option(
        True,
        "--fetch/--no-fetch",
        help="Fetch the data the demo reads (CRG release, DiNeR glossary, XiaChuFang sample) when it is missing, "
        "from its public sources at pinned commits ($DISHGRAPH_DATA_URL: a mirror of them).",
    ),
    workers: int = typer.Option(
        2,
        "--workers",
        "-w",
        min=1,
        callback=capped_workers,
        help="Worker processes for parsing and estimation (at most twice the cores and what free memory takes).",
    ),
    as_json: bool = JsonOpt,
):
    """Ingest the CRG release and the XiaChuFang sample, parse, frequencies, order constraints, composed
    target knowledge (fair), DiNeR split, run and score the model-free generators with the fair composed
    graph editor as the headline, print a report and write report/index.html (finished steps are skipped)."""
    from dishgraph import config
    from dishgraph.demo import run_demo

    if fetch:
        from dishgraph.ingest.fetch import FetchError, HashMismatchError, ensure

        with exit_on(FetchError, HashMismatchError, code=1):
            data = ensure(DEMO_DATA, data, say=console.print)
    data = data or config.data_dir()
    with open_store(db, uri) as store:
        rep = run_demo(
            store,
            data,
            out,
            workers=workers,
            say=(lambda m: None) if as_json else console.print,
            show_progress=not as_json,
        )
    if as_json:
        from dishgraph.jsonsafe import json_safe

        return emit_json(json_safe(rep.to_dict()))
    _print_report(rep, out)


def _print_report(rep, out: Path) -> None:
    g = rep.graph
    console.print(rows_table([{k: v for k, v in rep.counts["nodes"].items() if v}], "nodes"))
    console.print(
        rows_table(
            [
                {
                    "recipes": g.get("recipes"),
                    "with actions": f"{g.get('share_with_actions', 0):.1%}",
                    "steps/recipe": round(g.get("steps_per_recipe", 0), 2),
                    "distinct proto-actions": g.get("distinct_proto_actions"),
                }
            ],
            "action graphs",
        )
    )
    ex = rep.example_pair
    if ex:
        console.print(
            rows_table(
                ex["pivots"][:8],
                f"composed pivots {ex['base']} → {ex['target']}, foods by their own names (first 8)",
                ["kind", "action", "source", "fb", "ft"],
            )
        )
    if rep.results:
        from dishgraph.eval.crg import COLUMNS, missing_notes

        console.print(
            rows_table(
                rep.results,
                "CRG evaluation (%, 2,500 instances)",
                headers=dict(COLUMNS),
                notes=missing_notes(rep.results),
            )
        )
    console.print(f"report: {out / 'index.html'}  ({rep.seconds:.1f} s)")
