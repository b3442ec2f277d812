"""The valid prefix of a damaged LadybugDB write-ahead log: every record before the first bad one.

Why: the engine verifies each WAL record's checksum and, at the first mismatch, refuses the whole log. One
damaged record (8 bytes flipped in a 33 KB WAL of 200 committed writes) lost all 200, though the engine
replays a log cut at a record boundary and keeps every transaction committed before the cut (checked on a
real WAL: cut after record 300 of 718, the 61 writes committed before it are kept).

The layout (LadybugDB's checksummed WAL, as in Kuzu's ``ChecksumWriter``): a header entry (the database's id
and a flag), then entries, each its payload followed by a little-endian u64 checksum of the payload (DuckDB's
checksum: the XOR of ``word * 0xbf58476d1ce4e5b9`` over the payload's 8-byte words, a Murmur-style hash of
the last 0-7 bytes, from 5381). A record's payload starts with its own size (u64), so each entry's end is read
and its checksum checked; the header has no size and ends where its checksum matches. Should a future engine
change the layout, the very first entries do not match and the caller leaves the log to the engine.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SEED = 5381
WORD = np.uint64(0xBF58476D1CE4E5B9)
M = 0xC6A4A7935BD1E995  # the tail hash's multiplier and shift
R = 47


def checksum(payload: bytes) -> int:
    """The engine's checksum of one entry's payload."""
    n = len(payload) // 8
    r = SEED
    if n:
        with np.errstate(over="ignore"):
            r ^= int(np.bitwise_xor.reduce(np.frombuffer(payload, dtype="<u8", count=n) * WORD))
    rest = payload[8 * n :]
    if rest:
        mask = (1 << 64) - 1
        h = (0xE17A1465 ^ (len(rest) * M)) & mask
        h = ((h ^ int.from_bytes(rest, "little")) * M) & mask
        h ^= h >> R
        h = (h * M) & mask
        h ^= h >> R
        r ^= h
    return r


def _entry_end(data: bytes, start: int, first: bool = False) -> int | None:
    """Where the entry starting at ``start`` ends (its checksum follows), or None: it is damaged or torn.
    A record's payload begins with its own size (u64): that end is checked; the header entry (``first``)
    has no size and is searched for."""
    if first:
        return _search_end(data, start)
    if start + 8 > len(data):
        return None
    end = start + 8 + int.from_bytes(data[start : start + 8], "little")
    if end + 8 > len(data) or checksum(data[start:end]) != int.from_bytes(data[end : end + 8], "little"):
        return None
    return end


def _search_end(data: bytes, start: int) -> int | None:
    """The first length up to ``MAX_HEADER`` after which the bytes from ``start`` have their checksum (None:
    none). Only the header entry is searched, so one checksum per candidate length is plenty."""
    for end in range(start + 1, min(start + MAX_HEADER, len(data) - 8) + 1):
        if checksum(data[start:end]) == int.from_bytes(data[end : end + 8], "little"):
            return end
    return None


MAX_HEADER = 4096  # the header entry is 17 bytes (the database's id and a flag)


# A COMMIT record's payload: its serialised size (9), the record type (2 = COMMIT; 1 = BEGIN), a flag.
COMMIT = (9).to_bytes(8, "little") + (2).to_bytes(8, "little")


def valid_prefix(data: bytes) -> tuple[int, int]:
    """(bytes of the log's valid prefix, entries in it): every entry from the start whose checksum matches,
    up to the first that does not (0, 0: not even the header matches, the layout is unknown)."""
    keep, entries, _ = scan(data)
    return keep, entries


def scan(data: bytes) -> tuple[int, int, int]:
    """`valid_prefix` and where its last COMMIT entry ends (0 when none: the prefix holds no committed
    transaction, only one a full disk or a kill cut short)."""
    pos, entries, committed = 0, 0, 0
    while pos < len(data):
        end = _entry_end(data, pos, first=entries == 0)
        if end is None:
            break
        if entries and end - pos == len(COMMIT) + 1 and data[pos : pos + len(COMMIT)] == COMMIT:
            committed = end + 8
        pos, entries = end + 8, entries + 1
    return pos, entries, committed


MAX_SCAN = 256 * 2**20  # a larger WAL is left to the engine (its valid prefix is not searched)


def damage(wal: Path) -> tuple[int, int, int] | None:
    """(valid prefix bytes, its entries, the log's size) when the WAL at ``wal`` has a damaged or torn entry;
    None when it is whole, absent, too large to scan, or of a layout this module does not know (then the
    engine decides). Checked before the engine reads the log: a damaged length field made it allocate until
    the process was killed (std::bad_alloc, or the kernel's OOM killer)."""
    try:
        size = wal.stat().st_size
    except OSError:
        return None
    if size == 0 or size > MAX_SCAN:
        return None
    data = wal.read_bytes()
    keep, entries = valid_prefix(data)
    return (keep, entries, size) if entries and keep < size else None
