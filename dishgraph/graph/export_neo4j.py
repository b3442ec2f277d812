"""Export the embedded graph as CSV files for ``neo4j-admin database import full`` (initial bulk loads).

Why: ``dishgraph sync`` MERGEs over Bolt (the CRG release: ~60 s); a full 1.5M-recipe corpus would take
hours that way, while Neo4j's offline importer reads millions of CSV rows per second. The files follow
Neo4j's import header format (docs/neo4j.md cites the pages relied on):

* one file per label (``:ID(Dish),name:string,source:string,:LABEL``) and per relationship type and end
  pair (``:START_ID(Dish),:END_ID(ProtoAction),:TYPE,freq:double,…``); every label is its own ID space,
  whose ids are the nodes' row offsets in the embedded table (integers, unique per label; relationship
  ends then need no join: see ``export_scan.table_specs``); keys are ordinary properties, made unique by
  the constraints of ``post-import.cypher`` / ``dishgraph db init``;
* headers are generated from ``graph/schema.py`` (STRING string, INT64 long, DOUBLE double, BOOLEAN
  boolean, STRING[] string[]), so a schema change changes the files without code here;
* RFC 4180 quoting: every string is quoted with inner quotes doubled (commas, quotes and newlines survive;
  a quoted "" stays an empty string), NULL is an unquoted empty field (no property), a backslash is plain
  text (neo4j-admin's ``--legacy-style-quoting`` is false by default);
* arrays joined with the array delimiter (``;`` unless chosen otherwise); an item containing it is refused
  rather than split in two. Empty arrays cannot be written in CSV (Neo4j reads them as no property), so
  they are counted, and ``post-import.cypher`` sets them back to ``[]`` after the import;
* ``--multiline-fields=true`` is only put on the command line when a value holds a line break (the docs
  warn that it slows the importer down).

Streaming: each table is read with the engine's COPY TO Parquet (``export_scan``) and re-encoded one Arrow
batch at a time. With the engine's page cache capped (``dishgraph export neo4j-import --buffer-pool-mb``,
512 MB by default) memory stays flat whatever the corpus size (benchmarks/results/export.json).
"""

from __future__ import annotations

import json
import math
import re
import shlex
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from dishgraph.graph import schema
from dishgraph.graph.base import GraphStore
from dishgraph.graph.export_dir import export_directory, file_sha256, open_output, write_text
from dishgraph.graph.export_scan import (
    TableSpec,
    count_rows,
    iter_batches,
    scan_to_parquet,
    scratch_dir,
    table_specs,
)

NEO4J_TYPES = {"STRING": "string", "INT64": "long", "DOUBLE": "double", "BOOLEAN": "boolean"}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

Progress = Callable[[str, int, int], None]  # (file name, rows done, rows total)


class ExportError(ValueError):
    """A value the import format cannot carry faithfully (e.g. an array item holding the delimiter)."""


def neo4j_type(schema_type: str) -> str:
    """neo4j-admin's field type for a schema type: ``STRING[]`` -> ``string[]``."""
    if schema_type.endswith("[]"):
        return neo4j_type(schema_type[:-2]) + "[]"
    return NEO4J_TYPES[schema_type]


def _checked(name: str) -> str:
    if not _NAME.match(name):
        raise ExportError(f"property or label name {name!r} cannot appear in an import header")
    return name


def header(spec: TableSpec) -> list[str]:
    """The header fields of one file, in column order.

    Nodes are identified by their row offset in the embedded table (``:ID(Label)``, unnamed, so not stored:
    the key is an ordinary property, made unique by the constraints created after the import), because
    relationship ends then come without a join (``export_scan.table_specs``).
    """
    if not spec.by_offset:
        raise ExportError(f"{spec.name}: the import files identify nodes by offset (table_specs(by_offset=True))")
    if spec.kind == "node":
        out = [f":ID({_checked(spec.label_or_type)})"]
        out += [f"{_checked(p)}:{neo4j_type(t)}" for p, t in spec.props.items()]
        return out + [":LABEL"]
    src, dst = spec.ends
    return [
        f":START_ID({_checked(src)})",
        f":END_ID({_checked(dst)})",
        ":TYPE",
        *(f"{_checked(p)}:{neo4j_type(t)}" for p, t in spec.props.items()),
    ]


def file_name(spec: TableSpec, compress: bool) -> str:
    return f"{spec.name}.csv" + (".gz" if compress else "")


# ------------------------------------------------------------------------------------------ encoding
@dataclass
class _Seen:
    multiline: bool = False
    empty_lists: dict[str, int] = field(default_factory=dict)  # "Label.prop" -> rows with []
    null_lists: dict[str, int] = field(default_factory=dict)  # "Label.prop" -> rows with NULL


def _has_line_break(col: Any) -> bool:  # a pyarrow string array
    import pyarrow.compute as pc

    return bool(pc.any(pc.match_substring(col, "\n")).as_py()) or bool(pc.any(pc.match_substring(col, "\r")).as_py())


def _java_doubles(col: Any) -> Any:  # pyarrow arrays in and out
    """A double column as text when it holds NaN or infinities (Java spells them NaN / Infinity)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    finite = pc.is_finite(col)
    if bool(pc.all(pc.or_kleene(finite, pc.is_null(col))).as_py()):
        return col

    def text(v: float | None) -> str | None:
        if v is None:
            return None
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return repr(v)

    return pa.array([text(v) for v in col.to_pylist()], pa.string())


def _encode(col: Any, schema_type: str, where: str, delimiter: str, seen: _Seen) -> Any:
    """One Arrow column in its neo4j-admin text form (strings left to the CSV writer's quoting)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if schema_type == "STRING":
        if not seen.multiline and _has_line_break(col):
            seen.multiline = True
        return col
    if schema_type == "DOUBLE":
        return _java_doubles(col)
    if schema_type.endswith("[]"):
        items = pc.list_flatten(col)
        if schema_type != "STRING[]":
            items = pc.cast(items, pa.string())
        if len(items) and bool(pc.any(pc.match_substring(items, delimiter)).as_py()):
            bad = next(v for v in items.to_pylist() if v is not None and delimiter in v)
            raise ExportError(
                f"{where}: the array item {bad!r} contains the array delimiter {delimiter!r}; "
                "export again with another --array-delimiter"
            )
        if not seen.multiline and len(items) and _has_line_break(items):
            seen.multiline = True
        lengths = pc.list_value_length(col)
        empty = int(pc.sum(pc.equal(lengths, 0)).as_py() or 0)
        nulls = col.null_count
        if empty:
            seen.empty_lists[where] = seen.empty_lists.get(where, 0) + empty
        if nulls:
            seen.null_lists[where] = seen.null_lists.get(where, 0) + nulls
        joined = pc.binary_join(col if schema_type == "STRING[]" else pc.cast(col, pa.list_(pa.string())), delimiter)
        # An empty array has no CSV form (neo4j-admin reads "" as no property): write NULL, restore it after.
        return pc.if_else(pc.equal(lengths, 0), pa.scalar(None, pa.string()), joined) if empty else joined
    return col  # INT64, BOOLEAN: Arrow writes 12 / true / false; NULL as an empty field


def encode_batch(batch: Any, spec: TableSpec, delimiter: str, seen: _Seen) -> Any:  # pyarrow.RecordBatch
    """A record batch of the engine's table in the file's column order and text encodings."""
    import pyarrow as pa

    n = batch.num_rows
    cols, names = [], header(spec)
    by_name = dict(zip(spec.columns, batch.columns))
    if spec.kind == "node":
        cols.append(by_name["_id"])
        for p, t in spec.props.items():
            cols.append(_encode(by_name[p], t, f"{spec.label_or_type}.{p}", delimiter, seen))
        cols.append(pa.array([spec.label_or_type] * n, pa.string()))
    else:
        cols += [by_name["src"], by_name["dst"], pa.array([spec.label_or_type] * n, pa.string())]
        for p, t in spec.props.items():
            cols.append(_encode(by_name[p], t, f"{spec.name}.{p}", delimiter, seen))
    return pa.RecordBatch.from_arrays(cols, names=names)


# ------------------------------------------------------------------------------------------ export
@dataclass
class ExportedFile:
    name: str  # file name inside the export directory
    kind: str  # node | rel
    table: str  # label, or TYPE / TYPE.Src-Dst
    rows: int
    bytes: int
    seconds: float
    sha256: str = ""  # of the file as written (the manifest lets a reader check every file)


@dataclass
class Neo4jExport:
    directory: str
    files: list[ExportedFile]
    seconds: float
    array_delimiter: str = ";"
    multiline: bool = False
    empty_lists: dict[str, Any] = field(default_factory=dict)
    null_lists: dict[str, Any] = field(default_factory=dict)
    database: str = "neo4j"

    @property
    def rows(self) -> int:
        return sum(f.rows for f in self.files)

    @property
    def bytes(self) -> int:
        return sum(f.bytes for f in self.files)

    def admin_args(self, import_dir: str) -> list[str]:
        """neo4j-admin's arguments, files under import_dir (the database name first: --nodes is greedy)."""
        args = [
            "neo4j-admin",
            "database",
            "import",
            "full",
            self.database,
            "--overwrite-destination",
            "--id-type=integer",
        ]
        base = import_dir.rstrip("/")
        args += [f"--{'nodes' if f.kind == 'node' else 'relationships'}={base}/{f.name}" for f in self.files if f.rows]
        if self.array_delimiter != ";":
            args.append(f"--array-delimiter=U+{ord(self.array_delimiter):04X}")
        if self.multiline:
            args.append("--multiline-fields=true")
        return args

    def admin_command(self, import_dir: str | None = None) -> str:
        """The ``neo4j-admin database import full`` line for the files where they are now."""
        return _shell(self.admin_args(import_dir or self.directory))

    def compose_command(self) -> str:
        """The same import inside the compose file's neo4j service (./build/import is mounted at /import)."""
        return _shell(["docker", "compose", "run", "--rm", "neo4j", *self.admin_args("/import")], head=5)

    def fixups(self) -> list[str]:
        """Cypher that puts back the empty arrays CSV cannot carry (only where the source had no NULL list)."""
        out = []
        for where in sorted(self.empty_lists):
            if self.null_lists.get(where):
                continue  # NULL and [] both arrived as NULL: leave both (reported in the manifest)
            table, prop = where.rsplit(".", 1)
            prop = _checked(prop)
            if table in schema.NODE_BY_LABEL:
                out.append(f"MATCH (n:{schema.check_label(table)}) WHERE n.`{prop}` IS NULL SET n.`{prop}` = []")
            else:  # a relationship property: TYPE or TYPE.Src-Dst
                rel = schema.check_rel(table.split(".", 1)[0])
                out.append(f"MATCH ()-[e:{rel}]->() WHERE e.`{prop}` IS NULL SET e.`{prop}` = []")
        return out

    def post_import_cypher(self) -> str:
        lines = [
            "// After `neo4j-admin database import full`: the constraints and indexes of `dishgraph db init`",
            "// (dishgraph.graph.schema.neo4j_ddl), then the empty arrays CSV cannot carry.",
            '// Run: cypher-shell -u neo4j -p "$NEO4J_PASSWORD" -f post-import.cypher',
        ]
        return "\n".join(lines + [s + ";" for s in schema.neo4j_ddl() + self.fixups()]) + "\n"

    def instructions(self) -> str:
        return "\n".join(
            [
                "# Load these files into Neo4j 5 with its offline importer (the server must be stopped).",
                "# Plain install (files where they are now):",
                self.admin_command(),
                "",
                "# Docker Compose (docs/neo4j.md): export into ./build/import, which the neo4j service mounts at"
                " /import:",
                "docker compose stop neo4j",
                self.compose_command(),
                "docker compose up -d --wait",
                "",
                "# Then the constraints and indexes (the importer creates none) and the empty arrays:",
                "DISHGRAPH_URI=bolt://localhost:7687 dishgraph db init",
                "docker compose exec neo4j sh -c "
                "'cypher-shell -u neo4j -p \"${NEO4J_AUTH#neo4j/}\" -f /import/post-import.cypher'",
                '# (or, without Docker: cypher-shell -u neo4j -p "$NEO4J_PASSWORD" -f post-import.cypher)',
                "",
            ]
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "directory": self.directory,
            "database": self.database,
            "seconds": round(self.seconds, 3),
            "rows": self.rows,
            "bytes": self.bytes,
            "rows_per_s": round(self.rows / self.seconds, 1) if self.seconds else None,
            "array_delimiter": self.array_delimiter,
            "multiline_fields": self.multiline,
            "empty_lists": self.empty_lists,
            "null_lists": self.null_lists,
            "files": [asdict(f) for f in self.files],
            "neo4j_admin": self.admin_command(),
            "docker_compose": self.compose_command(),
            "post_import": schema.neo4j_ddl() + self.fixups(),
        }


def _shell(args: list[str], head: int = 0) -> str:
    """One shell command, a line per option (--nodes=… lines stay readable); the first head words stay together."""
    lines: list[list[str]] = [[]]
    for i, a in enumerate(args):
        if a.startswith("--") and lines[-1] and i >= head:
            lines.append([])
        lines[-1].append(shlex.quote(a))
    return " \\\n  ".join(" ".join(ln) for ln in lines)


def export_neo4j_import(
    store: GraphStore,
    directory: str | Path,
    *,
    compress: bool = True,
    array_delimiter: str = ";",
    database: str = "neo4j",
    progress: Progress | None = None,
    batch_rows: int = 65_536,
) -> Neo4jExport:
    """Write one import CSV per label and relationship type (and end pair) of the schema into directory.

    Tables without rows get no file (and no ``--nodes`` / ``--relationships`` argument). Also writes
    ``IMPORT.txt`` (the command lines), ``post-import.cypher`` and ``manifest.json`` (last). The directory
    is replaced whole, or not at all (``export_dir``): a directory holding other files is refused.
    """

    if len(array_delimiter) != 1 or array_delimiter in ',"\r\n':
        raise ExportError(
            f'the array delimiter must be one character other than , " and line breaks, not {array_delimiter!r}'
        )
    t0 = time.perf_counter()
    seen = _Seen()
    files: list[ExportedFile] = []
    with export_directory(directory) as (stage, out), scratch_dir(stage) as scratch:
        for spec in table_specs(by_offset=True):
            f = _export_table(store, spec, stage, scratch, compress, array_delimiter, seen, progress, batch_rows)
            if f is not None:
                files.append(f)
        rep = Neo4jExport(
            str(out),
            files,
            time.perf_counter() - t0,
            array_delimiter,
            seen.multiline,
            seen.empty_lists,
            seen.null_lists,
            database,
        )
        write_text(stage, "IMPORT.txt", rep.instructions())
        write_text(stage, "post-import.cypher", rep.post_import_cypher())
        write_text(stage, "manifest.json", json.dumps(rep.to_dict(), ensure_ascii=False, indent=2) + "\n")
    return rep


def _export_table(
    store: GraphStore,
    spec: TableSpec,
    stage: Path,
    scratch: Path,
    compress: bool,
    array_delimiter: str,
    seen: _Seen,
    progress: Progress | None,
    batch_rows: int,
) -> ExportedFile | None:
    """One table's import file in the staging directory (None for a table without rows: no file)."""
    import pyarrow.csv as pcsv

    total = count_rows(store, spec)
    if progress:
        progress(spec.name, 0, total)
    if not total:
        return None
    t1 = time.perf_counter()
    name = file_name(spec, compress)
    parquet = scan_to_parquet(store, spec, scratch)
    done = 0
    opts = pcsv.WriteOptions(include_header=False, quoting_style="needed")
    with open_output(stage, name, compress) as sink:
        sink.write((",".join(header(spec)) + "\n").encode("utf-8"))
        writer = None
        for batch in iter_batches(parquet, spec, batch_rows):
            enc = encode_batch(batch, spec, array_delimiter, seen)
            if writer is None:
                writer = pcsv.CSVWriter(sink, enc.schema, write_options=opts)
            writer.write_batch(enc)
            done += batch.num_rows
            if progress:
                progress(spec.name, done, total)
        if writer is not None:
            writer.close()
    parquet.unlink()
    path = stage / name
    return ExportedFile(
        name, spec.kind, spec.name, done, path.stat().st_size, round(time.perf_counter() - t1, 3), file_sha256(path)
    )
