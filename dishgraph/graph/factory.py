"""Which engine a graph store runs on: the backend registry and ``open_store``.

Kept apart from the interface (``graph.base``) so that the engines can import the interface without the
interface importing them back (the old ``graph.store`` did, through an import inside ``open_store``).
"""

from __future__ import annotations

import os

from dishgraph import config
from dishgraph.graph.base import GraphStore
from dishgraph.graph.ladybug_store import LadybugStore
from dishgraph.graph.neo4j_store import Neo4jStore
from dishgraph.registry import Registry

BACKENDS: Registry[type[GraphStore]] = Registry("store backend", doc="graph database engines behind GraphStore")
BACKENDS.add("ladybug", LadybugStore, doc="embedded LadybugDB (the default; what the tests run on).")
BACKENDS.add("neo4j", Neo4jStore, doc="Neo4j 5 over Bolt through the official driver (--uri / DISHGRAPH_URI).")


NEO4J_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")  # the driver's Bolt schemes


def open_store(
    uri: str | None = None,
    db: str | None = None,
    *,
    read_only: bool = False,
    database: str | None = None,
    wait: float | None = None,
    buffer_pool_mb: int | None = None,
) -> GraphStore:
    """Embedded Ladybug unless a Bolt/Neo4j URI is given (flag or DISHGRAPH_URI / NEO4J_URI).

    An explicit flag beats the environment: ``db`` given and ``uri`` not means that embedded database,
    whatever DISHGRAPH_URI says (precedence: --uri, --db, DISHGRAPH_URI / NEO4J_URI, DISHGRAPH_DB). ``wait``:
    seconds to wait for an embedded database another process holds (None: --wait / $DISHGRAPH_WAIT / 60).
    ``buffer_pool_mb``: cap on the embedded engine's page cache (None or 0: its default, most of the RAM)."""
    from dishgraph.errors import UsageError

    if db is not None and not isinstance(db, (str, os.PathLike)):
        raise UsageError(f"db must be a path (str or os.PathLike), got {type(db).__name__} {db!r:.60}")
    uri = uri or (None if db else config.server_uri(None))
    if uri is not None and not isinstance(uri, str):
        raise UsageError(f"uri must be a str, got {type(uri).__name__} {uri!r:.60}")
    if uri:
        scheme = uri.split("://", 1)[0].lower() if "://" in uri else ""
        if scheme not in NEO4J_SCHEMES:
            raise UsageError(
                f"uri {uri!r:.80}: a Neo4j server is reached by {', '.join(s + '://' for s in NEO4J_SCHEMES)}"
            )
        store: GraphStore = BACKENDS.make("neo4j", uri=uri, database=database, read_only=read_only)
        return store
    pool = buffer_pool_mb * 2**20 if buffer_pool_mb else None
    store = BACKENDS.make("ladybug", path=config.db_path(db), read_only=read_only, wait=wait, buffer_pool_bytes=pool)
    return store
