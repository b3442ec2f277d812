"""Benchmark: does the order checker tell a real recipe from a broken one? Held out, as a user would meet it.

    python benchmarks/bench_order_check.py --db DEMO_DB [--folds 5] [--methods after,scored,text] [--classic FILE]

Over the demo graph's dishes with estimated order constraints, k folds by recipe per dish: the knowledge is
estimated without the fold's recipes and each held-out recipe is checked as written, with its sentences in
reverse order, shuffled (seeded), and with one pair of dependent steps swapped. ``swapped``: two steps in
different sentences whose CRG keys have different verbs and share an ingredient class (seeded choice);
``swapped_dep``, stricter: of those, a pair with order evidence, i.e. one the recipe orders strictly (aligned) in
the direction of a kept tested constraint of the fold's training recipes (dish → family → global backoff; its
own seeded draws, so the other variants are those of the plain run). Reported: the share of real recipes
flagged and the share of broken ones detected.

* ``before``: the CRG method as it stands (PSM ψ > τ_c around the dish's frequent actions, re-estimated per
  fold on the training recipes) and the first-occurrence check: flagged = any violation (slow: not run for
  the results file).
* ``after``: the tested constraints' checker (``precedence.check_recipe``): dish, family and global levels
  with backoff, kept constraints only, flagged = confidence ≥ its threshold; the threshold and the share
  scale are chosen on the even-numbered dishes (sorted by name), as first published (a soft 5% bound).
* ``scored``: the whole-recipe score (``precedence.score_recipe``): the likelihood of the recipe's order under
  the pairwise order counts of the typed keys (``--key``), backing off dish → family → global → class keys
  (``--no-classes``: none) → dish verbs → verbs, read as u (score against length) and w (strongest violation
  against the number of pairs). The slopes, the calibration of u and w (the even dishes' real recipes) and the
  confidence threshold are chosen on the even-numbered dishes with real flagged ≤ 5% there, and reported on
  the odd ones held out.

* ``text``: the sentence-order reading of the recipe text (``sentence_order``: a position model of each
  sentence from its words, learned per fold without the fold's recipes), OR the scored confidence; the
  logistic weighing of its readings, the text's share and the scored threshold chosen on the even-numbered
  dishes, reported on the odd ones; ``library``: the shipped constants on the same rows.

* ``combined`` (measured, not shipped): more readings where the sentences are known (the cross-sentence pairs
  apart, the weighted share of them reversed, the lowest action and sentence, local coherence of sentence
  transitions), weighed by a logistic model fit on the even-numbered dishes' real recipes against their
  variants, calibrated and thresholded there, reported on the odd ones; with ablations (u and w alone, boosted
  trees, and boosted trees given sizes that carry no order). A swapped action takes the sentence of its new
  place, as in edited text.

``--classic``: recipes of the classic cookbook corpus (never ingested into the demo graph) of the dishes with
constraints, parsed with today's parser and checked against knowledge from the whole graph (outside recipes).
Writes benchmarks/results/order_check.json (or ``--out``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dishgraph.actions import ProtoAction  # noqa: E402
from dishgraph.graph.factory import open_store  # noqa: E402
from dishgraph.knowledge import causal, precedence  # noqa: E402
from dishgraph.knowledge.order import Constraint, check_sequence, dishes_with_constraints  # noqa: E402
from dishgraph.knowledge.typed import hidden_actions  # noqa: E402

CLASSES = True  # class-key levels between the keys' and the verbs' (--no-classes leaves them out)
KEY = "typed"  # the scored checker's key: typed (Step.typed_action) or typed_classes (--key)
VARIANTS = ("real", "reversed", "shuffled", "swapped", "swapped_dep")
GRID_CONF = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.97)
GRID_SCALE = (0.2, 0.3, 0.4, 0.5, 0.75, 1.0)


# ------------------------------------------------------------------------------------------ data
def load(store, dishes):
    """{recipe: [(CRG key, unit, typed key, class key, start)]} and {recipe: dish} for every parsed recipe of the
    corpus; unit = sentence (else clause); the typed key is Step.typed_action (the CRG key where a step has none);
    start: the step's offset in the recipe text."""
    rows = store.query("order_corpus_steps", dishes=[])
    rec: dict[str, list] = {}
    dish_of: dict[str, str] = {}
    for r in rows:
        unit = r["sentence"] if r["sentence"] is not None else r["clause"]
        rec.setdefault(r["recipe"], []).append(
            (
                r["action"],
                unit if unit is not None else r["pos"],
                r.get(KEY) or r["action"],
                r.get("typed_classes") or r.get(KEY) or r["action"],
                r["start"],
            )
        )
        dish_of[r["recipe"]] = r["dish"]
    return rec, dish_of


def variants(steps, rng: random.Random, rng2: random.Random | None = None, look=None):
    """{variant: step indices in order} of one recipe's steps [(key, unit, typed)]: as written, units reversed,
    shuffled, one dependent pair swapped (None where the recipe has no such pair). ``swapped``: two steps in
    different units whose CRG keys have different verbs and share an ingredient class; ``swapped_dep`` (with
    ``look``, stricter): of those, a pair the recipe orders strictly (aligned) in the direction of a kept tested
    constraint of the training recipes (dish → family → global backoff), i.e. a pair with order evidence."""
    keys = list(range(len(steps)))
    units: dict = {}
    for i, st in enumerate(steps):
        units.setdefault(st[1], []).append(i)
    groups = list(units.values())
    out = {"real": keys, "reversed": [k for g in reversed(groups) for k in g]}
    if len(groups) > 1:
        for _ in range(10):
            perm = groups[:]
            rng.shuffle(perm)
            if [[steps[i][0] for i in g] for g in perm] != [[steps[i][0] for i in g] for g in groups]:
                break
        out["shuffled"] = [k for g in perm for k in g]
    else:
        out["shuffled"] = None
    cands = []
    for i in range(len(steps)):
        ki, ui = steps[i][:2]
        pi = ProtoAction.from_key(ki)
        for j in range(i + 1, len(steps)):
            kj, uj = steps[j][:2]
            if uj == ui or kj == ki:
                continue
            pj = ProtoAction.from_key(kj)
            if pi.verb != pj.verb and pi.ingredients & pj.ingredients:
                cands.append((i, j))
    out["swapped"] = _swap(keys, rng.choice(cands)) if cands else None
    if look is not None:
        sp = precedence.spans([st[0] for st in steps])
        dep = []
        for i, j in cands:
            x, y = steps[i][0], steps[j][0]
            if sp[x][1] < sp[y][0]:
                e = look(x, y)
                if e is not None and e.cause == x:
                    dep.append((i, j))
        out["swapped_dep"] = _swap(keys, rng2.choice(dep)) if dep else None
    return out


def _swap(keys, ij):
    s = keys[:]
    s[ij[0]], s[ij[1]] = s[ij[1]], s[ij[0]]
    return s


def folds_of(recipes, k, seed):
    r = sorted(recipes)
    random.Random(seed).shuffle(r)
    return [r[i::k] for i in range(k)]


# ------------------------------------------------------------------------------------------ methods
def before_constraints(train_seqs: dict[str, list[str]], dish: str, hidden: set[str]) -> list[Constraint]:
    ds = causal.DishSequences.from_sequences(dish, train_seqs)
    focus = [a for a, f in zip(ds.actions, ds.freq()) if f >= 0.1]
    task = causal.DishTask(ds, causal.candidate_pairs(ds, focus, 2), "fast", "paper")
    res = causal.run_task(task)
    return [
        Constraint(e.cause, e.effect, e.ate, source="estimated")
        for e in res.estimates
        if e.ate is not None and e.ate > causal.TAU_C and e.cause not in hidden and e.effect not in hidden
    ]


def shown(seq, hidden):
    return [k for k in seq if k not in hidden]


def run(args):
    store = open_store(db=args.db, read_only=True)
    hidden = hidden_actions(store)
    dishes = sorted({r["dish"] for r in dishes_with_constraints(store) if r["source"] == "estimated"})
    recipes, dish_of = load(store, dishes)
    comps: dict[str, set[str]] = defaultdict(set)
    for r in store.query("diner_dish_components"):
        comps[r["dish"]].add(r["key"])
    by_dish: dict[str, list[str]] = defaultdict(list)
    for rid, d in dish_of.items():
        by_dish[d].append(rid)
    t0 = time.perf_counter()
    rec_counts = {rid: Counter(precedence.strict_pairs([st[0] for st in sts])) for rid, sts in recipes.items()}
    global_counts: Counter = Counter()
    dish_counts: dict[str, Counter] = defaultdict(Counter)
    for rid, c in rec_counts.items():
        global_counts.update(c)
        dish_counts[dish_of[rid]].update(c)
    fam = precedence.families(comps, dishes)
    global_level = precedence.Level("global", global_counts)
    methods = args.methods.split(",")
    combined = "combined" in methods
    if "swap" in methods and "text" not in methods:
        methods.append("text")
    if (combined or "text" in methods) and "scored" not in methods:
        methods.append("scored")
        args.methods = ",".join(methods)
    vs_of: dict[str, dict] = {}  # every checked recipe's variants and fold (the text reading reads them after the loop)
    fold_of: dict[str, int] = {}
    if "scored" in methods:  # the likelihood of the order: typed keys, and verb classes at the top
        typed = {rid: Counter(precedence.strict_pairs([st[2] for st in sts])) for rid, sts in recipes.items()}
        verbs = {
            rid: Counter(precedence.strict_pairs([precedence.verb_of(st[2]) for st in sts]))
            for rid, sts in recipes.items()
        }
        clss = {rid: Counter(precedence.strict_pairs([st[3] for st in sts])) for rid, sts in recipes.items()}
        c_glob, c_dish = Counter(), defaultdict(Counter)
        for rid in recipes:
            c_glob.update(clss[rid])
            c_dish[dish_of[rid]].update(clss[rid])
        s_classes = precedence.PairCounts("global classes", c_glob)
        t_glob, t_dish, v_glob, v_dish = Counter(), defaultdict(Counter), Counter(), defaultdict(Counter)
        for rid in recipes:
            t_glob.update(typed[rid])
            t_dish[dish_of[rid]].update(typed[rid])
            v_glob.update(verbs[rid])
            v_dish[dish_of[rid]].update(verbs[rid])
        s_global = precedence.PairCounts("global", t_glob)
        s_verbs = precedence.PairCounts("verbs", v_glob)
        scored_counts = {"t": (t_glob, t_dish), "v": (v_glob, v_dish), "c": (c_glob, c_dish)}
        if combined:  # sentence transitions of every recipe, for the coherence reading
            trans = {
                rid: transition_counts(transitions([st[2] for st in sts], [st[1] for st in sts]))
                for rid, sts in recipes.items()
            }
            trans_glob, trans_dish = Counter(), defaultdict(Counter)
            for rid, c in trans.items():
                trans_glob.update(c)
                trans_dish[dish_of[rid]].update(c)
    else:
        scored_counts = None
    t_count = time.perf_counter() - t0
    rows = []  # one per (dish, recipe, variant, method): flagged / confidence
    rng = random.Random(args.seed)
    rng2 = random.Random(args.seed + 1)  # the dependent swap's own draws: the other variants stay as they were
    t_before = t_after = t_scored = 0.0
    for di, dish in enumerate(dishes):
        rids = sorted(by_dish[dish])
        fam_counts: Counter = Counter()
        for o in fam[dish]:
            fam_counts.update(dish_counts.get(o, Counter()))
        fam_level = precedence.Level("family", fam_counts)
        if "scored" in methods:
            t_fam: Counter = Counter()
            for o in fam[dish]:
                t_fam.update(t_dish.get(o, Counter()))
        for fi, fold in enumerate(folds_of(rids, args.folds, args.seed)):
            fold_of.update(dict.fromkeys(fold, fi))
            held = set(fold)
            train = [r for r in rids if r not in held]
            fold_counts: Counter = Counter()
            for r in held:
                fold_counts.update(rec_counts[r])
            global_level.minus = fold_counts
            look = precedence.backoff(
                [precedence.Level("dish", dish_counts[dish] - fold_counts), fam_level, global_level]
            )
            vs = {r: variants(recipes[r], rng, rng2, look) for r in fold}
            vs_of.update(vs)
            global_level.minus = Counter()
            if "before" in methods:
                t = time.perf_counter()
                cons = before_constraints({r: [st[0] for st in recipes[r]] for r in train}, dish, hidden)
                for r in fold:
                    for v, idx in vs[r].items():
                        if idx is not None:
                            found = check_sequence(cons, [recipes[r][i][0] for i in idx])
                            rows.append((dish, di % 2, r, v, "before", bool(found), len(cons)))
                t_before += time.perf_counter() - t
            if "after" in methods:
                t = time.perf_counter()
                dish_level = precedence.Level("dish", dish_counts[dish] - fold_counts)
                global_level.minus = fold_counts
                look = precedence.backoff([dish_level, fam_level, global_level])
                for r in fold:
                    for v, idx in vs[r].items():
                        if idx is not None:
                            chk = precedence.check_recipe(shown([recipes[r][i][0] for i in idx], hidden), look)
                            best = max((x.confidence for x in chk.violations), default=0.0)
                            rows.append(
                                (
                                    dish,
                                    di % 2,
                                    r,
                                    v,
                                    "after",
                                    (best, chk.disorder, bool(chk.violations)),
                                    chk.applicable,
                                )
                            )
                global_level.minus = Counter()
                t_after += time.perf_counter() - t
            if "scored" in methods:
                t = time.perf_counter()
                t_fold, v_fold, c_fold = Counter(), Counter(), Counter()
                for r in held:
                    t_fold.update(typed[r])
                    v_fold.update(verbs[r])
                    c_fold.update(clss[r])
                s_global.minus, s_verbs.minus, s_classes.minus = t_fold, v_fold, c_fold
                if combined:
                    tf_fold: Counter = Counter()
                    for r in held:
                        tf_fold.update(trans[r])
                    trans_fold = (trans_glob - tf_fold, trans_dish[dish] - tf_fold)
                model = precedence.OrderModel(
                    [
                        precedence.PairCounts("dish", t_dish[dish] - t_fold),
                        precedence.PairCounts("family", t_fam),
                        s_global,
                    ],
                    [precedence.PairCounts("dish verbs", v_dish[dish] - v_fold), s_verbs],
                    classes=[precedence.PairCounts("dish classes", c_dish[dish] - c_fold), s_classes]
                    if CLASSES
                    else [],
                )
                for r in fold:
                    for v, idx in vs[r].items():
                        if idx is not None:
                            found, z, m = precedence.recipe_stats(
                                [recipes[r][i][2] for i in idx], model, [recipes[r][i][3] for i in idx]
                            )
                            rows.append((dish, di % 2, r, v, "scored", (z, m, len(found)), len(found)))
                            if v.startswith("swapped"):
                                SWAPPED_PAIR[(r, v)] = swapped_pair_llr(recipes[r], idx, found)
                            if combined and found:
                                keys_v = [recipes[r][i][2] for i in idx]
                                units = sentences_of(recipes[r], idx, v)
                                coh = coherence(transitions(keys_v, units), *trans_fold)
                                READINGS[(r, v)] = recipe_readings(found, keys_v, units, z, m, coh)
                s_global.minus, s_verbs.minus, s_classes.minus = Counter(), Counter(), Counter()
                t_scored += time.perf_counter() - t
        print(f"{di + 1}/{len(dishes)} {dish}", file=sys.stderr, flush=True)
    t = time.perf_counter()
    if "text" in methods:
        text_readings(store, recipes, args.folds, fold_of, vs_of)
    t_text = time.perf_counter() - t
    t = time.perf_counter()
    if "swap" in methods:
        swap_readings(recipes, dish_of, args.folds, fold_of, vs_of)
    t_swap = time.perf_counter() - t
    return (
        store,
        dishes,
        rows,
        {"count": t_count, "before": t_before, "after": t_after, "scored": t_scored, "text": t_text, "swap": t_swap},
        (global_counts, dish_counts, comps, hidden, scored_counts, Counter(dish_of.values())),
    )


# ------------------------------------------------------------------------------------------ swaps by evidence
SWAPPED_PAIR: dict[tuple[str, str], float | None] = {}  # (recipe, variant): llr of the swapped pair as checked
SWAP_BINS = ((-1e9, -6.0), (-6.0, -3.0), (-3.0, -1.5), (-1.5, 0.0), (0.0, 1e9))


def swapped_pair_llr(steps, idx, found) -> float | None:
    """The log-odds of the order the swapped pair has after the swap (how strongly the corpus says the two
    belong the other way round: very negative for a sure dependency); None when the check does not read the
    pair (a repeat of either action now interleaves them) or the corpus does not order it."""
    moved = [k for k in range(len(idx)) if idx[k] != k]
    if len(moved) != 2:
        return None
    a, b = steps[idx[moved[0]]][2], steps[idx[moved[1]]][2]
    return next((po.llr for x, y, po in found if x == a and y == b), None)


def swaps_by_evidence(rows, parity, p) -> dict:
    """Swapped recipes detected, by how strongly the swapped pair's order is known (its llr after the swap)."""
    out: dict = {}
    for v in ("swapped", "swapped_dep"):
        sel = [r for r in rows if r[4] == "scored" and r[3] == v and r[1] == parity]
        bins: dict = {}
        for lo, hi in SWAP_BINS + ((None, None),):
            if lo is None:
                part = [r for r in sel if SWAPPED_PAIR.get((r[2], v)) is None]
                name = "pair not read"
            else:
                part = [r for r in sel if (x := SWAPPED_PAIR.get((r[2], v))) is not None and lo < x <= hi]
                name = f"llr in ({lo:g}, {hi:g}]"
            hits = sum(scored_flag(r, p) for r in part)
            bins[name] = {"n": len(part), "flagged": round(100 * hits / len(part), 1) if part else None}
        out[v] = bins
    return out


# ------------------------------------------------------------------------------------------ sentence text
# Shipped with the scored checker (docs/order-knowledge.md): where a sentence belongs, read from its words
# (dishgraph/knowledge/sentence_order.py). The position model of fold f is learned from every parsed recipe's
# text except the fold-f recipes of the checked dishes, so each checked recipe is read by a model that never saw
# it. A swap leaves the sentences where they were, so its text reads as the real recipe's. A logistic model of
# the text readings (even dishes: real against reversed and shuffled) gives a text score; flagged = the text
# score beyond a share of the even dishes' real recipes OR the scored confidence beyond its own threshold, the
# two chosen together on the even dishes (real flagged ≤ 5%), reported on the odd ones: by the objective, and
# "marks first" (reversed ≥ 90% and shuffled ≥ 80% on the even dishes, then the most swaps: what ships).
TEXT: dict[tuple[str, str], dict[str, float]] = {}  # (recipe, variant): sentence_order.order_readings
GRID_TEXT_SHARE = (0.0, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05)
GRID_OR_CONF = (0.9725, 0.975, 0.9775, 0.98, 0.9825, 0.985, 0.99, 0.995, 1.01)


def text_readings(store, recipes, folds, fold_of, vs_of):
    """TEXT for every checked (recipe, variant): the units' texts in the variant's order, read by the position
    model of its fold (``fold_of``: each checked recipe's fold)."""
    from dishgraph.knowledge import sentence_order as sp

    texts = {r["recipe"]: r["text"] for r in store.query("order_corpus_texts")}
    units = {rid: sp.unit_texts(texts.get(rid) or "", [(st[1], st[4]) for st in sts]) for rid, sts in recipes.items()}

    def written(rid):
        order = list(dict.fromkeys(st[1] for st in recipes[rid]))
        return [units[rid][u] for u in order]

    for f in range(folds):
        model = sp.SentencePositions().fit(written(rid) for rid in recipes if fold_of.get(rid) != f)
        for rid, f2 in fold_of.items():
            if f2 != f or rid not in vs_of:
                continue
            for v, idx in vs_of[rid].items():
                if idx is None:
                    continue
                order = list(dict.fromkeys(sentences_of(recipes[rid], idx, v)))
                TEXT[(rid, v)] = sp.order_readings(model.predict([units[rid][u] for u in order]))
        print(f"text model {f + 1}/{folds}", file=sys.stderr, flush=True)


def library_text_rates(sel, X, conf, rates_of) -> dict:
    """The shipped reading (sentence_order's constants) on the same rows, per parity."""
    import numpy as np

    from dishgraph.knowledge import sentence_order as sp

    score = np.array([sp.text_score(dict(zip(sp.READINGS, x))) for x in X])
    flag = (score > sp.TEXT_CUT) | (conf >= sp.MIN_RECIPE_CONFIDENCE_WITH_TEXT)
    return {
        "text_cut": sp.TEXT_CUT,
        "min_confidence": sp.MIN_RECIPE_CONFIDENCE_WITH_TEXT,
        "all": rates_of(flag, None),
        "even": rates_of(flag, 0),
        "odd": rates_of(flag, 1),
    }


def variant_rates(flag, par, var, parity=None) -> dict:
    """{variant: n, % flagged} of rows given as arrays: each row's flag, parity (0 even, 1 odd) and variant;
    ``parity`` None: every row."""
    import numpy as np

    m = par == parity if parity is not None else np.ones(len(flag), bool)
    return {
        v: {"n": int((m & (var == v)).sum()), "flagged": round(100 * float(flag[m & (var == v)].mean()), 1)}
        for v in VARIANTS
        if (m & (var == v)).any()
    }


def text_report(rows, p) -> dict:
    """The text score alone and OR the shipped score (its slopes and calibration ``p`` as chosen on the even
    dishes, its threshold chosen again with the text's), chosen on the even dishes, reported per parity."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from dishgraph.knowledge import sentence_order as sp

    names = list(sp.READINGS)
    sel = [r for r in rows if r[4] == "scored" and (r[2], r[3]) in TEXT]
    X = np.array([[TEXT[(r[2], r[3])][n] for n in names] for r in sel])
    par = np.array([r[1] for r in sel])
    var = np.array([r[3] for r in sel])
    fit = (par == 0) & np.isin(var, ["real", "reversed", "shuffled"])
    mean, scale = X[fit].mean(axis=0), X[fit].std(axis=0)
    scale[scale == 0] = 1.0
    y = (var != "real").astype(int)
    lr = LogisticRegression(max_iter=5000).fit(
        (X[fit] - mean) / scale, y[fit], sample_weight=np.where(y[fit] == 1, 1.0, 2.0)
    )
    score = lr.decision_function((X - mean) / scale)
    score[X[:, names.index("sentences")] < 2] = -np.inf  # one sentence: nothing to read
    conf = np.array([scored_confidence(r[5], p) for r in sel])
    real_even = score[(par == 0) & (var == "real")]

    def cut(share):
        return np.inf if share == 0 else float(np.quantile(real_even, 1 - share))

    def rates_of(flag, parity):
        return variant_rates(flag, par, var, parity)

    def flag_at(q, c):
        return (score > cut(q)) | (conf >= c)

    even = {(q, c): rates_of(flag_at(q, c), 0) for q in GRID_TEXT_SHARE for c in GRID_OR_CONF}
    grid = sorted(((objective(rt, strict=True), q, c) for (q, c), rt in even.items()), key=lambda g: -g[0])
    _, q, c = grid[0]
    flag = flag_at(q, c)
    # targets first: of the choices reaching reversed ≥ 90% and shuffled ≥ 80% on the even dishes (real ≤ 5%),
    # the one keeping the most swaps detected
    marks = [
        (rt["swapped"]["flagged"], rt["shuffled"]["flagged"], q2, c2)
        for (q2, c2), rt in even.items()
        if rt["real"]["flagged"] <= 5.0 and rt["reversed"]["flagged"] >= 90 and rt["shuffled"]["flagged"] >= 80
    ]
    marks_first = None
    if marks:
        _, _, q2, c2 = max(marks)
        f2 = flag_at(q2, c2)
        marks_first = {
            "text_share": q2,
            "text_cut": round(cut(q2), 4),
            "min_confidence": c2,
            "all": rates_of(f2, None),
            "even": rates_of(f2, 0),
            "odd": rates_of(f2, 1),
        }
    alone = {}
    for q2 in (0.01, 0.02, 0.05):
        f2 = score > cut(q2)
        alone[str(q2)] = {"even": rates_of(f2, 0), "odd": rates_of(f2, 1)}
    return {
        "chosen_on_even": {
            "text_share": q,
            "text_cut": round(cut(q), 4),
            "min_confidence": c,
            "readings": names,
            "mean": [round(float(v), 4) for v in mean],
            "scale": [round(float(v), 4) for v in scale],
            "coef": [round(float(v), 4) for v in lr.coef_[0]],
            "intercept": round(float(lr.intercept_[0]), 4),
        },
        "or_scored": {"all": rates_of(flag, None), "even": rates_of(flag, 0), "odd": rates_of(flag, 1)},
        "or_scored_marks_first": marks_first,
        "library": library_text_rates(sel, X, conf, rates_of),
        "text_alone_at_real_share": alone,
        "grid_even_top": [
            {"text_share": q2, "min_confidence": c2, **{k: v["flagged"] for k, v in even[(q2, c2)].items()}}
            for _, q2, c2 in grid[:8]
        ],
    }


# ------------------------------------------------------------------------------------------ swap
# One pair of dependent steps swapped (``step_swaps``): the largest gain in log-likelihood, under a trigram model
# of action sequences, that swapping one dependent pair back brings. The model of fold f counts every parsed
# recipe but the fold-f recipes of the checked dishes, and the dish layer the dish's other recipes; the cut
# (a share of the even dishes' real recipes) is chosen with the text's share and the score's threshold there.

SWAP: dict[tuple[str, str], list] = {}  # (recipe, variant): step_swaps.pair_gains of its dependent pairs
SWAP_SEQ: dict[tuple[str, str], list] = {}  # the same, read as an action sequence (no sentences)
GRID_SWAP_SHARE = (0.0, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04, 0.045, 0.05)
GRID_PLACE_WEIGHT = (0.0, 10.0, 20.0, 25.0, 30.0, 40.0, 50.0)


def swap_readings(recipes, dish_of, folds, fold_of, vs_of):
    """SWAP and SWAP_SEQ for every checked (recipe, variant), read by its fold's models."""
    from dishgraph.knowledge import step_swaps as ss

    seqs = {rid: [st[2] for st in sts] for rid, sts in recipes.items()}
    for f in range(folds):
        train = [s for rid, s in seqs.items() if fold_of.get(rid) != f]
        base = (ss.ActionTrigrams(train), ss.KeyPlaces(train))
        by_dish: dict[str, list[str]] = defaultdict(list)
        for rid, f2 in fold_of.items():
            if f2 == f and rid in vs_of:
                by_dish[dish_of[rid]].append(rid)
        for dish, held in sorted(by_dish.items()):
            own = (s for rid, s in seqs.items() if dish_of[rid] == dish and fold_of.get(rid) != f)
            model = ss.SwapModel.of([], own, base)
            for rid in held:
                for v, idx in vs_of[rid].items():
                    if idx is None:
                        continue
                    steps = recipes[rid]
                    keys, release = [steps[i][2] for i in idx], [steps[i][0] for i in idx]
                    units = sentences_of(steps, idx, v)
                    SWAP[(rid, v)] = list(ss.pair_gains(model, keys, ss.dependent_pairs(release, units)))
                    # an action sequence has no sentences: every action is its own
                    seq_pairs = ss.dependent_pairs(release, range(len(idx)))
                    SWAP_SEQ[(rid, v)] = list(ss.pair_gains(model, keys, seq_pairs))
        print(f"swap model {f + 1}/{folds}", file=sys.stderr, flush=True)


def swap_report(rows, p) -> dict:
    """The swap gain alone, and OR the text score and the action score, for a text (the place weight, the
    text's share, the score's threshold and the swap's share chosen together on the even dishes: reversed ≥ 90
    and shuffled ≥ 80 with real ≤ 5 there, then the most swaps; the action score keeping a threshold of its
    own) and for an action sequence (at that weight, the score's threshold and the swap's share: the score's
    own objective); reported per parity; ``library``: the shipped constants."""
    import numpy as np

    from dishgraph.knowledge import sentence_order as sp
    from dishgraph.knowledge import step_swaps as ss

    sel = [r for r in rows if r[4] == "scored" and (r[2], r[3]) in SWAP]

    def gains(table, weight):
        out = [ss.best_swap(table[(r[2], r[3])], weight)[0] for r in sel]
        return np.array([-np.inf if g is None else g for g in out])

    text = np.array(
        [
            sp.text_score(TEXT[(r[2], r[3])])
            if (r[2], r[3]) in TEXT and TEXT[(r[2], r[3])]["sentences"] >= 2
            else -np.inf
            for r in sel
        ]
    )
    conf = np.array([scored_confidence(r[5], p) for r in sel])
    par = np.array([r[1] for r in sel])
    var = np.array([r[3] for r in sel])
    real_even = (par == 0) & (var == "real")

    def cut(values, share):
        return np.inf if share == 0 else float(np.quantile(values[real_even], 1 - share))

    def rates_of(flag, parity):
        return variant_rates(flag, par, var, parity)

    def per_parity(flag):
        return {"all": rates_of(flag, None), "even": rates_of(flag, 0), "odd": rates_of(flag, 1)}

    texts, by_weight = [], {}
    for w in GRID_PLACE_WEIGHT:
        gain = by_weight[w] = gains(SWAP, w)
        for q in GRID_TEXT_SHARE:
            for c in GRID_OR_CONF:
                for g in GRID_SWAP_SHARE:
                    rt = rates_of((text > cut(text, q)) | (conf >= c) | (gain > cut(gain, g)), 0)
                    if (
                        rt["real"]["flagged"] <= 5.0
                        and rt["reversed"]["flagged"] >= 90
                        and rt["shuffled"]["flagged"] >= 80
                    ):
                        texts.append((rt["swapped"]["flagged"], rt["shuffled"]["flagged"], -g, -w, q, c, g, w))
    # the action score keeps a threshold of its own (1.01, never, is left to the unconstrained choice beside it)
    _, _, _, _, q, c, g, w = max(t for t in texts if t[5] <= 1.0)
    _, _, _, _, q3, c3, g3, w3 = max(texts)
    gain, gain3 = by_weight[w], by_weight[w3]
    gain_seq = gains(SWAP_SEQ, w)
    actions = []
    for c2 in GRID_RECIPE_CONF + (1.01,):
        for g2 in GRID_SWAP_SHARE:
            rt = rates_of((conf >= c2) | (gain_seq > cut(gain_seq, g2)), 0)
            actions.append((objective(rt, strict=True), -g2, c2, g2))
    _, _, c2, g2 = max(actions)
    lib_gain, lib_seq = gains(SWAP, ss.PLACE_WEIGHT), gains(SWAP_SEQ, ss.PLACE_WEIGHT)
    lib_text = (text > sp.TEXT_CUT) | (conf >= sp.MIN_RECIPE_CONFIDENCE_WITH_TEXT) | (lib_gain > ss.SWAP_GAIN_CUT)
    lib_actions = (conf >= precedence.MIN_RECIPE_CONFIDENCE) | (lib_seq > ss.SWAP_GAIN_CUT_ACTIONS)
    alone = {
        str(w2): {str(s): per_parity(by_weight[w2] > cut(by_weight[w2], s))["odd"] for s in (0.01, 0.02, 0.05)}
        for w2 in (0.0, w)
    }
    per_weight = {}  # each weight's own best choice on the even dishes (the action score keeping a threshold)
    for w2 in GRID_PLACE_WEIGHT:
        _, _, _, _, q2, c4, g4, _ = max(t for t in texts if t[5] <= 1.0 and t[7] == w2)
        flag = (text > cut(text, q2)) | (conf >= c4) | (by_weight[w2] > cut(by_weight[w2], g4))
        per_weight[str(w2)] = {
            "text_share": q2,
            "min_confidence": c4,
            "swap_share": g4,
            "even": {k: v["flagged"] for k, v in rates_of(flag, 0).items()},
            "odd": {k: v["flagged"] for k, v in rates_of(flag, 1).items()},
        }
    return {
        "text": {
            "chosen_on_even": {
                "place_weight": w,
                "text_share": q,
                "text_cut": round(cut(text, q), 4),
                "min_confidence": c,
                "swap_share": g,
                "swap_cut": round(cut(gain, g), 4),
            },
            **per_parity((text > cut(text, q)) | (conf >= c) | (gain > cut(gain, g))),
        },
        "text_unconstrained": {
            "chosen_on_even": {"place_weight": w3, "text_share": q3, "min_confidence": c3, "swap_share": g3},
            **per_parity((text > cut(text, q3)) | (conf >= c3) | (gain3 > cut(gain3, g3))),
        },
        "actions": {
            "chosen_on_even": {
                "place_weight": w,
                "min_confidence": c2,
                "swap_share": g2,
                "swap_cut": round(cut(gain_seq, g2), 4),
            },
            **per_parity((conf >= c2) | (gain_seq > cut(gain_seq, g2))),
        },
        "by_place_weight": per_weight,
        "swap_alone_odd_at_real_share": alone,
        "library": {
            "place_weight": ss.PLACE_WEIGHT,
            "text": {"swap_cut": ss.SWAP_GAIN_CUT, **per_parity(lib_text)},
            "actions": {"swap_cut": ss.SWAP_GAIN_CUT_ACTIONS, **per_parity(lib_actions)},
        },
    }


# ------------------------------------------------------------------------------------------ combined
# Measured, not shipped (docs/order-knowledge.md). Where a recipe's sentences are known, more can be read than u
# and w: how the pairs across sentences read apart from those within one (a shuffle moves sentences, not what
# is inside them), the weighted share of the cross-sentence evidence pointing the other way, the action and the
# sentence whose cross-sentence pairs read lowest, the strongest cross-sentence violation, and local coherence
# (which action usually opens the next sentence after the one that closed the last). A logistic model of the
# even-numbered dishes' real recipes against their reversed, shuffled and swapped variants (held out, knowledge
# without each recipe's fold) weighs them (``fit_combined``); its score is compared with how the same real
# recipes read (``combined_calibration``).

SENTENCE_START, SENTENCE_END = "<s>", "</s>"
PRIOR_TRANSITION = 5.0  # pseudo-transitions of each coarser level


def transitions(keys: Sequence[str], units: Sequence[object]) -> list[tuple[str, str]]:
    """The recipe's sentence transitions: (the last action of a sentence, the first of the next), and its start
    and end. ``units``: each action's sentence, in the order read."""
    if not keys:
        return []
    out = [(SENTENCE_START, keys[0])]
    for i in range(1, len(keys)):
        if units[i] != units[i - 1]:
            out.append((keys[i - 1], keys[i]))
    out.append((keys[-1], SENTENCE_END))
    return out


def transition_counts(ts: Iterable[tuple[str, str]]) -> Counter:
    """Counts of transitions between keys (``k``) and between their verbs (``v``), with their margins (``kP``: a
    sentence closed by the key, ``kN``: opened by it; ``vP``, ``vN`` for verbs; ``T``: transitions)."""
    c: Counter = Counter()
    for a, b in ts:
        va, vb = precedence.verb_of(a), precedence.verb_of(b)
        c[("k", a, b)] += 1
        c[("v", va, vb)] += 1
        c[("kP", a)] += 1
        c[("kN", b)] += 1
        c[("vP", va)] += 1
        c[("vN", vb)] += 1
        c[("T",)] += 1
    return c


def coherence(ts: Sequence[tuple[str, str]], corpus: Counter, dish: Counter, prior: float = PRIOR_TRANSITION) -> float:
    """Local coherence: the mean pointwise mutual information of the recipe's transitions, P(b opens the next
    sentence | a closed the last) against P(b opens one); the dish's key transitions back off to the corpus's,
    those to the verbs' (Dirichlet priors of ``prior`` pseudo-transitions, add-one margins)."""
    if not ts:
        return 0.0
    total = 0.0
    for a, b in ts:
        va, vb = precedence.verb_of(a), precedence.verb_of(b)
        p_vb = (corpus[("vN", vb)] + 1) / (corpus[("T",)] + 500)
        p_v = (corpus[("v", va, vb)] + prior * p_vb) / (corpus[("vP", va)] + prior)
        p_b_of_vb = (corpus[("kN", b)] + 1) / (corpus[("vN", vb)] + 50)
        p_k = (corpus[("k", a, b)] + prior * p_v * p_b_of_vb) / (corpus[("kP", a)] + prior)
        p_k = (dish[("k", a, b)] + prior * p_k) / (dish[("kP", a)] + prior)
        p_b = (corpus[("kN", b)] + 1) / (corpus[("T",)] + 5000)
        total += math.log(p_k / p_b)
    return total / len(ts)


def _z(ls: Sequence[float]) -> float:
    q = math.sqrt(sum(v * v for v in ls))
    return sum(ls) / q if q else 0.0


def recipe_readings(
    found: Sequence[tuple[str, str, precedence.PairOrder]],
    keys: Sequence[str],
    units: Sequence[object],
    z: float,
    min_llr: float,
    coherence_: float,
) -> dict[str, float]:
    """The combined reading's inputs (``COMBINED["readings"]``): u and w; the score of the pairs across
    sentences and of those within one; the weighted share of the cross-sentence evidence in the less likely
    order; the lowest sum of cross-sentence llr of one action and of one sentence; the lowest cross-sentence
    llr; the coherence. A pair is within a sentence when both actions occur in that sentence only."""
    where: dict[str, set] = {}
    for k, u in zip(keys, units):
        where.setdefault(k, set()).add(u)
    cross, within = [], []
    per_unit: dict = {}
    per_key: dict[str, float] = {}
    for x, y, po in found:
        llr = po.llr
        if len(where[x]) == 1 and where[x] == where[y]:
            within.append(llr)
            continue
        cross.append(llr)
        for u in where[x] | where[y]:
            per_unit[u] = per_unit.get(u, 0.0) + llr
        per_key[x] = per_key.get(x, 0.0) + llr
        per_key[y] = per_key.get(y, 0.0) + llr
    u_, w_ = precedence.readings(z, min_llr, len(found))
    tot = sum(abs(v) for v in cross)
    return {
        "u": u_,
        "w": w_,
        "z_cross": _z(cross),
        "reversed_share": sum(-v for v in cross if v < 0) / tot if tot else 0.0,
        "worst_action": min(per_key.values(), default=0.0),
        "z_within": _z(within),
        "worst_sentence": min(per_unit.values(), default=0.0),
        "min_cross": min(cross, default=0.0),
        "coherence": coherence_,
        # sizes, which carry no order (``SIZE_READINGS``, for the ablation that shows it)
        "pairs": float(len(found)),
        "cross_pairs": float(len(cross)),
        "actions": float(len(keys)),
        "sentences": float(len(set(units))),
    }


def combined_score(rd: Mapping[str, float], c: Mapping) -> float:
    """How ordered the recipe reads: minus the logistic model's log-odds that it is a broken variant."""
    t = c["intercept"]
    for name, mean, scale, coef in zip(c["readings"], c["mean"], c["scale"], c["coef"]):
        t += coef * (rd[name] - mean) / scale
    return -t


def combined_confidence(rd: Mapping[str, float], combined: Mapping, calibration) -> float:
    """1 - the share of real recipes (the even dishes, held out) whose combined score reads as low."""
    return 1 - precedence._cdf(calibration, combined_score(rd, combined))


COMBINED_READINGS = (
    "u", "w", "z_cross", "reversed_share", "worst_action", "z_within", "worst_sentence", "min_cross", "coherence",
)  # fmt: skip


READINGS: dict[tuple[str, str], dict[str, float]] = {}  # (recipe, variant): precedence.recipe_readings + sizes
SIZE_READINGS = ("pairs", "cross_pairs", "actions", "sentences")  # in recipe_readings too


def sentences_of(steps, idx, variant):
    """Each checked action's sentence. Reversed and shuffled variants move whole sentences; a swap moves two
    actions into each other's places, so the sentences stay where they were (a swapped action takes the
    sentence of its new place, as it would in the edited text)."""
    if variant.startswith("swapped"):
        return [steps[i][1] for i in range(len(steps))]
    return [steps[i][1] for i in idx]


def readings_matrix(rows, names, parity=None):
    """(the scored rows with readings, their readings ``names`` as a matrix, 1 for a broken variant)."""
    import numpy as np

    sel = [r for r in rows if r[4] == "scored" and (r[2], r[3]) in READINGS and (parity is None or r[1] == parity)]
    X = np.array([[READINGS[(r[2], r[3])][n] for n in names] for r in sel])
    return sel, X, np.array([r[3] != "real" for r in sel], dtype=int)


def fit_combined(rows, names=COMBINED_READINGS, weights: Mapping[str, float] | None = None) -> dict:
    """The logistic model of real recipes against their variants, on the even-numbered dishes; ``weights``
    per variant (default: a real recipe 4, each variant 1)."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    wmap = weights or {"real": 4.0}
    sel, X, y = readings_matrix(rows, names, parity=0)
    mean, scale = X.mean(axis=0), X.std(axis=0)
    scale[scale == 0] = 1.0
    w = np.array([wmap.get(r[3], 1.0) for r in sel])
    lr = LogisticRegression(max_iter=5000).fit((X - mean) / scale, y, sample_weight=w)
    return {
        "readings": list(names),
        "weights": dict(wmap),
        "mean": [round(float(v), 4) for v in mean],
        "scale": [round(float(v), 4) for v in scale],
        "coef": [round(float(v), 4) for v in lr.coef_[0]],
        "intercept": round(float(lr.intercept_[0]), 4),
    }


def combined_report(rows, weights: Mapping[str, float] | None = None) -> dict:
    """Fit on the even dishes, calibrate on their real recipes, choose the threshold there (real flagged ≤ 5%),
    report per parity."""
    comb = fit_combined(rows, weights=weights)
    cal = combined_calibration(rows, comb)
    grid = [(objective(combined_rates(rows, 0, comb, cal, c), strict=True), c) for c in GRID_COMBINED_CONF]
    _, c = max(grid)
    return {
        "chosen_on_even": {"combined": comb, "calibration": cal, "min_confidence": c},
        "all": combined_rates(rows, None, comb, cal, c),
        "even": combined_rates(rows, 0, comb, cal, c),
        "odd": combined_rates(rows, 1, comb, cal, c),
        "grid_even": {
            str(c2): {k: v["flagged"] for k, v in combined_rates(rows, 0, comb, cal, c2).items()}
            for c2 in GRID_COMBINED_CONF
        },
    }


def combined_calibration(rows, combined) -> list[tuple[float, float]]:
    """How low the even dishes' real recipes read on the combined score: [(value, share at most it)]."""
    vals = sorted(
        combined_score(READINGS[(r[2], r[3])], combined)
        for r in rows
        if r[4] == "scored" and r[3] == "real" and r[1] == 0 and (r[2], r[3]) in READINGS
    )
    return [(round(vals[min(len(vals) - 1, int(s * len(vals)))], 4), s) for s in SHARES]


def combined_rates(rows, parity, combined, cal, conf):
    """Shares flagged per variant by the combined reading (a recipe with no informative pair: not flagged)."""
    out = {}
    for v in VARIANTS:
        sel = [r for r in rows if r[4] == "scored" and r[3] == v and (parity is None or r[1] == parity)]
        if sel:
            hits = sum(
                (r[2], v) in READINGS and combined_confidence(READINGS[(r[2], v)], combined, cal) >= conf for r in sel
            )
            out[v] = {"n": len(sel), "flagged": round(100 * hits / len(sel), 1)}
    return out


def learned_report(rows, names, kind, folds=5):
    """A classifier of real recipes against their broken variants on the even-numbered dishes' readings (every
    variant, a real recipe weighing 4), folds by dish; flag from the 95th percentile of its out-of-fold score on
    the even dishes' real recipes, reported on the odd dishes (the folds' models averaged)."""
    import numpy as np
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    sel, X, y = readings_matrix(rows, names)
    par = np.array([r[1] for r in sel])
    var = np.array([r[3] for r in sel])
    evd = sorted({r[0] for r in sel if r[1] == 0})
    grp = np.array([evd.index(r[0]) % folds if r[1] == 0 else -1 for r in sel])
    wts = np.where(y == 1, 1.0, 4.0)

    def model():
        if kind == "boosted":
            return HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_leaf_nodes=15, random_state=0)
        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))

    def fit(m, tr):
        step = "" if kind == "boosted" else "logisticregression__"  # the pipeline's step takes the weights
        m.fit(X[tr], y[tr], **{step + "sample_weight": wts[tr]})
        return m

    oof, odd = np.zeros(len(y)), np.zeros(len(y))
    for k in range(folds):
        m = fit(model(), (par == 0) & (grp != k))
        te = (par == 0) & (grp == k)
        oof[te] = m.predict_proba(X[te])[:, 1]
        odd[par == 1] += m.predict_proba(X[par == 1])[:, 1] / folds
    cut = float(np.quantile(oof[(par == 0) & (var == "real")], 0.95))
    out: dict = {"readings": list(names), "model": kind}
    for name, score, p in (("even", oof, 0), ("odd", odd, 1)):
        out[name] = {
            v: {
                "n": int(((par == p) & (var == v)).sum()),
                "flagged": round(100 * float((score[(par == p) & (var == v)] > cut).mean()), 1),
            }
            for v in VARIANTS
            if ((par == p) & (var == v)).any()
        }
    if kind == "logistic":
        m = fit(model(), par == 0)
        out["coefficients_standardized"] = dict(zip(names, [round(float(c), 3) for c in m[-1].coef_[0]]))
    return out


def flag_after(x, conf, scale):
    best, disorder, any_v = x
    c = max(best, min(1.0, disorder / scale) if any_v else 0.0)
    return c >= conf


def rates(rows, method, parity=None, conf=None, scale=None):
    out = {}
    for v in VARIANTS:
        sel = [r for r in rows if r[4] == method and r[3] == v and (parity is None or r[1] == parity)]
        if not sel:
            continue
        if method == "after":
            hits = sum(flag_after(r[5], conf, scale) for r in sel)
        else:
            hits = sum(r[5] for r in sel)
        out[v] = {"n": len(sel), "flagged": round(100 * hits / len(sel), 1)}
    return out


SHARES = (0.001, 0.0025, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.075, 0.1, 0.2, 0.3, 0.5, 1.0)
GRID_RECIPE_CONF = (0.95, 0.96, 0.965, 0.97, 0.9725, 0.975, 0.9775, 0.98, 0.985, 0.99)
GRID_COMBINED_CONF = (0.9, 0.925, 0.94, 0.945, 0.95, 0.955, 0.96, 0.97, 0.98)
GRID_SLOPE_Z = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)
GRID_SLOPE_MIN = (0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0)


def calibration(rows, slope_z, slope_min):
    """How low the even dishes' real recipes read (held out): {reading: [(value, share at most it)]}."""
    sel = [r[5] for r in rows if r[4] == "scored" and r[3] == "real" and r[1] == 0 and r[5][2]]
    uw = [precedence.readings(z, m, n, slope_z, slope_min) for z, m, n in sel]
    out = {}
    for i, name in enumerate(("u", "w")):
        vals = sorted(x[i] for x in uw)
        out[name] = [(round(vals[min(len(vals) - 1, int(s * len(vals)))], 4), s) for s in SHARES]
    return out


def scored_confidence(reading, p) -> float:
    """The whole-recipe score's confidence of a reading (z, min llr, pairs) at p = (slope_z, slope_min,
    calibration, ...); 0 for a recipe with no informative pair."""
    z, m, n = reading
    return precedence.recipe_confidence(*precedence.readings(z, m, n, p[0], p[1]), p[2]) if n else 0.0


def scored_flag(row, p) -> bool:
    """Whether the whole-recipe score flags a row at p = (slope_z, slope_min, calibration, min_confidence)."""
    return row[5][2] > 0 and scored_confidence(row[5], p) >= p[3]


def scored_rates(rows, parity, p):
    """Shares flagged per variant at p = (slope_z, slope_min, calibration, min_confidence)."""
    out = {}
    for v in VARIANTS:
        sel = [r for r in rows if r[4] == "scored" and r[3] == v and (parity is None or r[1] == parity)]
        if sel:
            out[v] = {"n": len(sel), "flagged": round(100 * sum(scored_flag(x, p) for x in sel) / len(sel), 1)}
    return out


def objective(rt, strict=False):
    """Chosen on the even dishes: the real recipes flagged at most 5% (``strict``: never more; else a penalty
    of 10 per point over, as the tested checker's choice was made), then the most broken ones detected."""
    if not rt or (strict and rt["real"]["flagged"] > 5.0):
        return -1e9
    pen = max(0.0, rt["real"]["flagged"] - 5.0) * 10
    return rt["reversed"]["flagged"] + rt["shuffled"]["flagged"] + rt["swapped"]["flagged"] - pen


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--methods", default="before,after")
    ap.add_argument("--key", default="typed", choices=("typed", "typed_classes", "action"))
    ap.add_argument("--no-classes", action="store_true", help="no class-key levels")
    ap.add_argument("--classic", default=None, help="classic corpus JSONL: outside recipes")
    ap.add_argument("--outside-min-recipes", type=int, default=1, help="outside: dishes with this many recipes")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "order_check.json"))
    args = ap.parse_args()
    global KEY, CLASSES
    KEY, CLASSES = args.key, not args.no_classes
    t0 = time.perf_counter()
    store, dishes, rows, secs, extra = run(args)
    res: dict = {
        "db": args.db,
        "folds": args.folds,
        "seed": args.seed,
        "dishes": len(dishes),
        "recipes": len({r[2] for r in rows}),
        "seconds": {k: round(v, 1) for k, v in secs.items()},
    }
    if "before" in args.methods:
        res["before"] = {
            "all": rates(rows, "before"),
            "even": rates(rows, "before", 0),
            "odd": rates(rows, "before", 1),
        }
    if "after" in args.methods:
        grid = []
        for c in GRID_CONF:
            for s in GRID_SCALE:
                grid.append((objective(rates(rows, "after", 0, c, s)), c, s))
        _, c, s = max(grid)
        res["after"] = {
            "chosen_on_even": {"min_confidence": c, "share_scale": s},
            "all": rates(rows, "after", None, c, s),
            "even": rates(rows, "after", 0, c, s),
            "odd": rates(rows, "after", 1, c, s),
            "at_defaults": {
                "min_confidence": precedence.MIN_CONFIDENCE,
                "share_scale": precedence.SHARE_SCALE,
                "all": rates(rows, "after", None, precedence.MIN_CONFIDENCE, precedence.SHARE_SCALE),
            },
            "grid_even": [
                {
                    "min_confidence": c2,
                    "share_scale": s2,
                    **{k: v["flagged"] for k, v in rates(rows, "after", 0, c2, s2).items()},
                }
                for _, c2, s2 in sorted(grid, reverse=True)[:10]
            ],
        }
    if "scored" in args.methods:
        sub = [r for r in rows if r[4] == "scored"]
        grid = []
        for a in GRID_SLOPE_Z:
            for b in GRID_SLOPE_MIN:
                cal = calibration(sub, a, b)
                for c in GRID_RECIPE_CONF:
                    grid.append((objective(scored_rates(sub, 0, (a, b, cal, c)), strict=True), a, b, c))
        grid.sort(key=lambda g: -g[0])
        _, a, b, c = grid[0]
        p = (a, b, calibration(sub, a, b), c)
        lib = (precedence.SLOPE_Z, precedence.SLOPE_MIN, precedence.CALIBRATION, precedence.MIN_RECIPE_CONFIDENCE)
        res["scored"] = {
            "chosen_on_even": {"slope_z": a, "slope_min": b, "min_confidence": c, "calibration": p[2]},
            "all": scored_rates(sub, None, p),
            "even": scored_rates(sub, 0, p),
            "odd": scored_rates(sub, 1, p),
            "swaps_by_evidence_odd": swaps_by_evidence(sub, 1, p),
            "library": {
                "slope_z": lib[0],
                "slope_min": lib[1],
                "min_confidence": lib[3],
                "all": scored_rates(sub, None, lib),
            },
            "grid_even_top": [
                {
                    "slope_z": a2,
                    "slope_min": b2,
                    "min_confidence": c2,
                    **{
                        k: v["flagged"] for k, v in scored_rates(sub, 0, (a2, b2, calibration(sub, a2, b2), c2)).items()
                    },
                }
                for _, a2, b2, c2 in grid[:8]
            ],
        }
    if "text" in args.methods:
        ch = res["scored"]["chosen_on_even"]
        res["text"] = text_report(rows, (ch["slope_z"], ch["slope_min"], ch["calibration"], ch["min_confidence"]))
    if "swap" in args.methods:
        ch = res["scored"]["chosen_on_even"]
        res["swap"] = swap_report(rows, (ch["slope_z"], ch["slope_min"], ch["calibration"], ch["min_confidence"]))
    if "combined" in args.methods:
        names = list(COMBINED_READINGS)
        res["combined"] = combined_report(rows)
        res["combined"]["swaps_weighted"] = combined_report(
            rows, {"real": 6.0, "reversed": 0.5, "swapped": 3.0, "swapped_dep": 3.0}
        )
        res["combined"]["ablations"] = [
            learned_report(rows, names[:2], "logistic"),
            learned_report(rows, names, "logistic"),
            learned_report(rows, names, "boosted"),
            learned_report(rows, names + list(SIZE_READINGS), "boosted"),
        ]
    Path(args.out).write_text(json.dumps(res, ensure_ascii=False, indent=1) + "\n")  # before the parser runs
    if args.classic:
        sp = None
        if "scored" in res:
            ch = res["scored"]["chosen_on_even"]
            sp = (ch["slope_z"], ch["slope_min"], ch["calibration"], ch["min_confidence"])
        res["outside"] = outside(args, store, dishes, extra, sp)
    res["seconds"]["total"] = round(time.perf_counter() - t0, 1)
    Path(args.out).write_text(json.dumps(res, ensure_ascii=False, indent=1) + "\n")
    print(json.dumps({k: v for k, v in res.items() if k != "after" or True}, ensure_ascii=False, indent=1)[:4000])


def outside(args, store, dishes, extra, scored_p=None):
    """Classic-corpus recipes (never ingested in the demo graph) of the graph's dishes with parsed recipes,
    parsed with today's parser, checked against the whole graph's knowledge: as written, reversed, shuffled,
    swapped; ``scored_with_text``: the score with the sentence order (the sentence-order model of the whole
    graph, `sentence_order.corpus_model`, with the shipped constants); ``shipped_text_check``: as `order check`
    reads a text (those and the swap reading of the whole graph, `order.swap_model`)."""
    from dishgraph import config
    from dishgraph.ingest.glossary import Glossary
    from dishgraph.ingest.parser import RecipeParser
    from dishgraph.knowledge.order import dish_constraints

    global_counts, dish_counts, comps, hidden, sc, n_recipes = extra
    want = {d for d, n in n_recipes.items() if n >= args.outside_min_recipes}
    recs = []
    for line in Path(args.classic).read_text(encoding="utf-8").splitlines():
        j = json.loads(line)
        name = re.sub(r"[（(].*?[)）]", "", j["dish"]).strip()
        if name in want:
            recs.append((name, j["text"]))
    fam = precedence.families(comps, sorted({d for d, _ in recs}))
    parser = RecipeParser(Glossary.load(config.data_dir() / "counterfactual" / "glossary.json"))
    rng, rng2 = random.Random(args.seed), random.Random(args.seed + 1)
    glob = precedence.Level("global", global_counts)
    looks, models = {}, {}
    out = {
        "recipes": len(recs),
        "dishes": len({d for d, _ in recs}),
        "of_dishes_with_constraints": sum(d in set(dishes) for d, _ in recs),
        "min_recipes_in_graph": args.outside_min_recipes,
    }
    rows = []
    P = precedence.PairCounts
    from dishgraph.knowledge import sentence_order as so

    text_model = so.corpus_model(store) if scored_p is not None else None  # as `order check` reads it
    from dishgraph.knowledge import order as order_mod
    from dishgraph.knowledge import step_swaps as ss

    corpus_rows = store.query("order_corpus_steps", dishes=[]) if scored_p is not None else []
    swap_models: dict = {}
    swap_corpus = None
    if corpus_rows:
        by_recipe: dict[str, list[str]] = {}
        for r in corpus_rows:
            by_recipe.setdefault(r["recipe"], []).append(r.get("typed") or r["action"])
        seqs_all = list(by_recipe.values())
        swap_corpus = (ss.ActionTrigrams(seqs_all), ss.KeyPlaces(seqs_all))  # counted once: the same for every dish
    for dish, text in recs:
        acts = [a for a in parser.parse(text) if a.proto is not None]
        steps = [
            (a.proto.key, a.step, a.typed_key or a.proto.key, a.typed_class_key or a.typed_key or a.proto.key, a.start)
            for a in acts
        ]
        if not steps:
            continue
        cons = [
            Constraint(c.cause, c.effect, c.ate, source=c.source)
            for c in dish_constraints(store, dish, "estimated")
            if c.cause not in hidden and c.effect not in hidden
        ]
        if dish not in looks:
            fc: Counter = Counter()
            for o in fam.get(dish, []):
                fc.update(dish_counts.get(o, Counter()))
            looks[dish] = precedence.backoff(
                [precedence.Level("dish", dish_counts[dish]), precedence.Level("family", fc), glob]
            )
            if sc is not None:
                (tg, td), (vg, vd), (cg, cd) = sc["t"], sc["v"], sc["c"]
                tf: Counter = Counter()
                for o in fam.get(dish, []):
                    tf.update(td.get(o, Counter()))
                models[dish] = precedence.OrderModel(
                    [P("dish", td[dish]), P("family", tf), P("global", tg)],
                    [P("dish verbs", vd[dish]), P("verbs", vg)],
                    classes=[P("dish classes", cd[dish]), P("global classes", cg)],
                )
        for v, idx in variants(steps, rng, rng2, looks[dish]).items():
            if idx is None:
                continue
            crg_seq = [steps[i][0] for i in idx]
            chk = precedence.check_recipe(shown(crg_seq, hidden), looks[dish])
            scored = None
            if dish in models:
                found, z, m = precedence.recipe_stats(
                    [steps[i][2] for i in idx], models[dish], [steps[i][3] for i in idx]
                )
                conf = scored_confidence((z, m, len(found)), scored_p)
                scored = bool(found) and conf >= scored_p[3]
            with_text = None
            if scored is not None and text_model is not None:
                units = so.unit_texts(text, [(st[1], st[4]) for st in steps])
                order_ = list(dict.fromkeys(sentences_of(steps, idx, v)))
                ts = so.text_score(so.order_readings(text_model.predict([units[u] for u in order_])))
                with_text = ts > so.TEXT_CUT or conf >= so.MIN_RECIPE_CONFIDENCE_WITH_TEXT
            shipped = None
            if scored is not None and text_model is not None:  # as `order check` reads a text, with the swap
                if dish not in swap_models:
                    swap_models[dish] = order_mod.swap_model(corpus_rows, dish, swap_corpus)
                keys = [steps[i][2] for i in idx]
                sw = ss.read_swaps(swap_models[dish], keys, crg_seq, sentences_of(steps, idx, v), ss.SWAP_GAIN_CUT).gain
                shipped = (
                    ts > so.TEXT_CUT
                    or conf >= so.MIN_RECIPE_CONFIDENCE_WITH_TEXT
                    or (sw is not None and sw > ss.SWAP_GAIN_CUT)
                )
            rows.append((v, bool(check_sequence(cons, crg_seq)), chk.flagged, scored, with_text, shipped))
    for v in VARIANTS:
        sel = [r for r in rows if r[0] == v]
        if sel:
            out[v] = {
                "n": len(sel),
                "crg_first_occurrence": round(100 * sum(r[1] for r in sel) / len(sel), 1),
                "tested_at_defaults": round(100 * sum(r[2] for r in sel) / len(sel), 1),
            }
            if sel[0][3] is not None:
                out[v]["scored"] = round(100 * sum(r[3] for r in sel) / len(sel), 1)
            if sel[0][4] is not None:  # the shipped check of a text: the scored one with the sentence order
                out[v]["scored_with_text"] = round(100 * sum(r[4] for r in sel) / len(sel), 1)
            if sel[0][5] is not None:  # the shipped check of a text: the text, the score and the swap
                out[v]["shipped_text_check"] = round(100 * sum(r[5] for r in sel) / len(sel), 1)
    return out


if __name__ == "__main__":
    main()
