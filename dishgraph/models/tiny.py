"""Tiny random-init GPT-2 and BERT models over one character vocabulary, saved like real checkpoints.

Tests and the CPU demo cannot download the paper's models, so they build these instead and load them back
through ``from_pretrained`` — the same code path a hub checkpoint takes. Both models share the vocabulary
(EduCat proposes tokens with the masked LM and scores them with the causal LM).
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from dishgraph.models.tokenizer import build_char_tokenizer


def gpt2_config(tokenizer, n_layer: int = 2, n_embd: int = 128, n_head: int = 2, n_positions: int = 1024):
    from transformers import GPT2Config

    return GPT2Config(vocab_size=len(tokenizer), n_positions=n_positions, n_embd=n_embd, n_layer=n_layer,
                      n_head=n_head, bos_token_id=tokenizer.cls_token_id, eos_token_id=tokenizer.sep_token_id,
                      pad_token_id=tokenizer.pad_token_id)


def new_gpt2(tokenizer, seed: int = 0, **sizes):
    """A randomly initialised GPT2LMHeadModel for `tokenizer` (sizes: n_layer, n_embd, n_head, n_positions)."""
    import torch
    from transformers import GPT2LMHeadModel

    torch.manual_seed(seed)
    return GPT2LMHeadModel(gpt2_config(tokenizer, **sizes))


def new_bert_mlm(tokenizer, seed: int = 0, n_layer: int = 2, n_embd: int = 64, n_head: int = 2,
                 n_positions: int = 512):
    import torch
    from transformers import BertConfig, BertForMaskedLM

    torch.manual_seed(seed)
    cfg = BertConfig(vocab_size=len(tokenizer), hidden_size=n_embd, num_hidden_layers=n_layer,
                     num_attention_heads=n_head, intermediate_size=4 * n_embd,
                     max_position_embeddings=n_positions, pad_token_id=tokenizer.pad_token_id)
    return BertForMaskedLM(cfg)


def build_tiny_models(out_dir: str | Path, texts: Iterable[str], seed: int = 0, n_layer: int = 2,
                      n_embd: int = 64, n_head: int = 2, n_positions: int = 1024) -> tuple[Path, Path]:
    """Save a tiny GPT-2 (``out_dir/gpt2``) and BERT MLM (``out_dir/bert``) with a char vocab of `texts`."""
    out_dir = Path(out_dir)
    tokenizer = build_char_tokenizer(texts)
    gpt_dir, bert_dir = out_dir / "gpt2", out_dir / "bert"
    new_gpt2(tokenizer, seed, n_layer=n_layer, n_embd=n_embd, n_head=n_head,
             n_positions=n_positions).save_pretrained(gpt_dir)
    new_bert_mlm(tokenizer, seed, n_layer=n_layer, n_embd=n_embd, n_head=n_head,
                 n_positions=min(n_positions, 512)).save_pretrained(bert_dir)
    tokenizer.save_pretrained(gpt_dir)
    tokenizer.save_pretrained(bert_dir)
    return gpt_dir, bert_dir
