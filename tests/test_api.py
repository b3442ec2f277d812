"""The public DishGraph API and its CLI twins on a planted corpus in a real embedded database."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from dishgraph import DishGraph
from dishgraph.errors import DatabaseError
from dishgraph.knowledge.order import OrderSettings
from dishgraph.testing.planted import load_planted, planted_order_corpus, planted_pivot_corpus


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "db"
    with DishGraph.open(db=str(path)) as g:
        load_planted(g.store, planted_pivot_corpus(n_pairs=1, n_recipes=40, seed=9))
        load_planted(g.store, planted_order_corpus(n_dishes=1, n_recipes=50, n_actions=15, seed=9))
    return str(path)


def test_api_roundtrip(db):
    with DishGraph.open(db=db) as g:
        assert g.store.backend == "ladybug"
        top = g.actions("planted-dish-0", top=5)
        assert len(top) == 5 and top[0]["freq"] >= top[-1]["freq"]
        res = g.mine_pivots("planted-base-0", "planted-target-0")
        assert {p.action for p in g.pivots("planted-base-0", "planted-target-0")} == {p.action for p in res.pivots}
        rep = g.estimate_order(["planted-dish-0"], OrderSettings())
        c = next(e for e in rep.estimates if e.ate is not None and e.ate > 0.1)
        before, after = g.order_constraints("planted-dish-0", c.effect)
        assert c.cause in [x.cause for x in before]
        assert g.check_order("planted-dish-0", [c.cause, c.effect]) == []
        v = g.check_order("planted-dish-0", [c.effect, c.cause])
        assert [(x.cause, x.effect, x.cause_pos, x.effect_pos) for x in v] == [(c.cause, c.effect, 1, 0)]
    with pytest.raises(DatabaseError, match="closed"):
        g.actions("planted-dish-0")


def test_cli(db):
    from dishgraph.cli import app

    run = CliRunner().invoke
    r = run(app, ["pivots", "mine", "planted-base-0", "planted-target-0", "--db", db, "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)[0]["counts"]["remove"] > 0
    r = run(app, ["pivots", "show", "planted-base-0->planted-target-0", "--db", db, "--json"])
    assert r.exit_code == 0 and {row["mined"] for row in json.loads(r.output)} == {"remove", "insert", "manual"}
    r = run(app, ["order", "estimate", "planted-dish-0", "--workers", "1", "--db", db, "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["totals"]["constraints"] > 0
    with DishGraph.open(db=db) as g:
        c = g.store.query("order_dish_constraints", dish="planted-dish-0")[0]
    r = run(app, ["order", "show", "planted-dish-0", c["effect"], "--db", db, "--json"])
    assert c["cause"] in [x["cause"] for x in json.loads(r.output)["must_precede"]]
    r = run(app, ["pivots", "mine", "--db", db])
    assert r.exit_code == 2
