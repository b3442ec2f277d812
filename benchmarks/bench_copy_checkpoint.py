"""Why large embedded loads slowed down, and why COPY from a data frame is not the default.

Two measurements on a bare LadybugDB table (no dishgraph code involved):

* ``checkpoint``: time of a 400k-row COPY as the table grows, with Ladybug's automatic checkpoint after
  every COPY versus checkpoints deferred (what ``GraphStore.bulk_session`` does). The automatic one grows
  with the table even without a hash index (SERIAL key), so it is the checkpoint, not the index.
* ``memory``: resident memory after each 200k-row COPY from a temp CSV file versus from a pandas frame.

    OMP_NUM_THREADS=1 python benchmarks/bench_copy_checkpoint.py [--rounds 20] \
        [--out benchmarks/results/copy_checkpoint.json]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import tempfile
import time
from pathlib import Path

import ladybug
import numpy as np
import pandas as pd


def rss_gb() -> float:
    return round(int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e9, 3)


def copy_times(rounds: int, deferred: bool, per: int = 400_000) -> list[float]:
    with tempfile.TemporaryDirectory() as d:
        db = ladybug.Database(str(Path(d) / "db"), auto_checkpoint=not deferred)
        conn = ladybug.Connection(db)
        conn.execute("CREATE NODE TABLE T(id SERIAL, v INT64, PRIMARY KEY(id))")
        out = []
        for _ in range(rounds):
            rows = pd.DataFrame({"v": np.arange(per, dtype=np.int64)})
            t0 = time.perf_counter()
            conn.execute("COPY T FROM $rows", {"rows": rows})
            out.append(round(time.perf_counter() - t0, 3))
        t0 = time.perf_counter()
        conn.execute("CHECKPOINT")
        out.append(round(time.perf_counter() - t0, 3))  # the deferred checkpoint, paid once
        conn.close()
        db.close()
    return out


def memory(rounds: int, source: str, per: int = 200_000) -> list[float]:
    with tempfile.TemporaryDirectory() as d:
        db = ladybug.Database(str(Path(d) / "db"), buffer_pool_size=1 << 30)
        conn = ladybug.Connection(db)
        conn.execute("CREATE NODE TABLE T(id STRING, s STRING, PRIMARY KEY(id))")
        out = []
        for k in range(rounds):
            ids = np.array([f"bench:{i:016x}#{i % 20}" for i in range(k * per, (k + 1) * per)], dtype=object)
            rows = pd.DataFrame({"id": ids, "s": np.array(["切成丝放入锅中" * 5] * per, dtype=object)})
            if source == "csv":
                path = Path(d) / "rows.csv"
                rows.to_csv(path, index=False)
                conn.execute(f"COPY T FROM '{path}' (HEADER=true)")
            else:
                conn.execute("COPY T FROM $rows", {"rows": rows})
            del rows, ids
            gc.collect()
            out.append(rss_gb())
        conn.close()
        db.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/copy_checkpoint.json"))
    a = ap.parse_args()
    res = {
        "ladybug": ladybug.__version__,
        "copy_400k_rows_seconds_auto_checkpoint": copy_times(a.rounds, deferred=False),
        "copy_400k_rows_seconds_deferred_checkpoint": copy_times(a.rounds, deferred=True),
        "rss_gb_after_each_200k_rows_csv": memory(a.rounds // 2, "csv"),
        "rss_gb_after_each_200k_rows_frame": memory(a.rounds // 2, "frame"),
        "note": "the last entry of each copy_* list is the time of one explicit CHECKPOINT after all rounds",
        "loadavg": os.getloadavg(),
        "measured": time.strftime("%Y-%m-%d %H:%M"),
    }
    a.out.write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
