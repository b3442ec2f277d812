"""DiNeR dish-name parsing: hand-checked parses of real dish names, the CRG coverage, glossary extension."""

from __future__ import annotations

import json

import pytest

from dishgraph.diner.names import EXTRA_GLOSSARY, DinerGlossary, compound_keys, parse_name, parse_names, read_names

# Real dish names (CRG pairs and one classic) with their parse checked by hand against the glossary:
# surface / type / cluster per component, left to right.
HAND_CHECKED = {
    "韭菜炒鸡蛋": [("韭菜", "food", "韭菜"), ("炒", "action", "炒"), ("鸡蛋", "food", "鸡蛋")],
    "白灼菜心": [("白灼", "action", "白灼"), ("菜心", "food", "菜心")],
    "辣炒花甲": [("辣", "flavour", "辣"), ("炒", "action", "炒"), ("花甲", "food", "蛤蛎")],
    "焖牛腩": [("焖", "action", "焖"), ("牛腩", "food", "牛肉")],
    "醋溜土豆丝": [("醋溜", "action", "醋溜"), ("土豆", "food", "土豆"), ("丝", "food", "丝")],
    "清蒸大闸蟹": [("清蒸", "action", "蒸"), ("大闸蟹", "food", "蟹")],
    "清炒小白菜": [("清炒", "action", "炒"), ("小白菜", "food", "白菜")],
    "香辣小龙虾": [("香辣", "flavour", "香辣"), ("小龙虾", "food", "龙虾")],
    "炒藕片": [("炒", "action", "炒"), ("藕片", "food", "莲藕")],
    "凉拌皮蛋": [("凉拌", "action", "拌"), ("皮蛋", "food", "松花蛋")],
    "爆炒鸡胗": [("爆炒", "action", "爆"), ("鸡胗", "food", "鸡胗")],
    "炖蛋": [("炖", "action", "炖"), ("蛋", "food", "鸡蛋")],
    "烧小黄鱼": [("烧", "action", "烧"), ("小黄鱼", "food", "黄鱼")],
    "干煸肥肠": [("干煸", "action", "煸"), ("肥肠", "food", "猪大肠")],
    "油焖大虾": [("油", "food", "油"), ("焖", "action", "焖"), ("大虾", "food", "虾")],
    "拔丝地瓜": [("拔丝", "action", "拔丝"), ("地瓜", "food", "红薯")],
    "酿茄子": [("酿", "flavour", "酿"), ("茄子", "food", "茄子")],
    "脆皮烧肉": [("脆皮", "flavour", "脆皮"), ("烧", "action", "烧"), ("肉", "food", "肉")],
    "蒜蓉粉丝扇贝": [("蒜蓉", "food", "蒜蓉"), ("粉丝", "food", "粉"), ("扇贝", "food", "贝类")],
    "冰糖雪梨": [("冰糖", "food", "冰糖"), ("雪梨", "food", "梨")],
    "泡椒凤爪": [("泡椒", "food", "泡椒"), ("凤爪", "food", "鸡爪")],
    "芝士焗土豆泥": [("芝士", "food", "奶酪"), ("焗", "action", "焗"), ("土豆", "food", "土豆"), ("泥", "food", "泥")],
    "羊肉炖萝卜": [("羊肉", "food", "羊肉"), ("炖", "action", "炖"), ("萝卜", "food", "萝卜")],
    "肉末四季豆": [("肉", "food", "肉"), ("末", "food", "末"), ("四季豆", "food", "四季豆")],
    "包菜炒粉丝": [("包菜", "food", "甘蓝"), ("炒", "action", "炒"), ("粉丝", "food", "粉")],
}

# The 12 CRG dish names DiNeR's glossary does not cover: where maximal matching stops, and the spans
# no entry covers.
CRG_UNPARSED = {
    "清蒸多宝鱼": ("多宝鱼", ["多宝"]),
    "炒蚬子": ("蚬子", ["蚬子"]),
    "凉拌苦菊": ("苦菊", ["苦菊"]),
    "凉拌海蜇": ("海蜇", ["海蜇"]),
    "煎口蘑": ("口蘑", ["口蘑"]),
    "煎猪扒": ("猪扒", ["猪扒"]),
    "酸辣蕨根粉": ("蕨根粉", ["蕨根"]),
    "溜鱼片": ("溜鱼片", ["溜"]),
    "溜肥肠": ("溜肥肠", ["溜"]),
    "宫保鸡丁": ("宫保鸡丁", ["宫保"]),
    "宫保虾球": ("宫保虾球", ["宫保"]),
    "榄菜肉末四季豆": ("榄菜肉末四季豆", ["榄"]),
}


@pytest.fixture(scope="module")
def diner_glossary():
    return DinerGlossary.load()


@pytest.fixture(scope="module")
def crg_names(crg_dir):
    return read_names(crg_dir / "dish_pairs.txt")


def test_glossary_sizes(diner_glossary):
    assert diner_glossary.sizes() == {
        "action": {"surfaces": 40, "clusters": 31},
        "flavour": {"surfaces": 35, "clusters": 35},
        "food": {"surfaces": 535, "clusters": 413},
    }
    assert diner_glossary.tables["food"]["老鸭"] == "鸭" and diner_glossary.tables["action"]["清蒸"] == "蒸"


@pytest.mark.parametrize("name", sorted(HAND_CHECKED))
def test_hand_checked_parse(diner_glossary, name):
    p = parse_name(name, diner_glossary)
    assert p.ok and p.remainder == ""
    assert [(c.surface, c.type, c.cluster) for c in p.components] == HAND_CHECKED[name]
    assert [c.pos for c in p.components] == list(range(len(HAND_CHECKED[name])))
    assert "".join(c.surface for c in p.components) == name  # surface forms are kept


def test_synonyms_are_one_atom(diner_glossary):
    assert parse_name("泡椒凤爪", diner_glossary).atoms == parse_name("泡椒鸡爪", diner_glossary).atoms
    assert parse_name("凤爪", diner_glossary).atoms == {"food:鸡爪"}


def test_compounds_of_a_name(diner_glossary):
    p = parse_name("韭菜炒鸡蛋", diner_glossary)
    assert "action:炒+food:鸡蛋" in p.compounds
    assert p.compounds == {
        "action:炒+food:鸡蛋",
        "action:炒+food:韭菜",
        "food:韭菜+food:鸡蛋",
        "action:炒+food:韭菜+food:鸡蛋",
    }
    assert compound_keys(["a"]) == frozenset()


def test_crg_dish_names_88_parse_12_reported(diner_glossary, crg_names):
    assert len(crg_names) == 100
    rep = parse_names(crg_names, diner_glossary)
    assert len(rep.parsed) == 88 and len(rep.failed) == 12
    got = {p.name: (p.remainder, list(p.unknown)) for p in rep.failed}
    assert got == CRG_UNPARSED
    assert all(p.components == () and not p.ok for p in rep.failed)  # no partial components


def test_shipped_extra_glossary_parses_all_crg_names(crg_names):
    g = DinerGlossary.load(extra=[EXTRA_GLOSSARY])
    rep = parse_names(crg_names, g)
    assert len(rep.parsed) == 100 and not rep.failed
    gongbao = parse_name("宫保鸡丁", g)
    assert [(c.surface, c.key) for c in gongbao.components] == [
        ("宫保", "flavour:宫保"),
        ("鸡", "food:鸡"),
        ("丁", "food:丁"),
    ]
    assert parse_name("煎猪扒", g).atoms == parse_name("煎猪排", g).atoms  # 猪扒 is a synonym of 猪排


def test_equal_length_priority_action_over_flavour_over_food(tmp_path):
    g = DinerGlossary.from_mapping({"food": {"香": "香料", "肠": "肠"}, "flavour": {"香": "香"}})
    assert parse_name("香肠", g).components[0].type == "flavour"
    g2 = g.extended(DinerGlossary.from_mapping({"action": {"香": "熏"}}))
    assert parse_name("香肠", g2).components[0].key == "action:熏"
    # but a longer match wins over type priority
    g3 = g2.extended(DinerGlossary.from_mapping({"food": {"香肠": "香肠"}}))
    assert [c.key for c in parse_name("香肠", g3).components] == ["food:香肠"]


def test_extra_glossary_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "extra.json"
    bad.write_text('{"food": {"蚬子": "蚬子",}}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"extra\.json: line 1"):
        DinerGlossary.load(extra=[bad])
    bad.write_text(json.dumps({"meat": {"x": "y"}}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"extra\.json: unknown component type"):
        DinerGlossary.load(extra=[bad])
    bad.write_text(json.dumps({"food": {"x": ""}}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"extra\.json: \['food'\]\['x'\]"):
        DinerGlossary.load(extra=[bad])


def test_empty_and_unknown_names(diner_glossary):
    assert not parse_name("", diner_glossary).ok
    p = parse_name("xyz", diner_glossary)
    assert not p.ok and p.remainder == "xyz" and p.unknown == ("xyz",)
