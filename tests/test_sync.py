"""`dishgraph sync`: the real CRG release (plus a few parsed recipes and mined knowledge) copied from one
embedded database into a second one; counts per label and type must match, and a second sync changes none."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from dishgraph.graph import queries, schema, sync, sync_queries
from dishgraph.graph.ladybug_store import LadybugStore

DISHES = ("焖牛腩", "烧牛腩")  # two base dishes of the release (both have recipes)
PER_DISH = 12


@pytest.fixture(scope="module")
def source_db(tmp_path_factory, crg_dir, release_unparsed):
    """The release without parsing (10 s), then PER_DISH recipes of two dishes parsed, USES, pivots, order."""
    from dishgraph.api import DishGraph
    from dishgraph.ingest.crg import release_records
    from dishgraph.ingest.pipeline import parse_and_load
    from dishgraph.ingest.readers import read_crg_release
    from dishgraph.knowledge.pivots import mine_pivots

    path = release_unparsed(tmp_path_factory.mktemp("sync") / "source")  # the release, unparsed
    release = read_crg_release(crg_dir)
    with DishGraph.open(db=str(path)) as g:
        records = release_records(crg_dir, DISHES, PER_DISH, release=release)
        parse_and_load(g.store, records, release.glossary, show_progress=False)
        mine_pivots(g.store, *DISHES, create=True)
        g.mine_pivots("白灼菜心", "白灼秋葵")  # a release pair: reference and mined edges side by side
        g.estimate_order([DISHES[0]])
    return path


def _counts(path):
    with LadybugStore(path, read_only=True) as s:
        return s.counts()


def _knowledge(store) -> tuple:
    return (
        store.query("pivot_edges", pair="白灼菜心->白灼秋葵"),
        store.query("order_dish_constraints", dish=DISHES[0]),
        store.query("order_dish_constraints", dish="白灼秋葵"),
        store.query("uses_dish_actions", dish=DISHES[1], min_freq=0.0, top=1000),
    )


def test_every_label_and_type_has_generated_sync_queries():
    names = set(queries.names())
    for n in schema.NODES:
        assert sync_queries.node_read_name(n.label) in names and sync_queries.node_write_name(n.label) in names
    for r in schema.RELS:
        for a, b in r.ends:
            assert sync_queries.rel_read_name(r.type, a, b) in names
            assert sync_queries.rel_write_name(r.type, a, b) in names
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in queries.CYPHER_DIR.glob("sync_*.cypher")}
    assert on_disk == sync_queries.render_queries(), "run `python -m dishgraph.graph.sync_queries --write-queries`"
    for name in sync_queries.query_names():
        if not name.startswith("sync_read"):
            assert queries.get(name, "ladybug").text.startswith("UNWIND $rows AS r")


def test_sync_copies_every_label_and_type_idempotently(source_db, tmp_path):
    src_counts = _counts(source_db)
    n, r = src_counts["nodes"], src_counts["relationships"]
    # The real release: 100 dishes, 50 pairs (+1 ad-hoc pair of two base dishes), 2,496 distinct recipes.
    assert (n["Dish"], n["DishPair"], n["Recipe"]) == (100, 51, 2496)
    assert n["Step"] > 0 and r["USES"] > 0 and r["NEXT"] > 0 and r["INSTANCE_OF"] == n["Step"]
    with LadybugStore(source_db, read_only=True) as source:
        kinds = {(p["source"], p["window"]) for p in source.query("order_dish_constraints", dish=DISHES[0])}
        ref = source.query("order_dish_constraints", dish="白灼秋葵")
    assert ("estimated", "paper") in kinds and ref and {c["window"] for c in ref} == {None}
    with LadybugStore(source_db, read_only=True) as source, LadybugStore(tmp_path / "copy") as target:
        first = sync.sync_stores(source, target, batch=500)
        assert first.mismatches == {} and first.target_counts == src_counts
        second = sync.sync_stores(source, target, batch=500)
        assert second.mismatches == {} and second.target_counts == src_counts
        # Properties travel too: the same pivots (with frequencies) and constraints (null windows kept).
        assert _knowledge(source) == _knowledge(target)
    by_name = {i.name: i for i in first.items}
    assert by_name["Recipe"].source == 2496
    assert by_name["FORM_OF (SurfaceForm->VerbClass)"].source > 0


def test_sync_cli_to_embedded_directory(source_db, tmp_path):
    from dishgraph.cli import app

    target = tmp_path / "cli-copy"
    run = CliRunner().invoke
    r = run(app, ["sync", "--db", str(source_db), "--to", str(target), "--batch", "2000", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["mismatches"] == {} and out["target_counts"] == _counts(source_db)
    r = run(app, ["sync", "--db", str(source_db), "--to", str(source_db)])
    assert r.exit_code == 2 and "same database" in r.output
    before = _counts(source_db)
    for side in (".wal", ".shadow", ".lock"):  # a database written onto the source's own files destroyed it
        r = run(app, ["sync", "--db", str(source_db), "--to", f"{source_db}{side}"])
        assert r.exit_code == 2 and "a file of the source database" in " ".join(r.output.split()), side
    assert _counts(source_db) == before


def test_sync_to_unreachable_server_fails_cleanly(source_db):
    from dishgraph.cli import app

    r = CliRunner().invoke(app, ["sync", "--db", str(source_db), "--to", "bolt://127.0.0.1:1"])
    assert r.exit_code == 1 and "cannot connect to bolt://127.0.0.1:1" in r.output, r.output
    assert "start one with `docker compose up -d`" in " ".join(r.output.split())
    assert len(r.output.strip().splitlines()) == 1
