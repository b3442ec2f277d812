"""Benchmark: order-constraint estimation for every dish, DoWhy vs the fast path, in one run.

    python benchmarks/bench_order.py --db PATH       # an ingested database (dishgraph ingest counterfactual)
    python benchmarks/bench_order.py --planted       # 50 planted dishes x 50 recipes, temp database

Runs the same dishes and pairs with estimator dowhy (1 process), fast (1 process) and fast (--workers),
reports seconds, the DoWhy/fast ratio, the largest difference between the two, and (planted data) ROC AUC
of ψ for recovering the planted dependencies under both confounder windows.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dishgraph.graph.ladybug_store import LadybugStore  # noqa: E402
from dishgraph.knowledge import causal, order  # noqa: E402
from dishgraph.knowledge.order import OrderSettings  # noqa: E402
from dishgraph.knowledge.planted import load_planted, planted_order_corpus  # noqa: E402


def run(store, dishes, settings, workers):
    t0 = time.perf_counter()
    rep = order.estimate_order(store, dishes, settings, workers=workers)
    return rep, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", help="ingested database directory")
    ap.add_argument("--planted", action="store_true", help="planted corpus (50 dishes x 50 recipes)")
    ap.add_argument("--dishes", type=int, default=50)
    ap.add_argument("--recipes", type=int, default=50)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--skip-dowhy", action="store_true")
    args = ap.parse_args()
    truth = None
    if args.planted or not args.db:
        store = LadybugStore(Path(tempfile.mkdtemp(prefix="bench-order-")) / "db")
        corpus = planted_order_corpus(n_dishes=args.dishes, n_recipes=args.recipes, seed=0)
        load_planted(store, corpus)
        truth = corpus.ancestors
        data = f"planted: {args.dishes} dishes x {args.recipes} recipes, 25 actions"
    else:
        store = LadybugStore(args.db)
        data = f"database {args.db}"
    dishes = None  # every dish with parsed recipes
    out = {"data": data, "cpus": os.cpu_count()}
    fast1, t_fast1 = run(store, dishes, OrderSettings(estimator="fast"), 1)
    fastn, t_fastn = run(store, dishes, OrderSettings(estimator="fast"), args.workers)
    out["dishes"] = len(fast1.dishes)
    out["pairs"] = fast1.to_dict()["totals"]
    out["fast_1proc_s"] = t_fast1
    out[f"fast_{args.workers}proc_s"] = t_fastn
    out["fast_parallel_identical"] = [e.ate for e in fast1.estimates] == [e.ate for e in fastn.estimates]
    if not args.skip_dowhy:
        slow, t_slow = run(store, dishes, OrderSettings(estimator="dowhy"), 1)
        diffs = [abs(a.ate - b.ate) for a, b in zip(fast1.estimates, slow.estimates) if a.ate is not None]
        out["dowhy_1proc_s"] = t_slow
        out["ratio_dowhy_over_fast_1proc"] = t_slow / t_fast1
        out["max_abs_diff"] = max(diffs) if diffs else None
        out["identical_1e-9"] = all(d <= 1e-9 for d in diffs) and \
            [a.ate is None for a in fast1.estimates] == [b.ate is None for b in slow.estimates]
    if truth is not None:
        pre, _ = run(store, dishes, OrderSettings(estimator="fast", window="pretreatment"), args.workers)
        for name, rep in (("paper", fast1), ("pretreatment", pre)):
            r = causal.recovery_auc(rep.estimates, truth)
            kept = [e for e in rep.estimates if e.ate is not None and e.ate > 0.1]
            hits = sum((e.cause, e.effect) in truth[e.dish] for e in kept)
            r.update(precision_at_tau=hits / len(kept) if kept else None,
                     recall_at_tau=hits / r["positives"] if r["positives"] else None)
            out[f"recovery_{name}"] = r
    store.close()
    print(json.dumps(out, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
