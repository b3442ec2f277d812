"""PCS tables in the real embedded graph: nodes, the comestible DAG, versioning, idempotence, bad input."""

import json
from graphlib import CycleError, TopologicalSorter

import pytest

from dishgraph.errors import UnknownName
from dishgraph.pcs.graph import comestible_flow, comestible_id, flow_edges, ingest_pcs, stored_table, write_tables
from dishgraph.pcs.tables import PCSRow, PCSTable, read_pcs, write_pcs

PAPER = "tests/fixtures/pcs/paper"
BRIE, CRACKERS = "pcs:b1e0a1c0f5", "pcs:c7b2d4e9a1"


def assert_dag(edges):
    graph = {}
    for e in edges:
        graph.setdefault(e["target"], set()).add(e["source"])
    try:
        return list(TopologicalSorter(graph).static_order())
    except CycleError as err:  # pragma: no cover - the assertion message is the point
        raise AssertionError(f"comestible flow has a cycle: {err.args[1]}") from err


@pytest.fixture
def loaded(store):
    rep = ingest_pcs(store, PAPER)
    assert rep.errors == []
    return store, rep


def test_ingest_counts(loaded):
    store, rep = loaded
    assert (rep.tables, rep.rows, rep.comestibles, rep.inputs, rep.outputs) == (2, 25, 35, 33, 22)
    c = store.counts()
    assert {k: c["nodes"][k] for k in ("Dish", "Recipe", "Step", "Comestible")} == {
        "Dish": 2,
        "Recipe": 2,
        "Step": 25,
        "Comestible": 35,
    }
    assert {k: c["relationships"][k] for k in ("HAS_RECIPE", "HAS_STEP", "NEXT", "INPUT", "OUTPUT")} == {
        "HAS_RECIPE": 2,
        "HAS_STEP": 25,
        "NEXT": 23,
        "INPUT": 33,
        "OUTPUT": 22,
    }
    rec = store.query("pcs_recipe_text", id=BRIE)[0]
    assert rec["dish"] == "baked olive and brie pizza" and rec["source"] == "pcs:baked_olive_and_brie_pizza.txt"
    assert rec["text"].splitlines()[0] == "preheat oven to 450 ."


def test_flow_is_a_dag_linking_outputs_to_later_inputs(loaded):
    store, _ = loaded
    edges = flow_edges(store, BRIE)
    assert len(edges) == 16
    order = assert_dag(edges)
    # "sliced brie" is produced at step 4 and consumed at step 5: one node
    cut = [e for e in edges if e["pos"] == 4]
    arrange = [e for e in edges if e["pos"] == 5]
    assert cut[0]["target"] == f"{BRIE}::sliced brie"
    assert f"{BRIE}::sliced brie" in {e["source"] for e in arrange}
    # the motion step keeps the name but makes a new version; later steps consume the new one
    [remove] = [e for e in edges if e["pos"] == 8]
    assert (remove["source"], remove["target"]) == (
        comestible_id(BRIE, "baked olive and brie pizza"),
        comestible_id(BRIE, "baked olive and brie pizza", 2),
    )
    assert remove["source_name"] == remove["target_name"]
    assert comestible_id(BRIE, "baked olive and brie pizza", 2) in {e["source"] for e in edges if e["pos"] == 9}
    assert order[-1] == f"{BRIE}::olive and brie pizza wedges"
    crackers = flow_edges(store, CRACKERS)
    assert_dag(crackers)
    [bake] = [e for e in crackers if e["pos"] == 12]
    assert bake["source"] == f"{CRACKERS}::unbaked broccoli cheese crackers::v2"


def test_na_rows_have_no_comestibles_and_table_reads_back(loaded):
    store, _ = loaded
    for rid, title in ((BRIE, "baked_olive_and_brie_pizza"), (CRACKERS, "broccoli_cheese_crackers")):
        gold = {t.title: t for t in read_pcs(PAPER)}[title]
        back = stored_table(store, rid)
        assert [(r.instruction, r.action, sorted(r.inputs), r.output) for r in back.rows] == [
            (r.instruction, r.action, sorted(r.inputs), r.output) for r in gold.rows
        ]
    assert stored_table(store, CRACKERS).rows[1].inputs == [] and stored_table(store, CRACKERS).rows[1].output is None
    with pytest.raises(UnknownName, match="no recipe 'pcs:nope' in the graph"):
        stored_table(store, "pcs:nope")


def test_reingest_is_idempotent_and_edits_replace(loaded, tmp_path):
    store, _ = loaded
    before = store.counts()
    ingest_pcs(store, PAPER)
    assert store.counts() == before
    brie = {t.title: t for t in read_pcs(PAPER)}["baked_olive_and_brie_pizza"]
    brie.rows = brie.rows[:8]
    brie.rows[7].output = "golden pizza"
    write_pcs([brie], tmp_path / "edited.txt")
    ingest_pcs(store, tmp_path / "edited.txt")
    assert len(store.query("pcs_recipe_steps", recipe=BRIE)) == 8
    edges = flow_edges(store, BRIE)
    assert max(e["pos"] for e in edges) == 7 and edges[-1]["target_name"] == "golden pizza"
    assert store.counts()["nodes"]["Comestible"] == before["nodes"]["Comestible"] - 17 + 13


def test_versioning_keeps_a_cycle_prone_table_acyclic():
    rows = [
        PCSRow("a", "x", ["dough"], "ball"),
        PCSRow("b", "y", ["ball"], "dough"),
        PCSRow("c", "z", ["dough", "ball"], "ball"),
        PCSRow("d", "stir", ["ball"], "ball"),
    ]
    nodes, ins, outs = comestible_flow("r", rows)
    assert [o["comestible"] for o in outs] == ["r::ball", "r::dough::v2", "r::ball::v2", "r::ball::v3"]
    assert [i["comestible"] for i in ins] == ["r::dough", "r::ball", "r::dough::v2", "r::ball", "r::ball::v2"]
    edges = [
        {"source": i["comestible"], "target": o["comestible"]} for o in outs for i in ins if i["step"] == o["step"]
    ]
    assert_dag(edges)
    assert {n["name"] for n in nodes} == {"dough", "ball"} and len(nodes) == 5


def test_bad_input_is_reported_and_good_tables_load(store):
    rep = ingest_pcs(store, "tests/fixtures/pcs/bad")
    assert rep.tables == 2 and len(rep.errors) == 3
    assert any("extra_cell.tsv:3" in e for e in rep.errors)
    assert store.counts()["nodes"]["Recipe"] == 2
    with pytest.raises(Exception, match="broken.json:2"):
        ingest_pcs(store, "tests/fixtures/pcs/bad", strict=True)


def test_duplicate_table_ids_are_reported(store, tmp_path):
    t = PCSTable("same", "one", [PCSRow("boil .", "boil", ["water"], "hot water")])
    u = PCSTable("same", "two", [PCSRow("fry .", "fry", ["egg"], "fried egg")])
    write_pcs([t, u], tmp_path / "dup.jsonl")
    rep = ingest_pcs(store, tmp_path / "dup.jsonl")
    assert rep.tables == 1 and "already read" in rep.errors[0]
    assert store.query("pcs_recipe_text", id="pcs:same")[0]["dish"] == "one"


def test_write_tables_with_custom_source(store):
    t = PCSTable("t9", "toast", [PCSRow("toast .", "toast", ["bread"], "toast")])
    write_tables(store, [t], source="mine")
    assert flow_edges(store, "mine:t9")[0]["target"] == "mine:t9::toast"


def test_cli_ingest_and_flow(tmp_path):
    from typer.testing import CliRunner

    from dishgraph.cli import app

    db = str(tmp_path / "db")
    res = CliRunner().invoke(app, ["ingest", "pcs", PAPER, "--db", db, "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["comestibles"] == 35
    res = CliRunner().invoke(app, ["pcs", "flow", BRIE, "--db", db, "--json"])
    assert res.exit_code == 0, res.output
    assert len(json.loads(res.stdout)) == 16
    res = CliRunner().invoke(app, ["ingest", "pcs", "tests/fixtures/pcs/bad", "--db", db, "--strict"])
    assert res.exit_code == 1 and "broken.json:2" in res.output.replace("\n", "")  # rich wraps long paths


def test_cli_ls_lists_the_ids_and_flow_takes_them_with_or_without_prefix(tmp_path):
    """`pcs flow b1e0a1c0f5` (no `pcs:`) printed an empty table and nothing listed the ids: now `pcs ls` lists
    them and a recipe is found with or without its prefix; an unknown id is an error with the closest ids."""
    from typer.testing import CliRunner

    from dishgraph.cli import app

    def run(*args):
        return CliRunner().invoke(app, [*args, "--db", str(tmp_path / "db")])

    assert run("db", "init").exit_code == 0
    r = run("pcs", "ls")
    assert r.exit_code == 1 and "no PCS recipes" in r.output and "dishgraph ingest pcs" in r.output, r.output
    assert run("ingest", "pcs", PAPER, "--json").exit_code == 0
    listed = json.loads(run("pcs", "ls", "--json").output)
    assert [x["id"] for x in listed] == [BRIE, CRACKERS]
    assert {"split", "annotator", "title", "steps"} <= set(listed[0]) and listed[0]["steps"] > 0
    r = run("pcs", "ls", "--limit", "1")
    assert r.exit_code == 0 and BRIE in r.output and CRACKERS not in r.output and "1 more" in r.output
    assert run("pcs", "ls", "--split", "bogus").exit_code == 2
    bare = json.loads(run("pcs", "flow", BRIE.removeprefix("pcs:"), "--json").output)
    assert bare == json.loads(run("pcs", "flow", BRIE, "--json").output) and len(bare) == 16
    r = run("pcs", "flow", "b1e0a1c0f6")
    assert r.exit_code == 1 and f"did you mean {BRIE}?" in r.output and "pcs ls" in r.output, r.output
    r = run("pcs", "table", "--stored", BRIE.removeprefix("pcs:"), "--json")
    assert r.exit_code == 0 and json.loads(r.output)["id"] == BRIE
