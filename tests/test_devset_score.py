"""The dev-set scorer on hand-written markup: verb P/R, role accuracy, attachment P/R, agreement."""

from dishgraph.eval.devset import GoldRecipe, agree, match_spans, parse_markup, score, score_parser


def rec(rid, markup):
    r = parse_markup(markup)
    r.id = rid
    return r


GOLD = rec("x:1", "{洋葱/F}<剥皮=洋葱><洗净=洋葱>，<切=^洋葱>{丝/S}，{大火/H}<炒=^洋葱>{2分钟/D}")


def test_an_annotation_agrees_with_itself():
    s = score([GOLD], [GOLD], ["切", "炒"])
    assert s["verb_precision"] == s["verb_recall"] == 100.0
    assert s["role_accuracy"] == 100.0
    assert s["attachment"]["all"]["precision"] == s["attachment"]["all"]["recall"] == 100.0
    assert s["attachment"]["explicit"]["recall"] == 100.0 and s["attachment"]["explicit"]["gold"] == 2


def test_misses_and_false_alarms_count():
    pred = rec("x:1", "{洋葱/F}<剥皮=洋葱>洗净，<切=丝>{丝/F}，{大火/F}炒2分钟")
    assert pred.text == GOLD.text
    s = score([GOLD], [pred], ["切", "炒"])
    assert s["counts"]["verb_tp"] == 2 and s["verb_precision"] == 100.0 and s["verb_recall"] == 50.0
    assert s["glossary_verb_recall"] == 50.0  # 切 found, 炒 missed
    assert s["role_accuracy"] == round(100 / 3, 1)  # 洋葱 right; 丝 and 大火 typed food
    assert s["role_confusion"] == {"S->F": 1, "H->F": 1}
    att = s["attachment"]["all"]
    assert (att["tp"], att["pred"], att["gold"]) == (1, 2, 4)


def test_spans_match_one_to_one():
    assert match_spans([(0, 2), (2, 4)], [(0, 4)]) == {0: 0}
    assert match_spans([(0, 2)], [(0, 1), (1, 2)]) == {0: 0}


def test_agreement_uses_shared_records_only():
    other = rec("x:2", "<切>")
    s = agree([GOLD, other], [GOLD])
    assert s["counts"]["recipes"] == 1 and s["verb_recall"] == 100.0


def test_parser_on_the_onion(glossary):
    from dishgraph.ingest.parser import RecipeParser

    gold = [rec("x:1", "{洋葱/F}<剥皮=洋葱><洗净=^洋葱>，<切=^洋葱>{丝/S}")]
    s = score_parser(RecipeParser(glossary, "lac"), gold)
    assert s["verb_precision"] == s["verb_recall"] == 100.0
    assert s["attachment"]["all"]["recall"] == 100.0
    crg = score_parser(RecipeParser(glossary, "lac"), gold, typed=False)
    assert crg["role_accuracy"] < 100.0  # the CRG reading attaches 丝 as an ingredient
    assert isinstance(gold[0], GoldRecipe)
