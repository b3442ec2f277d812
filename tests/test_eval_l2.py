"""CRG L2 metrics, hand-computed on small cases (NaN rules, soft matching, order filter, simple replacements),
and on the real release with the real parser."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dishgraph.actions import Action, ProtoAction
from dishgraph.eval.l2 import (
    INSERT,
    REMOVE,
    CachedParse,
    L2Reference,
    OrderConstraint,
    calc_f1,
    evaluate_l2,
    measure_metrics,
    score_instance,
    summarize_l2,
    validate_orders,
)
from dishgraph.eval.outputs import ADD, REPLACE, Instance, load_instances

nan = math.nan


def P(verb, *ingr, tools=()):
    return ProtoAction(verb, frozenset(ingr), frozenset(tools))


def act(verb, *ingr, phrase=None):
    """An action whose surface forms equal its classes (the tiny glossary is the identity)."""
    return Action(verb=verb, ingredients=list(ingr), proto=P(verb, *ingr), phrase=phrase or verb + "".join(ingr))


def table_similarity(pairs):
    """Similarity from a fixed table of phrase pairs (0 elsewhere), so soft scores are hand-computable."""

    def sim(a, b):
        return np.array([[pairs.get((x, y), 1.0 if x == y else 0.0) for y in b] for x in a])

    return sim


def same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert (math.isnan(x) and math.isnan(y)) or x == pytest.approx(y), (a, b)


# ------------------------------------------------------------------------------------------ measure_metrics


def test_nan_rules_of_the_reference():
    sim = table_similarity({})
    same(measure_metrics({}, {}, [], sim), (nan,) * 6)
    same(measure_metrics({}, {P("切", "葱"): "切葱"}, [], sim), (0, nan, nan, 0, nan, nan))
    same(measure_metrics({P("切", "葱"): ["切葱"]}, {}, [], sim), (nan, 0, nan, nan, 0, nan))
    assert calc_f1(0, 0) == 0 and calc_f1(0.5, 1.0) == pytest.approx(2 / 3)


def test_hard_and_soft_match_hand_computed():
    p1, p2, p3 = P("切", "葱"), P("炒", "肉"), P("煎", "肉")
    pivots = {p1: ["切葱"], p2: ["炒肉"]}
    generated = {p1: "把葱切", p3: "煎肉"}
    # 炒肉 ~ 煎肉 at 0.95 ≥ τ: soft credit 0.95 on both sides; p1 matches hard
    res = measure_metrics(pivots, generated, [], table_similarity({("炒肉", "煎肉"): 0.95}))
    same(res, (0.5, 0.5, 0.5, 0.975, 0.975, 0.975))
    # below τ = 0.9 the soft weight is dropped
    res = measure_metrics(pivots, generated, [], table_similarity({("炒肉", "煎肉"): 0.85}))
    same(res, (0.5, 0.5, 0.5, 0.5, 0.5, 0.5))
    # a pivot with several reference phrases takes the best one; precision over generated, recall over pivots
    res = measure_metrics({p2: ["爆炒肉", "炒肉"]}, generated, [], table_similarity({("炒肉", "煎肉"): 0.92}))
    same(res, (0, 0, 0, 0.46, 0.92, calc_f1(0.46, 0.92)))
    # similarity ≥ 1 - 1e-5 counts as hard, as in the reference
    res = measure_metrics({p2: ["炒肉"]}, {p3: "炒肉"}, [], table_similarity({}))
    same(res, (1, 1, 1, 1, 1, 1))


def test_wrong_order_actions_leave_candidates_but_not_the_denominator():
    p1, p2 = P("切", "葱"), P("炒", "肉")
    res = measure_metrics({p1: ["切葱"], p2: ["炒肉"]}, {p1: "切葱", p2: "炒肉"}, [p2], table_similarity({}))
    same(res, (0.5, 0.5, 0.5, 0.5, 0.5, 0.5))
    res = measure_metrics({p2: ["炒肉"]}, {p2: "炒肉"}, [p2], table_similarity({}))
    same(res, (0, 0, 0, 0, 0, 0))


def test_validate_orders_uses_last_occurrence_and_only_correct_insertions():
    a, c, e = P("切", "葱"), P("洗", "葱"), P("炒", "葱")
    cons = [OrderConstraint(a, ((c, a), (a, e)))]
    assert validate_orders({a}, [c, a, e], cons) == ([], 1)
    assert validate_orders({a}, [a, c, e], cons) == ([a], 1)  # 洗 after 切: violated
    assert validate_orders({a}, [c, a, e, c], cons) == ([a], 1)  # last 洗 comes after 切
    assert validate_orders({a}, [a, e], [OrderConstraint(a, ((c, a),))]) == ([], 0)  # cause absent: unchecked
    assert validate_orders(set(), [a, c, e], cons) == ([], 0)  # not a correct insertion


# ------------------------------------------------------------------------------------------ score_instance


def _instance(old="葱", new="蒜", kind=REPLACE):
    return Instance(0, "甲", "乙", "base", kind, old, new)


def test_simple_replacements_are_not_changes():
    inst = _instance("葱", "蒜")
    base = [act("洗", "葱"), act("切", "葱"), act("炒", "肉")]
    gen = [act("洗", "蒜"), act("切", "蒜"), act("炒", "肉")]
    r = score_instance(inst, base, gen, [], [], table_similarity({}))
    assert (r.removed, r.inserted) == (0, 0)
    same(r.all, (nan,) * 6)
    # an unrelated insertion is a change; with no pivots precision is 0 and recall NaN
    r = score_instance(inst, base, gen + [act("煮", "面")], [], [], table_similarity({}))
    assert (r.removed, r.inserted) == (0, 1)
    same(r.all, (0, nan, nan, 0, nan, nan))
    # a remove-pivot is counted even when the action was only replaced
    r = score_instance(inst, base, gen, [(P("切", "葱"), REMOVE)], [], table_similarity({}))
    assert (r.pivots_remove, r.removed, r.inserted) == (1, 1, 0)
    same(r.all, (1, 1, 1, 1, 1, 1))
    same(r.remove, (1, 1, 1, 1, 1, 1))
    same(r.insert, (nan,) * 6)


def test_replacement_maps_surface_form_through_classes():
    # surface 小葱 (class 葱) replaced by 大蒜 (class 蒜): the copy 切(蒜) is a simple replacement
    cls = {"小葱": "葱", "大蒜": "蒜"}.get
    inst = _instance("小葱", "大蒜")
    base = [Action("切", ["小葱"], proto=P("切", "葱"), phrase="切小葱")]
    gen = [Action("切", ["大蒜"], proto=P("切", "蒜"), phrase="切大蒜")]
    r = score_instance(inst, base, gen, [], [], None, lambda s: cls(s) or s)
    assert (r.removed, r.inserted) == (0, 0)
    # "add" pairs have no replaced ingredient: both actions are changes
    r = score_instance(_instance("", "大蒜", ADD), base, gen, [], [], None, lambda s: cls(s) or s)
    assert (r.removed, r.inserted) == (1, 1)


def test_pivots_apply_only_where_they_fit_the_base_recipe():
    inst = _instance()
    base = [act("切", "葱"), act("炒", "肉")]
    gen = [act("炒", "肉"), act("淋", "油")]
    pivots = [
        (P("切", "葱"), REMOVE),
        (P("煎", "蛋"), REMOVE),  # second not in base: ignored
        (P("淋", "油"), INSERT),
        (P("炒", "肉"), INSERT),
    ]  # second already in base: ignored
    r = score_instance(inst, base, gen, pivots, [], table_similarity({}))
    assert (r.pivots_remove, r.pivots_insert, r.removed, r.inserted) == (1, 1, 1, 1)
    same(r.all, (1, 1, 1, 1, 1, 1))


def test_order_constraint_filter_on_an_instance():
    inst = _instance()
    ins, cause = P("淋", "油"), P("炒", "肉")
    base = [act("炒", "肉"), act("切", "葱")]
    cons = [OrderConstraint(ins, ((cause, ins),))]
    good = [act("炒", "肉"), act("切", "葱"), act("淋", "油")]
    bad = [act("淋", "油"), act("炒", "肉"), act("切", "葱")]
    r = score_instance(inst, base, good, [(ins, INSERT)], cons, table_similarity({}))
    assert (r.order_checked, r.order_wrong) == (1, 0)
    same(r.all, (1, 1, 1, 1, 1, 1))
    r = score_instance(inst, base, bad, [(ins, INSERT)], cons, table_similarity({}))
    assert (r.order_checked, r.order_wrong) == (1, 1)
    same(r.all, (0, 0, 0, 0, 0, 0))
    same(r.insert, (0, 0, 0, 0, 0, 0))
    summary = summarize_l2([score_instance(inst, base, g, [(ins, INSERT)], cons, None) for g in (good, bad)])
    assert summary["order_accuracy"] == pytest.approx(50.0)
    assert summary["hard_f1"] == pytest.approx(50.0)


def test_summary_is_nanmean_over_instances():
    inst = _instance()
    base = [act("切", "葱")]
    rows = [
        score_instance(inst, base, base, [], [], None),  # all NaN
        score_instance(inst, base, [], [(P("切", "葱"), REMOVE)], [], None),  # (1,1,1,...)
        score_instance(inst, base, base + [act("煮", "面")], [], [], None),  # P=0, R NaN
    ]
    s = summarize_l2(rows)
    assert s["hard_p"] == pytest.approx(50.0)  # mean(1, 0)
    assert s["hard_r"] == pytest.approx(100.0)  # mean(1)
    assert s["hard_f1"] == pytest.approx(100.0)
    assert s["n_empty"] == 1 and s["n"] == 3
    assert math.isnan(s["order_accuracy"])
    # the reference's F1 is defined on one instance only; counted as 0 elsewhere it is a third of that
    assert s["n_scored"] == 1 and s["hard_f1_all"] == pytest.approx(100.0 / 3)


def test_cached_parse_prefers_cache_and_memoises():
    calls = []

    def parse(text):
        calls.append(text)
        return [act("切", "葱")]

    served = {"base": [act("炒", "肉")]}
    cp = CachedParse(parse, served)
    assert cp("base")[0].verb == "炒" and cp("gen")[0].verb == "切" and cp("gen")[0].verb == "切"
    assert calls == ["gen"] and cp.parsed == 1
    cp2 = CachedParse(parse, lambda t: None)
    cp2("x")
    assert calls == ["gen", "x"]


# ------------------------------------------------------------------------------------------ reference data


def test_release_reference_loads(crg_dir):
    ref = L2Reference.from_release(crg_dir)
    assert len(ref.pivots) == 50
    assert sum(map(len, ref.pivots.values())) == 1121
    kinds = [k for v in ref.pivots.values() for _, k in v]
    assert kinds.count(REMOVE) == 679 and kinds.count(INSERT) == 442
    assert sum(len(c.pairs) for v in ref.constraints.values() for c in v) == 520
    first = ref.pivots["白灼秋葵"][0]
    assert first == (P("淋", "蔬菜"), REMOVE)


def test_flat_constraint_pairs_attach_to_both_actions():
    a, b = P("切", "葱"), P("炒", "葱")
    ref = L2Reference.from_data({"乙": [(a, INSERT)]}, {"乙": [(a, b)]})
    got = {c.action: c.pairs for c in ref.constraints["乙"]}
    assert got == {a: ((a, b),), b: ((a, b),)}
    with pytest.raises(ValueError, match="kind must be remove\\|insert"):
        L2Reference.from_data({"乙": [(a, "add")]})


def test_real_parser_on_release_instances(glossary, crg_dir):
    from dishgraph.ingest.parser import RecipeParser

    insts = load_instances(crg_dir)[:50]
    ref = L2Reference.from_release(crg_dir)
    parse = CachedParse(RecipeParser(glossary).parse)
    ident = evaluate_l2([i.base_recipe for i in insts], insts, parse, ref)
    # copying the base recipe changes nothing: precision undefined, recall 0 wherever pivots apply
    assert math.isnan(ident["hard_p"]) and ident["hard_r"] == 0 and ident["changes_inserted"] == 0
    assert ident["pivots_remove"] + ident["pivots_insert"] > 0
    assert parse.parsed == 50  # generations equal to base recipes are parsed once
    emptied = evaluate_l2([""] * 50, insts, parse, ref)
    assert emptied["changes_removed"] > 0 and emptied["remove_hard_r"] == pytest.approx(100.0)
