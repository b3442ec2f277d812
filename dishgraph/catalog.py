"""Every registry of the package under the name ``dishgraph ls KIND`` shows it by.

The registries live with the code they select from (``dishgraph.registry`` explains the mechanism); this
module only gathers them, which is why it sits above all of them and nothing below imports it.
"""

from __future__ import annotations

from typing import Any

from dishgraph.graph.factory import BACKENDS as STORE_BACKENDS
from dishgraph.ingest.depparse import BACKENDS as DEP_BACKENDS
from dishgraph.ingest.parser import PARSERS
from dishgraph.ingest.segment import SEGMENTERS
from dishgraph.knowledge.causal import ESTIMATORS
from dishgraph.knowledge.insert_ranker import MODELS as INSERT_RANKERS
from dishgraph.models.registry import GENERATORS
from dishgraph.registry import Registry

REGISTRIES: dict[str, Registry[Any]] = {
    "generators": GENERATORS,
    "parsers": PARSERS,
    "segmenters": SEGMENTERS,
    "dep-backends": DEP_BACKENDS,
    "estimators": ESTIMATORS,
    "insert-rankers": INSERT_RANKERS,
    "backends": STORE_BACKENDS,
}


def registry(kind: str) -> Registry[Any]:
    """The registry ``dishgraph ls`` calls ``kind`` (``generators``, ``parsers``, …)."""
    try:
        return REGISTRIES[kind]
    except KeyError:
        raise ValueError(f"unknown registry {kind!r}; known: {', '.join(REGISTRIES)}") from None


def entries(kind: str) -> list[dict[str, str]]:
    """One row per entry of a registry: name, synonyms, description and the implementation's origin."""
    return [
        {"name": e.name, "aliases": ", ".join(e.synonyms), "description": e.description, "implementation": e.where}
        for e in registry(kind).entries()
    ]


def summary() -> list[dict[str, str]]:
    """One row per registry: its ``ls`` name, what it selects, its entries' names."""
    return [{"kind": kind, "selects": reg.doc, "names": ", ".join(reg.names())} for kind, reg in REGISTRIES.items()]
