"""CSV cells that a spreadsheet shows as text, never runs as a formula, and that read back unchanged.

Why: the annotation CSV (``pivots export-annotation``) is opened by annotators in Excel / LibreOffice /
Google Sheets, and its cells hold text from scraped corpora (dish names, example phrases). A cell such as
``=HYPERLINK("http://…","click")`` or ``@SUM(…)`` would run as a formula there (CSV injection). OWASP's
rule (https://owasp.org/www-community/attacks/CSV_Injection): a cell that starts with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return gets a leading single quote, which spreadsheets read as "this is text".
The full-width ``＝ ＋ － ＠`` are treated the same (some East Asian spreadsheet locales turn them into
their ASCII forms while typing).

The escape must not change what dishgraph reads back (``pivots import-annotation`` keys decisions on the
pair and action cells), so it is made reversible: a cell that already starts with ``'`` is escaped too.
:func:`restore` then removes exactly one leading ``'`` where :func:`neutralise` would have put one, and
nothing else: ``restore(neutralise(s)) == s`` for every string (tests/test_pivots_annotation.py fuzzes it),
and a cell an annotator's spreadsheet saved without the quote (``=x``) reads as written.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

QUOTE = "'"
FORMULA_STARTS = frozenset("=+-@\t\r" + "＝＋－＠")


def neutralise(value: object) -> str:
    """The cell text for a value: ``''`` for None, else ``str(value)``, quoted when it starts like a formula
    (or with the quote itself, so that :func:`restore` can tell an escape from data)."""
    text = "" if value is None else str(value)
    if text and (text[0] in FORMULA_STARTS or text[0] == QUOTE):
        return QUOTE + text
    return text


def restore(cell: str) -> str:
    """The value a cell written by :func:`neutralise` came from (a cell without the escape is returned as is)."""
    if len(cell) >= 2 and cell[0] == QUOTE and (cell[1] in FORMULA_STARTS or cell[1] == QUOTE):
        return cell[1:]
    return cell


def write_rows(path: str | Path, columns: Sequence[str], rows: Iterable[Mapping[str, object]]) -> int:
    """A UTF-8 CSV with a header, every cell neutralised; returns the number of rows written."""
    n = 0
    from dishgraph.outputs import atomic_write

    with atomic_write(path, newline="") as fh:
        w = csv.writer(fh)
        w.writerow([neutralise(c) for c in columns])
        for row in rows:
            w.writerow([neutralise(row.get(c)) for c in columns])
            n += 1
    return n


def read_rows(path: str | Path) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """(header, [(line number, row)]) of a CSV, every cell restored; a BOM is accepted, blank rows are left
    out, a short row lacks the last columns (as with ``csv.DictReader``). Read whole: annotation files are small."""
    rows = []
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.reader(fh)
        header = [restore(c) for c in next(reader, [])]
        for cells in reader:
            if cells:
                rows.append((reader.line_num, dict(zip(header, (restore(c) for c in cells)))))
    return header, rows
