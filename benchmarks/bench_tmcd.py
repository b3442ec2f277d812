"""Benchmark: incremental TMCD search vs. the recompute-everything version, on generated dish names.

Both run in one process on the same 4,000 names (``gen_dish_names.py``), same ratio, seed and target;
the script checks they return the identical split and prints both timings and their ratio.

    python benchmarks/bench_tmcd.py [--n 4000] [--names-seed 0] [--seed 1] [--target 0.98] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_dish_names import generate_dish_names  # noqa: E402

from dishgraph.diner.names import DinerGlossary, parse_names  # noqa: E402
from dishgraph.diner.tmcd import tmcd_split  # noqa: E402


def run(n: int = 4000, names_seed: int = 0, seed: int = 1, ratio: float = 4.5, target: float | None = 0.98) -> dict:
    glossary = DinerGlossary.load()
    t0 = time.perf_counter()
    names = generate_dish_names(glossary, n, names_seed)
    report = parse_names(names, glossary)
    assert not report.failed, "generated names must all parse"
    atoms = [p.atoms for p in report.parsed]
    t_gen = time.perf_counter() - t0
    results = {}
    for method in ("fast", "naive"):
        t = time.perf_counter()
        split = tmcd_split(atoms, ratio=ratio, target_divergence=target, seed=seed, method=method)
        results[method] = (split, time.perf_counter() - t)
    fast, t_fast = results["fast"]
    naive, t_naive = results["naive"]
    return {
        "names": len(names),
        "generate_and_parse_s": t_gen,
        "ratio": ratio,
        "seed": seed,
        "target": target,
        "same_split": fast.train == naive.train and fast.test == naive.test,
        "divergence": fast.divergence,
        "atom_divergence": fast.atom_divergence,
        "atoms_covered": fast.atoms_covered,
        "test_compounds_seen": fast.test_compounds_seen,
        "swaps": fast.swaps,
        "balance_swaps": fast.balance_swaps,
        "stopped": fast.stopped,
        "n_train": len(fast.train),
        "n_test": len(fast.test),
        "fast_s": t_fast,
        "naive_s": t_naive,
        "speedup": t_naive / t_fast,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=4000, help="generated dish names")
    ap.add_argument("--names-seed", type=int, default=0, help="seed of the name generator")
    ap.add_argument("--seed", type=int, default=1, help="seed of the split's initial shuffle")
    ap.add_argument("--ratio", type=float, default=4.5, help="train:test ratio")
    ap.add_argument("--target", type=float, default=0.98, help="target divergence (0: until no swap improves)")
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args(argv)
    res = run(args.n, args.names_seed, args.seed, args.ratio, args.target or None)
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        for k, v in res.items():
            print(f"{k:>22}: {v:.4f}" if isinstance(v, float) else f"{k:>22}: {v}")
    return 0 if res["same_split"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
