"""Result tables that stay readable at any console width (80 columns, a pipe, a file).

rich shrinks every column of a table that is wider than the console and cuts what no longer fits to "…":
a 16-column results table at 80 columns became a grid of "3…" cells. `RowsTable` decides the layout
itself, at render time, from the width the console offers:

1. the table as it is, when its natural width fits;
2. the same table with text columns wrapped (at spaces, long words folded onto the next line) while numbers
   and header words keep their full width;
3. a few rows (a single record, a results table of a few models) turned on their side: fields down, one
   column per row (a single record reads as ``field  value`` lines);
4. the columns split into several tables that each fit, the key columns (those the command names, else the
   text columns before the first number, e.g. pair and kind) repeated in each;
5. as a last resort one ``field  value`` block per row.

Every column width is set explicitly and overflow is "fold", so rich never gets to cut a cell. Numbers are
never wrapped; floats are rounded (2 decimals, 4 in a column of finer fractions), never cut; integers print as
integers, also among floats (a count of 1186 is not "1186.00"). ``None`` prints as "—" and a command that
knows why a value is missing passes footnotes that print under the table; a column that is "—" in every
row of a table of several rows is left out, and a note names it.
Cells are `Text`, so data prints literally whatever the console's markup setting.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text

from dishgraph.terminal_text import escape_controls

MISSING = "—"
_NUMBER = re.compile(r"[-+]?(\d[\d,]*)?\.?\d+(e[-+]?\d+)?%?|[-+]?(inf|nan)", re.IGNORECASE)
_TEXT_MIN = 10  # a wrapped text column gets at least this many cells (fewer when its text is shorter)
_TEXT_WORD_CAP = 16  # longer words fold instead of widening their column's minimum
_NAME_WORD_CAP = 24  # ... in the first column, which names the row (a dish of up to 12 characters stays whole)
TRANSPOSE_ROWS = 6  # up to this many rows, a table too wide for the console is turned on its side


def format_cell(v: Any, decimals: int | None = None) -> str:
    """The text of one cell: numbers in full (floats rounded, see `float_decimals`), None as "—", a list as
    its items joined with ", " (a dict as ``key: value`` items), control characters escaped
    (`dishgraph.terminal_text`: a cell never drives the terminal)."""
    if v is None:
        return MISSING
    if isinstance(v, float):
        return format_float(v, float_decimals([v]) if decimals is None else decimals)
    if isinstance(v, (list, tuple, set, frozenset)):
        return ", ".join(format_cell(x) for x in v)
    if isinstance(v, dict):
        return ", ".join(f"{format_cell(k)}: {format_cell(x)}" for k, x in v.items())
    return escape_controls(str(v), "\n")


def float_decimals(values: Iterable[Any]) -> int:
    """Decimals for a column's floats, the same for all so the points line up: 2 (percentages, seconds,
    figures already rounded to 2), 4 when the column holds finer fractions (precision 0.0376, a divergence)."""
    fine = [v for v in values if isinstance(v, float) and math.isfinite(v) and round(v, 2) != v and abs(v) < 1]
    return 4 if fine else 2


def format_float(v: float, decimals: int = 2) -> str:
    if not math.isfinite(v):
        return str(v)
    if v != 0 and abs(v) < 0.5 * 10**-decimals:
        return f"{v:.2e}"  # too small for the column's decimals: shown, not rounded to 0
    return f"{v:.{decimals}f}"


def _is_number(v: Any, text: str) -> bool:
    return isinstance(v, (int, float)) or (isinstance(v, str) and bool(_NUMBER.fullmatch(text.strip())))


def _longest_word(text: str) -> int:
    return max((cell_len(w) for w in text.split()), default=0)


def _widest_line(text: str) -> int:
    return max((cell_len(line) for line in text.splitlines()), default=0)


@dataclass
class _Column:
    """One column's texts and the widths it can take: ``natural`` unwrapped, ``least`` with text wrapped."""

    header: str
    cells: list[str]
    numbers: list[bool]  # per cell: a number (or "—"), right-aligned and never wrapped
    word_cap: int = _TEXT_WORD_CAP

    @property
    def numeric(self) -> bool:
        return all(self.numbers)

    @property
    def natural(self) -> int:
        return max([_widest_line(self.header)] + [_widest_line(c) for c in self.cells])

    @property
    def least(self) -> int:
        header = _longest_word(self.header)
        numbers = max([0] + [_widest_line(c) for c, n in zip(self.cells, self.numbers) if n])
        if self.numeric:
            return max(header, numbers)
        text = [c for c, n in zip(self.cells, self.numbers) if not n]
        words = max([0] + [min(_longest_word(c), self.word_cap) for c in text])
        return max(header, numbers, min(self.natural, max(words, _TEXT_MIN)))


def _table_width(widths: Sequence[int]) -> int:
    """Cells of a rich Table with the default box, edges and padding (0, 1): "│ a │ b │"."""
    return sum(widths) + 3 * len(widths) + 1


def _fit(cols: Sequence[_Column], width: int) -> list[int] | None:
    """Column widths that fit ``width`` without cutting anything, or None. Space beyond the minimums goes
    to the columns that still wrap, one cell at a time to the one wrapped most (narrow text first)."""
    if _table_width([c.natural for c in cols]) <= width:
        return [c.natural for c in cols]
    widths = [c.least for c in cols]
    spare = width - _table_width(widths)
    if spare < 0:
        return None
    while spare > 0:
        short = [i for i, c in enumerate(cols) if widths[i] < c.natural]
        if not short:
            break
        i = min(short, key=lambda j: widths[j])
        widths[i] += 1
        spare -= 1
    return widths


def _table(cols: Sequence[_Column], widths: Sequence[int], title: str | None, show_header: bool = True) -> Table:
    t = Table(title=title, show_header=show_header)
    for c, w in zip(cols, widths):
        t.add_column(Text(c.header), width=w, overflow="fold", justify="right" if c.numeric else "left")
    for i in range(len(cols[0].cells) if cols else 0):
        t.add_row(*[Text(c.cells[i], overflow="fold", justify="right" if c.numbers[i] else "left") for c in cols])
    return t


def _transposed(cols: Sequence[_Column], rows: Sequence[int], title: str | None, width: int) -> Table | None:
    """Fields down the side, one column per row (a single row: plain ``field  value`` lines; several: the
    first column's values head the row columns), or None when that does not fit either."""
    if len(rows) == 1:
        fields = _Column("", [c.header for c in cols], [False] * len(cols))
        values = [_Column("", [c.cells[rows[0]] for c in cols], [c.numbers[rows[0]] for c in cols])]
    else:
        key, rest = cols[0], cols[1:]
        fields = _Column(key.header, [c.header for c in rest], [False] * len(rest))
        values = [_Column(key.cells[i], [c.cells[i] for c in rest], [c.numbers[i] for c in rest]) for i in rows]
    widths = _fit([fields, *values], width)
    return None if widths is None else _table([fields, *values], widths, title, show_header=len(rows) > 1)


def _key_columns(cols: Sequence[_Column], width: int) -> int:
    """How many leading columns name a row (the text columns before the first number, e.g. pair + kind),
    so each part of a split table repeats them; just the first when they would take over half the width."""
    n = 1
    while n < len(cols) - 1 and not cols[n].numeric:
        n += 1
    return n if n == 1 or _table_width([c.least for c in cols[:n]]) <= width // 2 else 1


def _split(cols: Sequence[_Column], width: int, keys: Sequence[int] = ()) -> list[list[_Column]] | None:
    """Groups of columns that each fit beside the key columns (``keys``, their indexes, when each group
    fits with them; else the leading ones of `_key_columns`), or None. As many groups as filling each in
    turn needs, then the columns spread evenly over that many when they still fit."""
    if keys:
        named = _groups([cols[i] for i in keys], [c for i, c in enumerate(cols) if i not in keys], width)
        if named is not None:
            return named
    n = _key_columns(cols, width)
    return _groups(list(cols[:n]), list(cols[n:]), width)


def _groups(key: list[_Column], rest: list[_Column], width: int) -> list[list[_Column]] | None:
    n = len(key)
    groups: list[list[_Column]] = [list(key)]
    for c in rest:
        if len(groups[-1]) > n and _fit(groups[-1] + [c], width) is None:
            groups.append(list(key))
        groups[-1].append(c)
        if _fit(groups[-1], width) is None:
            return None
    if len(groups) < 2:
        return None
    per = -(-len(rest) // len(groups))
    even = [[*key, *rest[i : i + per]] for i in range(0, len(rest), per)]
    return even if len(even) == len(groups) and all(_fit(g, width) for g in even) else groups


def _titled(title: str | None, part: int, parts: int) -> str | None:
    return f"{title} ({part}/{parts})" if title else None


class RowsTable:
    """A list of row dicts as a table that fits the console (see the module docstring)."""

    def __init__(
        self,
        rows: Sequence[dict],
        title: str | None = None,
        columns: Sequence[str] | None = None,
        headers: dict[str, str] | None = None,
        notes: Iterable[str] = (),
        key_columns: Sequence[str] = (),
    ):
        self.rows = list(rows)
        self.title = title
        self.keys = list(columns or (list(self.rows[0]) if self.rows else []))
        self.headers = headers or {}
        self.notes = [n for n in notes if n]
        self.key_columns = list(key_columns)  # repeated in each part of a split table (default: leading text)
        empty = [k for k in self.keys if len(self.rows) > 1 and all(r.get(k) is None for r in self.rows)]
        if empty and len(empty) < len(self.keys):
            self.keys = [k for k in self.keys if k not in empty]
            names = ", ".join(str(self.headers.get(k, k)) for k in empty)
            self.notes.append(f"not shown, no value in any row: {names}")

    @property
    def row_count(self) -> int:
        return len(self.rows)

    def _columns(self) -> list[_Column]:
        cols: list[_Column] = []
        for k in self.keys:
            values = [r.get(k) for r in self.rows]
            floats = any(isinstance(v, float) for v in values)
            decimals = float_decimals(values) if floats else None  # ints stay ints unless floats share the column
            cells = [format_cell(v, decimals) for v in values]
            numbers = [v is None or _is_number(v, c) for v, c in zip(values, cells)]  # "—" aligns like numbers
            cap = _NAME_WORD_CAP if not cols else _TEXT_WORD_CAP  # names (dish, pair) are not cut mid-word
            cols.append(_Column(escape_controls(str(self.headers.get(k, k))), cells, numbers, cap))
        return cols

    def tables(self, width: int) -> list[Table]:
        """The rich tables that show every cell in full within ``width`` cells."""
        cols = self._columns()
        if not cols:
            return [Table(title=self.title)]
        widths = _fit(cols, width)
        if widths is not None:
            return [_table(cols, widths, self.title)]
        if len(self.rows) <= TRANSPOSE_ROWS:
            transposed = _transposed(cols, range(len(self.rows)), self.title, width)
            if transposed is not None:
                return [transposed]
        keys = [self.keys.index(k) for k in self.key_columns if k in self.keys]
        groups = _split(cols, width, keys) if len(cols) > 2 else None
        if groups is not None:
            return [
                _table(g, _fit(g, width) or [], _titled(self.title, i, len(groups))) for i, g in enumerate(groups, 1)
            ]
        records = [
            _transposed(cols, [i], _titled(self.title, i + 1, len(self.rows)), width) for i in range(len(self.rows))
        ]
        if all(r is not None for r in records):
            return records  # type: ignore[return-value]
        # Narrower than any layout: one field per line, folded by rich, still never cut.
        return [
            _table(
                [_Column("", [f"{c.header}: {c.cells[i]}" for c in cols], [False] * len(cols))],
                [max(1, width - 4)],
                _titled(self.title, i + 1, len(self.rows)),
                show_header=False,
            )
            for i in range(len(self.rows))
        ]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from self.tables(options.max_width)
        for note in self.notes:
            yield Text(note, style="dim")
