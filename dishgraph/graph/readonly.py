"""What a read-only open may run: statements that only read the graph.

Ladybug's read-only mode still runs CHECKPOINT (which then fails half-way and leaves ``.shadow``/``.wal``
files that block every later read-only open), ``INSTALL httpfs`` (a download), ``LOAD FROM`` a file and
configuration calls. A read-only store refuses those *before* they reach the database: anything that
could write, or touch files or the network, needs an explicit read-write open (``db shell --write``).
"""

from __future__ import annotations

import re
from functools import lru_cache

from dishgraph.errors import ReadOnlyViolation

_STRINGS = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`", re.S)
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_REFUSED = re.compile(
    r"\b(CREATE|MERGE|SET|DELETE|DETACH|REMOVE|DROP|ALTER|COPY|EXPORT|IMPORT|INSTALL|UNINSTALL|LOAD|UPDATE|"
    r"CHECKPOINT|ATTACH|USE|BEGIN|COMMIT|ROLLBACK|FOREACH)\b",
    re.IGNORECASE,
)
_CONFIG_CALL = re.compile(r"\bCALL\s+\w+\s*=", re.IGNORECASE)


@lru_cache(maxsize=4096)
def refused_reason(cypher: str) -> str | None:
    """Why ``cypher`` may not run on a read-only open, or None. String literals and comments are ignored,
    so a value such as ``'CREATE'`` in a WHERE clause is fine; a false refusal only costs a --write."""
    bare = _COMMENTS.sub(" ", _STRINGS.sub("''", cypher))
    m = _REFUSED.search(bare)
    if m:
        return m.group(1).upper()
    if _CONFIG_CALL.search(bare):
        return "CALL <setting>="
    return None


def check_read_only(cypher: str) -> None:
    reason = refused_reason(cypher)
    if reason is not None:
        raise ReadOnlyViolation(
            f"{reason} refused: the database is open read-only, and this statement could write or touch files "
            "or the network; use `dishgraph db shell --write` if you mean it"
        )
