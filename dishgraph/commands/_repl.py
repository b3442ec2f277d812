"""The interactive side of `dishgraph db shell` (no statement given, standard input a terminal).

A thin loop in the manner of cypher-shell: a prompt, statements over several lines until one ends with
``;``, ``:help`` / ``:exit`` / ``:param NAME=VALUE`` / ``:params``, readline editing with a history file
under the data home (``~/.local/share/dishgraph/shell_history``). Every statement goes through the same
read-only check and the same execute-and-render path as a statement given on the command line; an error is
one line and the loop goes on. Piped input keeps the old behaviour (the whole of stdin is one statement).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

PROMPT = "dishgraph> "
MORE = "         > "
HELP = """Cypher statements end with ';' and may span several lines.
  :help              this text
  :param NAME=VALUE  set $NAME (VALUE as JSON when it parses, else text)
  :params            the parameters set
  :exit, :quit       leave (Ctrl-D too; Ctrl-C drops the statement being typed)"""


def history_file() -> Path:
    from dishgraph.config import data_home

    return data_home() / "shell_history"


def _with_history(path: Path | None):
    """Readline with ``path`` as history; a no-op where readline is missing (the loop works without it)."""
    try:
        import readline
    except ImportError:  # pragma: no cover - every Linux Python has it
        return lambda: None
    if path is None:
        return lambda: None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            readline.read_history_file(path)
    except OSError:
        return lambda: None
    readline.set_history_length(1000)

    def save() -> None:
        try:
            readline.write_history_file(path)
        except OSError:
            pass

    return save


_PARAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_param(item: str) -> tuple[str, object]:
    """``NAME=VALUE``: VALUE as JSON when it parses, else the text itself. A missing name or ``=``, a name
    Cypher cannot spell as ``$NAME`` or an empty value is a usage error naming the item (it answered "not
    found" or a null before)."""
    from dishgraph.errors import UsageError

    name, eq, value = item.partition("=")
    name = name.strip()
    if not eq or not _PARAM_NAME.fullmatch(name):
        raise UsageError(f"parameter {item!r} is not NAME=VALUE (NAME as in $NAME: letters, digits, _)")
    if not value.strip():
        raise UsageError(f'parameter {name!r} has no value (give JSON: {name}=1, {name}="text", {name}=null)')
    try:
        return name, json.loads(value)
    except json.JSONDecodeError:
        return name, value.strip()


class Repl:
    """The loop: ``run(statement, params)`` executes and prints one statement (raising on failure),
    ``error(message)`` prints a one-line error, ``say(text)`` prints a line; ``read(prompt)`` is `input`."""

    def __init__(
        self,
        run: Callable[[str, dict], None],
        error: Callable[[BaseException], None],
        say: Callable[[str], None],
        read: Callable[[str], str] = input,
        params: dict | None = None,
    ):
        self.run, self.error, self.say, self.read = run, error, say, read
        self.params = dict(params or {})

    def command(self, line: str) -> bool:
        """A ``:command``; False when it ends the session."""
        word, _, rest = line.strip().partition(" ")
        if word in (":exit", ":quit"):
            return False
        if word == ":help":
            self.say(HELP)
        elif word == ":param" and "=" in rest:
            name, value = parse_param(rest)
            self.params[name] = value
        elif word == ":params":
            self.say(json.dumps(self.params, ensure_ascii=False) if self.params else "(no parameters)")
        else:
            self.say(f"unknown command {word!r}: :help lists them")
        return True

    def statement(self, text: str) -> None:
        from dishgraph.graph.ladybug_store import QueryAbandoned

        try:
            self.run(text, self.params)
        except QueryAbandoned:
            raise  # the statement would not stop: the process exits (exit 130)
        except KeyboardInterrupt:
            self.say("interrupted")  # Ctrl-C stopped the statement; the session goes on
        except Exception as e:  # noqa: BLE001 - one statement failed; the session goes on
            self.error(e)

    def loop(self) -> None:
        self.say("dishgraph Cypher shell: statements end with ';'; :help, :exit")
        lines: list[str] = []
        while True:
            try:
                line = self.read(MORE if lines else PROMPT)
            except EOFError:
                self.say("")
                return
            except KeyboardInterrupt:
                self.say("")
                lines = []
                continue
            if not lines and line.strip().startswith(":"):
                if not self.command(line):
                    return
                continue
            if not lines and not line.strip():
                continue
            lines.append(line)
            if line.rstrip().endswith(";"):
                text = "\n".join(lines).rstrip().removesuffix(";").strip()
                lines = []
                if text:
                    self.statement(text)


def interactive(run: Callable[[str, dict], None], error, say, params: dict, history: Path | None) -> None:
    """The loop on the terminal, with readline history kept between sessions."""
    save = _with_history(history)
    try:
        Repl(run, error, say, input, params).loop()
    finally:
        save()
