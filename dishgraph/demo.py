"""The main job (`dishgraph demo`): the CRG release end to end on one graph, then a report.

Steps, each skipped when the graph (or the report folder) already holds its result, so a rerun is quick:
ingest + parse the release → USES frequencies → mined pivots for all pairs → causal order constraints
(fast exact PSM) → DiNeR dish-name components and a TMCD split → model-free generators scored with the
CRG evaluation. Every step is one call into the same Python API the CLI commands wrap.
"""
from __future__ import annotations

import inspect
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from dishgraph.graph.store import GraphStore
from dishgraph.jsonsafe import json_safe

MODEL_FREE = ("identity", "replace", "graph")
SPLIT_NAME = "tmcd"


@dataclass
class StepLog:
    name: str
    seconds: float
    skipped: bool
    detail: str = ""


@dataclass
class DemoReport:
    database: str
    steps: list[StepLog] = field(default_factory=list)
    counts: dict = field(default_factory=dict)
    graph: dict = field(default_factory=dict)
    example_pair: dict = field(default_factory=dict)
    top_actions: dict = field(default_factory=dict)
    steps_per_recipe: list[int] = field(default_factory=list)
    split: dict = field(default_factory=dict)
    results: list[dict] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)


class _Steps:
    """Times each step and records whether it ran or was skipped."""

    def __init__(self, report: DemoReport, say: Callable[[str], None]):
        self.report, self.say = report, say

    def run(self, name: str, done: bool, fn: Callable[[], str | None]) -> None:
        t0 = time.perf_counter()
        if done:
            self.report.steps.append(StepLog(name, 0.0, True, "already in the graph"))
            self.say(f"skip {name} (already done)")
            return
        self.say(f"run  {name} …")
        detail = fn() or ""
        dt = time.perf_counter() - t0
        self.report.steps.append(StepLog(name, dt, False, detail))
        self.say(f"     {name}: {detail} ({dt:.1f} s)")


def _rel_count(store: GraphStore, rel: str) -> int:
    return store.counts()["relationships"].get(rel, 0)


def run_demo(store: GraphStore, data_dir: str | Path, out_dir: str | Path = "report", *, workers: int = 2,
             generators: tuple[str, ...] = MODEL_FREE, say: Callable[[str], None] = print,
             show_progress: bool = True) -> DemoReport:
    """Run every step of the main job on ``store`` and write ``out_dir``/index.html and report.json."""
    from dishgraph.api import DishGraph
    from dishgraph.diner.graph import list_splits, split_graph, store_components, split_info
    from dishgraph.diner.names import DinerGlossary
    from dishgraph.ingest.crg import ingest_counterfactual
    from dishgraph.knowledge.order import OrderSettings, dishes_with_constraints
    from dishgraph.knowledge.pivots import all_pairs

    t_all = time.perf_counter()
    data_dir, out_dir = Path(data_dir), Path(out_dir)
    crg = data_dir / "counterfactual"
    out_dir.mkdir(parents=True, exist_ok=True)
    g = DishGraph(store)
    rep = DemoReport(database=store.location())
    steps = _Steps(rep, say)

    (progress,) = store.query("recipes_parsed")
    n_recipes, n_parsed = int(progress["recipes"]), int(progress["parsed"] or 0)
    steps.run("ingest + parse the CRG release", n_recipes > 0 and n_parsed >= n_recipes,
              lambda: _ingest(store, crg, workers, show_progress, ingest_counterfactual))
    steps.run("USES frequencies", _rel_count(store, "USES") > 0,
              lambda: f"{sum(g.frequencies().values())} dish→action edges")
    pairs = all_pairs(store)
    steps.run("pivot mining (all pairs)", _has_mined(store, g, pairs),
              lambda: f"{sum(len(r.pivots) for r in g.mine_all_pivots())} pivots over {len(pairs)} pairs")
    have_order = any(r["source"] == "estimated" for r in dishes_with_constraints(store))
    steps.run("causal order constraints (fast PSM)", have_order,
              lambda: _order(g, workers, OrderSettings))
    have_split = any(s.get("name") == SPLIT_NAME for s in list_splits(store))
    steps.run("DiNeR components + TMCD split", have_split,
              lambda: _diner(store, DinerGlossary, store_components, split_graph))
    results_file = out_dir / "results.json"
    steps.run("model-free generators + CRG evaluation", results_file.exists(),
              lambda: _generate_and_eval(store, data_dir, out_dir, generators, results_file, workers))

    _collect(store, g, rep, results_file, split_info)
    rep.seconds = time.perf_counter() - t_all
    (out_dir / "report.json").write_text(json.dumps(json_safe(rep.to_dict()), ensure_ascii=False, indent=2,
                                                    default=str), encoding="utf-8")
    from dishgraph.report import write_html

    write_html(rep, out_dir / "index.html")
    return rep


def _has_mined(store: GraphStore, g, pairs: list[str]) -> bool:
    from dishgraph.knowledge.pivots import parse_pair

    return bool(pairs) and any(p.source == "mined" for p in g.pivots(*parse_pair(pairs[0])))


def _ingest(store, crg: Path, workers: int, show_progress: bool, ingest_counterfactual) -> str:
    r = ingest_counterfactual(store, crg, parse=True, workers=workers, show_progress=show_progress)
    return f"{r.dishes} dishes, {r.pairs} pairs, {r.recipes} recipes, {r.reference_pivots} reference pivots"


def _order(g, workers: int, OrderSettings) -> str:
    rep = g.estimate_order(settings=OrderSettings(estimator="fast"), workers=workers)
    kept = sum(d.constraints for d in rep.dishes)
    return f"{kept} MUST_PRECEDE edges for {len(rep.dishes)} dishes"


def _diner(store, DinerGlossary, store_components, split_graph) -> str:
    from dishgraph.diner.names import EXTRA_GLOSSARY

    comp = store_components(store, DinerGlossary.load(None, [EXTRA_GLOSSARY]))  # + the 12 names DiNeR lacks
    split = split_graph(store, SPLIT_NAME, target_divergence=0.98, seed=1)
    s = split.summary()
    return (f"{comp.parsed}/{comp.dishes} dish names parsed; split "
            f"{s['n_train']}/{s['n_test']} dishes, compound divergence {s['divergence']:.3f}")


def _generate_and_eval(store: GraphStore, data_dir: Path, out_dir: Path, generators: tuple[str, ...],
                       results_file: Path, workers: int = 2) -> str:
    from dishgraph.eval.crg import CrgScorer, table_row
    from dishgraph.eval.graph_cache import base_parses
    from dishgraph.eval.l2 import L2Reference
    from dishgraph.eval.outputs import crg_dir, load_instances, write_outputs
    from dishgraph.ingest.glossary import Glossary
    from dishgraph.models import registry

    d = crg_dir(data_dir)
    instances = load_instances(d)
    glossary = Glossary.load(d / "glossary.json")
    scorer = CrgScorer(instances, glossary, L2Reference.from_release(d),
                       base_parses=base_parses(store, glossary.ingredient) or None, data_dir=d, workers=workers)
    rows, timings = [], {}
    for name in generators:
        if name not in registry.names():
            continue
        t0 = time.perf_counter()
        options = {"store": store} if "store" in inspect.signature(registry.get(name)).parameters else {}
        gen = registry.create(name, glossary=glossary, data_dir=str(data_dir), **options)
        texts = registry.generate_all(gen, instances)
        gen_s = time.perf_counter() - t0
        write_outputs(out_dir / f"{name}.txt", texts, instances)
        t0 = time.perf_counter()
        rows.append(table_row(scorer.score(texts, instances), name))
        timings[name] = {"generate_s": round(gen_s, 2), "eval_s": round(time.perf_counter() - t0, 2)}
    results_file.write_text(json.dumps(json_safe({"rows": rows, "timing": timings, "instances": len(instances),
                                                "bertscore": "skipped (no local model)"}),
                                       ensure_ascii=False, indent=2), encoding="utf-8")
    return ", ".join(f"{r['model']} L2 F1 " + ("undefined (no change is counted)" if r.get("hard_f1") is None
                                                else f"{r['hard_f1']:.2f}") for r in rows)


def _collect(store: GraphStore, g, rep: DemoReport, results_file: Path, split_info) -> None:
    from dishgraph.graph.info import graph_stats
    from dishgraph.knowledge.pivots import all_pairs, parse_pair

    stats = graph_stats(store, top=5)
    rep.counts = stats["counts"]
    rep.graph = {k: stats[k] for k in ("recipes", "share_with_actions", "steps_per_recipe",
                                       "inherited_per_recipe", "distinct_proto_actions") if k in stats}
    rep.steps_per_recipe = [r["steps"] for r in store.query("stats_recipe_actions")]
    pairs = all_pairs(store)
    if pairs:
        base, target = parse_pair(pairs[0])
        rel = [p for p in g.pivots(base, target)]
        rep.example_pair = {"base": base, "target": target,
                            "pivots": [{"action": p.action, "kind": p.kind, "source": p.source,
                                        "fb": p.fb, "ft": p.ft} for p in rel[:40]]}
    for dish in list(stats.get("top_actions_per_dish", {}))[:3]:
        rep.top_actions[dish] = [{"action": a["action"], "freq": a["freq"]} for a in g.actions(dish, top=8)]
    try:
        rep.split = split_info(store, SPLIT_NAME)
    except (KeyError, ValueError):
        rep.split = {}
    if results_file.exists():
        rep.results = json.loads(results_file.read_text(encoding="utf-8"))["rows"]
