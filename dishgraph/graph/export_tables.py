"""Export the embedded graph as plain tables (Parquet or CSV), one per label and relationship type.

Why: pandas, DuckDB, Polars and Spark users want columns, not a Cypher endpoint, and a table per label /
type is the form every one of them reads without dishgraph. Node tables have one column per schema
property (the key first among them as in ``graph/schema.py``); relationship tables have ``src`` and ``dst``
(the keys of the start and end nodes) and then the relationship's properties. A relationship type that
connects several label pairs (FORM_OF) gets one table per pair, named ``TYPE.Src-Dst``, so that each table
says which labels its ends are. ``tables.json`` lists every table with its columns, types and row count.

Parquet keeps the schema types (lists stay ``list<string>``, NULL stays NULL); CSV writes lists as JSON
arrays (unambiguous whatever the items hold) and NULL as an empty unquoted field. Streaming as in
``export_neo4j``: one Arrow batch at a time.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from dishgraph.csvcells import FORMULA_STARTS, QUOTE
from dishgraph.graph.base import GraphStore
from dishgraph.graph.export_dir import export_directory, file_sha256, new_file, open_output, write_text
from dishgraph.graph.export_scan import (
    TableSpec,
    arrow_schema,
    count_rows,
    iter_batches,
    scan_to_parquet,
    scratch_dir,
    table_specs,
)

FORMATS = ("parquet", "csv")
Progress = Callable[[str, int, int], None]


@dataclass
class ExportedTable:
    name: str
    file: str
    kind: str  # node | rel
    label_or_type: str
    columns: dict[str, str]  # column -> schema type
    rows: int
    bytes: int
    seconds: float
    src: str | None = None
    dst: str | None = None
    sha256: str = ""  # of the file as written (tables.json lets a reader check every file)


@dataclass
class TablesExport:
    directory: str
    format: str
    tables: list[ExportedTable] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def rows(self) -> int:
        return sum(t.rows for t in self.tables)

    @property
    def bytes(self) -> int:
        return sum(t.bytes for t in self.tables)

    def to_dict(self) -> dict[str, Any]:
        return {
            "directory": self.directory,
            "format": self.format,
            "seconds": round(self.seconds, 3),
            "rows": self.rows,
            "bytes": self.bytes,
            "rows_per_s": round(self.rows / self.seconds, 1) if self.seconds else None,
            "tables": [asdict(t) for t in self.tables],
        }


def table_file(spec: TableSpec, fmt: str, compress: bool) -> str:
    if fmt == "parquet":
        return f"{spec.name}.parquet"
    return f"{spec.name}.csv" + (".gz" if compress else "")


def _csv_batch(batch: Any, spec: TableSpec) -> Any:  # pyarrow.RecordBatch in and out
    """Lists as JSON arrays (CSV has no list type); text cells that a spreadsheet would run as a formula
    (``=HYPERLINK(…)``, ``@SUM``, ``+1``) get the leading quote of `dishgraph.csvcells` (OWASP's rule, as the
    annotation CSV does; `csvcells.restore` reads them back); numbers and the rest as Arrow writes them."""
    import pyarrow as pa

    cols = []
    for col, typ in zip(batch.columns, spec.types):
        if typ.endswith("[]"):
            col = pa.array(
                [None if v is None else json.dumps(v, ensure_ascii=False) for v in col.to_pylist()], pa.string()
            )
        elif typ == "STRING":
            col = _neutralised(col)
        cols.append(col)
    return pa.RecordBatch.from_arrays(cols, names=spec.columns)


_FORMULA_START = "^[" + "".join("\\" + c if c in "-\\^]" else c for c in sorted(FORMULA_STARTS | {QUOTE})) + "]"


def _neutralised(col: Any) -> Any:
    """`csvcells.neutralise` over an Arrow string column, vectorised (exports run to millions of rows)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    col = col.cast(pa.string())
    risky = pc.fill_null(pc.match_substring_regex(col, _FORMULA_START), False)
    if not pc.any(risky).as_py():
        return col
    return pc.if_else(risky, pc.binary_join_element_wise(pa.scalar(QUOTE), col, ""), col)


def _csv_schema(spec: TableSpec) -> Any:  # a pyarrow.Schema
    import pyarrow as pa

    return pa.schema(
        [pa.field(f.name, pa.string() if t.endswith("[]") else f.type) for f, t in zip(arrow_schema(spec), spec.types)]
    )


def export_tables(
    store: GraphStore,
    directory: str | Path,
    fmt: str = "parquet",
    *,
    compress: bool = True,
    progress: Progress | None = None,
    batch_rows: int = 65_536,
) -> TablesExport:
    """Write every label and relationship table of the schema (empty ones too, with their columns), then
    ``tables.json``. The directory is replaced whole, or not at all (``export_dir``): a directory holding
    other files is refused.

    ``compress``: zstd inside Parquet files, gzip around CSV files.
    """
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    t0 = time.perf_counter()
    with export_directory(directory) as (stage, out), scratch_dir(stage) as scratch:
        rep = TablesExport(str(out), fmt)
        for spec in table_specs():
            rep.tables.append(_export_table(store, spec, stage, scratch, fmt, compress, progress, batch_rows))
        rep.seconds = time.perf_counter() - t0
        write_text(stage, "tables.json", json.dumps(rep.to_dict(), ensure_ascii=False, indent=2) + "\n")
    return rep


def _export_table(
    store: GraphStore,
    spec: TableSpec,
    stage: Path,
    scratch: Path,
    fmt: str,
    compress: bool,
    progress: Progress | None,
    batch_rows: int,
) -> ExportedTable:
    """One table's file in the staging directory."""
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    t1 = time.perf_counter()
    total = count_rows(store, spec)
    name = table_file(spec, fmt, compress)
    if progress:
        progress(spec.name, 0, total)
    batches = iter_batches(scan_to_parquet(store, spec, scratch), spec, batch_rows) if total else iter(())
    done = 0
    if fmt == "parquet":
        with (
            new_file(stage, name) as sink,
            pq.ParquetWriter(sink, arrow_schema(spec), compression="zstd" if compress else "none") as writer,
        ):
            for batch in batches:
                writer.write_batch(batch)
                done += batch.num_rows
                if progress:
                    progress(spec.name, done, total)
    else:
        with (
            open_output(stage, name, compress) as sink,
            pcsv.CSVWriter(sink, _csv_schema(spec), write_options=pcsv.WriteOptions(quoting_style="needed")) as writer,
        ):
            for batch in batches:
                writer.write_batch(_csv_batch(batch, spec))
                done += batch.num_rows
                if progress:
                    progress(spec.name, done, total)
    (scratch / f"{spec.name}.parquet").unlink(missing_ok=True)
    path = stage / name
    return ExportedTable(
        spec.name,
        name,
        spec.kind,
        spec.label_or_type,
        dict(zip(spec.columns, spec.types)),
        done,
        path.stat().st_size,
        round(time.perf_counter() - t1, 3),
        spec.src,
        spec.dst,
        file_sha256(path),
    )
