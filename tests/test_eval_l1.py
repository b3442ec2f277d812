"""CRG L1: ingredient coverage, BLEU-4 and BERTScore (tiny local BERT through the real from_pretrained path)."""

from __future__ import annotations

import math

import pytest

from dishgraph.eval.l1 import evaluate_l1, ingredient_coverage
from dishgraph.eval.outputs import load_instances
from dishgraph.eval.text_metrics import BertScoreConfig, bertscore, corpus_bleu4, default_segmenter, memoize


def test_ingredient_coverage_hand_computed():
    assert ingredient_coverage(["葱", "蒜", ""], ["切葱", "切姜", "任意"]) == pytest.approx(50.0)
    assert math.isnan(ingredient_coverage(["", ""], ["a", "b"]))
    with pytest.raises(ValueError):
        ingredient_coverage(["葱"], [])


def test_corpus_bleu4_hand_computed():
    split = str.split
    assert corpus_bleu4(["a b c d e"], ["a b c d e"], split) == pytest.approx(100.0)
    # p1..p4 = 4/5, 3/4, 2/3, 1/2, equal lengths (BP = 1): BLEU = (1/5) ** (1/4)
    assert corpus_bleu4(["a b c d e"], ["a b c d f"], split) == pytest.approx(100 * 0.2**0.25)
    # brevity penalty: hyp 4 tokens vs ref 5, all n-grams match → exp(1 - 5/4)
    assert corpus_bleu4(["a b c d"], ["a b c d e"], split) == pytest.approx(100 * math.exp(1 - 5 / 4))
    assert corpus_bleu4([""], ["a b"], split) == 0.0


def test_identity_on_release(crg_dir):
    insts = load_instances(crg_dir)
    segment = memoize(default_segmenter())
    res = evaluate_l1([i.base_recipe for i in insts], insts, segment, with_bertscore=False)
    already = sum(i.new in i.base_recipe for i in insts) / len(insts)
    has_old = [i.old in i.base_recipe for i in insts if i.old]
    assert res["coi_added"] == pytest.approx(100 * already)
    assert res["coi_replaced"] == pytest.approx(100 * sum(has_old) / len(has_old))
    assert res["bleu4"] == pytest.approx(100.0)
    assert math.isnan(res["bertscore_f1"]) and res["n"] == 2500


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory, crg_dir):
    """A 2-layer BERT with random weights and a character vocabulary, saved like a hub checkpoint."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizer

    d = tmp_path_factory.mktemp("tiny-bert")
    texts = [i.base_recipe for i in load_instances(crg_dir)[:60]]
    chars = sorted({c for t in texts for c in t if not c.isspace()})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + chars
    # transformers 5 ignores vocab_file= here; pass the mapping itself
    tok = BertTokenizer(vocab={t: i for i, t in enumerate(vocab)}, tokenize_chinese_chars=True)
    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
    )
    BertModel(cfg).save_pretrained(d)
    tok.save_pretrained(d)  # no model_max_length saved: the wrapper must cap it at the position limit
    return str(d)


def test_bertscore_with_tiny_local_model(tiny_bert):
    cfg = BertScoreConfig(model=tiny_bert, num_layers=2, batch_size=8, device="cpu")
    p, r, f = bertscore(["菜心洗干净", "锅中放水", ""], ["菜心洗干净", "菜心放油", "锅"], cfg)
    assert f[0] == pytest.approx(1.0, abs=1e-5) and p[0] == pytest.approx(1.0, abs=1e-5)
    assert 0 < f[1] < 1
    assert f[2] == 0.0  # empty candidate
    long = "菜" * 800  # beyond 512 positions: truncated to 510 characters like CRG
    _, _, f = bertscore([long], [long], cfg)
    assert f[0] == pytest.approx(1.0, abs=1e-5)


def test_evaluate_l1_with_bertscore(tiny_bert, crg_dir):
    insts = load_instances(crg_dir)[:60]
    texts = [i.base_recipe for i in insts]
    texts[0] = "完全不同的文字"
    cfg = BertScoreConfig(model=tiny_bert, num_layers=2, batch_size=16, device="cpu")
    res = evaluate_l1(texts, insts, memoize(default_segmenter()), cfg)
    assert 90 < res["bertscore_f1"] < 100
    assert res["bleu4"] < 100


def test_bertscore_skipped_unless_a_model_is_named(monkeypatch):
    """No model named: one line, and nothing is loaded (a default hub name cost two minutes of retries offline)."""
    from dishgraph.eval import jobs, text_metrics

    monkeypatch.delenv(text_metrics.BERTSCORE_MODEL_ENV, raising=False)
    monkeypatch.setattr(text_metrics, "load_bertscore", lambda *_: pytest.fail("loaded a model nobody named"))
    notes: list[str] = []
    assert jobs.bertscore_config(None, None, None, skip=False, warn=notes.append) is None
    assert notes == ["BERTScore skipped: no model named (--bertscore-model DIR, or $DISHGRAPH_BERTSCORE_MODEL)."]


def test_bertscore_model_named_in_the_environment(monkeypatch, tiny_bert):
    from dishgraph.errors import UsageError
    from dishgraph.eval import jobs, text_metrics

    monkeypatch.setenv(text_metrics.BERTSCORE_MODEL_ENV, tiny_bert)
    cfg = jobs.bertscore_config(None, 2, "cpu", skip=False)
    assert cfg is not None and cfg.model == tiny_bert
    assert jobs.bertscore_config(None, 2, "cpu", skip=True) is None
    with pytest.raises(UsageError, match="cannot load BERTScore model"):
        jobs.bertscore_config(tiny_bert + "-missing", 2, "cpu", skip=False)
