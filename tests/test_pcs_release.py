"""The PizzaCommonSense release as published, on real excerpts (tests/fixtures/pcs/release: seven tables
copied byte for byte from the three split directories): splits, the second annotator's tables, both
``action``/``actions`` keys, the three input spellings, the Recipe1M fields, and the graph built from them."""

import json
import shutil
from pathlib import Path

import pytest

from dishgraph.pcs.graph import ingest_pcs, recipe_id
from dishgraph.pcs.tables import parse_input_cell, read_pcs

RELEASE = Path(__file__).parent / "fixtures" / "pcs" / "release"
DOUGH, DOUGH_2 = "pcs:70f228d93a", "pcs:70f228d93a~2"
MEATLOAF_VAL, MEATLOAF_TEST_2 = "pcs:f2751f86b7", "pcs:f2751f86b7~2"


def test_reads_all_splits_with_annotators_and_recipe1m_fields():
    tables = read_pcs(RELEASE)
    got = sorted((Path(t.source).name, t.split, t.annotator) for t in tables)
    assert got == [
        ("banana_split_brownie_pizza_recipe.txt", "train", 1),
        ("florentine_pizza.txt", "train", 1),
        ("meat_loaf_pizza_recipe.txt", "val", 1),
        ("meat_loaf_pizza_recipe_2.txt", "test", 2),  # the release puts the two annotations in different splits
        ("no_yeast_pizza_dough.txt", "test", 1),
        ("pizza_dough_for_4_recipe.txt", "train", 1),
        ("pizza_dough_for_4_recipe_2.txt", "train", 2),
    ]
    by_name = {Path(t.source).name: t for t in tables}
    a, b = by_name["pizza_dough_for_4_recipe.txt"], by_name["pizza_dough_for_4_recipe_2.txt"]
    assert a.id == b.id == "70f228d93a" and a.dish == b.dish == "pizza dough for 4 recipe"
    assert [r.instruction for r in a.rows] == [r.instruction for r in b.rows]
    assert recipe_id(a) == DOUGH and recipe_id(b) == DOUGH_2
    # "actions" (florentine) and "action" (no yeast dough) both fill the action column
    assert [r.action for r in by_name["florentine_pizza.txt"].rows] == ["heat", "mix", "spread", "top", "bake"]
    assert all(r.action for t in tables for r in t.rows)
    flo = by_name["florentine_pizza.txt"]
    assert flo.ingredients[0] == "2 cloves garlic, minced" and len(flo.ingredients) == 6
    assert flo.original[0].startswith("Heat oven to 400")
    # the split also comes from a split directory given directly
    assert {t.split for t in read_pcs(RELEASE / "val")} == {"val"}


def test_input_spellings_share_item_semantics():
    assert parse_input_cell("(tomato_sauce; pizza dough)") == parse_input_cell("tomato_sauce; pizza dough")
    assert parse_input_cell(" tomato_sauce ;pizza dough ") == ["tomato_sauce", "pizza dough"]
    assert parse_input_cell("NA") == parse_input_cell("N/A") == parse_input_cell("na") == []
    # an earlier output written with a set inside it is one item, as the annotator reused it
    assert parse_input_cell("mixed_(garlic; oil)") == ["mixed_(garlic; oil)"]
    assert parse_input_cell("(mixed_(garlic; oil); crust)") == ["mixed_(garlic; oil)", "crust"]
    rows = {Path(t.source).name: t.rows for t in read_pcs(RELEASE)}
    flo = rows["florentine_pizza.txt"]
    assert flo[1].inputs == ["garlic", "oil"] and flo[1].output == "mixed_(garlic; oil)"
    assert flo[2].inputs == ["mixed_(garlic; oil)"]
    brownie = rows["banana_split_brownie_pizza_recipe.txt"]  # 'na' / 'N/A' spellings of NA in the release
    raw = json.loads((RELEASE / "train" / "banana_split_brownie_pizza_recipe.txt").read_text())["table"]
    odd = [k for k, r in enumerate(raw) if r["input"].strip() in ("na", "N/A")]
    assert odd and all(brownie[k].inputs == [] for k in odd)
    dough = rows["no_yeast_pizza_dough.txt"]  # 'a; b' without parentheses
    raw = json.loads((RELEASE / "test" / "no_yeast_pizza_dough.txt").read_text())["table"]
    bare = [k for k, r in enumerate(raw) if ";" in r["input"] and not r["input"].startswith("(")]
    assert bare and all(len(dough[k].inputs) >= 2 for k in bare)


@pytest.fixture
def loaded(store):
    rep = ingest_pcs(store, RELEASE)
    assert rep.errors == []
    return store, rep


def test_ingest_keeps_both_annotations_and_splits(loaded):
    store, rep = loaded
    assert rep.tables == 7 and rep.splits == {"train": 4, "val": 1, "test": 2}
    assert store.query("pcs_splits") == [
        {"split": "test", "annotator": 1, "recipes": 1, "steps": 5},
        {"split": "test", "annotator": 2, "recipes": 1, "steps": 7},
        {"split": "train", "annotator": 1, "recipes": 3, "steps": 22},
        {"split": "train", "annotator": 2, "recipes": 1, "steps": 5},
        {"split": "val", "annotator": 1, "recipes": 1, "steps": 7},
    ]
    dishes = {rid: store.query("pcs_recipe_text", id=rid)[0]["dish"] for rid in (DOUGH, DOUGH_2)}
    assert set(dishes.values()) == {"pizza dough for 4 recipe"}  # one Dish, two recipes
    assert store.counts()["nodes"]["IngredientLine"] == rep.ingredients > 0


def test_named_queries_walk_the_comestible_flow(loaded):
    store, _ = loaded
    final = store.query("pcs_final_ingredients", recipe=DOUGH)
    assert {(r["comestible"], r["ingredient"]) for r in final} == {
        ("butter", "1 stick butter"),
        ("flour", "5 c. flour"),
        ("hot_water", "1 1/2 c. hot water"),
        ("sugar", "1/4 c. sugar"),
        ("yeast", "2 pkg. yeast"),
    }
    assert {r["final_dish"] for r in final} == {"spreaded dough into pan"}
    history = store.query("pcs_comestible_history", recipe=DOUGH, comestible="yeast")
    assert [r["pos"] for r in history] == sorted(r["pos"] for r in history) and len(history) >= 2
    assert history[-1]["became"] == "spreaded dough into pan"
    joins = store.query("pcs_joining_steps", split="", limit=50)
    assert joins and all(len(j["joined"]) >= 2 for j in joins)
    assert store.query("pcs_joining_steps", split="no such split", limit=50) == []


def test_reingest_is_idempotent_and_resumes(loaded, tmp_path):
    store, _ = loaded
    before = store.counts()
    again = ingest_pcs(store, RELEASE)
    assert (again.tables, again.unchanged) == (0, 7) and store.counts() == before
    # an interrupted run: one recipe lacks its digest (written last) -> only that one is loaded again
    store.write("pcs_set_digests", [{"id": DOUGH_2, "digest": "interrupted"}])
    resumed = ingest_pcs(store, RELEASE)
    assert (resumed.tables, resumed.unchanged) == (1, 6) and store.counts() == before
    # an edited table replaces the old one
    copy = tmp_path / "release"
    shutil.copytree(RELEASE, copy)
    f = copy / "train" / "pizza_dough_for_4_recipe_2.txt"
    data = json.loads(f.read_text())
    data["table"] = data["table"][:3]
    f.write_text(json.dumps(data))
    assert ingest_pcs(store, copy).tables == 1
    assert len(store.query("pcs_recipe_steps", recipe=DOUGH_2)) == 3


def test_bad_file_reported_with_line_and_good_tables_load(store, tmp_path):
    copy = tmp_path / "release"
    shutil.copytree(RELEASE, copy)
    (copy / "test" / "broken.txt").write_text('{\n  "title": "x",\n  "id": "1",\n  "table": [\n    {"input": }\n]}\n')
    good = copy / "val" / "meat_loaf_pizza_recipe.txt"
    data = json.loads(good.read_text())
    del data["table"][2]["output"]
    (copy / "val" / "missing_output.txt").write_text(json.dumps({**data, "id": "0000000000"}, indent=4))
    rep = ingest_pcs(store, copy)
    assert rep.tables == 7
    assert any(e.startswith(f"{copy / 'test' / 'broken.txt'}:5: not valid JSON") for e in rep.errors), rep.errors
    missing = [e for e in rep.errors if "missing_output.txt" in e]
    assert len(missing) == 1 and "row 3: missing column(s) ['output']" in missing[0]
    assert missing[0].split(":")[1].isdigit() and int(missing[0].split(":")[1]) > 1
