"""A character-level tokenizer for Chinese recipes, shaped like the BERT-Chinese vocabulary.

Chinese GPT-2 checkpoints (uer/gpt2-chinese-cluecorpussmall) and Chinese BERT both use a per-character
BERT vocabulary with ``[CLS] text [SEP]`` framing. Training from scratch with the same conventions (the same
special tokens, ``[SEP]`` doubling as end-of-text) keeps every generator indifferent to which of the two it
was given, and lets a causal LM and a masked LM share one vocabulary, which EduCat needs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def build_char_tokenizer(texts: Iterable[str], min_freq: int = 1, max_size: int | None = None):
    """WordLevel tokenizer over the characters of `texts` (whitespace dropped), wrapped for transformers.

    Encoding adds ``[CLS] … [SEP]`` like BERT; decoding fuses characters without spaces.
    """
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    counts = Counter(ch for t in texts for ch in t if not ch.isspace())
    chars = [c for c, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if n >= min_freq]
    if max_size is not None:
        chars = chars[: max(0, max_size - len(SPECIAL_TOKENS))]
    vocab = {tok: i for i, tok in enumerate(SPECIAL_TOKENS)}
    for c in chars:
        vocab.setdefault(c, len(vocab))

    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.WhitespaceSplit(),
            pre_tokenizers.Split(Regex("."), behavior="isolated"),
        ]
    )
    tok.decoder = decoders.Fuse()
    cls_id, sep_id = vocab["[CLS]"], vocab["[SEP]"]
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]", special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        bos_token="[CLS]",
        eos_token="[SEP]",
        model_max_length=1024,
    )


def ensure_lm_special_tokens(tokenizer) -> None:
    """Give a BERT-style tokenizer the bos/eos/pad roles a causal LM needs (in place)."""
    if tokenizer.cls_token is not None and tokenizer.bos_token is None:
        tokenizer.bos_token = tokenizer.cls_token
    if tokenizer.sep_token is not None and tokenizer.eos_token is None:
        tokenizer.eos_token = tokenizer.sep_token
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token


def start_id(tokenizer) -> int:
    """The id every sequence starts with: [CLS] for BERT-style vocabularies, else bos."""
    tid = tokenizer.cls_token_id if tokenizer.cls_token_id is not None else tokenizer.bos_token_id
    if tid is None:
        raise ValueError("tokenizer has neither a [CLS] nor a bos token to start sequences with")
    return tid


def end_id(tokenizer) -> int:
    """The end-of-text id: [SEP] for BERT-style vocabularies, else eos."""
    tid = tokenizer.sep_token_id if tokenizer.sep_token_id is not None else tokenizer.eos_token_id
    if tid is None:
        raise ValueError("tokenizer has neither a [SEP] nor an eos token to end sequences with")
    return tid
