"""The install fits a researcher's environment: every module dishgraph imports is declared (the core, or the
extra that `dishgraph.extras` names), the core needs none of the extras' modules for its commands, and a
command that needs an extra says which."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from functools import cache
from importlib.metadata import packages_distributions
from pathlib import Path

from dishgraph.extras import EXTRA_OF

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~\[;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


@cache  # read once for the module's tests (like the installed distributions' table below: seconds each)
def _imported_modules() -> frozenset[str]:
    found = set()
    for path in (ROOT / "dishgraph").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
    return frozenset(found - set(sys.stdlib_module_names) - {"dishgraph", "__future__"})


@cache
def _distributions() -> dict[str, list[str]]:
    return packages_distributions()


def test_every_imported_module_is_declared():
    core = {_name(r) for r in PYPROJECT["dependencies"]}
    extras = {k: {_name(r) for r in v} for k, v in PYPROJECT["optional-dependencies"].items()}
    dists = {m: {d.lower().replace("_", "-") for d in ds} for m, ds in _distributions().items()}
    undeclared = []
    for module in sorted(_imported_modules()):
        if module in EXTRA_OF:  # an extra's module: declared in that extra
            assert dists.get(module, {module}) & extras[EXTRA_OF[module]] or module in extras[EXTRA_OF[module]], module
            continue
        if not (dists.get(module, set()) & core):
            undeclared.append((module, sorted(dists.get(module, []))))
    assert not undeclared, f"imported but not declared in the core dependencies: {undeclared}"


def test_no_declared_core_dependency_goes_unused():
    imported = {d.lower().replace("_", "-") for m in _imported_modules() for d in _distributions().get(m, [])}
    unused = {_name(r) for r in PYPROJECT["dependencies"]} - imported
    assert not unused, f"declared but imported nowhere: {sorted(unused)}"


def _without_models(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """The CLI as a core install runs it: the models extra's modules cannot be imported."""
    blocked = sorted(m for m, extra in EXTRA_OF.items() if extra == "models")
    code = (
        "import sys\n"
        f"for name in {blocked!r}: sys.modules[name] = None\n"
        "from dishgraph.cli import app\n"
        "sys.argv = ['dishgraph', *sys.argv[1:]]\n"
        "app()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=os.environ | {"COLUMNS": "200"},
    )


def test_a_command_that_needs_an_extra_names_it_and_the_core_generators_run(tmp_path):
    done = _without_models(["generate", "replace", "--instances", "first-per-pair", "--out", "r.jsonl"], tmp_path)
    assert done.returncode == 0, done.stderr[-1500:]
    done = _without_models(["eval", "crg", "r.jsonl"], tmp_path)
    assert done.returncode == 0, done.stderr[-1500:]
    done = _without_models(["generate", "gpt2-d", "--model", "lm", "--out", "g.jsonl"], tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip().startswith("error: this needs ") and "pip install 'dishgraph[models]'" in done.stderr
    assert "Traceback" not in done.stderr
