"""Markdown reference of every `dishgraph` command, walked from the typer app.

``python -m dishgraph.docs_cli > docs/cli.md`` writes it.

Commands register themselves from ``dishgraph/commands/*.py``, so the reference is generated, never written
by hand; ``tests/test_docs.py`` checks that every command has help text and an entry here.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass, field

import typer


@dataclass
class CommandDoc:
    path: tuple[str, ...]  # ("dishgraph", "pivots", "mine")
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
    ctx = command.context_class(
        command, info_name=path[-1], parent=parent, terminal_width=120, max_content_width=120
    )  # usage lines wrap the same on every terminal
    usage = command.get_usage(ctx).replace("Usage: ", "", 1).strip()
    subs = getattr(command, "commands", None)
    yield CommandDoc(
        path,
        (command.help or "").strip(),
        usage,
        [_param(p) for p in command.params if not getattr(p, "hidden", False)],
        subs is not None,
    )
    for name in sorted(subs or {}):
        sub = subs[name]
        if not getattr(sub, "hidden", False):
            yield from walk(sub, path + (name,), ctx)


def _param(p) -> dict:
    is_option = bool(p.opts and p.opts[0].startswith("-"))
    names = ", ".join([*p.opts, *getattr(p, "secondary_opts", [])]) if is_option else p.name.upper()
    default = p.default if not callable(p.default) else None
    return {
        "name": names,
        "option": is_option,
        "help": (getattr(p, "help", None) or "").strip(),
        "required": bool(p.required),
        "default": default,
        "envvar": p.envvar,
    }


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def render(commands: list[CommandDoc] | None = None) -> str:
    commands = commands if commands is not None else list(walk())
    out = [
        "# `dishgraph` command line",
        "",
        "Generated from the typer app by `python -m dishgraph.docs_cli > docs/cli.md`; do not edit by hand.",
        "Every command is a thin wrapper over one Python API call (see [python-api.md](python-api.md)).",
        "",
    ]
    for c in commands:
        if len(c.path) > 1:
            out.append(f"- [`{c.name}`](#{_anchor(c.name)})" + (" (group)" if c.is_group else ""))
    out.append("")
    out += exit_code_section()
    out += writes_section()
    out += database_section()
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


def exit_code_section() -> list[str]:
    """Exit codes and the error contract, from `dishgraph.errors` (the codes live there, once)."""
    from dishgraph.errors import EXIT_CODES

    out = [
        "## Exit codes and errors",
        "",
        "Every command exits with one of these codes. An error is one line on stderr (`error: ...` or "
        "`usage error: ...`) naming the file and line (byte offset in the uncompressed stream of a damaged "
        "`.gz`) where there is one; never a traceback, unless `dishgraph --debug ...` or `DISHGRAPH_DEBUG=1` "
        "asks for it. Values from data (dish names, phrases, Cypher results) print literally.",
        "",
        "| code | meaning |",
        "| --- | --- |",
    ]
    out += [f"| {code} | {_cell(text)} |" for code, text in sorted(EXIT_CODES.items())]
    out += [
        "",
        "Input records that cannot be used (malformed JSON, nesting deeper than the stack, integers of more "
        "than 4,300 digits, bytes not in the file's encoding, a dish that is not text, a step list holding "
        "lists, a text of zero-width characters only, a line or JSON array element over 1 MiB, a recipe text "
        "over 20,000 characters, damage in a `.gz`) are skipped and counted by reason with `file:line`; every "
        "good record before and after them is stored, and the command exits 3. A file that yields no record at "
        "all is an error (exit 1). A recipe that parses into more than 2,000 steps keeps its first 2,000 "
        "(`truncated_steps`, named with `file:line`). Exact repeats of a record are left out and counted as "
        "`duplicates`; records a previous run loaded from the same line count as `already_loaded`.",
        "",
    ]
    return out


# The commands that change the graph database, and what they write. Every other command that takes --db / --uri
# opens it read-only: a command whose job is to show never writes (tests/test_names.py runs the readers on a
# real database and checks that its file is byte for byte unchanged, and that every command is classified).
WRITES = {
    "db init": "the schema (tables, constraints)",
    "db recover": "replays or discards what a killed writer left (shadow / WAL files)",
    "db reset": "deletes everything",
    "db shell": "only with --write (without it, a statement that could write is refused)",
    "demo": "everything: ingests the release and the corpus, mines, estimates, composes",
    "diner dataset": "dish-name components and the TMCD splits it makes",
    "diner load": "dish-name components (Component, Compound)",
    "diner split": "a TMCD Split (unless --names-file)",
    "explore": "only with --compute: USES frequencies, mined pivots, estimated order of the pair",
    "ingest corpus": "recipes, steps, proto-actions; refreshes derived knowledge",
    "ingest counterfactual": "the CRG release: dishes, pairs, recipes, glossary, reference pivots and constraints",
    "ingest pcs": "PizzaCommonSense recipes, steps, comestibles",
    "order estimate": "estimated MUST_PRECEDE edges",
    "order test": "tested MUST_PRECEDE edges (dish, family and global levels, with their evidence)",
    "pivots import-annotation": "annotated PIVOT edges",
    "pivots mine": "mined (or composed) PIVOT edges; --new-pair: the DishPair",
    "pivots validate-composed": "USES frequencies and dish-name components that are missing (nothing composed)",
    "sync": "the target database (--to); the source is only read",
}


def writes_section() -> list[str]:
    """Which commands write to the database (`WRITES`); every other one reads only."""
    out = [
        "## What writes to the database",
        "",
        "These commands change the graph database; every other command opens it read-only (or not at all), "
        "so showing something (`stats`, `pivots show`, `order show`, `explore`, `export`, ...) never changes it.",
        "",
        "| command | writes |",
        "| --- | --- |",
    ]
    out += [f"| `dishgraph {name}` | {_cell(what)} |" for name, what in sorted(WRITES.items())]
    return [*out, ""]


def database_section() -> list[str]:
    """What ``--db`` is, and what happens when another process holds the database: said once, here."""
    from dishgraph.graph.ladybug_store import DB_FILE
    from dishgraph.graph.lock import DEFAULT_WAIT

    return [
        "## The database (`--db`, `--wait`)",
        "",
        "`--db PATH` names the embedded LadybugDB database: one file (created by the first command that "
        f"writes) with `PATH.wal` and `PATH.lock` beside it, or a directory, which holds it as `DIR/{DB_FILE}`. "
        "Default: `$DISHGRAPH_DB`, else `$XDG_DATA_HOME/dishgraph/db` (`~/.local/share/dishgraph/db`). A path "
        "that is not a database "
        "(another kind of file) is an error naming it; a failed open leaves no `.lock` file behind. "
        "`--uri bolt://…` (or `$DISHGRAPH_URI`) uses a Neo4j server instead.",
        "",
        "Many readers share a database; a writer holds it alone. A command that finds it held waits, with a "
        "note on stderr naming the holder (PID, command line, since when), for up to "
        f"`dishgraph --wait SECONDS` (given before the command; `$DISHGRAPH_WAIT`; default {DEFAULT_WAIT:g} s, "
        "0 fails at once), then exits 5. A full disk is checked before each bulk load: too little space is "
        "an error naming the path, the space needed and the space free (exit 1), and the database keeps what "
        "its last checkpoint saved; `dishgraph db recover` finishes a checkpoint a kill interrupted and says "
        "`recovered` only once the leftover files are gone and the database reads.",
        "",
    ]


def _anchor(title: str) -> str:
    """GitHub's heading anchor for `` `dishgraph a b` ``: lower case, spaces to dashes, punctuation dropped."""
    return "".join(ch for ch in title.lower().replace(" ", "-") if ch.isalnum() or ch in "-_")


def main() -> int:
    sys.stdout.write(render() + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
