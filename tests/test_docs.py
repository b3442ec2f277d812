"""The documentation runs and is complete: every block of docs/python-api.md executes in order against a
fresh database built from the real release, every public DishGraph method has an example there, and every
CLI command has help text and an entry in the generated docs/cli.md."""

from __future__ import annotations

import contextlib
import io
import re
import tempfile
from pathlib import Path

import pytest

from dishgraph import DishGraph
from dishgraph.docs_cli import render, walk

DOCS = Path(__file__).resolve().parent.parent / "docs"


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", path.read_text(encoding="utf-8"), re.S | re.M)


def python_blocks_and_outputs(path: Path) -> list[tuple[str, str | None]]:
    """Each python block with the ```text block that follows it under "Output:" (None where none does)."""
    found = re.findall(
        r"^```python\n(.*?)^```\n(?:\s*Output:\s*\n```text\n(.*?)^```)?", path.read_text(encoding="utf-8"), re.S | re.M
    )
    return [(code, out or None) for code, out in found]


EXPECT = re.compile(r"#\s*->\s*(.+?)\s*$")


def _matches(expected: str, line: str) -> bool:
    """``expected`` with "…" standing for any text (a value that varies, or one too long to show)."""
    pattern = ".*".join(re.escape(part) for part in expected.strip().split("…"))
    return re.fullmatch(pattern, line.strip()) is not None


def stated_values(code: str) -> list[str]:
    """The ``# -> value`` comments of a block: what its print calls print, in order."""
    return [m.group(1) for line in code.splitlines() if (m := EXPECT.search(line))]


def check_stated(block: int, code: str, printed: str, output: str | None) -> list[str]:
    """Where the page's stated values disagree with what the block printed (an empty list: none)."""
    lines = printed.splitlines()
    wrong, at = [], 0
    for value in stated_values(code):
        hit = next((i for i in range(at, len(lines)) if _matches(value, lines[i])), None)
        if hit is None:
            wrong.append(f"block {block}: states {value!r}, printed {lines[at:]!r}")
        else:
            at = hit + 1
    if output is not None:
        want = output.rstrip("\n").splitlines()
        if len(want) != len(lines) or not all(_matches(w, got) for w, got in zip(want, lines)):
            wrong.append(f"block {block}: Output block {want!r}, printed {lines!r}")
    return wrong


def public_methods() -> list[str]:
    return sorted(n for n in vars(DishGraph) if not n.startswith("_"))


def test_every_public_dishgraph_method_has_an_example():
    code = "\n".join(python_blocks(DOCS / "python-api.md"))
    missing = [n for n in public_methods() if not re.search(rf"\.{n}\b", code)]
    assert not missing, f"docs/python-api.md has no example of DishGraph.{missing}"
    assert "with DishGraph.open(" in code  # the context-manager form


def test_python_api_doc_runs_in_order(monkeypatch, tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the doc's mkdtemp lands in pytest's tmp dir
    ns: dict = {"__name__": "python_api_doc"}
    blocks = python_blocks_and_outputs(DOCS / "python-api.md")
    assert len(blocks) >= 12 and sum(len(stated_values(code)) for code, _ in blocks) >= 15
    wrong: list[str] = []
    try:
        for i, (block, output) in enumerate(blocks):
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(block, f"docs/python-api.md block {i + 1}", "exec"), ns)
            wrong += check_stated(i + 1, block, printed.getvalue(), output)
    finally:
        g = ns.get("g")
        if isinstance(g, DishGraph) and getattr(g.store, "_conn", None) is not None:
            g.close()
    # Real values of the release, reached through the doc's own variables.
    assert ns["report"].pairs == 50 and ns["parsed"].recipes == 100
    assert ns["res"].counts()["remove"] > 0 and len(ns["results"]) == 50
    assert ns["rep"].to_dict()["totals"]["constraints"] > 0
    assert not wrong, "docs/python-api.md states values its blocks do not print:\n" + "\n".join(wrong)


def test_stated_values_are_compared():
    code = "print(1)  # -> 1\nprint({'a': 306})  # -> {'a': 30…}\n"
    assert check_stated(1, code, "1\n{'a': 306}\n", None) == []
    assert check_stated(1, code, "1\n{'a': 429}\n", None)  # a changed value is caught
    assert check_stated(1, "print(2)", "2\n", "3\n")  # so is an Output block that no longer holds


@pytest.fixture(scope="module")
def commands():
    return list(walk())


def test_every_command_has_help(commands):
    assert len(commands) > 40
    assert not [c.name for c in commands if not c.help.strip()]
    names = {c.name for c in commands}
    assert {"dishgraph explore", "dishgraph sync", "dishgraph pivots mine", "dishgraph ingest counterfactual"} <= names


def test_every_command_has_a_cli_md_entry(commands):
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^## `(dishgraph[^`]*)`$", text, re.M))
    names = {c.name for c in commands}
    assert not names - documented, (
        f"regenerate docs/cli.md (python -m dishgraph.docs_cli > docs/cli.md): missing {sorted(names - documented)}"
    )
    assert not documented - names, f"docs/cli.md documents commands that no longer exist: {sorted(documented - names)}"
    for c in commands:  # the entry carries the command's current help text
        assert c.help.strip().split("\n")[0] in text, c.name


def test_cli_md_is_the_current_rendering(commands):
    """The whole file, not only each command's first help line: an option's help changed without
    regenerating (the `--instances spread:N` text once) is caught too."""
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert text == render(commands) + "\n", "regenerate docs/cli.md: python -m dishgraph.docs_cli > docs/cli.md"


def test_generated_reference_lists_options():
    text = render()
    entry = text[text.index("## `dishgraph sync`") :]
    entry = entry[: entry.index("\n## ")]
    for opt in ("--to", "--db", "--user", "--password", "--batch", "--json"):
        assert f"`{opt}`" in entry


def test_no_issue_numbers_or_project_history_for_users():
    """Issue numbers mean nothing to a user: none in the README, the docs or any command's help."""
    import re

    root = Path(__file__).resolve().parent.parent
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"(?<![\w&])#\d{1,3}\b|\bissues? #|\bstop \d+\b", text), page.name


def test_readme_is_a_front_door():
    """A newcomer reads it in five minutes: short, and every doc it points to exists."""
    import re

    root = Path(__file__).resolve().parent.parent
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    for link in re.findall(r"\]\(([^)#]+)\)", readme):
        assert (root / link).exists(), link
