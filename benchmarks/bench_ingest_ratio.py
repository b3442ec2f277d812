"""End-to-end ingest against a pool of parse workers, measured in one run on the same machine.

The pool is what W cores give the parser alone: W forked workers, one parser each, ``parse_many`` over chunks
of 250 recipes, nothing sent back but a count and nothing loaded (worker start-up included, as it is in an
ingest). End to end is ``dishgraph ingest corpus FILE --workers W --no-refresh`` into a fresh database, run
as a command (interpreter start, imports, glossary, reading, upserts, parsing, loading, checkpoints, the
culinary flags). The derived-data refresh that a plain ``ingest corpus`` runs afterwards is timed on its own
(``refresh_derived`` on the loaded database), not in the ratio. Each run prints both rates, the ratio and
the load average, so a busy machine shows next to its numbers.

    OMP_NUM_THREADS=1 python benchmarks/bench_ingest_ratio.py [--corpus xiachufang|N] [--runs 3]
        [--save KEY]

``--corpus N`` is the synthetic corpus of N recipes (``synth_corpus.py``, seed 0). ``--save KEY`` merges the
runs into ``benchmarks/results/ingest.json`` under ``ratio_KEY``; ``profile_ingest.py`` gives the loading
process's time per phase.
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
sys.path.insert(0, str(ROOT))

CHUNK = 250  # recipes per parse_many call, as the ingest workers get them


def corpus_path(spec: str, work: Path) -> Path:
    """``xiachufang`` (the real sample) or a synthetic corpus of that many recipes (made once in ``work``)."""
    from dishgraph import config

    if spec == "xiachufang":
        return config.data_dir() / "xiachufang" / "recipes.jsonl"
    from benchmarks.synth_corpus import generate

    out = work / f"synth{spec}.jsonl"
    if not out.exists():
        generate(int(spec), out, seed=0)
    return out


def _children_cpu() -> float:
    """CPU seconds of this process's waited-for children (the forked pool's workers once joined)."""
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _tree_cpu(root: int, seen: dict[int, float]) -> None:
    """Record in ``seen`` the CPU seconds so far of every live process under ``root`` (``/proc``)."""
    tick = os.sysconf("SC_CLK_TCK")
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        parent[int(d)] = int(fields[1])
        cpu[int(d)] = (int(fields[11]) + int(fields[12])) / tick
    for pid in cpu:
        p = pid
        while p in parent and p != root:
            p = parent[p]
        if p == root:
            seen[pid] = max(seen.get(pid, 0.0), cpu[pid])


def _parse_count(chunk: list[str]) -> int:
    """A pool task: parse the chunk in this worker, send back only how many actions it gave."""
    from dishgraph.ingest import pipeline

    return sum(len(a) for a in pipeline._WORKER_PARSER.parse_many(chunk))


def pool_rate(path: Path, workers: int, limit: int | None = None) -> dict:
    """The parser alone in ``workers`` forked processes over the records of the corpus the ingest reads
    (the first ``limit`` of them: a rate per recipe needs no 100k parses)."""
    import multiprocessing as mp

    from dishgraph import config
    from dishgraph.ingest import pipeline
    from dishgraph.ingest.glossary import Glossary
    from dishgraph.ingest.readers import read_corpus

    glossary = Glossary.load(config.data_dir() / "counterfactual" / "glossary.json")
    texts = [r.text for _, r in zip(range(limit or sys.maxsize), read_corpus(path))]
    chunks = [texts[i : i + CHUNK] for i in range(0, len(texts), CHUNK)]
    t0, c0 = time.perf_counter(), _children_cpu()
    with mp.get_context("fork").Pool(workers, pipeline._init_worker, (glossary, "auto")) as pool:
        pool.apply(_parse_count, (texts[:1],), {})  # one worker warm: start-up measured apart
        t1 = time.perf_counter()
        actions = sum(pool.map(_parse_count, chunks, chunksize=1))
        pool.close()
        pool.join()  # the workers' CPU is counted once they are waited for
    t2 = time.perf_counter()
    return {
        "recipes": len(texts),
        "actions": actions,
        "seconds": round(t2 - t0, 2),
        "cpu_seconds": round(_children_cpu() - c0, 2),
        "start_seconds": round(t1 - t0, 2),
        "recipes_per_s": round(len(texts) / (t2 - t0), 1),
    }


def e2e_rate(path: Path, workers: int, db: Path) -> dict:
    """``dishgraph ingest corpus`` as a command into a fresh database, then the refresh it skipped, timed apart."""
    from dishgraph.graph.ladybug_store import LadybugStore
    from dishgraph.knowledge.derived import refresh_derived

    cmd = [sys.executable, "-m", "dishgraph.cli", "ingest", "corpus", str(path), "--db", str(db)]
    cmd += ["--workers", str(workers), "--no-refresh", "--json"]
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        proc = subprocess.Popen(cmd, stdout=stdout, stderr=stderr, cwd=ROOT)
        seen: dict[int, float] = {}  # CPU of the command's processes, sampled: its workers are not its to wait for
        while proc.poll() is None:
            _tree_cpu(proc.pid, seen)
            time.sleep(0.2)
        secs = time.perf_counter() - t0
        stdout.seek(0)
        stderr.seek(0)
        if proc.returncode not in (0, 3):
            raise RuntimeError(f"ingest failed ({proc.returncode}):\n{stderr.read()[-3000:].decode()}")
        rep = json.loads(stdout.read())
    main_cpu = seen.pop(proc.pid, 0.0)
    t1 = time.perf_counter()
    with LadybugStore(db) as store:
        refresh_derived(store)
    return {
        "recipes": rep["recipes"],
        "steps": rep["steps"],
        "seconds": round(secs, 2),
        "recipes_per_s": round(rep["recipes"] / secs, 1),
        # sampled every 0.2 s: the last fraction of a second of each process may be missing
        "main_cpu_seconds": round(main_cpu, 2),
        "other_cpu_seconds": round(sum(seen.values()), 2),  # parse workers and the server that starts them
        "refresh_seconds": round(time.perf_counter() - t1, 2),
    }


def wait_for_quiet(limit: float, patience: float) -> float:
    """Wait (up to ``patience`` seconds) until the 1-minute load average is under ``limit``; returns it.

    On a shared machine the other processes' load skews the ratio (an oversubscribed CPU gives the ingest's
    loading process a share of its own, which a pool of parse workers alone does not get), so runs are
    best started quiet; the load is saved with each run either way."""
    deadline = time.monotonic() + patience
    while os.getloadavg()[0] >= limit and time.monotonic() < deadline:
        time.sleep(10)
    return os.getloadavg()[0]


def one_run(path: Path, workers: int, work: Path, i: int, pool_limit: int | None = None) -> dict:
    """Pool then end to end, back to back; the load average before each."""
    load_pool = os.getloadavg()
    pool = pool_rate(path, workers, pool_limit)
    load_e2e = os.getloadavg()
    e2e = e2e_rate(path, workers, work / f"ratio{i}" / "db")
    return {
        "pool": pool,
        "e2e": e2e,
        "ratio": round(e2e["recipes_per_s"] / pool["recipes_per_s"], 3),
        # CPU per recipe, pool / end to end: the ratio a quiet machine would show were the loading process
        # perfectly overlapped with parsing; far less sensitive to other work on the machine than ``ratio``
        "cpu_ratio": round(
            (pool["cpu_seconds"] / pool["recipes"])
            / ((e2e["main_cpu_seconds"] + e2e["other_cpu_seconds"]) / e2e["recipes"]),
            3,
        ),
        "loadavg_before_pool": [round(x, 2) for x in load_pool],
        "loadavg_before_e2e": [round(x, 2) for x in load_e2e],
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="xiachufang", help="xiachufang, or a synthetic corpus size")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work", type=Path, default=None, help="scratch dir (default: a temp dir)")
    ap.add_argument("--save", default=None, help="merge into benchmarks/results/ingest.json as ratio_KEY")
    ap.add_argument("--note", default="", help="a line saved with the runs (the code measured, the machine)")
    ap.add_argument("--quiet-load", type=float, default=0.0, help="before each run, wait for a load average under this")
    ap.add_argument("--pool-limit", type=int, default=None, help="records the pool parses (default: all)")
    ap.add_argument("--patience", type=float, default=300, help="seconds to wait for --quiet-load at most")
    a = ap.parse_args()
    work = a.work or Path(tempfile.mkdtemp(prefix="dishgraph-ratio-"))
    work.mkdir(parents=True, exist_ok=True)
    path = corpus_path(a.corpus, work)
    runs = []
    for i in range(a.runs):
        if a.quiet_load:
            wait_for_quiet(a.quiet_load, a.patience)
        run = one_run(path, a.workers, work, i, a.pool_limit)
        runs.append(run)
        print(json.dumps(run), flush=True)
    res = {
        "corpus": a.corpus,
        "workers": a.workers,
        "cpus": os.cpu_count(),
        "runs": runs,
        "median_ratio": statistics.median(r["ratio"] for r in runs),
        "median_pool_recipes_per_s": statistics.median(r["pool"]["recipes_per_s"] for r in runs),
        "median_e2e_recipes_per_s": statistics.median(r["e2e"]["recipes_per_s"] for r in runs),
        "measured": time.strftime("%Y-%m-%d %H:%M"),
        **({"note": a.note} if a.note else {}),
    }
    print(json.dumps({k: v for k, v in res.items() if k != "runs"}, indent=1, ensure_ascii=False))
    if a.save:
        out = ROOT / "benchmarks/results/ingest.json"
        saved = json.loads(out.read_text(encoding="utf-8"))
        saved[f"ratio_{a.save}"] = res
        out.write_text(json.dumps(saved, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
