"""Answers that say what they rest on: a reader names the fields it found, tables repeat their key columns
and drop empty ones, integers print as integers."""

from __future__ import annotations

import io

from rich.console import Console

from dishgraph.commands._common import rows_table
from dishgraph.ingest.readers import ReadReport, read_corpus


def render(table, width: int = 80) -> str:
    """What a pipe gets at ``width`` columns (as test_output renders)."""
    console = Console(file=io.StringIO(), markup=False, force_terminal=False, width=width)
    console.print(table)
    return console.file.getvalue()


def boxes(text: str) -> list[list[str]]:
    """The lines of each drawn table, top border first."""
    out: list[list[str]] = []
    for line in text.splitlines():
        if line[:1] in "┏┌":
            out.append([line])
        elif out and line[:1] in "┃│┡├└┗":
            out[-1].append(line)
    return out


def test_a_record_without_the_dish_field_lists_the_fields_found(tmp_path):
    f = tmp_path / "named.jsonl"
    f.write_text('{"name": "拍黄瓜", "steps": ["黄瓜拍碎", "加蒜"]}\n', encoding="utf-8")
    rep = ReadReport()
    assert list(read_corpus(f, report=rep)) == []
    assert "no usable 'dish' field; its fields: name, steps (name the dish's with --dish-field)" in rep.messages[0]
    assert [r.dish for r in read_corpus(f, dish_field="name")] == ["拍黄瓜"]


def test_split_tables_repeat_the_key_columns_a_command_names():
    """`order check`'s violations at 80 columns: every part shows cause and effect, not cause alone."""
    rows = [
        {
            "cause": f"切|洋葱+青椒+胡萝卜{i}|刀",
            "cause_pos": 7,
            "cause_phrase": "把洋葱、青椒和胡萝卜切成细丝备用",
            "effect": "淋|油+酱油+香油|",
            "effect_pos": 2,
            "effect_phrase": "淋上热油、酱油和几滴香油拌匀",
            "ate": 0.4123,
            "sources": ["estimated", "crg-release"],
        }
        for i in range(8)
    ]
    cols = list(rows[0])
    parts = boxes(render(rows_table(rows, "violated", cols, keys=["cause", "effect"])))
    assert len(parts) >= 2
    for box in parts:
        assert "cause " in box[1] and "effect " in box[1], box[1]


def test_integers_print_as_integers_among_floats_and_empty_columns_are_left_out():
    rows = [
        {"metric": "Hard F1", "replace": 13.27, "unknown": None},
        {"metric": "Scored", "replace": 1186, "unknown": None},
    ]
    text = render(rows_table(rows, "CRG"))
    assert "1186.00" not in text and "1186" in text and "13.27" in text
    assert "unknown" not in boxes(text)[0][1] and "not shown, no value in any row: unknown" in text
    single = render(rows_table(rows[:1], "one record"))  # a single record keeps its "—": it says what is missing
    assert "unknown" in single and "—" in single


def test_help_is_wrapped_by_the_terminal_not_by_the_docstring():
    """At a wide terminal a paragraph of help is one line: no sentence broken where the source's line ended."""
    from typer.testing import CliRunner

    from dishgraph.cli import app
    from dishgraph.cli_help import reflow

    out = CliRunner().invoke(app, ["db", "shell", "--help"], env={"COLUMNS": "400"}).output
    assert "on the embedded database (LadybugDB), `CALL db.labels()` and" in out, out
    assert reflow("One\ntwo.\n\nList:\n- a\n  more a\n- b\n\n\bkept\nas is") == (
        "One two.\n\nList:\n- a more a\n- b\n\n\bkept\nas is"
    )


def test_a_misspelled_file_or_folder_is_answered_with_the_nearest_name(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from dishgraph.cli import app
    from dishgraph.errors import nearest_path

    (tmp_path / "report").mkdir()
    (tmp_path / "report" / "replace.txt").write_text("x\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert nearest_path("repot/replace.txt") == "; did you mean report/replace.txt?"
    assert nearest_path("report/replac.txt") == "; did you mean report/replace.txt?"
    assert nearest_path("nothing/like/it.txt") == ""
    res = CliRunner().invoke(app, ["eval", "crg", "repot/replace.txt"])
    assert res.exit_code != 0 and "did you mean report/replace.txt?" in res.output
