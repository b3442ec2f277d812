"""Nothing reaches the network unless asked: the README's commands run with every lookup or connection
that would leave the machine refused and counted by an LD_PRELOAD guard (tests/fixtures/netguard.c), so a
C++ library's own resolver call counts as much as Python's. The guard is checked to catch one first."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dishgraph.offline import OFFLINE_DEFAULTS

GUARD_SOURCE = Path(__file__).parent / "fixtures" / "netguard.c"
DISHGRAPH = [sys.executable, "-m", "dishgraph.cli"]


@pytest.fixture(scope="module")
def guard_lib(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build the network guard")
    lib = tmp_path_factory.mktemp("netguard") / "netguard.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", str(lib), str(GUARD_SOURCE), "-ldl"], check=True)
    return lib


@pytest.fixture
def guard(guard_lib, tmp_path):
    """The guard's library and this test's own log of refused attempts."""
    return guard_lib, tmp_path / "attempts.log"


def _run(guard, args, **kw):
    lib, log = guard
    env = os.environ | {"LD_PRELOAD": str(lib), "NETGUARD_LOG": str(log)}
    for name in OFFLINE_DEFAULTS:
        env.pop(name, None)  # dishgraph must set these itself
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=600, **kw)


def _attempts(guard) -> list[str]:
    log = guard[1]
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return [line for line in lines if not line.startswith(("/", "["))]  # frames of NETGUARD_TRACE=1 aside


def test_the_guard_catches_a_lookup_and_a_connection(guard, tmp_path):
    code = (
        "import socket\n"
        "lookup = lambda: socket.getaddrinfo('example.org', 443)\n"
        "for f in (lookup, lambda: socket.socket().connect(('192.0.2.1', 80))):\n"
        "    try: f()\n"
        "    except OSError: pass\n"
        "print(socket.getaddrinfo('localhost', 80)[0][4][0])\n"
    )
    done = _run(guard, [sys.executable, "-c", code])
    assert done.returncode == 0 and done.stdout.strip() in ("127.0.0.1", "::1")
    assert _attempts(guard) == ["getaddrinfo example.org", "connect 192.0.2.1"]


def test_readme_commands_make_no_outside_lookup(guard, tmp_path, data_dir):
    db = str(tmp_path / "db")
    commands = [
        ["ingest", "counterfactual", "--db", db, "--no-parse"],
        ["parse", "淋上生抽，放入包菜翻炒"],  # the LAC segmenter: onnxruntime
        ["stats", "--top", "3", "--db", db],
        ["pivots", "show", "白灼菜心", "白灼秋葵", "--limit", "5", "--db", db],
        ["order", "check", "白灼菜心", "菜心洗净。锅中放水烧开，放入菜心焯熟，捞出淋上生抽。", "--db", db],
        ["generate", "replace", "--instances", "first-per-pair", "--out", str(tmp_path / "replace.jsonl")],
        ["eval", "crg", str(tmp_path / "replace.jsonl")],  # where onnxruntime's telemetry was seen
        ["explore", "白灼菜心", "白灼秋葵", "-o", str(tmp_path / "pair.html"), "--db", db],
        ["db", "shell", "MATCH (d:Dish) RETURN count(d) AS n", "--db", db],
        ["ls", "generators"],
    ]
    for args in commands:
        done = _run(guard, [*DISHGRAPH, *args], cwd=tmp_path)
        assert done.returncode == 0, (args, done.stderr[-1500:])
        assert _attempts(guard) == [], args


def test_the_hub_switches_are_defaults_a_user_can_override():
    code = "import os, dishgraph; print(os.environ['HF_HUB_OFFLINE'], os.environ['HF_HUB_DISABLE_TELEMETRY'])"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["1", "1"]
    done = subprocess.run(
        [sys.executable, "-c", code], env=env | {"HF_HUB_OFFLINE": "0"}, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["0", "1"]
