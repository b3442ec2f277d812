"""One writer or many readers per embedded database, with waiting and a message that names the holder.

Ladybug's own file lock only says it could not lock; researchers want to know *which* process holds the
database (a forgotten notebook kernel, a running ingest) and since when. We hold an flock on ``<db>.lock``
(shared for readers, exclusive for writers) and a writer writes its PID and start time into it.

A database in use is not an error of the command line: readers and writers wait for it, with a note on
stderr, for up to ``wait`` seconds (``--wait`` / ``$DISHGRAPH_WAIT``, default `DEFAULT_WAIT`), then fail
with `DatabaseInUse` (its own exit code, `EXIT_IN_USE`).
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from dishgraph.errors import EXIT_IN_USE, DatabaseError

DEFAULT_WAIT = 60.0  # seconds a command waits for a database another process holds
POLL = 0.2  # seconds between two tries
NOTE_EVERY = 15.0  # seconds between two "still waiting" notes


class DatabaseInUse(DatabaseError):
    """Another process held the database for longer than we were allowed to wait."""

    exit_code = EXIT_IN_USE


# The CLI's global ``--wait SECONDS`` (set on every run of the root command; None: not given).
WAIT: float | None = None


def wait_seconds(explicit: float | None = None) -> float:
    """How long to wait for a database in use: ``explicit``, else --wait, else $DISHGRAPH_WAIT, else 60 s."""
    if explicit is None:
        explicit = WAIT
    if explicit is not None:
        return max(0.0, float(explicit))
    env = os.environ.get("DISHGRAPH_WAIT", "").strip()
    try:
        return max(0.0, float(env)) if env else DEFAULT_WAIT
    except ValueError:
        raise DatabaseError(f"DISHGRAPH_WAIT={env!r}: give a number of seconds") from None


def _stderr_note(text: str) -> None:
    print(f"note: {text}", file=sys.stderr, flush=True)


# Where waiting notes go (the CLI's stderr; a test or a notebook may replace it).
NOTE: Callable[[str], None] = _stderr_note


def _proc_locks(path: Path) -> list[tuple[int, str]]:
    """(PID, "reading" | "writing") of every flock on ``path`` now, our own included, from /proc/locks."""
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
        if inode == ino:
            out.append((pid, "writing" if f[3] == "WRITE" else "reading"))
    return sorted(set(out))


def lock_holders(path: Path) -> list[tuple[int, str]]:
    """(PID, "reading" | "writing") of the *other* processes holding an flock on ``path`` (Linux). The PID
    written into the lock file is only the last writer's: a reader, or a finished writer, would be misnamed."""
    return [(pid, what) for pid, what in _proc_locks(path) if pid != os.getpid()]


def _command_line(pid: int, limit: int = 100) -> str:
    """``dishgraph ingest corpus …`` of a process (from the word dishgraph on), cut to ``limit`` characters."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode("utf-8", "replace").split("\0")
    except OSError:
        return ""
    argv = [a for a in argv if a]
    for i, a in enumerate(argv):
        if os.path.basename(a) == "dishgraph" or a == "dishgraph.cli":
            argv = ["dishgraph", *argv[i + 1 :]]
            break
    else:
        argv[:1] = [os.path.basename(argv[0])] if argv else []
    text = " ".join(" ".join(argv).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _started(pid: int) -> float | None:
    """When a process started (epoch seconds), from /proc: field 22 of stat, in clock ticks after boot."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        ticks = int(stat.rsplit(")", 1)[1].split()[19])
        btime = next(int(ln.split()[1]) for ln in Path("/proc/stat").read_text().splitlines() if ln.startswith("btime"))
        return btime + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def _since(epoch: float | None) -> str:
    return time.strftime(" since %Y-%m-%d %H:%M:%S", time.localtime(epoch)) if epoch else ""


def describe_holders(path: Path) -> str:
    """ "PID 123 (writing: dishgraph ingest corpus x.jsonl, since 2026-11-25 16:02:11)", one per holder."""
    written_pid, written_at = _read_lock_file(path)
    parts = []
    for pid, what in lock_holders(path):
        when = written_at if (pid == written_pid and what == "writing" and written_at) else _started(pid)
        cmd = _command_line(pid)
        parts.append(f"PID {pid} ({what}{': ' + cmd if cmd else ''}{_since(when)})")
    if parts:
        return ", ".join(parts)
    return f"PID {written_pid}{_since(written_at)}" if written_pid else "another process"


def _read_lock_file(path: Path) -> tuple[int | None, float | None]:
    """(PID, epoch) a writer wrote into the lock file: "PID" (older versions) or "PID TIME"."""
    try:
        words = path.read_text(encoding="ascii", errors="replace").split()
        return int(words[0]), float(words[1]) if len(words) > 1 else None
    except (OSError, ValueError, IndexError):
        return None, None


class ProcessLock:
    def __init__(self, path: Path, shared: bool = False):
        self.path = path
        self.shared = shared
        self._fh: IO[str] | None = None
        self.created = False  # whether acquire() made the lock file (a failed open removes it again)

    @property
    def database(self) -> Path:
        return self.path.with_name(self.path.name.removesuffix(".lock"))

    def acquire(self, wait: float | None = 0.0) -> None:
        """Take the lock, waiting up to ``wait`` seconds (None: `wait_seconds()`) for the processes that hold
        it, with a note on stderr; then `DatabaseInUse`, naming them. Never waits for this process itself."""
        timeout = wait_seconds(wait)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = self._open()
        mode = fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX
        t0 = time.monotonic()
        noted = None
        while True:
            try:
                fcntl.flock(fh.fileno(), mode | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                waited = time.monotonic() - t0
                ours = {pid for pid, _ in _proc_locks(self.path)} == {os.getpid()}
                if waited >= timeout or ours:
                    fh.close()
                    raise self._in_use(waited, ours) from None
                if noted is None or waited - noted >= NOTE_EVERY:
                    left = f"up to {timeout:g} s" if noted is None else f"{waited:.0f} of {timeout:g} s"
                    NOTE(f"waiting for {self.database}: in use by {describe_holders(self.path)}; {left} (--wait)")
                    noted = waited
                time.sleep(POLL)
        if not self.shared:
            fh.seek(0)
            fh.truncate()
            fh.write(f"{os.getpid()} {time.time():.0f}")
            fh.flush()
        self._fh = fh

    def _open(self) -> IO[str]:
        """The lock file, opened without following a link (``O_NOFOLLOW``): a link planted at ``DB.lock``
        would otherwise get its target truncated and a PID written into it. Only a regular file is a lock."""
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        self.created = not os.path.lexists(self.path)
        try:
            fd = os.open(self.path, flags | (os.O_EXCL if self.created else 0), 0o644)
        except FileExistsError:  # made by another process meanwhile
            self.created = False
            fd = os.open(self.path, flags, 0o644)
        except OSError as e:
            if e.errno == errno.ELOOP or os.path.islink(self.path):
                raise DatabaseError(
                    f"{self.path}: the database's lock file is a symbolic link (to {os.readlink(self.path)}); "
                    "a lock is never written through a link: remove it"
                ) from None
            raise
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise DatabaseError(f"{self.path}: the database's lock file is not a regular file; remove it")
        return os.fdopen(fd, "r+")

    def _in_use(self, waited: float, ours: bool) -> DatabaseInUse:
        if ours:
            return DatabaseInUse(f"database {self.database} is already open in this process; close that store first")
        waited_for = (
            f"waited {waited:.0f} s; give --wait SECONDS (or $DISHGRAPH_WAIT) to wait longer, " if waited else ""
        )
        return DatabaseInUse(
            f"database {self.database} is in use by {describe_holders(self.path)}; {waited_for}"
            "close that process, or use a different --db"
        )

    def release(self, *, remove_if_created: bool = False) -> None:
        """Unlock. ``remove_if_created``: a failed open also deletes the lock file it made (no stray
        ``DIR.lock`` beside a path that holds no database), if no other process opened it meanwhile."""
        if self._fh is None:
            return
        if remove_if_created and self.created:
            try:
                fcntl.flock(self._fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                self.path.unlink(missing_ok=True)
            except OSError:
                pass  # another process holds it now: the file is theirs too
        fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
        self._fh.close()
        self._fh = None
