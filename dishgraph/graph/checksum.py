"""The database file's checksum, recorded when a writer closes cleanly and verified when the database opens;
and the marker a writer that never closed (killed) leaves for the next command to report.

Why: LadybugDB keeps no checksum of its pages. A copy of a database with 64 bytes flipped in a few places
opened and answered every query with exit 0, and exports wrote different rows; nothing said the file was
damaged. Like a filesystem's or ZFS's block checksums, dishgraph keeps one of its own: SHA-256 of the whole
file, written beside it as ``<db>.checksum`` (JSON) after the writer's last checkpoint, when the file is at
rest. Every open (read-only too) compares it; the file's size and modification time are compared first, so
the hash is recomputed only when they changed (a copy, a restore, damage), in about 0.3 s per 150 MB.

The same file holds the writer in progress (``writing``: its command, PID and start), set when a writer
opens. A writer that closes clears it; one killed (``kill -9``, a power cut) leaves it, and the next command
that opens the database finds it under its own lock (so the writer is gone), moves it to ``unfinished`` and
says so: what that command was writing may be half there (a table of 11,611 rows left at 6,000). The entry
stays, reported by every command, until the same command finishes (a re-run completes the table, as every
dishgraph writer is idempotent) or `dishgraph db check --accept` is run.

Not covered: a database written by something other than dishgraph (its checksum no longer matches: `db check`
says so; `--accept` records the new content), and a database made before checksums (none recorded yet: the
next writer records one).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from dishgraph.errors import DatabaseError, DishgraphNotice

SUFFIX = ".checksum"
FORMAT = 1
CHUNK = 1 << 20


class DatabaseDamaged(DatabaseError):
    """The database file's content is not what its last writer left (damaged, or written by another tool)."""


class UnfinishedWrite(DishgraphNotice):
    """A command that wrote to the database did not finish (killed): what it wrote may be half there."""


def sidecar(db: Path) -> Path:
    return db.with_name(db.name + SUFFIX)


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            h.update(chunk)
    return h.hexdigest()


MAX_RECORD = 1 << 20  # bytes: a record is a few hundred; a larger file is not one of ours


def _entry_ok(e: Any) -> bool:
    return (
        isinstance(e, dict)
        and isinstance(e.get("command"), str)
        and type(e.get("pid")) is int
        and isinstance(e.get("started"), str)
    )


def _valid(state: Any) -> bool:
    """The record's shape, field by field (an allow-list): anything else is no record at all."""
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        return False
    sha, size, mtime = state.get("sha256"), state.get("size"), state.get("mtime_ns")
    if sha is not None and not (isinstance(sha, str) and len(sha) == 64 and all(c in "0123456789abcdef" for c in sha)):
        return False
    if any(v is not None and type(v) is not int for v in (size, mtime)):
        return False
    if not isinstance(state.get("recorded", ""), str):
        return False
    writing, unfinished = state.get("writing"), state.get("unfinished", [])
    return (writing is None or _entry_ok(writing)) and isinstance(unfinished, list) and all(map(_entry_ok, unfinished))


def read(db: Path) -> dict[str, Any] | None:
    """The recorded state, or None when none was recorded or the record is not one this module wrote (it is
    rewritten by the next writer; a damaged or foreign record never blocks the database, and no field of it
    is used unless the whole record has the shape written here)."""
    try:
        path = sidecar(db)
        if not path.is_file() or path.stat().st_size > MAX_RECORD:
            return None
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return state if _valid(state) else None


def _write(db: Path, state: dict[str, Any]) -> None:
    """Atomically (a temporary file beside it, renamed in): a kill never leaves half a record."""
    target = sidecar(db)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(state, fh, ensure_ascii=False, indent=1)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError:
        tmp.unlink(missing_ok=True)  # a full disk: the record is only a check; the next writer records it
        raise


def _stat(db: Path) -> tuple[int, int]:
    st = db.stat()
    return st.st_size, st.st_mtime_ns


def command_line() -> str:
    """The command as the user would re-run it: ``dishgraph pivots mine --all`` (the program's path cut)."""
    import shlex

    prog = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python"
    return shlex.join([prog, *sys.argv[1:]])[:500]


def command_key(line: str) -> str:
    """What identifies "the same command" for clearing a marker: the program and its subcommand words (the
    leading arguments that are no option), e.g. ``dishgraph pivots mine``."""
    words: list[str] = []
    for w in line.split():
        if w.startswith("-") or len(words) == 3:
            break
        words.append(w)
    return " ".join(words)


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t))


def describe(entry: dict[str, Any]) -> str:
    return f"`{entry.get('command', '?')}` (PID {entry.get('pid', '?')}, started {entry.get('started', '?')})"


def unfinished_message(db: Path, entries: list[dict[str, Any]]) -> str:
    shown = "; ".join(describe(e) for e in entries[:3]) + (f" and {len(entries) - 3} more" if len(entries) > 3 else "")
    return (
        f"{db}: {shown} did not finish (killed or stopped while writing): what it wrote may be half there; "
        f"run it again to finish it (`dishgraph db check --db {db}` lists it; `--accept` forgets it)"
    )


def _alive(entry: dict[str, Any]) -> bool:
    """Whether the process a `writing` entry names still runs (and is a Python or dishgraph process, not an
    unrelated one that got its PID back)."""
    pid = entry.get("pid")
    if not isinstance(pid, int) or pid == os.getpid() or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except PermissionError:
        return True
    except OSError:
        return False
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True  # no /proc (not Linux): the PID answers, take it as the writer
    return b"python" in cmdline or b"dishgraph" in cmdline


def on_open(db: Path, read_only: bool, verify_checksum: bool = True) -> None:
    """Under the open's lock, before the engine reads the file: report a writer that never closed, verify the
    checksum, and (a writer) mark this command as writing. A writer whose process still runs holds the
    database though the lock said otherwise (its lock file was deleted): `DatabaseInUse`, not a report of a
    killed writer."""
    state = read(db)
    if state is not None and state.get("writing") and _alive(state["writing"]):
        from dishgraph.graph.lock import DatabaseInUse

        w = state["writing"]
        raise DatabaseInUse(
            f"{db}: in use by {describe(w)}, which is writing to it; its lock file "
            f"{db.name}.lock was deleted, so waiting could not see it. Wait for it to finish"
        )
    if state is not None:
        unfinished = list(state.get("unfinished") or [])
        if state.get("writing"):  # the lock is ours, so that writer is gone without closing: killed
            unfinished.append(state["writing"])
        if unfinished:
            warnings.warn(unfinished_message(db, unfinished), UnfinishedWrite, stacklevel=3)
        if verify_checksum and not state.get("writing"):
            verify(db, state)
        state["unfinished"] = unfinished
        state["writing"] = None
    if read_only:
        return
    state = state or {"format": FORMAT, "sha256": None, "size": None, "mtime_ns": None, "unfinished": []}
    state["writing"] = {"command": command_line(), "pid": os.getpid(), "started": _when(time.time())}
    try:
        _write(db, state)
    except OSError:
        pass  # a full disk: the writer's own space check says so


def forget_writing(db: Path) -> None:
    """This writer's open failed before the engine opened the file: no marker for it."""
    state = read(db)
    if state is not None and (state.get("writing") or {}).get("pid") == os.getpid():
        state["writing"] = None
        try:
            _write(db, state)
        except OSError:
            pass


def verify(db: Path, state: dict[str, Any] | None = None) -> str | None:
    """Raise `DatabaseDamaged` when the file differs from the checksum recorded at its last clean close;
    the digest now (None when nothing was recorded or the file is unchanged since)."""
    state = read(db) if state is None else state
    if not state or not state.get("sha256") or not db.exists():
        return None
    if _stat(db) == (state.get("size"), state.get("mtime_ns")):
        return None
    now = file_sha256(db)
    if now != state["sha256"]:
        raise DatabaseDamaged(damaged_message(db, state))
    return now


def damaged_message(db: Path, state: dict[str, Any]) -> str:
    return (
        f"{db}: the database file is not what its last writer left (its SHA-256 differs from the checksum "
        f"recorded at {state.get('recorded', '?')} in {sidecar(db).name}): the file is damaged, or was written by "
        f"another program; restore it from a copy or rebuild it. `dishgraph db check --db {db}` says more; "
        f"`--accept` records the content as it is now"
    )


def on_close(db: Path, finished: bool, pending: bool) -> None:
    """After a writer's last checkpoint: record the checksum of the file at rest and clear this command's
    marker (``finished``: it ended without an error), or keep the marker among the unfinished. ``pending``:
    checkpoint files are still beside the database (the file is not at rest): nothing is recorded."""
    state = read(db)
    if state is None or not db.exists():
        return
    mine = state.get("writing") or {}
    state["writing"] = None
    unfinished = list(state.get("unfinished") or [])
    if finished:
        key = command_key(mine.get("command", ""))
        unfinished = [e for e in unfinished if command_key(e.get("command", "")) != key]
    elif mine:
        unfinished.append(mine)
    state["unfinished"] = unfinished
    if pending:
        state.update(sha256=None, size=None, mtime_ns=None)
    else:
        before = _stat(db)
        digest: str | None = file_sha256(db)
        if _stat(db) != before:  # written while hashed: no record rather than a wrong one
            digest = None
        state.update(sha256=digest, size=before[0], mtime_ns=before[1], recorded=_when(time.time()))
    try:
        _write(db, state)
    except OSError:
        pass


def accept(db: Path) -> str:
    """Record the file's content as good and forget every unfinished marker (`db check --accept`)."""
    size, mtime = _stat(db)
    digest = file_sha256(db)
    _write(
        db,
        {
            "format": FORMAT,
            "sha256": digest,
            "size": size,
            "mtime_ns": mtime,
            "recorded": _when(time.time()),
            "writing": None,
            "unfinished": [],
        },
    )
    return digest
