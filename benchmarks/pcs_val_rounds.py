"""Exact val figures (chained) of the PCS tracker's four rounds (`dishgraph.pcs.rounds`), with a
fingerprint of each round's predictions, written to benchmarks/results/pcs_val_rounds.json.

The test (tests/test_pcs_namer.py) checks them with a tolerance and checks the order of the rounds; the
exact figures live here. Reads train and val only (never test).

    OMP_NUM_THREADS=1 python benchmarks/pcs_val_rounds.py [--out benchmarks/results/pcs_val_rounds.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np
import scipy
import sklearn

from dishgraph import config
from dishgraph.eval.pcs_paper import gold_rows, score
from dishgraph.pcs.rounds import ROUNDS, fingerprint
from dishgraph.pcs.tables import read_pcs

KEYS = ("input_ema", "input_rouge_l", "output_bleu", "output_rouge_l", "output_ema")


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="benchmarks/results/pcs_val_rounds.json")
    args = ap.parse_args()
    root = config.data_dir() / "pizzacommonsense"
    train, val = read_pcs(root / "train"), read_pcs(root / "val")
    gold = gold_rows(val)
    rounds = {}
    for name, run in ROUNDS.items():
        started = time.perf_counter()
        rows = run(train, val)
        s = score(rows, gold)
        rounds[name] = {k: round(s[k], 3) for k in KEYS} | {
            "fingerprint": fingerprint(rows),
            "seconds": round(time.perf_counter() - started, 1),
        }
        print(name, rounds[name])
    out = {
        "split": "val",
        "setting": "chained",
        "rounds": rounds,
        "environment": {
            "cpu": _cpu_name(),
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "scikit-learn": sklearn.__version__,
        },
    }
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
