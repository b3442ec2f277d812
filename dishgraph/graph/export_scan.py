"""Read whole tables out of the embedded database in constant memory, for the exporters.

Why a COPY TO Parquet and not a query: ``store.execute`` collects every row as Python dicts before
returning (20M steps of a 1M-recipe corpus would need many GB), and paging by key re-scans and sorts the
table for every page. ``COPY (MATCH … RETURN …) TO 'x.parquet'`` is the engine's own streaming sink: it
writes typed columns (lists stay lists, NULL stays NULL, "" stays "") in row groups, which pyarrow then
reads back one batch at a time. The temporary Parquet file costs disk, not memory.

One :class:`TableSpec` per label and per (relationship type, end pair) of ``graph/schema.py``: a type that
connects several label pairs (FORM_OF) gets one table per pair, because an exported row must say which
label (Neo4j ID space) each end lives in.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dishgraph.graph import schema
from dishgraph.graph.base import GraphStore
from dishgraph.graph.ladybug_store import LadybugStore


@dataclass(frozen=True)
class TableSpec:
    kind: str  # "node" | "rel"
    name: str  # label, or TYPE, or TYPE.Src-Dst for a type with several end pairs
    label_or_type: str  # the schema label / relationship type
    props: dict[str, str]  # property -> schema type, in schema order
    key: str | None = None  # node key property
    src: str | None = None  # relationship start label
    dst: str | None = None  # relationship end label
    by_offset: bool = False  # ends (and a node column `_id`) as the engine's row offsets, not keys

    @property
    def columns(self) -> list[str]:
        """Column names as exported: [_id,] node properties; or src, dst, relationship properties."""
        if self.kind == "node":
            return (["_id"] if self.by_offset else []) + list(self.props)
        return ["src", "dst", *self.props]

    @property
    def ends(self) -> tuple[str, str]:
        """(start label, end label) of a relationship table."""
        if self.src is None or self.dst is None:
            raise ValueError(f"{self.name} is a node table: it has no ends")
        return self.src, self.dst

    @property
    def types(self) -> list[str]:
        """Schema types of :attr:`columns` (relationship ends: their end label's key type, or INT64 offsets)."""
        if self.kind == "node":
            return (["INT64"] if self.by_offset else []) + list(self.props.values())
        if self.by_offset:
            return ["INT64", "INT64", *self.props.values()]
        a, b = (schema.NODE_BY_LABEL[end] for end in self.ends)
        return [a.props[a.key], b.props[b.key], *self.props.values()]


def table_specs(by_offset: bool = False) -> list[TableSpec]:
    """Every node label, then every relationship type (per end pair), in schema order.

    ``by_offset``: identify nodes by the engine's row offset within their label (unique per label while
    the database is open read-only). Reading a relationship's end offsets needs no join, while reading
    its end keys joins every edge to both end tables: for NEXT at 100k recipes 1.9 s and no extra memory
    against 9.3 s and +190 MB (growing with the corpus). neo4j-admin only needs ids unique per ID space.
    """
    out = [TableSpec("node", n.label, n.label, dict(n.props), key=n.key, by_offset=by_offset) for n in schema.NODES]
    for r in schema.RELS:
        for a, b in r.ends:
            name = r.type if len(r.ends) == 1 else f"{r.type}.{a}-{b}"
            out.append(TableSpec("rel", name, r.type, dict(r.props), src=a, dst=b, by_offset=by_offset))
    return out


def scan_query(spec: TableSpec) -> str:
    """The read query of one table; columns aliased c0, c1, … (property names such as `end` are keywords)."""
    if spec.kind == "node":
        label = schema.check_label(spec.label_or_type)
        cols = (["offset(ID(n))"] if spec.by_offset else []) + [f"n.`{p}`" for p in spec.props]
        match = f"MATCH (n:{label})"
    else:
        rel = schema.check_rel(spec.label_or_type)
        a, b = (schema.NODE_BY_LABEL[schema.check_label(end)] for end in spec.ends)
        ends = ["offset(ID(a))", "offset(ID(b))"] if spec.by_offset else [f"a.`{a.key}`", f"b.`{b.key}`"]
        cols = [*ends, *(f"e.`{p}`" for p in spec.props)]
        match = f"MATCH (a:{a.label})-[e:{rel}]->(b:{b.label})"
    return match + " RETURN " + ", ".join(f"{c} AS c{i}" for i, c in enumerate(cols))


def count_rows(store: GraphStore, spec: TableSpec) -> int:
    """Rows the table will have (for progress bars and the manifest)."""
    if spec.kind == "node":
        return store._count_label(spec.label_or_type)
    a, b = (schema.check_label(end) for end in spec.ends)
    rel = schema.check_rel(spec.label_or_type)
    return int(store.execute(f"MATCH (:{a})-[e:{rel}]->(:{b}) RETURN count(e) AS n")[0]["n"])


@contextmanager
def scratch_dir(parent: Path | None = None) -> Iterator[Path]:
    """A temporary directory for the engine's Parquet files (inside the export's staging directory: same disk)."""
    with tempfile.TemporaryDirectory(prefix=".dishgraph-export-", dir=parent) as tmp:
        yield Path(tmp)


def scan_to_parquet(store: GraphStore, spec: TableSpec, scratch: Path) -> Path:
    """COPY one table out of the embedded database into a Parquet file under scratch; returns its path."""
    if not isinstance(store, LadybugStore):
        raise ValueError("export reads the embedded database (--db); a Neo4j server is exported by Neo4j itself")
    path = Path(scratch) / f"{spec.name}.parquet"
    # The path is our own temp directory, never user text, and names come from the schema whitelist.
    text = str(path)
    if "'" in text or "\\" in text:
        raise ValueError(f"cannot use a scratch path containing quotes or backslashes: {text}")
    store.copy_query_to(scan_query(spec), text)
    return path


ARROW_TYPES = {"STRING": "string", "INT64": "int64", "DOUBLE": "float64", "BOOLEAN": "bool_"}


def arrow_type(schema_type: str) -> Any:  # a pyarrow.DataType
    """The Arrow type of a schema type (``X[]`` is a list of X)."""
    import pyarrow as pa

    if schema_type.endswith("[]"):
        return pa.list_(arrow_type(schema_type[:-2]))
    return getattr(pa, ARROW_TYPES[schema_type])()


def arrow_schema(spec: TableSpec) -> Any:  # a pyarrow.Schema
    """The table's Arrow schema, from graph/schema.py (so an empty or all-NULL column keeps its type)."""
    import pyarrow as pa

    return pa.schema([pa.field(c, arrow_type(t)) for c, t in zip(spec.columns, spec.types)])


def iter_batches(path: Path, spec: TableSpec, batch_rows: int = 65_536) -> Iterator[Any]:  # pyarrow.RecordBatch
    """Record batches of the engine's Parquet file, renamed to :attr:`TableSpec.columns`, schema-typed."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    target = arrow_schema(spec)
    pf = pq.ParquetFile(path)
    for batch in pf.iter_batches(batch_size=batch_rows):
        cols = [c if c.type == f.type else c.cast(f.type) for c, f in zip(batch.columns, target)]
        yield pa.RecordBatch.from_arrays(cols, schema=target)
