"""The shape of the command line (#18 §1): every command is thin, registration is plain typer, errors are
raised and mapped at the edge. Static checks on the source; no command is run."""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from pathlib import Path

from typer.main import get_command

from dishgraph.cli import app
from dishgraph.cli_errors import DishgraphGroup

MAX_BODY = 25  # lines of a command's body: parse options, one library call, render the result
COMMANDS = Path(__file__).resolve().parents[1] / "dishgraph" / "commands"
CLI = COMMANDS.parent / "cli.py"


def _commands(group, prefix: str = ""):
    for name, cmd in sorted(group.commands.items()):
        if hasattr(cmd, "commands"):  # a group
            yield from _commands(cmd, f"{prefix}{name} ")
        elif cmd.callback is not None:
            yield f"{prefix}{name}", cmd.callback


def body_lines(fn) -> int:
    """Lines of a function's body after its signature and docstring, one statement a line.

    Counted on ``ast.unparse``, not on the file: the formatter spreads one call over a line per keyword
    argument, which makes a command no thicker."""
    src = textwrap.dedent(inspect.getsource(inspect.unwrap(fn)))
    body = ast.parse(src).body[0].body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return sum(len(ast.unparse(stmt).splitlines()) for stmt in body)


def test_every_command_body_is_short():
    lengths = {name: body_lines(fn) for name, fn in _commands(get_command(app))}
    assert len(lengths) >= 60  # the whole tree was walked
    long = {n: k for n, k in lengths.items() if k > MAX_BODY}
    assert not long, f"commands over {MAX_BODY} lines: move the work into a library call: {long}"


def test_registration_is_plain_typer():
    cli = CLI.read_text(encoding="utf-8")
    for word in ("TOP_LEVEL", "EXTRA", "GROUP_NAME", "_group_exists", "pkgutil", "import_module"):
        assert word not in cli, word
    for path in COMMANDS.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"^(TOP_LEVEL|EXTRA|GROUP_NAME)\s*=", text, re.M), path.name
        assert not re.search(r"__name__\s*=|__name__,", text), f"{path.name}: name commands with app.command(NAME)"


def test_every_group_maps_errors_at_the_edge():
    """Each group's click class is DishgraphGroup, so a group app invoked on its own maps errors too."""
    root = get_command(app)
    assert isinstance(root, DishgraphGroup)
    groups = [c for c in root.commands.values() if hasattr(c, "commands")]
    assert groups and all(isinstance(g, DishgraphGroup) for g in groups)


def test_commands_raise_instead_of_printing_errors():
    for path in COMMANDS.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "print_error" not in text and '"error:"' not in text, f"{path.name}: raise, let cli_errors print"
        assert '"crg-release"' not in text, f"{path.name}: use dishgraph.ingest.crg.SOURCE"
