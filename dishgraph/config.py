"""Where things live: database location, server URI, data directory (flag > env > default)."""

from __future__ import annotations

import os
from pathlib import Path


def data_home() -> Path:
    """dishgraph's own data folder, the platform's convention (platformdirs): ``$XDG_DATA_HOME/dishgraph``,
    else ``~/.local/share/dishgraph`` on Linux; ``~/Library/Application Support/dishgraph`` on macOS. The
    default database and the shell's history both live here, so one variable moves both."""
    from platformdirs import user_data_path

    return user_data_path("dishgraph", appauthor=False)


def cache_home() -> Path:
    """dishgraph's cache folder (platformdirs): ``$XDG_CACHE_HOME/dishgraph``, else ``~/.cache/dishgraph``."""
    from platformdirs import user_cache_path

    return user_cache_path("dishgraph", appauthor=False)


def db_path(explicit: str | os.PathLike | None = None) -> Path:
    """``--db``, else ``$DISHGRAPH_DB``, else the database in `data_home` (read at each call: the environment
    of the moment decides)."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("DISHGRAPH_DB")
    return Path(env).expanduser() if env else data_home() / "db"


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
