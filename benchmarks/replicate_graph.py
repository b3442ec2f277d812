"""A larger graph in minutes: the corpus part of a built graph, replicated k times under new dish names.

Why: building a 1M-recipe database through the ingest pipeline takes ~30 min of two idle cores (README;
on the shared machine over an hour), while measuring the exporters needs a graph of that size and
shape, not new parses. Each copy i >= 1 gets every Dish, Recipe and Step again with ``~i`` appended to
their keys (and to Recipe.dish / Step.recipe), with their HAS_RECIPE, HAS_STEP, NEXT, INSTANCE_OF and USES
edges; proto-actions, glossary classes and forms, dish pairs and everything else stay shared, as they are
in a real corpus (where new recipes reuse the same proto-actions). Loaded with Ladybug's COPY from
Parquet (the tables of ``dishgraph export tables``).

    python benchmarks/replicate_graph.py --source /tmp/db100k --copies 10 --out /tmp/db1m-replicated
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

REPLICATED_NODES = {"Dish": ("name",), "Recipe": ("id", "dish"), "Step": ("id", "recipe")}
REPLICATED_RELS = {
    "HAS_RECIPE": ("src", "dst"),
    "HAS_STEP": ("src", "dst"),
    "NEXT": ("src", "dst"),
    "INSTANCE_OF": ("src",),
    "USES": ("src",),
}


def replicate(source: Path, out: Path, copies: int, work: Path) -> dict:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from dishgraph.graph import schema
    from dishgraph.graph.export_tables import export_tables
    from dishgraph.graph.ladybug_store import LadybugStore

    t0 = time.perf_counter()
    tables = work / "tables"
    with LadybugStore(source, read_only=True) as s:
        rep = export_tables(s, tables, "parquet", compress=False)
    t_export = time.perf_counter() - t0
    grown = work / "grown"
    grown.mkdir(parents=True, exist_ok=True)
    for p in out.parent.glob(out.name + "*"):
        p.unlink()
    with LadybugStore(out) as target:
        for t in rep.tables:
            if not t.rows:
                continue
            cols = (REPLICATED_NODES if t.kind == "node" else REPLICATED_RELS).get(t.name, ())
            src = pq.ParquetFile(tables / t.file)
            path = grown / t.file
            with pq.ParquetWriter(str(path), src.schema_arrow) as w:
                for i in range(copies if cols else 1):
                    for batch in src.iter_batches(65_536):
                        if i:
                            arrays = [
                                pc.binary_join_element_wise(c, pa.scalar(f"~{i}"), "") if name in cols else c
                                for name, c in zip(batch.schema.names, batch.columns)
                            ]
                            batch = pa.RecordBatch.from_arrays(arrays, schema=batch.schema)
                        w.write_batch(batch)
            if t.kind == "node":
                target.execute(f"COPY {schema.check_label(t.label_or_type)} FROM '{path}'")
            else:
                opts = f" (from='{t.src}', to='{t.dst}')" if t.name != t.label_or_type else ""
                target.execute(f"COPY {schema.check_rel(t.label_or_type)} FROM '{path}'{opts}")
            path.unlink()
        counts = target.counts()
    shutil.rmtree(work, ignore_errors=True)
    return {
        "source": str(source),
        "copies": copies,
        "out": str(out),
        "seconds": round(time.perf_counter() - t0, 1),
        "export_seconds": round(t_export, 1),
        "counts": counts,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", type=Path, required=True)
    ap.add_argument("--copies", type=int, default=10)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--work", type=Path, default=Path("/tmp/dishgraph-replicate"))
    a = ap.parse_args()
    print(json.dumps(replicate(a.source, a.out, a.copies, a.work), ensure_ascii=False))


if __name__ == "__main__":
    main()
