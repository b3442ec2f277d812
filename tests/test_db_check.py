"""`dishgraph db check`, the database file's checksum and the marker of a writer killed mid-write.

The probe's damage: 20 flips of 64 bytes in a copy of a database, 20 seeds; before, every command exited 0
and exports wrote different rows. A kill -9 of a writer left half a table with nothing said.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dishgraph.cli import app
from dishgraph.errors import EXIT_VIOLATIONS
from dishgraph.graph import checksum
from dishgraph.graph.check import check_database
from dishgraph.graph.ladybug_store import LadybugStore
from dishgraph.graph.lock import DatabaseInUse

runner = CliRunner()
DISHGRAPH = [sys.executable, "-m", "dishgraph.cli"]


@pytest.fixture(scope="module")
def small_db(tmp_path_factory):
    """A database of 300 dishes with recipes, closed by its writer (so a checksum is recorded)."""
    folder = tmp_path_factory.mktemp("checked")
    with LadybugStore(folder / "db") as s:
        s.execute(
            "UNWIND range(1, 300) AS i CREATE (:Dish {name: '菜' + to_string(i)})-[:HAS_RECIPE]->"
            "(:Recipe {id: 'r' + to_string(i), source: 'test'})"
        )
    return folder / "db"


def _copy(db: Path, to: Path) -> Path:
    shutil.copytree(db.parent, to, ignore=shutil.ignore_patterns("*.lock"))
    return to / db.name


def _flip(db: Path, seed: int, flips: int = 20, width: int = 64) -> None:
    """The probe's damage: ``flips`` runs of ``width`` random bytes at random offsets (seeded)."""
    rng = random.Random(seed)
    size = db.stat().st_size
    with open(db, "r+b") as fh:
        for _ in range(flips):
            fh.seek(rng.randrange(0, size - width))
            fh.write(bytes(rng.randrange(256) for _ in range(width)))


def test_a_writer_records_the_checksum_and_a_read_only_open_leaves_it(small_db):
    state = checksum.read(small_db)
    assert state["sha256"] == checksum.file_sha256(small_db) and state["writing"] is None
    with LadybugStore(small_db, read_only=True) as s:
        assert s.execute("MATCH (d:Dish) RETURN count(d) AS n")[0]["n"] == 300
    assert checksum.read(small_db) == state


@pytest.mark.parametrize("seed", range(20))
def test_every_probe_flip_is_found_and_refused(small_db, tmp_path, seed):
    db = _copy(small_db, tmp_path / "copy")
    _flip(db, seed)
    report = check_database(db, quick=True)
    assert not report["ok"] and "DIFFERS" in report["checksum"]
    with pytest.raises(checksum.DatabaseDamaged, match="not what its last writer left"):
        LadybugStore(db, read_only=True)
    res = runner.invoke(app, ["stats", "--db", str(db)])
    assert res.exit_code == 1 and "db check" in res.output and "Traceback" not in res.output


def test_check_reads_every_table_and_its_fingerprint_does_not_depend_on_the_copy(small_db, tmp_path):
    res = runner.invoke(app, ["db", "check", "--db", str(small_db), "--json"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    assert report["ok"] and report["problems"] == []
    rows = {t["name"]: t["rows"] for t in report["tables"]}
    assert rows["Dish"] == 300 and rows["Recipe"] == 300 and rows["HAS_RECIPE"] == 300
    copy = _copy(small_db, tmp_path / "copy")
    assert check_database(copy)["fingerprint"] == report["fingerprint"]  # a copy: new mtime, same content
    with LadybugStore(copy) as s:
        s.execute("MATCH (r:Recipe {id: 'r1'}) SET r.text = '洗净'")
    after = check_database(copy)
    assert after["ok"] and after["fingerprint"] != report["fingerprint"]


def test_a_damaged_file_is_reported_by_the_full_check_and_accept_records_it(small_db, tmp_path):
    db = _copy(small_db, tmp_path / "copy")
    _flip(db, 3)
    res = runner.invoke(app, ["db", "check", "--db", str(db)])
    assert res.exit_code == EXIT_VIOLATIONS and "problem:" in res.output and "Traceback" not in res.output
    res = runner.invoke(app, ["db", "check", "--db", str(db), "--accept"])
    assert res.exit_code == 0 and "recorded as good" in res.output
    assert check_database(db, quick=True)["ok"]


def test_a_database_without_a_checksum_opens_and_the_next_writer_records_one(small_db, tmp_path):
    db = _copy(small_db, tmp_path / "copy")
    checksum.sidecar(db).unlink()
    report = check_database(db)
    assert report["ok"] and report["checksum"].startswith("none recorded")
    with LadybugStore(db) as s:
        s.execute("CREATE (:Dish {name: 'new'})")
    assert checksum.read(db)["sha256"] == checksum.file_sha256(db)


WRITER = """
import sys, time
from dishgraph.graph.ladybug_store import LadybugStore
s = LadybugStore(sys.argv[1])
s.execute("CREATE (:Dish {name: 'half'})")
print("ready", flush=True)
time.sleep(120)
"""


def test_a_killed_writer_is_reported_by_every_command_until_it_is_run_again(small_db, tmp_path):
    db = _copy(small_db, tmp_path / "copy")
    script = tmp_path / "mine_half.py"
    script.write_text(WRITER)
    p = subprocess.Popen([sys.executable, str(script), str(db)], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with LadybugStore(db, read_only=True) as s:
            s.execute("MATCH (d:Dish) RETURN count(d) AS n")
    assert [w for w in seen if issubclass(w.category, checksum.UnfinishedWrite)]
    assert "mine_half.py" in str(seen[0].message) and "did not finish" in str(seen[0].message)
    res = subprocess.run([*DISHGRAPH, "stats", "--db", str(db)], capture_output=True, text=True)
    assert res.returncode == 0 and "note:" in res.stderr and "mine_half.py" in res.stderr
    report = check_database(db)
    assert not report["ok"] and any("did not finish writing" in p for p in report["problems"])
    # another writer finishing does not clear it; the same command finishing does
    with LadybugStore(db) as s:
        s.execute("CREATE (:Dish {name: 'other'})")
    assert checksum.read(db)["unfinished"]
    assert "mine_half.py" in checksum.command_key(checksum.read(db)["unfinished"][0]["command"])
    res = runner.invoke(app, ["db", "check", "--db", str(db), "--accept"])
    assert res.exit_code == 0 and checksum.read(db)["unfinished"] == []
    assert check_database(db)["ok"]


def test_a_killed_cli_writer_is_cleared_by_running_the_command_again(small_db, tmp_path):
    db = _copy(small_db, tmp_path / "copy")
    write = "UNWIND range(1, 5000000) AS i CREATE (:Dish {name: 'x' + to_string(i)})"
    p = subprocess.Popen([*DISHGRAPH, "db", "shell", "--db", str(db), "--write", write], stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while not (checksum.read(db) or {}).get("writing") and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    res = subprocess.run([*DISHGRAPH, "db", "info", "--db", str(db)], capture_output=True, text=True)
    assert "did not finish" in res.stderr and "db shell" in res.stderr
    res = subprocess.run(
        [*DISHGRAPH, "db", "shell", "--db", str(db), "--write", "CREATE (:Dish {name: 'again'})"],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stderr
    assert checksum.read(db)["unfinished"] == [] and check_database(db)["ok"]


def test_command_key_is_the_program_and_its_subcommand_words():
    assert checksum.command_key("dishgraph pivots mine --all --knowledge composed") == "dishgraph pivots mine"
    assert checksum.command_key("dishgraph ingest corpus x.jsonl --db d") == "dishgraph ingest corpus"
    assert checksum.command_key("dishgraph demo") == "dishgraph demo"


LIVE_WRITER = """
import sys, time
from dishgraph.graph.ladybug_store import LadybugStore
s = LadybugStore(sys.argv[1])
s.execute("CREATE (:Dish {name: 'live'})")
print("ready", flush=True)
sys.stdin.readline()
s.close()
"""


def test_a_live_writer_whose_lock_file_was_deleted_is_in_use_not_killed(small_db, tmp_path):
    """The probe deleted `db.lock` under a running writer: the next writer got the engine's lock message and
    exit 1. It is exit 5 (in use) naming the writer, and the live writer is never reported as killed."""
    from dishgraph.errors import EXIT_IN_USE

    db = _copy(small_db, tmp_path / "copy")
    script = tmp_path / "live.py"
    script.write_text(LIVE_WRITER)
    p = subprocess.Popen(
        [sys.executable, str(script), str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert p.stdout.readline().strip() == "ready"
        db.with_name("db.lock").unlink()
        for args in (["db", "info"], ["db", "shell", "--write", "CREATE (:Dish {name: 'x'})"]):
            res = subprocess.run([*DISHGRAPH, "--wait", "0", *args, "--db", str(db)], capture_output=True, text=True)
            assert res.returncode == EXIT_IN_USE and "in use by" in res.stderr and "live.py" in res.stderr, res.stderr
            assert "did not finish" not in res.stderr
    finally:
        p.communicate("\n", timeout=60)
    assert checksum.read(db)["unfinished"] == [] and check_database(db)["ok"]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=10), kids, max_size=4),
    max_leaves=12,
)
FIELDS = ("format", "sha256", "size", "mtime_ns", "recorded", "writing", "unfinished")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    record=st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=7) | JSON,
    garbage=st.none() | st.binary(max_size=200),
)
def test_a_garbled_or_foreign_checksum_record_never_breaks_an_open(small_db, tmp_path, record, garbage):
    """Whatever `<db>.checksum` holds (any JSON, any field of any type, or bytes that are not JSON), an open
    reads the database or refuses it with a typed error; a record of the wrong shape counts as none. (One
    copy for every example: each open leaves it a valid database.)"""
    db = tmp_path / "c" / "db"
    if not db.exists():
        _copy(small_db, tmp_path / "c")
    if isinstance(record, dict):
        record = {"format": 1, **record}
    data = garbage if garbage is not None else json.dumps(record).encode()
    checksum.sidecar(db).write_bytes(data)
    for read_only in (True, False):
        try:
            with LadybugStore(db, read_only=read_only) as s:
                assert s.execute("MATCH (d:Dish) RETURN count(d) AS n")[0]["n"] >= 300
        except (checksum.DatabaseDamaged, DatabaseInUse):
            pass


def test_a_misspelled_database_path_is_told_the_nearest_name(small_db):
    typo = small_db.parent.parent / small_db.parent.name.replace("checked", "chekced") / "db"
    res = runner.invoke(app, ["db", "check", "--db", str(typo)])
    assert res.exit_code == 1 and "no database here" in res.output and "did you mean" in res.output, res.output
