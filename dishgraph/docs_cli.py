"""Markdown reference of every `dishgraph` command, walked from the typer app: ``python -m dishgraph.docs_cli > docs/cli.md``.

Commands register themselves from ``dishgraph/commands/*.py``, so the reference is generated, never written
by hand; ``tests/test_docs.py`` checks that every command has help text and an entry here.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Iterator

import typer


@dataclass
class CommandDoc:
    path: tuple[str, ...]        # ("dishgraph", "pivots", "mine")
    help: str
    usage: str
    params: list[dict] = field(default_factory=list)
    is_group: bool = False

    @property
    def name(self) -> str:
        return " ".join(self.path)


def _root():
    from dishgraph.cli import app

    return typer.main.get_command(app)


def walk(command=None, path: tuple[str, ...] = ("dishgraph",), parent=None) -> Iterator[CommandDoc]:
    """Every command and group, depth first, subcommands in name order (hidden ones left out)."""
    command = command or _root()
    ctx = command.context_class(command, info_name=path[-1], parent=parent, terminal_width=120,
                                max_content_width=120)  # usage lines wrap the same on every terminal
    usage = command.get_usage(ctx).replace("Usage: ", "", 1).strip()
    subs = getattr(command, "commands", None)
    yield CommandDoc(path, (command.help or "").strip(), usage,
                     [_param(p) for p in command.params if not getattr(p, "hidden", False)], subs is not None)
    for name in sorted(subs or {}):
        sub = subs[name]
        if not getattr(sub, "hidden", False):
            yield from walk(sub, path + (name,), ctx)


def _param(p) -> dict:
    is_option = bool(p.opts and p.opts[0].startswith("-"))
    names = ", ".join([*p.opts, *getattr(p, "secondary_opts", [])]) if is_option else p.name.upper()
    default = p.default if not callable(p.default) else None
    return {"name": names, "option": is_option, "help": (getattr(p, "help", None) or "").strip(),
            "required": bool(p.required), "default": default, "envvar": p.envvar}


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def render(commands: list[CommandDoc] | None = None) -> str:
    commands = commands if commands is not None else list(walk())
    out = ["# `dishgraph` command line", "",
           "Generated from the typer app by `python -m dishgraph.docs_cli > docs/cli.md`; do not edit by hand.",
           "Every command is a thin wrapper over one Python API call (see [python-api.md](python-api.md)).", ""]
    for c in commands:
        if len(c.path) > 1:
            out.append(f"- [`{c.name}`](#{_anchor(c.name)})" + (" (group)" if c.is_group else ""))
    out.append("")
    for c in commands:
        out += [f"## `{c.name}`", "", c.help or "(no help text)", "", "```text", c.usage, "```", ""]
        if c.params:
            out += ["| argument / option | description | default |", "| --- | --- | --- |"]
            for p in c.params:
                extra = " (required)" if p["required"] else ""
                if p["envvar"]:
                    extra += f" (env `{p['envvar']}`)"
                default = "" if p["default"] in (None, False, "", ()) else f"`{_cell(p['default'])}`"
                out.append(f"| `{_cell(p['name'])}` | {_cell(p['help'])}{extra} | {default} |")
            out.append("")
    return "\n".join(out)


def _anchor(title: str) -> str:
    """GitHub's heading anchor for `` `dishgraph a b` ``: lower case, spaces to dashes, punctuation dropped."""
    return "".join(ch for ch in title.lower().replace(" ", "-") if ch.isalnum() or ch in "-_")


def main() -> int:
    sys.stdout.write(render() + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
