"""Base-recipe parses served from the graph equal a fresh parse; mined pivots from the graph feed L2."""

from __future__ import annotations

import pytest

from dishgraph.actions import crg_actions
from dishgraph.eval.graph_cache import base_parses, graph_pivots
from dishgraph.eval.l2 import CachedParse, L2Reference, evaluate_l2
from dishgraph.eval.outputs import load_instances
from dishgraph.ingest import loader
from dishgraph.knowledge import pivots


@pytest.fixture
def real_pair(store, crg_dir, glossary):
    """The first pair of the release, its 50 base recipes parsed and loaded as ingest does."""
    parser_mod = pytest.importorskip("dishgraph.ingest.parser")
    parser = parser_mod.RecipeParser(glossary)
    instances = [i for i in load_instances(crg_dir) if i.index < 50]
    base, target = instances[0].base, instances[0].target
    loader.load_dishes(store, [base, target], "crg")
    store.write(
        "load_pairs",
        [
            {
                "key": f"{base}->{target}",
                "base": base,
                "target": target,
                "change_from": instances[0].old,
                "change_to": instances[0].new,
                "change_kind": instances[0].change_kind,
            }
        ],
    )
    recs = [
        loader.RecipeRecord(loader.recipe_id("crg", base, i.base_recipe), base, i.base_recipe, "crg") for i in instances
    ]
    loader.load_recipes(store, recs)
    parsed = {r.text: parser.parse(r.text) for r in recs}
    loader.load_parsed(store, [loader.ParsedRecipe(r.id, parsed[r.text]) for r in recs])
    return instances, parsed, parser


def test_graph_parses_equal_fresh_parse(store, glossary, real_pair):
    instances, parsed, _ = real_pair
    cache = base_parses(store, glossary.ingredient)
    assert set(cache) == set(parsed)
    for text, fresh in parsed.items():  # every field of the CRG reading, surface forms in order included
        assert cache[text] == crg_actions(fresh)


def test_l2_same_with_graph_cache(store, glossary, crg_dir, real_pair):
    instances, parsed, parser = real_pair
    ref = L2Reference.from_release(crg_dir)
    table = glossary.ingredient
    outputs = [i.base_recipe.replace(i.old, i.new) if i.old else i.base_recipe for i in instances]
    fresh = evaluate_l2(outputs, instances, CachedParse(parser.parse), ref, None, lambda s: table.get(s, s))
    cached = CachedParse(parser.parse, base_parses(store, table))
    served = evaluate_l2(outputs, instances, cached, ref, None, lambda s: table.get(s, s))
    assert cached.parsed == len(set(outputs) - set(parsed))  # bases never re-parsed
    assert served["hard_f1"] == pytest.approx(fresh["hard_f1"], nan_ok=True)
    assert served["changes_removed"] == fresh["changes_removed"]
    assert served["changes_inserted"] == fresh["changes_inserted"]


def test_mined_pivots_as_l2_reference(store, real_pair):
    instances, _, _ = real_pair
    res = pivots.mine_all(store)
    assert len(res) == 1
    piv = graph_pivots(store)
    target = instances[0].target
    # the target has no recipes, so every base action is a remove pivot (f_t = 0 < tau_R)
    assert piv[target] and {k for _, k in piv[target]} == {"remove"}
    assert len(piv[target]) == res[0].counts()["remove"]
    ref = L2Reference.from_data(piv)
    out = evaluate_l2([i.base_recipe for i in instances], instances, lambda t: [], ref)
    assert out["n"] == 50


def test_eval_cli_reads_graph(tmp_path, crg_dir, glossary):
    """`eval l2 --db` serves base parses from the graph and scores `--pivots mined` from its PIVOT edges."""
    import json

    from typer.testing import CliRunner

    from dishgraph.cli import app
    from dishgraph.eval.outputs import write_outputs
    from dishgraph.graph.ladybug_store import LadybugStore
    from dishgraph.ingest.parser import RecipeParser

    insts = load_instances(crg_dir)
    first = insts[:50]
    db = tmp_path / "db"
    store = LadybugStore(db)
    base, target = first[0].base, first[0].target
    loader.load_dishes(store, [base, target], "crg")
    store.write(
        "load_pairs",
        [
            {
                "key": f"{base}->{target}",
                "base": base,
                "target": target,
                "change_from": "",
                "change_to": first[0].new,
                "change_kind": "add",
            }
        ],
    )
    recs = [
        loader.RecipeRecord(loader.recipe_id("crg", base, i.base_recipe), base, i.base_recipe, "crg") for i in first
    ]
    loader.load_recipes(store, recs)
    parser = RecipeParser(glossary)
    loader.load_parsed(store, [loader.ParsedRecipe(r.id, parser.parse(r.text)) for r in recs])
    store.close()
    out = write_outputs(tmp_path / "identity.txt", [i.base_recipe for i in insts], insts)
    run = CliRunner().invoke
    r = run(app, ["eval", "l2", str(out), "--limit", "50", "--db", str(db), "--pivots", "mined", "--json"])
    assert r.exit_code == 2 and "no mined pivots" in " ".join(r.output.split())
    r = run(app, ["pivots", "mine", "--all", "--db", str(db), "--json"])
    assert r.exit_code == 0, r.output
    r = run(app, ["eval", "l2", str(out), "--limit", "50", "--db", str(db), "--pivots", "mined", "--json"])
    assert r.exit_code == 0, r.output
    res = json.loads(r.output)
    # identity keeps every base action: all remove pivots are missed, nothing is changed
    assert res["n"] == 50 and res["hard_r"] == 0 and res["changes_removed"] == 0 and res["pivots_remove"] > 0
    r = run(app, ["eval", "crg", str(out), "--limit", "50", "--db", str(db), "--no-bertscore", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["rows"][0]["bleu4"] == 100.0
