"""The embedded store for real: schema, persistence, crash safety, the one-writer lock, dialect traps."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from dishgraph.graph import queries, schema
from dishgraph.graph.ladybug_store import LadybugStore
from dishgraph.graph.lock import DatabaseInUse


def test_schema_ddl_covers_every_label_and_type(store):
    counts = store.counts()
    assert set(counts["nodes"]) == {n.label for n in schema.NODES}
    assert set(counts["relationships"]) == {r.type for r in schema.RELS}
    assert all(v == 0 for v in counts["nodes"].values())


def test_whitelist_refuses_unknown_labels():
    with pytest.raises(ValueError, match="not in the dishgraph schema"):
        schema.check_label("Dish) DETACH DELETE (n")
    with pytest.raises(ValueError):
        schema.check_rel("USES]->() //")


def test_parameters_are_data_never_query_text(store):
    hostile = "x'}) MATCH (n) DETACH DELETE n //"
    store.write("load_dishes", [{"name": hostile, "source": "test"}, {"name": "白灼菜心", "source": "test"}])
    rows = store.execute("MATCH (d:Dish) RETURN d.name AS name ORDER BY name")
    assert [r["name"] for r in rows] == sorted([hostile, "白灼菜心"])


def test_floats_and_list_parameters_round_trip_exactly(store):
    rows = store.execute("RETURN $x AS x, size($xs) AS n", {"x": 0.123456789123, "xs": list(range(5000))})
    assert rows == [{"x": 0.123456789123, "n": 5000}]


def test_dialect_traps_are_what_we_think(store):
    """Ladybug lists are 1-based and lack head(): queries must use UNWIND / explicit variants."""
    store.write("load_dishes", [{"name": n, "source": "t"} for n in ("a", "b")])
    assert store.execute("MATCH (d:Dish) WITH d.name AS n ORDER BY n LIMIT 10 "
                         "RETURN collect(n)[1] AS first")[0]["first"] == "a"
    with pytest.raises(RuntimeError, match="HEAD"):
        store.execute("MATCH (d:Dish) RETURN head(collect(d.name)) AS h")


def test_merge_is_idempotent(store):
    rows = [{"name": f"dish{i}", "source": "t"} for i in range(100)]
    store.write("load_dishes", rows, batch_size=7)
    store.write("load_dishes", rows, batch_size=13)
    assert store.counts()["nodes"]["Dish"] == 100


def test_bulk_copy_path_matches_merge_path(tmp_path):
    rows = [{"name": f"d{i}", "source": "bulk"} for i in range(1000)]
    with LadybugStore(tmp_path / "a") as a, LadybugStore(tmp_path / "b") as b:
        a.bulk_load_nodes("Dish", rows)
        b.write("load_dishes", rows)
        q = "MATCH (d:Dish) RETURN d.name AS name, d.source AS source ORDER BY name"
        assert a.execute(q) == b.execute(q)


def test_data_persists_across_processes(tmp_path):
    path = tmp_path / "db"
    with LadybugStore(path) as s:
        s.write("load_dishes", [{"name": "醋溜白菜", "source": "t"}])
    code = textwrap.dedent(f"""
        from dishgraph.graph.ladybug_store import LadybugStore
        with LadybugStore({str(path)!r}, read_only=True) as s:
            print(s.execute("MATCH (d:Dish) RETURN d.name AS n")[0]["n"])
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "醋溜白菜"


def test_second_writer_gets_a_clear_error(tmp_path):
    path = tmp_path / "db"
    code = textwrap.dedent(f"""
        import sys, time
        from dishgraph.graph.ladybug_store import LadybugStore
        s = LadybugStore({str(path)!r})
        print("ready", flush=True)
        sys.stdin.readline()
    """)
    p = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "ready"
        with pytest.raises(DatabaseInUse, match=f"in use by PID {p.pid}"):
            LadybugStore(path)
    finally:
        p.communicate("\n", timeout=30)
    with LadybugStore(path) as s:  # released when the holder exits
        assert s.counts()["nodes"]["Dish"] == 0


BATCH = 2000


def test_sigkill_mid_transaction_leaves_exactly_the_committed_data(tmp_path):
    """A writer killed with SIGKILL mid-transaction: on reopen, every committed batch and nothing else."""
    path = tmp_path / "db"
    code = textwrap.dedent(f"""
        from dishgraph.graph.ladybug_store import LadybugStore
        s = LadybugStore({str(path)!r})
        for i in range(10_000):
            s.write("load_dishes", [{{"name": f"b{{i}}-{{j}}", "source": str(i)}} for j in range({BATCH})],
                    batch_size={BATCH})
            print(i, flush=True)
    """)
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    acked = -1
    try:
        while acked < 4:
            acked = int(p.stdout.readline())
        time.sleep(0.05)  # land inside a later transaction
    finally:
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
    with LadybugStore(path) as s:
        n = s.counts()["nodes"]["Dish"]
        per_batch = s.execute("MATCH (d:Dish) RETURN d.source AS b, count(*) AS n")
    assert n % BATCH == 0 and n >= (acked + 1) * BATCH
    assert all(r["n"] == BATCH for r in per_batch)  # no torn batch


def test_every_named_query_has_a_header_and_parses_params():
    for q in queries.all_queries():
        assert q.doc, f"{q.path.name}: needs a // header comment saying what it does"
        assert q.text.strip(), q.path.name
