"""How much the PCS output namer loses by its choice among its own candidates, and whether a learned chooser
wins it back (docs/pcs.md, fifth round). Val only: test is not read.

Two measures, both chained on val with the `Tracker` defaults (learned on train):

- **ceiling**: for every step the namer words, the best of the candidates it weighs (the filled templates,
  the 25 likeliest) by ROUGE-L against the gold output, beside the one minimum Bayes risk chose. An oracle
  (it reads the gold output): how much room a better chooser has, never a result.
- **reranker**: a gradient-boosted regression of a candidate's ROUGE-L against the gold output from what is
  known at prediction time (its weight and rank, its MBR gain, its length, how much of it the instruction,
  inputs and dish name account for, the participle, ``and``/``with``/``mixture``, the step's position),
  learned on candidates of the train tables *cross-fitted*: each fold's rows predicted chained by a tracker
  learned on the other folds (the candidates the chooser meets are then worded by a model that never saw the
  row). Val is then predicted chained with the reranker choosing instead of MBR.
- **MBR plus an exact-name bonus**: a classifier of "this candidate is the gold output exactly", learned on
  the same candidates, adds ``weight`` times its probability to MBR's gain (`ExactBonus`).

The namer is wrapped, not changed: `namer.mbr` is replaced while this runs (and the tracker subclassed to say
what each step is), so the defaults stay as they are.

Usage: OMP_NUM_THREADS=1 python benchmarks/pcs_namer_rerank.py ../shared/data/pizzacommonsense [--folds 3]
(about 6 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import time
from dataclasses import dataclass
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from dishgraph.eval.pcs_paper import gold_rows, score  # noqa: E402
from dishgraph.pcs import namer as nm  # noqa: E402
from dishgraph.pcs import predict as pr  # noqa: E402
from dishgraph.pcs.tables import read_pcs  # noqa: E402

TOP = 25  # the candidates MBR tries (`Namer.mbr_top`)
EVIDENCE = 40  # ... against this many (`Namer.evidence`)
COLUMNS = ("input_ema", "input_rouge_l", "output_bleu", "output_rouge_l", "output_ema")


def _tokens(text: str) -> list[str]:
    return nm.toks(text) if text != "NA" else ["na"]


def features(weighted, ctx: dict) -> tuple[list[str], list[list[float]]]:
    """The 25 likeliest candidates of a step and, for each, what is known at prediction time."""
    items = [(t, _tokens(t), w) for t, w in weighted.most_common()]
    total = sum(w for _, _, w in items) or 1.0
    evidence = [(nm._masks(tt), len(tt), w) for _, tt, w in items[:EVIDENCE]]
    gains = [
        sum(w * 2 * nm._lcs_bits(tt, m, n) / (len(tt) + n) for m, n, w in evidence if n and tt)
        for _, tt, _ in items[:TOP]
    ]
    best = max(gains) if gains else 1.0
    mbr_pick = int(np.argmax(gains)) if gains else 0
    instr = set(nm.toks(ctx["instruction"]))
    inputs = {w for x in ctx["inputs"] for w in nm.toks(x)}
    title = set(nm.dish_name(ctx["title"]))
    part = ctx["participle"]
    rows = []
    for r, ((_text, tt, w), gain) in enumerate(zip(items[:TOP], gains)):
        s = set(tt)
        novel = [x for x in tt if x not in instr and x not in inputs and x not in title and x != part]
        rows.append(
            [
                w / total,
                math.log(w / total + 1e-9),
                r,
                gain / total,
                gain / best if best else 0.0,
                float(r == mbr_pick),
                len(tt),
                len(s & instr) / len(s),
                len(s & inputs) / len(s),
                len(s & title) / len(s),
                float(part in s),
                len(novel),
                float("and" in s),
                float("with" in s),
                float("mixture" in s),
                float(tt == ["na"]),
                len(ctx["inputs"]),
                len(inputs),
                float(bool(inputs) and inputs <= s),
                len(inputs - s) / max(len(inputs), 1),
                len(instr & inputs) / max(len(inputs), 1),
                ctx["step"],
                float(tt[0] == part),
                len(items),
            ]
        )
    return [t for t, _, _ in items[:TOP]], rows


class Run:
    """Chained predictions of some tables with the namer's choice observed (and optionally replaced)."""

    def __init__(self, learned, chooser=None):
        self.learned, self.chooser = learned, chooser
        self.ctx: dict = {}
        self.x: list[list[float]] = []
        self.y: list[float] = []
        self.chosen: list[float] = []  # per step worded: ROUGE-L of the choice
        self.ceiling: list[float] = []  # ... and of the best candidate

    def _choose(self, weighted, *args, **kwargs):
        texts, rows = features(weighted, self.ctx)
        pick = (
            self._mbr(weighted, *args, **kwargs)
            if self.chooser is None
            else texts[int(np.argmax(self.chooser.predict(np.array(rows))))]
        )
        gold = _tokens(self.ctx["gold"] or "NA")
        found = [nm.rouge_l_f(gold, _tokens(t)) for t in texts]
        self.x += rows
        self.y += found
        self.chosen.append(nm.rouge_l_f(gold, _tokens(pick)))
        self.ceiling.append(max(found + [self.chosen[-1]]))
        return pick

    def predict(self, tables):
        self._mbr, nm.mbr = nm.mbr, self._choose
        try:
            tracker = _Observed(self.learned, run=self)
            out = []
            for t in tables:
                rows = pr.predict_table(t, "tracker", "chained", tracker)
                out.append(pr.PCSTable(id=t.id, title=t.title, rows=rows, annotator=t.annotator))
            return out
        finally:
            nm.mbr = self._mbr


@dataclass
class _Observed(pr.Tracker):
    """The default tracker, telling its `Run` what each step is (the row, then its chosen inputs) before the
    namer words it."""

    run: Any = None

    def step(self, row, kitchen, ingredient_words, title=""):
        self.run.ctx = {
            "instruction": row.instruction,
            "title": title,
            "participle": self.learned.namer.participle(pr.action_key(row.action)),
            "gold": row.output,
            "step": min(kitchen.step_no, 12),
            "inputs": [],
        }
        return super().step(row, kitchen, ingredient_words, title)

    def _name(self, row, kitchen, inputs, title):
        self.run.ctx["inputs"] = list(inputs)
        return super()._name(row, kitchen, inputs, title)


class ExactBonus:
    """MBR's own choice, leaned towards candidates a classifier (learned on the same cross-fitted candidates)
    finds likely to be the gold output *exactly*: the chain's inputs match only exact names. Scores a step's
    candidates by their MBR gain (relative to the best) plus ``weight`` times that probability; weight 0 is
    MBR's choice."""

    def __init__(self, classifier, weight: float):
        self.classifier, self.weight = classifier, weight

    def predict(self, rows):
        bonus = self.classifier.predict_proba(rows)[:, 1] if self.weight else 0.0
        return rows[:, 4] + self.weight * bonus + 1e-6 * rows[:, 5]


def scores(tables, predicted) -> dict:
    rows = pr.table_rows(
        pr.PCSTable(id=t.id, title=t.title, rows=p.rows, annotator=t.annotator) for t, p in zip(tables, predicted)
    )
    found = score(rows, gold_rows(tables))
    return {c: round(found[c], 1) for c in COLUMNS}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", help="the PizzaCommonSense release (train/ val/ test/)")
    ap.add_argument("--folds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--exact-weights", type=float, nargs="*", default=[1.0, 2.0, 4.0])
    args = ap.parse_args()
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

    started = time.perf_counter()
    train, val = read_pcs(f"{args.data}/train"), read_pcs(f"{args.data}/val")
    ids = sorted({t.id for t in train})
    random.Random(args.seed).shuffle(ids)
    fold = {i: n % args.folds for n, i in enumerate(ids)}  # a recipe's two annotations in one fold
    xs, ys = [], []
    for f in range(args.folds):
        run = Run(pr.learn([t for t in train if fold[t.id] != f]))
        run.predict([t for t in train if fold[t.id] == f])
        xs += run.x
        ys += run.y
    learned = pr.learn(train)
    mbr = Run(learned)
    result = {"mbr": scores(val, mbr.predict(val))}
    n = len(mbr.chosen)
    result["steps_worded"] = n
    result["mbr_output_rouge_l_of_worded_steps"] = round(100 * sum(mbr.chosen) / n, 1)
    result["ceiling_output_rouge_l_of_worded_steps"] = round(100 * sum(mbr.ceiling) / n, 1)
    gold_steps = sum(len(t.rows) for t in val)
    # the whole-split ceiling: MBR's choice replaced by the best candidate where the namer worded the step
    result["ceiling_output_rouge_l_all_rows"] = round(
        result["mbr"]["output_rouge_l"] + 100 * (sum(mbr.ceiling) - sum(mbr.chosen)) / gold_steps, 1
    )
    model = HistGradientBoostingRegressor(
        max_iter=400, learning_rate=0.05, max_leaf_nodes=31, min_samples_leaf=40, random_state=args.seed
    ).fit(np.array(xs), np.array(ys))
    result["reranker"] = scores(val, Run(learned, chooser=model).predict(val))
    exact = HistGradientBoostingClassifier(
        max_iter=300, learning_rate=0.05, max_leaf_nodes=31, min_samples_leaf=40, random_state=args.seed
    ).fit(np.array(xs), np.array(ys) == 1.0)
    for weight in args.exact_weights:
        result[f"mbr_plus_exact_{weight:g}"] = scores(val, Run(learned, chooser=ExactBonus(exact, weight)).predict(val))
    result["train_candidates"] = len(ys)
    result["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
