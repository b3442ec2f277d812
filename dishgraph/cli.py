"""The `dishgraph` command line: each command parses its options, makes one library call, renders the result.

Plain typer: every group is a module of `dishgraph.commands` exposing ``app`` (a `typer.Typer`), added here by
name; the few top-level commands are registered here by name too. Errors become one line and an exit code
in one place, `dishgraph.cli_errors.DishgraphGroup`.
"""

from __future__ import annotations

import typer

from dishgraph.cli_errors import DishgraphGroup
from dishgraph.commands import (
    data,
    db,
    demo,
    diner,
    dish,
    explore,
    export,
    generate,
    glossary,
    gpu,
    guide,
    ingest,
    ls,
    order,
    parse,
    pcs,
    pivots,
    stats,
    sync,
    train,
)
from dishgraph.commands import eval as eval_

app = typer.Typer(
    help="dishgraph: recipe corpora as action graphs in a Cypher graph database.",
    no_args_is_help=True,
    add_completion=False,
    cls=DishgraphGroup,
    pretty_exceptions_show_locals=False,
)


@app.callback()
def _main(
    debug: bool = typer.Option(
        False, "--debug", envvar="DISHGRAPH_DEBUG", help="Show the full traceback of an error (also DISHGRAPH_DEBUG=1)."
    ),
    wait: float | None = typer.Option(
        None,
        "--wait",
        min=0,
        metavar="SECONDS",
        help="Wait this long for an embedded database another process holds, with a note on stderr, then "
        "exit 5 (default: $DISHGRAPH_WAIT, else 60; 0 fails at once). Give it before the command: "
        "`dishgraph --wait 300 stats`.",
    ),
):
    """dishgraph: recipe corpora as action graphs in a Cypher graph database.

    Exit codes: 0 success, 1 failed, 2 usage error, 3 finished with skipped input, 4 violations found
    (`order check`, `db check`), 5 database in use, 130 interrupted (see docs/cli.md).
    """
    _notes_as_lines()
    if wait is not None:  # only then: the GPU path (train, generate) must not import the graph layer
        from dishgraph.graph import lock

        lock.WAIT = wait


def _notes_as_lines() -> None:
    """The library's notices (`DishgraphNotice`, e.g. a command that never finished writing) as one "note:"
    line on stderr, not Python's warning format with a file and line of dishgraph's code."""
    import warnings

    from dishgraph.errors import DishgraphNotice

    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):  # type: ignore[no-untyped-def]
        if issubclass(category, DishgraphNotice):
            from dishgraph.commands._common import print_note

            print_note(str(message))
        else:
            shown(message, category, filename, lineno, file, line)

    warnings.showwarning = show


# Top-level commands.
app.command("demo")(demo.demo)
app.command("dish")(dish.dish)
app.command("explore", cls=explore.EXPLORE_CLS)(explore.explore)
app.command("parse")(parse.parse)
app.command("stats")(stats.stats)
app.command("sync")(sync.sync)

# Command groups: one module of dishgraph.commands each, exposing `app`. A new group is one import above and
# one line here, in name order.
app.add_typer(data.app, name="data")
app.add_typer(db.app, name="db")
app.add_typer(diner.app, name="diner")
app.add_typer(eval_.app, name="eval")
app.add_typer(export.app, name="export")
app.add_typer(generate.app, name="generate")
app.add_typer(glossary.app, name="glossary")
app.add_typer(gpu.app, name="gpu")
app.add_typer(guide.app, name="guide")
app.add_typer(ingest.app, name="ingest")
app.add_typer(ls.app, name="ls")
app.add_typer(order.app, name="order")
app.add_typer(pcs.app, name="pcs")
app.add_typer(pivots.app, name="pivots")
app.add_typer(train.app, name="train")

if __name__ == "__main__":
    app()
