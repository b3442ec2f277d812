"""The sentence-order reading: where a sentence belongs, read from its words; its cache; and `order check` with
it, on real base recipes in the embedded graph."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dishgraph.knowledge import order, sentence_order


def test_units_are_the_sentences_their_steps_start_in_numbering_removed():
    text = "1. 土豆去皮切丝。2、锅中放油，下土豆丝翻炒；第3步 出锅装盘即可。"
    starts = [(0, 3), (0, 7), (1, 14), (1, 21), (2, 32)]
    units = sentence_order.unit_texts(text, starts)
    assert units == {0: "土豆去皮切丝。", 1: "锅中放油，下土豆丝翻炒；", 2: "出锅装盘即可。"}
    assert sentence_order.text_sentences(text, [3, 14, 32]) == list(units.values())
    # a step whose offset is unknown keeps its unit, with no text
    assert sentence_order.unit_texts("洗菜。", [(0, None)]) == {0: ""}


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="菜洗切。；！\n 1.、第步", max_size=40), st.lists(st.integers(-3, 45) | st.none(), max_size=8))
def test_any_text_and_offsets_give_each_unit_a_text(text, starts):
    units = sentence_order.unit_texts(text, [(i % 3, s) for i, s in enumerate(starts)])
    assert set(units) == {i % 3 for i in range(len(starts))}
    assert all(isinstance(t, str) and t == t.strip() for t in units.values())


def test_readings_of_an_order_and_of_its_reverse():
    r = sentence_order.order_readings([0.1, 0.4, 0.5, 0.9])
    v = sentence_order.order_readings([0.9, 0.5, 0.4, 0.1])
    assert r["rank_agreement"] == 1 and v["rank_agreement"] == -1
    assert r["order_z"] > 0 > v["order_z"] and r["worst_gap"] > 0 > v["worst_gap"]
    assert v["backward_gaps"] < 0 == r["backward_gaps"]
    one = sentence_order.order_readings([0.3])
    assert one["sentences"] == 1 and sentence_order.text_score(one) == float("-inf")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1, 2, allow_nan=False), min_size=2, max_size=12))
def test_reversing_the_sentences_negates_every_order_reading(pos):
    r = sentence_order.order_readings(pos)
    v = sentence_order.order_readings(pos[::-1])
    for name in ("rank_agreement", "mean_gap", "order_z", "first_to_last", "slope"):
        assert v[name] == pytest.approx(-r[name], abs=1e-9)
    assert all(np.isfinite(list(r.values())))


def test_the_shipped_weighing_reads_every_reading_once():
    assert len(sentence_order.MEAN) == len(sentence_order.SCALE) == len(sentence_order.COEF)
    assert len(sentence_order.COEF) == len(sentence_order.READINGS)
    assert all(s > 0 for s in sentence_order.SCALE)


def test_the_model_is_trained_once_and_read_back_from_its_cache(base_order_graph, tmp_path):
    store, _ = base_order_graph
    m1 = sentence_order.corpus_model(store, cache_dir=tmp_path)
    files = list(tmp_path.glob("sentence-positions-*.npz"))
    assert m1 is not None and len(files) == 1
    m2 = sentence_order.corpus_model(store, cache_dir=tmp_path)
    probe = ["土豆洗净去皮切丝。", "出锅装盘即可。"]
    assert m2.predict(probe) == pytest.approx(m1.predict(probe))
    assert m1.predict(probe)[0] < m1.predict(probe)[1]  # washing opens a recipe, plating ends it
    files[0].write_bytes(b"not a zip")  # damage only costs the training
    m3 = sentence_order.corpus_model(store, cache_dir=tmp_path)
    assert m3.predict(probe) == pytest.approx(m1.predict(probe))


def test_a_graph_with_few_recipes_has_no_sentence_reading(store, tmp_path):
    assert sentence_order.corpus_model(store, cache_dir=tmp_path) is None


def test_order_check_reads_the_sentences_of_a_text(base_order_graph, glossary):
    """The sentences of real recipes read in order; the same recipes reversed read out of order (the model saw
    these recipes: this tests the wiring and the direction; held-out figures: benchmarks/bench_order_check.py)."""
    from dishgraph.api import DishGraph

    store, recs = base_order_graph
    g = DishGraph(store, glossary=glossary)
    real = rev = n = 0
    for r in recs:
        lines = [x for x in re.split(r"(?<=[。！？；\n])", r.text) if x.strip()]
        if len(lines) < 4 or n == 10:
            continue
        n += 1
        a = g.check_order_report(r.dish, r.text)
        b = g.check_order_report(r.dish, "".join(reversed(lines)))
        assert a.sentence_order is not None and b.sentence_order is not None
        assert a.min_confidence == sentence_order.MIN_RECIPE_CONFIDENCE_WITH_TEXT
        real += a.sentence_order["flagged"]
        rev += b.sentence_order["flagged"]
        assert b.flagged or not b.sentence_order["flagged"]  # the text's flag is the check's
        assert a.sentence_order["score"] < b.sentence_order["score"]

        def said(rep):  # the sentences as read, without their end marks (reversing split "；。" in two)
            return [s["text"].rstrip("。！？；") for s in rep.sentence_order["sentences"]]

        assert said(b) == said(a)[::-1]
    assert n == 10 and real == 0 and rev >= 8, (real, rev)
    # an action sequence has no sentences: the action score alone, at its own threshold
    keys = [k for k in order.action_sequence(recs[0].text, g._make_parser)[0]]
    rep = g.check_order_report(recs[0].dish, keys)
    assert rep.sentence_order is None


def test_a_text_flagged_by_its_sentences_alone_says_so(capsys):
    """`order check`'s words when the pairs alone would not flag a text but its sentence order does."""
    from dishgraph.commands.order import render_check
    from dishgraph.knowledge.order import OrderCheck

    so = sentence_order.SentenceOrder(4.57, 1.61, True, ["锅中放水烧开。", "菜心洗净。"], [0.39, 0.0]).to_dict()
    rep = OrderCheck([], 5, 10, "", True, 0.52, 0.9775, 10, score=1.2, sentence_order=so)
    render_check(rep, explain=True)
    out = capsys.readouterr().out
    assert "out of order by its sentences or a swap, no pair violated" in out
    assert "sentence order: out of order (text score 4.57, flag above 1.61)" in out
    assert "sentence 2 reads at 0.00: 菜心洗净。" in out
    rep.flagged, rep.sentence_order = False, dict(so, flagged=False)
    render_check(rep, explain=False)
    out = capsys.readouterr().out
    assert out.startswith("no order constraint violated") and "in a usual order" in out and "reads at" not in out
