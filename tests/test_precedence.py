"""Order knowledge with evidence: aligned repeats, the tests and decisions, levels with backoff, the checker."""

from __future__ import annotations

from collections import Counter

import pytest

from dishgraph.knowledge import order, precedence
from dishgraph.knowledge.order import OrderSettings
from dishgraph.testing.planted import load_planted, planted_order_corpus


def test_repeated_actions_are_aligned_not_read_at_their_first_occurrence():
    # oil heated twice around the sesame: neither order is strict, so neither can be broken
    assert precedence.strict_pairs(["oil", "chicken", "sesame", "oil"]) == [("chicken", "sesame")]
    assert set(precedence.strict_pairs(["a", "b", "c"])) == {("a", "b"), ("a", "c"), ("b", "c")}


def test_sign_test_bh_and_wilson():
    assert precedence.sign_test(6, 6) == pytest.approx(2 / 64)
    assert precedence.sign_test(3, 6) == 1.0
    assert precedence.bh([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.04, 0.04])
    lo, hi = precedence.wilson(9, 10)
    assert 0.55 < lo < 0.9 < hi <= 1


def test_one_direction_only_and_cycles_reported_not_kept():
    counts = Counter({("a", "b"): 30, ("b", "a"): 2, ("x", "y"): 2, ("y", "x"): 2})
    ev = {(e.cause, e.effect): e for e in precedence.tested_pairs(counts, "dish")}
    assert ev[("a", "b")].kept and ("b", "a") not in ev
    assert ev[("a", "b")].ci_low > 0 and ev[("a", "b")].q_value <= 0.05
    assert not next(e for e in ev.values() if {e.cause, e.effect} == {"x", "y"}).kept
    cyc = Counter({("a", "b"): 40, ("b", "c"): 40, ("c", "a"): 40})
    out = precedence.tested_pairs(cyc, "global")
    assert all(not e.kept and e.decision == "cycle" for e in out)
    # few recipes: never significant, whatever the direction
    assert not any(e.kept for e in precedence.tested_pairs(Counter({("a", "b"): 3}), "dish"))


def test_backoff_and_whole_recipe_check():
    dish = precedence.Level("dish", Counter({("wash", "cut"): 2}))  # too few: undecided here
    glob = precedence.Level("global", Counter({("wash", "cut"): 60, ("cut", "wash"): 3, ("cut", "fry"): 80}))
    look = precedence.backoff([dish, glob])
    assert look("cut", "wash").level == "global" and look("cut", "wash").cause == "wash"
    ok = precedence.check_recipe(["wash", "cut", "fry"], look)
    assert not ok.violations and not ok.flagged and ok.applicable == 2
    rev = precedence.check_recipe(["fry", "cut", "wash"], look, ["f", "c", "w"])
    assert rev.flagged and {(v.cause, v.effect) for v in rev.violations} == {("wash", "cut"), ("cut", "fry")}
    v = next(v for v in rev.violations if v.cause == "wash")
    assert (v.cause_pos, v.effect_pos, v.cause_phrase, v.effect_phrase) == (2, 1, "w", "c")
    assert 0.85 < v.confidence < 1 and v.level == "global"
    # an interleaved repeat is no violation
    assert not precedence.check_recipe(["cut", "wash", "cut", "fry"], look).violations


def test_families_share_two_components():
    comps = {
        "红烧肉": {"action:红烧", "food:肉"},
        "红烧鱼": {"action:红烧", "food:鱼"},
        "回锅肉": {"action:回锅", "food:肉"},
        "红烧猪肉": {"action:红烧", "food:肉", "food:猪"},
    }
    fam = precedence.families(comps, ["红烧肉", "红烧鱼"])
    assert fam == {"红烧肉": ["红烧猪肉"], "红烧鱼": []}


@pytest.fixture
def planted(store):
    corpus = planted_order_corpus(n_dishes=2, n_recipes=50, n_actions=20, seed=11)
    load_planted(store, corpus)
    return corpus


def test_tested_constraints_in_the_graph_and_the_check(store, planted):
    from dishgraph.api import DishGraph

    rep = order.estimate_tested(store, min_recipes=10)
    assert rep.dishes == 2 and rep.kept["dish"] > 0 and rep.kept["global"] > 0
    cons = order.dish_constraints(store, "planted-dish-0", source="tested")
    assert cons and all(c.kept and c.level == "dish" and c.ci_low > 0 and c.q_value <= 0.05 for c in cons)
    truth = planted.ancestors["planted-dish-0"]
    assert not any((c.effect, c.cause) in truth for c in cons)  # never against a planted dependency
    assert sum((c.cause, c.effect) in truth for c in cons) >= 0.3 * len(cons)
    assert not {(c.cause, c.effect) for c in cons} & {(c.effect, c.cause) for c in cons}
    g = DishGraph(store)
    c0 = max(cons, key=lambda c: c.confidence)
    before, _ = g.order_constraints("planted-dish-0", c0.effect, source="tested", all_actions=True, min_confidence=0.0)
    sure, _ = g.order_constraints("planted-dish-0", c0.effect, "tested", True, min_confidence=0.99)
    assert c0.cause in {c.cause for c in before} and all(c.confidence >= 0.99 for c in sure)
    assert len(sure) <= len(before)
    recipe = [a.key for a in planted.recipes["planted-dish-0"][0]]
    rep_ok = g.check_order_report("planted-dish-0", recipe, all_actions=True)
    rep_rev = g.check_order_report("planted-dish-0", recipe[::-1], all_actions=True)
    assert not rep_ok.flagged and rep_rev.flagged and rep_rev.violations
    assert {v.level for v in rep_rev.violations} <= set(precedence.LEVELS)
    assert g.check_order("planted-dish-0", recipe[::-1], all_actions=True) == rep_rev.violations
    # a named source keeps the first-occurrence check of that source
    assert g.check_order_report("planted-dish-0", recipe, source="estimated", all_actions=True).confidence is None


def test_estimated_constraints_carry_their_evidence(store, planted):
    order.estimate_order(store, ["planted-dish-0"], OrderSettings())
    cons = order.dish_constraints(store, "planted-dish-0", source="estimated")
    assert cons and all(c.ci_low is not None and c.q_value is not None and c.decision for c in cons)
    assert all(c.ci_low > 0 and c.q_value <= 0.05 for c in cons if c.kept)
    assert all(c.ate > 0.1 for c in cons)  # the CRG method's edges are what they were
    kept = {(c.cause, c.effect) for c in cons if c.kept}
    assert kept and not kept & {(e, c) for c, e in kept}
