"""Nothing a command prints can drive the terminal: control characters in data are shown escaped.

The rule is an allow-list (printable characters pass, everything else is escaped), fuzzed here with
hypothesis over all of Unicode, through the consoles every command prints with, the result tables and the
one-line error edge; then through real commands whose data carries ESC/CSI/OSC sequences.
"""

from __future__ import annotations

import io
import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.text import Text
from typer.testing import CliRunner

from dishgraph.cli import app
from dishgraph.commands._tables import RowsTable
from dishgraph.terminal_text import escape_controls, is_terminal_safe, safe_console

HOSTILE = [
    "\x1b[2J\x1b[H",  # CSI: clear the screen, cursor home
    "\x1b]0;owned\x07",  # OSC: set the window title
    "\x1b]8;;http://x.invalid\x1b\\link\x1b]8;;\x1b\\",  # OSC 8 hyperlink
    "\x9b31m",  # C1 CSI
    "\u202eevil\u202c",  # bidi override
    "\u2066x\u2069\u200b\u2028",  # isolates, zero width space, line separator
    "\x00\x08\x7f\r",
]
# Text with the hostile characters mixed into ordinary (CJK) text.
texts = st.lists(st.one_of(st.text(), st.sampled_from(HOSTILE), st.sampled_from(["白灼菜心", "切|洋葱|", " "])))
SGR = re.compile(r"\x1b\[[0-9;]*m")  # the console's own styling (colour on a terminal)


def _safe_output(text: str) -> bool:
    return is_terminal_safe(SGR.sub("", text), keep="\n")


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_escaped_text_is_printable_and_printable_text_is_unchanged(s):
    out = escape_controls(s)
    assert is_terminal_safe(out)
    assert (out == s) == s.isprintable()
    assert escape_controls(s, keep="\n").count("\n") == s.count("\n")


def test_escapes_name_the_character():
    assert escape_controls("a\x1b[31mb") == "a\\x1b[31mb"
    assert escape_controls("\u202eabc") == "\\u202eabc" and escape_controls("\U000e0001") == "\\U000e0001"
    assert escape_controls("白灼菜心 切|洋葱|") == "白灼菜心 切|洋葱|"


@settings(max_examples=150, deadline=None)
@given(texts, st.booleans())
def test_consoles_print_nothing_the_terminal_acts_on(parts, colour):
    s = "".join(parts)
    buf = io.StringIO()
    con = safe_console(file=buf, force_terminal=colour, color_system="standard" if colour else None, width=80)
    con.print(s)
    con.print(Text.assemble(("error:", "bold red"), " ", s))
    con.print(RowsTable([{"dish": s, "n": 1.5}, {"dish": "x", "n": None}], title=s, headers={"dish": s}))
    assert _safe_output(buf.getvalue()), ascii(buf.getvalue())


def test_cli_error_edge_escapes_the_message(capsys):
    from dishgraph.cli_errors import report

    report((1, "no dish \x1b]0;owned\x07 \u202eabc"))
    err = capsys.readouterr().err
    assert "\x1b]" not in err and "\\x1b]0;owned\\x07" in err and "\\u202eabc" in err


def test_diner_parse_prints_a_hostile_name_escaped():
    name = "宫保\x1b[2J\x1b]0;owned\x07虾球\u202e"
    res = CliRunner().invoke(app, ["diner", "parse", name])
    assert res.exit_code == 0, res.output
    assert _safe_output(res.output), ascii(res.output)
    assert "\\x1b[2J" in res.output and "\\u202e" in res.output
    res = CliRunner().invoke(app, ["diner", "parse", name, "--json"])  # JSON stays the data itself
    assert json.loads(res.stdout)["parses"][0]["name"] == name


def test_corpus_warning_names_a_hostile_file_escaped(tmp_path):
    path = tmp_path / "bad\x1b[2J\u202e.jsonl"
    good = json.dumps(
        {"dish": "白灼\x1b]0;x\x07菜心", "text": "菜心洗净，锅中放水烧开，放入菜心焯熟。"}, ensure_ascii=False
    )
    path.write_text(good + '\n{"dish": "x", "text": "broken\n', encoding="utf-8")
    db = str(tmp_path / "db")
    res = CliRunner().invoke(app, ["ingest", "corpus", str(path), "--db", db, "--workers", "1"])
    assert res.exit_code == 3, res.output  # finished with skipped input
    assert _safe_output(res.output), ascii(res.output)
    assert "bad\\x1b[2J\\u202e.jsonl" in " ".join(res.output.split())
    res = CliRunner().invoke(app, ["stats", "--db", db])
    assert res.exit_code == 0 and _safe_output(res.output), ascii(res.output)  # (ingest drops controls, too)
    assert "白灼" in res.output
