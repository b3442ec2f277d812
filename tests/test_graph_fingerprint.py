"""benchmarks/graph_fingerprint.py, the check behind "same graph before and after" of ingest changes: equal
for the same content written in another order, different when one value or one edge differs."""

from __future__ import annotations

import sys
from pathlib import Path

from dishgraph.graph.ladybug_store import LadybugStore
from dishgraph.ingest import loader
from dishgraph.ingest.parser import RecipeParser

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from graph_fingerprint import fingerprint  # noqa: E402

TEXTS = {"白灼菜心": "菜心洗净，切段。锅中烧水，放入菜心焯一下。", "蒜蓉菜心": "蒜切末，热油爆香蒜末，放入菜心翻炒。"}


def _build(path: Path, glossary, order, text_of=TEXTS) -> Path:
    parser = RecipeParser(glossary)
    with LadybugStore(path) as store:
        loader.load_glossary(store, glossary)
        loader.load_dishes(store, order, "t")
        recs = [
            loader.RecipeRecord(loader.recipe_id("t", d, text_of[d]), d, text_of[d], "t", i)
            for i, d in enumerate(order)
        ]
        loader.load_recipes(store, recs)
        loader.load_parsed(store, [loader.ParsedRecipe(r.id, parser.parse(r.text)) for r in recs])
    return path


def test_same_content_same_print_and_any_change_shows(tmp_path, glossary):
    a = fingerprint(_build(tmp_path / "a", glossary, list(TEXTS)))
    b = fingerprint(_build(tmp_path / "b", glossary, list(TEXTS)[::-1]))
    assert a["Step"][0] > 0 and a["NEXT"][0] > 0
    # the recipes' lines follow the order, so only Recipe may differ: rebuild with the same lines
    assert {t: v for t, v in a.items() if t != "Recipe"} == {t: v for t, v in b.items() if t != "Recipe"}
    c = fingerprint(_build(tmp_path / "c", glossary, list(TEXTS)))
    assert c == a
    changed = dict(TEXTS, 白灼菜心="菜心洗净，切段。锅中烧水，放入菜心煮一下。")
    d = fingerprint(_build(tmp_path / "d", glossary, list(TEXTS), changed))
    assert d["Step"] != a["Step"] and d["Dish"] == a["Dish"]
