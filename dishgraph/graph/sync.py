"""Copy a whole dishgraph graph from one store into another (embedded LadybugDB -> Neo4j, or any pair).

Every label and relationship type of the schema whitelist is read page by page from the source and
written to the target with ``UNWIND $rows AS r MERGE …`` on the stable key of each label (and on the
identifying properties of relationships that can run in parallel, e.g. PIVOT {kind, source}), so a sync
is idempotent: running it twice leaves the same counts. The per-label queries it runs are generated from
the schema by ``graph.sync_queries``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from dishgraph.graph import schema
from dishgraph.graph.base import GraphStore
from dishgraph.graph.sync_queries import (
    NULLABLE_IDENTITY,
    REL_IDENTITY,
    node_read_name,
    node_write_name,
    rel_read_name,
    rel_write_name,
)
from dishgraph.graph.values import batched

SERVER_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def sync_target(to: str) -> tuple[str, str | Path]:
    """``("uri", to)`` for a valid Bolt/Neo4j URI, ``("dir", path)`` for an explicit directory; anything else
    (empty, ``bolt:/host`` with one slash, an unknown scheme) is a `UsageError`: a sync never writes
    where nobody asked (an empty --to used to fall back to the default database)."""
    from urllib.parse import urlsplit

    from dishgraph.errors import UsageError

    if to is None or not str(to).strip():
        raise UsageError("--to is empty; give a bolt:// or neo4j:// URI or a database directory")
    to = str(to).strip()
    if _SCHEME.match(to) and not re.match(r"^[A-Za-z]:[\\/]", to):  # a scheme (not a Windows drive)
        parts = urlsplit(to)
        if parts.scheme.lower() not in SERVER_SCHEMES or not to.lower().startswith(parts.scheme.lower() + "://"):
            raise UsageError(
                f"--to {to!r} is not a valid URI; expected {'|'.join(SERVER_SCHEMES[::3])}://host[:port] "
                "(or a directory path, e.g. ./graph-copy)"
            )
        if not parts.hostname:
            raise UsageError(f"--to {to!r} names no host; expected bolt://host[:port]")
        try:
            _ = parts.port  # urlsplit checks the port only when it is read
        except ValueError:
            raise UsageError(f"--to {to!r}: the port is not a number in 0-65535") from None
        return "uri", to
    return "dir", Path(to).expanduser()


DEFAULT_BATCH = 5000


# ------------------------------------------------------------------------------------------------ sync
@dataclass
class SyncItem:
    kind: str  # node | rel
    name: str  # label, or TYPE (Src->Dst)
    source: int = 0  # rows read from the source
    written: int = 0  # rows sent to the target (MERGE: re-sending an existing one changes nothing)


@dataclass
class SyncReport:
    items: list[SyncItem] = field(default_factory=list)
    source_counts: dict[str, Any] = field(default_factory=dict)
    target_counts: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def mismatches(self) -> dict[str, tuple[int, int]]:
        """Label / type -> (source count, target count) where they differ after the sync."""
        out = {}
        for part in ("nodes", "relationships"):
            for k, v in self.source_counts.get(part, {}).items():
                t = self.target_counts.get(part, {}).get(k)
                if t != v:
                    out[k] = (v, t)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "items": [asdict(i) for i in self.items],
            "source_counts": self.source_counts,
            "target_counts": self.target_counts,
            "mismatches": self.mismatches,
            "seconds": self.seconds,
        }


Progress = Callable[[str, int, int], None]  # (item name, rows done, rows total)


def _node_pages(store: GraphStore, label: str, page: int) -> Iterator[list[dict[str, Any]]]:
    """Keyset pagination in key order (``$first`` lets the first page include an empty-string key)."""
    key = schema.NODE_BY_LABEL[label].key
    after, first = "", True
    while True:
        rows = store.query(node_read_name(label), first=first, after=after, limit=page)
        if not rows:
            return
        yield rows
        after, first = rows[-1][key], False
        if len(rows) < page:
            return


def sync_stores(
    source: GraphStore, target: GraphStore, batch: int = DEFAULT_BATCH, progress: Progress | None = None
) -> SyncReport:
    """Copy every node and relationship of the schema from source to target; idempotent (MERGE on keys).

    Nodes go first (so relationship endpoints exist), label by label in key order; relationships are read
    per page of their source label's keys and written in batches of ``batch`` rows.
    """
    t0 = time.perf_counter()
    rep = SyncReport(source_counts=source.counts())
    target.init_schema()
    pages: dict[str, list[tuple[str, bool, str]]] = {}  # label -> (after, first, upto] key ranges of its pages
    for n in schema.NODES:
        total = rep.source_counts["nodes"][n.label]
        item = SyncItem("node", n.label, source=0)
        ranges: list[tuple[str, bool, str]] = []
        for rows in _node_pages(source, n.label, batch):
            ranges.append((ranges[-1][2] if ranges else "", not ranges, rows[-1][n.key]))
            item.source += len(rows)
            item.written += target.write(node_write_name(n.label), rows, batch_size=batch)
            if progress:
                progress(n.label, item.source, total)
        pages[n.label] = ranges
        if progress and not ranges:
            progress(n.label, 0, total)
        rep.items.append(item)
    for r in schema.RELS:
        for src, dst in r.ends:
            total = rep.source_counts["relationships"][r.type]
            item = SyncItem("rel", f"{r.type} ({src}->{dst})")
            for after, first, upto in pages[src]:
                rows = source.query(rel_read_name(r.type, src, dst), first=first, after=after, upto=upto)
                _check_identity(r.type, rows)
                item.source += len(rows)
                for chunk in batched(rows, batch):
                    item.written += target.write(rel_write_name(r.type, src, dst), chunk, batch_size=batch)
                if progress:
                    progress(item.name, item.source, total)
            if progress and not pages[src]:
                progress(item.name, 0, total)
            rep.items.append(item)
    rep.target_counts = target.counts()
    rep.seconds = time.perf_counter() - t0
    return rep


def _check_identity(rel: str, rows: list[dict[str, Any]]) -> None:
    strict = [p for p in REL_IDENTITY.get(rel, ()) if p not in NULLABLE_IDENTITY.get(rel, ())]
    for row in rows:
        for p in strict:
            if row.get(p) is None:
                raise ValueError(f"{rel} {row['src']} -> {row['dst']} has no {p!r}, which identifies the edge")
