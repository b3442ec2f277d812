"""Parse throughput (recipes/s on one core) of both segmenters on the 2,500 CRG base recipes.

Two paths per segmenter: ``parse`` one recipe at a time (the CLI, the editor) and ``parse_many`` over chunks
of 250 recipes (what ingest workers run; LAC batches clauses of equal length into one ONNX call).

Usage: OMP_NUM_THREADS=1 python benchmarks/bench_parse.py [--out benchmarks/results/parse.json]
"""

from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default="benchmarks/results/parse.json", help="JSON results file")
    ap.add_argument("--chunk", type=int, default=250, help="recipes per parse_many call (ingest: 250)")
    ap.add_argument("--segmenters", default="lac,jieba")
    args = ap.parse_args()

    from rich.console import Console
    from rich.table import Table

    from dishgraph import config
    from dishgraph.eval.parse_recall import read_base_recipes
    from dishgraph.ingest.glossary import Glossary
    from dishgraph.ingest.parser import RecipeParser

    crg = config.data_dir() / "counterfactual"
    glossary = Glossary.load(crg / "glossary.json")
    texts = [t for ts in read_base_recipes(crg).values() for t in ts]
    chars = sum(map(len, texts))
    rows = []
    for name in args.segmenters.split(","):
        t0 = time.perf_counter()
        parser = RecipeParser(glossary, segmenter=name)
        parser.parse(texts[0])  # warm-up: model/dictionary load
        build = time.perf_counter() - t0
        for path in ("parse", "parse_many"):
            t0 = time.perf_counter()
            if path == "parse":
                n_actions = sum(len(parser.parse(t)) for t in texts)
            else:
                n_actions = sum(
                    len(acts)
                    for i in range(0, len(texts), args.chunk)
                    for acts in parser.parse_many(texts[i : i + args.chunk])
                )
            secs = time.perf_counter() - t0
            rows.append(
                {
                    "segmenter": name,
                    "path": path,
                    "recipes": len(texts),
                    "seconds": round(secs, 2),
                    "recipes_per_s": round(len(texts) / secs, 1),
                    "chars_per_s": round(chars / secs),
                    "actions": n_actions,
                    "construct_s": round(build, 2),
                    "omp_threads": os.environ.get("OMP_NUM_THREADS"),
                    "loadavg": round(os.getloadavg()[0], 2),
                }
            )
    table = Table(title="parse throughput, one core")
    for col in rows[0]:
        table.add_column(col)
    for r in rows:
        table.add_row(*map(str, r.values()))
    Console().print(table)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
