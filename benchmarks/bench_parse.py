"""Parse throughput (recipes/s on one core) of both segmenters on the 2,500 CRG base recipes.

Two paths per segmenter: ``parse`` one recipe at a time (the CLI, the editor) and ``parse_many`` over chunks
of 250 recipes (what ingest workers run; LAC batches clauses of equal length into one ONNX call).

``--baseline REV`` compares with the parser of an earlier revision instead: the package at REV (``git
archive``) and this tree, each in a process of its own, parse the same chunk of recipes in turns (the first to
go alternates), ``--pairs`` rounds over all recipes, so that both see the same moments of a shared machine's
load; the ratio this/baseline is given per round and as the median, in wall and in process time.
``--baseline-src DIR`` names a tree holding the ``dishgraph`` package instead of a revision.

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


class Worker:
    """A process importing ``dishgraph`` from ``tree`` (data located from this tree) that parses slices of the
    base recipes on request (``serve``) with parsers it keeps warm."""

    def __init__(self, tree: Path, chunk: int):
        env = {**os.environ, "PYTHONPATH": str(tree)}
        cmd = [sys.executable, __file__, "--serve", "--chunk", str(chunk)]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, **request) -> dict:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def serve(chunk: int) -> None:
    """Answer requests ``{"segmenter", "path", "start", "stop"}`` (one per line) with the wall and process time
    of parsing base recipes ``start:stop`` that way."""
    import dishgraph
    from dishgraph import config
    from dishgraph.eval.parse_recall import read_base_recipes
    from dishgraph.ingest.glossary import Glossary
    from dishgraph.ingest.parser import RecipeParser

    crg = config.data_dir() / "counterfactual"
    glossary = Glossary.load(crg / "glossary.json")
    texts = [t for ts in read_base_recipes(crg).values() for t in ts]
    parsers: dict = {}
    for line in sys.stdin:
        req = json.loads(line)
        if req["segmenter"] not in parsers:
            parsers[req["segmenter"]] = RecipeParser(glossary, segmenter=req["segmenter"])
            parsers[req["segmenter"]].parse(texts[0])  # warm-up: model/dictionary load
        parser, part = parsers[req["segmenter"]], texts[req["start"] : req["stop"]]
        t0, c0 = time.perf_counter(), time.process_time()
        if req["path"] == "parse":
            n_actions = sum(len(parser.parse(t)) for t in part)
        else:
            n_actions = sum(len(acts) for acts in parser.parse_many(part))
        secs, cpu = time.perf_counter() - t0, time.process_time() - c0
        reply = {"seconds": secs, "cpu_s": cpu, "actions": n_actions, "recipes": len(texts)}
        print(json.dumps({**reply, "package": str(Path(dishgraph.__file__).parent)}), flush=True)


def compare(args: argparse.Namespace) -> list[dict]:
    """Baseline and this tree in turns, one chunk of recipes at a time (the first to go alternates), so that
    both see the same moments of a shared machine's load; ``args.pairs`` rounds over all the base recipes.
    Every round's totals per version (with ``version`` and ``pair``), then per segmenter and path the ratios
    this/baseline of each round and their median, in wall and in process time."""
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="bench-parse-baseline-") as tmp:
        base = Path(args.baseline_src) if args.baseline_src else baseline_tree(args.baseline, Path(tmp))
        label = args.baseline or str(base)
        workers = {f"baseline {label}": Worker(base, args.chunk), "this tree": Worker(ROOT, args.chunk)}
        first = args.segmenters.split(",")[0]
        n = workers["this tree"].ask(segmenter=first, path="parse_many", start=0, stop=0)["recipes"]
        for seg in args.segmenters.split(","):
            for path in args.paths.split(","):
                for w in workers.values():  # load the segmenter before the clock starts
                    w.ask(segmenter=seg, path=path, start=0, stop=1)
                for pair in range(args.pairs):
                    total = {v: {"seconds": 0.0, "cpu_s": 0.0, "actions": 0} for v in workers}
                    for k, start in enumerate(range(0, n, args.chunk)):
                        order = list(workers) if k % 2 == 0 else list(workers)[::-1]
                        for v in order:
                            r = workers[v].ask(segmenter=seg, path=path, start=start, stop=start + args.chunk)
                            for col in total[v]:
                                total[v][col] += r[col]
                            total[v]["package"] = r["package"]
                    for v, t in total.items():
                        row = {"segmenter": seg, "path": path, "recipes": n, "seconds": round(t["seconds"], 2)}
                        row |= {"cpu_s": round(t["cpu_s"], 2), "recipes_per_s": round(n / t["seconds"], 1)}
                        row |= {"actions": t["actions"], "omp_threads": os.environ.get("OMP_NUM_THREADS")}
                        row |= {"loadavg": round(os.getloadavg()[0], 2), "package": t["package"]}
                        rows.append({**row, "version": v, "pair": pair})
                        print(json.dumps(rows[-1], ensure_ascii=False), flush=True)
        for w in workers.values():
            w.close()
    return rows + summarise(rows, args, label)


def summarise(rows: list[dict], args: argparse.Namespace, label: str) -> list[dict]:
    """Per segmenter and path: each round's ratio this tree / baseline and the median, wall and process time."""
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
    return summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="benchmarks/results/parse.json", help="JSON results file")
    ap.add_argument("--chunk", type=int, default=250, help="recipes per parse_many call (ingest: 250)")
    ap.add_argument("--segmenters", default="lac,jieba")
    ap.add_argument("--paths", default=",".join(PATHS), help="parse, parse_many or both")
    ap.add_argument("--baseline", help="a git revision whose parser to compare with (run in turns with this tree)")
    ap.add_argument("--baseline-src", help="a directory holding the baseline's dishgraph package instead")
    ap.add_argument("--pairs", type=int, default=3, help="baseline/this-tree pairs of runs (with --baseline)")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.chunk)
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
