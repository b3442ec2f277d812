"""benchmarks/choose_insert_method.py, the nested choice between the composed editor's insertion methods: its
coordinate ascent finds the best point of a separable grid, calls the objective once per point and keeps the
earlier value on a tie; every insertion method of the library is tuned, each over the thresholds it reads."""

from __future__ import annotations

import sys
from dataclasses import fields
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from choose_insert_method import PARAMETERS, RANKER_GRID, RULE_GRID, coordinate_ascent  # noqa: E402

from dishgraph.knowledge import compose


def test_coordinate_ascent_finds_the_best_of_a_separable_grid_once_per_point():
    calls: list = []

    def objective(t: compose.ComposedThresholds) -> float:
        calls.append(t)
        return -abs(t.alpha - 4.0) - abs(t.tau_i - 0.25) - 10 * abs(t.min_fb - 0.1)  # best: 4.0, 0.25, 0.1

    best, score, tried = coordinate_ascent(objective, compose.ComposedThresholds(), RULE_GRID)
    assert (best.alpha, best.tau_i, best.min_fb) == (4.0, 0.25, 0.1) and score == objective(best)
    assert len(calls) - 1 == len(set(calls)) == len(tried)  # the extra call is the assertion's own
    assert tried[0][0] == compose.ComposedThresholds()  # the library's defaults are the start

    flat, _, _ = coordinate_ascent(lambda t: 0.0, compose.ComposedThresholds(), RULE_GRID)
    assert flat == compose.ComposedThresholds()  # a tie never moves


def test_every_insert_method_is_tuned_over_thresholds_it_has():
    assert set(PARAMETERS) == set(compose.INSERT_METHODS)
    names = {f.name for f in fields(compose.ComposedThresholds)}
    assert set(RULE_GRID) | set(RANKER_GRID) == names
    assert all(set(p) <= names for p in PARAMETERS.values())
    assert "ranker_min_prob" not in PARAMETERS[compose.RULE]
    assert {"tau_i", "tau_new"}.isdisjoint(PARAMETERS[compose.RANKER])  # the ranker replaces the rule's inserts
