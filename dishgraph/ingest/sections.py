"""Section headings of cookbook-style recipe texts: which characters are no part of the method.

Older cookbook compilations (the classic corpus) write a recipe as labelled sections: ``原料:`` and
``调料:`` lists, a ``制法:`` / ``【制作方法】`` / ``制作过程:`` method, and asides after it (``【本品特点】``,
``功效:``, ``主治:``, ``服法:``). Read as running text, the method labels become actions (``制法`` → 制 → 做,
``馅心制作:`` → 制作), and the asides' verbs (``用于肝肾亏虚``, ``适用于``) are counted as cooking. Both
recipe parsers split a text with ``clauses.split_clauses``, which skips what ``hidden_spans`` returns:

- a method label: the label alone (its text is the recipe);
- an ingredient-list label (原料, 调料 …): the label and its list, up to the next label or the list's end
  (the first 。, ；, line break, or numbered step after punctuation);
- an aside label (特点, 功效 …): the label and its text up to the next label; with no label after it, to
  the end of the text when method text came before it (asides close a recipe), else to its sentence's end.

A label in brackets counts anywhere; an ingredient or aside label only at the start of the text or right
after punctuation or a step marker, followed by a colon: ``加入调料：盐、糖`` keeps its 加入.
"""

from __future__ import annotations

import re

_METHOD = (
    "制作方法",
    "制作过程",
    "制作步骤",
    "烹饪方法",
    "烹制方法",
    "烹调方法",
    "操作方法",
    "制法",
    "做法",
    "制作",
    "工艺",
)
_INGREDIENTS = ("原料", "主料", "辅料", "配料", "调料", "用料", "材料", "食材", "佐料", "调味料", "主辅料")
_ASIDE = (
    "本品特点",
    "风味特点",
    "特点",
    "特色",
    "功效",
    "功用",
    "主治",
    "用法",
    "服法",
    "评注",
    "按语",
    "营养价值",
    "食疗作用",
    "适应症",
    "注意事项",
)
_KIND = {**{w: "method" for w in _METHOD}, **{w: "ingredients" for w in _INGREDIENTS}, **{w: "aside" for w in _ASIDE}}
_LABELS = "|".join(sorted(_KIND, key=len, reverse=True))
_METHODS = "|".join(sorted(_METHOD, key=len, reverse=True))
_STEP_AHEAD = r"(?=\s*(?:\d{1,2}\s*[、.．]|[(（]\d{1,2}[)）]))"
# A label in brackets (【制法】, [制法]:) counts anywhere; a method label (制法, 做法 …) anywhere before a colon
# or a step number; any label at a boundary before a colon, a method label there with a short topic before
# it (``馅心制作:``, ``坯团制作:``); a method label opening the text needs nothing after it.
_LABEL_RE = re.compile(
    r"[【\[〔]\s*(?P<b>[\u4e00-\u9fff]{0,4}?(?:" + _LABELS + r"))\s*[】\]〕]\s*[:：]?"
    r"|(?P<m>" + _METHODS + r")(?:\s*[:：;；﹗]|" + _STEP_AHEAD + r")"
    r"|(?:^|(?<=[。！？!?；;，,\n\r\s.．、)）]))"
    r"(?P<c>(?:[\u4e00-\u9fff]{1,4}?(?=制作|制法|做法))?(?:" + _LABELS + r"))\s*[:：;；﹗]"
    r"|^(?P<s>制法|做法)"
)
# A list ends at a sentence end, a semicolon, or a numbered step after punctuation (``材料：大蒜；1、…`` or
# ``…、葱，1、…``): without the last two a one-sentence recipe lost its whole method to its list.
_LIST_END = re.compile(
    r"[。；;\n\r]|[.．](?!\d)|(?<=[，,\s])(?=\s{0,3}(?:\d{1,2}\s*[、.．)）]|[(（]\d{1,2}[)）]|[①-⑳⑴-⒇]))"
)
_SENT_END = re.compile(r"[。！？!?\n\r]")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def _kind(label: str) -> str | None:
    if label.startswith("准备"):  # 【准备材料】 opens the preparation steps (切 …), not a list
        return "method"
    for word in sorted(_KIND, key=len, reverse=True):
        if label.endswith(word):
            return _KIND[word]
    return None


def hidden_spans(text: str) -> list[tuple[int, int]]:
    """Character spans ``[start, end)`` of ``text`` that are section labels or non-method sections."""
    labels = []
    for m in _LABEL_RE.finditer(text):
        kind = _kind(m.group("b") or m.group("m") or m.group("c") or m.group("s"))
        if kind:
            labels.append((m.start(), m.end(), kind))
    out = []
    for k, (start, end, kind) in enumerate(labels):
        nxt = labels[k + 1][0] if k + 1 < len(labels) else len(text)
        if kind == "method":
            out.append((start, end))
        elif kind == "ingredients":
            m = _LIST_END.search(text, end, nxt)
            out.append((start, m.end() if m else nxt))
        else:
            if k + 1 < len(labels) or _CJK.search("".join(text[a:b] for a, b in _visible(text[:start], out))):
                out.append((start, nxt))
            else:
                m = _SENT_END.search(text, end)
                out.append((start, m.end() if m else len(text)))
    return out


def _visible(prefix: str, hidden: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans of ``prefix`` outside ``hidden`` (sorted, non-overlapping)."""
    spans, pos = [], 0
    for a, b in hidden:
        if a >= len(prefix):
            break
        if a > pos:
            spans.append((pos, a))
        pos = max(pos, b)
    if pos < len(prefix):
        spans.append((pos, len(prefix)))
    return spans
