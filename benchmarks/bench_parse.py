"""Parse throughput (recipes/s on one core) of both segmenters on the 2,500 CRG base recipes.

Two paths per segmenter: ``parse`` one recipe at a time (the CLI, the editor) and ``parse_many`` over chunks
of 250 recipes (what ingest workers run; LAC batches clauses of equal length into one ONNX call).

``--baseline REV`` compares with the parser of an earlier revision instead: the package at REV (``git
archive``) and this tree run in turns, baseline then this tree, ``--pairs`` times, each run in a fresh process,
so that both see the same load on a shared machine; the ratio this/baseline is given per pair and as the
median. ``--baseline-src DIR`` names a tree holding the ``dishgraph`` package instead of a revision.

Usage: OMP_NUM_THREADS=1 python benchmarks/bench_parse.py [--out benchmarks/results/parse.json]
       OMP_NUM_THREADS=1 python benchmarks/bench_parse.py --baseline REV --segmenters lac --paths parse_many
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
PATHS = ("parse", "parse_many")


def measure(segmenters: list[str], paths: list[str], chunk: int) -> list[dict]:
    """One row per segmenter and path: seconds, throughput, actions, the parser's construction time, load."""
    import dishgraph
    from dishgraph import config
    from dishgraph.eval.parse_recall import read_base_recipes
    from dishgraph.ingest.glossary import Glossary
    from dishgraph.ingest.parser import RecipeParser

    crg = config.data_dir() / "counterfactual"
    glossary = Glossary.load(crg / "glossary.json")
    texts = [t for ts in read_base_recipes(crg).values() for t in ts]
    chars = sum(map(len, texts))
    rows = []
    for name in segmenters:
        t0 = time.perf_counter()
        parser = RecipeParser(glossary, segmenter=name)
        parser.parse(texts[0])  # warm-up: model/dictionary load
        build = time.perf_counter() - t0
        for path in paths:
            t0, c0 = time.perf_counter(), time.process_time()
            if path == "parse":
                n_actions = sum(len(parser.parse(t)) for t in texts)
            else:
                n_actions = sum(
                    len(acts) for i in range(0, len(texts), chunk) for acts in parser.parse_many(texts[i : i + chunk])
                )
            secs, cpu = time.perf_counter() - t0, time.process_time() - c0
            rows.append(
                {
                    "segmenter": name,
                    "path": path,
                    "recipes": len(texts),
                    "seconds": round(secs, 2),
                    "cpu_s": round(cpu, 2),  # process time: what a busy shared machine disturbs least
                    "recipes_per_s": round(len(texts) / secs, 1),
                    "chars_per_s": round(chars / secs),
                    "actions": n_actions,
                    "construct_s": round(build, 2),
                    "omp_threads": os.environ.get("OMP_NUM_THREADS"),
                    "loadavg": round(os.getloadavg()[0], 2),
                    "package": str(Path(dishgraph.__file__).parent),
                }
            )
    return rows


def baseline_tree(rev: str, into: Path) -> Path:
    """The ``dishgraph`` package of revision ``rev`` of this repository, extracted under ``into``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "dishgraph"], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def run_in(tree: Path, args: argparse.Namespace) -> list[dict]:
    """``measure`` in a fresh process importing ``dishgraph`` from ``tree`` (data located from this tree)."""
    cmd = [sys.executable, __file__, "--worker", "--segmenters", args.segmenters, "--paths", args.paths]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(cmd + ["--chunk", str(args.chunk)], cwd=ROOT, env=env, check=True, capture_output=True)
    return json.loads(out.stdout.decode("utf-8").strip().splitlines()[-1])


def compare(args: argparse.Namespace) -> list[dict]:
    """Baseline and this tree in turns, ``args.pairs`` times; every run's row (with ``version`` and ``pair``),
    then per segmenter and path the ratios this/baseline of each pair and their median."""
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="bench-parse-baseline-") as tmp:
        base = Path(args.baseline_src) if args.baseline_src else baseline_tree(args.baseline, Path(tmp))
        label = args.baseline or str(base)
        for pair in range(args.pairs):
            for version, tree in ((f"baseline {label}", base), ("this tree", ROOT)):
                for r in run_in(tree, args):
                    rows.append({**r, "version": version, "pair": pair})
                    print(json.dumps(rows[-1], ensure_ascii=False), flush=True)
    summary = []
    for seg in args.segmenters.split(","):
        for path in args.paths.split(","):
            mine = [r for r in rows if (r["segmenter"], r["path"]) == (seg, path)]
            row: dict = {"segmenter": seg, "path": path, "compare": f"this tree / baseline {label}"}
            for col in ("seconds", "cpu_s"):
                old = [r[col] for r in mine if r["version"] != "this tree"]
                new = [r[col] for r in mine if r["version"] == "this tree"]
                ratios = [round(n / o, 3) for o, n in zip(old, new)]
                row[col] = {"baseline": old, "this": new, "ratios": ratios, "median_ratio": statistics.median(ratios)}
            row["loadavg_1_5_15_at_end"] = [round(x, 2) for x in os.getloadavg()]
            summary.append(row)
    return rows + summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="benchmarks/results/parse.json", help="JSON results file")
    ap.add_argument("--chunk", type=int, default=250, help="recipes per parse_many call (ingest: 250)")
    ap.add_argument("--segmenters", default="lac,jieba")
    ap.add_argument("--paths", default=",".join(PATHS), help="parse, parse_many or both")
    ap.add_argument("--baseline", help="a git revision whose parser to compare with (run in turns with this tree)")
    ap.add_argument("--baseline-src", help="a directory holding the baseline's dishgraph package instead")
    ap.add_argument("--pairs", type=int, default=3, help="baseline/this-tree pairs of runs (with --baseline)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(measure(args.segmenters.split(","), args.paths.split(","), args.chunk)))
        return
    if args.baseline or args.baseline_src:
        rows = compare(args)
    else:
        rows = measure(args.segmenters.split(","), args.paths.split(","), args.chunk)
    from rich.console import Console
    from rich.table import Table

    for title, part in (
        ("parse throughput, one core", [r for r in rows if "compare" not in r]),
        ("comparison", [r for r in rows if "compare" in r]),
    ):
        if part:
            table = Table(title=title)
            for col in part[0]:
                table.add_column(col)
            for r in part:
                table.add_row(*map(str, r.values()))
            Console().print(table)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(rows, fh, indent=2, ensure_ascii=False)


if __name__ == "__main__":
    main()
