"""Where an end-to-end ingest spends its time: wall and CPU of each part of the loading process.

Wraps the loader's and the store's functions with timers (no profiler: it inflates per-call Python) and
runs ``ingest_corpus`` then ``refresh_derived`` into a fresh database, as ``dishgraph ingest corpus`` does.
``result.get (wait)`` is the time the loading process waits for parse workers (its CPU there is unpickling
their rows). Nested parts are included in their callers (``_copy`` in ``copy_steps`` in ``load_steps`` in
``write_parsed``). ``timeline_first_last`` gives when each part first began and last ended (seconds from the
script's start): what runs before the workers have their first batch, and what is left after the last.

    OMP_NUM_THREADS=1 python benchmarks/profile_ingest.py [--workers 2] [--corpus PATH] [--db DIR]
        [--load-batch N] [--no-refresh]
"""

from __future__ import annotations

import argparse
import collections
import functools
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TIMES: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0, -1.0, 0.0])
T0 = time.perf_counter()  # the timeline's zero: first and last seconds of each part are counted from here


def timed(owner, name: str, label: str | None = None) -> None:
    """Replace ``owner.name`` by a wrapper that adds its wall and CPU seconds to ``TIMES[label]``."""
    f = getattr(owner, name)
    label = label or name

    @functools.wraps(f)
    def wrapper(*a, **k):
        w0, c0 = time.perf_counter(), time.process_time()
        try:
            return f(*a, **k)
        finally:
            t = TIMES[label]
            t[3] = w0 - T0 if t[3] < 0 else t[3]
            t[4] = time.perf_counter() - T0
            t[0] += time.perf_counter() - w0
            t[1] += time.process_time() - c0
            t[2] += 1

    setattr(owner, name, wrapper)


def instrument() -> None:
    import multiprocessing.pool as mpp

    from dishgraph.graph import ladybug_store
    from dishgraph.ingest import loader, pipeline
    from dishgraph.knowledge import frequencies

    for name in ("load_dishes", "load_recipes", "existing_recipe_lines", "write_parsed", "mark_parsed"):
        timed(loader, name)
    for name in ("load_glossary", "load_proto_actions", "load_steps", "copy_steps", "_lookup", "_ensure_classes"):
        timed(loader, name)
    for name in ("write_parsed", "mark_parsed"):  # the pipeline's own references
        setattr(pipeline, name, getattr(loader, name))
    timed(loader.ParsedRows, "concat")
    timed(pipeline, "_submit")
    timed(mpp.MapResult, "get", "result.get (wait)")
    timed(ladybug_store.LadybugStore, "_copy")
    timed(ladybug_store.LadybugStore, "_checkpoint")
    timed(frequencies, "refresh_stale_uses")
    timed(loader, "copy_proto_actions")
    timed(loader, "_proto_rows")
    timed(loader, "mark_culinary")
    pipeline.mark_culinary = loader.mark_culinary
    timed(ladybug_store, "_write_csv")
    from dishgraph.graph import arrow_copy

    timed(arrow_copy, "write_table_parquet")
    ladybug_store.write_table_parquet = arrow_copy.write_table_parquet
    timed(ladybug_store.LadybugStore, "_copy_frame")
    timed(ladybug_store.LadybugStore, "write", "store.write (logged)")
    timed(ladybug_store.LadybugStore, "query", "store.query")
    timed(pipeline, "_start_parsers")
    timed(pipeline, "worker_context")
    from dishgraph.ingest import corpus

    timed(corpus._CorpusLoad, "without_duplicates")


def main() -> None:
    from dishgraph import config

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--corpus", type=Path, default=config.data_dir() / "xiachufang" / "recipes.jsonl")
    ap.add_argument("--load-batch", type=int, default=None, help="parsed recipes per load (default: the ingest's)")
    ap.add_argument("--no-refresh", action="store_true", help="the ingest alone, as `ingest corpus --no-refresh`")
    ap.add_argument("--db", type=Path, default=None, help="directory for the database (default: a temp dir)")
    a = ap.parse_args()
    instrument()
    from dishgraph.graph.ladybug_store import LadybugStore
    from dishgraph.ingest import corpus
    from dishgraph.ingest.glossary import Glossary
    from dishgraph.knowledge.derived import refresh_derived

    glossary = Glossary.load(config.data_dir() / "counterfactual" / "glossary.json")
    where = a.db or Path(tempfile.mkdtemp(prefix="dishgraph-profile-"))
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    load0 = os.getloadavg()[0]
    w0, c0 = time.perf_counter(), time.process_time()
    print(f"start at {w0 - T0:.2f} s", file=sys.stderr)
    with LadybugStore(where / "db") as store:
        rep = corpus.ingest_corpus(
            store, a.corpus, glossary, workers=a.workers, show_progress=False, load_batch=a.load_batch
        )
        w1 = time.perf_counter()
        if not a.no_refresh:
            refresh_derived(store)
    wall = time.perf_counter() - w0
    out = {
        "workers": a.workers,
        "recipes": rep.recipes,
        "steps": rep.steps,
        "seconds": round(wall, 1),
        "ingest_seconds": round(w1 - w0, 1),
        "main_cpu_seconds": round(time.process_time() - c0, 1),
        "recipes_per_s": round(rep.recipes / wall, 1),
        "loadavg": [round(load0, 2), round(os.getloadavg()[0], 2)],
        "parts_wall_cpu_calls": {
            k: [round(v[0], 2), round(v[1], 2), v[2]] for k, v in sorted(TIMES.items(), key=lambda kv: -kv[1][0])
        },
        # seconds from the start of the script: when each part first began and last ended
        "timeline_first_last": {
            k: [round(v[3], 2), round(v[4], 2)] for k, v in sorted(TIMES.items(), key=lambda kv: kv[1][3])
        },
    }
    print(json.dumps(out, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
