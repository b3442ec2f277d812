"""The output rule (dishgraph.outputs, dishgraph.cli_outputs): every output option of every command, found by
walking the typer app, refuses the database and its siblings, an input of the command, a link and a FIFO,
with exit 2 and a message naming the path; the database reads afterwards. Writers replace atomically."""

from __future__ import annotations

import inspect
import os
from pathlib import Path

import pytest
import typer
from click.testing import CliRunner

from dishgraph import outputs
from dishgraph.cli import app
from dishgraph.cli_outputs import OUTPUTS
from dishgraph.graph.ladybug_store import LadybugStore

ROOT = typer.main.get_command(app)  # built once: typer's runner rebuilds the whole tree per call (0.3 s)


def run(_app, args):
    return CliRunner().invoke(ROOT, args)


# Options whose help mentions writing but that are inputs.
NOT_OUTPUTS = {"diner prompts:answers"}


def _leaves(cmd, path=()):
    if hasattr(cmd, "commands"):
        for name, sub in cmd.commands.items():
            yield from _leaves(sub, (*path, name))
    else:
        yield " ".join(path), cmd


LEAVES = dict(_leaves(ROOT))


def _looks_like_output(cmd, param) -> bool:
    """An option named like an output, or a path/text option whose help says it is written (not --db)."""
    opts = set(getattr(param, "opts", ()))
    if opts & {"--out", "-o", "--json-out", "--png", "--plot", "--output-dir"}:
        return True
    ann = str(inspect.signature(cmd.callback).parameters[param.name].annotation)
    helptext = (getattr(param, "help", "") or "").lower()
    return param.name != "db" and ("Path" in ann or ann.startswith("str")) and "write" in helptext


def test_every_option_that_writes_is_under_the_rule():
    found = {
        f"{name}:{p.name}" for name, cmd in LEAVES.items() for p in cmd.params if _looks_like_output(cmd, p)
    } - NOT_OUTPUTS
    missing = sorted(found - set(OUTPUTS))
    assert not missing, f"output options not in cli_outputs.OUTPUTS: {missing}"
    stale = sorted(k for k in OUTPUTS if k.split(":")[0] not in LEAVES)
    assert not stale, f"OUTPUTS names commands that do not exist: {stale}"


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("outdb") / "db"
    with LadybugStore(path) as s:
        s.execute("CREATE (:Dish {name: $n})", {"n": "菜"})
    return path


def _args(cmd, out_param: str, out_value: str, dummy: Path, db: Path) -> list[str]:
    """A command line that parses: every required parameter gets a dummy, the output gets ``out_value``."""
    sig = inspect.signature(cmd.callback)
    args: list[str] = []
    for p in cmd.params:
        value: str | None = None
        if p.name == out_param:
            value = out_value
        elif p.name == "db":
            value = str(db)
        elif p.required:
            ann = str(sig.parameters[p.name].annotation) if p.name in sig.parameters else "str"
            value = str(dummy) if "Path" in ann else ("1" if ann in ("int", "float") else "x")
        if value is None:
            continue
        if p.param_type_name == "argument":
            args.append(value)
        else:
            args += [p.opts[0], value]
    return args


CASES = sorted(k for k in OUTPUTS if OUTPUTS[k] != "release")


@pytest.mark.parametrize("key", CASES)
def test_every_output_refuses_the_database_its_wal_a_link_and_a_fifo(key, db, tmp_path):
    name, param = key.split(":")
    cmd = LEAVES[name]
    dummy = tmp_path / "input.txt"
    dummy.write_text("x\n", encoding="utf-8")
    before = db.read_bytes()
    link = tmp_path / "link"
    victim = tmp_path / "victim"
    victim.write_text("precious", encoding="utf-8")
    link.symlink_to(victim)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    targets = [db, Path(f"{db}.wal"), Path(f"{db}.lock"), fifo]
    if OUTPUTS[key] == "file":
        targets.append(link)
    for target in targets:
        res = run(app, [*name.split(), *_args(cmd, param, str(target), dummy, db)])
        assert res.exit_code == 2, (key, target, res.output)
        assert str(target) in " ".join(res.output.split()), res.output
    assert db.read_bytes() == before and victim.read_text(encoding="utf-8") == "precious"
    assert not Path(f"{db}.wal").exists()
    with LadybugStore(db, read_only=True) as s:
        assert s.execute("MATCH (d:Dish) RETURN d.name AS n") == [{"n": "菜"}]


def test_an_output_may_not_replace_an_input_of_the_same_command(tmp_path, data_dir):
    src = tmp_path / "recipes.txt"
    src.write_text("a\n", encoding="utf-8")
    res = run(app, ["glossary", "build", str(src), "-o", str(src)])
    assert res.exit_code == 2 and "an input of this command" in res.output
    assert src.read_text(encoding="utf-8") == "a\n"
    release = data_dir / "counterfactual" / "base_recipes.txt"
    res = run(app, ["generate", "identity", "-o", str(release), "--data", str(data_dir)])
    assert res.exit_code == 2 and "data release" in " ".join(res.output.split())
    # an input given as text (a source name or a file): --pivots / --constraints / --vectors of eval l2
    pivots = tmp_path / "P.json"
    pivots.write_bytes((data_dir / "counterfactual" / "pivot_actions.json").read_bytes())
    for option in ("--pivots", "--constraints", "--vectors"):
        res = run(app, ["eval", "l2", str(src), option, str(pivots), "--json-out", str(pivots)])
        assert res.exit_code == 2 and f"an input of this command ({option})" in " ".join(res.output.split())
    assert pivots.read_bytes() == (data_dir / "counterfactual" / "pivot_actions.json").read_bytes()


def test_system_files_and_directories_are_refused(tmp_path):
    for bad in ("/proc/self/status", "/dev/null", str(tmp_path)):
        with pytest.raises(outputs.OutputRefused, match="^" + bad.split("/self")[0]):
            outputs.check_output(bad)


def test_atomic_write_replaces_a_link_planted_meanwhile_never_its_target(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious", encoding="utf-8")
    target = tmp_path / "out.json"
    with pytest.raises(outputs.OutputRefused, match="symbolic link"), outputs.atomic_write(target) as fh:
        fh.write("new")
        target.symlink_to(victim)  # planted between the check and the rename: checked again, refused
    assert victim.read_text(encoding="utf-8") == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json", "victim"]  # no temporary file left


def test_atomic_write_leaves_the_old_file_on_an_error(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError), outputs.atomic_write(target) as fh:
        fh.write("half")
        raise RuntimeError("killed")
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_an_open_store_protects_its_database_from_library_writers(tmp_path):
    path = tmp_path / "db"
    with LadybugStore(path):
        with pytest.raises(outputs.OutputRefused, match="database"):
            outputs.write_text(path, "<html>")
        with pytest.raises(outputs.OutputRefused, match="database"):
            outputs.write_text(Path(f"{path}.wal"), "x")
    outputs.write_text(tmp_path / "other.html", "ok")


def test_the_rule_holds_however_the_cli_is_started(db, tmp_path):
    """`python -m dishgraph.cli` names its root "python -m dishgraph.cli": the rule must not depend on it."""
    import subprocess
    import sys

    victim = tmp_path / "notes.txt"
    victim.write_text("precious", encoding="utf-8")
    cmd = [sys.executable, "-m", "dishgraph.cli", "glossary", "build", str(victim), "-o", str(victim)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "an input of this command" in p.stderr, p.stderr
    assert victim.read_text(encoding="utf-8") == "precious"


def test_a_lock_file_that_is_a_link_is_refused_and_its_target_kept(tmp_path):
    from dishgraph.errors import DatabaseError

    db = tmp_path / "db"
    LadybugStore(db).close()
    victim = tmp_path / "victim"
    victim.write_text("precious", encoding="utf-8")
    Path(f"{db}.lock").unlink(missing_ok=True)
    Path(f"{db}.lock").symlink_to(victim)
    with pytest.raises(DatabaseError, match="lock file is a symbolic link"):
        LadybugStore(db)
    assert victim.read_text(encoding="utf-8") == "precious"


def test_a_device_is_no_database():
    from dishgraph.errors import DatabaseError

    with pytest.raises(DatabaseError, match="not a regular file"):
        LadybugStore("/dev/null", read_only=True)
    assert not os.path.exists("/dev/null.lock")


def test_a_fifo_or_a_device_where_a_whole_file_is_read_is_refused(tmp_path):
    """A FIFO blocked forever and /dev/zero grew past 3 GB where a command reads its input whole (JSON, a
    pickle, the lines twice); `ingest corpus` streams, so its FIFO stays a feature (tests/test_streams.py)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for args in (
        ["eval", "l2", "/dev/zero"],
        ["eval", "l2", str(tmp_path / "x.txt"), "--pivots", str(fifo)],
        ["ingest", "pcs", str(fifo), "--db", str(tmp_path / "db")],
        ["pivots", "import-annotation", str(fifo), "--db", str(tmp_path / "db")],
    ):
        if "x.txt" in " ".join(args):
            (tmp_path / "x.txt").write_text("a\n", encoding="utf-8")
        res = run(app, args)
        assert res.exit_code == 2 and "not a regular file; this input is read whole" in res.output, args
