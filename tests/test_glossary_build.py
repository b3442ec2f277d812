"""Glossary building on real recipes: schema, K classes, overrides, agreement with the release."""

import json

import pytest

from dishgraph.ingest.glossary import Glossary
from dishgraph.ingest.glossary_build import apply_overrides, build_glossary, read_corpus


@pytest.fixture(scope="module")
def built(crg_dir, glossary):
    recipes = read_corpus(crg_dir / "base_recipes.txt")[:400]
    return build_glossary(recipes, k={"verb": 20, "ingredient": 60, "tool": 5}, segmenter="lac", reference=glossary)


def test_schema_and_class_counts(built, tmp_path):
    g, rep = built
    assert rep.recipes == 400
    assert rep.classes == {"ingredient": 60, "verb": 20, "tool": 5}
    path = tmp_path / "g.json"
    path.write_text(json.dumps(g.to_json(), ensure_ascii=False), encoding="utf-8")
    again = Glossary.load(path)
    assert again.verb == g.verb and "切" in again.verb
    assert rep.verb_shared > 50 and rep.verb_ari is not None and rep.verb_ari > 0.0


def test_overrides():
    tables = {"verb": {"切": "切", "切成": "切成", "焯": "焯", "就好": "就好"}, "ingredient": {}, "tool": {}}
    n = apply_overrides(
        tables,
        {"verb": {"drop": ["就好"], "assign": {"焯水": "焯"}, "merge": [["切", "切成"]], "rename": {"焯": "过"}}},
    )
    assert tables["verb"] == {"切": "切", "切成": "切", "焯": "过", "焯水": "过"} and n >= 4
    with pytest.raises(ValueError, match="unknown kind"):
        apply_overrides(tables, {"verbs": {}})
    with pytest.raises(ValueError, match="unknown operations"):
        apply_overrides(tables, {"verb": {"split": {}}})


def test_read_corpus_errors(tmp_path):
    p = tmp_path / "c.txt"
    p.write_text("a\tb\t洗净切块\n\n", encoding="utf-8")
    assert read_corpus(p) == ["洗净切块"]
    p.write_text("a\tb\t \n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"c.txt:1"):
        read_corpus(p)
