"""The swap reading: a trigram model of action sequences, the dependent pairs a swap moves, the gain of swapping
one back; and `order check` with it, on real base recipes in the embedded graph."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dishgraph.knowledge import step_swaps

KEYS = ["洗|土豆|", "切|土豆|", "烧|油|锅", "炒|土豆|", "加入|盐|", "装盘|土豆|"]


def _corpus():
    """Potatoes washed, cut, fried, salted and plated, with a few cooks who salt first."""
    return [KEYS] * 20 + [["洗|土豆|", "切|土豆|", "加入|盐|", "烧|油|锅", "炒|土豆|", "装盘|土豆|"]] * 3


def test_a_context_distributes_at_most_all_its_mass_over_the_known_keys():
    lm = step_swaps.ActionTrigrams(_corpus())
    vocab = sorted(set(KEYS)) + [step_swaps.END]
    for a, b in [(step_swaps.START, step_swaps.START), ("洗|土豆|", "切|土豆|"), ("切|土豆|", "装盘|土豆|")]:
        total = sum(lm.p(a, b, c) for c in vocab)
        assert 0.5 < total <= 1 + 1e-9  # the rest is for keys and verbs never seen
    # an unseen key still reads by its verb: a known verb on a new food beats an unknown verb
    assert lm.p("洗|土豆|", "切|土豆|", "切|茄子|") > lm.p("洗|土豆|", "切|土豆|", "腌|茄子|") > 0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.sampled_from(KEYS + ["蒸|鱼|", "切|鱼|"]), max_size=8), max_size=6))
def test_every_trigram_probability_is_a_probability(seqs):
    lm = step_swaps.ActionTrigrams(seqs)
    dish = step_swaps.DishTrigrams(lm, seqs[:2])
    for a, b, c in [(step_swaps.START, step_swaps.START, "切|鱼|"), ("蒸|鱼|", "切|鱼|", step_swaps.END)]:
        for m in (lm, dish):
            lp = m.logp(a, b, c)
            assert math.isfinite(lp) and lp <= 1e-12


def test_dependent_pairs_share_a_food_class_differ_in_verb_and_sentence():
    units = [0, 0, 1, 2, 2, 3]
    pairs = list(step_swaps.dependent_pairs(KEYS, units))
    assert (0, 3) in pairs and (1, 5) in pairs  # 洗|土豆| … 炒|土豆|, 切|土豆| … 装盘|土豆|
    assert (0, 1) not in pairs  # one sentence
    assert (2, 3) not in pairs and (3, 4) not in pairs  # no food in common
    assert next(step_swaps.dependent_pairs(KEYS, range(len(KEYS)))) == (0, 1)  # each its own sentence


def test_the_swap_that_undoes_a_swap_gains_most():
    model = step_swaps.SwapModel.of(_corpus(), [])
    units = range(len(KEYS))
    real = step_swaps.read_swaps(model, KEYS, KEYS, units, cut=2.0)
    assert real.gain is not None and real.gain < 0 and not real.flagged  # nothing to fix
    swapped = KEYS[:]
    swapped[1], swapped[3] = swapped[3], swapped[1]  # fry the potato where it should be cut
    read = step_swaps.read_swaps(model, swapped, swapped, units, cut=2.0)
    assert (read.first, read.second) == (1, 3) and read.gain > 2.0 and read.flagged
    assert step_swaps.read_swaps(model, ["加入|盐|"], ["加入|盐|"], [0], 2.0).gain is None  # no pair: no reading
    # the gain is the log-likelihood's plus the weighted place gain, both of the same pair
    ((i, j, lm, place),) = step_swaps.pair_gains(model, swapped, [(1, 3)])
    assert (i, j) == (1, 3) and lm > 0 and place > 0
    assert read.gain == pytest.approx(lm + step_swaps.PLACE_WEIGHT * place, abs=1e-3)


def test_usual_places_back_off_from_the_dish_to_the_corpus_to_the_verb():
    corpus = step_swaps.KeyPlaces(_corpus())
    assert corpus.place("洗|土豆|") < 0.2 < 0.8 < corpus.place("装盘|土豆|")  # washing opens, plating closes
    assert corpus.place("洗|茄子|") < 0.5  # an unseen key: near its verb's place
    assert corpus.place("腌|鱼|") == pytest.approx(0.5)  # an unseen verb: the middle
    dish = step_swaps.KeyPlaces([["装盘|土豆|", "洗|土豆|"]] * 30, corpus)  # a dish that plates first
    assert dish.place("装盘|土豆|") < 0.2 and dish.place("切|土豆|") == pytest.approx(corpus.place("切|土豆|"))


def test_order_check_reads_a_swap_of_two_dependent_steps(base_order_graph, glossary):
    """Real recipes as parsed, and the same with one dependent pair swapped (each taking the sentence of its new
    place): the swapped ones gain more from their likeliest swap, which is mostly the one made (the model saw
    these recipes: this tests the wiring and the direction; held-out figures: benchmarks/bench_order_check.py)."""
    from dishgraph.api import DishGraph

    store, recs = base_order_graph
    g = DishGraph(store, glossary=glossary)
    parser = g._make_parser()
    higher = found = n = 0
    for r in recs[::7]:
        acts = [a for a in parser.parse(r.text) if a.proto is not None]
        pairs = list(step_swaps.dependent_pairs([a.proto.key for a in acts], [a.step for a in acts]))
        if not pairs or n == 12:
            continue
        n += 1
        i, j = pairs[len(pairs) // 2]
        swapped = acts[:]
        swapped[i], swapped[j] = (
            dataclasses.replace(acts[j], step=acts[i].step),
            dataclasses.replace(acts[i], step=acts[j].step),
        )
        a = g.check_order_report(r.dish, acts)
        b = g.check_order_report(r.dish, swapped)
        assert a.swap is not None and b.swap is not None
        assert a.swap["cut"] == step_swaps.SWAP_GAIN_CUT_ACTIONS  # not a text: the action sequence's line
        assert b.flagged or not b.swap["flagged"]  # the swap's flag is the check's
        higher += b.swap["gain"] > a.swap["gain"]
        found += (b.swap["first"], b.swap["second"]) == (i, j)
        assert b.swap["phrases"] == [swapped[b.swap["first"]].phrase, swapped[b.swap["second"]].phrase]
    assert n == 12 and higher >= 10 and found >= 6, (higher, found)
    text = g.check_order_report(recs[0].dish, recs[0].text)
    assert text.swap is not None and text.swap["cut"] == step_swaps.SWAP_GAIN_CUT  # a text: its own line


def test_a_text_flagged_by_a_swap_alone_names_the_pair_and_its_lines(capsys):
    from dishgraph.commands.order import render_check
    from dishgraph.knowledge.order import OrderCheck

    sw = step_swaps.SwapReading(15.2, 0, 2, 12.38, True).to_dict() | {"phrases": ["焯熟", "菜心洗净"]}
    rep = OrderCheck([], 3, 3, "", True, 0.4, 0.995, 3, score=0.5, swap=sw)
    rep.lines, rep.action_lines = ["锅中放水烧开，放入菜心焯熟。", "捞出。", "菜心洗净。"], [0, 1, 2]
    render_check(rep, explain=True)
    out = capsys.readouterr().out
    assert "out of order by its sentences or a swap, no pair violated" in out
    assert "one swap: two steps read swapped (gain 15.20, flag above 12.38); likeliest swap: '焯熟' ↔ '菜心洗净'" in out
    assert "line 1: 锅中放水烧开，放入菜心焯熟。" in out and "line 3: 菜心洗净。" in out


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(KEYS + ["蒸|鱼|", "切|鱼|", "用||"]), max_size=12),
    st.lists(st.integers(0, 3), min_size=12, max_size=12),
)
def test_any_recipe_reads_its_likeliest_swap_among_its_dependent_pairs(keys, units):
    model = step_swaps.SwapModel.of(_corpus(), _corpus()[:3])
    units = units[: len(keys)]
    pairs = list(step_swaps.dependent_pairs(keys, units))
    read = step_swaps.read_swaps(model, keys, keys, units, cut=5.0)
    assert (read.gain is None) == (not pairs)
    if pairs:
        assert (read.first, read.second) in pairs and math.isfinite(read.gain)
        assert read.flagged == (read.gain > 5.0)
