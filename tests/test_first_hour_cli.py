"""A researcher's first commands say true, readable things (issue #26 §6): `stats` on an empty graph says
how to fill it and ranks dishes by recipes, `diner parse` knows the release's names by default, `order
estimate` prints tables, not a Python dict."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from dishgraph.cli import app

RECIPES = [
    ("红烧肉", "五花肉切块，锅中放油，加入冰糖炒出糖色，放入五花肉翻炒，加水炖一小时。"),
    ("红烧肉", "五花肉洗净切块，焯水后捞出，锅中放油炒糖色，加入五花肉和生抽翻炒，小火炖煮。"),
    ("红烧肉", "五花肉切块焯水，炒糖色，放入五花肉，加生抽老抽，加水炖四十分钟，大火收汁。"),
    ("白灼菜心", "菜心洗净，锅中放水烧开，放入菜心焯熟，捞出淋上生抽。"),
]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("first-hour") / "recipes.jsonl"
    path.write_text(
        "".join(json.dumps({"dish": d, "text": t}, ensure_ascii=False) + "\n" for d, t in RECIPES), encoding="utf-8"
    )
    db = str(path.with_name("db"))
    res = CliRunner().invoke(app, ["ingest", "corpus", str(path), "--db", db, "--workers", "1", "--json"])
    assert res.exit_code == 0, res.output
    return db


def test_stats_on_an_empty_graph_says_how_to_fill_it(tmp_path):
    from dishgraph.graph.ladybug_store import LadybugStore

    s = LadybugStore(tmp_path / "db")
    s.init_schema()
    s.close()
    res = CliRunner().invoke(app, ["stats", "--db", str(tmp_path / "db")])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "no recipe yet" in text and "dishgraph ingest counterfactual" in text and "dishgraph demo" in text
    assert "0.0%" not in text and "│" not in text  # no table of blanks


def test_stats_ranks_dishes_by_recipes(db):
    res = CliRunner().invoke(app, ["stats", "--db", db, "--json"])
    data = json.loads(res.output)
    assert list(data["top_actions_per_dish"]) == ["红烧肉", "白灼菜心"]  # not alphabetical (白 < 红)
    assert data["dish_recipes"] == {"红烧肉": 3, "白灼菜心": 1}
    res = CliRunner().invoke(app, ["stats", "--db", db], env={"COLUMNS": "80"})
    assert res.exit_code == 0 and res.output.index("红烧肉") < res.output.index("白灼菜心")
    assert "the most recipes" in res.output


def test_order_estimate_prints_tables_not_a_dict(db):
    res = CliRunner().invoke(app, ["order", "estimate", "红烧肉", "--db", db, "--workers", "1"], env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    assert "{'" not in res.output and "totals" in res.output and "constraints" in res.output


def test_diner_parse_knows_the_release_names_by_default():
    res = CliRunner().invoke(app, ["diner", "parse", "宫保虾球", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["parsed"] == 1
    res = CliRunner().invoke(app, ["diner", "parse", "宫保虾球", "--extra-glossary", "none", "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["parsed"] == 0  # DiNeR's glossary alone lacks 宫保
