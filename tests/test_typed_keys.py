"""Typed keys in the graph: the typed reading's frequencies (TYPED_USES), `stats`' default top actions and
`pivots mine --typed-keys` find 切|洋葱| where recipes say 切丝 after 洋葱洗净 (the CRG key there is 切|丝|)."""

import json
import random

import pytest
from typer.testing import CliRunner

from dishgraph.cli import app

ONION_RECIPES = 22  # a new user's own onion recipes: a seeded draw of XiaChuFang recipes naming 洋葱


@pytest.fixture(scope="module")
def onion_db(tmp_path_factory, data_dir):
    """22 recipes naming 洋葱 as one dish, 10 naming none as another, ingested through the CLI."""
    lines = (data_dir / "xiachufang" / "recipes.jsonl").read_text(encoding="utf-8").splitlines()
    recipes = [json.loads(x) for x in lines]
    onion = [r for r in recipes if "洋葱" in r["text"]]
    random.Random(22).shuffle(onion)
    plain = [r for r in recipes if "洋葱" not in r["text"] and "切" in r["text"]][:10]
    tmp = tmp_path_factory.mktemp("onion")
    corpus = tmp / "mine.jsonl"
    rows = [{"dish": "我的洋葱菜", "text": r["text"]} for r in onion[:ONION_RECIPES]]
    rows += [{"dish": "我的家常菜", "text": r["text"]} for r in plain]
    corpus.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    db = tmp / "db"
    res = CliRunner().invoke(app, ["ingest", "corpus", str(corpus), "--db", str(db)])
    assert res.exit_code == 0, res.output
    return db


def test_the_dish_s_typed_frequencies_count_the_onion_cut_into_strips(onion_db):
    from dishgraph.api import DishGraph

    with DishGraph.open(onion_db) as g:
        crg = {r["action"]: r["n"] for r in g.actions("我的洋葱菜", top=500)}
        typed = {r["action"]: r["n"] for r in g.actions("我的洋葱菜", top=500, typed_keys=True)}
    # The CRG key finds the onion cut in 3 recipes (切|丝|, 切|丁+洋葱| elsewhere); the typed reading in 8 (its key
    # names foods by their own names: 胡萝卜卷心菜切丝 is 切|卷心菜+胡萝卜|, no longer 切|洋葱| through their class).
    assert crg["切|洋葱|"] == 3 and typed["切|洋葱|"] == 8
    assert "切|丝|" in crg and "切|丝|" not in typed and all(k in typed for k in ("切|洋葱|", "切碎|洋葱|"))


def test_stats_shows_typed_keys_by_default_and_crg_keys_with_all_actions(onion_db):
    run = CliRunner().invoke
    typed = json.loads(run(app, ["stats", "--db", str(onion_db), "--json", "--top", "40"]).output)
    crg = json.loads(run(app, ["stats", "--db", str(onion_db), "--json", "--top", "40", "--all-actions"]).output)
    typed_top = {a["action"]: a["recipes"] for a in typed["top_actions_per_dish"]["我的洋葱菜"]}
    crg_top = {a["action"]: a["recipes"] for a in crg["top_actions_per_dish"]["我的洋葱菜"]}
    assert typed_top["切|洋葱|"] == 8 and crg_top.get("切|洋葱|") == 3 and "切|丝|" not in typed_top


def test_pivots_mine_typed_keys_inserts_cutting_the_onion(onion_db):
    run = CliRunner().invoke
    res = run(app, ["pivots", "mine", "我的家常菜->我的洋葱菜", "--new-pair", "--typed-keys", "--db", str(onion_db)])
    assert res.exit_code == 0, res.output
    show = run(app, ["pivots", "show", "我的家常菜->我的洋葱菜", "--db", str(onion_db), "--json"])
    rows = {r["action"]: r for r in json.loads(show.output)}
    assert rows["切|洋葱|"]["typed"] == "insert" and rows["切|洋葱|"]["ft"] == pytest.approx(8 / 22)
    refused = run(app, ["pivots", "mine", "我的家常菜->我的洋葱菜", "--typed-keys", "--knowledge", "composed"])
    assert refused.exit_code == 2 and "--typed-keys" in refused.output


@pytest.mark.parametrize("mode", ["create", "merge", "copy"])
def test_every_loading_path_stores_both_typed_keys(tmp_path, crg_dir, mode, release_unparsed):
    """The class-lifted typed key judges the culinary flag: a loading path that dropped it judged 煮|叶子+油菜|
    (菜心煮熟) against 煮|菜心| and hid a released pivot."""
    from dishgraph.graph.ladybug_store import LadybugStore
    from dishgraph.ingest.crg import release_records
    from dishgraph.ingest.pipeline import parse_and_load
    from dishgraph.ingest.readers import read_crg_release

    release = read_crg_release(crg_dir)
    records = release_records(crg_dir, ("白灼菜心",), 8, release=release)
    with LadybugStore(release_unparsed(tmp_path / "db")) as store:  # the release, unparsed
        parse_and_load(store, records, release.glossary, show_progress=False, mode=mode)
        rows = store.execute("MATCH (s:Step) RETURN s.typed_classes AS c, s.culinary AS k")
        assert rows and all(r["c"] for r in rows if r["k"])
        (flag,) = store.execute("MATCH (a:ProtoAction {key: '煮|叶子+油菜|'}) RETURN a.culinary AS c")
        assert flag["c"] is True
