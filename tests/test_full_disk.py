"""A full disk costs the command, never the database: every write command on a real, nearly full tmpfs stops
with one line naming the database's directory, and the database reads afterwards; a WAL the engine cannot
replay (torn by a full disk, overwritten) is set aside, kept, by `db recover`.

The disk tests mount real tmpfs filesystems (root); elsewhere they skip and the simulated check
(`diskspace.FREE_SPACE`) still runs."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dishgraph.cli import app
from dishgraph.graph import diskspace
from dishgraph.graph.ladybug_store import LadybugStore, pending_files

run = CliRunner().invoke
BASE, TARGET = "白灼菜心", "白灼秋葵"

# Every command that writes the graph through logged statements (bulk loads are checked per COPY already).
WRITE_COMMANDS = [
    ["diner", "split", "--name", "x"],
    ["order", "estimate", BASE],
    ["explore", f"{BASE}->{TARGET}", "--compute", "-o", "{tmp}/x.html"],
    ["pivots", "mine", f"{BASE}->{TARGET}", "--knowledge", "composed"],
    ["diner", "load"],
]


@pytest.fixture(scope="module")
def release_db(tmp_path_factory, crg_dir):
    """The release (no parsing) plus a few parsed recipes of the pair's base dish."""
    from dishgraph.api import DishGraph
    from dishgraph.ingest.crg import ingest_counterfactual, release_records
    from dishgraph.ingest.pipeline import parse_and_load
    from dishgraph.ingest.readers import read_crg_release

    path = tmp_path_factory.mktemp("full") / "db"
    release = read_crg_release(crg_dir)
    records = release_records(crg_dir, (BASE,), 10, release=release)
    with DishGraph.open(db=str(path)) as g:
        ingest_counterfactual(g.store, crg_dir, parse=False, show_progress=False)
        parse_and_load(g.store, records, release.glossary, show_progress=False)
    return path


@contextmanager
def _tmpfs(mnt: Path, size: int) -> Iterator[Path]:
    """A real tmpfs of ``size`` bytes mounted at ``mnt`` (root), unmounted afterwards; skips where it cannot."""
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mnt)], capture_output=True)
    if r.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (not root); test_a_logged_write_is_checked_first covers the check")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


@pytest.fixture
def nearly_full(tmp_path, release_db):
    """A tmpfs holding a copy of the database with about 300 KB left; unmounted afterwards."""
    with _tmpfs(tmp_path / "fs", release_db.stat().st_size + 300 * 1024) as mnt:
        shutil.copy(release_db, mnt / "db")
        yield mnt / "db"


def _reads(db: Path) -> bool:
    with LadybugStore(db, read_only=True) as s:
        return s.execute("MATCH (d:Dish) RETURN count(d) AS n")[0]["n"] > 0


@pytest.mark.parametrize("args", WRITE_COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_every_write_command_on_a_full_disk_stops_and_the_database_reads(nearly_full, tmp_path, args):
    db = nearly_full
    res = run(app, [*(a.replace("{tmp}", str(tmp_path)) for a in args), "--db", str(db)])
    text = " ".join(res.output.split())
    assert res.exit_code == 1, res.output
    assert f"{db.parent}: not enough free space to " in text and f"{db}" in text and "is free" in text, text
    assert "Traceback" not in res.output and "/tmp: free space" not in text
    assert not pending_files(db)
    assert _reads(db)


def test_a_logged_write_is_checked_first(tmp_path, monkeypatch):
    db = tmp_path / "db"
    with LadybugStore(db) as s:
        s.execute("CREATE (:Dish {name: 'a', source: 't'})")
        monkeypatch.setattr(diskspace, "FREE_SPACE", lambda p: 300 * 1024)
        with pytest.raises(diskspace.DiskFull, match=f"{tmp_path}: not enough free space to write to {db}"):
            s.execute("CREATE (:Dish {name: 'b', source: 't'})")
        assert s.execute("MATCH (d:Dish) RETURN count(d) AS n") == [{"n": 1}]  # reads still run


def _torn(db: Path, how: str) -> int:
    """Logged writes after the last checkpoint, a SIGKILL, then the WAL torn (truncated or overwritten)."""
    code = (
        "import ladybug, os, signal\n"
        f"db = ladybug.Database({str(db)!r}); c = ladybug.Connection(db)\n"
        "c.execute('CALL auto_checkpoint=false')\n"
        "for i in range(100): c.execute('CREATE (:Dish {name: $n, source: \"t\"})', {'n': 'w%d' % i})\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True)
    assert p.returncode == -signal.SIGKILL
    wal = Path(f"{db}.wal")
    size = wal.stat().st_size
    with open(wal, "r+b") as fh:
        if how == "truncated":
            fh.truncate(size // 2 + 123)
        else:
            fh.seek(size // 2)
            fh.write(b"<html>" * 100)
    return size


@pytest.mark.parametrize("how", ["truncated", "overwritten"])
def test_db_recover_sets_a_torn_wal_aside_and_keeps_the_writes_before_the_tear(tmp_path, how):
    db = tmp_path / "db"
    with LadybugStore(db) as s:
        s.execute("CREATE (:Dish {name: 'kept', source: 't'})")  # checkpointed when the store closes
    _torn(db, how)
    res = run(app, ["db", "info", "--db", str(db)])
    assert res.exit_code == 1 and "dishgraph db recover" in " ".join(res.output.split()), res.output
    res = run(app, ["db", "recover", "--db", str(db)])
    text = " ".join(res.output.split())
    assert res.exit_code == 0 and "set aside as db.wal.torn-" in text and "Lost:" in text, res.output
    kept = [p for p in os.listdir(tmp_path) if p.startswith("db.wal.torn-")]
    assert len(kept) == 1 and (tmp_path / kept[0]).stat().st_size > 0
    with LadybugStore(db, read_only=True) as s:
        names = [r["n"] for r in s.execute("MATCH (d:Dish) RETURN d.name AS n")]
    # the checkpointed row, then the writes logged before the damage (half of the 100), in order, none invented
    assert names[0] == "kept" and names[1:] == [f"w{i}" for i in range(len(names) - 1)] and len(names) > 40, names
    with LadybugStore(db) as s:  # and takes writes again
        s.execute("CREATE (:Dish {name: 'after', source: 't'})")


def test_a_healthy_wal_is_replayed_not_set_aside(tmp_path):
    db = tmp_path / "db"
    LadybugStore(db).close()
    code = (
        "import ladybug, os, signal\n"
        f"db = ladybug.Database({str(db)!r}); c = ladybug.Connection(db)\n"
        "c.execute('CALL auto_checkpoint=false')\n"
        'c.execute(\'CREATE (:Dish {name: "w", source: "t"})\')\n'
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    subprocess.run([sys.executable, "-c", code], capture_output=True)
    res = run(app, ["db", "recover", "--db", str(db)])
    assert res.exit_code == 0 and "torn" not in res.output
    assert not [p for p in os.listdir(tmp_path) if "torn" in p]
    with LadybugStore(db, read_only=True) as s:
        assert s.execute("MATCH (d:Dish) RETURN d.name AS n") == [{"n": "w"}]


@pytest.fixture
def little_room(tmp_path, release_db):
    """A tmpfs holding a copy of the database with 2 MiB more than a write-open reserves for it."""
    room = diskspace.MARGIN + diskspace.SHADOW_SHARE * release_db.stat().st_size + 2 * 2**20
    with _tmpfs(tmp_path / "fs9", release_db.stat().st_size + int(room)) as mnt:
        shutil.copy(release_db, mnt / "db")
        yield mnt / "db"


def test_a_statement_larger_than_the_disk_leaves_a_database_that_recovers_in_place(little_room):
    """The probe's brick: one `--write` statement whose log outgrows the free space. The engine aborts the
    process (its WAL write fails: no check can know a statement's size first), leaving a torn WAL that fills
    the disk. Every open then names the damage and `db recover`; recover needs no free space for a WAL that
    holds nothing committed, and the database reads as before the statement."""
    db = little_room
    with LadybugStore(db, read_only=True) as s:
        before = s.execute("MATCH (d:Dish) RETURN count(d) AS n")[0]["n"]
    big = "UNWIND range(1, 1000000) AS i CREATE (:Dish {name: 'probe' + to_string(i), source: 't'})"
    p = subprocess.run(
        [sys.executable, "-m", "dishgraph.cli", "db", "shell", "--db", str(db), "--write", big],
        capture_output=True,
        text=True,
    )
    assert p.returncode != 0, p.stderr  # the engine aborts the process (SIGABRT)
    res = run(app, ["db", "info", "--db", str(db)])
    assert res.exit_code == 1 and "dishgraph db recover" in " ".join(res.output.split()), res.output
    res = run(app, ["db", "recover", "--db", str(db)])
    text = " ".join(res.output.split())
    assert res.exit_code == 0 and "no committed transaction" in text and "delete it to free the space" in text
    assert not pending_files(db) and not db.with_name("db.shadow").exists()
    with LadybugStore(db, read_only=True) as s:
        assert s.execute("MATCH (d:Dish) RETURN count(d) AS n")[0]["n"] == before


def test_a_command_the_disk_cannot_hold_is_refused_before_it_writes(tmp_path, release_db, monkeypatch):
    """The probe: `ingest corpus` of 200 recipes with 9 or 20 MB free stopped half-way (199 recipes stored
    without their steps, `db.shadow` and `db.wal` left). Every write-open and every corpus ingest now asks
    first for the room the whole command may need; refused, the database is exactly as it was."""
    from dishgraph.graph.check import check_database

    db = tmp_path / "c" / "db"
    db.parent.mkdir()
    shutil.copy(release_db, db)
    LadybugStore(db).close()  # a writer's close records the checksum
    before = check_database(db)["fingerprint"]
    corpus = tmp_path / "new.jsonl"
    corpus.write_text(
        "".join(f'{{"dish": "新菜{i}", "text": "土豆洗净切丝，下锅翻炒，加盐出锅。"}}\n' for i in range(200)),
        encoding="utf-8",
    )
    need = diskspace.MARGIN + diskspace.SHADOW_SHARE * db.stat().st_size
    monkeypatch.setattr(diskspace, "FREE_SPACE", lambda p: int(need) - 1)
    res = run(app, ["ingest", "corpus", str(corpus), "--db", str(db)])
    text = " ".join(res.output.split())
    assert res.exit_code == 1 and "not enough free space" in text and "nothing was written" in text, res.output
    monkeypatch.setattr(diskspace, "FREE_SPACE", lambda p: int(need) + 1024)  # room to open, not for the corpus
    res = run(app, ["ingest", "corpus", str(corpus), "--db", str(db)])
    text = " ".join(res.output.split())
    assert res.exit_code == 1 and "times the" in text and "of input" in text, res.output
    assert not pending_files(db)
    after = check_database(db)
    assert after["ok"] and after["fingerprint"] == before


def test_a_copy_typed_in_the_shell_is_checked_against_its_file(tmp_path, monkeypatch):
    """`db shell --write "COPY Dish FROM 'file.csv'"`: the file's rows and their checkpoint are checked before
    the engine starts (a COPY through the shell segfaulted on a full disk)."""
    db = tmp_path / "db"
    rows = tmp_path / "dishes.csv"
    rows.write_text("name,source\n" + "".join(f"菜{i},t\n" for i in range(20000)), encoding="utf-8")
    with LadybugStore(db) as s:
        free = diskspace.MARGIN + rows.stat().st_size  # room for the margin, not for the rows grown
        monkeypatch.setattr(diskspace, "FREE_SPACE", lambda p: free)
        with pytest.raises(diskspace.DiskFull, match="not enough free space to load into"):
            s.execute(f"COPY Dish FROM '{rows}' (header=true)")
        monkeypatch.undo()
        assert s.execute("MATCH (d:Dish) RETURN count(d) AS n") == [{"n": 0}]
        s.execute(f"COPY Dish FROM '{rows}' (header=true)")
        assert s.execute("MATCH (d:Dish) RETURN count(d) AS n") == [{"n": 20000}]


@pytest.mark.parametrize("kind", ["tables", "neo4j-import"])
def test_an_export_onto_a_full_disk_fails_as_io_naming_the_file(tmp_path, release_db, kind):
    """The probe: `export tables` / `export neo4j-import` onto a full disk said "usage error: IO exception …
    Error: Success" (exit 2). The engine's write failure is I/O (exit 1), names the file and the free space,
    and leaves no staging folder behind."""
    with _tmpfs(tmp_path / "small", 512 * 1024) as mnt:
        res = run(app, ["export", kind, str(mnt / "out"), "--db", str(release_db)])
        text = " ".join(res.output.split())
        assert res.exit_code == 1, res.output
        assert "could not be written" in text and "is the disk full?" in text and "MiB free" in text, text
        assert "usage error" not in text and "Error: Success" not in text
        assert os.listdir(mnt) == []
