"""Which engine a graph store runs on: the backend registry and ``open_store``.

Kept apart from the interface (``graph.base``) so that the engines can import the interface without the
interface importing them back (the old ``graph.store`` did, through an import inside ``open_store``).
"""

from __future__ import annotations

from dishgraph import config
from dishgraph.graph.base import GraphStore
from dishgraph.graph.ladybug_store import LadybugStore
from dishgraph.graph.neo4j_store import Neo4jStore
from dishgraph.registry import Registry

BACKENDS: Registry[type[GraphStore]] = Registry("store backend", doc="graph database engines behind GraphStore")
BACKENDS.add("ladybug", LadybugStore, doc="embedded LadybugDB (the default; what the tests run on).")
BACKENDS.add("neo4j", Neo4jStore, doc="Neo4j 5 over Bolt through the official driver (--uri / DISHGRAPH_URI).")


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
    uri = uri or (None if db else config.server_uri(None))
    if uri:
        store: GraphStore = BACKENDS.make("neo4j", uri=uri, database=database, read_only=read_only)
        return store
    pool = buffer_pool_mb * 2**20 if buffer_pool_mb else None
    store = BACKENDS.make("ladybug", path=config.db_path(db), read_only=read_only, wait=wait, buffer_pool_bytes=pool)
    return store
