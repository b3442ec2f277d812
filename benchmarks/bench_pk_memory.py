"""Memory a LadybugDB node table keeps per row, by the type of its primary key (issue #30).

Why: the loader's heap after each checkpoint grows by about 270 bytes per Step (benchmarks/bench_memory.py),
and Step's key is a ~31-byte string (``{recipe id}#{pos}``). This isolates the key: it COPYs N rows of the
Step shape in batches of B, as the loader's delta COPYs do, checkpoints every C batches, returns the freed
heap (``malloc_trim``) and records, after each checkpoint, glibc's heap in use (``mallinfo2``: what the
engine allocates outside its buffer pool) and RSS (which also counts the buffer pool's pages as it fills
them, up to its 1 GiB). Kinds:

- ``long``: a 31-byte string key (today's Step id);
- ``short``: a 15-byte string key (fits ``std::string``'s inline buffer);
- ``int``: an INT64 key;
- ``int+id``: an INT64 key with today's string id as a plain column (what a schema change would keep).

    python benchmarks/bench_pk_memory.py --rows 2000000            # all kinds, ~7 minutes on 2 cores
    python benchmarks/bench_pk_memory.py --rows 2000000 --save     # into benchmarks/results/ingest.json
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

import ladybug
from bench_memory import _LIBC, rss_mb  # glibc's mallinfo2 (Linux only); bench_memory puts the repo on sys.path

from dishgraph.graph.ladybug_store import _return_freed_heap  # what the store does after each checkpoint

KINDS = ("long", "short", "int", "int+id")
RESULTS = Path(__file__).parent / "results" / "ingest.json"


def _heap_mb() -> float:
    info = _LIBC.mallinfo2()
    return (int(info.uordblks) + int(info.hblkhd)) / 2**20  # small blocks in use + malloc's own mmaps


def _per_row(series: list, rows_between: int) -> float | None:
    return round((series[-1] - series[0]) * 2**20 / (rows_between * (len(series) - 1)), 1) if len(series) > 1 else None


def _row(kind: str, i: int) -> str:
    recipe, pos = divmod(i, 20)  # about 20 steps a recipe, as in the corpora
    long_id = f"xiachufang:{recipe:016x}#{pos}"
    key = {"long": long_id, "short": f"{recipe:011x}#{pos}"[-15:], "int": str(i), "int+id": str(i)}[kind]
    extra = f",{long_id}" if kind == "int+id" else ""
    return f"{key}{extra},{recipe:016x},{pos}\n"


def measure(
    kind: str, rows: int, batch: int, per_checkpoint: int, work: Path, with_next: bool = False, fwd_only: bool = False
) -> dict:
    db = ladybug.Database(str(work / f"db-{kind}"), buffer_pool_size=1 << 30)
    conn = ladybug.Connection(db)
    key_type = "STRING" if kind in ("long", "short") else "INT64"
    id_col = ", id STRING" if kind == "int+id" else ""
    conn.execute(f"CREATE NODE TABLE S(k {key_type}{id_col}, recipe STRING, pos INT64, PRIMARY KEY (k))")
    if with_next:  # the NEXT chain between a recipe's steps, COPYed after each batch as the loader does
        # fwd_only: the engine stores the rel one way only (no backward index): what that saves
        conn.execute("CREATE REL TABLE N(FROM S TO S)" + (" WITH (storage_direction = 'fwd')" if fwd_only else ""))
    csv, rel_csv = work / "batch.csv", work / "next.csv"
    rss, heap, t0 = [], [], time.time()
    for b in range(rows // batch):
        csv.write_text("".join(_row(kind, i) for i in range(b * batch, (b + 1) * batch)))
        conn.execute(f"COPY S FROM '{csv}' (header=false)")
        if with_next:
            keys = [_row(kind, i).split(",", 1)[0] for i in range(b * batch, (b + 1) * batch)]
            rel_csv.write_text("".join(f"{a},{c}\n" for n, (a, c) in enumerate(zip(keys, keys[1:])) if (n + 1) % 20))
            conn.execute(f"COPY N FROM '{rel_csv}' (header=false)")
        if (b + 1) % per_checkpoint == 0:
            conn.execute("CHECKPOINT")
            _return_freed_heap()
            rss.append(rss_mb())
            heap.append(round(_heap_mb(), 1))
    return {
        "kind": kind + (" + NEXT" if with_next else "") + (" (fwd only)" if with_next and fwd_only else ""),
        "rows": rows,
        "heap_mb_after_each_checkpoint": heap,
        "heap_bytes_per_row": _per_row(heap, batch * per_checkpoint),
        "rss_mb_after_each_checkpoint": rss,
        "rss_bytes_per_row": _per_row(rss, batch * per_checkpoint),
        "seconds": round(time.time() - t0, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--batch", type=int, default=10_000)
    ap.add_argument("--per-checkpoint", type=int, default=40)
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--with-next", action="store_true", help="also COPY a NEXT chain (rel table) per batch")
    ap.add_argument("--fwd-only", action="store_true", help="store NEXT forward only (storage_direction='fwd')")
    ap.add_argument("--save", action="store_true", help="write the figures into benchmarks/results/ingest.json")
    args = ap.parse_args()
    out = []
    for kind in args.kinds.split(","):
        work = Path(tempfile.mkdtemp(prefix="pkmem-"))
        try:
            r = measure(kind, args.rows, args.batch, args.per_checkpoint, work, args.with_next, args.fwd_only)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        print(json.dumps(r), flush=True)
        out.append(r)
    if args.save:  # one entry per kind: a later run (e.g. --with-next) replaces its kinds, keeps the others
        data = json.loads(RESULTS.read_text(encoding="utf-8"))
        old = data.get("pk_memory", {}).get("runs", [])
        data["pk_memory"] = {
            "what": "heap (mallinfo2) and RSS growth per row of a node table by primary-key type (batched "
            "COPYs, checkpoint + malloc_trim every per_checkpoint batches; from the first checkpoint to the last)",
            "command": f"python benchmarks/bench_pk_memory.py --rows {args.rows} --batch {args.batch} "
            f"--per-checkpoint {args.per_checkpoint} [--with-next [--fwd-only]] --save",
            "runs": [r for r in old if r["kind"] not in {o["kind"] for o in out}] + out,
        }
        RESULTS.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
