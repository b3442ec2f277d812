"""PCS table formats: the release JSON (.txt), CSV/TSV/JSON/JSONL, cell conventions, bad input."""

import pytest

from dishgraph.pcs.tables import (
    PCSFormatError,
    format_input_cell,
    parse_input_cell,
    parse_output_cell,
    read_pcs,
    write_pcs,
)

PAPER = "tests/fixtures/pcs/paper"
BAD = "tests/fixtures/pcs/bad"


@pytest.fixture(scope="module")
def tables():
    return {t.title: t for t in read_pcs(PAPER)}


def test_release_json_table(tables):
    t = tables["baked_olive_and_brie_pizza"]
    assert t.id == "b1e0a1c0f5" and t.dish == "baked olive and brie pizza" and len(t.rows) == 11
    first, brush, remove = t.rows[0], t.rows[2], t.rows[8]
    assert (first.instruction, first.action, first.inputs, first.output) == (
        "preheat oven to 450 .",
        "preheat",
        [],
        None,
    )
    assert brush.inputs == ["pizza_crust on baking sheet", "olive_oil"] and brush.output == "oiled pizza_crust"
    assert remove.action == "remove" and remove.inputs == [remove.output] == ["baked olive and brie pizza"]
    assert [r.line for r in t.rows[:3]] == [6, 12, 18]  # the line of each row's "instructions" key
    assert t.text.splitlines()[4] == "cut brie into thin slices ."


def test_csv_table_with_recipe_column(tables):
    t = tables["broccoli_cheese_crackers"]
    assert t.id == "c7b2d4e9a1" and len(t.rows) == 14 and t.line == 2
    combine = t.rows[4]
    assert combine.inputs == ["flour", "cheddar_cheese", "salt"]
    assert combine.output == "flour, cheese and salt mixture"  # commas stay inside a quoted name
    assert t.rows[5].inputs == ["flour, cheese and salt mixture", "butter"]
    assert [r.line for r in t.rows[:3]] == [2, 3, 4]


def test_cells():
    assert parse_input_cell("(onion; garlic ; butter)") == ["onion", "garlic", "butter"]
    assert parse_input_cell("NA") == parse_input_cell(" n/a ") == parse_input_cell("") == []
    assert parse_input_cell("sausage (casing removed)") == ["sausage (casing removed)"]
    assert parse_input_cell(["a", "b", "a"]) == ["a", "b"]
    assert parse_output_cell("NA") is None and parse_output_cell(" baked crust ") == "baked crust"
    assert format_input_cell(["a", "b"]) == "a; b" and format_input_cell(["a", "b"], release=True) == "(a; b)"
    assert format_input_cell([]) == "NA"


@pytest.mark.parametrize("suffix", [".json", ".jsonl", ".csv", ".tsv", ".txt"])
def test_every_format_round_trips(tables, tmp_path, suffix):
    src = list(tables.values())
    path = write_pcs(src, tmp_path / f"tables{suffix}")
    back = {t.title: t for t in read_pcs(path)}
    assert set(back) == set(tables)
    for title, t in tables.items():
        b = back[title]
        assert b.id == t.id
        assert [(r.instruction, r.action, r.inputs, r.output) for r in b.rows] == [
            (r.instruction, r.action, r.inputs, r.output) for r in t.rows
        ]


def test_single_release_object_written_like_the_release(tables, tmp_path):
    t = tables["baked_olive_and_brie_pizza"]
    path = write_pcs([t], tmp_path / f"{t.title}.txt")
    text = path.read_text()
    assert text.lstrip().startswith("{") and '"input": "(pizza_crust on baking sheet; olive_oil)"' in text
    assert read_pcs(path)[0].rows[2].inputs == ["pizza_crust on baking sheet", "olive_oil"]


def test_flat_rows_without_recipe_column_are_one_table(tmp_path):
    p = tmp_path / "toast.tsv"
    p.write_text(
        "instruction\tinput\taction\toutput\ntoast bread .\tbread\ttoast\ttoasted bread\n"
        "butter it .\t(toasted bread; butter)\tspread\tbuttered toast\n",
        encoding="utf-8",
    )
    [t] = read_pcs(p)
    assert t.title == "toast" and len(t.id) == 10 and t.rows[1].inputs == ["toasted bread", "butter"]
    assert read_pcs(p)[0].id == t.id  # content id is stable


def test_bad_input_names_file_and_line():
    with pytest.raises(PCSFormatError) as e:
        read_pcs(f"{BAD}/broken.json")
    assert e.value.line == 2 and "broken.json:2" in str(e.value) and "not valid JSON" in str(e.value)
    with pytest.raises(PCSFormatError, match=r"extra_cell.tsv:3: recipe 'margherita_toast' row 2: more cells"):
        read_pcs(f"{BAD}/extra_cell.tsv")
    with pytest.raises(PCSFormatError, match=r"mixed.jsonl:2: .*missing column\(s\) \['output'\]"):
        read_pcs(f"{BAD}/mixed.jsonl")


def test_bad_tables_are_reported_and_good_ones_kept():
    errors = []
    got = read_pcs(BAD, errors)
    assert [t.title for t in got] == ["ok_one", "ok_two"]  # the good tables of mixed.jsonl survive
    assert [(e.path.rsplit("/", 1)[-1], e.line) for e in errors] == [
        ("broken.json", 2),
        ("extra_cell.tsv", 3),
        ("mixed.jsonl", 2),
    ]


def test_missing_path_and_unknown_suffix(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_pcs(tmp_path / "nope.json")
    with pytest.raises(ValueError, match="unknown table format"):
        write_pcs([], tmp_path / "x.xml")
