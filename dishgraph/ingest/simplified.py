"""Traditional Chinese recipe text read as Simplified, offsets kept.

The glossary, the segmenter's lexicon and the food lexicon are Simplified: 燒開後撈出 would find no verb.
OpenCC (``t2s``) converts the text before parsing; its conversion of recipe text keeps one character for one
(燒→烧, 撈→捞, 雞→鸡), so every span the parser reports points into the text as written. Where a phrase rule
would change the length, the text is converted one character at a time instead, which always keeps it.
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def _converter():
    import opencc

    return opencc.OpenCC("t2s")


def to_simplified(text: str) -> str:
    """``text`` in Simplified characters, of the same length (ASCII text is returned as it is)."""
    if text.isascii():
        return text
    conv = _converter().convert
    out = conv(text)
    if len(out) == len(text):
        return out
    chars = [conv(c) for c in text]
    return "".join(c if len(c) == 1 else o for c, o in zip(chars, text))
