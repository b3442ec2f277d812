"""Order constraints in the graph: estimate into MUST_PRECEDE edges, look up, check sequences and text."""

from __future__ import annotations

import pytest

from dishgraph.actions import ProtoAction
from dishgraph.eval.parse_recall import read_base_recipes
from dishgraph.ingest import loader
from dishgraph.knowledge import order
from dishgraph.knowledge.order import Constraint, OrderSettings, check_sequence, resolve_action
from dishgraph.testing.planted import load_planted, planted_order_corpus


@pytest.fixture
def planted(store):
    corpus = planted_order_corpus(n_dishes=2, n_recipes=50, n_actions=20, seed=11)
    load_planted(store, corpus)
    return corpus


def test_sequences_query_roundtrip(store, planted):
    ds = order.dish_sequences(store, "planted-dish-0")
    assert len(ds.recipes) == 50
    by_id = {f"planted:planted-dish-0:{j}": [a.key for a in r] for j, r in enumerate(planted.recipes["planted-dish-0"])}
    for i, rid in enumerate(ds.recipes):
        seq = sorted(((ds.first[i, j], a) for j, a in enumerate(ds.actions) if ds.present[i, j]))
        assert [a for _, a in seq] == list(dict.fromkeys(by_id[rid]))


def test_estimate_store_and_lookup(store, planted):
    rep = order.estimate_order(store, settings=OrderSettings(window="paper"))
    assert [d.dish for d in rep.dishes] == ["planted-dish-0", "planted-dish-1"]
    for d in rep.dishes:
        assert d.recipes == 50 and d.focus_actions > 5 and d.constraints > 0
    kept = [e for e in rep.estimates if e.ate is not None and e.ate > 0.1]
    cons = order.dish_constraints(store, "planted-dish-0", source="estimated")
    assert {(c.cause, c.effect) for c in cons} == {(e.cause, e.effect) for e in kept if e.dish == "planted-dish-0"}
    assert all(c.ate > 0.1 and c.window == "paper" and c.estimator in ("fast", "naive") for c in cons)
    # most stored constraints are planted dependencies
    truth = planted.ancestors["planted-dish-0"]
    assert sum((c.cause, c.effect) in truth for c in cons) / len(cons) > 0.3
    # lookups both ways
    c0 = cons[0]
    before, _ = order.order_constraints(store, "planted-dish-0", c0.effect)
    _, after = order.order_constraints(store, "planted-dish-0", ProtoAction.from_key(c0.cause))
    assert c0.cause in {c.cause for c in before} and c0.effect in {c.effect for c in after}
    # re-estimating replaces edges of the same window; another window adds its own
    order.estimate_order(store, ["planted-dish-0"], OrderSettings(window="paper"))
    assert len(order.dish_constraints(store, "planted-dish-0", source="estimated")) == len(cons)
    order.estimate_order(store, ["planted-dish-0"], OrderSettings(window="pretreatment"))
    wins = {c.window for c in order.dish_constraints(store, "planted-dish-0", source="estimated")}
    assert wins == {"paper", "pretreatment"}


def test_a_failure_mid_run_keeps_the_dishes_already_estimated(store, planted):
    """`order estimate --all` stores each dish as it finishes: an error (or a kill) after the first dish
    keeps that dish's constraints; the rerun recomputes idempotently to the same edges."""

    class Stop(Exception):
        pass

    def stop(res):
        raise Stop(res.dish)

    with pytest.raises(Stop):
        order.estimate_order(store, settings=OrderSettings(), on_dish=stop)
    first = order.dish_constraints(store, "planted-dish-0", source="estimated")
    assert first and not order.dish_constraints(store, "planted-dish-1", source="estimated")
    rep = order.estimate_order(store, settings=OrderSettings())
    again = order.dish_constraints(store, "planted-dish-0", source="estimated")
    assert sorted((c.cause, c.effect) for c in again) == sorted((c.cause, c.effect) for c in first)
    assert len(order.dish_constraints(store, "planted-dish-1", source="estimated")) == rep.dishes[1].constraints > 0


def test_dowhy_and_fast_store_same_edges(store, planted):
    fast = order.estimate_order(store, ["planted-dish-1"], OrderSettings(estimator="fast", min_freq=0.3))
    slow = order.estimate_order(store, ["planted-dish-1"], OrderSettings(estimator="dowhy", min_freq=0.3))
    assert [e.ate for e in fast.estimates] == pytest.approx([e.ate for e in slow.estimates], abs=1e-9)


def test_unknown_dish_and_bad_settings(store, planted):
    from dishgraph.errors import UnknownName

    with pytest.raises(UnknownName, match="unknown dish 'nope'"):
        order.estimate_order(store, ["nope"])
    with pytest.raises(ValueError, match="window"):
        order.estimate_order(store, ["planted-dish-0"], OrderSettings(window="x"))


def test_check_sequence_positions():
    cons = [
        Constraint("a", "b", 0.3, source="estimated"),
        Constraint("a", "b", None, source="crg-release"),
        Constraint("c", "b", 0.2, source="estimated"),
        Constraint("d", "e", 0.5, source="estimated"),
    ]
    v = check_sequence(cons, ["b", "c", "a", "b"])
    assert [(x.cause, x.effect, x.cause_pos, x.effect_pos) for x in v] == [("c", "b", 1, 0), ("a", "b", 2, 0)]
    assert v[1].sources == ["estimated", "crg-release"] and v[1].ate == 0.3
    assert check_sequence(cons, ["a", "c", "b", "e"]) == []  # absent cause is not an order violation


def test_resolve_action_forms():
    p = ProtoAction("切", frozenset({"洋葱", "葱"}), frozenset({"刀"}))
    assert resolve_action(p) == p.key == "切|洋葱+葱|刀"
    assert resolve_action(p.key) == p.key
    assert resolve_action(str(p)) == p.key
    assert resolve_action(p.to_release()) == p.key
    assert resolve_action("炒") == "炒||"


def test_real_recipe_with_swapped_steps(store, crg_dir, glossary):
    """A real base dish: estimate, then swap the two actions of a constraint in one recipe and check."""
    parser_mod = pytest.importorskip("dishgraph.ingest.parser")
    parser = parser_mod.RecipeParser(glossary)
    by_dish = read_base_recipes(crg_dir)
    dish = sorted(by_dish)[0]
    loader.load_dishes(store, [dish], "crg")
    recs = [loader.RecipeRecord(loader.recipe_id("crg", dish, t), dish, t, "crg") for t in by_dish[dish]]
    loader.load_recipes(store, recs)
    parsed = [loader.ParsedRecipe(r.id, parser.parse(r.text)) for r in recs]
    loader.load_parsed(store, parsed)
    rep = order.estimate_order(store, [dish])
    assert rep.dishes[0].constraints > 0
    cons = order.dish_constraints(store, dish, source="estimated")
    # a recipe that satisfies a constraint c -> e with c and e in different clauses; swap the two clauses
    for pr, rec in zip(parsed, recs):
        acts = [a for a in pr.actions if a.proto]
        keys = [a.proto.key for a in acts]
        if check_sequence(cons, keys):
            continue
        for c in cons:
            if c.cause in keys and c.effect in keys:
                ca, ea = acts[keys.index(c.cause)], acts[keys.index(c.effect)]
                if ca.end <= ea.start and ca.proto.key not in keys[keys.index(c.effect) :]:
                    text = rec.text
                    swapped = text[: ca.start] + ea.phrase + text[ca.end : ea.start] + ca.phrase + text[ea.end :]
                    from dishgraph.api import DishGraph

                    g = DishGraph(store, glossary=glossary)
                    assert g.check_order(dish, text) == []
                    found = g.check_order(dish, swapped)
                    if any(v.cause == c.cause and v.effect == c.effect for v in found):
                        v = next(v for v in found if v.cause == c.cause)
                        assert v.effect_pos < v.cause_pos and v.cause_phrase and v.effect_phrase
                        return
    pytest.fail("no recipe with a swappable constrained pair")
