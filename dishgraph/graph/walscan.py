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
M = np.uint64(0xC6A4A7935BD1E995)
R = np.uint64(47)
FIRST_WINDOW = 256  # bytes searched for an entry's end, then 8 times more, up to the rest of the log


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
        m, shift = int(M), int(R)
        h = (0xE17A1465 ^ (len(rest) * m)) & mask
        h = ((h ^ int.from_bytes(rest, "little")) * m) & mask
        h ^= h >> shift
        h = (h * m) & mask
        h ^= h >> shift
        r ^= h
    return r


def _tail_hash(tails: np.ndarray, n: int) -> np.ndarray:
    """The hash of ``n`` (1-7) trailing bytes, their value little-endian in ``tails`` (vectorised)."""
    with np.errstate(over="ignore"):
        seed = np.uint64(0xE17A1465) ^ (np.uint64(n) * M)
        h: np.ndarray = (tails ^ seed) * M
        h ^= h >> R
        h *= M
        h ^= h >> R
    return h


def _ends(data: bytes, start: int, length: int) -> np.ndarray:
    """checksum(data[start:start+k]) for k = 1..length, as an array indexed k - 1."""
    n_words = length // 8
    chunk = data[start : start + 8 * (n_words + 1)]
    words = np.frombuffer(chunk.ljust(8 * (n_words + 1), b"\0"), dtype="<u8").astype(np.uint64)
    with np.errstate(over="ignore"):
        hashed = words[:n_words] * WORD
    # prefix XOR over whole words: acc[q] = XOR of the first q words' hashes
    acc = np.zeros(n_words + 1, dtype=np.uint64)
    acc[1:] = np.bitwise_xor.accumulate(hashed) if n_words else acc[1:]
    acc ^= np.uint64(SEED)
    out = np.empty(length, dtype=np.uint64)
    k = np.arange(1, length + 1)
    q, r = k // 8, k % 8
    whole = r == 0
    out[whole] = acc[q[whole]]
    for n in range(1, 8):
        sel = r == n
        if sel.any():
            tails = words[q[sel]] & np.uint64((1 << (8 * n)) - 1)
            out[sel] = acc[q[sel]] ^ _tail_hash(tails, n)
    return out


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
    """The first offset where the bytes from ``start`` have their checksum right after them (None: none)."""
    room = len(data) - start - 8  # the payload leaves 8 bytes for its checksum
    window = FIRST_WINDOW
    while room > 0:
        length = min(window, room)
        sums = _ends(data, start, length)
        # the u64 stored right after each candidate payload end (k = 1..length bytes)
        after = np.frombuffer(data[start + 1 : start + length + 8], dtype=np.uint8)
        stored = np.lib.stride_tricks.sliding_window_view(after, 8)[:length].copy().view("<u8").ravel()
        hit = np.flatnonzero(sums == stored)
        if hit.size:
            return start + int(hit[0]) + 1
        if length == room or window >= MAX_HEADER:
            return None
        window *= 8
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
