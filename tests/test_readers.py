"""Readers: the real CRG release (counts, json == pkl) and every kind of bad input, with line numbers."""

from __future__ import annotations

import gzip
import json
import shutil
import tracemalloc
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dishgraph.actions import ProtoAction
from dishgraph.ingest.readers import (
    BaseRecipe,
    Change,
    CorpusRecipe,
    ReadError,
    ReadReport,
    clean_name,
    join_steps,
    read_base_recipes,
    read_changing_ingredients,
    read_corpus,
    read_crg_release,
    read_dish_pairs,
    read_pivots,
)
from dishgraph.ingest.readers.corpus import _json_array_records
from dishgraph.ingest.readers.report import ReadContext

FIX = Path(__file__).parent / "fixtures" / "readers"


# ------------------------------------------------------------------------------------ the real release


@pytest.fixture(scope="module")
def release(crg_dir):
    return read_crg_release(crg_dir, source="json")


@pytest.fixture(scope="module")
def release_pkl(crg_dir):
    return read_crg_release(crg_dir, source="pkl")


def test_real_base_recipes(crg_dir):
    rep = ReadReport()
    recipes = list(read_base_recipes(crg_dir / "base_recipes.txt", report=rep))
    assert len(recipes) == 2500 and rep.read == 2500 and rep.skipped == 0 and rep.warned == 0
    first = recipes[0]
    assert isinstance(first, BaseRecipe)
    assert (first.base, first.target, first.line) == ("白灼菜心", "白灼秋葵", 1)
    assert first.text.startswith("菜心洗干净") and first.file.endswith("base_recipes.txt")
    assert recipes[-1].line == 2500
    assert len({(r.base, r.target) for r in recipes}) == 50  # 50 recipes for each of the 50 pairs


def test_real_pairs_and_changes(release, crg_dir):
    assert len(release.pairs) == 50
    assert Counter(p.change.kind for p in release.pairs) == {"replace": 46, "add": 4}
    first, last = release.pairs[0], release.pairs[-1]
    assert (first.base, first.target, first.line) == ("白灼菜心", "白灼秋葵", 1)
    assert first.change == Change("replace", "菜心", "秋葵", 1)
    assert (last.base, last.target, last.line) == ("炒牛肉", "胡萝卜炒牛肉", 50)  # line without a newline
    assert last.change == Change("add", None, "胡萝卜", 50)
    assert all(p.change.line == p.line for p in release.pairs)
    assert read_dish_pairs(crg_dir / "dish_pairs.txt")[-1].target == "胡萝卜炒牛肉"
    assert len(read_changing_ingredients(crg_dir / "changing_ingres.txt")) == 50


def test_real_pivots_and_constraints(release):
    pivots = [(t, p, k) for t, items in release.pivots.items() for p, k in items]
    assert len(pivots) == 1121 and len(release.pivots) == 50
    assert Counter(k for _, _, k in pivots) == {"remove": 679, "insert": 442}
    assert release.pivots["白灼秋葵"][0] == (ProtoAction("淋", frozenset({"蔬菜"})), "remove")
    assert all(type(p.verb) is str for _, p, _ in pivots)
    assert sum(len(v) for v in release.constraints.values()) == 199
    assert sum(len(it["pairs"]) for v in release.constraints.values() for it in v) == 520
    c0 = release.constraints["白灼秋葵"][0]
    assert c0["action"] == ProtoAction("切", frozenset({"洋葱"}))
    assert c0["pairs"][0] == (ProtoAction("去皮", frozenset({"洋葱"})), ProtoAction("切", frozenset({"洋葱"})))
    assert len(release.glossary.ingredient) > 6000 and release.glossary.verb["切"] == "切"


def test_json_and_pickle_give_identical_results(release, release_pkl):
    assert release.sources["pivots"].endswith("pivot_actions.json")
    assert release_pkl.sources["pivots"].endswith("original/pivot_actions.pkl")
    assert release_pkl.sources["glossary"].endswith("original/glossary_dict.pkl")
    assert release.pivots == release_pkl.pivots  # same order, same kinds
    assert release.constraints == release_pkl.constraints
    assert release.glossary == release_pkl.glossary
    assert release.pairs == release_pkl.pairs


def test_release_recipes_stream_and_report(crg_dir):
    rel = read_crg_release(crg_dir)
    assert sum(1 for _ in rel.recipes()) == 2500
    assert rel.report.skipped == 0
    assert rel.report.read_by_file[str(crg_dir / "base_recipes.txt")] == 2500
    assert rel.report.read_by_file[str(crg_dir / "dish_pairs.txt")] == 50


def test_release_misaligned_changes_is_an_error(tmp_path, crg_dir):
    for name in ("dish_pairs.txt", "base_recipes.txt", "glossary.json", "pivot_actions.json"):
        shutil.copy(crg_dir / name, tmp_path / name)
    lines = (crg_dir / "changing_ingres.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "changing_ingres.txt").write_text("".join(lines[:-1]), encoding="utf-8")
    with pytest.raises(ReadError, match=r"changing_ingres.txt: 49 changes for 50 dish pairs.*\[50\]"):
        read_crg_release(tmp_path)


def test_release_pickle_only_directory(tmp_path, crg_dir):
    """The layout of the GitHub repository's data/ folder: pickles beside the text files, no JSON."""
    for name in ("dish_pairs.txt", "changing_ingres.txt", "base_recipes.txt"):
        shutil.copy(crg_dir / name, tmp_path / name)
    for name in ("glossary_dict.pkl", "pivot_actions.pkl"):
        shutil.copy(crg_dir / "original" / name, tmp_path / name)
    rel = read_crg_release(tmp_path)
    assert rel.sources["pivots"] == str(tmp_path / "pivot_actions.pkl")
    assert sum(len(v) for v in rel.pivots.values()) == 1121
    with pytest.raises(FileNotFoundError, match="missing"):
        read_crg_release(tmp_path / "nowhere")


def test_malformed_pivot_entries_are_skipped_with_location(tmp_path):
    (tmp_path / "pivot_actions.json").write_text(
        json.dumps(
            {
                "红烧鱼": [
                    {"verb": "煎", "ingredients": ["鱼"], "tools": [], "kind": "insert"},
                    {"verb": "煎", "ingredients": ["鱼"], "tools": [], "kind": "sideways"},
                    {"ingredients": ["鱼"]},
                ]
            },
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )
    rep = ReadReport()
    pivots, constraints = read_pivots(tmp_path / "pivot_actions.json", report=rep)
    assert pivots == {"红烧鱼": [(ProtoAction("煎", frozenset({"鱼"})), "insert")]}
    assert constraints == {} and rep.skipped_by_reason == {"pivot": 2}
    assert "pivot_actions.json:['红烧鱼'][1]: malformed pivot action" in rep.messages[0]
    with pytest.raises(ReadError, match=r"\['红烧鱼'\]\[1\]"):
        read_pivots(tmp_path / "pivot_actions.json", strict=True)
    (tmp_path / "pivot_actions.json").write_text('{"a": [\n  {"verb": }\n]}', encoding="utf-8")
    with pytest.raises(ReadError, match=r"pivot_actions.json:2: not valid JSON"):
        read_pivots(tmp_path / "pivot_actions.json")


# ------------------------------------------------------------------------------------------ bad input


def test_bad_base_recipes_fixture():
    rep = ReadReport()
    recs = list(read_base_recipes(FIX / "base_recipes_bad.txt", report=rep))
    assert [r.line for r in recs] == [1, 2, 7, 8, 9, 10, 13]
    by_line = {r.line: r for r in recs}
    assert by_line[1].base == "红烧肉"  # BOM stripped
    assert by_line[2].text == "鱼洗净，上锅蒸十分钟。"  # CRLF stripped
    assert by_line[7].text == "Boil the pasta."  # no CJK: kept, flagged
    assert by_line[8].base == 'x"}) MATCH (n) DETACH DELETE n //'  # hostile name kept verbatim
    assert by_line[9].base == "鱼香肉丝"  # control characters stripped
    assert by_line[10].base == "长" * 100  # capped
    assert by_line[13].text == "豆腐切块，下锅。"  # last line without newline
    assert rep.read == 7
    assert rep.skipped_by_reason == {"columns": 2, "empty-recipe": 1, "encoding": 1, "empty-dish": 1}
    assert rep.blank == 1  # blank lines are counted apart: they are not skipped input
    assert rep.warned_by_reason == {"no-cjk": 1, "control-chars": 1, "long-name": 1}
    name = "base_recipes_bad.txt"
    expected = {
        3: "expected 3 tab-separated columns",
        5: "empty recipe",
        6: "not UTF-8",
        7: "no Chinese character",
        9: "control/format characters removed",
        10: "cut to 100",
        11: "got 4",
        12: "empty dish name",
    }
    assert len(rep.messages) == len(expected)
    for msg, (line, text) in zip(rep.messages, sorted(expected.items())):
        assert f"{name}:{line}: " in msg and text in msg, msg
    assert "skipped 5" in rep.summary() and "3 warnings" in rep.summary()


def test_strict_mode_raises_at_first_bad_line():
    it = read_base_recipes(FIX / "base_recipes_bad.txt", strict=True)
    assert next(it).line == 1 and next(it).line == 2
    with pytest.raises(ReadError) as e:
        next(it)
    assert e.value.line == 3 and e.value.reason == "columns"
    assert str(e.value).startswith(f"{FIX / 'base_recipes_bad.txt'}:3: expected 3")


def test_too_long_line_is_skipped_and_next_line_read(tmp_path):
    p = tmp_path / "base_recipes.txt"
    with open(p, "wb") as fh:
        fh.write("红烧肉\t红烧鱼\t切块。\n".encode())
        fh.write(b"x\ty\t" + "很".encode() * 800_000 + b"\n")  # 2.4 MB line
        fh.write("清蒸鱼\t红烧鱼\t蒸。\n".encode())
    rep = ReadReport()
    recs = list(read_base_recipes(p, report=rep))
    assert [r.line for r in recs] == [1, 3]
    assert rep.skipped_by_reason == {"too-long": 1}
    assert f"{p}:2: line longer than {1 << 20} bytes" in rep.messages[0]
    rep2 = ReadReport()
    # a longer line limit reads the line; its 800,000-character recipe is then over the recipe cap
    assert [r.line for r in read_base_recipes(p, report=rep2, max_line_bytes=3 << 20)] == [1, 3]
    assert rep2.skipped_by_reason == {"long-recipe": 1} and f"{p}:2: recipe for 'x' of 800,000" in rep2.messages[0]
    assert [r.line for r in read_base_recipes(p, max_line_bytes=26)] == [3]  # 26 bytes + newline fit


def test_report_keeps_first_messages_but_counts_all(tmp_path):
    p = tmp_path / "b.txt"
    p.write_text("".join(f"bad line {i}\n" for i in range(30)) + "菜\t菜\t炒。\n", encoding="utf-8")
    rep = ReadReport(max_messages=5)
    assert len(list(read_base_recipes(p, report=rep))) == 1
    assert rep.skipped == 30 and len(rep.messages) == 5 and rep.messages[4].startswith(f"{p}:5:")


def test_changes_and_pairs_bad_lines(tmp_path):
    (tmp_path / "c.txt").write_text("菜心 秋葵\n 皮蛋\na b c\n\n牛肉\t猪肉\r\n", encoding="utf-8")
    rep = ReadReport()
    changes = read_changing_ingredients(tmp_path / "c.txt", report=rep)
    assert changes == [
        Change("replace", "菜心", "秋葵", 1),
        Change("add", None, "皮蛋", 2),
        Change("replace", "牛肉", "猪肉", 5),
    ]
    assert rep.skipped_by_reason == {"columns": 1} and rep.blank == 1
    assert "c.txt:3: expected 1 (add) or 2 (replace) ingredients, got 3" in rep.messages[0]
    (tmp_path / "p.txt").write_text("白灼菜心 白灼秋葵\n只有一个\n", encoding="utf-8")
    with pytest.raises(ReadError, match=r"p.txt:2: expected 2 dish names"):
        read_dish_pairs(tmp_path / "p.txt", strict=True)


def test_clean_name():
    assert clean_name(" 红烧\u200b肉\n ") == "红烧肉"
    assert clean_name("MATCH (n) RETURN n; //'\"") == "MATCH (n) RETURN n; //'\""
    assert clean_name("鱼" * 300, max_chars=10) == "鱼" * 10


# -------------------------------------------------------------------------------------------- corpora


def _summary(recs: list[CorpusRecipe]):
    return [(r.dish, r.title, r.text, r.id) for r in recs]


EXPECTED = [
    ("红烧肉", "超好吃的红烧肉", "1、五花肉切块2、炒糖色3、加水炖一小时", "101"),
    ("番茄炒蛋", None, "1、番茄切块2、鸡蛋打散炒熟", None),
    ("凉拌黄瓜", "夏日凉拌", "黄瓜拍碎，加蒜末和醋拌匀。", None),
]


def test_jsonl_corpus():
    rep = ReadReport()
    recs = list(read_corpus(FIX / "corpus.jsonl", report=rep))
    assert _summary(recs) == EXPECTED and [r.line for r in recs] == [1, 2, 5]
    assert rep.skipped_by_reason == {"json": 1, "not-an-object": 1, "missing-dish": 1, "bad-text": 1, "empty-recipe": 1}
    lines = [int(m.split(":")[1]) for m in rep.messages]
    assert lines == [3, 4, 6, 7, 8]
    assert "malformed JSON" in rep.messages[0]


def test_csv_corpus_as_a_spreadsheet_writes_it(tmp_path):
    """Quoted fields with commas, doubled quotes and a line break inside; a short row is skipped by line."""
    path = tmp_path / "corpus.csv"
    path.write_text(
        'dish,text\n番茄炒蛋,"鸡蛋打散，番茄切块。炒熟。"\n"红烧肉","五花肉切块，焯水。\n加糖炒色，说""好了""。"\n只有菜名\n',
        encoding="utf-8",
    )
    rep = ReadReport()
    recs = list(read_corpus(path, report=rep))
    assert [(r.dish, r.line) for r in recs] == [("番茄炒蛋", 2), ("红烧肉", 4)]
    assert recs[1].text == '五花肉切块，焯水。\n加糖炒色，说"好了"。'
    assert rep.skipped_by_reason == {"columns": 1} and rep.messages[0].startswith(f"{path}:5: expected 2 comma")


def test_a_comma_file_read_as_tsv_says_so(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("番茄炒蛋,鸡蛋打散，番茄切块。\n", encoding="utf-8")
    rep = ReadReport()
    assert list(read_corpus(path, report=rep)) == []
    assert "a comma-separated file? name it .csv or give --format csv" in rep.messages[0]


def test_json_array_corpus_same_records_with_line_numbers():
    rep = ReadReport()
    recs = list(read_corpus(FIX / "corpus.json", report=rep))
    assert _summary(recs) == EXPECTED and [r.line for r in recs] == [2, 12, 23]
    assert rep.skipped_by_reason == {"missing-dish": 1, "bad-text": 1, "empty-recipe": 1}
    assert rep.messages[0].startswith(f"{FIX / 'corpus.json'}:28: no usable 'dish'")


@pytest.mark.parametrize("chunk", [1, 3, 7, 64])
def test_json_array_parser_across_chunk_boundaries(chunk):
    ctx = ReadContext(FIX / "corpus.json", None, False)
    small = list(_json_array_records(ctx, 1 << 20, chunk_chars=chunk))
    whole = list(_json_array_records(ReadContext(FIX / "corpus.json", None, False), 1 << 20))
    assert small == whole and [line for line, _ in small] == [2, 12, 23, 28, 32, 36]


def test_json_array_malformed_element_is_skipped_and_reading_goes_on(tmp_path):
    p = tmp_path / "c.json"
    p.write_text(
        '[\n{"dish": "红烧肉", "text": "切块。"},\n{"dish": "鱼", "text": },\n{"dish": "虾", "text": "煮。"}\n]',
        encoding="utf-8",
    )
    rep = ReadReport()
    assert [r.dish for r in read_corpus(p, report=rep)] == ["红烧肉", "虾"]  # a bad element costs no good one
    assert rep.skipped_by_reason == {"json": 1}
    assert f"{p}:3: malformed JSON element" in rep.messages[0] and "the next one is read" in rep.messages[0]
    with pytest.raises(ReadError, match=r"c.json:3: malformed JSON element"):
        list(read_corpus(p, strict=True))
    (tmp_path / "o.json").write_text('{"dish": "a"}{"dish": "b"}', encoding="utf-8")
    with pytest.raises(ReadError, match="top-level array"):
        list(read_corpus(tmp_path / "o.json", format="json"))
    cut = tmp_path / "cut.json"  # the file ends inside an element: what came before is kept
    cut.write_text('[\n{"dish": "红烧肉", "text": "切块。"},\n{"dish": "鱼", "te', encoding="utf-8")
    rep = ReadReport()
    assert [r.dish for r in read_corpus(cut, report=rep)] == ["红烧肉"]
    assert f"{cut}:3: unexpected end of file inside an element; elements before it were read" in rep.messages[0]


def _record(i: int, text: str = "切块。") -> str:
    return json.dumps({"dish": f"菜{i}", "text": text}, ensure_ascii=False)


def test_json_array_element_over_the_limit_is_skipped_and_the_rest_is_read(tmp_path):
    """Issue #25 §3: [good, <2 MB element>, good, good, good] keeps all 4 good records."""
    p = tmp_path / "c.json"
    big = json.dumps({"dish": "大", "text": "切，" * (1 << 20), "x": ["]", '\\"', {"}": "["}]}, ensure_ascii=False)
    assert len(big) > 2_000_000
    p.write_text("[\n" + _record(1) + ",\n" + big + ",\n" + ",\n".join(_record(i) for i in (2, 3, 4)) + "\n]", "utf-8")
    rep = ReadReport()
    assert [r.dish for r in read_corpus(p, report=rep)] == ["菜1", "菜2", "菜3", "菜4"]
    assert rep.skipped_by_reason == {"too-long": 1}
    assert rep.messages == [f"{p}:3: JSON element of {len(big):,} characters, over 1,048,576: skipped"]


def test_json_array_limit_is_the_stated_one(tmp_path):
    """1,048,576 characters (``MAX_LINE_BYTES``, the documented limit): an element of exactly that is read,
    one character more is skipped."""
    from dishgraph.ingest.readers import MAX_LINE_BYTES

    assert MAX_LINE_BYTES == 1_048_576

    def padded(i: int, n: int) -> str:  # a record of n characters (padded in a field that is not the text)
        return json.dumps(
            {"dish": f"菜{i}", "text": "切块。", "note": "注" * (n - len(padded_head(i)))}, ensure_ascii=False
        )

    def padded_head(i: int) -> str:
        return json.dumps({"dish": f"菜{i}", "text": "切块。", "note": ""}, ensure_ascii=False)

    at_limit, over = padded(0, MAX_LINE_BYTES), padded(1, MAX_LINE_BYTES + 1)
    assert (len(at_limit), len(over)) == (MAX_LINE_BYTES, MAX_LINE_BYTES + 1)
    p = tmp_path / "c.json"
    p.write_text(f"[{at_limit} ,\n\n{over}\t,{_record(2)}]", encoding="utf-8")
    rep = ReadReport()
    assert [r.dish for r in read_corpus(p, report=rep)] == ["菜0", "菜2"]
    assert rep.messages == [f"{p}:3: JSON element of 1,048,577 characters, over 1,048,576: skipped"]


@pytest.mark.parametrize("chunk", [1, 2, 5, 64])
def test_json_array_over_limit_elements_across_chunk_boundaries(tmp_path, chunk):
    """Escapes, quotes and brackets inside strings, split at every chunk boundary: over-long elements are
    read past by their structure, the good ones around them are kept with their line numbers."""
    good = [{"dish": "a\\", "text": 'x"],{"}'}, {"dish": "b", "text": "y"}]
    long_obj = json.dumps({"dish": "too long", "text": '\\"]]]}}}', "n": [1, 2, 3, {"a": "b"}]})
    long_str = json.dumps("a string that is far too long, with a ] and a \\ in it")
    text = f"[{json.dumps(good[0])}, {long_obj}, \n {long_str},\n{json.dumps(good[1])}]"
    p = tmp_path / "c.json"
    p.write_text(text, encoding="utf-8")
    ctx = ReadContext(p, None, False)
    got = list(_json_array_records(ctx, 40, chunk_chars=chunk))
    assert got == [(1, good[0]), (3, good[1])]
    assert len(json.dumps(good[0])) <= 40 < min(len(long_obj), len(long_str))
    assert ctx.report.messages == [
        f"{p}:1: JSON element of {len(long_obj)} characters, over 40: skipped",
        f"{p}:2: JSON element of {len(long_str)} characters, over 40: skipped",
    ]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@given(
    st.lists(JSON_VALUES, min_size=1, max_size=8),
    st.integers(1, 70),
    st.sampled_from([",", ",\n", " ,\t", "\r\n,\r\n"]),
)
@settings(max_examples=150, derandomize=True, database=None, deadline=None)
def test_json_array_keeps_every_element_within_the_limit_whatever_is_around_it(tmp_path_factory, items, chunk, sep):
    limit = 60
    texts = [json.dumps({"k": v}, ensure_ascii=bool(i % 2)) for i, v in enumerate(items)]
    p = tmp_path_factory.mktemp("arr") / "c.json"
    p.write_text("[" + sep.join(texts) + "]", encoding="utf-8")
    ctx = ReadContext(p, None, False)
    got = [v for _, v in _json_array_records(ctx, limit, chunk_chars=chunk)]
    assert got == [json.loads(t) for t in texts if len(t) <= limit]
    assert ctx.report.skipped == ctx.report.skipped_by_reason["too-long"] == sum(len(t) > limit for t in texts)


def test_json_array_non_utf8_element_skipped(tmp_path):
    p = tmp_path / "c.json"
    p.write_bytes(
        '[{"dish": "红烧肉", "text": "切块。"},\n{"dish": "'.encode()
        + b"\xff\xfe"
        + '", "text": "煮。"},\n{"dish": "虾", "text": "煮。"}]'.encode()
    )
    rep = ReadReport()
    assert [r.dish for r in read_corpus(p, report=rep)] == ["红烧肉", "虾"]
    assert rep.skipped_by_reason == {"encoding": 1} and f"{p}:2: not UTF-8" in rep.messages[0]


def test_tsv_corpus_with_header_and_headerless(tmp_path):
    rep = ReadReport()
    recs = list(read_corpus(FIX / "corpus.tsv", report=rep))
    assert _summary(recs) == [
        ("红烧肉", "家常红烧肉", "1、五花肉切块2、炒糖色", "7"),
        ("番茄炒蛋", None, "番茄切块，鸡蛋炒熟。", "8"),
    ]
    assert rep.skipped_by_reason == {"columns": 1} and "corpus.tsv:4: expected 4" in rep.messages[0]
    p = tmp_path / "plain.tsv"
    p.write_text("红烧肉\t五花肉切块。\n坏\t行\t多\n", encoding="utf-8")
    rep = ReadReport()
    assert _summary(list(read_corpus(p, report=rep))) == [("红烧肉", None, "五花肉切块。", None)]
    assert "plain.tsv:2: expected 2 tab-separated columns" in rep.messages[0]


def test_corpus_field_options(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text(
        json.dumps(
            {"cai": "鱼香肉丝", "t": "标题", "bu": ["切丝", "炒"], "rid": "r1", "text": "忽略"}, ensure_ascii=False
        )
        + "\n",
        encoding="utf-8",
    )
    (r,) = read_corpus(p, dish_field="cai", title_field="t", steps_field="bu", id_field="rid")
    assert (r.dish, r.title, r.text, r.id) == ("鱼香肉丝", "标题", "1、切丝2、炒", "r1")
    with pytest.raises(ValueError, match="unknown corpus format"):
        list(read_corpus(p, format="xml"))


def test_gz_is_transparent(tmp_path):
    for name in ("corpus.jsonl", "corpus.json"):
        gz = tmp_path / (name + ".gz")
        gz.write_bytes(gzip.compress((FIX / name).read_bytes()))
        assert _summary(list(read_corpus(gz))) == EXPECTED
    truncated = tmp_path / "t.jsonl.gz"
    truncated.write_bytes(gzip.compress((FIX / "corpus.jsonl").read_bytes() * 50)[:-30])
    rep = ReadReport()
    got = list(read_corpus(truncated, report=rep))
    assert 0 < len(got) < 150 and rep.skipped_by_reason["corrupt"] == 1  # the records before the damage
    assert "compressed data damaged after byte" in rep.messages[-1] or rep.skipped > len(rep.messages)
    good = "".join(
        json.dumps({"dish": "红烧肉", "text": f"第{i}步切块。"}, ensure_ascii=False) + "\n" for i in range(500)
    )
    truncated.write_bytes(gzip.compress(good.encode())[:-40])
    with pytest.raises(ReadError, match="compressed data damaged"):
        list(read_corpus(truncated, strict=True))


def test_join_steps():
    assert join_steps(["切块", " ", {"text": "炒"}, None, "出锅"]) == "1、切块2、炒3、出锅"


def _big_corpus(path: Path, n: int, as_array: bool) -> None:
    step = "把五花肉切成大小均匀的块，冷水下锅焯水去掉血沫，捞出沥干。" * 3
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("[\n" if as_array else "")
        for i in range(n):
            rec = json.dumps(
                {"id": i, "dish": f"红烧肉{i % 97}", "recipeInstructions": [step, step]}, ensure_ascii=False
            )
            fh.write(rec + ((",\n" if i < n - 1 else "\n") if as_array else "\n"))
        fh.write("]\n" if as_array else "")


def _peak_bytes(path: Path) -> tuple[int, int]:
    tracemalloc.start()
    count = sum(1 for _ in read_corpus(path))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return count, peak


@pytest.mark.parametrize("as_array", [False, True])
def test_streaming_memory_is_constant(tmp_path, as_array):
    """Peak memory does not grow with the file: 4x the records, same peak (a few MB at most)."""
    peaks = []
    for n in (2000, 8000):
        p = tmp_path / (f"big{n}.json.gz" if as_array else f"big{n}.jsonl.gz")
        _big_corpus(p, n, as_array)
        count, peak = _peak_bytes(p)
        assert count == n
        peaks.append(peak)
    small, large = peaks
    assert large < 4 * (1 << 20), peaks  # the 8000-record file is ~4.7 MB of text
    assert large < small * 1.25 + (64 << 10), peaks


def test_estimate_records_counts_non_blank_lines_of_line_formats(tmp_path, crg_dir):
    """The ingest progress bar's total: the 2,500 release lines as a headerless TSV, a JSONL with blank lines,
    and no estimate where counting would cost a second full read (gzip) or lines mean nothing (JSON array)."""
    from dishgraph.ingest.readers import estimate_records

    tsv = tmp_path / "release.tsv"
    tsv.write_bytes(
        "".join(
            f"{b}\t{r}\n"
            for b, _, r in (
                line.split("\t", 2) for line in (crg_dir / "base_recipes.txt").read_text(encoding="utf-8").splitlines()
            )
        ).encode("utf-8")
    )
    assert estimate_records(tsv) == 2500
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text('{"dish": "a", "text": "切"}\n\n  \n{"dish": "b", "text": "炒"}', encoding="utf-8")
    assert estimate_records(jsonl) == 2
    gz = tmp_path / "c.jsonl.gz"
    gz.write_bytes(gzip.compress(jsonl.read_bytes()))
    assert estimate_records(gz) is None
    arr = tmp_path / "c.json"
    arr.write_text('[{"dish": "a", "text": "切"}]', encoding="utf-8")
    assert estimate_records(arr) is None


@pytest.mark.parametrize("encoding", ["gb18030", "utf-8"])
def test_lines_of_objects_followed_by_commas_are_read_as_records(tmp_path, data_dir, encoding):
    """A crawler's dump: one JSON object a line, each followed by a comma (an array without its brackets),
    GB-encoded: 20 real XiaChuFang records, every one read (issue #25 §3)."""
    src = tmp_path / "orig.jsonl"
    with open(data_dir / "xiachufang" / "recipes.jsonl", encoding="utf-8") as fh:
        src.write_text("".join(next(fh) for _ in range(20)), encoding="utf-8")
    want = [(r.dish, r.title, r.text) for r in read_corpus(src)]
    dump = tmp_path / "dump.json"
    lines = [json.dumps(json.loads(line), ensure_ascii=False) for line in src.read_text("utf-8").splitlines()]
    dump.write_bytes(("\r\n".join(line + "," for line in lines[:-1]) + "\r\n" + lines[-1] + "\r\n").encode(encoding))
    rep = ReadReport()
    got = [(r.dish, r.title, r.text) for r in read_corpus(dump, report=rep)]
    assert len(want) == 20 and got == want and rep.skipped == 0
    bad = tmp_path / "bad.jsonl"  # a comma does not excuse other damage: reported with its line
    bad.write_text(lines[0] + ",\n" + lines[1] + ",,\n" + lines[2] + "\n", encoding="utf-8")
    rep = ReadReport()
    assert len(list(read_corpus(bad, report=rep))) == 2 and rep.messages[0].startswith(f"{bad}:2: malformed JSON")


def test_a_recipe_over_the_character_cap_is_skipped_with_its_line(tmp_path):
    """Issue #25 §3: one recipe's text is capped (MAX_RECIPE_CHARS), so parsing it cannot take memory in
    proportion to the input; at the cap a record is read, one character more and it is skipped."""
    from dishgraph.ingest.readers import MAX_RECIPE_CHARS

    p = tmp_path / "c.jsonl"
    at_cap = "切葱，" * (MAX_RECIPE_CHARS // 3) + "炒" * (MAX_RECIPE_CHARS % 3)
    p.write_text(
        "\n".join(_record(i, t) for i, t in enumerate([at_cap, at_cap + "炒", "切块。"])) + "\n", encoding="utf-8"
    )
    rep = ReadReport()
    assert [len(r.text) for r in read_corpus(p, report=rep)] == [MAX_RECIPE_CHARS, 3]
    assert rep.skipped_by_reason == {"long-recipe": 1}
    assert rep.messages == [f"{p}:2: recipe for '菜1' of 20,001 characters, over the cap of 20,000: skipped"]


def test_the_ingest_progress_bar_draws_on_stderr():
    """stdout holds the result (a table or the JSON a pipe reads); the bar never mixes into it."""
    from dishgraph.ingest.pipeline import progress_bar

    assert progress_bar().console.stderr


def test_workers_are_capped_by_cores_and_memory(capsys):
    import os

    from dishgraph.commands.ingest import capped_workers

    cores = os.cpu_count() or 1
    assert capped_workers(1) == 1
    capped = capped_workers(200)
    assert 1 <= capped <= 2 * cores and "--workers 200 capped to" in capsys.readouterr().err
