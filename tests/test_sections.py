"""Cookbook section labels and numbering: excerpts of the classic corpus and the CRG release as they are."""

import pytest

from dishgraph.ingest.clauses import split_clauses
from dishgraph.ingest.parser import RecipeParser
from dishgraph.ingest.sections import hidden_spans


def texts(text):
    return [c.text for c in split_clauses(text)]


def test_bracketed_method_label_and_closing_aside_are_skipped():
    # classic corpus, 何首乌炒猪肝 (shortened): the 【本品特点】 aside is no cooking (用于 … is no 用)
    text = "【制作方法】1、何首乌去泥尘，切片。2、将猪肝切成柳叶片。【本品特点】功用为补肝滋肾。用于肝肾亏虚。"
    cls = split_clauses(text)
    assert [c.text for c in cls] == ["何首乌去泥尘", "切片", "将猪肝切成柳叶片"]
    assert [c.step for c in cls] == [0, 0, 1]


def test_ingredient_list_skipped_up_to_the_method_label():
    # classic corpus, 芋头海参 (shortened): a list, then a method label ending in a semicolon
    text = "原料:芋头600克,水发海参300克,胡萝卜10克.烹饪方法;芋头切成莲花瓣形上笼蒸熟.海参均切丁,勾芡倒在盘中即可."
    assert texts(text) == ["芋头切成莲花瓣形上笼蒸熟.海参均切丁", "勾芡倒在盘中即可."]


def test_topic_method_labels_and_asides_after_the_method():
    text = "原料:面粉500、黄油150克。制作过程:1.馅心制作:洗沙分剂，搓圆、待用。2.坯团制作:面粉加入泡打粉拌匀"
    assert texts(text) == ["洗沙分剂", "搓圆、待用", "面粉加入泡打粉拌匀"]
    text = "制法:取生薏米加温水浸泡半日；大枣去核备用。用法:佐餐食用，连服15日。功效:清热解毒。"
    assert texts(text) == ["取生薏米加温水浸泡半日", "大枣去核备用"]


def test_chinese_numerals_number_steps():
    cls = split_clauses("一、将豆腐搅烂成茸。二、将以上用料拌和。三．起热油锅")
    assert [c.text for c in cls] == ["将豆腐搅烂成茸", "将以上用料拌和", "起热油锅"]
    assert [c.step for c in cls] == [0, 1, 2]
    assert texts("三个鸡蛋清打入盘内") == ["三个鸡蛋清打入盘内"]  # a count, no step number


@pytest.mark.parametrize(
    "text",
    [
        "加入调料：盐、糖各一勺",  # a verb before the word: no label
        "菜心洗干净，锅中放水烧开炒一下",  # release, 白灼菜心
        "特点是酥脆，炸至金黄",  # no colon: running text
    ],
)
def test_running_text_is_left_alone(text):
    assert hidden_spans(text) == []


def test_an_aside_opening_the_text_hides_only_its_sentence():
    assert texts("特点:色泽红亮。将鸡洗净，切块") == ["将鸡洗净", "切块"]


def test_release_recipe_with_a_bracketed_list():
    # CRG release, 醋溜白菜 (shortened): 【食材】 list, then a method label after a comma
    text = "【食材】白菜帮子、干辣椒丝、花椒、酱汁，酱汁做法：用一勺红糖陈醋、适量盐勾兑的。白菜帮子洗净切丝。"
    assert texts(text) == ["用一勺红糖陈醋、适量盐勾兑的", "白菜帮子洗净切丝"]


def test_method_label_is_no_action(glossary):
    parser = RecipeParser(glossary, segmenter="jieba")
    verbs = [a.verb for a in parser.parse("制法:里脊肉切细丝，放入碗中。馅心制作:洗沙分剂。")]
    assert "制" not in verbs and "制作" not in verbs
    assert verbs[:2] == ["切", "放入"]


def test_a_list_ends_at_a_semicolon_or_a_numbered_step():
    # CRG release, 香辣小龙虾 (shortened): one sentence; the list once hid the whole method and the recipe lost
    # all 16 of its actions
    text = "材料：大蒜、生姜、黄酒、葱；1、小龙虾洗澡搓干净；2、倒入油量多一点，放生姜大蒜煸炒一下。"
    assert texts(text) == ["小龙虾洗澡搓干净", "倒入油量多一点", "放生姜大蒜煸炒一下"]
    assert texts("原料：猪肉、葱，1、猪肉切丝") == ["猪肉切丝"]


def test_preparing_the_ingredients_is_method_text():
    # CRG release, 脆皮豆腐 (shortened): 【准备材料】 opens the cutting steps, not a list
    assert texts("【准备材料】脆皮豆腐切菱形，蒜切片。【烧】热锅下干辣椒段")[:2] == ["脆皮豆腐切菱形", "蒜切片"]
