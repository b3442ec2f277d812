"""Options and output helpers shared by every command group."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Iterable, Optional

import typer
from rich.console import Console
from rich.text import Text

from dishgraph.commands._tables import RowsTable

# Markup off: dish names, phrases and Cypher results are data and print literally (a dish called "[/x]" or
# "[link=…]" must neither crash nor become a link). Styled labels go through `styled` (a rich Text).
console = Console(markup=False)
err_console = Console(stderr=True, markup=False)


def styled(label: str, style: str, message: str = "") -> Text:
    """``label`` in ``style``, then the message as literal text."""
    return Text.assemble((label, style), " " if message else "", str(message))


def print_error(message: str) -> None:
    from dishgraph.cli_errors import one_line

    err_console.print(styled("error:", "bold red", one_line(message)), soft_wrap=True)


def print_warning(message: str, label: str = "warning:") -> None:
    err_console.print(styled(label, "yellow", message), soft_wrap=True)


def print_note(message: str) -> None:
    print_warning(message, "note:")

# No envvar here: config.db_path reads $DISHGRAPH_DB, so a --db given on the command line can be told
# from the environment and beat $DISHGRAPH_URI (an explicit flag beats the environment).
DbOpt = typer.Option(None, "--db", help="Embedded database directory (default: $DISHGRAPH_DB or "
                     "~/.local/share/dishgraph/db).")
UriOpt = typer.Option(None, "--uri", help="Neo4j Bolt URI (bolt://host:7687); default: $DISHGRAPH_URI / "
                      "$NEO4J_URI, else the embedded database.")
ParserOpt = typer.Option("rules", "--parser", help="rules (on --segmenter) | dep | ltp | hanlp | stanza: a "
                         "dependency parser whose model is on local disk (CRG's own method; never downloads).")
JsonOpt = typer.Option(False, "--json", help="Print JSON instead of a table.")
JsonOutOpt = typer.Option(None, "--json-out", help="Also write the result as JSON to this file.")


def open_store(db: Optional[str], uri: Optional[str], read_only: bool = False):
    from dishgraph.graph.factory import open_store as _open
    from dishgraph.graph.lock import DatabaseInUse

    try:
        return _open(uri=uri, db=db, read_only=read_only)
    except DatabaseInUse as e:
        print_error(str(e))
        raise typer.Exit(2)


def emit_json(obj: Any, path: Optional[Path] = None) -> None:
    text = json.dumps(obj, ensure_ascii=False, indent=2, default=str)
    if path:
        Path(path).write_text(text + "\n", encoding="utf-8")
    else:
        sys.stdout.write(text + "\n")


def rows_table(rows: list[dict], title: str | None = None, columns: list[str] | None = None, *,
               headers: dict[str, str] | None = None, notes: Iterable[str] = ()) -> RowsTable:
    """Rows (dicts) as a table that fits the console it is printed on: wrapped, split into several tables or
    shown one record per block when too wide, never a cell cut to "…" (see `_tables`). ``headers`` renames
    columns; ``notes`` print under the table (say why a value shows as "—")."""
    return RowsTable(rows, title, columns, headers, notes)
