"""A seeded sample of shown tested order constraints, for judging by hand (protocol: docs/order-knowledge.md).

    python benchmarks/order_judging_sample.py --db DB [--n 120] [--seed 7]

Draws ``n`` kept constraints of source tested, shown by default (no action the typed reading hides), uniformly
over the dishes with 10+ recipes and their dish- and family-level constraints plus the global ones looked up
for those dishes; writes benchmarks/results/order_judging_sample.tsv with one example recipe line per action
and an empty `judgement` column (plausible / implausible / unsure).
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dishgraph.graph.factory import open_store  # noqa: E402
from dishgraph.knowledge import precedence  # noqa: E402
from dishgraph.knowledge.typed import hidden_actions  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True)
    ap.add_argument("--n", type=int, default=120)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "order_judging_sample.tsv"))
    a = ap.parse_args()
    store = open_store(db=a.db, read_only=True)
    hidden = hidden_actions(store)
    dishes = sorted({r["dish"] for r in store.query("order_dishes") if r["source"] == "tested"} - {"*"})
    pool, phrases = [], {}
    for d in dishes:
        phrases[d] = {}
        for st in store.query("order_corpus_steps", dishes=[d]):
            phrases[d].setdefault(st["action"], f"{st['phrase']} ({st['recipe']})")
        rows = store.query(
            "order_tested_constraints", dishes=[d, precedence.GLOBAL_DISH], source="tested", min_confidence=0.0
        )
        for r in rows:  # what `order show` / `order check` shows for the dish: both actions done in it, none hidden
            if r["cause"] in phrases[d] and r["effect"] in phrases[d] and not {r["cause"], r["effect"]} & hidden:
                pool.append((d, r))
    rng = random.Random(a.seed)
    picked = rng.sample(pool, min(a.n, len(pool)))
    with open(a.out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter="\t")
        w.writerow(
            [
                "dish",
                "constraint",
                "level",
                "n_before",
                "n_after",
                "confidence",
                "q_value",
                "cause_example",
                "effect_example",
                "judgement",
            ]
        )
        for d, r in picked:
            ex = [phrases[d].get(k, "") for k in (r["cause"], r["effect"])]
            w.writerow([d, f"{r['cause']} before {r['effect']}", r["level"], r["n_before"], r["n_after"],
                        round(r["confidence"], 3), f"{r['q_value']:.2g}", ex[0], ex[1], ""])  # fmt: skip
    print(f"wrote {a.out}: {len(picked)} of {len(pool)} shown constraints over {len(dishes)} dishes")


if __name__ == "__main__":
    main()
