"""Export rates and sizes: `dishgraph export neo4j-import` and `dishgraph export tables` on built databases.

Each (database, format) runs in its own process, so its peak RSS (``resource.getrusage``) is its own; the
output directory is measured and removed afterwards. Databases are built beforehand (the release with
``dishgraph ingest counterfactual``, synthetic corpora with ``benchmarks/synth_corpus.py`` and
``dishgraph ingest corpus``), because building a 1M-recipe database takes half an hour.

    OMP_NUM_THREADS=1 nice -n 5 python benchmarks/bench_export.py --db release=/tmp/rel --db 100k=/tmp/db100k

Results merge into ``benchmarks/results/export.json`` (one entry per database label and format), each with
the machine's load average before and after, since the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "benchmarks" / "results" / "export.json"
FORMATS = ("neo4j-gz", "neo4j-csv", "parquet", "csv-gz")


def _loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def _dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def child(db: str, fmt: str, out: Path, buffer_pool_mb: int = 0) -> dict:
    from dishgraph.graph.export_neo4j import export_neo4j_import
    from dishgraph.graph.export_tables import export_tables
    from dishgraph.graph.ladybug_store import LadybugStore

    with LadybugStore(db, read_only=True, buffer_pool_bytes=buffer_pool_mb * 2**20 or None) as store:
        counts = store.counts()
        t0 = time.perf_counter()
        if fmt.startswith("neo4j"):
            rep = export_neo4j_import(store, out, compress=fmt == "neo4j-gz")
            files = {f.name: {"rows": f.rows, "bytes": f.bytes, "seconds": f.seconds} for f in rep.files}
            extra = {"multiline_fields": rep.multiline, "empty_lists": rep.empty_lists, "null_lists": rep.null_lists}
        else:
            rep = export_tables(store, out, "parquet" if fmt == "parquet" else "csv", compress=True)
            files = {t.file: {"rows": t.rows, "bytes": t.bytes, "seconds": t.seconds} for t in rep.tables if t.rows}
            extra = {}
        secs = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "format": fmt,
        "recipes": counts["nodes"]["Recipe"],
        "steps": counts["nodes"]["Step"],
        "buffer_pool_mb": buffer_pool_mb or "default",
        "rows": rep.rows,
        "seconds": round(secs, 1),
        "rows_per_s": round(rep.rows / secs),
        "bytes": rep.bytes,
        "output_dir_bytes": _dir_bytes(out),
        "peak_rss_mb": round(peak, 1),
        **extra,
        "files": files,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", action="append", default=[], help="LABEL=PATH of a built embedded database")
    ap.add_argument("--formats", default="neo4j-gz,parquet", help=f"comma-separated, of {', '.join(FORMATS)}")
    ap.add_argument("--work", type=Path, default=Path("/tmp/dishgraph-bench-export"))
    ap.add_argument(
        "--buffer-pool-mb",
        type=int,
        default=512,
        help="engine page-cache cap for the neo4j formats, as `export neo4j-import` (0: engine default)",
    )
    ap.add_argument("--child", nargs=4, metavar=("DB", "FORMAT", "OUT", "POOL"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(child(a.child[0], a.child[1], Path(a.child[2]), int(a.child[3]))))
        return
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results.setdefault(
        "machine",
        {
            "cpus": os.cpu_count(),
            "note": "shared machine: 2 cores, 4 other engineers; see load_before / load_after of each entry",
        },
    )
    for spec in a.db:
        label, _, path = spec.partition("=")
        for fmt in a.formats.split(","):
            out = a.work / f"{label}-{fmt}"
            shutil.rmtree(out, ignore_errors=True)
            before = _loadavg()
            pool = a.buffer_pool_mb if fmt.startswith("neo4j") else 0  # tables join: engine default, as the CLI
            proc = subprocess.run(
                [sys.executable, __file__, "--child", path, fmt, str(out), str(pool)], capture_output=True, text=True
            )
            if proc.returncode:
                sys.exit(f"{label} {fmt}: {proc.stderr.strip().splitlines()[-1] if proc.stderr else proc.returncode}")
            entry = json.loads(proc.stdout.strip().splitlines()[-1])
            entry.update(
                {
                    "database": label,
                    "load_before": before,
                    "load_after": _loadavg(),
                    "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                }
            )
            results[
                f"{label}/{fmt}" + ("" if pool == 512 or not fmt.startswith("neo4j") else f"/pool-{pool or 'default'}")
            ] = entry
            shutil.rmtree(out, ignore_errors=True)
            print(json.dumps({k: v for k, v in entry.items() if k != "files"}))
            RESULTS.parent.mkdir(parents=True, exist_ok=True)
            RESULTS.write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n")


if __name__ == "__main__":
    main()
