"""`dishgraph ls`: what each registry holds (generators, parsers, segmenters, …), pykeen's `ls` style."""

from __future__ import annotations

import typer

from dishgraph.cli_errors import DishgraphGroup
from dishgraph.commands._common import console, emit_json, rows_table
from dishgraph.commands._options import JsonOpt

app = typer.Typer(
    help="List what each registry holds: every registry without KIND, one in detail with `dishgraph ls KIND`.",
    no_args_is_help=False,
    invoke_without_command=True,
    cls=DishgraphGroup,
)


@app.callback()
def summary(ctx: typer.Context, as_json: bool = JsonOpt):
    """Every registry with the names it holds; `dishgraph ls KIND` details one."""
    if ctx.invoked_subcommand is not None:
        return
    from dishgraph import catalog

    rows = catalog.summary()
    if as_json:
        emit_json(rows)
    else:
        console.print(rows_table(rows, "registries (dishgraph ls KIND)"))


def show(kind: str, as_json: bool) -> None:
    """Print one registry's entries (also `dishgraph generate ls`)."""
    from dishgraph import catalog

    rows = catalog.entries(kind)
    if as_json:
        emit_json(rows)
    else:  # the implementation's dotted path is in --json: at 80 columns it crowds the description out
        columns = ["name", "aliases", "description"] if any(r["aliases"] for r in rows) else ["name", "description"]
        console.print(rows_table(rows, f"{kind}: {catalog.registry(kind).doc}", columns))


def _lister(kind: str):
    def command(as_json: bool = JsonOpt):
        show(kind, as_json)

    return command


for _kind, _help in (
    ("generators", "Recipe generators for `dishgraph generate NAME` and evaluation."),
    ("parsers", "Recipe parsers for --parser (glossary rules, dependency parsers with a local model)."),
    ("segmenters", "Word segmenters for --segmenter (LAC, jieba, auto)."),
    ("dep-backends", "Dependency-parser backends (LTP, HanLP, stanza), used only with a local model."),
    ("estimators", "Causal-effect estimators for --estimator (order mining)."),
    ("insert-rankers", "Insertion rankers of composed knowledge (Python API: compose(ranker_model=...))."),
    ("backends", "Graph database engines behind GraphStore (embedded LadybugDB, Neo4j)."),
):
    app.command(_kind, help=_help)(_lister(_kind))
