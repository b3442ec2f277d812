"""Free space before a bulk load, because the engine cannot survive a full disk.

LadybugDB 0.x dies with SIGSEGV (exit 139, no message) when the disk fills inside the checkpoint that ends
a bulk session, and leaves ``<db>.shadow`` behind (issue 25 §4). Nothing can catch a segfault, so the store
asks before each COPY whether the database's filesystem can take what the session will write: the rows
(about ``GROWTH`` times their CSV size once stored, indexed and copied through the shadow file at the
checkpoint) plus the WAL and a margin the checkpoint needs whatever the batch. Too little: `DiskFull`, one
line naming the path, the space needed and the space free, before the engine is asked to do anything.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from dishgraph.errors import DatabaseError

MIB = 2**20
# Bytes the database's files grow by per byte of COPY CSV, at the peak of the checkpoint (the shadow file
# included). Measured on the XiaChuFang sample ingested onto the release database: 92.7 MB of CSV in one
# bulk session, db + shadow + WAL grew by 102 MB at their peak (1.1); doubled for larger databases, whose
# checkpoints shadow more index pages.
GROWTH = 2
MARGIN = 8 * MIB  # a checkpoint's fixed cost (page headers, catalog, metadata) on top of the rows


# What a command needs before it writes anything (`reserve`), so that a full disk refuses it whole instead of
# stopping it half-way (a probe saw `ingest corpus` of 200 recipes with 20 MB free store 199 recipes without
# their steps, then fail in the checkpoint). Measured on a copy of the demo graph's 124 MB database: 200 new
# recipes (145 KB of JSONL) took the files to +27.4 MB at the checkpoint's peak (the shadow file holds every
# page the checkpoint rewrites, hash-index pages spread over the whole database: 13% of it here), +10 MB at
# rest; the XiaChuFang sample (8.0 MB) onto the 38 MB release database: +98 MB at the peak. Both doubled.
SHADOW_SHARE = 0.25  # of the database's size, for the pages one checkpoint may rewrite
INPUT_GROWTH = 13  # bytes at the peak per byte of corpus input (8.0 MB → 98 MB, less the shadow share)


def reserve(db: Path, input_bytes: int = 0, doing: str = "write to") -> None:
    """Before a command writes anything: `DiskFull` unless the filesystem of ``db`` can take the whole command
    (``input_bytes`` of corpus to load, if any), so that a full disk refuses it with the database unchanged."""
    need = int(INPUT_GROWTH * input_bytes + SHADOW_SHARE * _size(db)) + _size(db.with_name(db.name + ".wal")) + MARGIN
    free = FREE_SPACE(db.parent)
    if need > free:
        raise DiskFull(
            f"{db.parent}: not enough free space to {doing} {db}: this command may need about {_mib(need)} "
            f"({_mib(MARGIN)}, {SHADOW_SHARE:.0%} of the database for its checkpoint"
            + (f", {INPUT_GROWTH} times the {_mib(input_bytes)} of input" if input_bytes else "")
            + f") and {_mib(free)} is free; nothing was written: free some space there or use --db on a larger disk"
        )


class DiskFull(DatabaseError):
    """The database's filesystem has too little free space for the next bulk load (checked before it)."""


def free_bytes(path: Path) -> int:
    """Free bytes for an unprivileged writer on the filesystem holding ``path`` (or its nearest parent)."""
    for p in (path, *path.parents):
        if p.exists():
            return shutil.disk_usage(p).free
    return shutil.disk_usage(os.sep).free


# Tests replace this to simulate a small disk where mounting one is not allowed.
FREE_SPACE: Callable[[Path], int] = free_bytes


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def needed_bytes(db: Path, pending_csv_bytes: int) -> int:
    """What the next checkpoint of ``db`` may write: the session's rows grown by ``GROWTH``, the WAL it
    replays and the margin."""
    return GROWTH * pending_csv_bytes + _size(db.with_name(db.name + ".wal")) + MARGIN


def check_space(db: Path, pending_csv_bytes: int) -> None:
    """Raise `DiskFull` unless the filesystem of ``db`` can take the session's rows and their checkpoint."""
    need = needed_bytes(db, pending_csv_bytes)
    free = FREE_SPACE(db.parent)
    if need > free:
        raise DiskFull(
            f"{db.parent}: not enough free space to load into {db}: the next batch and its checkpoint need "
            f"about {_mib(need)} and {_mib(free)} is free; free some space or use --db on a larger disk "
            "(the database keeps what its last checkpoint saved)"
        )


def check_write_space(db: Path) -> None:
    """Before a logged write (MERGE, CREATE, SET, ...): `DiskFull` unless the filesystem of ``db`` can take
    the write, the WAL it grows and the checkpoint that replays it. The engine aborts (SIGABRT) when a WAL
    write fails and leaves a torn WAL that no open can read; this is the only place to stop it."""
    need = needed_bytes(db, 0)
    free = FREE_SPACE(db.parent)
    if need > free:
        raise DiskFull(
            f"{db.parent}: not enough free space to write to {db}: the write and its checkpoint need about "
            f"{_mib(need)} and {_mib(free)} is free; free some space there (this write was not made; what the "
            "command wrote before it stays: run the command again when there is room, it finishes)"
        )


def _mib(n: int) -> str:
    return f"{n / MIB:.1f} MiB"
