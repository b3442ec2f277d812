"""Errors by kind of the PCS tracker, before the output namer and after (the second round), on the same 50 test rows.

The rows are drawn with ``random.Random(27).sample`` over the test split's 2,236 gold rows (the draw of the
first error analysis in docs/pcs.md). Both predictors run chained, learning from train. Each row is counted
once, under its input error, decided by *which* comestible each input item is (the step whose output it is,
or the raw food as written) as well as by its wording:

- ``input set exact``: the predicted set equals the gold one (tokens, order ignored);
- ``NA error``: one side has no input and the other has;
- ``right comestibles, other wording``: the same earlier steps / raw foods, named otherwise;
- ``comestible missing``: a gold comestible not predicted (and nothing extra);
- ``comestible extra``: every gold one predicted, plus another;
- ``other comestibles``: the rest.

The printed table gives, per kind, the rows before, after (the second round) and now (the defaults: the
fourth round's choice, read after its test figures were published, for analysis only) and their mean
output ROUGE-L.
The rows themselves (instruction, gold and both predictions) go to ``--out`` for reading by hand.

Usage: OMP_NUM_THREADS=1 python benchmarks/pcs_errors.py ../shared/data/pizzacommonsense
"""

from __future__ import annotations

import argparse
import json
import os
import random
from collections import Counter

os.environ.setdefault("OMP_NUM_THREADS", "1")

KINDS = (
    "input set exact",
    "NA error",
    "right comestibles, other wording",
    "comestible missing",
    "comestible extra",
    "other comestibles",
)
BEFORE = {
    "wording": "template",
    "full_name": 3,
    "na_p": 1.0,
    "inputs": "rules",
    "merge": False,
}  # the tracker as the first analysis read it
AFTER = {"merge": False}  # the second round's choice (the default before named foods were read as phrases)
AFTER_NAMER = {"particles": False, "where_cut": ()}  # and its namer's bare names (before the fourth round)


def identities(rows: list[dict]) -> list[set]:
    """Per row, its input items as (step whose output it is) or (raw, words)."""
    from dishgraph.eval.pcs_paper import input_set, item_key

    out, source = [], {}
    for k, r in enumerate(rows):
        out.append({("step", source[x]) if x in source else ("raw", x) for x in input_set(r["input"])})
        if r["output"] != "NA":
            source.setdefault(item_key(r["output"]), k)
    return out


def kind(gold: set, pred: set, exact: bool) -> str:
    if exact:
        return KINDS[0]
    if not gold or not pred:
        return KINDS[1]
    if gold == pred:
        return KINDS[2]
    if pred < gold:
        return KINDS[3]
    if pred > gold:
        return KINDS[4]
    return KINDS[5]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", help="the release directory (train/, test/)")
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--out", default="benchmarks/results/pcs_errors.json")
    args = ap.parse_args()

    from dishgraph.eval.pcs_paper import gold_rows, input_set
    from dishgraph.pcs.namer import rouge_l_f, toks
    from dishgraph.pcs.predict import learn, predict
    from dishgraph.pcs.tables import read_pcs

    train, test = read_pcs(os.path.join(args.data, "train")), read_pcs(os.path.join(args.data, "test"))
    gold = gold_rows(test)
    runs = {
        "before": predict(test, "tracker", "chained", train, **BEFORE),
        "after": predict(test, "tracker", "chained", train, learn(train, merge=False, **AFTER_NAMER), **AFTER),
        "now": predict(test, "tracker", "chained", train, learn(train)),  # the defaults (the fourth round's)
    }
    drawn = sorted(random.Random(args.seed).sample(range(len(gold)), args.n))
    tables: dict[tuple, list[int]] = {}
    for i, g in enumerate(gold):
        tables.setdefault((g["recipe"], g["annotator"]), []).append(i)
    ident = {name: {} for name in ("gold", *runs)}
    for idx in tables.values():
        for name, rows in (("gold", gold), *runs.items()):
            for i, s in zip(idx, identities([rows[i] for i in idx])):
                ident[name][i] = s
    counts: dict[str, Counter] = {name: Counter() for name in runs}
    rouge: dict[str, dict[str, list[float]]] = {name: {k: [] for k in KINDS} for name in runs}
    report = []
    for i in drawn:
        g = gold[i]
        entry = {"instruction": g["instruction"], "gold": [g["input"], g["output"]]}
        for name, rows in runs.items():
            p = rows[i]
            k = kind(ident["gold"][i], ident[name][i], input_set(p["input"]) == input_set(g["input"]))
            counts[name][k] += 1
            entry[name] = [p["input"], p["output"], k]
            rouge[name][k].append(rouge_l_f(toks(p["output"]) or ["na"], toks(g["output"]) or ["na"]))
        report.append(entry)
    print(
        "| kind | rows before | after | now | output ROUGE-L before | after | now |\n"
        "|---|---:|---:|---:|---:|---:|---:|"
    )

    def mean(xs: list[float]) -> str:
        return f"{100 * sum(xs) / len(xs):.1f}" if xs else ""

    for k in KINDS:
        row = [k, *(counts[name][k] for name in runs), *(mean(rouge[name][k]) for name in runs)]
        print("| " + " | ".join(map(str, row)) + " |")
    alls = {name: [x for xs in rouge[name].values() for x in xs] for name in runs}
    print(f"| all {args.n} | " + " | ".join([str(args.n)] * len(runs) + [mean(alls[name]) for name in runs]) + " |")
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump({"seed": args.seed, "rows": report}, fh, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
