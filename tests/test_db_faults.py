"""Opening the database under faults (issue 25 §4, §5; issue 26 §3, §4, §6): a full disk refused before the
engine can crash, a recovery that verifies, a database in use waited for and given its own exit code,
``--db`` as a file or a directory without stray locks, and the exit codes' one rule.

The disk tests mount real tmpfs filesystems where that is allowed (root); elsewhere they use the injectable
free-space function (`diskspace.FREE_SPACE`) and say so in their skip reason."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dishgraph.cli import app
from dishgraph.cli_errors import message_for
from dishgraph.errors import EXIT_FAILED, EXIT_IN_USE, EXIT_VIOLATIONS
from dishgraph.graph import diskspace
from dishgraph.graph.ladybug_store import LadybugStore, pending_files
from dishgraph.graph.lock import DatabaseInUse

run = CliRunner().invoke


def _text(res) -> str:
    return " ".join(res.output.split())


@pytest.fixture
def tmpfs(tmp_path):
    """mount(size) -> a directory on a fresh tmpfs of that size, unmounted afterwards; skips without root."""
    mounted = []

    def mount(size: str) -> Path:
        d = tmp_path / f"fs{len(mounted)}"
        d.mkdir()
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(d)], capture_output=True)
        if r.returncode != 0:
            pytest.skip("cannot mount a tmpfs here (not root); test_space_check_simulated covers the check")
        mounted.append(d)
        return d

    yield mount
    for d in mounted:
        subprocess.run(["umount", "-l", str(d)], capture_output=True)


def _dishes(n: int, pad: int = 0) -> list[dict]:
    return [{"name": f"菜{i:05d}" + "x" * pad, "source": "test"} for i in range(n)]


# --- a full disk ----------------------------------------------------------------------------------------
def test_ingest_onto_a_small_disk_stops_with_a_message_and_recovers(tmpfs, tmp_path, data_dir):
    """A real ingest onto a real 9 MB filesystem: refused before the COPY (exit 1, one line naming the path,
    the space needed and free), never a segfault. The small batches logged before it may not fit their
    checkpoint either: then reads say so (never "recovered" while files remain) until space is freed, and
    `db recover` finishes it, verified."""
    fs = tmpfs("9m")
    db = fs / "db"
    lines = (data_dir / "xiachufang" / "recipes.jsonl").read_text(encoding="utf-8").splitlines()[:30]
    corpus = tmp_path / "x.jsonl"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    res = run(app, ["ingest", "corpus", str(corpus), "--db", str(db), "--json"])
    assert res.exit_code == EXIT_FAILED, res.output
    msg = _text(res)
    # Refused before the first COPY, or before an earlier logged write (the dishes and glossary go first).
    assert f"{fs}: not enough free space to " in msg and f" {db}:" in msg and "MiB is free" in msg, msg
    assert "Traceback" not in res.output
    if pending_files(db):  # the closing checkpoint of the logged writes did not fit
        res = run(app, ["db", "recover", "--db", str(db)])
        assert res.exit_code == EXIT_FAILED and "still there: db." in _text(res), res.output
        subprocess.run(["mount", "-o", "remount,size=64m", str(fs)], check=True)
        res = run(app, ["db", "recover", "--db", str(db)])
        assert res.exit_code == 0 and "recovered" in _text(res), res.output
    assert not pending_files(db)
    res = run(app, ["db", "info", "--db", str(db), "--json"])
    # It reads, holding the recipes if the refusal came at the Step COPY, none if at an earlier logged write.
    assert res.exit_code == 0 and ('"Recipe": 30' in res.output or '"Recipe": 0' in res.output), res.output


def test_space_check_simulated(tmp_path, monkeypatch):
    """The same check with the injectable free-space function: the COPY is refused, nothing is written, the
    store closes cleanly and the database reads; with room again the same load goes through."""
    db = tmp_path / "db"
    with LadybugStore(db) as s:
        monkeypatch.setattr(diskspace, "FREE_SPACE", lambda p: 4 * diskspace.MIB)  # after the open's reservation
        with pytest.raises(diskspace.DiskFull) as e, s.bulk_session():
            s.bulk_load_nodes("Dish", _dishes(300))  # 300 rows: over the margin with 4 MiB free
        assert f"{tmp_path}: not enough free space to load into {db}" in str(e.value)
        assert "4.0 MiB is free" in str(e.value) and message_for(e.value)[0] == EXIT_FAILED
    with LadybugStore(db, read_only=True) as s:
        assert s.counts()["nodes"]["Dish"] == 0
    monkeypatch.setattr(diskspace, "FREE_SPACE", lambda p: 10 * 2**30)
    with LadybugStore(db) as s, s.bulk_session():
        assert s.bulk_load_nodes("Dish", _dishes(300)) == 300


def test_session_counts_every_copy_waiting_for_its_checkpoint(tmp_path, monkeypatch):
    """Two COPYs in one bulk session share its checkpoint: the second is checked with the first's rows."""
    seen = []
    monkeypatch.setattr(diskspace, "check_space", lambda db, pending: seen.append(pending))
    with LadybugStore(tmp_path / "db") as s:
        with s.bulk_session():
            s.bulk_load_nodes("Dish", _dishes(300))
            s.bulk_load_nodes("Dish", [{"name": f"b{i}", "source": "t"} for i in range(300)])
        s.bulk_load_nodes("Dish", [{"name": f"c{i}", "source": "t"} for i in range(300)])  # after the checkpoint
    assert seen[1] > seen[0] > 0 and seen[2] < seen[1]


def test_full_tmpdir_names_the_file(tmpfs, tmp_path, monkeypatch):
    """A COPY file that does not fit in TMPDIR: "…/Dish.csv: No space left on device (temporary …)"."""
    import tempfile

    fs = tmpfs("64k")
    (fs / "fill").write_bytes(b"\0" * (shutil.disk_usage(fs).free - 4096))
    monkeypatch.setattr(tempfile, "tempdir", str(fs))
    with LadybugStore(tmp_path / "db") as s, pytest.raises(OSError) as e:
        s.bulk_load_nodes("Dish", _dishes(300, pad=100))
    code, msg = message_for(e.value)
    assert code == EXIT_FAILED and msg.startswith(str(fs)) and "Dish.csv: No space left on device" in msg, msg


def test_enospc_without_a_file_name_names_the_temporary_directory():
    import tempfile

    code, msg = message_for(OSError(errno.ENOSPC, "No space left on device"))
    assert code == EXIT_FAILED and f"temporary files go to {tempfile.gettempdir()}" in msg


# --- db recover verifies ---------------------------------------------------------------------------------
def _interrupted_checkpoint(path: Path) -> None:
    import ladybug

    with LadybugStore(path) as s:
        s.execute("CREATE (:Dish {name: $n})", {"n": "白灼菜心"})
    d = ladybug.Database(str(path), read_only=True)
    with pytest.raises(RuntimeError):
        ladybug.Connection(d).execute("CHECKPOINT")  # leaves db.shadow + db.wal, as a kill would
    d.close()


def test_recover_says_recovered_only_when_the_files_are_gone_and_it_reads(tmp_path):
    db = tmp_path / "db"
    _interrupted_checkpoint(db)
    assert pending_files(db)
    res = run(app, ["db", "recover", "--db", str(db)])
    assert res.exit_code == 0 and "recovered" in _text(res), res.output
    assert not pending_files(db)
    res = run(app, ["db", "info", "--db", str(db), "--json"])
    assert res.exit_code == 0 and '"Dish": 1' in res.output


def test_recover_sets_a_wal_it_cannot_replay_aside_and_says_what_was_lost(tmp_path):
    """A WAL the engine cannot replay used to fail `db recover` for good ("still there: db.wal") until it was
    deleted by hand: it is set aside now, kept, and the database is back at its last checkpoint."""
    db = tmp_path / "db"
    with LadybugStore(db) as s:
        s.execute("CREATE (:Dish {name: $n})", {"n": "白灼菜心"})
    db.with_name("db.wal").write_bytes(b"x" * 5000)  # a WAL the engine cannot replay
    res = run(app, ["db", "recover", "--db", str(db)])
    assert res.exit_code == 0 and "set aside as db.wal.torn-" in _text(res) and "Lost:" in _text(res), res.output
    assert [p.name for p in tmp_path.glob("db.wal.torn-*")] and not db.with_name("db.wal").exists()
    with LadybugStore(db, read_only=True) as s:
        assert s.execute("MATCH (d:Dish) RETURN d.name AS n") == [{"n": "白灼菜心"}]


def test_recover_that_cannot_finish_fails_and_says_what_remains(tmp_path):
    """A checkpoint that cannot be finished (its shadow file is there too) is never set aside: it fails and
    says what remains."""
    db = tmp_path / "db"
    with LadybugStore(db) as s:
        s.execute("CREATE (:Dish {name: $n})", {"n": "白灼菜心"})
    db.with_name("db.wal").write_bytes(b"x" * 5000)
    db.with_name("db.shadow").write_bytes(b"y" * 5000)
    res = run(app, ["db", "recover", "--db", str(db)])
    assert res.exit_code == EXIT_FAILED and "recovered" not in res.output.replace("recovery", "")
    assert "still there: db.shadow, db.wal" in _text(res), res.output


# --- a database in use: wait, then its own exit code -----------------------------------------------------
HOLDER = """
import os, sys, time
from dishgraph.graph.ladybug_store import LadybugStore
s = LadybugStore(sys.argv[1])
print("ready", flush=True)
while not os.path.exists(sys.argv[2]):
    time.sleep(0.05)
s.close()
"""


@pytest.fixture
def writer(tmp_path):
    """A real second process holding the database for writing until ``release()``."""
    db, flag = tmp_path / "db", tmp_path / "release"
    LadybugStore(db).close()
    p = subprocess.Popen([sys.executable, "-c", HOLDER, str(db), str(flag)], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    p.release = lambda: flag.touch()
    yield db, p
    flag.touch()
    p.wait(timeout=60)


def test_a_reader_waits_for_the_writer_then_reads(writer):
    db, p = writer
    threading.Timer(1.5, p.release).start()
    t0 = time.monotonic()
    res = run(app, ["--wait", "60", "stats", "--db", str(db), "--json"])
    assert res.exit_code == 0, res.output + res.stderr
    assert time.monotonic() - t0 >= 1.0
    note = " ".join(res.stderr.split())
    assert f"waiting for {db}: in use by PID {p.pid} (writing: python" in note and "since" in note


def test_waiting_times_out_with_its_own_exit_code_naming_the_holder(writer):
    db, p = writer
    t0 = time.monotonic()
    res = run(app, ["--wait", "1", "stats", "--db", str(db)])
    assert res.exit_code == EXIT_IN_USE == 5, res.output
    msg = _text(res)
    assert f"in use by PID {p.pid} (writing:" in msg and "since" in msg and "waited 1 s" in msg, msg
    assert "usage error" not in msg and 1.0 <= time.monotonic() - t0 < 30
    with pytest.raises(DatabaseInUse, match=f"PID {p.pid}"):  # DISHGRAPH_WAIT, for the library too
        os.environ["DISHGRAPH_WAIT"] = "0"
        try:
            LadybugStore(db, read_only=True)
        finally:
            del os.environ["DISHGRAPH_WAIT"]


def test_the_same_process_never_waits_for_itself(tmp_path):
    db = tmp_path / "db"
    with LadybugStore(db):
        t0 = time.monotonic()
        with pytest.raises(DatabaseInUse, match="already open in this process"):
            LadybugStore(db, read_only=True, wait=60)
        assert time.monotonic() - t0 < 10


# --- --db: a file, or a directory holding DIR/db; no stray lock -----------------------------------------
def test_db_directory_uses_the_database_inside(tmp_path):
    d = tmp_path / "dir"
    d.mkdir()
    with LadybugStore(d / "db") as s:
        s.execute("CREATE (:Dish {name: $n})", {"n": "白灼菜心"})
    res = run(app, ["stats", "--db", str(d), "--json"])
    assert res.exit_code == 0 and '"Dish": 1' in res.output, res.output


def test_failed_opens_leave_no_lock_and_name_the_path(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    res = run(app, ["stats", "--db", str(empty)])
    assert res.exit_code == EXIT_FAILED and f"{empty}/db: no database here" in _text(res)
    notdb = tmp_path / "notes.txt"
    notdb.write_text("hello\n")
    res = run(app, ["stats", "--db", str(notdb)])
    assert res.exit_code == EXIT_FAILED and f"{notdb}: not a LadybugDB database file" in _text(res)
    res = run(app, ["ingest", "counterfactual", "--db", str(notdb)])
    assert res.exit_code == EXIT_FAILED and str(notdb) in _text(res)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["empty", "notes.txt"]


# --- exit codes: one rule -------------------------------------------------------------------------------
def test_order_check_violations_have_their_own_exit_code(tmp_path):
    from dishgraph.api import DishGraph
    from dishgraph.ingest import loader

    db = tmp_path / "db"
    text = "把洋葱切丝。锅中倒油烧热。"
    with DishGraph(LadybugStore(db)) as g:
        protos = [a.proto for a in g._make_parser().parse(text) if a.proto is not None]
        first, last = protos[0].key, protos[-1].key
        assert first != last
        loader.load_dishes(g.store, ["洋葱菜"], "test")
        loader.load_proto_actions(g.store, protos)
        row = dict(dish="洋葱菜", ate=0.5, n_treated=3, n_control=3, estimator="fast", source="t", window="paper")
        g.store.write("order_write_constraints", [{"cause": last, "effect": first, **row}])  # last before first
    res = run(app, ["order", "check", "洋葱菜", text, "--db", str(db)])
    assert res.exit_code == EXIT_VIOLATIONS == 4 and "1 violated constraint" in _text(res), res.output
    res = run(app, ["order", "check", "洋葱菜", text, "--db", str(db), "--json"])
    assert res.exit_code == EXIT_VIOLATIONS and last in res.output
    res = run(app, ["order", "check", "洋葱菜", "锅中倒油烧热。把洋葱切丝。", "--db", str(db)])
    assert res.exit_code == 0 and "no order constraint violated" in res.output


def test_a_missing_input_file_is_exit_1_in_every_command(tmp_path):
    missing = str(tmp_path / "missing.jsonl")
    for args in (
        ["ingest", "corpus", missing, "--db", str(tmp_path / "db")],
        ["eval", "crg", missing],
        ["eval", "pcs", missing, missing],
    ):
        res = run(app, args)
        assert res.exit_code == EXIT_FAILED, (args, res.output)
        assert "missing.jsonl" in _text(res) and "usage error" not in res.output, (args, res.output)


def test_exit_codes_are_documented():
    from dishgraph.errors import EXIT_CODES

    assert set(EXIT_CODES) == {0, 1, 2, 3, 4, 5, 130}
    cli_md = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text(encoding="utf-8")
    for code in EXIT_CODES:
        assert f"| {code} |" in cli_md
