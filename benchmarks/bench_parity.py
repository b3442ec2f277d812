"""Even vs odd dish pairs for generators with nothing tuned on any pair: how much of a method's even/odd gap
is the split itself.

The composed editor's thresholds were tuned on the even pairs and it scores 19.65 there against 12.82 on
the odd ones. `replace` (swap the changed ingredient and its class synonyms) has no parameter at all, so
its gap is what the two halves differ by before any tuning. Each file given is scored on all / even / odd
pairs with the same full CRG scorer as `bench_compose.py`.

    python benchmarks/bench_parity.py replace.txt [more outputs] --out benchmarks/results/parity.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks._crg import release_with_parity, rows_by_parity  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outputs", nargs="+", type=Path, help="generator outputs of the 2,500 instances")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/parity.json")
    args = ap.parse_args()

    from dishgraph.eval.crg import CrgScorer
    from dishgraph.eval.l2 import L2Reference
    from dishgraph.eval.outputs import read_outputs

    d, glossary, instances, parity = release_with_parity()
    scorer = CrgScorer(instances, glossary, L2Reference.from_release(d), data_dir=d, workers=2)
    result: dict = {"load_before": os.getloadavg(), "split": "dish_pairs.txt order: even 0, 2, ..., odd 1, 3, ..."}
    for path in args.outputs:
        t0 = time.perf_counter()
        texts = read_outputs(path, instances)
        rows = rows_by_parity(scorer, texts, instances, parity, path.stem)
        rows["seconds"] = round(time.perf_counter() - t0, 1)
        result[path.stem] = rows
        print(path.stem, {k: v["hard_f1"] for k, v in rows.items() if isinstance(v, dict)}, flush=True)
    result["measured"] = time.strftime("%Y-%m-%d %H:%M")
    args.out.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
