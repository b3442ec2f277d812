"""`dishgraph db shell` on a terminal: a prompt, statements over several lines until ';', :help, :param,
:exit, history kept; an error is one line and the session goes on. Piped stdin stays one statement."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dishgraph.cli import app
from dishgraph.commands._repl import MORE, PROMPT, Repl


def _drive(lines: list[str]):
    feed = iter(lines)
    prompts, ran, errors, said = [], [], [], []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    def run(text: str, params: dict) -> None:
        if "boom" in text:
            raise RuntimeError("Cypher: boom")
        ran.append((text, dict(params)))

    Repl(run, errors.append, said.append, read).loop()
    return prompts, ran, errors, said


def test_statements_span_lines_until_a_semicolon():
    prompts, ran, errors, said = _drive(["MATCH (d:Dish)", "", "RETURN d.name;", "RETURN 1 AS x ;"])
    assert ran == [("MATCH (d:Dish)\n\nRETURN d.name", {}), ("RETURN 1 AS x", {})]
    assert prompts[:3] == [PROMPT, MORE, MORE] and prompts[3] == PROMPT
    assert not errors


def test_commands_params_errors_and_exit():
    prompts, ran, errors, said = _drive(
        [
            ":help",
            ':param dish="白灼菜心"',
            ":param n=3",
            ":params",
            "RETURN boom;",
            ":nope",
            "RETURN $n;",
            ":exit",
            "X;",
        ]
    )
    assert any(":exit" in s for s in said) and any("unknown command ':nope'" in s for s in said)
    assert any('"dish": "白灼菜心"' in s and '"n": 3' in s for s in said)
    assert [str(e) for e in errors] == ["Cypher: boom"]  # the failed statement did not end the session
    assert ran == [("RETURN $n", {"dish": "白灼菜心", "n": 3})]  # nothing after :exit runs


def test_ctrl_d_ends_and_ctrl_c_drops_the_statement_being_typed():
    lines = iter(["MATCH (d)", KeyboardInterrupt, "RETURN 2;"])
    ran = []

    def read(prompt: str) -> str:
        item = next(lines, EOFError)
        if isinstance(item, type) and issubclass(item, BaseException):
            raise item
        return item

    Repl(lambda text, p: ran.append(text), print, lambda s: None, read).loop()
    assert ran == ["RETURN 2"]


def _empty_db(tmp_path) -> str:
    from dishgraph.graph.ladybug_store import LadybugStore

    db = tmp_path / "db"
    s = LadybugStore(db)
    s.init_schema()
    s.bulk_load_nodes("Dish", [{"name": "白灼菜心"}, {"name": "白灼秋葵"}])
    s.close()
    return str(db)


def test_shell_on_a_terminal_prompts_and_keeps_history(tmp_path):
    db = _empty_db(tmp_path)
    master, slave = os.openpty()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "home"), "COLUMNS": "80", "PYTHONPATH": os.getcwd()}
    proc = subprocess.Popen(
        [sys.executable, "-m", "dishgraph.cli", "db", "shell", "--db", db],
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        text=True,
    )
    os.close(slave)
    script = "MATCH (d:Dish)\nRETURN count(*) AS dishes;\nCREATE (:Dish {name: 'x'});\n:exit\n"
    for line in script.splitlines(keepends=True):
        os.write(master, line.encode())
        time.sleep(0.05)
    try:
        out, _ = proc.communicate(timeout=120)
    finally:
        os.close(master)
    assert proc.returncode == 0, out
    assert PROMPT.strip() in out and "dishes" in out and "2" in out
    assert "CREATE refused: the database is open read-only" in out  # one line, and the session went on:
    assert out.rindex(PROMPT.strip()) > out.index("CREATE refused")  # a prompt after the error
    assert (tmp_path / "home" / "dishgraph" / "shell_history").exists()
    res = CliRunner().invoke(app, ["db", "shell", "--db", db, "--json"], input="MATCH (d:Dish) RETURN count(*) AS n")
    assert res.exit_code == 0 and '"n": 2' in res.output  # piped stdin: one statement, as before


def test_two_statements_on_the_command_line_print_two_results(tmp_path):
    db = _empty_db(tmp_path)
    text = "MATCH (d:Dish) RETURN count(*) AS n; RETURN 'a;b' AS s // a comment; not a statement"
    res = CliRunner().invoke(app, ["db", "shell", text, "--db", db])
    assert res.exit_code == 0, res.output
    assert "statement 1 of 2" in res.output and "statement 2 of 2" in res.output and "a;b" in res.output
    res = CliRunner().invoke(app, ["db", "shell", text, "--db", db, "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout) == [[{"n": 2}], [{"s": "a;b"}]]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(
            st.sampled_from(["MATCH", " ", "RETURN", "(d)", "1", "'x;y'", '"z;w"', "`n;m`", "'菜'", "/* c;c */", ","]),
            min_size=1,
        ).map("".join),
        min_size=1,
        max_size=4,
    )
)
def test_split_text_splits_only_at_semicolons_outside_literals(parts):
    from dishgraph.graph.readonly import split_text

    parts = [p for p in parts if p.strip()]
    # each part is free of bare semicolons by construction (they only occur inside literals and comments)
    assert split_text(" ; ".join(parts) + ";") == [p.strip() for p in parts]


def test_xdg_data_home_moves_the_default_database_and_the_history_together(tmp_path, monkeypatch):
    from dishgraph import config
    from dishgraph.commands._repl import history_file

    monkeypatch.delenv("DISHGRAPH_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert config.db_path() == tmp_path / "data" / "dishgraph" / "db"
    assert history_file() == tmp_path / "data" / "dishgraph" / "shell_history"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert config.cache_home() == tmp_path / "cache" / "dishgraph"


def test_shell_edges_are_usage_errors_in_one_line(tmp_path):
    """A parameter without a name or a value, a parameter the statement uses but nobody gave (the engine read
    it as null), invalid UTF-8 on stdin and out-of-range limits: exit 2 with one line, never a dump."""
    db = _empty_db(tmp_path)
    runner = CliRunner()
    cases = [
        (["RETURN $x AS x", "-p", "=1"], "parameter '=1' is not NAME=VALUE"),
        (["RETURN $x AS x", "-p", "x="], "parameter 'x' has no value"),
        (["RETURN $x AS x, $y AS y", "-p", "x=1"], "uses $y but no value was given (-p y=VALUE)"),
        (["RETURN 1", "--timeout", "inf"], "--timeout"),
        (["RETURN 1", "--memory-mb", "99999999999999"], "--memory-mb"),
    ]
    for args, message in cases:
        res = runner.invoke(app, ["db", "shell", *args, "--db", db])
        assert res.exit_code == 2 and message in res.output, (args, res.output)
        assert "Traceback" not in res.output and "OverflowError" not in res.output
    res = runner.invoke(app, ["db", "shell", "--db", db], input=b'RETURN "\xff" AS x')
    assert res.exit_code == 2 and "stdin: not valid UTF-8 (byte 0xff at offset 8)" in res.output
    res = runner.invoke(app, ["db", "shell", "RETURN $x AS x, '$y' AS y", "-p", "x=1", "--db", db, "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout) == [{"x": 1, "y": "$y"}]
    res = runner.invoke(app, ["stats", "--top", "-1", "--db", db])
    assert res.exit_code == 2 and "--top" in res.output
