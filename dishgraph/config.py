"""Where things live: database location, server URI, data directory (flag > env > default)."""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_DB = Path(os.path.expanduser("~/.local/share/dishgraph/db"))


def db_path(explicit: str | os.PathLike | None = None) -> Path:
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("DISHGRAPH_DB")
    return Path(env).expanduser() if env else DEFAULT_DB


def server_uri(explicit: str | None = None) -> str | None:
    """A Bolt/Neo4j URI if one is configured; None means the embedded database."""
    return explicit or os.environ.get("DISHGRAPH_URI") or os.environ.get("NEO4J_URI") or None


RELEASE_MARKER = Path("counterfactual") / "base_recipes.txt"


def data_dir(explicit: str | os.PathLike | None = None) -> Path:
    """Locate the shared data directory: flag, ``DISHGRAPH_DATA``, then ``../shared/data`` upwards.

    An explicit directory (``--data DIR``) is used or refused, never replaced by another data root: results
    computed from a data set other than the one named would be silently wrong."""
    if explicit:
        given = Path(explicit).expanduser()
        if not (given / RELEASE_MARKER).exists():
            raise FileNotFoundError(
                f"--data {given}: no CRG release there ({given / RELEASE_MARKER} is missing); "
                f"run `dishgraph data fetch --data {given}`, or leave --data out to locate the data"
            )
        return given.resolve()
    candidates: list[Path] = []
    if os.environ.get("DISHGRAPH_DATA"):
        candidates.append(Path(os.environ["DISHGRAPH_DATA"]))
    here = Path.cwd().resolve()
    pkg = Path(__file__).resolve().parent.parent
    for base in (here, *here.parents, pkg, *pkg.parents):
        candidates.append(base / "shared" / "data")
    for c in candidates:
        if (c / RELEASE_MARKER).exists():
            return c.resolve()
    tried = "\n  ".join(str(c) for c in candidates[:6])
    raise FileNotFoundError(
        "dishgraph data not found; pass --data DIR or set DISHGRAPH_DATA, or run `dishgraph data fetch`.\n"
        f"Tried:\n  {tried}"
    )
