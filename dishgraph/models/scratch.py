"""Randomly initialised GPT-2 and BERT MLM of given sizes: what `train lm` / `train mlm` start from without
``--init`` (sizes from `lm_sizes`), and what `dishgraph.testing` saves as tiny local checkpoints."""

from __future__ import annotations


def gpt2_config(tokenizer, n_layer: int = 2, n_embd: int = 128, n_head: int = 2, n_positions: int = 1024):
    from transformers import GPT2Config

    return GPT2Config(
        vocab_size=len(tokenizer),
        n_positions=n_positions,
        n_embd=n_embd,
        n_layer=n_layer,
        n_head=n_head,
        bos_token_id=tokenizer.cls_token_id,
        eos_token_id=tokenizer.sep_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )


def new_gpt2(tokenizer, seed: int = 0, **sizes):
    """A randomly initialised GPT2LMHeadModel for `tokenizer` (sizes: n_layer, n_embd, n_head, n_positions)."""
    import torch
    from transformers import GPT2LMHeadModel

    torch.manual_seed(seed)
    return GPT2LMHeadModel(gpt2_config(tokenizer, **sizes))


def new_bert_mlm(tokenizer, seed: int = 0, n_layer: int = 2, n_embd: int = 64, n_head: int = 2, n_positions: int = 512):
    import torch
    from transformers import BertConfig, BertForMaskedLM

    torch.manual_seed(seed)
    cfg = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=n_embd,
        num_hidden_layers=n_layer,
        num_attention_heads=n_head,
        intermediate_size=4 * n_embd,
        max_position_embeddings=n_positions,
        pad_token_id=tokenizer.pad_token_id,
    )
    return BertForMaskedLM(cfg)
