"""Word vectors for soft L2 matching: text-format files and PPMI-SVD trained on recipes."""

from __future__ import annotations

import numpy as np
import pytest

from dishgraph.eval.embeddings import PhraseEmbedder, WordVectors, load_vectors, train_ppmi_svd


def test_load_text_with_and_without_header(tmp_path):
    p = tmp_path / "wv.txt"
    p.write_text("3 2\n切 1 0\n葱 0 1\n炒 1 1\n", encoding="utf-8")
    wv = WordVectors.load_text(p)
    assert len(wv) == 3 and wv.dim == 2 and np.allclose(wv["炒"], [1, 1])
    q = tmp_path / "nohdr.txt"
    q.write_text("切 1 0\n葱 0 1\n", encoding="utf-8")
    assert WordVectors.load_text(q, vocab={"葱"}).words == ["葱"]
    back = WordVectors.load_text(wv.save_text(tmp_path / "again.txt"))
    assert back.words == wv.words and np.allclose(back.matrix, wv.matrix)


def test_load_text_errors_name_the_line(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_text("切 1 0\n葱 0 1 2\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.txt:2: 3 values, expected 2"):
        WordVectors.load_text(p)
    p.write_text("切 1 x\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.txt:1: non-numeric"):
        WordVectors.load_text(p)
    with pytest.raises(FileNotFoundError, match="or pass 'ppmi'"):
        load_vectors(str(tmp_path / "missing.txt"))


def test_phrase_similarity_is_cosine_of_mean_vectors():
    wv = WordVectors(["切", "葱", "炒"], np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))
    emb = PhraseEmbedder(wv, str.split)
    sim = emb.similarity(["切 葱", "炒", "未知"], ["炒", "切"])
    # mean(切, 葱) = (.5, .5) is parallel to 炒; an all-unknown phrase is the zero vector → 0
    assert sim == pytest.approx(np.array([[1.0, 2**-0.5], [1.0, 2**-0.5], [0.0, 0.0]]))


def test_ppmi_svd_on_release_recipes(crg_dir):
    from dishgraph.eval.outputs import load_instances

    texts = [i.base_recipe for i in load_instances(crg_dir)[:500]]
    wv = train_ppmi_svd(texts, lambda t: [c for c in t if not c.isspace()], dim=32, window=2)
    assert wv.dim == 32 and "葱" in wv and "姜" in wv
    unit = wv.matrix / np.linalg.norm(wv.matrix, axis=1, keepdims=True)
    cos = lambda a, b: float(unit[wv.index[a]] @ unit[wv.index[b]])  # noqa: E731
    assert cos("葱", "姜") > cos("葱", "分")  # aromatics occur in the same contexts
    with pytest.raises(ValueError, match="need more text"):
        train_ppmi_svd(["切"], list)


def test_warm_segments_phrases_in_one_batch_with_the_same_words(crg_dir):
    """`PhraseEmbedder.warm` hands every new phrase to the memoized segmenter's batched `many` (LAC groups
    equal lengths into one ONNX call); the words, and so the similarities, are those of one call each."""
    from dishgraph.eval.outputs import load_instances
    from dishgraph.eval.text_metrics import default_segmenter, memoize

    phrases = [s for i in load_instances(crg_dir)[:40] for s in i.base_recipe.split("，")[:6] if s.strip()]
    plain = default_segmenter("auto")
    batched = memoize(plain)
    emb = PhraseEmbedder(WordVectors(["葱", "姜", "切"], np.eye(3)), batched)
    emb.warm(phrases + phrases[:5])
    assert set(batched.memo) == set(phrases)
    assert [batched.memo[p] for p in phrases] == [plain(p) for p in phrases]
    one_by_one = PhraseEmbedder(emb.vectors, plain)
    assert np.array_equal(
        emb.similarity(phrases[:20], phrases[20:40]), one_by_one.similarity(phrases[:20], phrases[20:40])
    )
