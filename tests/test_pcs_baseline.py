"""Parser-derived PCS tables for real CRG recipes (base_recipes.txt) read from the graph."""

import json
from graphlib import TopologicalSorter

import pytest

from dishgraph.actions import crg_actions
from dishgraph.ingest.loader import recipe_id
from dishgraph.ingest.parser import RecipeParser
from dishgraph.pcs.baseline import MOTION_VERBS, baseline_rows, describe, recipe_table
from dishgraph.pcs.graph import flow_edges, write_tables

N_RECIPES = 12


@pytest.fixture(scope="module")
def records(crg_dir):
    out = []
    with open(crg_dir / "base_recipes.txt", encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, start=1):
            base, _target, text = line.rstrip("\n").split("\t")
            out.append(
                {
                    "id": recipe_id("crg", base, text),
                    "dish": base,
                    "text": text,
                    "source": "crg:base_recipes.txt",
                    "line": line_no,
                    "parsed": False,
                    "n_actions": 0,
                    "split": "",  # PCS release fields (none for a CRG recipe)
                    "annotator": 1,
                    "original": "",
                }
            )
            if len(out) == N_RECIPES:
                break
    return out


@pytest.fixture(scope="module")
def parser(glossary):
    return RecipeParser(glossary, segmenter="lac")


@pytest.fixture
def crg_store(store, records):
    store.write("pcs_merge_recipes", records)
    return store


def test_first_recipe_table(crg_store, records, parser):
    t = recipe_table(crg_store, records[0]["id"], parser=parser)
    assert t.title == "白灼菜心" and t.id == records[0]["id"]
    rows = {r.instruction: r for r in t.rows}
    wash = t.rows[0]
    assert (wash.instruction, wash.action, wash.inputs, wash.output) == ("菜心洗", "洗", ["菜心"], "洗过的菜心")
    aromatics = rows["下葱姜蒜"]
    assert aromatics.inputs == ["葱", "姜", "蒜"] and aromatics.output == "下过的葱、姜、蒜"
    stir_fry = rows["爆炒"]  # omitted object: consumes the previous step's output
    assert stir_fry.inputs == ["下过的葱、姜、蒜"] and stir_fry.output == "爆炒过的葱、姜、蒜"
    plate = rows["摆在菜心"]  # a motion verb on the washed greens keeps input = output
    assert plate.inputs == ["洗过的菜心"] and plate.output == "洗过的菜心"
    blanch = t.rows[-1]
    assert blanch.action == "焯" and blanch.inputs == ["洗过的菜心"] and blanch.output == "焯过的菜心"


def test_invariants_on_real_recipes(crg_store, records, parser):
    n_rows = n_inherited = 0
    for rec in records:
        actions = crg_actions(parser.parse(rec["text"]))  # the baseline reads the CRG reading
        t = recipe_table(crg_store, rec["id"], parser=parser)
        assert len(t.rows) == len(actions)
        prev = None
        for a, r in zip(actions, t.rows):
            assert r.action == a.verb and r.instruction == a.phrase
            if a.inherited and prev:
                assert r.inputs == [prev]
                n_inherited += 1
            if r.output and not (a.proto and a.proto.verb in MOTION_VERBS and len(r.inputs) == 1):
                assert r.output.startswith(f"{a.verb}过的")
            if not r.inputs:
                assert r.output is None
            prev = r.output or prev
        n_rows += len(t.rows)
    assert n_rows > 100 and n_inherited > 5


def test_baseline_tables_form_a_dag_in_the_graph(crg_store, records, parser):
    tables = [recipe_table(crg_store, rec["id"], parser=parser) for rec in records[:5]]
    for t in tables:
        t.id = t.id.split(":", 1)[1]
    write_tables(crg_store, tables, source="pcs-baseline")
    linked = 0
    for t in tables:
        edges = flow_edges(crg_store, f"pcs-baseline:{t.id}")
        graph = {}
        for e in edges:
            graph.setdefault(e["target"], set()).add(e["source"])
        list(TopologicalSorter(graph).static_order())  # raises on a cycle
        targets = {e["target"] for e in edges}
        linked += sum(e["source"] in targets for e in edges)  # an earlier output consumed again
    assert linked > 10


def test_raw_inputs_mode(parser):
    actions = parser.parse("土豆洗净，青椒洗净，土豆下锅炒。")
    tracked = baseline_rows(actions)
    raw = baseline_rows(actions, track_state=False)
    assert [(r.instruction, r.inputs, r.output) for r in tracked] == [
        ("土豆洗净", ["土豆"], "洗净过的土豆"),
        ("青椒洗净", ["青椒"], "洗净过的青椒"),
        ("土豆下锅", ["洗净过的土豆"], "下过的土豆"),
        ("炒", ["下过的土豆"], "炒过的土豆"),
    ]
    assert raw[2].inputs == ["土豆"] and raw[3].inputs == ["下过的土豆"]  # inheritance still links
    assert describe("炒", ["土豆", "青椒"]) == "炒过的土豆、青椒"


def test_unknown_recipe(store):
    with pytest.raises(LookupError, match="no recipe"):
        recipe_table(store, "crg:nope")


def test_cli_table(tmp_path, records):
    from typer.testing import CliRunner

    from dishgraph.cli import app
    from dishgraph.graph.ladybug_store import LadybugStore

    db = tmp_path / "db"
    with LadybugStore(db) as s:
        s.write("pcs_merge_recipes", records[:1])
    res = CliRunner().invoke(app, ["pcs", "table", records[0]["id"], "--db", str(db), "--segmenter", "lac", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["title"] == "白灼菜心" and data["rows"][0] == {
        "instruction": "菜心洗",
        "input": "菜心",
        "action": "洗",
        "output": "洗过的菜心",
    }
    res = CliRunner().invoke(app, ["pcs", "table", "crg:nope", "--db", str(db)])
    assert res.exit_code == 1 and "no recipe" in " ".join(res.output.split())
