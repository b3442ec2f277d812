"""Neo4j 5 backend through the official driver (production, Neo4j Browser)."""

from __future__ import annotations

import os
from typing import Any

from dishgraph.graph import schema
from dishgraph.graph.arrow_copy import as_dicts
from dishgraph.graph.base import BulkRows, GraphStore
from dishgraph.graph.readonly import check_read_only
from dishgraph.graph.values import batched, check_statement, param, plain


class Neo4jStore(GraphStore):
    """A Neo4j database over Bolt.

    ``read_only=True`` is enforced twice: every statement passes the same allow-list as on Ladybug
    (``graph.readonly``) before it is sent, and it runs in a session opened with READ access through
    ``execute_read``, so the server itself refuses a write that got past the client (and a cluster routes
    the work to a reader)."""

    backend = "neo4j"

    def __init__(
        self,
        uri: str,
        user: str | None = None,
        password: str | None = None,
        database: str | None = None,
        read_only: bool = False,
    ):
        import neo4j

        self.uri = uri
        self.read_only = read_only
        self.database = database or os.environ.get("NEO4J_DATABASE") or None
        user = user or os.environ.get("NEO4J_USERNAME", "neo4j")
        password = password or os.environ.get("NEO4J_PASSWORD", "")
        from dishgraph.errors import DatabaseError

        try:
            self._driver = neo4j.GraphDatabase.driver(uri, auth=(user, password) if password else None)
            self._driver.verify_connectivity()
        except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError, ValueError, OSError) as e:
            # unreachable server (ServiceUnavailable), bad credentials, a malformed URI: one line, no traceback
            if getattr(self, "_driver", None) is not None:
                self._driver.close()
            raise DatabaseError(connect_error(uri, e)) from e

    def execute(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        check_statement(cypher, params)
        if not self.read_only:
            records, _, _ = self._driver.execute_query(cypher, parameters_=params or {}, database_=self.database)
            return [{k: plain(v) for k, v in r.items()} for r in records]  # type: ignore[no-untyped-call]
        import neo4j

        check_read_only(cypher)  # the client-side allow-list, as on Ladybug
        with self._driver.session(database=self.database, default_access_mode=neo4j.READ_ACCESS) as session:
            return session.execute_read(_read_rows, cypher, params or {})

    def init_schema(self) -> None:
        for stmt in schema.neo4j_ddl():
            self.execute(stmt)

    def location(self) -> str:
        return self.uri + (f" (database {self.database})" if self.database else "")

    def version(self) -> str:
        info = self._driver.get_server_info()
        return f"{info.agent} (protocol {'.'.join(map(str, info.protocol_version))})"

    def bulk_load_nodes(self, label: str, rows: BulkRows) -> int:
        # For very large loads use `neo4j-admin database import full` with the CSVs of
        # `dishgraph export neo4j-import DIR` (docs/neo4j.md, section 5).
        node = schema.NODE_BY_LABEL[schema.check_label(label)]
        rows = as_dicts(rows)
        q = f"UNWIND $rows AS r MERGE (n:{node.label} {{{node.key}: r.{node.key}}}) SET n += r"
        n = 0
        for b in batched(rows, 10000):
            self.execute(q, {"rows": param(b)})
            n += len(b)
        return n

    def bulk_load_rels(self, rel: str, src: str, dst: str, rows: BulkRows) -> int:
        r = schema.REL_BY_TYPE[schema.check_rel(rel)]
        a, b = schema.NODE_BY_LABEL[src], schema.NODE_BY_LABEL[dst]
        rows = as_dicts(rows)
        q = (
            f"UNWIND $rows AS r MATCH (a:{a.label} {{{a.key}: r.`from`}}) MATCH (b:{b.label} {{{b.key}: r.`to`}}) "
            f"CREATE (a)-[e:{r.type}]->(b) SET e += r.props"
        )
        n = 0
        for batch in batched(rows, 10000):
            rows_ = [{"from": x["from"], "to": x["to"], "props": {k: x.get(k) for k in r.props}} for x in batch]
            self.execute(q, {"rows": param(rows_)})
            n += len(batch)
        return n

    def close(self) -> None:
        self._driver.close()


def _read_rows(tx: Any, cypher: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """The unit of work of a read transaction: every row read inside it (a result does not outlive it)."""
    return [{k: plain(v) for k, v in r.items()} for r in tx.run(cypher, params)]


def connect_error(uri: str, e: Exception) -> str:
    """One line for a failed connection; where no server answers, how to start the one the project ships."""
    import neo4j

    if isinstance(e, neo4j.exceptions.ServiceUnavailable):
        return (
            f"cannot connect to {uri}: no Neo4j server answers there; start one with `docker compose up -d` "
            "in the repository (docs/neo4j.md)"
        )
    return f"cannot connect to {uri}: {type(e).__name__}: {e}"
