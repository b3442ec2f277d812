"""Pivot mining in Cypher (CRG §4.2) against planted corpora and the rule boundaries."""

from __future__ import annotations

import pytest

from dishgraph.actions import Action
from dishgraph.eval.parse_recall import read_base_recipes
from dishgraph.ingest import loader
from dishgraph.knowledge import frequencies, pivots
from dishgraph.knowledge.pivots import PivotThresholds, classify
from dishgraph.testing.planted import load_planted, planted_pivot_corpus, proto


def test_planted_pairs_recover_exactly(store):
    corpus = planted_pivot_corpus(n_pairs=4, n_recipes=50, seed=1)
    load_planted(store, corpus)
    results = pivots.mine_all(store)
    assert [r.pair for r in results] == sorted(corpus.pivots)
    for r in results:
        mined = {p.action: p.kind for p in r.pivots}
        assert mined == corpus.pivots[r.pair]
        assert {"remove", "insert", "manual"} <= set(mined.values())
        assert r.base_recipes == r.target_recipes == 50
    # stored edges equal the returned ones; re-mining replaces rather than duplicates
    base, target = corpus.pairs[0]
    first = {(p.action, p.kind) for p in pivots.pivots(store, base, target, source="mined")}
    again = pivots.mine_pivots(store, base, target)
    assert {(p.action, p.kind) for p in again.pivots} == first
    assert len(pivots.pivots(store, base, target)) == len(first)


def test_uses_frequencies(store):
    corpus = planted_pivot_corpus(n_pairs=1, n_recipes=40, seed=2)
    load_planted(store, corpus)
    frequencies.materialize_uses(store)
    base, _ = corpus.pairs[0]
    rows = frequencies.dish_actions(store, base, top=100)
    counts = {}
    for steps in corpus.recipes[base]:
        for a in set(steps):
            counts[a.key] = counts.get(a.key, 0) + 1
    assert {r["action"]: r["n"] for r in rows} == counts
    assert all(r["total"] == 40 and r["freq"] == pytest.approx(r["n"] / 40) for r in rows)
    assert [r["freq"] for r in rows] == sorted((r["freq"] for r in rows), reverse=True)
    assert len(frequencies.dish_actions(store, base, top=3)) == 3
    assert all(r["freq"] >= 0.5 for r in frequencies.dish_actions(store, base, top=100, min_freq=0.5))


def test_new_dishes_get_the_uses_edges_the_merge_path_writes(store):
    """Dishes without USES get theirs in one bulk write; re-materializing (clear + MERGE) gives the same edges."""
    corpus = planted_pivot_corpus(n_pairs=2, n_recipes=30, seed=3)
    load_planted(store, corpus)
    edges = (
        "MATCH (d:Dish)-[u:USES]->(a:ProtoAction) RETURN d.name AS d, a.key AS a, u.n AS n, u.total AS t, u.freq AS f"
    )
    assert not store.execute(edges)
    bulk = frequencies.materialize_uses(store)  # every dish new: the bulk path
    first = sorted(tuple(r.values()) for r in store.execute(edges))
    assert frequencies.materialize_uses(store) == bulk  # every dish has edges now: clear + MERGE
    assert sorted(tuple(r.values()) for r in store.execute(edges)) == first
    assert sum(bulk.values()) == len(first) > 0 and frequencies.stale_uses_dishes(store) == []


def test_a_dish_without_actions_gets_no_bulk_write(store):
    """A target without recipes, after other dishes have USES: its bulk write would COPY from an empty
    subquery into a non-empty table, which crashed LadybugDB 0.22 (segfault). Nothing is copied instead."""
    load_planted(store, planted_pivot_corpus(n_pairs=1, n_recipes=10, seed=5))
    loader.load_dishes(store, ["空菜"], "test", mode="merge")
    assert frequencies.materialize_uses(store)  # USES not empty now
    assert frequencies.materialize_uses(store, ["空菜"]) == {"空菜": 0}
    assert frequencies.materialize_uses(store, ["空菜", "没有这道菜"]) == {"空菜": 0, "没有这道菜": 0}


def test_the_bulk_uses_write_is_refused_before_it_can_fill_the_disk(store, monkeypatch):
    """The engine cannot survive a full disk inside a checkpoint: the bulk USES write asks first."""
    from dishgraph.graph import diskspace

    load_planted(store, planted_pivot_corpus(n_pairs=1, n_recipes=10, seed=4))
    monkeypatch.setattr(diskspace, "FREE_SPACE", lambda path: 0)
    with pytest.raises(diskspace.DiskFull, match="not enough free space"):
        frequencies.materialize_uses(store)
    monkeypatch.undo()
    assert not store.execute("MATCH (:Dish)-[u:USES]->() RETURN u") and frequencies.materialize_uses(store)


def _boundary_store(store, n_recipes, cases):
    """One pair; cases: name -> (base count, target count) out of n_recipes each."""
    protos = {name: proto(i, tag="b") for i, name in enumerate(cases)}
    loader.load_dishes(store, ["B", "T"], "test")
    store.write(
        "load_pairs",
        [{"key": "B->T", "base": "B", "target": "T", "change_from": "", "change_to": "", "change_kind": "test"}],
    )
    recs, parsed = [], []
    for dish, side in (("B", 0), ("T", 1)):
        for j in range(n_recipes):
            rid = f"{dish}{j}"
            recs.append(loader.RecipeRecord(rid, dish, "x", "test"))
            acts = [Action(p.verb, proto=p, phrase=p.verb) for name, p in protos.items() if j < cases[name][side]]
            parsed.append(loader.ParsedRecipe(rid, acts))
    loader.load_recipes(store, recs)
    loader.load_parsed(store, parsed)
    return {p.key: name for name, p in protos.items()}


def test_rule_boundaries_exact(store):
    # 100 recipes per dish: frequencies are exact hundredths; alpha=5, tau_r=0.01, tau_i=0.1.
    cases = {
        "remove_ft0": (30, 0),  # fb > 5*0 and 0 < 0.01
        "manual_ft_eq_tau_r": (30, 1),  # ft = 0.01 is not < tau_r -> manual (ratio 30 > 5)
        "ratio_eq_alpha_base": (5, 1),  # fb = 5*ft exactly: not a pivot
        "ratio_above_alpha_base": (6, 1),  # 0.06 > 0.05 but ft=0.01 not < 0.01 -> manual
        "insert_ft_above_tau_i": (0, 11),  # 0.11 > 0.1 -> insert
        "manual_ft_eq_tau_i": (0, 10),  # ft = 0.1 is not > tau_i -> manual
        "ratio_eq_alpha_target": (3, 15),  # ft = 5*fb exactly: not a pivot
        "insert_ratio_above": (2, 15),  # 0.15 > 0.10 and 0.15 > 0.1 -> insert
        "manual_target_small": (0, 5),  # ratio holds (0.05 > 0) but ft < tau_i -> manual
        "only_base_rare": (1, 0),  # f_t absent: remove even when fb is tiny
        "shared": (40, 40),
    }
    names = _boundary_store(store, 100, cases)
    res = pivots.mine_pivots(store, "B", "T", PivotThresholds(5.0, 0.01, 0.1))
    got = {names[p.action]: p.kind for p in res.pivots}
    expected = {name: classify(b / 100, t / 100) for name, (b, t) in cases.items()}
    expected = {k: v for k, v in expected.items() if v}
    assert got == expected
    assert got == {
        "remove_ft0": "remove",
        "manual_ft_eq_tau_r": "manual",
        "ratio_above_alpha_base": "manual",
        "insert_ft_above_tau_i": "insert",
        "manual_ft_eq_tau_i": "manual",
        "insert_ratio_above": "insert",
        "manual_target_small": "manual",
        "only_base_rare": "remove",
    }
    fbft = {names[p.action]: (p.fb, p.ft) for p in res.pivots}
    assert fbft["insert_ft_above_tau_i"] == (0.0, pytest.approx(0.11))
    # thresholds are parameters, not constants: a stricter tau_i turns an insert into manual
    res2 = pivots.mine_pivots(store, "B", "T", PivotThresholds(5.0, 0.01, 0.12))
    assert {names[p.action]: p.kind for p in res2.pivots}["insert_ft_above_tau_i"] == "manual"


def test_side_by_side_and_compare(store):
    corpus = planted_pivot_corpus(n_pairs=1, n_recipes=50, seed=3)
    load_planted(store, corpus)
    base, target = corpus.pairs[0]
    res = pivots.mine_pivots(store, base, target)
    truth = corpus.pivots[res.pair]
    # a reference edge set like the lead's release import: the planted remove/insert actions minus one
    ref = [(k, v) for k, v in sorted(truth.items()) if v != "manual"]
    dropped = ref.pop()
    store.write(
        "load_reference_pivots", [{"pair": res.pair, "key": k, "kind": v, "source": "crg-release"} for k, v in ref]
    )
    rows = {r["action"]: r for r in pivots.side_by_side(store, base, target)}
    assert rows[dropped[0]]["mined"] == dropped[1] and rows[dropped[0]]["release"] is None
    assert all(rows[k]["release"] == v == rows[k]["mined"] for k, v in ref)
    cmp = pivots.compare_pivots(store, base, target)
    assert cmp["kinds"]["all"]["precision"] == pytest.approx(len(ref) / (len(ref) + 1))
    assert cmp["kinds"]["all"]["recall"] == 1.0


def test_unknown_pair_is_an_error_not_an_empty_table(store):
    """show/compare of a pair the graph lacks say so (an empty table or all-zero scores would read as a result)."""
    from dishgraph.errors import UnknownName

    corpus = planted_pivot_corpus(n_pairs=1, n_recipes=20, seed=3)
    load_planted(store, corpus)
    base, target = corpus.pairs[0]
    assert pivots.known_pair(store, base, target) == pivots.pair_key(base, target)
    assert pivots.side_by_side(store, base, target) == []  # a known pair before mining: empty is the truth
    for call in (pivots.side_by_side, pivots.compare_pivots):
        with pytest.raises(UnknownName, match=r"unknown dish '不存在'"):
            call(store, base, "不存在")
        with pytest.raises(UnknownName, match=rf"the pair runs the other way, '{base}->{target}'.*{base} {target}\?"):
            call(store, target, base)  # the two dishes given the other way round: the pair that exists is named


def test_real_base_dish_pairs(store, crg_dir, glossary):
    """Mining between two real base dishes parsed from the release (recipes exist only for base dishes)."""
    parser_mod = pytest.importorskip("dishgraph.ingest.parser")
    by_dish = read_base_recipes(crg_dir)
    d1, d2 = sorted(by_dish)[:2]
    parser = parser_mod.RecipeParser(glossary)
    loader.load_dishes(store, [d1, d2], "crg")
    store.write(
        "load_pairs",
        [{"key": f"{d1}->{d2}", "base": d1, "target": d2, "change_from": "", "change_to": "", "change_kind": "test"}],
    )
    recs = [loader.RecipeRecord(loader.recipe_id("crg", d, t), d, t, "crg") for d in (d1, d2) for t in by_dish[d]]
    loader.load_recipes(store, recs)
    loader.load_parsed(store, [loader.ParsedRecipe(r.id, parser.parse(r.text)) for r in recs])
    res = pivots.mine_pivots(store, d1, d2)
    assert res.base_recipes == len(by_dish[d1]) and res.target_recipes == len(by_dish[d2])
    # recompute the rule in Python from the stored frequencies: Cypher and the oracle agree on every action
    fb = {r["action"]: r["freq"] for r in frequencies.dish_actions(store, d1, top=10_000)}
    ft = {r["action"]: r["freq"] for r in frequencies.dish_actions(store, d2, top=10_000)}
    expected = {a: classify(fb.get(a, 0.0), ft.get(a, 0.0)) for a in set(fb) | set(ft)}
    assert {p.action: p.kind for p in res.pivots} == {a: k for a, k in expected.items() if k}
    assert res.counts()["remove"] > 0 and res.counts()["insert"] > 0


def test_new_pair_of_two_dishes_with_recipes(store):
    """Two dishes that are no DishPair (e.g. two base dishes) are mined only when asked to create the pair."""
    from dishgraph.errors import UnknownName

    corpus = planted_pivot_corpus(n_pairs=2, n_recipes=30, seed=4)
    load_planted(store, corpus)
    b0, b1 = corpus.pairs[0][0], corpus.pairs[1][0]
    with pytest.raises(UnknownName, match="no DishPair .*--new-pair"):
        pivots.mine_pivots(store, b0, b1)
    res = pivots.mine_pivots(store, b0, b1, create=True)
    assert res.base_recipes == res.target_recipes == 30
    fb = {r["action"]: r["freq"] for r in frequencies.dish_actions(store, b0, top=10_000)}
    ft = {r["action"]: r["freq"] for r in frequencies.dish_actions(store, b1, top=10_000)}
    expected = {a: classify(fb.get(a, 0.0), ft.get(a, 0.0)) for a in set(fb) | set(ft)}
    assert {p.action: p.kind for p in res.pivots} == {a: k for a, k in expected.items() if k}
    assert pivots.pair_info(store, f"{b0}->{b1}")["change_kind"] == "adhoc"
    assert pivots.mine_pivots(store, b0, b1, create=True).counts() == res.counts()  # idempotent
    with pytest.raises(UnknownName, match="unknown dish 'nowhere'"):
        pivots.mine_pivots(store, b0, "nowhere", create=True)
    loader.load_dishes(store, ["no-recipes"], "test")  # a known dish without recipes (as a release target)
    with pytest.raises(KeyError, match="no parsed recipes"):
        pivots.mine_pivots(store, b0, "no-recipes", create=True)
