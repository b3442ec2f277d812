"""What `dishgraph db shell` adds to a statement's answer: the closest schema name for a label or relationship
type the schema lacks, and count columns named the way they were written.

The embedded engine answers ``MATCH (d:Dsh)`` with "Binder exception: Table Dsh does not exist" and Neo4j
with no rows (and a notification nobody sees); both get "did you mean Dish?" from the names in
`dishgraph.graph.schema`. The engine names ``count(*)`` ``COUNT_STAR()`` and ``count(d)`` ``COUNT(d._ID)``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from typing import Any

from dishgraph.graph.schema import NODE_BY_LABEL, REL_BY_TYPE

_MISSING_TABLE = re.compile(r"Table (\w+) does not exist")
_NODE_LABELS = re.compile(r"\(\s*\w*\s*((?::\s*\w+\s*)+)")  # (d:Dish), (:Dish:Other)
_REL_TYPES = re.compile(r"\[\s*\w*\s*:\s*(\w+(?:\s*\|\s*:?\s*\w+)*)")  # [r:A], [:A|B], [:A|:B]
_COUNT_STAR = re.compile(r"\bCOUNT_STAR\(\)")
_COUNT_ID = re.compile(r"\bCOUNT\((DISTINCT )?(\w+)\._ID\)")


def schema_names() -> list[str]:
    return [*NODE_BY_LABEL, *REL_BY_TYPE]


def _closest(name: str) -> str | None:
    names = schema_names()
    same = [n for n in names if n.lower() == name.lower()]
    near = same or difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    return near[0] if near else None


def written_names(statement: str) -> list[str]:
    """The labels and relationship types a statement's patterns name, in order of appearance."""
    found: list[str] = []
    for m in _NODE_LABELS.finditer(statement):
        found += [x.strip() for x in m.group(1).split(":") if x.strip()]
    for m in _REL_TYPES.finditer(statement):
        found += [x.strip(" :") for x in m.group(1).split("|") if x.strip(" :")]
    return list(dict.fromkeys(found))


def unknown_names(statement: str, error: str = "") -> list[tuple[str, str | None]]:
    """(name, closest schema name or None) for each label or type named that the schema lacks: the one an
    engine error names ("Table Dsh does not exist"), else those the statement's patterns name."""
    m = _MISSING_TABLE.search(error)
    candidates: Iterable[str] = [m.group(1)] if m else written_names(statement)
    known = set(schema_names())
    return [(n, _closest(n)) for n in candidates if n not in known]


def did_you_mean(statement: str, error: str = "") -> str:
    """ "; did you mean Dish?" for the first unknown label or type with a close schema name, else ""."""
    for name, near in unknown_names(statement, error):
        if near:
            return f"; did you mean {near}? ({name} is not a label or relationship type of the schema)"
        return f"; {name} is not a label or relationship type of the schema (`dishgraph db info` lists them)"
    return ""


def column_name(engine_name: str) -> str:
    """``count(*)`` for the engine's ``COUNT_STAR()``, ``count(d)`` for ``COUNT(d._ID)``; others unchanged."""
    name = _COUNT_STAR.sub("count(*)", engine_name)
    return _COUNT_ID.sub(lambda m: f"count({m.group(1) or ''}{m.group(2)})", name)


def named_columns(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows with their count columns named as written (see `column_name`); the values untouched."""
    if not rows or all(column_name(k) == k for k in rows[0]):
        return rows
    return [{column_name(k): v for k, v in r.items()} for r in rows]
