"""A WAL with one damaged record keeps every write committed before it (`graph.walscan`, `db recover`).

The probe: 200 `CREATE`s through the API, kill -9, 8 bytes flipped in the WAL, `dishgraph db recover`: the
whole WAL was set aside and 0 of 200 writes kept, at every one of 24 offsets.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dishgraph.graph import walscan
from dishgraph.graph.ladybug_store import LadybugStore, recover

WRITER = """
import sys, time
from dishgraph.graph.ladybug_store import LadybugStore
s = LadybugStore(sys.argv[1])
for i in range(200):
    s.execute("CREATE (:Dish {name: $n})", {"n": f"probe{i:03d}"})
print("ready", flush=True)
time.sleep(120)
"""


@pytest.fixture(scope="module")
def killed(tmp_path_factory):
    """A database whose writer made 200 committed CREATEs and was killed before any checkpoint."""
    base = tmp_path_factory.mktemp("wal")
    (base / "w.py").write_text(WRITER)
    p = subprocess.Popen(
        [sys.executable, str(base / "w.py"), str(base / "src" / "db")], stdout=subprocess.PIPE, text=True
    )
    assert p.stdout.readline().strip() == "ready"
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    return base / "src" / "db"


def _count(db: Path) -> int:
    with LadybugStore(db, read_only=True) as s:
        return s.execute("MATCH (d:Dish) WHERE d.name STARTS WITH 'probe' RETURN count(d) AS n")[0]["n"]


def test_the_whole_log_is_one_chain_of_checksummed_entries(killed):
    data = killed.with_name("db.wal").read_bytes()
    assert walscan.valid_prefix(data)[0] == len(data)


@pytest.mark.parametrize("seed", range(24))
def test_one_damaged_record_keeps_every_write_committed_before_it(killed, tmp_path, seed):
    shutil.copytree(killed.parent, tmp_path / "c", ignore=shutil.ignore_patterns("*.lock"))
    db = tmp_path / "c" / "db"
    wal = db.with_name("db.wal")
    data = bytearray(wal.read_bytes())
    off = random.Random(seed).randrange(64, len(data) - 8)
    data[off : off + 8] = bytes(b ^ 0xFF for b in data[off : off + 8])
    wal.write_bytes(bytes(data))
    keep, _ = walscan.valid_prefix(bytes(data))
    assert keep <= off  # the prefix ends before the damaged record
    said = recover(db)
    assert "recovered" in said and list(tmp_path.joinpath("c").glob("db.wal.torn-*"))
    kept = _count(db)
    # every write whose record lies before the damage is kept (its name in the kept bytes), but perhaps the
    # last one, whose commit record may lie after the cut
    logged = sum(f"probe{i:03d}".encode() in bytes(data[:keep]) for i in range(200))
    assert kept >= logged - 1, (off, keep, len(data), kept, logged, said)
    with LadybugStore(db, read_only=True) as s:
        names = [
            r["n"] for r in s.execute("MATCH (d:Dish) WHERE d.name STARTS WITH 'probe' RETURN d.name AS n ORDER BY n")
        ]
    assert names == [f"probe{i:03d}" for i in range(kept)]  # a prefix of the writes, in order, none invented


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=64))
def test_checksum_matches_the_engines_definition(payload):
    """The engine's checksum (DuckDB's), written out bit by bit here, against the module's (numpy over words)."""
    mask = (1 << 64) - 1
    r = 5381
    n = len(payload) // 8
    for i in range(n):
        r ^= (int.from_bytes(payload[8 * i : 8 * i + 8], "little") * 0xBF58476D1CE4E5B9) & mask
    rest = payload[8 * n :]
    if rest:
        m = 0xC6A4A7935BD1E995
        h = (0xE17A1465 ^ (len(rest) * m)) & mask
        h ^= int.from_bytes(rest, "little")
        h = (h * m) & mask
        h ^= h >> 47
        h = (h * m) & mask
        h ^= h >> 47
        r ^= h
    assert walscan.checksum(payload) == r


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_any_damage_or_tear_stops_the_prefix_at_a_clean_boundary_before_it(killed, data):
    """Flipped bytes anywhere, or the log cut anywhere: the valid prefix is one of the clean log's entry
    boundaries and ends before the damage; never an exception."""
    clean = killed.with_name("db.wal").read_bytes()
    bounds, pos = {0}, 0
    while pos < len(clean):
        pos = walscan._entry_end(clean, pos, first=pos == 0) + 8
        bounds.add(pos)
    off = data.draw(st.integers(0, len(clean) - 1), label="offset")
    if data.draw(st.booleans(), label="cut"):
        bad = clean[:off]
    else:
        width = data.draw(st.integers(1, 16), label="width")
        flipped = bytes(b ^ data.draw(st.integers(1, 255), label="xor") for b in clean[off : off + width])
        bad = clean[:off] + flipped + clean[off + width :]
    keep, entries, committed = walscan.scan(bad)
    assert keep in bounds and keep <= off
    assert committed <= keep and (committed == 0 or committed in bounds)
