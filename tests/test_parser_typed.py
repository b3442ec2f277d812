"""The typed reading: roles of objects, step properties, culinary actions, food inheritance; the CRG reading
beside it unchanged."""

import pytest

from dishgraph.ingest.parser import RecipeParser
from dishgraph.ingest.roles import ROLE_NAMES, object_roles, role_of, rule_role


@pytest.fixture(scope="module", params=["lac", "jieba"])
def parser(request, glossary):
    return RecipeParser(glossary, segmenter=request.param)


def culinary(actions):
    return [a for a in actions if a.culinary]


def test_onion_cut_into_strips_cuts_the_onion(parser):
    acts = parser.parse("洋葱剥皮洗净，切丝")
    cut = [a for a in acts if a.verb.startswith("切")][0]
    assert cut.culinary and cut.foods == ["洋葱"] and cut.foods_inherited and cut.shape == "丝"
    assert cut.ingredients == ["丝"] and cut.proto.key == "切|丝|"  # the CRG reading, as released


def test_heat_and_duration_are_step_properties(parser):
    (boil,) = [a for a in culinary(parser.parse("大火煮5分钟")) if a.verb == "煮"]
    assert boil.heat == "大火" and boil.duration == "5分钟" and boil.foods == []
    assert {o.role for o in boil.objects} == {"heat", "duration"}


def test_light_verb_serves_the_action(glossary):
    acts = RecipeParser(glossary, "lac").parse("用刀切成小块")
    use = [a for a in acts if a.verb == "用"][0]
    cut = [a for a in acts if a.verb == "切成"][0]
    assert not use.culinary and use.tools == ["刀"]  # CRG keeps 用(刀)
    assert cut.culinary and "刀" in [o.form for o in cut.objects if o.role == "tool"] and cut.shape == "小块"


def test_light_verbs_and_noun_phrase_verbs_are_not_culinary(parser):
    acts = parser.parse("把切好的土豆放入碗中备用")
    by = {a.verb: a for a in acts}
    assert not by["备用"].culinary
    put = by["放入"]
    assert put.culinary and put.foods == ["土豆"]
    assert [a.verb for a in culinary(acts)] == ["放入"]


def test_compound_actions_are_read_outside_the_crg_reading(parser):
    acts = parser.parse("最后勾芡，静置20分钟")
    by = {a.verb: a for a in acts}
    assert by["勾芡"].culinary and by["勾芡"].proto is None
    assert by["静置"].duration == "20分钟"


def test_no_food_steps_do_not_inherit(parser):
    acts = parser.parse("土豆洗净，烤箱预热")
    heat = [a for a in acts if a.verb == "预热"][0]
    assert heat.foods == []


def test_every_glossary_form_has_a_role(glossary):
    table = object_roles()
    assert table, "dishgraph/ingest/object_roles.tsv is missing"
    missing = [f for kind in ("ingredient", "tool") for f in glossary.table(kind) if f not in table]
    assert not missing, f"{len(missing)} glossary forms without a role, e.g. {missing[:5]}"
    assert set(table.values()) <= set(ROLE_NAMES)


@pytest.mark.parametrize(
    "word,role",
    [
        ("5分钟", "duration"),
        ("半小时", "duration"),
        ("180度", "heat"),
        ("中小火", "heat"),
        ("小块", "shape"),
        ("金黄色", "state"),
        ("香味", "state"),
        ("适量", "quantity"),
        ("500克", "quantity"),
        ("心情", "other"),
    ],
)
def test_rules_type_unknown_nouns(word, role):
    assert rule_role(word) == role


def test_glossary_kind_is_the_last_resort():
    assert role_of("某种新菜", "ingredient", {}) == "food" and role_of("某种新锅", "tool", {}) == "tool"


def test_graph_stores_both_readings_and_hides_what_is_no_cooking_step(store, glossary):
    from dishgraph.ingest import loader
    from dishgraph.knowledge.typed import hidden_actions

    parser = RecipeParser(glossary, "lac")
    texts = ["洋葱剥皮洗净，切丝，用刀切成小块。", "洋葱切丝。大火煮5分钟，捞出。", "洋葱洗净，切丝。"]
    recs = [loader.RecipeRecord(loader.recipe_id("t", "洋葱汤", t), "洋葱汤", t, "t", i) for i, t in enumerate(texts)]
    loader.load_glossary(store, glossary)
    loader.load_dishes(store, ["洋葱汤"], "t")
    loader.load_recipes(store, recs)
    loader.load_parsed(store, [loader.ParsedRecipe(r.id, parser.parse(r.text)) for r in recs])
    assert loader.mark_culinary(store, glossary) > 0
    steps = store.execute("MATCH (s:Step) RETURN s.action AS action, s.typed_action AS typed, s.culinary AS culinary")
    assert {"action": "切|丝|", "typed": "切|洋葱|", "culinary": True} in steps
    hidden = hidden_actions(store)
    assert "切|丝|" in hidden and "用||刀" in hidden and "洗净|洋葱|" not in hidden and "煮|片|" in hidden
    assert loader.mark_culinary(store, glossary) == 0  # idempotent
