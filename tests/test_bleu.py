"""The project's corpus BLEU is nltk's ``corpus_bleu`` (no smoothing) to the last bit: on real release
recipes against a replaced-ingredient rewrite, and on generated token lists with repeats, empty and short
hypotheses, several references per hypothesis and ties in the closest reference length."""

from __future__ import annotations

import warnings

from hypothesis import given, settings
from hypothesis import strategies as st

from dishgraph.eval.bleu import corpus_bleu
from dishgraph.eval.outputs import load_instances


def _nltk(refs, hyps, weights=(0.25, 0.25, 0.25, 0.25)):
    from nltk.translate.bleu_score import corpus_bleu as nltk_corpus_bleu  # here: 3 s to import, on collection

    with warnings.catch_warnings():  # nltk warns when an order has no match (the score is then ~0)
        warnings.simplefilter("ignore", UserWarning)
        return float(nltk_corpus_bleu(refs, hyps, weights=weights))


def test_same_float_as_nltk_on_release_recipes(crg_dir):
    """Character tokens keep this fast (no segmenter); a rewrite and a copy per instance."""
    insts = load_instances(crg_dir)[:300]
    refs = [[list(i.base_recipe)] for i in insts]
    rewrites = [list(i.base_recipe.replace(i.old, i.new) if i.old else i.new + i.base_recipe) for i in insts]
    assert corpus_bleu(refs, rewrites) == _nltk(refs, rewrites)
    copies = [r[0] for r in refs]
    assert corpus_bleu(refs, copies) == _nltk(refs, copies) == 1.0
    mixed = [c if k % 3 else w for k, (c, w) in enumerate(zip(copies, rewrites))]
    assert corpus_bleu(refs, mixed) == _nltk(refs, mixed)


_tokens = st.lists(st.sampled_from(["a", "b", "c", "d", "切", "葱"]), max_size=12)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.lists(_tokens, min_size=1, max_size=3), _tokens), min_size=1, max_size=6),
    st.sampled_from([(0.25, 0.25, 0.25, 0.25), (0.5, 0.5), (1.0,), (0.1, 0.3, 0.5, 0.1)]),
)
def test_same_float_as_nltk_on_generated_tokens(pairs, weights):
    refs = [r for r, _ in pairs]
    hyps = [h for _, h in pairs]
    assert corpus_bleu(refs, hyps, weights) == _nltk(refs, hyps, weights)
