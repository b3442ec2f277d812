"""Export directories that are whole or absent, written only under names the exporters generate.

Why: an export killed half-way (a SIGKILL, the OOM killer, a full disk) used to leave the old
``manifest.json`` beside a mix of new, old, missing and truncated data files, and writes into the output
directory followed whatever symbolic link sat under a file's name (``out/Dish.parquet -> ../victim``
overwrote ``victim``). So an export is built in a fresh directory beside the output (same file system),
then swapped in:

1. ``OUT`` is resolved once, at the start: a symbolic link given as ``OUT`` (``build/import ->
   /big/import``) means the directory it points to, which is replaced; the link stays as it is. A dangling
   link is refused. Nothing else is ever resolved: links *inside* the tree are never followed.
2. An existing ``OUT`` is replaced only if every entry in it has a name an exporter generates
   (:func:`generated_names`, an allow-list from the schema), so an export never deletes files it did not
   write: ``dishgraph export tables ~`` is refused, naming the first foreign entry.
3. The new files are created in a fresh directory ``.OUT.dishgraph-export-PID-XXXX`` next to ``OUT``, each
   with ``O_CREAT | O_EXCL | O_NOFOLLOW`` under an allow-listed name, so no write can go through a link.
4. When every file is written and synced, the new directory and ``OUT`` trade places in one atomic
   ``renameat2(RENAME_EXCHANGE)`` (Linux). Where the kernel or file system cannot exchange, ``OUT`` is
   renamed away to ``.OUT.dishgraph-old-PID-XXXX`` and the new directory renamed in; a kill between these
   two renames leaves the old export complete beside ``OUT``, and the next run puts it back first.
5. The old tree is removed with ``shutil.rmtree``, which unlinks symbolic links and never follows them.

Leftovers of killed runs (``.OUT.dishgraph-export-*`` / ``.OUT.dishgraph-old-*`` whose process is gone, and
the ``.dishgraph-export-*`` scratch directories earlier versions left inside ``OUT``) are removed by the next
export into ``OUT``. A kill at any moment therefore leaves ``OUT`` holding the complete old export or the
complete new one (tests/test_export_atomic.py kills real exports to check it).
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any, BinaryIO

from dishgraph.graph.export_scan import table_specs

META_FILES = frozenset({"manifest.json", "tables.json", "IMPORT.txt", "post-import.cypher"})
TABLE_SUFFIXES = (".csv", ".csv.gz", ".parquet")
STAGING_TAG = "dishgraph-export"
RETIRED_TAG = "dishgraph-old"
OLD_SCRATCH_PREFIX = ".dishgraph-export-"  # scratch directories earlier versions made inside OUT
_RENAME_EXCHANGE = 2  # linux/fs.h


class ExportDirError(ValueError):
    """An output directory the export may not replace, or a name no exporter generates."""


@cache
def generated_names() -> frozenset[str]:
    """Every file name an exporter may write: one per table and suffix, and the metadata files."""
    return frozenset(f"{s.name}{suffix}" for s in table_specs() for suffix in TABLE_SUFFIXES) | META_FILES


def check_name(name: str) -> str:
    """``name`` if an exporter generates it (the allow-list); ExportDirError otherwise."""
    if name not in generated_names():
        raise ExportDirError(f"{name!r} is not a file name the exporters write")
    return name


def output_path(directory: str | Path) -> Path:
    """The absolute output directory, a symbolic link given as OUT resolved (see the module docstring)."""
    given = Path(directory).expanduser()
    out = given.resolve()
    if given.is_symlink() and not out.exists():
        raise ExportDirError(f"{given}: a symbolic link to {out}, which does not exist")
    if not out.name:
        raise ExportDirError(f"{given}: export into a directory of its own, not the file system root")
    if out.exists() and not out.is_dir():
        raise ExportDirError(f"{out}: exists and is not a directory")
    return out


def check_replaceable(out: Path) -> None:
    """Refuse an OUT holding anything an export did not write (it would be deleted with the old export)."""
    if not out.exists():
        return
    for entry in sorted(os.scandir(out), key=lambda e: e.name):
        if entry.name.startswith(OLD_SCRATCH_PREFIX) and entry.is_dir(follow_symlinks=False):
            continue  # a scratch directory an earlier version left behind
        if entry.name in generated_names() and not entry.is_dir(follow_symlinks=False):
            continue
        raise ExportDirError(
            f"{out}: holds {entry.name!r}, which no export writes; export into a new or empty directory "
            "(an export replaces the whole directory)"
        )


def _sibling(out: Path, tag: str) -> re.Pattern[str]:
    return re.compile(rf"^\.{re.escape(out.name)}\.{tag}-(\d+)-[A-Za-z0-9_]+$")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # this process has not started its staging directory yet: any such name is a leftover
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


def _remove(path: Path) -> None:
    """Remove a leftover: a directory tree without following links, or the link / file itself."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def clean_leftovers(out: Path) -> list[Path]:
    """Remove what killed exports into OUT left beside it; an old export renamed away but never replaced
    (a kill between the two renames of the fallback swap) is put back as OUT. Returns what was removed."""
    removed: list[Path] = []
    parent = out.parent
    if not parent.is_dir():
        return removed
    retired, staging = _sibling(out, RETIRED_TAG), _sibling(out, STAGING_TAG)
    for entry in sorted(os.scandir(parent), key=lambda e: e.name):
        m = retired.match(entry.name) or staging.match(entry.name)
        if m is None or _alive(int(m.group(1))):
            continue
        path = parent / entry.name
        if m.re is retired and not os.path.lexists(out) and entry.is_dir(follow_symlinks=False):
            os.rename(path, out)
            continue
        _remove(path)
        removed.append(path)
    return removed


def new_file(directory: Path, name: str) -> BinaryIO:
    """A new file under an allow-listed name, opened for writing; never through a link, never over a file."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(directory / check_name(name), flags, 0o666)
    return os.fdopen(fd, "wb")


GZIP_LEVEL = 1  # about 3x smaller than plain CSV at a fraction of level 6's CPU time (exports are CPU-bound)


@contextmanager
def open_output(directory: Path, name: str, compress: bool) -> Iterator[BinaryIO]:
    """A new file for one exported table (:func:`new_file`), gzip-compressed when asked (neo4j-admin and
    pandas read ``.gz``); both layers are closed when the block ends."""
    import gzip

    with new_file(directory, name) as raw:
        if not compress:
            yield raw
            return
        with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=GZIP_LEVEL) as gz:
            yield gz  # type: ignore[misc]


def write_text(directory: Path, name: str, text: str) -> None:
    with new_file(directory, name) as fh:
        fh.write(text.encode("utf-8"))


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _dir_mode(out: Path) -> int:
    if out.is_dir():
        return out.stat().st_mode & 0o7777
    mask = os.umask(0)
    os.umask(mask)
    return 0o777 & ~mask


@cache
def _renameat2() -> Any:  # the C function, or None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


def exchange(a: Path, b: Path) -> bool:
    """Atomically trade the two paths' places (both must exist); False where the system cannot."""
    fn = _renameat2()
    if fn is None:
        return False
    at_cwd = -100  # AT_FDCWD: the paths are absolute
    if fn(at_cwd, os.fsencode(a), at_cwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def swap_in(staging: Path, out: Path) -> None:
    """Put the finished staging directory at OUT (see the module docstring, steps 4 and 5)."""
    if not os.path.lexists(out):
        try:
            os.rename(staging, out)
            _fsync(out.parent)
            return
        except OSError as e:
            if e.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                raise  # otherwise someone made OUT meanwhile: replace it as below
    check_replaceable(out)
    if exchange(staging, out):
        old = staging  # now holds the old export
    else:
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.{RETIRED_TAG}-{os.getpid()}-", dir=out.parent))
        os.rename(out, old)  # onto the empty directory just made: atomic
        os.rename(staging, out)
    _fsync(out.parent)
    shutil.rmtree(old, ignore_errors=True)


@contextmanager
def export_directory(directory: str | Path) -> Iterator[tuple[Path, Path]]:
    """``(staging, out)``: write the export's files into ``staging`` (with :func:`new_file`); when the block
    ends without an error they are synced and swapped in as ``out``. On an error the staging directory is
    removed and ``out`` is left as it was."""
    out = output_path(directory)
    out.parent.mkdir(parents=True, exist_ok=True)
    clean_leftovers(out)
    check_replaceable(out)
    mode = _dir_mode(out)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.{STAGING_TAG}-{os.getpid()}-", dir=out.parent))
    try:
        os.chmod(staging, mode)
        yield staging, out
        for entry in os.scandir(staging):
            if entry.is_file(follow_symlinks=False):
                _fsync(Path(entry.path))
        _fsync(staging)
        swap_in(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
