"""Test scaffolding stays out of the runtime: no module of ``dishgraph`` outside ``dishgraph.testing`` imports it."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "dishgraph"


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_runtime_modules_do_not_import_testing():
    offenders = sorted(
        str(p.relative_to(PACKAGE))
        for p in PACKAGE.rglob("*.py")
        if "testing" not in p.relative_to(PACKAGE).parts
        and any(n == "dishgraph.testing" or n.startswith("dishgraph.testing.") for n in _imports(p))
    )
    assert offenders == []
