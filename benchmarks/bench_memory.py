"""Where an ingest's memory goes: resident memory, the C heap in use and what each checkpoint frees.

`ingest_corpus` of a JSONL corpus (2 parse workers, the CLI's 1 GiB page-cache cap) with a thread sampling
the loader's resident memory, Python's allocated blocks and glibc's heap in use (``mallinfo2``) every 10 s,
and each checkpoint's heap and RSS before and after. Python's blocks stay flat between loads while the heap
left after each checkpoint grows with the rows loaded, so the loader's floor grows with the steps in the
graph. What the engine keeps is mostly per relationship row (``benchmarks/bench_pk_memory.py``: about 135
bytes each, stored both ways) and per unique long string (about 38 bytes); a Step brings three relationships.

    OMP_NUM_THREADS=1 python benchmarks/bench_memory.py CORPUS.jsonl --db /tmp/mem/db --out mem.json

Linux with glibc only (``mallinfo2``).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (n, ctypes.c_size_t)
        for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks")
        + ("fsmblks", "uordblks", "fordblks", "keepcost")
    ]


_LIBC = ctypes.CDLL("libc.so.6")
_LIBC.mallinfo2.restype = _MallInfo2


def heap_mb() -> int:
    return int(_LIBC.mallinfo2().uordblks) >> 20


def rss_mb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS"):
            return int(line.split()[1]) // 1024
    return -1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--db", type=Path, required=True, help="a fresh database path (removed first)")
    ap.add_argument("--buffer-pool-mb", type=int, default=1024)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()

    from dishgraph.eval.outputs import crg_dir
    from dishgraph.graph.ladybug_store import LadybugStore
    from dishgraph.ingest.corpus import ingest_corpus
    from dishgraph.ingest.glossary import Glossary

    a.db.parent.mkdir(parents=True, exist_ok=True)
    for p in a.db.parent.glob(a.db.name + "*"):
        p.unlink()
    samples: list[dict] = []
    checkpoints: list[dict] = []
    t0 = time.perf_counter()
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            samples.append(
                {
                    "s": round(time.perf_counter() - t0),
                    "rss_mb": rss_mb(),
                    "heap_mb": heap_mb(),
                    "py_blocks_m": round(sys.getallocatedblocks() / 1e6, 2),
                }
            )
            stop.wait(10)

    checkpoint = LadybugStore._checkpoint

    def timed_checkpoint(self) -> None:  # the store's own checkpoint (which returns the freed heap), measured
        h0, r0, t = heap_mb(), rss_mb(), time.perf_counter()
        checkpoint(self)
        checkpoints.append(
            {
                "s": round(t - t0),
                "seconds": round(time.perf_counter() - t, 1),
                "heap_mb": [h0, heap_mb()],
                "rss_mb": [r0, rss_mb()],
            }
        )
        print(checkpoints[-1], flush=True)

    LadybugStore._checkpoint = timed_checkpoint  # type: ignore[method-assign]
    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    glossary = Glossary.load(crg_dir() / "glossary.json")
    with LadybugStore(a.db, buffer_pool_bytes=a.buffer_pool_mb * 2**20) as store:
        rep = ingest_corpus(store, a.corpus, glossary, workers=a.workers, show_progress=False)
    stop.set()
    result = {
        "corpus": str(a.corpus),
        "recipes": rep.recipes,
        "steps": rep.steps,
        "seconds": round(time.perf_counter() - t0, 1),
        "buffer_pool_mb": a.buffer_pool_mb,
        "peak_rss_mb": max(s["rss_mb"] for s in samples) if samples else None,
        "heap_after_each_checkpoint_mb": [c["heap_mb"][1] for c in checkpoints],
        "checkpoints": checkpoints,
        "samples": samples,
        "measured": time.strftime("%Y-%m-%d %H:%M"),
        "loadavg_after": os.getloadavg(),
    }
    a.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k not in ("samples", "checkpoints")}))


if __name__ == "__main__":
    main()
