"""Every named Cypher query in dishgraph/cypher/ executes on the embedded database (LadybugDB).

Neo4j's parser lints the Neo4j texts (test_cypher_lint.py); this executes the Ladybug texts on a graph
built from the real CRG release (three base dishes parsed), with example values chosen by parameter name.
Batched writes (`$rows`) count as executed when building this graph ran them with real rows;
destructive queries (`*clear*`) run last.
"""

from __future__ import annotations

import pytest

from dishgraph.graph import queries

DISHES = ["白灼菜心", "酸辣鸡爪", "辣炒年糕"]
PAIR_TARGET = "白灼秋葵"

# Queries whose result on this graph must not be empty: a check that the example values are meaningful.
NON_EMPTY = {
    "stats_recipe_actions",
    "stats_distinct_proto_actions",
    "stats_top_actions_per_dish",
    "uses_dish_actions",
    "uses_dishes_with_recipes",
    "pivot_edges",
    "pivot_pairs",
    "pair_pivots",
    "order_dish_sequences",
    "recipes_parsed",
    "diner_dish_names",
    "diner_list_splits",
    "diner_split_info",
    "pivot_pair_info",
    "dish_recipes_steps",
    "dish_overview",
}


@pytest.fixture(scope="module")
def graph(tmp_path_factory, crg_dir, glossary):
    from dishgraph.api import DishGraph
    from dishgraph.diner.graph import split_graph, store_components
    from dishgraph.diner.names import DinerGlossary
    from dishgraph.graph.ladybug_store import LadybugStore
    from dishgraph.ingest.crg import ingest_counterfactual, release_records
    from dishgraph.ingest.pipeline import parse_and_load
    from dishgraph.knowledge.order import OrderSettings

    store = LadybugStore(tmp_path_factory.mktemp("allq") / "db")
    written: set[str] = set()
    write = store.write

    def recording_write(name, rows, *args, **kwargs):  # which write queries ran with real rows
        rows = list(rows)
        if rows:
            written.add(name)
        return write(name, rows, *args, **kwargs)

    store.write = recording_write
    # mode="merge": the batched UNWIND MERGE queries run here (the default embedded path bulk-COPYs)
    ingest_counterfactual(store, crg_dir, parse=False, show_progress=False, mode="merge")
    records = release_records(crg_dir, DISHES)
    parse_and_load(
        store, records, glossary, segmenter="jieba", workers=1, total=len(records), show_progress=False, mode="merge"
    )
    from pathlib import Path

    from dishgraph.pcs.graph import ingest_pcs

    for table in sorted((Path(__file__).parent / "fixtures" / "pcs" / "paper").iterdir()):
        ingest_pcs(store, table)  # the PizzaCommonSense writes
    g = DishGraph(store, glossary=glossary)
    g.frequencies()
    g.mine_pivots(DISHES[0], PAIR_TARGET)
    g.estimate_order(DISHES[:1], OrderSettings(estimator="fast"))
    store_components(store, DinerGlossary.load())
    split_graph(store, "tmcd", target_divergence=None, max_iterations=50, seed=1)
    action = g.actions(DISHES[0], top=1)[0]["action"]
    store.write = write
    yield store, action, written
    store.close()


def _values(action: str) -> dict:
    from dishgraph.knowledge.pivots import pair_key

    return {
        "action": action,
        "key": action,
        "keys": [action],
        "dish": DISHES[0],
        "dishes": DISHES,
        "base": DISHES[0],
        "target": PAIR_TARGET,
        "pair": pair_key(DISHES[0], PAIR_TARGET),
        "source": "mined",
        "window": "paper",
        "alpha": 5.0,
        "tau_r": 0.01,
        "tau_i": 0.1,
        "min_freq": 0.0,
        "top": 10,
        "rows": [],
        "ids": [],
        "id": "none",
        "recipe": "none",
        "split": "tmcd",
        "divergence": 0.5,
        "atom_divergence": 0.1,
        "ratio": 4.5,
        "seed": 1,
        "classes": ["菜心"],
        "verbs": ["炒"],
        "first": True,
        "all_actions": False,
        "after": "",
        "limit": 5,
    }


def _example(q) -> dict:
    """Values from the file's own `// example: {json}` line, if it has one."""
    import json

    for line in q.path.read_text(encoding="utf-8").splitlines():
        if line.startswith("// example:"):
            return json.loads(line[len("// example:") :])
    return {}


def _ordered() -> list[str]:
    names = queries.names()
    return sorted(names, key=lambda n: ("clear" in n, n))


@pytest.mark.parametrize("name", _ordered())
def test_named_query_executes_on_ladybug(graph, name):
    store, action, written = graph
    q = queries.get(name, "ladybug")
    if "rows" in q.params and not _example(q).get("rows"):  # Ladybug cannot type an empty $rows list
        if name not in written:
            pytest.skip(f"{name}: batched write not exercised by this graph (see its feature test)")
        return
    values = {**_values(action), **_example(q)}
    missing = [p for p in q.params if p not in values]
    assert not missing, f"{q.path.name}: add an example value for ${', $'.join(missing)} in this test"
    rows = store.query(name, **{p: values[p] for p in q.params})
    assert isinstance(rows, list)
    if name in NON_EMPTY:
        assert rows, f"{name} returned nothing on the release graph"


def test_one_dish_at_a_glance(graph):
    """`DishGraph.dish` / `dishgraph dish` on the graph built above (a parsed base dish with its pair and its
    estimated constraints), and a typo answered with the closest names."""
    from dishgraph.api import DishGraph
    from dishgraph.errors import UnknownName

    store, action, _ = graph
    card = DishGraph(store).dish(DISHES[0], top=5)
    assert card["named_by"] == "crg-release" and card["recipes"] == 50
    assert card["recipes_by_source"] == [{"source": "crg-release/base_recipes.txt", "recipes": 50, "parsed": 50}]
    assert 0 < len(card["top_actions"]) <= 5 and all(a["action"] and a["freq"] > 0 for a in card["top_actions"])
    assert {"pair": f"{DISHES[0]}->{PAIR_TARGET}", "role": "base"} in card["pairs"]
    assert card["order_constraints"].get("estimated", 0) > 0
    with pytest.raises(UnknownName, match="did you mean"):
        DishGraph(store).dish(DISHES[0][:-1])


def test_dish_command_on_a_release_graph(tmp_path, crg_dir):
    from typer.testing import CliRunner

    from dishgraph.cli import app

    db = str(tmp_path / "db")
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", "counterfactual", str(crg_dir), "--db", db, "--no-parse"]).exit_code == 0
    res = runner.invoke(app, ["dish", PAIR_TARGET, "--db", db])
    assert res.exit_code == 0, res.output
    assert (
        f"{PAIR_TARGET}: 0 recipes; named by crg-release" in res.output and f"{DISHES[0]}->{PAIR_TARGET}" in res.output
    )
    assert "crg-release" in res.output.split("order")[-1]  # the release's constraints of the target
    res = runner.invoke(app, ["dish", "白灼菜", "--db", db])
    assert res.exit_code != 0 and "did you mean one of 白灼菜心" in res.output
