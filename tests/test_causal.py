"""Causal order effects: the fast path equals DoWhy, windows, skips, and recovery of planted dependencies."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dishgraph.eval.parse_recall import read_base_recipes
from dishgraph.knowledge import causal
from dishgraph.testing.planted import planted_order_corpus


def _dish(corpus, dish):
    return causal.DishSequences.from_sequences(
        dish, {f"r{i}": [a.key for a in r] for i, r in enumerate(corpus.recipes[dish])}
    )


def _focus(ds, min_freq=0.1):
    return [a for a, f in zip(ds.actions, ds.freq()) if f >= min_freq]


def test_sequences_and_frames():
    seqs = {"r1": ["a", "b", "c", "b"], "r2": ["c", "a"], "r3": [], "r4": ["b"]}
    ds = causal.DishSequences.from_sequences("d", seqs)
    assert ds.actions == ["a", "b", "c"]
    a, b, c = 0, 1, 2
    s = ds.support()
    assert s[a, b] == 1 and s[b, a] == 0 and s[c, a] == 1 and s[b, c] == 1 and s[c, b] == 1
    assert ds.freq().tolist() == [0.5, 0.5, 0.5]
    f = causal.pair_frame(ds, "a", "b", "paper")
    assert f.t.tolist() == [1, 1, 0, 0]
    assert f.y.tolist() == [1, 0, 0, 1]  # b after the first a / b present
    assert f.confounders == ["c"]  # c appears before a (r2) and before b (r1)
    assert f.X[:, 0].tolist() == [0, 1, 0, 0]  # paper: c before the first b, or present when b is absent
    f = causal.pair_frame(ds, "a", "b", "pretreatment")
    assert f.X[:, 0].tolist() == [0, 1, 0, 0]  # c before a in r2; r3/r4 have no c
    assert causal.candidate_pairs(ds, ["b"], min_support=1) == [("a", "b"), ("b", "c"), ("c", "b")]
    with pytest.raises(ValueError):
        causal.pair_frame(ds, "a", "b", "nope")


def test_constant_treatment_and_naive():
    ds = causal.DishSequences.from_sequences("d", {"r1": ["a", "b"], "r2": ["a", "b"], "r3": ["a"]})
    e = causal.estimate_pair(ds, "a", "b")
    assert e.skipped == "constant treatment" and e.ate is None and e.n_treated == 3
    ds = causal.DishSequences.from_sequences("d", {"r1": ["a", "b"], "r2": ["b"], "r3": ["a", "b"], "r4": []})
    e = causal.estimate_pair(ds, "a", "b")
    assert e.estimator == "naive" and e.n_confounders == 0 and e.ate == pytest.approx(1.0 - 0.5)


@pytest.mark.parametrize("window", causal.WINDOWS)
def test_fast_equals_dowhy_generated(window):
    corpus = planted_order_corpus(n_dishes=2, n_recipes=50, n_actions=20, seed=7)
    n = 0
    for dish in corpus.recipes:
        ds = _dish(corpus, dish)
        pairs = causal.candidate_pairs(ds, _focus(ds), 2)
        for c, e in pairs[:: max(1, len(pairs) // 25)]:
            fast = causal.estimate_pair(ds, c, e, estimator="fast", window=window)
            slow = causal.estimate_pair(ds, c, e, estimator="dowhy", window=window)
            assert (fast.ate is None) == (slow.ate is None)
            if fast.ate is not None:
                assert fast.ate == pytest.approx(slow.ate, abs=1e-9)
                n += fast.estimator == "fast"
    assert n >= 30


def test_dowhy_frame_is_not_reused():
    """Two different pairs estimated in a row get their own propensity scores (DoWhy's cached column)."""
    corpus = planted_order_corpus(n_dishes=1, n_recipes=50, n_actions=20, seed=3)
    ds = _dish(corpus, "planted-dish-0")
    pairs = causal.candidate_pairs(ds, _focus(ds), 2)[:6]
    seq = [causal.estimate_pair(ds, c, e, estimator="dowhy").ate for c, e in pairs]
    alone = [causal.estimate_pair(ds, c, e, estimator="dowhy").ate for c, e in reversed(pairs)][::-1]
    assert seq == alone


def test_parallel_equals_serial():
    corpus = planted_order_corpus(n_dishes=3, n_recipes=40, n_actions=15, seed=5)
    tasks = []
    for dish in corpus.recipes:
        ds = _dish(corpus, dish)
        tasks.append(causal.DishTask(ds, causal.candidate_pairs(ds, _focus(ds), 2)))
    serial = causal.run_tasks(tasks, workers=1)
    parallel = causal.run_tasks(tasks, workers=2)
    assert [r.dish for r in parallel] == [r.dish for r in serial]
    assert [[e.ate for e in r.estimates] for r in parallel] == [[e.ate for e in r.estimates] for r in serial]


def test_a_script_without_main_guard_still_finishes(tmp_path):
    """Order-estimation workers import the caller's main module as they start. A script without an
    ``if __name__ == "__main__":`` guard re-ran in each worker; under ``multiprocessing.Pool`` every dying worker
    was replaced by another, forever, and the script hung. Now the broken pool hands the dishes back to the
    calling process, which prints the serial estimates."""
    script = tmp_path / "noguard.py"
    script.write_text(
        textwrap.dedent(
            """
            import multiprocessing as mp
            if mp.current_process().name != "MainProcess":
                raise SystemExit("a worker re-ran the script")  # what a real script's db open or spawn does
            from dishgraph.knowledge import causal
            from dishgraph.testing.planted import planted_order_corpus
            corpus = planted_order_corpus(n_dishes=3, n_recipes=40, n_actions=15, seed=5)
            tasks = []
            for dish in corpus.recipes:
                ds = causal.DishSequences.from_sequences(
                    dish, {f"r{i}": [a.key for a in r] for i, r in enumerate(corpus.recipes[dish])})
                focus = [a for a, f in zip(ds.actions, ds.freq()) if f >= 0.1]
                tasks.append(causal.DishTask(ds, causal.candidate_pairs(ds, focus, 2)))
            serial = causal.run_tasks(tasks, workers=1)
            parallel = causal.run_tasks(tasks, workers=2)
            same = [[e.ate for e in r.estimates] for r in parallel] == [[e.ate for e in r.estimates] for r in serial]
            print("same" if same else "different", len(parallel))
            """
        ),
        encoding="utf-8",
    )
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["same", "3"]
    assert "estimating the remaining dishes in this process" in run.stderr


def test_recovery_of_planted_dependencies():
    corpus = planted_order_corpus(n_dishes=4, n_recipes=50, seed=0)
    res = {}
    for window in causal.WINDOWS:
        tasks = []
        for dish in corpus.recipes:
            ds = _dish(corpus, dish)
            tasks.append(causal.DishTask(ds, causal.candidate_pairs(ds, _focus(ds), 2), "fast", window))
        ests = [e for r in causal.run_tasks(tasks) for e in r.estimates]
        res[window] = causal.recovery_auc(ests, corpus.ancestors)
    for window, r in res.items():
        assert r["auc"] > 0.7, (window, r)
        assert r["mean_ate_pos"] > r["mean_ate_neg"] + 0.2
    # measuring confounders up to the effect shrinks the planted effects
    assert res["paper"]["mean_ate_pos"] < res["pretreatment"]["mean_ate_pos"]


def test_fast_equals_dowhy_real(crg_dir, glossary):
    """On a real base dish parsed from the release: identical estimates, both windows."""
    parser_mod = pytest.importorskip("dishgraph.ingest.parser")
    parser = parser_mod.RecipeParser(glossary)
    by_dish = read_base_recipes(crg_dir)
    dish = sorted(by_dish)[0]
    seqs = {f"r{i}": [a.proto.key for a in parser.parse(t) if a.proto] for i, t in enumerate(by_dish[dish])}
    ds = causal.DishSequences.from_sequences(dish, seqs)
    pairs = causal.candidate_pairs(ds, _focus(ds), 2)
    assert len(pairs) > 20
    n = 0
    for window in causal.WINDOWS:
        for c, e in pairs[:: max(1, len(pairs) // 20)]:
            fast = causal.estimate_pair(ds, c, e, estimator="fast", window=window)
            slow = causal.estimate_pair(ds, c, e, estimator="dowhy", window=window)
            if fast.ate is not None:
                assert fast.ate == pytest.approx(slow.ate, abs=1e-9)
                n += 1
    assert n >= 20


def _psm_as_dowhy_writes_it(X, t, y):
    """psm_fast through sklearn's NearestNeighbors objects, as DoWhy calls them: psm_fast builds the same
    ball trees directly and must match this match for match, ties included."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import NearestNeighbors

    ps = LogisticRegression().fit(X, t).predict_proba(X)[:, 1]
    ps_t, ps_c = ps[t == 1].reshape(-1, 1), ps[t == 0].reshape(-1, 1)
    y_t, y_c = y[t == 1], y[t == 0]
    _, i = NearestNeighbors(n_neighbors=1, algorithm="ball_tree").fit(ps_c).kneighbors(ps_t)
    att = (y_t - y_c[i.ravel()]).mean()
    _, i = NearestNeighbors(n_neighbors=1, algorithm="ball_tree").fit(ps_t).kneighbors(ps_c)
    atc = (y_t[i.ravel()] - y_c).mean()
    return float(np.float64(att * len(y_t) + atc * len(y_c)) / (len(y_t) + len(y_c)))


def test_fast_matches_neighbors_objects_on_tie_heavy_frames():
    """Binary confounders give many equal propensity scores: which tied neighbour is matched decides the ATE."""
    import numpy as np

    rng = np.random.default_rng(0)
    for _ in range(150):
        n, k = int(rng.integers(10, 300)), int(rng.integers(1, 8))
        X = (rng.random((n, k)) < rng.random(k)).astype(np.int64)
        t = (rng.random(n) < 0.4).astype(np.int64)
        t[:2] = (1, 0)
        y = (rng.random(n) < 0.5).astype(np.int64)
        assert causal.psm_fast(X, t, y) == _psm_as_dowhy_writes_it(X, t, y)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_propensity_scores_are_the_estimators_to_the_last_bit(data):
    """The order step's propensity fit (scikit-learn's loss and scipy's L-BFGS-B called directly) gives the
    very floats of ``LogisticRegression().fit(X, t).predict_proba(X)[:, 1]`` on binary frames of any shape."""
    import numpy as np

    n = data.draw(st.integers(min_value=2, max_value=80))
    k = data.draw(st.integers(min_value=1, max_value=10))
    X = np.array(data.draw(st.lists(st.lists(st.integers(0, 1), min_size=k, max_size=k), min_size=n, max_size=n)))
    t = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    assume(0 < t.sum() < n)
    assert np.array_equal(causal.propensity_scores(X, t), causal._estimator_scores(X, t))
