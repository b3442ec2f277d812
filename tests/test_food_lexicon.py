"""The food lexicon: every glossary form has an entry, categories come from the guideline's tree, synonyms share
one name, distinct foods keep theirs, and rollups / class labels name what a cook reads."""

import pytest

from dishgraph.ingest.foods import (
    CATEGORY_TREE,
    NOT_FOOD,
    class_labels,
    food_lexicon,
    name_key,
    rollup_key,
    valid_category,
)


@pytest.fixture(scope="module")
def lex():
    return food_lexicon()


def test_every_glossary_ingredient_and_tool_form_has_an_entry(lex, glossary):
    missing = [f for table in (glossary.ingredient, glossary.tool) for f in table if f not in lex]
    assert not missing, missing[:20]


def test_the_release_class_is_kept_beside_the_name(lex, glossary):
    wrong = [f for f, c in glossary.ingredient.items() if lex.entries[f].glossary_class != c]
    only_tools = {f: c for f, c in glossary.tool.items() if f not in glossary.ingredient}
    wrong += [f for f, c in only_tools.items() if lex.entries[f].glossary_class != c]
    assert not wrong, wrong[:20]


def test_categories_come_from_the_tree(lex):
    bad = {e.form: e.category for e in lex.entries.values() if not valid_category(e.category)}
    assert not bad, list(bad.items())[:20]
    assert all((e.category == NOT_FOOD) == (e.canonical == NOT_FOOD) for e in lex.entries.values())
    assert all(e.category.startswith("器具") for e in lex.entries.values() if e.source == "glossary-tool" and e.is_tool)
    assert len(CATEGORY_TREE) == 19


def test_each_canonical_name_has_one_category(lex):
    seen: dict[str, str] = {}
    for e in lex.entries.values():
        if e.canonical != NOT_FOOD:
            assert seen.setdefault(e.canonical, e.category) == e.category, e


@pytest.mark.parametrize(
    "forms",
    [("西红柿", "番茄"), ("土豆", "马铃薯", "洋芋"), ("包菜", "卷心菜", "圆白菜"), ("香菜", "芫荽"), ("金桔", "金橘")],
)
def test_synonyms_share_one_name(lex, forms):
    assert len({lex.canonical(f) for f in forms}) == 1


@pytest.mark.parametrize(
    ("a", "b"),
    [("生抽", "老抽"), ("金桔", "雪梨"), ("娃娃菜", "洋葱"), ("小白菜", "丝瓜"), ("菠菜", "秋葵"), ("冰箱", "锅")]
    + [("砂锅", "烤箱")],
)
def test_foods_of_one_release_class_keep_their_own_names(lex, a, b):
    assert lex.canonical(a) != lex.canonical(b)


def test_shapes_and_amounts_drop_and_non_foods_are_no_food(lex):
    assert lex.canonical("土豆丝") == "土豆" and lex.canonical("鸡丁") == "鸡肉"
    assert lex.canonical("清水") == lex.canonical("水") == "水"
    assert lex.canonical("火") is None and lex.canonical("时候") is None  # heat and time, by the roles file
    assert lex.canonical("没有这个词") == "没有这个词"  # a form the file lacks keeps its own name
    assert lex.category("娃娃菜") == "蔬菜›叶菜类" and lex.category("生抽").startswith("调味品›酱油")


def test_rollups_name_categories(lex):
    assert rollup_key("切|娃娃菜|", "category", lex) == "切|蔬菜›叶菜类|"
    assert rollup_key("切|娃娃菜+菠菜|刀", "group", lex) == "切|蔬菜|器具"
    assert rollup_key("切|娃娃菜|", "food", lex) == "切|娃娃菜|"
    with pytest.raises(ValueError):
        rollup_key("切|娃娃菜|", "colour", lex)


def test_reference_keys_name_the_pair_s_foods_beside_their_class():
    labels = class_labels("菜心", "秋葵")
    assert labels == {"油菜": "菜心 (class 油菜)", "洋葱": "秋葵 (class 洋葱)"}
    assert name_key("洗净|洋葱|", labels) == "洗净|秋葵 (class 洋葱)|"
    assert class_labels("雪梨", "金桔") == {"梨": "雪梨/金桔 (class 梨)"}
    assert class_labels("土豆", None) == {}  # the food is its class: nothing to add
