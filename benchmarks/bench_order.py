"""Benchmark: order-constraint estimation for every dish, DoWhy vs the fast path, in one run.

    python benchmarks/bench_order.py --db PATH       # an ingested database (dishgraph ingest counterfactual)
    python benchmarks/bench_order.py --planted       # timings on 50 planted dishes x 50 recipes instead

Runs the same dishes and pairs with estimator dowhy (1 process), fast (1 process) and fast (--workers),
reports seconds, the DoWhy/fast ratio and the largest difference between the two; then, always, ROC AUC of
ψ for recovering planted dependencies (a generated corpus) under both confounder windows.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _report import emit  # noqa: E402

from dishgraph.graph.ladybug_store import LadybugStore  # noqa: E402
from dishgraph.knowledge import causal, frequencies, order  # noqa: E402
from dishgraph.knowledge.order import OrderSettings  # noqa: E402
from dishgraph.testing.planted import load_planted, planted_order_corpus  # noqa: E402


def run(store, dishes, settings, workers):
    t0 = time.perf_counter()
    rep = order.estimate_order(store, dishes, settings, workers=workers)
    return rep, time.perf_counter() - t0


def timing(store, workers: int, skip_dowhy: bool, every: int) -> dict:
    """fast on every candidate pair of every dish with parsed recipes (1 process, and ``workers``); then,
    in one run, dowhy and fast (1 process each) on the same pairs: every ``every``-th pair of each dish
    (all of them with every=1), estimates compared pair by pair."""
    out: dict = {}
    fast1, t_fast1 = run(store, None, OrderSettings(estimator="fast"), 1)
    out["dishes"] = len(fast1.dishes)
    out["dishes_with_constraints"] = sum(d.constraints > 0 for d in fast1.dishes)
    out["focus_actions"] = sum(d.focus_actions for d in fast1.dishes)
    out["pairs"] = fast1.to_dict()["totals"]
    out["fast_all_pairs_1proc_s"] = t_fast1
    if workers > 1:
        fastn, t_fastn = run(store, None, OrderSettings(estimator="fast"), workers)
        out[f"fast_all_pairs_{workers}proc_s"] = t_fastn
        out["fast_parallel_identical"] = [e.ate for e in fastn.estimates] == [e.ate for e in fast1.estimates]
    if skip_dowhy:
        return out
    tasks = []
    for dish in sorted(frequencies.dishes_with_recipes(store)):
        ds = order.dish_sequences(store, dish)
        pairs = causal.candidate_pairs(ds, order.focus_actions(store, dish, 0.1), 2)
        tasks.append(causal.DishTask(ds, pairs[::every], "fast"))
    res = {}
    for est in ("fast", "dowhy"):
        for t in tasks:
            t.estimator = est
        t0 = time.perf_counter()
        res[est] = [e for r in causal.run_tasks(tasks, workers=1) for e in r.estimates]
        out[f"{est}_subset_1proc_s"] = time.perf_counter() - t0
    fast, slow = res["fast"], res["dowhy"]
    diffs = [abs(a.ate - b.ate) for a, b in zip(fast, slow) if a.ate is not None and b.ate is not None]
    out["subset"] = f"every {every}th candidate pair of each of the {len(tasks)} dishes"
    out["subset_pairs"] = len(fast)
    out["ratio_dowhy_over_fast_1proc"] = out["dowhy_subset_1proc_s"] / out["fast_subset_1proc_s"]
    out["dowhy_all_pairs_1proc_s_extrapolated"] = out["ratio_dowhy_over_fast_1proc"] * t_fast1
    out["estimates_compared"] = len(diffs)
    out["max_abs_diff"] = max(diffs) if diffs else None
    out["identical_1e-9"] = all(d <= 1e-9 for d in diffs) and [a.ate is None for a in fast] == [
        b.ate is None for b in slow
    ]
    out["estimators_used"] = sorted({e.estimator for e in slow})
    return out


def recovery(dishes: int, recipes: int, workers: int) -> dict:
    """ROC AUC of psi for planted dependencies: the paper's confounder window vs the pre-treatment one."""
    store = LadybugStore(Path(tempfile.mkdtemp(prefix="bench-order-")) / "db")
    corpus = planted_order_corpus(n_dishes=dishes, n_recipes=recipes, seed=0)
    load_planted(store, corpus)
    truth = corpus.ancestors
    out: dict = {"data": f"planted: {dishes} dishes x {recipes} recipes, 25 actions, truth = planted ancestors"}
    for window in ("paper", "pretreatment"):
        rep, secs = run(store, None, OrderSettings(estimator="fast", window=window), workers)
        r = causal.recovery_auc(rep.estimates, truth)
        kept = [e for e in rep.estimates if e.ate is not None and e.ate > 0.1]
        hits = sum((e.cause, e.effect) in truth[e.dish] for e in kept)
        r.update(
            seconds=secs,
            constraints=len(kept),
            precision_at_tau=hits / len(kept) if kept else None,
            recall_at_tau=hits / r["positives"] if r["positives"] else None,
        )
        out[window] = r
    store.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", help="ingested database directory (timings on its dishes)")
    ap.add_argument("--planted", action="store_true", help="also planted corpus: timings there when no --db")
    ap.add_argument("--dishes", type=int, default=50)
    ap.add_argument("--recipes", type=int, default=50)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--skip-dowhy", action="store_true")
    ap.add_argument("--every", type=int, default=1, help="DoWhy comparison on every N-th pair (1: all pairs)")
    ap.add_argument("--json-out", help="also write the figures to this file (e.g. benchmarks/results/order.json)")
    args = ap.parse_args()
    out = {
        "loadavg_start": os.getloadavg(),
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
        "cpus": os.cpu_count(),
    }
    if args.db:
        store = LadybugStore(args.db)
        out["real"] = {"data": f"database {args.db}", **timing(store, args.workers, args.skip_dowhy, args.every)}
        store.close()
    elif args.planted:
        store = LadybugStore(Path(tempfile.mkdtemp(prefix="bench-order-")) / "db")
        load_planted(store, planted_order_corpus(n_dishes=args.dishes, n_recipes=args.recipes, seed=0))
        out["planted_timing"] = timing(store, args.workers, args.skip_dowhy, args.every)
        store.close()
    out["recovery"] = recovery(args.dishes, args.recipes, args.workers)
    out["loadavg_end"] = os.getloadavg()
    emit(out, args.json_out)


if __name__ == "__main__":
    main()
