"""One rule for every file a command writes: never onto the database, an input or the release; never
through a link, into a FIFO or a device; whole or not at all.

Why: an output option used to be a plain ``open(path, "w")``. ``explore -o DB --db DB`` replaced the database
with an HTML page, ``-o DB.wal`` left it unopenable, ``generate replace -o DATA/counterfactual/base_recipes.txt``
overwrote the pinned input it was reading, ``-o LINK`` overwrote whatever the link pointed to and ``-o FIFO``
hung. Exports already refused links and wrote atomically (`dishgraph.graph.export_dir`); this module gives
every other output the same guarantees, in one place:

- :func:`check_output` refuses (`OutputRefused`, naming the path) a target that is a *protected* path: an
  open or named database file or any of its siblings (``db.wal``, ``db.lock``, ``db.shadow``, ... : every
  ``<db>.*`` beside it), an input of the same command, a release file of the data directory. It also refuses
  a symbolic link (its target would be written), a FIFO, a device or socket, and anything under ``/proc``,
  ``/sys`` or ``/dev``.
- :func:`atomic_write` writes a file beside the target (created with ``O_EXCL``, so never through a link),
  syncs it and renames it over the target: a kill or a full disk leaves the old file or the new one, and a
  link planted meanwhile is replaced, never followed.

Protected paths come from two places: the CLI edge registers each command's database, inputs and release
files before the command runs (`dishgraph.cli_outputs`), and every embedded store registers its database
when it opens, so a library caller is covered as well.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from dishgraph.errors import UsageError

SYSTEM_TREES = (Path("/proc"), Path("/sys"), Path("/dev"))
TMP_TAG = ".dishgraph-tmp"


class OutputRefused(UsageError):
    """An output path this command may not write (the database, an input, a release file, a link, a FIFO)."""


# Process-wide: (path, why) pairs no output may replace. Databases are matched with their siblings.
_DATABASES: dict[Path, str] = {}
_FILES: dict[Path, str] = {}


def _real(path: str | os.PathLike[str]) -> Path:
    """The absolute path with its directories resolved and the last component kept as given (a link at the
    end is what the caller named; the rules look at it, not through it)."""
    p = Path(os.path.abspath(Path(path).expanduser()))
    return p.parent.resolve() / p.name if p.name else p


def protect_database(db: str | os.PathLike[str]) -> None:
    """No output may replace ``db`` or any ``<db>.*`` beside it (the engine's WAL, lock, shadow files)."""
    _DATABASES[_real(db)] = "the database"


_OPEN: dict[Path, int] = {}  # databases open in this process (not cleared between commands)


def protect_open_database(db: str | os.PathLike[str]) -> None:
    """An embedded store opened ``db``: while it is open no output of this process may replace it."""
    key = _real(db)
    _OPEN[key] = _OPEN.get(key, 0) + 1


def forget_open_database(db: str | os.PathLike[str]) -> None:
    key = _real(db)
    if _OPEN.get(key, 0) > 1:
        _OPEN[key] -= 1
    else:
        _OPEN.pop(key, None)


def protect(paths: Iterable[str | os.PathLike[str]], why: str) -> None:
    """No output may replace these files (``why``: "an input of this command", "a release file")."""
    for p in paths:
        _FILES.setdefault(_real(p), why)
        try:
            _FILES.setdefault(Path(os.path.realpath(p)), why)
        except (OSError, ValueError):
            pass


def clear_protected() -> None:
    """Forget what earlier commands of this process protected (the CLI edge calls it per command)."""
    _DATABASES.clear()
    _FILES.clear()


def _database_of(target: Path) -> Path | None:
    for db in [*_DATABASES, *_OPEN]:
        if target.parent == db.parent and (target.name == db.name or target.name.startswith(db.name + ".")):
            return db
        if target == db.parent and db.name == "db":  # the directory given as --db holds DIR/db
            return db
    return None


DATABASE_MAGIC = b"LBUG"  # the first bytes of every LadybugDB database file (graph.ladybug_store.MAGIC)


def _is_database_file(path: Path) -> bool:
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as fh:
            return fh.read(len(DATABASE_MAGIC)) == DATABASE_MAGIC
    except OSError:
        return False


def _database_on_disk(target: Path) -> Path | None:
    """A LadybugDB file that ``target`` is, or that ``target`` sits beside as ``<db>.<suffix>``: any database,
    named by an option or not (the default one, another project's)."""
    name = target.name
    for i, ch in enumerate(name):
        if ch == "." and i and _is_database_file(target.parent / name[:i]):
            return target.parent / name[:i]
    return target if _is_database_file(target) else None


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _protected_reason(target: Path) -> str | None:
    db = _database_of(target) or _database_of(Path(os.path.realpath(target))) or _database_on_disk(target)
    if db is not None:
        what = "the database" if target.name == db.name else f"a file of the database {db}"
        return f"{what} (an output never replaces the database or the files beside it)"
    for cand in {target, Path(os.path.realpath(target))}:
        if cand in _FILES:
            return f"{_FILES[cand]} (an output never replaces what the command reads)"
    for p, why in _FILES.items():
        if _same_file(p, target):
            return f"{why} (an output never replaces what the command reads)"
    return None


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file or a directory."""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return None


def check_output(path: str | os.PathLike[str], *, directory: bool = False) -> Path:
    """The absolute target for an output at ``path``, or `OutputRefused` saying why it may not be written.
    ``directory``: the output is a directory the command creates or fills (a link to a directory is allowed
    there: the exporters resolve it once, `export_dir.output_path`)."""
    given = Path(path).expanduser()
    target = _real(given)
    if any(target == t or t in target.parents for t in SYSTEM_TREES):
        raise OutputRefused(f"{given}: a system file ({target}); write outputs to a regular file")
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise OutputRefused(f"{given}: cannot be written ({e.strerror})") from None
    if st is not None and stat.S_ISLNK(st.st_mode):
        dest = os.readlink(target)
        if not directory or not os.path.isdir(target):
            raise OutputRefused(
                f"{given}: a symbolic link (to {dest}); an output is never written through a link, so that "
                "the file it points to is not overwritten: remove the link or give another path"
            )
        target_real = Path(os.path.realpath(target))
        reason = _protected_reason(target_real)
        if reason:
            raise OutputRefused(f"{given}: {reason}")
        return target
    if st is not None:
        kind = _kind(st.st_mode)
        if kind:
            raise OutputRefused(f"{given}: {kind}, not a regular file; outputs are written to regular files")
        if stat.S_ISDIR(st.st_mode) and not directory:
            raise OutputRefused(f"{given}: a directory; give a file name")
        if not stat.S_ISDIR(st.st_mode) and directory:
            reason = _protected_reason(target)
            raise OutputRefused(f"{given}: {reason or 'a file, not a directory'}")
    reason = _protected_reason(target)
    if reason:
        raise OutputRefused(f"{given}: {reason}")
    return target


def _named(e: OSError, target: Path) -> OSError:
    """A failed write() names no file: the error names the output (and, full, says so)."""
    if e.filename is not None:
        return e
    if e.errno == errno.ENOSPC:
        return OSError(e.errno, f"no space left on the device holding {target.parent}", str(target))
    return OSError(e.errno, e.strerror or str(e), str(target))


def _mode_for(target: Path) -> int:
    try:
        return os.stat(target).st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


@contextmanager
def atomic_write(
    path: str | os.PathLike[str], mode: str = "w", *, encoding: str | None = "utf-8", newline: str | None = None
) -> Iterator[IO[Any]]:
    """A file object whose content becomes ``path`` when the block ends without an error (see the module
    docstring); on an error the target is left as it was and the partial file is removed."""
    target = check_output(path)
    if not target.parent.is_dir():
        raise FileNotFoundError(errno.ENOENT, "its directory does not exist", str(target.parent))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=TMP_TAG, dir=target.parent)
    except OSError as e:
        raise _named(e, target) from None
    binary = "b" in mode
    raw = os.fdopen(fd, "wb")
    fh: IO[Any] = raw if binary else io.TextIOWrapper(raw, encoding=encoding, newline=newline)
    try:
        try:
            yield fh
            fh.flush()
            os.fsync(raw.fileno())
        finally:
            fh.close()
        os.chmod(tmp, _mode_for(target))
        check_output(target)  # a database opened or a FIFO made meanwhile
        os.rename(tmp, target)  # replaces a link at ``target`` itself, never what it points to
    except OSError as e:
        _unlink(tmp)
        raise _named(e, target) from None
    except BaseException:
        _unlink(tmp)
        raise


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """``Path.write_text`` under the output rule (atomic, never onto a protected path)."""
    with atomic_write(path, encoding=encoding) as fh:
        fh.write(text)


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    with atomic_write(path, "wb") as fh:
        fh.write(data)
