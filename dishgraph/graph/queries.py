"""Named Cypher queries: ``dishgraph/cypher/NAME.cypher`` (one statement per file).

Where the two engines cannot share a text, ``NAME.ladybug.cypher`` and ``NAME.neo4j.cypher`` stand side by
side and the backend picks its own. Each file starts with ``//`` comment lines: purpose, then
``// params: $a, $b``. Python never builds query text from values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

CYPHER_DIR = Path(__file__).resolve().parent.parent / "cypher"
BACKENDS = ("ladybug", "neo4j")


@dataclass(frozen=True)
class NamedQuery:
    name: str
    backend: str | None  # None: shared by both engines
    path: Path
    text: str
    doc: str
    params: tuple[str, ...]


def _parse(path: Path) -> NamedQuery:
    stem = path.name[: -len(".cypher")]
    name, backend = stem, None
    for b in BACKENDS:
        if stem.endswith("." + b):
            name, backend = stem[: -len(b) - 1], b
    text = path.read_text(encoding="utf-8")
    doc_lines = [ln[2:].strip() for ln in text.splitlines() if ln.startswith("//")]
    doc = " ".join(d for d in doc_lines if not d.startswith("params:"))
    body = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("//")).strip()
    params = tuple(sorted(set(re.findall(r"\$([A-Za-z_][A-Za-z0-9_]*)", body))))
    return NamedQuery(name, backend, path, body, doc, params)


@lru_cache(maxsize=1)
def all_queries() -> tuple[NamedQuery, ...]:
    return tuple(_parse(p) for p in sorted(CYPHER_DIR.glob("*.cypher")))


@lru_cache(maxsize=1)
def _by_backend() -> dict[str, dict[str, NamedQuery]]:
    """Backend -> query name -> the text that backend runs (its own variant where one exists), built once:
    every ``store.query`` looks its query up here."""
    table: dict[str, dict[str, NamedQuery]] = {b: {} for b in BACKENDS}
    for q in all_queries():
        if q.backend is None:
            for b in BACKENDS:
                table[b].setdefault(q.name, q)
    for q in all_queries():
        if q.backend is not None:
            table[q.backend][q.name] = q
    return table


def names() -> list[str]:
    return sorted({q.name for q in all_queries()})


def get(name: str, backend: str) -> NamedQuery:
    found = _by_backend().get(backend, {}).get(name)
    if found is None:
        raise KeyError(f"no named Cypher query {name!r} for backend {backend!r} in {CYPHER_DIR}")
    return found


def for_backend(backend: str) -> list[NamedQuery]:
    """Every query text this backend would run (its variant where one exists)."""
    return [get(n, backend) for n in names()]
