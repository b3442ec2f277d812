"""Tiny random-init models over a character vocabulary, saved like real checkpoints.

Tests and the CPU benchmarks cannot download the paper's models, so they build these instead and load them
back through ``from_pretrained``, the same code path a hub checkpoint takes. The GPT-2 and the BERT MLM share
one vocabulary (EduCat proposes tokens with the masked LM and scores them with the causal LM); the T5 (DiNeR's
and PizzaCommonSense's baselines) has a char-level fast tokenizer with T5's sentinels.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from dishgraph.models.scratch import new_bert_mlm, new_gpt2
from dishgraph.models.tokenizer import build_char_tokenizer


def build_tiny_models(
    out_dir: str | Path,
    texts: Iterable[str],
    seed: int = 0,
    n_layer: int = 2,
    n_embd: int = 64,
    n_head: int = 2,
    n_positions: int = 1024,
) -> tuple[Path, Path]:
    """Save a tiny GPT-2 (``out_dir/gpt2``) and BERT MLM (``out_dir/bert``) with a char vocab of `texts`."""
    out_dir = Path(out_dir)
    tokenizer = build_char_tokenizer(texts)
    gpt_dir, bert_dir = out_dir / "gpt2", out_dir / "bert"
    new_gpt2(tokenizer, seed, n_layer=n_layer, n_embd=n_embd, n_head=n_head, n_positions=n_positions).save_pretrained(
        gpt_dir
    )
    new_bert_mlm(
        tokenizer, seed, n_layer=n_layer, n_embd=n_embd, n_head=n_head, n_positions=min(n_positions, 512)
    ).save_pretrained(bert_dir)
    tokenizer.save_pretrained(gpt_dir)
    tokenizer.save_pretrained(bert_dir)
    return gpt_dir, bert_dir


def build_tiny_t5(directory: str | Path, texts: Iterable[str], seed: int = 0, d_model: int = 32) -> str:
    """A 2-layer T5 (``d_model``, feed-forward 2x, 4 heads' worth of key size) and a char-level fast tokenizer
    with the 100 sentinels, saved in ``directory`` like any hub checkpoint; returns the directory."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration

    sentinels = [f"<extra_id_{i}>" for i in range(100)]
    specials = ["<pad>", "</s>", "<unk>", *sentinels]
    chars = sorted({c for t in texts for c in t})
    vocab = {tok: i for i, tok in enumerate(specials + [c for c in chars if c not in specials])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Split("", behavior="isolated")
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    tok.decoder = decoders.Fuse()
    PreTrainedTokenizerFast(
        tokenizer_object=tok,
        pad_token="<pad>",
        eos_token="</s>",
        unk_token="<unk>",
        additional_special_tokens=sentinels,
    ).save_pretrained(directory)
    cfg = T5Config(
        vocab_size=len(vocab),
        d_model=d_model,
        d_ff=2 * d_model,
        d_kv=d_model // 4,
        num_layers=2,
        num_decoder_layers=2,
        num_heads=2,
        dropout_rate=0.0,
        decoder_start_token_id=0,
        pad_token_id=0,
        eos_token_id=1,
    )
    torch.manual_seed(seed)  # the random init decides how fast the tiny model memorises
    T5ForConditionalGeneration(cfg).save_pretrained(directory)
    return str(directory)
