"""Exports are whole or absent, and never write through a link (issue #25 §2).

Real exports of a small database built from the CRG release are SIGKILLed at chosen moments (inside the
exporter, between the renames of the swap, and at timed moments of the real CLI); after each kill the
output directory must hold a complete export, the old or the new one: every file its manifest lists, with
the recorded size and SHA-256, and nothing else. The next run must clean up what the killed one left.
Planted symbolic links under every generated name must leave their target unchanged, and the allow-list of
names is fuzzed with hypothesis.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dishgraph.graph import export_dir
from dishgraph.graph.export_neo4j import export_neo4j_import
from dishgraph.graph.export_tables import export_tables
from dishgraph.graph.ladybug_store import LadybugStore

PER_DISH = 4  # recipes per base dish: ~200 recipes, the glossary, pairs: a real graph in a second

NEO4J_META = {"manifest.json", "IMPORT.txt", "post-import.cypher"}


@pytest.fixture(scope="module")
def small_db(tmp_path_factory, crg_dir) -> Path:
    from dishgraph.ingest import loader
    from dishgraph.ingest.crg import release_records
    from dishgraph.ingest.readers import read_crg_release

    path = tmp_path_factory.mktemp("atomic") / "db"
    release = read_crg_release(crg_dir)
    records = release_records(crg_dir, per_dish=PER_DISH, release=release)
    with LadybugStore(path) as s:
        loader.load_glossary(s, release.glossary)
        loader.load_dishes(s, [r.dish for r in records], "crg")
        loader.load_recipes(s, records)
    return path


def problems(out: Path) -> list[str]:
    """What disagrees between an export directory and its manifest (manifest.json or tables.json)."""
    if (out / "manifest.json").exists():
        listed = {f["name"]: f for f in json.loads((out / "manifest.json").read_text("utf-8"))["files"]}
        meta = NEO4J_META
    elif (out / "tables.json").exists():
        listed = {t["file"]: t for t in json.loads((out / "tables.json").read_text("utf-8"))["tables"]}
        meta = {"tables.json"}
    else:
        return [f"{out}: no manifest"] if out.exists() and any(out.iterdir()) else [f"{out}: missing or empty"]
    bad = []
    for name, f in listed.items():
        path = out / name
        if path.is_symlink() or not path.is_file():
            bad.append(f"{name}: missing or not a plain file")
        elif path.stat().st_size != f["bytes"] or export_dir.file_sha256(path) != f["sha256"]:
            bad.append(f"{name}: size or hash differs from the manifest")
    bad += [f"{name}: not in the manifest" for name in {p.name for p in out.iterdir()} - set(listed) - meta]
    return bad


def leftovers(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.dishgraph-"))


def fingerprint(out: Path) -> dict[str, str]:
    return {p.name: export_dir.file_sha256(p) for p in sorted(out.iterdir())}


def _export(db: Path, out: Path, **kw):
    with LadybugStore(db, read_only=True) as s:
        return export_neo4j_import(s, out, **kw)


# ------------------------------------------------------------------------------------ kills
KILL_POINTS = {
    # while the data files are being written (the 3rd table file is opened)
    "mid_tables": "export_neo4j.open_output",
    # every data file written, as the manifest is about to be written
    "before_manifest": "export_neo4j.write_text",
    # after the atomic exchange, before the old export is removed
    "after_exchange": "export_dir.swap_done",
    # the fallback swap (no RENAME_EXCHANGE): between renaming OUT away and renaming the new one in
    "between_renames": "export_dir.rename_in",
}


def _dying_export(db: Path, out: Path, kill_at: str) -> subprocess.CompletedProcess:
    code = textwrap.dedent(f"""
        import os, signal
        from dishgraph.graph import export_dir, export_neo4j
        from dishgraph.graph.ladybug_store import LadybugStore
        def die():
            os.kill(os.getpid(), signal.SIGKILL)
        kill_at, out = {kill_at!r}, {str(out)!r}
        if kill_at == "mid_tables":
            orig, calls = export_neo4j.open_output, []
            def opening(*a, **kw):
                calls.append(1)
                if len(calls) == 3:
                    die()
                return orig(*a, **kw)
            export_neo4j.open_output = opening
        elif kill_at == "before_manifest":
            orig_text = export_neo4j.write_text
            def writing(d, name, text):
                if name == "manifest.json":
                    die()
                return orig_text(d, name, text)
            export_neo4j.write_text = writing
        elif kill_at == "after_exchange":
            orig_fsync = export_dir._fsync
            def fsync(path):
                orig_fsync(path)
                if str(path) == os.path.dirname(os.path.realpath(out)):  # synced right after the exchange
                    die()
            export_dir._fsync = fsync
        else:  # between_renames: no exchange, then die before the second rename
            export_dir.exchange = lambda a, b: False
            orig_rename = os.rename
            def rename(a, b):
                if str(b) == out and ".dishgraph-export-" in str(a):
                    die()
                return orig_rename(a, b)
            export_dir.os.rename = rename
        with LadybugStore({str(db)!r}, read_only=True) as s:
            export_neo4j.export_neo4j_import(s, out)
    """)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.parametrize("kill_at", sorted(KILL_POINTS))
def test_an_export_killed_at_any_moment_leaves_the_old_or_the_new_export(small_db, tmp_path, kill_at):
    out = tmp_path / "out"
    _export(small_db, out, compress=False)  # the old export: plain .csv files
    old = fingerprint(out)
    proc = _dying_export(small_db, out, kill_at)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    left = leftovers(out)
    assert left  # the killed run's staging directory, or the old export renamed away
    if kill_at == "between_renames":  # OUT is missing for an instant: the old export is whole beside it
        (retired,) = [out.parent / n for n in left if ".dishgraph-old-" in n]
        assert not out.exists() and problems(retired) == [] and fingerprint(retired) == old
    else:
        assert problems(out) == []
        now = fingerprint(out)
        if kill_at == "after_exchange":  # the new export is in; the old one waits for removal
            assert now != old and not [n for n in now if n.endswith(".csv")]
        else:
            assert now == old  # nothing of the new export is visible
    rep = _export(small_db, out)  # the next run cleans up and writes the new export
    assert problems(out) == [] and leftovers(out) == []
    assert {f.name for f in rep.files} | NEO4J_META == set(fingerprint(out))


def test_the_real_cli_killed_at_timed_moments_leaves_a_whole_export(small_db, tmp_path):
    """SIGKILL the real `dishgraph export neo4j-import` once its staging directory exists, at several delays."""
    out = tmp_path / "out"
    _export(small_db, out, compress=False)
    old = fingerprint(out)
    seen = set()
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "dishgraph.cli", "export", "neo4j-import", str(out), "--db", str(small_db), "--json"]
    for delay in (0.0, 0.05, 0.15, 0.3, 0.6):
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        deadline = time.monotonic() + 60
        while not any(n.startswith(f".{out.name}.dishgraph-export-") for n in leftovers(out)):
            assert proc.poll() is None and time.monotonic() < deadline, "the export ended before it was killed"
            time.sleep(0.01)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert problems(out) == [], delay
        now = fingerprint(out)
        assert now == old or not [n for n in now if n.endswith(".csv")], delay  # old, or wholly new
        seen.add("old" if now == old else "new")
        if now != old:
            _export(small_db, out, compress=False)
            old = fingerprint(out)
    _export(small_db, out)
    assert problems(out) == [] and leftovers(out) == []
    assert "old" in seen  # at least the early kills fell inside the export


# ------------------------------------------------------------------------------------ links
PLANTED = ["Dish.parquet", "tables.json", "manifest.json", "IMPORT.txt", "post-import.cypher", "Dish.csv.gz"]


@pytest.mark.parametrize("kind", ["tables", "neo4j-import"])
def test_planted_links_are_never_written_through(small_db, tmp_path, kind):
    victim = tmp_path / "victim"
    victim.write_text("precious", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    for name in PLANTED:
        (out / name).symlink_to("../victim")
    with LadybugStore(small_db, read_only=True) as s:
        if kind == "tables":
            export_tables(s, out)
        else:
            export_neo4j_import(s, out)
    assert victim.read_text(encoding="utf-8") == "precious"
    assert problems(out) == [] and not [p for p in out.iterdir() if p.is_symlink()]


def test_an_out_that_is_a_link_is_resolved_once_and_the_link_kept(small_db, tmp_path):
    real = tmp_path / "real"
    _export(small_db, real, compress=False)
    link = tmp_path / "link"
    link.symlink_to("real")
    rep = _export(small_db, link)
    assert link.is_symlink() and os.readlink(link) == "real"
    assert rep.directory == str(real.resolve()) and problems(real) == []
    assert all(not n.endswith(".csv") for n in fingerprint(real))  # the new export replaced the old one
    dangling = tmp_path / "dangling"
    dangling.symlink_to("nowhere/at/all")
    with pytest.raises(export_dir.ExportDirError, match="does not exist"):
        _export(small_db, dangling)
    assert not (tmp_path / "nowhere").exists()


def test_a_directory_with_other_files_is_refused_whole(small_db, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    (out / "Dish.csv.gz").write_text("old", encoding="utf-8")
    with pytest.raises(export_dir.ExportDirError, match="'notes.txt', which no export writes"):
        _export(small_db, out)
    assert sorted(p.name for p in out.iterdir()) == ["Dish.csv.gz", "notes.txt"] and leftovers(out) == []
    from dishgraph.cli import app

    r = CliRunner().invoke(app, ["export", "tables", str(out), "--db", str(small_db)])
    assert r.exit_code == 2 and "notes.txt" in r.output and "Traceback" not in r.output
    (out / "notes.txt").unlink()
    (out / ".dishgraph-export-abc123").mkdir()  # a scratch directory an earlier version left inside OUT
    _export(small_db, out)
    assert problems(out) == [] and not (out / ".dishgraph-export-abc123").exists()


def test_a_failed_export_leaves_the_old_one_and_no_staging(small_db, tmp_path):
    from dishgraph.graph.export_neo4j import ExportError

    out = tmp_path / "out"
    _export(small_db, out)
    old = fingerprint(out)
    with LadybugStore(small_db, read_only=True) as s, pytest.raises(ExportError):
        export_neo4j_import(s, out, array_delimiter=",")
    with LadybugStore(small_db, read_only=True) as s, pytest.raises(RuntimeError, match="planted"):

        def boom(*a, **kw):
            raise RuntimeError("planted failure")

        export_tables(s, out, progress=boom)
    assert fingerprint(out) == old and leftovers(out) == []


# ------------------------------------------------------------------------------------ allow-list, fuzzed
NAMES = st.one_of(
    st.text(max_size=40),
    st.sampled_from(sorted(export_dir.generated_names())),
    st.builds(
        lambda a, b: a + b,
        st.sampled_from(["../", "/", "./", "~/", "..", "\x00", "Dish.parquet/"]),
        st.text(max_size=40),
    ),
)


@given(NAMES)
@settings(max_examples=400, derandomize=True, database=None, deadline=None)
def test_only_generated_names_are_written_and_only_inside_the_directory(tmp_path_factory, name):
    d = tmp_path_factory.mktemp("names")
    try:
        with export_dir.new_file(d, name) as fh:
            fh.write(b"x")
    except export_dir.ExportDirError:
        assert name not in export_dir.generated_names()
        assert list(d.iterdir()) == []
        return
    assert name in export_dir.generated_names() and "/" not in name and name not in (".", "..")
    assert [p.name for p in d.iterdir()] == [name]


@given(st.lists(NAMES.filter(lambda n: n and "/" not in n and "\x00" not in n and n not in (".", "..")), max_size=5))
@settings(max_examples=150, derandomize=True, database=None, deadline=None)
def test_a_directory_is_replaceable_only_if_every_entry_is_generated(tmp_path_factory, names):
    d = tmp_path_factory.mktemp("entries")
    for n in set(names):
        (d / n).write_bytes(b"")
    foreign = [n for n in names if n not in export_dir.generated_names()]
    if foreign:
        with pytest.raises(export_dir.ExportDirError, match="which no export writes"):
            export_dir.check_replaceable(d)
    else:
        export_dir.check_replaceable(d)
