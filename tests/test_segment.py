"""Both segmenters: offsets map back to the text, cooking words survive, choice by name/env, pickling."""
import pickle

import pytest

from dishgraph.ingest.segment import JiebaSegmenter, LacSegmenter, Token, make_segmenter

TEXT = "把菜心放入锅中，用勺子搅拌均匀。"


@pytest.fixture(scope="module", params=["lac", "jieba"])
def seg(request, glossary):
    return make_segmenter(request.param, glossary)


def test_offsets_index_the_text(seg):
    toks = seg.cut(TEXT)
    assert "".join(t.word for t in toks) == TEXT
    for t in toks:
        assert TEXT[t.start:t.end] == t.word
    assert all(isinstance(t, Token) and t.pos for t in toks)


def test_cooking_words_kept_whole(seg):
    words = [t.word for t in seg.cut("把菜心放入锅中")]
    assert "菜心" in words and "放入" in words


def test_empty_and_non_chinese(seg):
    assert seg.cut("") == []
    toks = seg.cut("Boil 2 eggs!")
    assert "".join(t.word for t in toks) == "Boil 2 eggs!"


def test_lac_long_text_is_windowed():
    seg = LacSegmenter(max_len=16)
    text = "锅中放水烧开，放入菜心焯一下，捞出沥干水分。" * 3
    toks = seg.cut(text)
    assert "".join(t.word for t in toks) == text
    assert all(text[t.start:t.end] == t.word for t in toks)


def test_choice_by_name_and_env(monkeypatch, glossary):
    assert make_segmenter("jieba", glossary).name == "jieba"
    assert make_segmenter("lac").name == "lac"
    monkeypatch.setenv("DISHGRAPH_SEGMENTER", "jieba")
    assert make_segmenter("auto", glossary).name == "jieba"
    monkeypatch.delenv("DISHGRAPH_SEGMENTER")
    assert make_segmenter("auto").name == "lac"
    with pytest.raises(ValueError, match="unknown segmenter"):
        make_segmenter("hanlp")


def test_jieba_uses_glossary_words(glossary):
    seg = JiebaSegmenter(glossary)
    assert ("菜心", "n") in seg.words
    assert ("放入", "v") in seg.words


def test_segmenters_pickle(seg):
    clone = pickle.loads(pickle.dumps(seg))
    assert clone.cut(TEXT) == seg.cut(TEXT)
