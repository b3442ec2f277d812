"""The fair composed editor against corpus size: graphs of the release plus a seeded fraction of the XiaChuFang
sample, built the way `make demo` builds its graph (ingest + parse, USES, fast order constraints for dishes
with 10+ recipes, compose every target), each scored with the same scorer.

Why: #28's goal is missed and the notes say evidence is what limits it (release only 13.19, + the sample
16.24). Two points cannot show a trend; a curve over nested subsets of the sample can, with no knob tuned on
any pair (the editor's thresholds stay the defaults). The subsets are nested: a recipe kept at fraction f is
kept at every larger one, so the curve moves by evidence added, not by which recipes were drawn.
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from pathlib import Path

MIN_RECIPES = 10  # as `make demo`: order constraints for dishes with this many parsed recipes


def subsample_lines(sample: Path, fraction: float, seed: int) -> list[str]:
    """The sample's lines kept at ``fraction``: one uniform draw per line from ``seed``, kept when below it."""
    rng = random.Random(seed)
    lines = sample.read_text(encoding="utf-8").splitlines(keepends=True)
    return [line for line in lines if rng.random() < fraction]


def targets_with_recipes(lines: list[str], crg: Path) -> dict[str, int]:
    """How many even and odd pairs' target dishes have at least one recipe among ``lines`` (by the ``dish``
    field): the `own` source the composition weighs most, which a small draw mostly lacks."""
    import json

    from _crg import pair_parity

    dishes = {json.loads(line).get("dish") for line in lines}
    parity = pair_parity(crg)
    return {
        name: sum(1 for (_, t), p in parity.items() if p == k and t in dishes) for k, name in enumerate(("even", "odd"))
    }


def build_graph(db: Path, data_dir: Path, glossary, fraction: float, seed: int, workers: int = 2) -> dict:
    """Build the release + ``fraction`` of the sample into the new database ``db``; what was loaded and the
    seconds each step took."""
    from dishgraph.api import DishGraph
    from dishgraph.graph.ladybug_store import LadybugStore
    from dishgraph.ingest.corpus import ingest_corpus
    from dishgraph.ingest.crg import ingest_counterfactual
    from dishgraph.knowledge.derived import refresh_derived
    from dishgraph.knowledge.frequencies import dishes_with_recipes
    from dishgraph.knowledge.order import OrderSettings

    out: dict = {"fraction": fraction, "seed": seed, "seconds": {}}
    t = time.perf_counter()
    with LadybugStore(str(db)) as store:
        ingest_counterfactual(store, data_dir / "counterfactual", parse=True, workers=workers, show_progress=False)
        out["seconds"]["release"] = round(time.perf_counter() - t, 1)
        kept = subsample_lines(data_dir / "xiachufang" / "recipes.jsonl", fraction, seed)
        out["sample_lines"] = len(kept)
        out["targets_with_recipes"] = targets_with_recipes(kept, data_dir / "counterfactual")
        if kept:
            t = time.perf_counter()
            with tempfile.TemporaryDirectory() as tmp:
                part = Path(tmp) / "recipes.jsonl"  # the sample's file name: the same source tag
                part.write_text("".join(kept), encoding="utf-8")
                rep = ingest_corpus(store, part, glossary, workers=workers, show_progress=False)
            out["sample_recipes"], out["sample_dishes"] = rep.recipes, rep.dishes
            out["seconds"]["sample"] = round(time.perf_counter() - t, 1)
        t = time.perf_counter()
        refresh_derived(store, recompose=False)
        have = dishes_with_recipes(store)
        order_dishes = sorted(d for d, n in have.items() if n >= MIN_RECIPES)
        g = DishGraph(store, glossary=glossary)
        g.estimate_order(order_dishes, settings=OrderSettings(estimator="fast"), workers=workers)
        out["order_dishes"] = len(order_dishes)
        out["seconds"]["uses_and_order"] = round(time.perf_counter() - t, 1)
        t = time.perf_counter()
        rep = g.compose()
        out["pivots"], out["constraints"] = rep.pivots, rep.constraints
        out["seconds"]["compose"] = round(time.perf_counter() - t, 1)
    return out


def curve(fractions: list[float], seeds: list[int], work_dir: Path, data_dir: Path, glossary, score_db) -> list[dict]:
    """One point per (fraction, seed): the graph built in ``work_dir`` (a fresh directory; removed after), scored by
    ``score_db(path)`` (a Table-3 row per split), with its load average."""
    import shutil

    points = []
    for fraction in fractions:
        for seed in seeds if 0.0 < fraction < 1.0 else seeds[:1]:  # 0 and 1 draw nothing at random
            db = work_dir / f"curve-{fraction}-{seed}"
            load = os.getloadavg()
            point = build_graph(db, data_dir, glossary, fraction, seed)
            t = time.perf_counter()
            point["table3"] = score_db(db)
            point["seconds"]["edit_and_score"] = round(time.perf_counter() - t, 1)
            point["load"] = [load, os.getloadavg()]
            print("corpus curve", fraction, seed, {s: point["table3"][s]["hard_f1"] for s in ("all", "even", "odd")})
            points.append(point)
            for path in work_dir.glob(f"{db.name}*"):  # the database and its .lock / .wal: disk for the next
                shutil.rmtree(path) if path.is_dir() else path.unlink()
    return points


def summarize(points: list[dict]) -> dict:
    """Per fraction: the sample recipes and the mean / min / max Hard F1 of each split over the seeds; and the
    least-squares slope of each split's Hard F1 per doubling of the sample (points with a sample only), the
    trend the README quotes."""
    import math
    from statistics import mean

    by_fraction: dict[float, list[dict]] = {}
    for p in points:
        by_fraction.setdefault(p["fraction"], []).append(p)
    out: dict = {"by_fraction": {}, "per_doubling": {}}
    for f, ps in sorted(by_fraction.items()):
        row: dict = {"seeds": len(ps), "sample_recipes": round(mean(p.get("sample_recipes", 0) for p in ps))}
        for split in ("all", "even", "odd"):
            xs = [p["table3"][split]["hard_f1"] for p in ps]
            row[split] = {"mean": round(mean(xs), 2), "min": min(xs), "max": max(xs)}
        out["by_fraction"][str(f)] = row
    with_sample = [p for p in points if p.get("sample_recipes")]
    if len({p["sample_recipes"] for p in with_sample}) > 1:
        xs = [math.log2(p["sample_recipes"]) for p in with_sample]
        for split in ("all", "even", "odd"):
            ys = [p["table3"][split]["hard_f1"] for p in with_sample]
            mx, my = mean(xs), mean(ys)
            slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
            out["per_doubling"][split] = round(slope, 2)
    return out
