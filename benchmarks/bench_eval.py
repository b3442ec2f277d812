"""Timing of the full CRG evaluation on all 2,500 instances, for the identity and replace baselines.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_eval.py [--bertscore-model DIR] [--json-out F]
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_eval.py --cli --db DB [--before REPO] [--json-out F]

``--cli`` measures what a user waits for: the CPU seconds (user + system, workers included) of one
``dishgraph eval crg OUT --no-bertscore --db DB`` process per output, with an empty cache directory (the
first run on a machine) and again with the caches that run left (every later run). ``--before REPO`` runs
the same commands from another checkout (e.g. a worktree of the previous commit) in the same call, so the
two are measured on the same machine at the same load; the figures are merged into ``--json-out``'s "cli".

Reports, per stage: segmentation, PPMI-SVD vectors, parsing of base recipes and of generations, L2 scoring
alone, L1 (BLEU; BERTScore only with a model), and the end-to-end `evaluate_crg` time for each baseline —
once cold (nothing cached) and once with base-recipe parses served from a cache, as the graph would.
"""

from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")


def _cli_cpu(repo: str, out: str, db: str, cache: str) -> dict:
    """CPU and wall seconds of one `dishgraph eval crg` run from checkout `repo` (workers included)."""
    import resource
    import subprocess
    import sys

    from dishgraph.eval.outputs import crg_dir

    data = str(crg_dir().parent)
    env = {**os.environ, "DISHGRAPH_CACHE": cache, "DISHGRAPH_DATA": data, "PYTHONPATH": repo, "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "dishgraph.cli", "eval", "crg", out, "--no-bertscore", "--db", db]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    run = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode:
        raise SystemExit(f"{' '.join(cmd)} (in {repo}) exited {run.returncode}: {run.stderr[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    hard = next((line for line in run.stdout.splitlines() if "Hard F1" in line), "").replace("│", " ").split()
    return {"cpu_s": round(cpu, 2), "wall_s": round(wall, 2), "hard_f1": hard[-1] if hard else None}


def cli_main(args) -> None:
    """The ``--cli`` figures: identity and replace, cold and warm caches, this checkout and ``--before``."""
    import tempfile
    from pathlib import Path

    from dishgraph.eval.outputs import crg_dir, load_instances, write_outputs
    from dishgraph.ingest.glossary import Glossary
    from dishgraph.models.baselines import IdentityGenerator, ReplaceGenerator

    if not args.db:
        raise SystemExit("--cli needs --db (an ingested database: base parses are read from the graph)")
    root = str(Path(__file__).resolve().parents[1])
    d = crg_dir()
    instances = load_instances(d)
    glossary = Glossary.load(d / "glossary.json")
    work = Path(tempfile.mkdtemp(prefix="bench-eval-cli-"))
    outs = {}
    for name, gen in (("identity", IdentityGenerator()), ("replace", ReplaceGenerator(glossary))):
        outs[name] = str(work / f"{name}.jsonl")
        write_outputs(outs[name], gen.generate(instances), instances)
    figures: dict = {"loadavg_start": os.getloadavg()}
    checkouts = {"now": root, **({"before": args.before} if args.before else {})}
    for label, repo in checkouts.items():
        for name, out in outs.items():
            cache = str(work / f"cache-{label}-{name}")  # empty: the first run on a machine
            for state in ("cold", "warm"):
                got = _cli_cpu(repo, out, args.db, cache)
                figures[f"{label} {name} {state}"] = got
                print(
                    f"{label:>6} {name:>8} {state}: {got['cpu_s']:6.2f} s CPU, {got['wall_s']:6.2f} s wall", flush=True
                )
    figures["loadavg_end"] = os.getloadavg()
    if args.json_out:
        path = Path(args.json_out)
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        data["cli"] = {
            "command": "dishgraph eval crg OUT --no-bertscore --db DB (2,500 instances; base parses from the graph)",
            "cpu": "user + system seconds of the process and its workers (resource.getrusage, RUSAGE_CHILDREN)",
            "cold / warm": "empty cache directory / the caches the cold run left (tokens, vectors, clauses)",
            **figures,
        }
        path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bertscore-model", default=None, help="BERTScore model dir/name (default: skip)")
    ap.add_argument("--num-layers", type=int, default=None)
    ap.add_argument("--db", default=None, help="ingested database: base-recipe parses read from the graph")
    ap.add_argument("--json-out", default=None, help="e.g. benchmarks/results/eval.json")
    ap.add_argument("--cli", action="store_true", help="CPU of `dishgraph eval crg` runs, cold and warm caches")
    ap.add_argument("--before", default=None, help="with --cli: also run the commands from this checkout")
    args = ap.parse_args()
    if args.cli:
        cli_main(args)
        return
    load_start = os.getloadavg()

    from dishgraph.eval.crg import corpus_vectors, default_parse, evaluate_crg, table_row
    from dishgraph.eval.embeddings import PhraseEmbedder
    from dishgraph.eval.l2 import CachedParse, L2Reference, evaluate_l2
    from dishgraph.eval.outputs import crg_dir, load_instances
    from dishgraph.eval.text_metrics import BertScoreConfig, default_segmenter, memoize
    from dishgraph.ingest.glossary import Glossary
    from dishgraph.models.baselines import IdentityGenerator, ReplaceGenerator

    t: dict[str, float] = {}

    def tick(name, t0):
        t[name] = round(time.perf_counter() - t0, 2)
        print(f"{name:>28}: {t[name]:7.2f} s", flush=True)

    t0 = time.perf_counter()
    d = crg_dir()
    glossary = Glossary.load(d / "glossary.json")
    instances = load_instances(d)
    reference = L2Reference.from_release(d)
    tick("load release", t0)

    t0 = time.perf_counter()
    outputs = {
        "identity": IdentityGenerator().generate(instances),
        "replace": ReplaceGenerator(glossary).generate(instances),
    }
    tick("generate identity+replace", t0)

    seg = memoize(default_segmenter("auto", glossary))
    t0 = time.perf_counter()
    for i in instances:
        seg(i.base_recipe)
    tick("segment base recipes", t0)
    t0 = time.perf_counter()
    wv = corpus_vectors(instances, seg)
    tick("ppmi-svd vectors", t0)

    parse = default_parse(glossary)
    base_cache = CachedParse(parse)
    graph_cache = None
    if args.db:  # the project's path: base parses read from the graph, nothing parsed twice
        from dishgraph.eval.graph_cache import base_parses
        from dishgraph.graph.ladybug_store import LadybugStore

        t0 = time.perf_counter()
        store = LadybugStore(args.db, read_only=True)
        graph_cache = base_parses(store, glossary.ingredient)
        store.close()
        tick("base parses from graph", t0)
    else:  # no graph: parse the bases once, then time L2 with and without the cache
        t0 = time.perf_counter()
        for i in instances:
            base_cache(i.base_recipe)
        tick("parse base recipes", t0)
        t0 = time.perf_counter()
        gen_parses = {x: parse(x) for x in dict.fromkeys(outputs["replace"])}
        tick("parse replace outputs", t0)
        sim = PhraseEmbedder(wv, seg).similarity
        table = glossary.ingredient
        all_parsed = CachedParse(parse, {**base_cache.memo, **gen_parses})
        t0 = time.perf_counter()
        evaluate_l2(outputs["replace"], instances, all_parsed, reference, sim, lambda s: table.get(s, s))
        tick("L2 scoring only (replace)", t0)

    cfg = BertScoreConfig(model=args.bertscore_model, num_layers=args.num_layers) if args.bertscore_model else None
    rows, results = [], {}
    cache = graph_cache if graph_cache is not None else base_cache.memo
    label = "graph" if graph_cache is not None else "memo"
    for name, texts in outputs.items():
        t0 = time.perf_counter()
        res = evaluate_crg(
            texts,
            instances,
            glossary=glossary,
            parse=parse,
            reference=reference,
            segment=seg,
            vectors=wv,
            bertscore_config=cfg,
            with_bertscore=cfg is not None,
            parse_cache=cache,
        )
        tick(f"evaluate_crg {name} ({label} base)", t0)
        t[f"end_to_end_{name}_s"] = round(
            t[f"evaluate_crg {name} ({label} base)"]
            + t["ppmi-svd vectors"]
            + t["segment base recipes"]
            + t.get("base parses from graph", 0.0),
            2,
        )
        results[name] = res
        rows.append(table_row(res, name))
    for r in rows:
        print(json.dumps(r, ensure_ascii=False))
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as fh:
            json.dump(
                {
                    "loadavg_start": load_start,
                    "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
                    "bertscore": "skipped: no local model (pass --bertscore-model DIR)"
                    if cfg is None
                    else args.bertscore_model,
                    "base_parses": label,
                    "timings_s": t,
                    "rows": rows,
                    "results": results,
                },
                fh,
                ensure_ascii=False,
                indent=2,
                default=lambda x: None,
            )


if __name__ == "__main__":
    main()
