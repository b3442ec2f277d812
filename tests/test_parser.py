"""Rule parser: splitting with spans, attachment rules, omission, both segmenters, bad input, pickling."""

import pickle

import pytest

from dishgraph.actions import ProtoAction
from dishgraph.ingest.parser import Clause, RecipeParser


@pytest.fixture(scope="module", params=["lac", "jieba"])
def parser(request, glossary):
    return RecipeParser(glossary, segmenter=request.param)


def by_verb(actions, verb):
    return [a for a in actions if a.verb == verb]


def test_clauses_split_steps_and_keep_spans(parser):
    text = "1、洗净鱿鱼颈，去除墨囊。2.焯过捞起沥水。③装盘\n步骤4：撒葱花"
    cls = parser.clauses(text)
    assert [c.text for c in cls] == ["洗净鱿鱼颈", "去除墨囊", "焯过捞起沥水", "装盘", "撒葱花"]
    assert [c.step for c in cls] == [0, 0, 1, 2, 3]
    assert [c.index for c in cls] == [0, 1, 2, 3, 4]
    for c in cls:
        assert isinstance(c, Clause) and text[c.start : c.end] == c.text


def test_decimal_numbers_are_not_step_markers(parser):
    cls = parser.clauses("加入1.5勺盐，煮2分钟")
    assert [c.text for c in cls] == ["加入1.5勺盐", "煮2分钟"]


def test_action_spans_index_original_text(parser):
    text = "1、洗净鱿鱼颈，去除中间墨囊及鱿鱼嘴，切成块。2、焯过捞起沥水。"
    acts = parser.parse(text)
    assert acts
    for a in acts:
        assert text[a.start : a.end] == a.phrase
        assert a.verb in a.phrase
        assert a.proto is not None
    wash = by_verb(acts, "洗净")[0]
    assert "鱿鱼" in wash.ingredients and wash.proto.verb == "洗净"


def test_ba_object_goes_to_following_verb(parser):
    acts = parser.parse("把菜心放入锅中")
    (put,) = by_verb(acts, "放入")
    assert put.ingredients == ["菜心"] and put.tools == ["锅"]
    assert put.proto == ProtoAction("加入", frozenset({"油菜"}), frozenset({"锅"}))


def test_container_is_a_tool(parser):
    acts = parser.parse("在碗里加入生抽")
    (add,) = by_verb(acts, "加入")
    assert "碗" in add.tools and add.ingredients == ["生抽"]


def test_topic_noun_attaches_to_first_verb(parser):
    acts = parser.parse("土豆去皮切成丝")
    peel = by_verb(acts, "去皮")[0]
    assert "土豆" in peel.ingredients


def test_serial_verbs(parser):
    acts = parser.parse("鱿鱼焯过捞起沥水")
    verbs = [a.proto.verb for a in acts]
    assert verbs[0] == "过" and "捞出" in verbs
    lift = [a for a in acts if a.proto.verb == "捞出"][0]
    assert lift.ingredients == ["沥水"]


def test_relative_clause_head_noun(parser):
    # 炸好的地瓜: 地瓜 is the object of the verb before the clause (and of 炸 itself)
    acts = parser.parse("倒入炸好的地瓜翻炒")
    assert by_verb(acts, "倒入")[0].ingredients == ["地瓜"] and by_verb(acts, "炸")[0].ingredients == ["地瓜"]
    # inside a 把 phrase, or opening the clause, the head noun goes to the verb after it
    (pour,) = by_verb(parser.parse("把炸好的地瓜倒入锅中"), "倒入")
    assert pour.ingredients == ["地瓜"] and pour.tools == ["锅"]
    (rinse,) = by_verb(parser.parse("切好的土豆丝冲洗干净"), "冲洗")
    assert rinse.ingredients == ["土豆丝"] and not rinse.inherited
    # a clause verb with its own object keeps it: 切片的黄瓜 → 切(片), 放入(黄瓜)
    acts = parser.parse("放入切片的黄瓜")
    assert by_verb(acts, "放入")[0].ingredients == ["黄瓜"]
    assert [a.ingredients for a in acts if a.proto.verb == "切"] == [["片"]]


def test_yong_phrase(parser):
    # 用 is a glossary verb in the release: CRG keeps 用(勺子) as its own action.
    acts = parser.parse("用勺子搅拌")
    use = by_verb(acts, "用")[0]
    assert use.tools == ["勺子"]


def test_omission_inherits_previous_ingredients(parser):
    acts = parser.parse("洗净油菜，翻炒后盛出。")
    lift = [a for a in acts if a.proto.verb == "捞出"][-1]
    assert lift.inherited and lift.ingredients == ["油菜"]
    first = acts[0]
    assert not first.inherited


def test_no_inheritance_without_previous(parser):
    acts = parser.parse("搅拌均匀")
    assert len(acts) == 1 and not acts[0].inherited and acts[0].ingredients == []


def test_parenthesised_asides_hold_no_actions(parser):
    acts = parser.parse("加入蒜末（我个人很喜欢加盐），翻炒")
    assert all(a.proto.verb != "加入" or "盐" not in a.proto.ingredients for a in acts)


def test_bad_input(parser):
    assert parser.parse("") == []
    assert parser.clauses("") == []
    assert parser.parse("Hello world. 12345!") == []
    with pytest.raises(TypeError):
        parser.parse(None)
    huge = "锅中放水烧开，放入菜心焯一下，捞出沥干水分。" * 400
    acts = parser.parse(huge)
    assert len(acts) >= 400 and all(huge[a.start : a.end] == a.phrase for a in acts)


def test_deterministic_and_picklable(parser):
    text = "菜心洗干净，锅中放水烧开，放入菜心焯一下，捞出沥干。淋上蚝油汁即可。"
    clone = pickle.loads(pickle.dumps(parser))
    assert [vars(a) for a in clone.parse(text)] == [vars(a) for a in parser.parse(text)]
    assert len(pickle.dumps(parser)) < 1_000_000


def test_parser_in_worker_process(glossary):
    import multiprocessing as mp

    p = RecipeParser(glossary, segmenter="jieba")
    with mp.get_context("spawn").Pool(1) as pool:
        out = pool.map(p.parse, ["洗净油菜，切段。"])
    assert [a.proto.verb for a in out[0]] == [a.proto.verb for a in p.parse("洗净油菜，切段。")]


def test_parse_many_equals_parse(parser, crg_dir):
    """The ingest workers' batched path gives exactly the one-at-a-time parses on real recipes."""
    from dishgraph.ingest.readers import read_base_recipes

    texts = [r.text for r in read_base_recipes(crg_dir / "base_recipes.txt", strict=True)][::50] + ["", "。"]
    many = parser.parse_many(texts)
    assert [[(a.verb, a.ingredients, a.tools, a.start, a.end, a.inherited) for a in acts] for acts in many] == [
        [(a.verb, a.ingredients, a.tools, a.start, a.end, a.inherited) for a in parser.parse(t)] for t in texts
    ]
    assert sum(len(a) for a in many) > 500


def test_parse_many_segments_each_clause_that_can_hold_an_action_once(parser):
    """Verbless clauses (no glossary verb form inside) are not segmented; repeated clauses once."""
    sent: list[str] = []
    real_cut_many = parser.segmenter.cut_many

    def spy(texts):
        sent.extend(texts)
        return real_cut_many(texts)

    parser.segmenter.cut_many = spy
    try:
        out = parser.parse_many(["热锅，倒油，放入姜片炒香。", "热锅，倒油，加盐。", "美味😍"])
    finally:
        del parser.segmenter.cut_many
    assert "热锅" not in sent and "美味😍" not in sent  # no glossary verb form in them
    assert sent.count("倒油") == 1 and len(sent) == len(set(sent))
    assert [(a.verb, a.ingredients) for a in out[0]] == [
        (a.verb, a.ingredients) for a in parser.parse("热锅，倒油，放入姜片炒香。")
    ]
    assert out[2] == []


def test_parsing_leaves_the_cycle_collector_as_it_found_it(parser):
    """Parses pause the cycle collector while they run (speed) and give it back as it was, also on an error."""
    import gc

    def failing_cut(text):
        raise RuntimeError("segmenter down")

    assert gc.isenabled()
    parser.parse("洗净油菜，切段。")
    parser.parse_many(["洗净油菜，切段。", "热锅，倒油。"])
    assert gc.isenabled()
    parser.segmenter.cut = failing_cut
    try:
        with pytest.raises(RuntimeError):
            parser.parse("洗净油菜，切段。")
    finally:
        del parser.segmenter.cut
    assert gc.isenabled()
    gc.disable()
    try:
        parser.parse("洗净油菜，切段。")
        assert not gc.isenabled()  # a caller that turned it off keeps it off
    finally:
        gc.enable()
