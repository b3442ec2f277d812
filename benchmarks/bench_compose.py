"""Composed target knowledge on the real data: leave-one-dish-out, pivots against the release, the fair
editor's Table 3 rows (all / even / odd pairs), ablations, and the time to compose + edit + score.

Needs two embedded databases with parsed recipes, USES and estimated order constraints (dishes with 10+
recipes), e.g. built by `make demo` (release + XiaChuFang sample) and by
`dishgraph ingest counterfactual --db REL && dishgraph order estimate ... --db REL` (release only), and
optionally a third, FULL plus the classic corpus (`dishgraph ingest corpus .../classic/recipes.jsonl
--source classic/recipes.jsonl --db CLASSIC` on a copy of FULL):

    OMP_NUM_THREADS=1 python benchmarks/bench_compose.py --db FULL --release-db REL [--classic-db CLASSIC]
        [--ablations]
    OMP_NUM_THREADS=1 python benchmarks/bench_compose.py --db FULL --limits   # #28's corpus-only fits and
        # the selection limit (ORACLE rows), merged into the figures already in --json-out
    OMP_NUM_THREADS=1 python benchmarks/bench_compose.py --corpus-curve 0,0.25,0.5,1 [--curve-seeds 1,2]
        # the fair editor against corpus size: graphs of the release + nested fractions of the sample, built
        # as `make demo` builds its graph, merged into --json-out's figures (no --db needed)

Every database also gets the leave-one-dish-out table of issue #28: hand-set weights with pooled sources,
hand-set weights with one source per corpus, and weights fitted on the corpus dishes (in-sample and 2-fold
cross-validated); with ``--classic-db`` the editor is also scored with the fitted per-corpus composition.

Thresholds and weights were tuned on the even-numbered dish pairs only (rows `even`); `odd` is held out.
No figure here reads a released pivot or constraint except the scorer (L2 is defined against them).
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace

os.environ.setdefault("OMP_NUM_THREADS", "1")

from _crg import release_with_parity, rows_by_parity  # noqa: E402
from _report import emit  # noqa: E402

from dishgraph.api import DishGraph  # noqa: E402
from dishgraph.graph.ladybug_store import LadybugStore  # noqa: E402
from dishgraph.knowledge import compose  # noqa: E402

ABLATE = ("base", "action", "flavour", "food", "cls", "own")


def score(store, instances, glossary, scorer, parity):
    """Edit every instance with the fair composed editor and score the full Table-3 row per split."""
    from dishgraph.models.graph_editor import GraphEditor

    t0 = time.perf_counter()
    editor = GraphEditor(glossary, store=store, knowledge="composed")
    texts = [editor.edit(i) for i in instances]
    out = {"edit_s": round(time.perf_counter() - t0, 1)}
    out |= rows_by_parity(scorer, texts, instances, parity, "graph editor (composed, fair)")
    return out, texts


def lodo_table(store) -> dict:
    """Leave-one-dish-out (weighted Jaccard, top-20 overlap) of hand-set and fitted weights, pooled and per
    corpus: nothing here reads a CRG pair."""
    out: dict = {}
    hand = compose.ComposeSettings()
    for label, settings in (("hand-set, pooled", hand), ("hand-set, per corpus", replace(hand, by_corpus=True))):
        cache: dict = {}
        out[label] = compose.leave_one_dish_out(store, settings=settings, cache=cache).means()
        if settings.by_corpus:
            fit = compose.fit_settings(store, settings, cache=cache)
            fitted = compose.ComposeSettings(
                **(fit["settings"] | {"corpora": tuple(tuple(x) for x in fit["settings"]["corpora"])})
            )
            out["fitted, per corpus"] = compose.leave_one_dish_out(store, settings=fitted, cache=cache).means() | {
                "cv_weighted_jaccard": fit["cv_weighted_jaccard"],
                "settings": fit["settings"],
            }
    return out


FOCUS_GRID = (0.0, 0.02, 0.05, 0.1, 0.2, 0.3)


def corpus_only_fit(store, g, instances, glossary, scorer, parity) -> dict:
    """#28 §2 without any pair: the composition fitted on pseudo-pairs of corpus dishes (the base weight too),
    and the focus mixture (``ComposeSettings.focus_kappa``) chosen by leave-one-dish-out; each then scored on
    the CRG pairs, which neither fit read."""
    hand = compose.ComposeSettings()
    out: dict = {}
    t0 = time.perf_counter()
    fit = compose.fit_settings(store, hand, pseudo_pairs=True)
    specs = compose.pseudo_pair_specs(store)
    out["pseudo_pairs"] = fit | {
        "pairs": len(specs),
        "target_dishes": len({s.target for s in specs}),
        "swapped": sum(1 for s in specs if s.new_cls),
        "fit_s": round(time.perf_counter() - t0, 1),
    }
    fitted = compose.ComposeSettings(**(fit["settings"] | {"corpora": ()}))
    g.compose(settings=fitted)
    out["pseudo_pairs"]["table3"], _ = score(store, instances, glossary, scorer, parity)
    lodo = [(s, t, f) for _, s, t, f in compose.lodo_examples(store, hand)]
    pseudo = [(s, t, f) for _, s, t, f in compose.pseudo_pair_examples(store, hand)]
    out["focus"] = {
        str(k): {
            "lodo_weighted_jaccard": compose._lodo_score(lodo, replace(hand, focus_kappa=k)),
            "lodo_top20": sum(
                compose.top_overlap(compose.mix(s, replace(hand, focus_kappa=k), f)[0], t) for s, t, f in lodo
            )
            / len(lodo),
            "pseudo_pairs_weighted_jaccard": compose._lodo_score(pseudo, replace(hand, focus_kappa=k)),
        }
        for k in FOCUS_GRID
    }
    best = max(FOCUS_GRID, key=lambda k: out["focus"][str(k)]["lodo_weighted_jaccard"])
    g.compose(settings=replace(hand, focus_kappa=best))
    out["focus"]["chosen_by_lodo"] = best
    out["focus"]["table3"], _ = score(store, instances, glossary, scorer, parity)
    out["ranker"] = ranker_rows(g, instances, glossary, store, scorer, parity)
    out["rule+ranker"] = rule_and_ranker_rows(g, instances, glossary, store, scorer, parity)
    g.compose()  # leave the database with the default composition
    return out


RANKER_GRID = (0.05, 0.1, 0.15, 0.2, 0.3)
LOGISTIC_ROW = 0.1  # the logistic ranker at the threshold stop 32 chose on the even pairs, for comparison


def ranker_rows(g, instances, glossary, store, scorer, parity) -> dict:
    """Insertions chosen by the ranker fitted on pseudo-pairs (``compose_pairs(inserts="ranker")``). Its model
    is chosen on the pseudo-pairs alone (held-out average precision, folds by target dish); then each
    probability threshold of the grid is scored, the threshold chosen on the even pairs, odd held out. The
    logistic model at one threshold is scored beside it."""
    from dishgraph.knowledge import insert_ranker

    t0 = time.perf_counter()
    xs, ys, groups, n = compose.ranker_examples(store)
    choice: dict = {m: insert_ranker.cross_validate(xs, ys, groups, m) for m in insert_ranker.MODELS.names()}
    model = max(insert_ranker.MODELS.names(), key=lambda m: choice[m] or 0.0)
    choice |= {"measure": "held-out average precision, 5 folds by target dish", "chosen": model}
    choice |= {"pseudo_pairs": n, "candidates": len(ys), "insertions": sum(ys)}
    out: dict = {"model_choice": choice | {"s": round(time.perf_counter() - t0, 1)}}
    print("ranker model choice", choice, flush=True)

    scoring = (instances, glossary, scorer, parity)
    out |= ranker_grid(g, store, scoring, compose.RANKER, model)
    if model != insert_ranker.LOGISTIC:
        row = ranked_row(g, store, scoring, compose.RANKER, insert_ranker.LOGISTIC, LOGISTIC_ROW)
        out[f"logistic {LOGISTIC_ROW}"] = row
    return out


def ranker_grid(g, store, scoring, inserts: str, model: str) -> dict:
    """``ranked_row`` for each threshold of the grid, the fitted ranker once, and the threshold the even pairs
    choose."""
    out: dict = {str(p): ranked_row(g, store, scoring, inserts, model, p) for p in RANKER_GRID}
    for p in RANKER_GRID:
        out["ranker"] = out[str(p)].pop("ranker")  # the same fit at every threshold
    out["chosen_on_even"] = max(RANKER_GRID, key=lambda p: out[str(p)]["even"]["hard_f1"])
    return out


def ranked_row(g, store, scoring, inserts: str, model: str, p: float) -> dict:
    """Compose every pair with ``inserts`` (a ranker mode) at probability threshold ``p`` and score the editor:
    the row, its pivot counts, its time and the fitted ranker."""
    instances, glossary, scorer, parity = scoring
    t0 = time.perf_counter()
    thresholds = replace(compose.ComposedThresholds(), ranker_min_prob=p)
    rep = g.compose(thresholds=thresholds, inserts=inserts, ranker_model=model)
    scored, _ = score(store, instances, glossary, scorer, parity)
    print(inserts, model, p, {s: scored[s]["hard_f1"] for s in ("all", "even", "odd")}, flush=True)
    out = {"pivots": rep.pivots, "compose_and_score_s": round(time.perf_counter() - t0, 1)}
    return out | scored | {"ranker": rep.ranker}


def rule_and_ranker_rows(g, instances, glossary, store, scorer, parity) -> dict:
    """The rule's insertions plus the default ranker's (``compose_pairs(inserts="rule+ranker")``), for each
    probability threshold of the grid; the threshold is chosen on the even pairs, odd held out."""
    from dishgraph.knowledge.insert_ranker import DEFAULT_MODEL

    return ranker_grid(g, store, (instances, glossary, scorer, parity), compose.RULE_AND_RANKER, DEFAULT_MODEL)


ORACLE_REACH = (0.005, 0.05, 0.1)


def selection_limit(store, g, instances, glossary, scorer, parity) -> dict:
    """What limits the fair editor: reach or selection. ORACLE rows (they read the released pivots, an upper
    bound, never a result): the composed pivots replaced by the released pivots the composed knowledge reaches
    (remove: the base does the action; insert: its composed share is at least ``reach``). And how well the
    composed share ranks the insert candidates (precision of each pair's top 9, the released insertions a pair
    has on average)."""
    from dishgraph.knowledge.pivots import COMPOSED, RELEASE

    out: dict = {"oracle": {}, "insert_ranking": {}}
    pairs = store.query("pivot_pairs")
    known = {}
    for p in pairs:
        fb = {r["action"]: r["freq"] for r in store.query("uses_dish_actions", dish=p["base"], min_freq=0.0, top=10**6)}
        ft = {r["action"]: r["freq"] for r in store.query("compose_dish_uses", dish=p["target"], top=10**6)}
        ref = [(e["action"], e["kind"]) for e in store.query("pivot_edges", pair=p["pair"]) if e["source"] == RELEASE]
        known[p["pair"]] = (fb, ft, ref)
    # ranking of insert candidates (composed share above 3x the base's, stored at all) by composed share
    prec, reach = [], 0
    for fb, ft, ref in known.values():
        inserts = {a for a, k in ref if k == "insert"}
        reach += sum(1 for a in inserts if a in ft)
        cands = sorted((a for a, f in ft.items() if f > 3 * fb.get(a, 0.0)), key=lambda a: (-ft[a], a))
        if inserts:
            prec.append(sum(1 for a in cands[:9] if a in inserts) / 9)
    total = sum(1 for *_, ref in known.values() for _, k in ref if k == "insert")
    out["insert_ranking"] = {
        "released_inserts": total,
        "in_composed_knowledge": reach,
        "precision_at_9_by_composed_share": sum(prec) / len(prec),
        "candidates_per_pair": sum(
            sum(1 for a, f in ft.items() if f > 3 * fb.get(a, 0.0)) for fb, ft, _ in known.values()
        )
        / len(known),
    }
    for min_ft in ORACLE_REACH:
        counts = {"remove": 0, "insert": 0}
        for key, (fb, ft, ref) in known.items():
            rows = []
            for a, k in ref:
                if (fb.get(a, 0.0) > 0) if k == "remove" else (ft.get(a, 0.0) >= min_ft):
                    counts[k] += 1
                    rows.append(
                        {
                            "pair": key,
                            "key": a,
                            "kind": k,
                            "source": COMPOSED,
                            "fb": fb.get(a, 0.0),
                            "ft": ft.get(a, 0.0),
                        }
                    )
            store.query("pivot_clear", pair=key, source=COMPOSED)
            store.write("pivot_write_composed", rows)
        row, _ = score(store, instances, glossary, scorer, parity)
        out["oracle"][str(min_ft)] = {"pivots": counts} | row
    g.compose()  # the oracle edges are gone again: the default composition and its pivots
    return out


def corpus_curve(args, scorer, glossary, instances, parity, load_before) -> None:
    """``--corpus-curve``: the fair editor on graphs of the release + nested fractions of the sample."""
    import json
    import tempfile
    from pathlib import Path

    from _corpus_curve import curve, summarize

    from dishgraph.eval.outputs import crg_dir

    def score_db(path: Path) -> dict:
        with LadybugStore(str(path)) as store:
            return score(store, instances, glossary, scorer, parity)[0]

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=args.curve_dir) as work:
        points = curve(args.fractions, args.seeds, Path(work), crg_dir().parent, glossary, score_db)
    kept = json.loads(Path(args.json_out).read_text(encoding="utf-8")) if Path(args.json_out).exists() else {}
    kept["corpus_curve"] = {
        "what": "release + a nested, seeded fraction of the XiaChuFang sample; default settings and thresholds",
        "points": points,
        "summary": summarize(points),
        "seconds": round(time.perf_counter() - t0, 1),
        "load": [load_before, os.getloadavg()],
    }
    emit(kept, args.json_out)


def main() -> None:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--db", help="release + XiaChuFang sample (parsed, order estimated)")
    ap.add_argument("--release-db", help="release only (parsed, order estimated)")
    ap.add_argument("--classic-db", help="release + XiaChuFang sample + classic corpus (parsed, order estimated)")
    ap.add_argument("--ablations", action="store_true", help="each source kind left out (full rows)")
    ap.add_argument(
        "--limits",
        action="store_true",
        help="only the corpus-only fits and the selection limit on --db, merged into --json-out's figures",
    )
    ap.add_argument(
        "--corpus-curve",
        metavar="FRACTIONS",
        help="comma-separated fractions of the XiaChuFang sample (0 = release only, 1 = all of it): build a graph "
        "for each and score the fair editor; merged into --json-out's figures",
    )
    ap.add_argument("--curve-seeds", default="1", help="comma-separated seeds of the sample draws (default 1)")
    ap.add_argument("--curve-dir", help="where the curve's graphs are built (default: a temporary directory)")
    ap.add_argument("--json-out", default="benchmarks/results/compose.json")
    args = ap.parse_args()
    if not args.db and not args.corpus_curve:
        ap.error("--db is required (or --corpus-curve alone)")
    if args.corpus_curve:
        try:
            args.fractions = [float(x) for x in args.corpus_curve.split(",")]
            args.seeds = [int(x) for x in args.curve_seeds.split(",")]
        except ValueError as e:
            ap.error(f"--corpus-curve takes fractions and --curve-seeds integers, comma-separated: {e}")
        if not all(0.0 <= f <= 1.0 for f in args.fractions):
            ap.error(f"--corpus-curve fractions must lie in 0 ... 1, got {args.corpus_curve}")

    from dishgraph.eval.crg import CrgScorer
    from dishgraph.eval.l2 import L2Reference
    from dishgraph.knowledge.pivots import micro_totals, parse_pair

    d, glossary, instances, parity = release_with_parity()
    pairs = list(parity)
    reference = L2Reference.from_release(d)
    result: dict = {
        "load_before": os.getloadavg(),
        "settings": compose.ComposeSettings().to_dict(),
        "thresholds": compose.ComposedThresholds().__dict__,
        "tuned_on": "even-numbered dish pairs (0, 2, ..., 48 of dish_pairs.txt); odd pairs held out",
    }

    def run_db(path: str, label: str, full: bool, fitted: bool = False) -> dict:
        out: dict = {}
        with LadybugStore(path) as store:
            g = DishGraph(store, glossary=glossary)
            t0 = time.perf_counter()
            rep = g.compose()
            out["compose_s"] = round(time.perf_counter() - t0, 1)
            out["pivots"], out["constraints"] = rep.pivots, rep.constraints
            out["corpus_recipes"] = compose.corpus_recipes(store)
            lodo = g.validate_composition()
            out["leave_one_dish_out"] = lodo.means() | {"dishes_list": [x.dish for x in lodo.dishes]}
            out["lodo_table"] = lodo_table(store)
            keys = [f"{b}->{t}" for b, t in pairs]
            cmp = [g.compare_pivots(*parse_pair(k), source="composed") for k in keys]
            out["pivots_vs_release"] = {
                "all": micro_totals(cmp, "composed"),
                "even": micro_totals([c for k, c in zip(keys, cmp) if parity[parse_pair(k)] == 0], "composed"),
                "odd": micro_totals([c for k, c in zip(keys, cmp) if parity[parse_pair(k)] == 1], "composed"),
            }
            t0 = time.perf_counter()
            out["table3"], _ = score(store, instances, glossary, scorer, parity)
            out["edit_and_score_s"] = round(time.perf_counter() - t0, 1)
            if full and args.ablations:
                out["ablations"] = {}
                for kind in ABLATE:
                    settings = replace(compose.ComposeSettings(), **{kind: 0.0})
                    g.compose(settings=settings)
                    out["ablations"][f"without {kind}"], _ = score(store, instances, glossary, scorer, parity)
                    print(label, kind, out["ablations"][f"without {kind}"], flush=True)
                g.compose()  # leave the database with the default composition
            if fitted:
                t0 = time.perf_counter()
                rep = g.compose(settings=replace(compose.ComposeSettings(), by_corpus=True), fit=True)
                out["fitted"] = {"compose_s": round(time.perf_counter() - t0, 1), "settings": rep.settings}
                out["fitted"]["table3"], _ = score(store, instances, glossary, scorer, parity)
                g.compose()
        print(label, {k: v for k, v in out.items() if k != "ablations"}, flush=True)
        return out

    # One scorer for every row: the headline, the ablations and the release-only graph are all scored the same
    # way (L2's hard match also counts a phrase whose embedding equals a pivot's, as the reference does, so an
    # L2 without the phrase similarity reads about 0.6 points lower and is not comparable with the headline).
    scorer = CrgScorer(instances, glossary, reference, data_dir=d, workers=2)
    if args.corpus_curve:
        corpus_curve(args, scorer, glossary, instances, parity, result["load_before"])
        return
    if args.limits:
        import json
        from pathlib import Path

        kept = json.loads(Path(args.json_out).read_text(encoding="utf-8")) if Path(args.json_out).exists() else {}
        with LadybugStore(args.db) as store:
            g = DishGraph(store, glossary=glossary)
            g.compose()
            section = kept.setdefault("release_and_sample", {})
            t0 = time.perf_counter()
            section["corpus_only"] = corpus_only_fit(store, g, instances, glossary, scorer, parity)
            section["selection_limit"] = selection_limit(store, g, instances, glossary, scorer, parity)
            section["limits_s"] = round(time.perf_counter() - t0, 1)
            section["limits_load"] = [result["load_before"], os.getloadavg()]
        emit(kept, args.json_out)
        return
    result["release_and_sample"] = run_db(args.db, "release+sample", True)
    if args.release_db:
        result["release_only"] = run_db(args.release_db, "release only", False)
    if args.classic_db:
        result["release_sample_classic"] = run_db(args.classic_db, "release+sample+classic", True, fitted=True)
    result["load_after"] = os.getloadavg()
    emit(result, args.json_out)


if __name__ == "__main__":
    main()
