"""Choose the fair composed editor's insertion method (``compose.INSERT_METHODS``: the paper's rule, the
corpus-fitted ranker, or both) without letting any method's own tuning favour it, then tune the chosen one.

Why: the rule has five thresholds, the ranker one, and comparing them after tuning each on the same even pairs
favours the one with more knobs. So the choice is nested inside the even pairs: they are split into two halves
(pairs 0, 4, 8, ... and 2, 6, 10, ... of `dish_pairs.txt`); each method's thresholds are tuned by coordinate
ascent (`coordinate_ascent`, the grid of `tune_composed_thresholds.py` plus the ranker's probability threshold)
on one half and scored on the other, both ways round. The method with the best mean held-out half wins; it
is then tuned on all even pairs and scored once on the odd pairs (held out) and on all. No odd pair steers any
choice; nothing reads a released pivot or constraint but the scorer.

    OMP_NUM_THREADS=1 python benchmarks/choose_insert_method.py --db DB
        [--json-out benchmarks/results/insert_method.json] [--final all]

``--final all`` tunes and scores every method on all even pairs (the chosen one first), for the table beside
the choice. The database is left composed with the library's defaults.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, replace
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

from _crg import release_with_parity  # noqa: E402

RULE_GRID = {
    "alpha": (2.0, 2.5, 3.0, 4.0, 5.0),
    "tau_r": (0.05, 0.1, 0.15),
    "tau_i": (0.15, 0.2, 0.25, 0.3),
    "min_fb": (0.05, 0.1, 0.15),
    "tau_new": (0.02, 0.03, 0.05),
}
RANKER_GRID = {"ranker_min_prob": (0.05, 0.1, 0.15, 0.2, 0.3)}
# the thresholds each method reads: the ranker replaces the rule's insertions, so tau_i / tau_new do nothing
PARAMETERS = {
    "rule": tuple(RULE_GRID),
    "ranker": ("alpha", "tau_r", "min_fb", "ranker_min_prob"),
    "rule+ranker": (*RULE_GRID, "ranker_min_prob"),
}


def coordinate_ascent(evaluate: Callable, start, grid: dict[str, Sequence[float]]) -> tuple:
    """Coordinate ascent over ``grid`` (one parameter at a time, in order, each value tried from the best so
    far; ties keep the earlier) maximising ``evaluate(thresholds)``; returns (best, its score, every
    (thresholds, score) tried). ``evaluate`` is called once per distinct thresholds."""
    tried: dict = {}

    def score(thr) -> float:
        if thr not in tried:  # a value passed over before can come round again once another one moved
            tried[thr] = evaluate(thr)
        return tried[thr]

    best, best_score = start, score(start)
    for name, values in grid.items():
        for v in values:
            cand = replace(best, **{name: v})
            if cand != best and score(cand) > best_score:
                best, best_score = cand, score(cand)
    return best, best_score, list(tried.items())


class MethodScorer:
    """Mines every pair's composed pivots for one method and thresholds and scores the fair editor on a set of
    pairs. The compositions are made once; the ranker is fitted once per ``alpha`` (its candidates are the
    actions whose composed share passes ``alpha`` times the base's)."""

    def __init__(self, store, glossary, scorer, instances, settings=None):
        from dishgraph.ingest.loader import pair_key
        from dishgraph.knowledge import compose

        self.store, self.glossary, self.scorer, self.instances = store, glossary, scorer, instances
        dg, gl = compose.default_glossaries(store)
        self.settings = settings or compose.ComposeSettings()
        keys = sorted({pair_key(i.base, i.target) for i in instances})
        self.specs = {k: compose.pair_spec(store, k, dg, gl) for k in keys}
        self.comps: dict[str, object] = {}  # composed when a ranker first needs them (the rule reads the graph's)
        self.rates: dict[str, float] = {}
        self.rankers: dict[float, object] = {}
        self.evaluations = 0

    def ranker(self, alpha: float):
        from dishgraph.knowledge import compose

        if not self.comps:
            self.comps = {k: compose.compose_spec(self.store, s, self.settings) for k, s in self.specs.items()}
            self.rates = compose.corpus_rates(self.store)
        if alpha not in self.rankers:
            thr = replace(compose.ComposedThresholds(), alpha=alpha)
            self.rankers[alpha] = compose.fit_ranker(self.store, self.settings, thr, rates=self.rates)
        return self.rankers[alpha]

    def mine(self, method: str, thr, keys: Sequence[str]) -> None:
        from dishgraph.knowledge import compose

        for k in keys:
            spec = self.specs[k]
            mined = compose.mine_composed(self.store, k, thr, spec.new_cls)
            ranker = self.ranker(thr.alpha) if method != compose.RULE else None
            if ranker is not None:  # none without pseudo-pairs: the rule's insertions stay, as compose_pairs does
                keep = method == compose.RULE_AND_RANKER
                compose.rank_inserts(self.store, k, spec, self.comps[k], mined, ranker, self.rates, thr, keep_rule=keep)

    def row(self, method: str, thr, keys: Sequence[str], label: str) -> dict:
        """The Table-3 row (named ``label``) of the editor on the instances of ``keys`` with ``method`` at
        ``thr``."""
        from dishgraph.eval.crg import table_row
        from dishgraph.ingest.loader import pair_key
        from dishgraph.models.graph_editor import GraphEditor

        self.mine(method, thr, keys)
        wanted = set(keys)
        subset = [i for i in self.instances if pair_key(i.base, i.target) in wanted]
        editor = GraphEditor(self.glossary, store=self.store, knowledge="composed")
        self.evaluations += 1
        return table_row(self.scorer.score([editor.edit(i) for i in subset], subset), label)

    def tune(self, method: str, keys: Sequence[str], label: str) -> dict:
        """Coordinate ascent of ``method``'s thresholds on ``keys`` (Hard F1), from the library's defaults."""
        from dishgraph.knowledge import compose

        grid = {p: (RULE_GRID | RANKER_GRID)[p] for p in PARAMETERS[method]}

        def evaluate(thr) -> float:
            f1 = self.row(method, thr, keys, f"{method} [{label}]")["hard_f1"]
            print(method, label, json.dumps(asdict(thr)), f1, flush=True)
            return f1

        best, f1, tried = coordinate_ascent(evaluate, compose.ComposedThresholds(), grid)
        return {"chosen": asdict(best), "hard_f1": f1, "tried": [asdict(t) | {"hard_f1": s} for t, s in tried]}


def main() -> None:
    from dishgraph.api import DishGraph
    from dishgraph.eval.crg import CrgScorer
    from dishgraph.eval.l2 import L2Reference
    from dishgraph.graph.ladybug_store import LadybugStore
    from dishgraph.ingest.loader import pair_key
    from dishgraph.knowledge import compose

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="parsed recipes, USES and estimated order constraints")
    ap.add_argument("--json-out", default="benchmarks/results/insert_method.json")
    ap.add_argument(
        "--final", choices=("chosen", "all"), default="chosen", help="which methods to tune on all even pairs"
    )
    args = ap.parse_args()

    d, glossary, instances, parity = release_with_parity()
    number = {pair_key(base, target): n for n, (base, target) in enumerate(parity)}  # dish_pairs.txt order
    keys = sorted(number, key=number.get)
    halves = {"A": [k for k in keys if number[k] % 4 == 0], "B": [k for k in keys if number[k] % 4 == 2]}
    even, odd = halves["A"] + halves["B"], [k for k in keys if number[k] % 2 == 1]
    scorer = CrgScorer(instances, glossary, L2Reference.from_release(d), data_dir=d, workers=2)
    t_start, load_before = time.perf_counter(), os.getloadavg()
    out: dict = {"halves": {h: [number[k] for k in ks] for h, ks in halves.items()}, "methods": list(PARAMETERS)}

    with LadybugStore(args.db) as store:
        DishGraph(store, glossary=glossary).compose()  # the compositions every method mines
        ms = MethodScorer(store, glossary, scorer, instances)
        nested: dict = {}
        for method in PARAMETERS:
            folds = {}
            for tune_on, test_on in (("A", "B"), ("B", "A")):
                tuned = ms.tune(method, halves[tune_on], f"tune on {tune_on}")
                thr = compose.ComposedThresholds(**tuned["chosen"])
                held = ms.row(method, thr, halves[test_on], f"{method} [held-out {test_on}]")
                folds[f"tune {tune_on}, test {test_on}"] = tuned | {"held_out": held}
                print(method, tune_on, "->", test_on, held["hard_f1"], flush=True)
            mean = sum(f["held_out"]["hard_f1"] for f in folds.values()) / len(folds)
            nested[method] = {"folds": folds, "mean_held_out_hard_f1": round(mean, 2)}
        chosen = max(PARAMETERS, key=lambda m: nested[m]["mean_held_out_hard_f1"])
        out["nested"], out["chosen"] = nested, chosen
        print("chosen", chosen, {m: nested[m]["mean_held_out_hard_f1"] for m in nested}, flush=True)

        final: dict = {}
        for method in [chosen] + [m for m in PARAMETERS if m != chosen and args.final == "all"]:
            tuned = ms.tune(method, even, "even")
            thr = compose.ComposedThresholds(**tuned["chosen"])
            final[method] = tuned | {
                s: ms.row(method, thr, ks, f"{method} [{s}]") for s, ks in (("odd", odd), ("all", keys))
            }
            print(method, "final", {s: final[method][s]["hard_f1"] for s in ("odd", "all")}, flush=True)
        out["final"] = final
        ms.mine(compose.RULE, compose.ComposedThresholds(), keys)  # leave the graph mined with the defaults
        out["evaluations"] = ms.evaluations

    out["seconds"] = round(time.perf_counter() - t_start, 1)
    out["load_before"], out["load_after"] = load_before, os.getloadavg()
    Path(args.json_out).write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({"chosen": chosen, "seconds": out["seconds"]}), flush=True)


if __name__ == "__main__":
    main()
