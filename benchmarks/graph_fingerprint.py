"""A content fingerprint of a whole graph: per node label and relationship type, the row count and a sha256
of every row (properties, and for relationships both ends by their keys), sorted.

An ingest change that claims "the same graph" is checked with this: run the old and the new code into fresh
databases and compare (``python benchmarks/graph_fingerprint.py DB_A DB_B``). Internal ids are left out
(they depend on write order); property values are compared as the engine returns them.

    python benchmarks/graph_fingerprint.py /tmp/a/db [/tmp/b/db]
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _digest(rows: list) -> str:
    lines = sorted(json.dumps(r, ensure_ascii=False, sort_keys=True, default=str) for r in rows)
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def fingerprint(db: str | Path) -> dict[str, list]:
    """{table: [rows, sha256]} of every node label and relationship type of the schema (read-only open).

    Each query names its properties and both end labels (all from the schema whitelist, never from input):
    returning whole nodes would carry every column of every table and takes minutes on a demo graph."""
    from dishgraph.graph import schema
    from dishgraph.graph.ladybug_store import LadybugStore

    keys = {n.label: n.key for n in schema.NODES}
    out: dict[str, list] = {}
    with LadybugStore(db, read_only=True) as store:
        for node in schema.NODES:
            cols = ", ".join(f"n.`{p}` AS `{p}`" for p in node.props)
            rows = store.execute(f"MATCH (n:{node.label}) RETURN {cols}")
            out[node.label] = [len(rows), _digest(rows)]
        for rel in schema.REL_BY_TYPE.values():
            rows = []
            for src, dst in rel.ends:
                props = "".join(f", r.`{p}` AS `{p}`" for p in rel.props)
                query = (
                    f"MATCH (a:{src})-[r:{rel.type}]->(b:{dst}) RETURN a.{keys[src]} AS a, b.{keys[dst]} AS b{props}"
                )
                rows += [{"from": src, "to": dst, **r} for r in store.execute(query)]
            out[rel.type] = [len(rows), _digest(rows)]
    return out


def main() -> None:
    prints = [fingerprint(db) for db in sys.argv[1:]]
    if len(prints) == 1:
        print(json.dumps(prints[0], indent=1))
        return
    a, b = prints
    diff = {t: (a.get(t), b.get(t)) for t in sorted(set(a) | set(b)) if a.get(t) != b.get(t)}
    for t, (x, y) in diff.items():
        print(f"{t}: {x} != {y}")
    print("identical" if not diff else f"{len(diff)} table(s) differ")
    sys.exit(1 if diff else 0)


if __name__ == "__main__":
    main()
