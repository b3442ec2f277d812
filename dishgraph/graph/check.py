"""`dishgraph db check`: is the database whole? Like ``neo4j-admin database check`` or sqlite's
``PRAGMA integrity_check``, for the embedded database.

Three readings, each reported on its own:

* **checksum**: the file against the SHA-256 its last writer recorded (`graph.checksum`): any byte changed
  since is found, whether or not the engine would notice;
* **markers**: checkpoint files left beside it (an interrupted checkpoint: `db recover`), and commands that
  began writing and never finished (killed): their work may be half there;
* **structure and content**: every table of the schema read whole through the engine's own scan (every
  node label, every relationship type per end pair, ends joined to their nodes), its rows counted against
  the engine's count and folded into a content fingerprint: a multiset hash of the rows, so it does not
  depend on where the engine keeps them. Two databases with the same fingerprint hold the same graph; a
  command that failed must leave it unchanged.

The scan runs in a child process: a damaged file can crash the engine itself (SIGSEGV), and a check must then
say so rather than die with it.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from dishgraph.graph import checksum
from dishgraph.graph.ladybug_store import database_file, pending_files

MASK = (1 << 64) - 1


def _row_hash(row: tuple[Any, ...]) -> int:
    text = json.dumps(row, ensure_ascii=False, separators=(",", ":"), default=repr)
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")


def scan(path: Path) -> dict[str, Any]:
    """Every table read whole (in this process): {tables: [{name, rows, counted, fingerprint}], problems}."""
    from dishgraph.graph.export_scan import count_rows, iter_batches, scan_to_parquet, scratch_dir, table_specs
    from dishgraph.graph.ladybug_store import LadybugStore

    tables, problems = [], []
    store = LadybugStore(path, read_only=True, verify_checksum=False, wait=0)
    try:
        with scratch_dir() as tmp:
            for spec in table_specs():
                try:
                    counted = count_rows(store, spec)
                    total, rows = 0, 0
                    for batch in iter_batches(scan_to_parquet(store, spec, tmp), spec):
                        cols = [c.to_pylist() for c in batch.columns]
                        for row in zip(*cols):
                            total = (total + _row_hash(row)) & MASK
                            rows += 1
                except Exception as e:  # the engine's own error on a damaged table, reported by name
                    problems.append(f"{spec.name}: cannot be read ({' '.join(str(e).split())[:300]})")
                    continue
                if rows != counted:
                    problems.append(f"{spec.name}: {rows:,} rows read, the engine counts {counted:,}")
                tables.append({"name": spec.name, "rows": rows, "fingerprint": f"{total:016x}"})
    finally:
        store.close()
    return {"tables": tables, "problems": problems}


def fingerprint(tables: list[dict[str, Any]]) -> str:
    h = hashlib.sha256()
    for t in tables:
        h.update(f"{t['name']}\t{t['rows']}\t{t['fingerprint']}\n".encode())
    return h.hexdigest()


def check_database(db: str | os.PathLike[str], *, quick: bool = False) -> dict[str, Any]:
    """The report of `db check` (``quick``: checksum and markers only, no scan); ``ok`` is False when anything
    is wrong, each problem one line in ``problems``."""
    path = database_file(db)
    if not path.is_file():
        from dishgraph.errors import DatabaseError, nearest_path

        raise DatabaseError(f"{path}: no database here{nearest_path(str(path))}")
    from dishgraph.graph.lock import ProcessLock

    lock = ProcessLock(path.with_name(path.name + ".lock"), shared=True)
    lock.acquire(None)  # no writer meanwhile: the checksum and the scan see one state
    try:
        return _check(path, quick)
    finally:
        lock.release()


def _check(path: Path, quick: bool) -> dict[str, Any]:
    problems: list[str] = []
    state = checksum.read(path)
    pending = pending_files(path)
    if pending:
        problems.append(f"an interrupted checkpoint left {', '.join(pending)}: run `dishgraph db recover --db {path}`")
    unfinished = list((state or {}).get("unfinished") or [])
    if state and state.get("writing"):
        unfinished.append(state["writing"])
    for e in unfinished:
        problems.append(f"{checksum.describe(e)} did not finish writing: run it again to finish it")
    if state is None or not state.get("sha256"):
        sums = "none recorded (a database written before checksums, or by a writer that did not finish)"
    else:
        try:
            if not (state.get("writing") or pending):
                checksum.verify(path, state)
            sums = f"matches ({state['sha256'][:16]}…, recorded {state.get('recorded', '?')})"
        except checksum.DatabaseDamaged:
            sums = f"DIFFERS from the one recorded at {state.get('recorded', '?')}"
            problems.append(
                "the file's SHA-256 differs from the checksum its last writer recorded: damaged, or written by "
                "another program"
            )
    report: dict[str, Any] = {"database": str(path), "checksum": sums, "unfinished": unfinished, "pending": pending}
    if not quick and not pending:
        done = subprocess.run(
            [sys.executable, "-m", "dishgraph.graph.check", str(path)], capture_output=True, text=True
        )
        if done.returncode == 0:
            found = json.loads(done.stdout)
            problems += found["problems"]
            report["tables"] = found["tables"]
            report["fingerprint"] = fingerprint(found["tables"])
            rows = sum(t["rows"] for t in found["tables"])
            report["summary"] = (
                f"{len(found['tables'])} read whole, {rows:,} rows; fingerprint {report['fingerprint'][:16]}…"
            )
        else:
            why = f"signal {-done.returncode}" if done.returncode < 0 else f"exit {done.returncode}"
            last = (done.stderr.strip().splitlines() or [""])[-1][:300]
            problems.append(f"reading the tables stopped the engine ({why}{': ' + last if last else ''}): damaged")
    report["problems"] = problems
    report["ok"] = not problems
    return report


def accept_database(db: str | os.PathLike[str]) -> str:
    """`db check --accept`: record the file's content as good and forget the commands marked unfinished
    (under the writer's lock, so no writer is running meanwhile); what was done, in words."""
    from dishgraph.graph.lock import ProcessLock

    path = database_file(db)
    if not path.is_file():
        from dishgraph.errors import DatabaseError, nearest_path

        raise DatabaseError(f"{path}: no database here{nearest_path(str(path))}")
    lock = ProcessLock(path.with_name(path.name + ".lock"))
    lock.acquire(None)
    try:
        digest = checksum.accept(path)
    finally:
        lock.release()
    return f"{path}: content recorded as good (SHA-256 {digest[:16]}…); no command marked unfinished"


if __name__ == "__main__":  # the child process of check_database: the scan, as JSON on stdout
    print(json.dumps(scan(Path(sys.argv[1])), ensure_ascii=False))
