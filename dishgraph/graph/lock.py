"""One writer per embedded database directory, with a message that names the holder.

Ladybug's own file lock only says it could not lock; researchers want to know *which* process
(a forgotten notebook kernel, a running ingest). We hold an flock on ``<db>.lock`` and write our PID into it.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO


class DatabaseInUse(RuntimeError):
    pass


def lock_holders(path: Path) -> list[tuple[int, str]]:
    """(PID, "reading" | "writing") of the processes holding an flock on ``path`` now, from /proc/locks
    (Linux). The PID written into the lock file is only the *last writer's*: a reader holding the
    database, or a writer that has finished, would be misnamed by it."""
    try:
        ino = os.stat(path).st_ino
        with open("/proc/locks", encoding="ascii", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return []
    out = []
    for ln in lines:
        f = ln.split()
        if "->" in f or len(f) < 6 or f[1] != "FLOCK":
            continue  # waiters, POSIX locks
        try:
            pid, inode = int(f[4]), int(f[5].split(":")[-1])
        except ValueError:
            continue
        if inode == ino and pid != os.getpid():
            out.append((pid, "writing" if f[3] == "WRITE" else "reading"))
    return sorted(set(out))


class ProcessLock:
    def __init__(self, path: Path, shared: bool = False):
        self.path = path
        self.shared = shared
        self._fh: IO[str] | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "a+")
        mode = fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX
        try:
            fcntl.flock(fh.fileno(), mode | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            written = fh.read().strip()
            fh.close()
            holders = lock_holders(self.path)
            if holders:
                who = ", ".join(f"PID {pid} ({what})" for pid, what in holders)
            else:
                who = f"PID {written}" if written else "another process"
            raise DatabaseInUse(
                f"database {self.path.with_name(self.path.name.removesuffix('.lock'))} is in use by {who}; "
                "close that process (or use a different --db) and retry"
            ) from None
        if not self.shared:
            fh.seek(0)
            fh.truncate()
            fh.write(str(os.getpid()))
            fh.flush()
        self._fh = fh

    def release(self) -> None:
        if self._fh is not None:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None
