"""The graph-store interface: one API over two engines, embedded LadybugDB (default) and Neo4j 5 over Bolt.

Callers name a query (a file in ``dishgraph/cypher/``) and pass parameters; rows come back as dicts with
plain Python values. Writes go through ``write(name, rows)``, which batches rows into ``$rows`` for an
``UNWIND $rows AS r MERGE …`` query, so loads are incremental and idempotent on stable keys. The engines
(``graph.ladybug_store``, ``graph.neo4j_store``) implement the abstract methods; ``graph.factory`` picks one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Self

from dishgraph.graph import queries, schema
from dishgraph.graph.values import batched, param

# Rows for the bulk paths: a sequence of dicts, or a pyarrow.Table with one column per property (the
# loader's Step tables, built in parse workers). Typed loosely: pyarrow ships no type stubs.
BulkRows = Sequence[dict[str, Any]] | Any

DEFAULT_BATCH = 2000

Row = dict[str, Any]


class GraphStore(ABC):
    backend: str = "?"

    # --- the two calls everything else uses -------------------------------------------------------
    def query(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run the named query with parameters; rows as dicts."""
        q = self._named(name, params)
        return self.execute(q.text, {k: param(v) for k, v in params.items() if k in q.params})

    def query_columns(self, name: str, **params: Any) -> dict[str, list[Any]]:
        """The named query's result as one list per column (same values as ``query``; an empty result may
        name no column): for results of many rows read whole, where a backend hands over columns faster."""
        rows = self.query(name, **params)
        return {c: [r[c] for r in rows] for c in (rows[0] if rows else ())}  # no row: maybe no column either

    def _named(self, name: str, params: dict[str, Any]) -> Any:
        """The named query, refusing a call that lacks one of its parameters."""
        q = queries.get(name, self.backend)
        missing = set(q.params) - set(params)
        if missing:
            raise TypeError(f"query {name!r} needs parameters {sorted(missing)}")
        return q

    def write(self, name: str, rows: Iterable[dict[str, Any]], batch_size: int = DEFAULT_BATCH, **params: Any) -> int:
        """Run an ``UNWIND $rows`` query over rows in batches, one transaction per batch."""
        q = queries.get(name, self.backend)
        if "rows" not in q.params:
            raise ValueError(f"query {name!r} does not take $rows")
        n = 0
        for batch in batched(rows, batch_size):
            self.execute(q.text, {"rows": param(batch), **{k: param(v) for k, v in params.items()}})
            n += len(batch)
        return n

    # --- engine specifics -----------------------------------------------------------------------
    @abstractmethod
    def execute(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run one statement text with parameters (used by named queries and `db shell`)."""

    @abstractmethod
    def init_schema(self) -> None: ...

    @abstractmethod
    def location(self) -> str: ...

    @abstractmethod
    def version(self) -> str: ...

    @abstractmethod
    def bulk_load_nodes(self, label: str, rows: BulkRows) -> int:
        """Fast path for large loads of *new* nodes (Ladybug COPY; Neo4j falls back to batched MERGE).
        ``rows`` are dicts or an Arrow table with one column per property."""

    @abstractmethod
    def bulk_load_rels(self, rel: str, src: str, dst: str, rows: BulkRows) -> int:
        """Fast path for *new* relationships; rows (dicts or an Arrow table) have ``from``, ``to`` plus
        properties."""

    def bulk_load_rels_from_query(
        self, rel: str, src: str, dst: str, name: str, *, probe: str, reserve_bytes: int = 0, **params: Any
    ) -> None:
        """*New* relationships from the rows of a named read query, which returns ``from``, ``to`` and then
        the relationship's properties in schema order. Here the rows pass through Python; Ladybug copies
        them inside the engine (``COPY … FROM (query)``), with no rows sent out and back, after checking
        that the disk can take ``reserve_bytes`` (an upper bound on the rows' size as CSV). ``probe`` names
        a cheap query (same parameters) that returns a row exactly when ``name`` would: nothing is copied
        without one (Ladybug 0.22 segfaults on a COPY from an empty subquery into a non-empty table)."""
        if self.query(probe, **params):
            self.bulk_load_rels(rel, src, dst, self.query(name, **params))

    @contextmanager
    def bulk_session(self) -> Iterator[None]:
        """Group bulk writes under one durability point (a no-op here; Ladybug checkpoints once at the end)."""
        yield

    @property
    def bulk_pending(self) -> bool:
        """Whether bulk writes wait for a durability point (then a logged write would force one early)."""
        return False

    def make_durable(self) -> None:  # noqa: B027 - a no-op by default, not abstract: Neo4j commits are durable
        """Make every write so far durable now, inside a bulk session too (a no-op where commits are)."""

    def close(self) -> None:  # noqa: B027 - a no-op by default, not abstract: nothing to release
        """Release the engine (connections, file locks)."""

    def missing_properties(self, label: str) -> list[str]:
        """Schema properties of a node label this database cannot hold yet (none on schemaless Neo4j, where
        an absent property reads as null; on Ladybug, columns added to the schema after the database was
        created and not yet added to it: a read-only open cannot add them)."""
        schema.check_label(label)
        return []

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- shared helpers -------------------------------------------------------------------------
    def counts(self) -> dict[str, dict[str, int]]:
        """Counts per label and per relationship type (zero included), from the schema whitelist."""
        nodes = {n.label: self._count_label(n.label) for n in schema.NODES}
        rels = {r.type: self._count_rel(r.type) for r in schema.RELS}
        return {"nodes": nodes, "relationships": rels}

    def _count_label(self, label: str) -> int:
        label = schema.check_label(label)
        return int(self.execute(f"MATCH (n:{label}) RETURN count(n) AS n")[0]["n"])

    def _count_rel(self, rel: str) -> int:
        rel = schema.check_rel(rel)
        return int(self.execute(f"MATCH ()-[r:{rel}]->() RETURN count(r) AS n")[0]["n"])

    def reset(self) -> None:
        """Delete every node and relationship (schema stays)."""
        for n in schema.NODES:
            self.execute(f"MATCH (n:{schema.check_label(n.label)}) DETACH DELETE n")
