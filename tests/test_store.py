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
    assert (
        store.execute("MATCH (d:Dish) WITH d.name AS n ORDER BY n LIMIT 10 RETURN collect(n)[1] AS first")[0]["first"]
        == "a"
    )
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


@pytest.mark.parametrize("source", ["frame", "csv"])
def test_bulk_sources_keep_every_value_as_given(tmp_path, source):
    """Empty strings stay empty (not NULL), None stays NULL, newlines/quotes/commas survive, ints stay
    exact, sets are sorted, a multi-endpoint rel table takes its endpoints: both bulk sources."""
    recipes = [
        {"id": "a", "dish": "d", "text": "", "source": None, "line": 2**60 + 1, "parsed": None, "n_actions": None},
        {"id": "b", "dish": "d", "text": '切丝,\n"放"入', "source": "s", "line": 3, "parsed": True, "n_actions": 2},
    ]
    with LadybugStore(tmp_path / "db", bulk_source=source) as s:
        s.bulk_load_nodes("Recipe", recipes)
        s.bulk_load_nodes("ProtoAction", [{"key": "k", "verb": "切", "ingredients": {"姜", "葱"}, "tools": []}])
        s.bulk_load_nodes("SurfaceForm", [{"key": "verb:切", "form": "切", "kind": "verb"}])
        s.bulk_load_nodes("VerbClass", [{"name": "切"}])
        s.bulk_load_rels("FORM_OF", "SurfaceForm", "VerbClass", [{"from": "verb:切", "to": "切"}])
        got = s.execute(
            "MATCH (r:Recipe) RETURN r.id AS id, r.text AS text, r.source AS source, r.line AS line, "
            "r.parsed AS parsed, r.n_actions AS n ORDER BY r.id"
        )
        assert got == [
            {"id": "a", "text": "", "source": None, "line": 2**60 + 1, "parsed": None, "n": None},
            {"id": "b", "text": '切丝,\n"放"入', "source": "s", "line": 3, "parsed": True, "n": 2},
        ]
        assert s.execute("MATCH (p:ProtoAction) RETURN p.ingredients AS i, p.tools AS t") == [
            {"i": ["姜", "葱"], "t": []}
        ]
        assert s.execute("MATCH (f:SurfaceForm)-[:FORM_OF]->(v:VerbClass) RETURN v.name AS v") == [{"v": "切"}]


LIST_VALUES = [
    ["葱", "姜"],
    [],
    None,
    ["a,b", "z"],
    ['"q"', "w]", "[x"],
    [" a", "b "],
    ["", "NULL", "null"],
    ["it's", "back\\slash", "two\nlines"],
    ["清水", "水", "清水"],
]


@pytest.mark.parametrize("source", ["frame", "csv"])
def test_bulk_lists_keep_order_and_every_item_as_written(tmp_path, source):
    """Surface forms are arbitrary text in reading order: a list keeps its order and duplicates, and items a
    CSV list literal cannot carry (separators, brackets, quotes, edge spaces, empty, NULL) come back exact
    (the CSV source sends those rows through a data frame); [] stays [] and None stays NULL."""
    rows = [
        {"id": f"s{i}", "recipe": "r", "pos": i, "ingredient_forms": v, "tool_forms": ["锅"], "sentence": i}
        for i, v in enumerate(LIST_VALUES)
    ]
    with LadybugStore(tmp_path / "db", bulk_source=source) as s:
        assert s.bulk_load_nodes("Step", rows) == len(rows)
        got = s.execute(
            "MATCH (s:Step) RETURN s.pos AS pos, s.ingredient_forms AS f, s.tool_forms AS t, "
            "s.sentence AS n ORDER BY pos"
        )
    assert [r["f"] for r in got] == LIST_VALUES
    assert all(r["t"] == ["锅"] and r["n"] == r["pos"] for r in got)


def test_bulk_session_copies_become_durable_at_its_end_and_logged_writes_never_outrun_them(tmp_path):
    """SIGKILL inside a bulk session takes back its COPYs (they are not in Ladybug's WAL) and keeps what
    was checkpointed; a logged write inside the session checkpoints first, so it survives with its COPY."""
    path = tmp_path / "db"
    code = textwrap.dedent(f"""
        import os, signal
        from dishgraph.graph.ladybug_store import LadybugStore
        s = LadybugStore({str(path)!r})
        with s.bulk_session():
            s.bulk_load_nodes("Dish", [{{"name": f"kept{{i}}", "source": "t"}} for i in range(300)])
        with s.bulk_session():
            s.bulk_load_nodes("Dish", [{{"name": f"merged{{i}}", "source": "t"}} for i in range(300)])
            s.write("load_dishes", [{{"name": "logged", "source": "t"}}])  # checkpoints the COPY above first
            s.bulk_load_nodes("Dish", [{{"name": f"lost{{i}}", "source": "t"}} for i in range(300)])
            os.kill(os.getpid(), signal.SIGKILL)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == -9, proc.stderr[-2000:]
    with LadybugStore(path) as s:
        names = {r["n"] for r in s.execute("MATCH (d:Dish) RETURN d.name AS n")}
    assert len(names) == 601 and "logged" in names and "merged299" in names and "lost0" not in names


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
            LadybugStore(path, wait=0)  # no waiting (tests/test_db_faults.py covers it)
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


def test_checkpoint_returns_the_freed_heap(tmp_path):
    """A checkpoint hands back what the engine freed (glibc's malloc_trim), so a long ingest's resident
    memory follows what is in use instead of its high-water mark; where the C library is not glibc it is a
    no-op. The checkpoint itself still runs."""
    import platform

    from dishgraph.graph import ladybug_store
    from dishgraph.graph.ladybug_store import LadybugStore

    if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
        assert ladybug_store._malloc_trim() is not None
    with LadybugStore(tmp_path / "db") as store:
        store._checkpoint()
        assert store._unsaved_bytes == 0
