"""Crash safety as a figure: `dishgraph ingest corpus` SIGKILLed at N random moments, each then re-run.

Each kill gets a fresh database: the ingest runs as a user runs it (the CLI, in its own process), is killed
with SIGKILL at a moment drawn uniformly (seeded) from the clean run's duration, and is run again to the end.
A kill passes when the re-run ends with exactly the node and relationship counts of an uninterrupted run.
Small chunks and loads (``--chunk-size``/``--load-batch``) make many checkpoints, so kills land between and
inside COPYs, checkpoints and marks. Not a timed test: it takes minutes (the unit tests keep two exact kill
points, tests/test_ingest.py).

    OMP_NUM_THREADS=1 nice -n 5 python benchmarks/bench_kill.py --kills 20 --json-out benchmarks/results/kill.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._report import emit  # noqa: E402


def _counts(db: Path) -> dict:
    from dishgraph.graph.ladybug_store import LadybugStore

    with LadybugStore(db, read_only=True) as s:
        c = s.counts()
    return {**{k: v for k, v in c["nodes"].items() if v}, **{k: v for k, v in c["relationships"].items() if v}}


def _ingest_cmd(corpus: Path, db: Path, args) -> list[str]:
    return [
        sys.executable,
        "-m",
        "dishgraph.cli",
        "ingest",
        "corpus",
        str(corpus),
        "--db",
        str(db),
        "--json",
        "--workers",
        str(args.workers),
        "--segmenter",
        args.segmenter,
        "--chunk-size",
        str(args.chunk),
        "--load-batch",
        str(args.chunk),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--recipes", type=int, default=400, help="Real XiaChuFang recipes in the corpus.")
    ap.add_argument("--chunk", type=int, default=40, help="--chunk-size and --load-batch of the ingest.")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--segmenter", default="lac")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--json-out")
    args = ap.parse_args()

    from dishgraph import config

    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    tmp = Path(tempfile.mkdtemp(prefix="bench-kill-"))
    corpus = tmp / "corpus.jsonl"
    src = config.data_dir() / "xiachufang" / "recipes.jsonl"
    with open(src, encoding="utf-8") as fh, open(corpus, "w", encoding="utf-8") as out:
        for i, line in enumerate(fh):
            if i >= args.recipes:
                break
            out.write(line)

    t0 = time.perf_counter()
    clean_db = tmp / "clean"
    subprocess.run(_ingest_cmd(corpus, clean_db, args), env=env, check=False, capture_output=True)
    clean_seconds = time.perf_counter() - t0
    clean = _counts(clean_db)

    rng = random.Random(args.seed)
    results = []
    for k in range(args.kills):
        db = tmp / f"kill{k}"
        at = rng.uniform(0.05, 0.95) * clean_seconds
        p = subprocess.Popen(
            _ingest_cmd(corpus, db, args), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(at)
        killed = p.poll() is None
        if killed:
            os.kill(p.pid, signal.SIGKILL)
        p.wait()
        parsed_at_kill = None
        if db.exists():
            try:
                parsed_at_kill = _counts(db).get("Step", 0)
            except Exception as e:  # noqa: BLE001 - the figure records it
                parsed_at_kill = f"unreadable: {e}"
        rerun = subprocess.run(_ingest_cmd(corpus, db, args), env=env, capture_output=True, text=True)
        after = _counts(db)
        results.append(
            {
                "kill": k,
                "at_s": round(at, 2),
                "killed": killed,
                "steps_at_kill": parsed_at_kill,
                "rerun_exit": rerun.returncode,
                "exact": after == clean,
            }
        )
        print(json.dumps(results[-1]), file=sys.stderr, flush=True)

    figures = {
        "recipes": args.recipes,
        "chunk": args.chunk,
        "workers": args.workers,
        "segmenter": args.segmenter,
        "clean_seconds": round(clean_seconds, 1),
        "clean_counts": clean,
        "kills": args.kills,
        "killed_mid_run": sum(r["killed"] for r in results),
        "exact_after_rerun": sum(r["exact"] for r in results),
        "runs": results,
        "loadavg": Path("/proc/loadavg").read_text().split()[:3],
        "seconds": round(time.perf_counter() - t0, 1),
    }
    emit(figures, args.json_out)
    return 0 if figures["exact_after_rerun"] == args.kills else 1


if __name__ == "__main__":
    raise SystemExit(main())
