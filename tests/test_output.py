"""Issue #18 §6: result tables stay readable at 80 columns and when not a TTY (no cell cut to "…")."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.cells import cell_len
from rich.console import Console
from typer.testing import CliRunner

from dishgraph.cli import app
from dishgraph.commands._common import rows_table
from dishgraph.commands._tables import MISSING, format_cell
from dishgraph.eval.crg import COLUMNS, missing_notes

ROOT = Path(__file__).resolve().parents[1]
FAIR = json.loads((ROOT / "benchmarks/results/generators_fair.json").read_text(encoding="utf-8"))["rows"]
CORNERS = {"┏": "┛┓┘┐", "┌": "┘┐"}


def render(table, width: int = 80, markup: bool = False, monkeypatch=None) -> str:
    """What a pipe or a file gets: a console that is not a terminal, its width from $COLUMNS as in a shell."""
    if monkeypatch is not None:
        monkeypatch.setenv("COLUMNS", str(width))
    console = Console(file=io.StringIO(), markup=markup, force_terminal=False, width=None if monkeypatch else width)
    assert not console.is_terminal and console.width == width
    console.print(table)
    return console.file.getvalue()


def boxes(text: str) -> list[list[str]]:
    """The lines of each drawn table (top border to bottom border)."""
    out, cur = [], None
    for line in text.splitlines():
        if line[:1] in CORNERS:
            cur = [line]
        elif cur is not None:
            cur.append(line)
            if line[:1] in "└┗":
                out.append(cur)
                cur = None
    return out


def borders(line: str) -> tuple[int, ...]:
    """Screen columns of the vertical rules in one line (a CJK character takes two)."""
    return tuple(cell_len(line[:i]) for i, ch in enumerate(line) if ch in "│┃")


def assert_readable(text: str, width: int = 80) -> None:
    assert "…" not in text
    assert all(cell_len(line) <= width for line in text.splitlines()), text
    for box in boxes(text):  # every row of a table has its borders at the same places
        assert len({cell_len(line) for line in box}) == 1, "\n".join(box)
        seps = {borders(line) for line in box if line[:1] in "│┃"}
        assert len(seps) == 1, "\n".join(box)


def test_wide_table_at_80_columns_not_a_tty_keeps_every_number(monkeypatch):
    rows = [
        {
            "run": f"run-{i}",
            **{f"metric_{k}": 1234567.891 * (i + 1) / (k + 1) for k in range(12)},
            "instances": 2500 + i,
            "note": "a sentence long enough to need wrapping at eighty columns",
        }
        for i in range(9)
    ]
    text = render(rows_table(rows, "a wide table"), 80, monkeypatch=monkeypatch)
    assert_readable(text)
    for r in rows:
        for v in r.values():
            if not isinstance(v, str):
                assert format_cell(v) in text, format_cell(v)
        assert text.count(r["run"]) >= 2  # the key column is repeated in each part of the split
    assert "metric_11" in text and "a wide table (1/" in text


def test_crg_results_table_of_the_demo_at_80_columns():
    """The demo's results rows (one results.json) at 80 columns: one table, metrics down, all figures in full,
    None as "—" with the reason under the table."""
    rows = [r for r in FAIR if r["model"] in ("identity", "replace", "graph")]
    text = render(
        rows_table(rows, "CRG evaluation (%, 2,500 instances)", headers=dict(COLUMNS), notes=missing_notes(rows))
    )
    assert_readable(text)
    assert len(boxes(text)) == 1
    header = next(line for line in text.splitlines() if "identity" in line)
    assert "replace" in header and "graph" in header
    for r in rows:
        for k, label in COLUMNS:
            assert label in text
            assert (f"{r[k]:.2f}" if isinstance(r[k], float) else format_cell(r[k])) in text
    hard_f1 = next(line for line in text.splitlines() if "Hard F1" in line)
    assert [c.strip() for c in hard_f1.strip().strip("│").split("│")] == ["Hard F1", MISSING, "13.24", "85.06"]
    assert "identity: L2 F1 undefined: no change is counted" in " ".join(text.split())
    assert "BERTScore: not computed" in text


def test_all_models_results_table_and_the_transposed_eval_table_fit():
    text = render(rows_table(FAIR, "CRG", headers=dict(COLUMNS)))
    assert_readable(text)
    assert "association_abstain" in text and "2498" in text and "84.99" in text
    # `eval crg` prints metrics down and one column per model: with many models the model columns split
    many = [{**r, "model": f"{r['model']}-{i}"} for i in range(3) for r in FAIR]
    table = [{"metric": h, **{f"m{j}": r.get(k) for j, r in enumerate(many)}} for k, h in COLUMNS]
    text = render(rows_table(table, "CRG", headers={f"m{j}": r["model"] for j, r in enumerate(many)}))
    assert_readable(text)
    assert all(r["model"] in text for r in many) and text.count("Order acc") >= 2


def test_none_is_a_dash_and_numbers_are_rounded_not_cut():
    assert format_cell(None) == MISSING == "—"
    assert (
        format_cell(85.0612) == "85.06" and format_cell(0.98123) == "0.9812" and format_cell(123456789) == "123456789"
    )
    assert format_cell(12345678.9) == "12345678.90" and format_cell(0.0) == "0.00"
    text = render(rows_table([{"model": "identity", "hard_f1": None, "n_scored": 0}], "r"), 40)
    assert MISSING in text and "None" not in text


def test_a_single_wide_record_reads_as_field_value_lines():
    counts = {
        "Dish": 100,
        "DishPair": 50,
        "Recipe": 2496,
        "Step": 48950,
        "ProtoAction": 13420,
        "Verb": 92,
        "Ingredient": 476,
        "Tool": 20,
        "Surface": 6650,
        "Component": 108,
        "ComponentClass": 218,
        "Split": 1,
    }
    text = render(rows_table([counts], "nodes"))
    assert_readable(text)
    lines = text.splitlines()
    for k, v in counts.items():
        assert any(k in line and line.rstrip(" │").endswith(str(v)) for line in lines), k


def test_data_prints_literally_whatever_the_console():
    text = render(rows_table([{"dish": "[/x] [link=http://e.x]菜", "n": 1}] * 2, "t"), markup=True)
    assert "[/x] [link=http://e.x]菜" in text


def test_cli_table_piped_at_80_columns(data_dir):
    res = CliRunner().invoke(app, ["data", "locate", "--no-verify", "--data", str(data_dir)], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    assert_readable(res.output)
    assert "release files" in res.output and str((data_dir / "diner/glossary.json").stat().st_size) in res.output


def test_split_tables_repeat_every_key_column_and_fractions_share_their_decimals():
    """`pivots compare --all` at 80 columns: too wide for one table, so each part repeats pair and kind (the
    rows of one pair differ by kind only); a fraction column keeps 4 decimals for all its cells."""
    rows = [
        {
            "pair": f"排骨豆角焖面->土豆豆角焖面{i}",
            "kind": kind,
            "mined": 739,
            "reference": 17,
            "overlap": 16,
            "precision": 16 / 739 if kind != "insert" else None,
            "recall": 16 / 17 if kind != "insert" else 0.0,
            "f1": 0.0422 if kind != "insert" else None,
        }
        for i in range(3)
        for kind in ("remove", "insert", "all")
    ]
    text = render(rows_table(rows, "mined vs crg-release"))
    assert_readable(text)
    parts = boxes(text)
    assert len(parts) >= 2
    for box in parts:
        assert "pair" in box[1] and "kind" in box[1]
    assert "0.0217" in text and "0.9412" in text and "0.0000" in text and "0.0422" in text


def test_nothing_is_cut_at_any_width():
    record = {
        "file": "/work/shared/data/counterfactual/a/long/path/to/some/file.json",
        "recipes": 1250457,
        "note": "words " * 12,
    }
    for width in range(30, 161, 13):
        for table in (
            rows_table(FAIR, "CRG", headers=dict(COLUMNS)),
            rows_table([record], "ingested"),
            rows_table([record] * 4, "files"),
        ):
            text = render(table, width)
            assert_readable(text, width)
            assert "1250457" in text or "84.99" in text
