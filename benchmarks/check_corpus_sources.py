"""The two corpora rebuilt from their real upstream files, checked byte for byte (what `data fetch` does,
without the network): reads each source from a bare git mirror of SmartFlowAI/TheGodOfCookery, or from a data
directory's ``.sources/`` after a `dishgraph data fetch`, checks its SHA-256, builds both corpora and compares
their SHA-256 with the pinned ones. Exit 0 only when everything matches.

    python benchmarks/check_corpus_sources.py --mirror /path/to/TheGodOfCookery.git
    python benchmarks/check_corpus_sources.py --data DATA_DIR
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import time
from pathlib import Path

from dishgraph import config
from dishgraph.ingest import corpus_build
from dishgraph.ingest.fetch import SOURCES_DIR


def _read(source: dict, mirror: str | None, data: Path) -> bytes:
    if mirror:
        ref = f"{source['commit']}:{source['path']}"
        return subprocess.run(
            ["git", "--git-dir", mirror, "cat-file", "blob", ref], capture_output=True, check=True
        ).stdout
    return (data / SOURCES_DIR / source["path"]).read_bytes()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", help="bare git directory of the repository")
    ap.add_argument("--data", help="data directory (default: the one dishgraph finds)")
    args = ap.parse_args()
    data = config.data_dir(args.data)
    started = time.perf_counter()
    files: dict[str, bytes] = {}
    for source in corpus_build.SOURCES:
        body = _read(source, args.mirror, data)
        if hashlib.sha256(body).hexdigest() != source["sha256"] or len(body) != source["size"]:
            print(f"source changed: {source['path']}@{source['commit'][:8]}")
            return 1
        files[source["path"]] = body
    base = (data / "counterfactual" / "base_recipes.txt").read_bytes()
    ok = True
    for name, (sha, size) in corpus_build.TARGETS.items():
        t = time.perf_counter()
        built = corpus_build.build(name, files, base)
        match = hashlib.sha256(built).hexdigest() == sha and len(built) == size
        ok &= match
        records = built.count(b"\n")
        verdict = "OK" if match else "MISMATCH"
        print(f"{name:<10} {records:>6} records {len(built):>9} bytes  {verdict}  ({time.perf_counter() - t:.1f} s)")
    print(f"total {time.perf_counter() - started:.1f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
