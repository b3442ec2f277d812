"""COPY files from Arrow tables: the same bytes as the row-by-row CSV writer, written in C++.

The loader's big tables (Step and its three edge tables: ~230k rows each for the XiaChuFang sample, 2M for
100k recipes) used to be formatted cell by cell in Python in the one process that also loads; that was the
largest share of a load's CPU. Parse workers now send these rows as Arrow columns, and this module turns a
table into Ladybug's COPY CSV with ``pyarrow.csv``: strings quoted (so ``""`` stays an empty string and an
unquoted empty cell is NULL), quotes doubled, list cells as the literal ``[a,b]``, booleans ``true``/``false``.
``tests/test_copy_csv.py`` checks the bytes against ``ladybug_store._write_csv`` on real parses.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ARROW_TYPES = {"STRING": "string", "INT64": "int64", "DOUBLE": "float64", "BOOLEAN": "bool", "STRING[]": "string[]"}


def arrow_type(schema_type: str) -> Any:
    """The Arrow type that holds a schema property's values exactly."""
    import pyarrow as pa

    name = ARROW_TYPES[schema_type]
    return pa.list_(pa.string()) if name == "string[]" else pa.type_for_alias(name)


def is_table(rows: Any) -> bool:
    """Whether bulk rows came as an Arrow table (else a sequence of dicts)."""
    return hasattr(rows, "num_rows") and hasattr(rows, "column_names")


def as_dicts(rows: Any) -> list[dict[str, Any]] | Any:
    """Bulk rows as dicts (what per-row writes take), whether they came as a table or as dicts."""
    return rows.to_pylist() if is_table(rows) else rows


def unsafe_list_rows(table: Any, columns: list[str], unsafe: re.Pattern[str]) -> Any:  # numpy bool array
    """Rows with a list item the CSV list literal cannot carry (``unsafe`` matches it).

    The pattern runs in Python on the distinct items only (surface forms repeat: ~10k distinct among ~500k
    items), so the rows sent through the exact path are exactly those the row writer would send.
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    mask = np.zeros(table.num_rows, dtype=bool)
    for name in columns:
        col = table[name].combine_chunks() if table.num_rows else pa.array([], arrow_type("STRING[]"))
        items = pc.list_flatten(col)
        if not len(items):
            continue
        bad = [v for v in pc.unique(items).to_pylist() if v is not None and unsafe.search(v)]
        if not bad:
            continue
        hit = pc.is_in(items, value_set=pa.array(bad, pa.string()))
        parents = pc.list_parent_indices(col).to_numpy(zero_copy_only=False)
        mask[parents[hit.to_numpy(zero_copy_only=False)]] = True
    return mask


def _encode(col: Any, schema_type: str) -> Any:
    import pyarrow as pa
    import pyarrow.compute as pc

    if schema_type.endswith("[]"):
        joined = pc.binary_join(col, ",")
        return pc.binary_join_element_wise(pa.scalar("["), joined, pa.scalar("]"), "")
    return col


def has_line_break(table: Any, types: dict[str, str]) -> bool:
    """Whether a string cell holds a line break (Ladybug's parallel CSV reader cannot take one)."""
    import pyarrow.compute as pc

    for name, typ in types.items():
        if typ == "STRING" and name in table.column_names and table.num_rows:
            col = table[name]
            if pc.any(pc.match_substring(col, "\n")).as_py() or pc.any(pc.match_substring(col, "\r")).as_py():
                return True
    return False


def write_table_csv(path: Path, types: dict[str, str], table: Any) -> bool:
    """Write ``table`` as the COPY file of a table with properties ``types`` (in that column order; a column
    the table lacks is NULL). Returns whether a value holds a line break. List items must have passed
    ``unsafe_list_rows``."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    n = table.num_rows
    cols, names = [], list(types)
    for name, typ in types.items():
        col = table[name] if name in table.column_names else pa.nulls(n, arrow_type(typ))
        if col.type != arrow_type(typ) and not (typ == "STRING[]" and pa.types.is_list(col.type)):
            col = col.cast(arrow_type(typ))
        cols.append(_encode(col, typ))
    out = pa.table(cols, names=names).combine_chunks()  # mixed chunk layouts wrote NUL bytes (pyarrow 26)
    try:
        # One Arrow stream for header and rows: a Python file object under Arrow's writer lost bytes to NULs.
        with pa.OSFile(str(path), "wb") as sink:
            sink.write((",".join(names) + "\n").encode("utf-8"))
            pcsv.write_csv(out, sink, pcsv.WriteOptions(include_header=False, quoting_style="needed"))
    except OSError as e:
        if e.filename is not None:
            raise
        raise OSError(e.errno, f"{e.strerror} (temporary COPY file; set TMPDIR to a larger disk)", str(path)) from e
    return has_line_break(table, types)
