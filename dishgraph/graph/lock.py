"""One writer per embedded database directory, with a message that names the holder.

Ladybug's own file lock only says it could not lock; researchers want to know *which* process
(a forgotten notebook kernel, a running ingest). We hold an flock on ``<db>.lock`` and write our PID into it.
"""
from __future__ import annotations

import fcntl
import os
from pathlib import Path


class DatabaseInUse(RuntimeError):
    pass


class ProcessLock:
    def __init__(self, path: Path, shared: bool = False):
        self.path = path
        self.shared = shared
        self._fh = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "a+")
        mode = fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX
        try:
            fcntl.flock(fh.fileno(), mode | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "another process"
            fh.close()
            raise DatabaseInUse(
                f"database {self.path.with_suffix('')} is in use by PID {holder}; "
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
