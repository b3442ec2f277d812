"""Output helpers shared by every command group (options: `_options`; errors: `dishgraph.cli_errors`)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rich.text import Text

from dishgraph.commands._tables import RowsTable
from dishgraph.terminal_text import MESSAGE_KEEP, escape_controls, safe_console

# Markup off: dish names, phrases and Cypher results are data and print literally (a dish called "[/x]" or
# "[link=…]" must neither crash nor become a link). Styled labels go through `styled` (a rich Text).
# Every printed text escapes control characters (`dishgraph.terminal_text`): data never drives the terminal.
console = safe_console()
err_console = safe_console(stderr=True)


def styled(label: str, style: str, message: str = "") -> Text:
    """``label`` in ``style``, then the message as literal text (control characters escaped)."""
    return Text.assemble((label, style), " " if message else "", escape_controls(str(message), MESSAGE_KEEP))


def print_warning(message: str, label: str = "warning:") -> None:
    err_console.print(styled(label, "yellow", message), soft_wrap=True)


def print_note(message: str) -> None:
    print_warning(message, "note:")


def open_store(db: str | None, uri: str | None, read_only: bool = False, buffer_pool_mb: int | None = None):
    """The store of --db / --uri. A database another process holds is waited for (the global --wait), then
    `DatabaseInUse` (exit 5): not a usage error, nothing was wrong with the command line."""
    from dishgraph.graph.factory import open_store as _open

    return _open(uri=uri, db=db, read_only=read_only, buffer_pool_mb=buffer_pool_mb)


def open_graph(db: str | None, uri: str | None, read_only: bool = False):
    """The `DishGraph` API over the store of --db / --uri (commands of pivots, order, explore)."""
    from dishgraph.api import DishGraph

    return DishGraph(open_store(db, uri, read_only=read_only))


def progress(*columns, disable: bool = False, transient: bool = True):
    """A rich progress display on stderr (stdout stays the result, e.g. JSON). It starts drawing at its first
    update, so a library call that refuses its input before any work leaves no empty bar above the error."""
    from rich.progress import Progress

    class LazyProgress(Progress):
        def __enter__(self):
            return self

        def _draw(self) -> None:
            if not self.live.is_started:
                self.start()

        def update(self, *args, **kwargs) -> None:
            self._draw()
            super().update(*args, **kwargs)

        def advance(self, *args, **kwargs) -> None:
            self._draw()
            super().advance(*args, **kwargs)

        def stop(self) -> None:  # rich's stop also ends a line on a non-terminal: only after drawing
            if self.live.is_started:
                super().stop()

    return LazyProgress(*columns, console=err_console, disable=disable, transient=transient)


def spinner(disable: bool = False):
    """(progress, task): a spinner whose description a library callback updates with what it is doing."""
    from rich.progress import SpinnerColumn, TextColumn

    bar = progress(SpinnerColumn(), TextColumn("{task.description}"), disable=disable)
    return bar, bar.add_task("", total=None)


def emit_json(obj: Any, path: Path | None = None) -> None:
    text = json.dumps(obj, ensure_ascii=False, indent=2, default=str)
    if path:
        from dishgraph.outputs import write_text

        write_text(path, text + "\n")
    else:
        sys.stdout.write(text + "\n")


def rows_table(
    rows: list[dict],
    title: str | None = None,
    columns: list[str] | None = None,
    *,
    headers: dict[str, str] | None = None,
    notes: Iterable[str] = (),
    keys: Sequence[str] = (),
) -> RowsTable:
    """Rows (dicts) as a table that fits the console it is printed on: wrapped, split into several tables or
    shown one record per block when too wide, never a cell cut to "…" (see `_tables`). ``headers`` renames
    columns; ``notes`` print under the table (say why a value shows as "—"); ``keys`` are the columns that
    name a row, repeated in each part of a split table (default: the text columns before the first number)."""
    return RowsTable(rows, title, columns, headers, notes, keys)
