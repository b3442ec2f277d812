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


def test_whole_recipe_score_backs_off_to_classes_and_verbs_and_reads_every_pair():
    P = precedence.PairCounts
    glob = P("global", Counter({("wash|a|", "cut|a|"): 60, ("cut|a|", "wash|a|"): 3}))
    verbs = P("verbs", Counter({("cut", "fry"): 900, ("fry", "cut"): 50, ("wash", "fry"): 400}))
    classes = P("global classes", Counter({("cut|A|", "fry|B|"): 2, ("fry|B|", "cut|A|"): 30}))
    model = precedence.OrderModel(
        [P("dish", Counter()), P("family", Counter()), glob], [P("dish verbs", Counter()), verbs], classes=[classes]
    )
    po = model.pair("cut|a|", "fry|b|")  # no recipe orders the keys: the verbs' order decides
    assert po.level == "verbs" and po.p > 0.9 and po.ci_low < po.p < po.ci_high
    # their class keys are ordered the other way round in 32 recipes: the finer evidence pulls p down
    po_c = model.pair("cut|a|", "fry|b|", "cut|A|", "fry|B|")
    assert po_c.level == "global classes" and (po_c.n_before, po_c.n_after) == (2, 30) and po_c.p < 0.5
    assert model.pair("wash|a|", "cut|a|").level == "global" and model.pair("x||", "y||") is None
    # held-out counts leave the model: without them the pair falls back to the verbs (none for wash/cut)
    glob.minus = Counter(glob.counts)
    assert model.pair("wash|a|", "cut|a|") is None
    glob.minus = Counter()
    ok = precedence.score_recipe(["wash|a|", "cut|a|", "fry|b|"], model, ["w", "c", "f"])
    rev = precedence.score_recipe(["fry|b|", "cut|a|", "wash|a|"], model, ["f", "c", "w"])
    assert ok.z > 1 and not ok.violations and not ok.flagged and ok.pairs == 3
    assert rev.z < -1 and rev.flagged and rev.confidence >= precedence.MIN_RECIPE_CONFIDENCE
    v = next(v for v in rev.violations if v.cause == "wash|a|" and v.effect == "cut|a|")
    assert v.level == "global" and (v.n_before, v.n_after) == (60, 3)
    assert (v.cause_pos, v.effect_pos, v.cause_phrase, v.effect_phrase) == (2, 1, "w", "c")
    assert 0.8 < v.confidence < 1 and v.ci_low < v.ate < v.ci_high
    # an interleaved repeat orders nothing: the pair is not read
    assert precedence.score_recipe(["cut|a|", "wash|a|", "cut|a|"], model).pairs == 0


def test_recipe_confidence_is_the_share_of_real_recipes_reading_as_low():
    cal = precedence.CALIBRATION
    top_u, top_w = cal["u"][-1][0], cal["w"][-1][0]
    assert precedence.recipe_confidence(top_u, top_w, cal) == pytest.approx(0.0)
    assert precedence.recipe_confidence(-50.0, top_w, cal) == pytest.approx(0.999)
    # the 5th percentile of real recipes on either reading reads as confidence 0.95
    u5 = next(v for v, s in cal["u"] if s == 0.05)
    w5 = next(v for v, s in cal["w"] if s == 0.05)
    assert precedence.recipe_confidence(u5, top_w, cal) == pytest.approx(0.95)
    assert precedence.recipe_confidence(top_u, w5, cal) == pytest.approx(0.95)
    # a long recipe must score higher than a short one to read as real; its lowest pair may be lower
    assert precedence.readings(2.0, -3.0, 100)[0] < precedence.readings(2.0, -3.0, 4)[0]
    assert precedence.readings(2.0, -3.0, 100)[1] > precedence.readings(2.0, -3.0, 4)[1]


def test_real_recipes_read_as_real_and_reversed_ones_as_out_of_order(base_order_graph, glossary):
    """Real data: three base dishes of the release parsed into the graph; each dish's recipes as written and
    with their sentences reversed, scored by the whole-recipe checker (the counts include the recipe checked,
    so this tests the wiring and the direction, not the held-out figures: benchmarks/bench_order_check.py)."""
    import re

    from dishgraph.api import DishGraph

    store, recs = base_order_graph
    g = DishGraph(store, glossary=glossary)
    real = rev = n = 0
    for r in recs:
        lines = [x for x in re.split(r"(?<=[。！？；\n])", r.text) if x.strip()]
        if len(lines) < 4 or n == 8:
            continue
        n += 1
        real += g.check_order_report(r.dish, r.text).flagged
        rep = g.check_order_report(r.dish, "".join(reversed(lines)))
        rev += rep.flagged
        assert rep.score is not None and rep.score < 0 and rep.violations
        v = rep.violations[0]
        assert v.level in ("dish", "family", "global", "dish classes", "global classes", "dish verbs", "verbs")
        assert v.n_before > v.n_after and 0.5 < v.confidence <= 1 and v.cause_phrase and v.effect_phrase
    assert n == 8 and real <= 1 and rev >= 6, (real, rev)
