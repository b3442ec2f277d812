"""Text-to-text serialization of PCS tables and the inverse parser for model outputs."""

import pytest

from dishgraph.pcs.serialize import (
    clean_cell,
    fill_rows,
    linearize,
    parse_linearized,
    parse_target,
    serialize_rows,
    serialize_table,
)
from dishgraph.pcs.tables import PCSRow, read_pcs

PAPER = "tests/fixtures/pcs/paper"


@pytest.fixture(scope="module")
def tables():
    return read_pcs(PAPER)


def test_tokens_style_matches_the_paper_layout(tables):
    brie = tables[0]
    src, tgt = serialize_rows(brie.rows[:2])
    assert src == (
        "preheat oven to 450 . <s> <in> <s> preheat <s> <out> <n> "
        "place pizza_crust on a baking sheet . <s> <in> <s> place <s> <out>"
    )
    assert tgt == "NA <s> NA <n> pizza_crust <s> pizza_crust on baking sheet"


def test_sentinel_style(tables):
    src, tgt = serialize_rows(tables[0].rows[1:3], mask="sentinel")
    assert src == (
        "place pizza_crust on a baking sheet . <s> <extra_id_0> <s> place <s> <extra_id_1> <n> "
        "brush crust with olive_oil . <s> <extra_id_2> <s> brush <s> <extra_id_3>"
    )
    assert tgt == (
        "<extra_id_0> pizza_crust <extra_id_1> pizza_crust on baking sheet "
        "<extra_id_2> pizza_crust on baking sheet; olive_oil <extra_id_3> oiled pizza_crust"
    )


@pytest.mark.parametrize("mask", ["tokens", "sentinel"])
@pytest.mark.parametrize("fields", [("input", "output"), ("input",), ("output",)])
def test_round_trip(tables, mask, fields):
    for t in tables:
        for ex in serialize_table(t, mask, fields, max_rows=5):
            rows = t.rows[ex.start : ex.end]
            filled = fill_rows(
                [PCSRow(r.instruction, r.action) for r in rows], parse_target(ex.target, len(rows), mask, fields)
            )
            for got, want in zip(filled, rows):
                if "input" in fields:
                    assert got.inputs == want.inputs
                if "output" in fields:
                    assert got.output == want.output


def test_windows_cover_every_row(tables):
    crackers = tables[1]
    exs = serialize_table(crackers, max_rows=4)
    assert [(e.start, e.end) for e in exs] == [(0, 4), (4, 8), (8, 12), (12, 14)]
    assert all(e.recipe == "c7b2d4e9a1" for e in exs)
    assert serialize_table(crackers, prefix="pcs:")[0].source.startswith("pcs: preheat oven")


def test_malformed_model_outputs_never_shift_cells():
    # missing row separator spacing, a missing cell, an extra row
    got = parse_target("brie<s>sliced brie<n>sliced brie <n> a <s> b <n> extra <s> row", 3)
    assert got == [
        {"input": "brie", "output": "sliced brie"},
        {"input": "sliced brie", "output": ""},
        {"input": "a", "output": "b"},
    ]
    got = parse_target("junk <extra_id_3> baked brie <extra_id_0> brie <extra_id_9> far", 2, mask="sentinel")
    assert got == [{"input": "brie", "output": ""}, {"input": "", "output": "baked brie"}]
    assert parse_target("", 2) == [{"input": "", "output": ""}] * 2


def test_linearize_inverse(tables):
    for t in tables:
        back = parse_linearized(linearize(t.rows))
        assert [(r.instruction, r.inputs, r.action, r.output) for r in back] == [
            (r.instruction, r.inputs, r.action, r.output) for r in t.rows
        ]


def test_markup_in_cells_is_neutralised():
    assert clean_cell("mix <s> well <extra_id_2>\n now") == "mix well now"
    src, tgt = serialize_rows([PCSRow("stir <n> gently", "stir", ["a<s>b"], "c")])
    assert src.count("<n>") == 0 and tgt == "a b <s> c"


def test_bad_arguments():
    with pytest.raises(ValueError, match="mask style"):
        serialize_rows([], mask="bert")
    with pytest.raises(ValueError, match="fields"):
        serialize_rows([], fields=("action",))
    many = [PCSRow(f"step {i}", "mix", ["x"], "y") for i in range(51)]
    with pytest.raises(ValueError, match="more than 100 masked cells"):
        serialize_rows(many, mask="sentinel")
