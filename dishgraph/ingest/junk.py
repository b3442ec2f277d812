"""Recipe texts that are no recipe: told apart before they are loaded, counted by kind.

A scraped corpus holds texts that parse into nothing and would sit in the graph as empty action graphs,
diluting every frequency of their dish: English-only recipes (no Chinese character at all) and texts made
only of step numbers and punctuation ("1。2。3。"). Such a record is skipped with its file and line, and
the ingest report counts it under its kind. A Chinese text in which the parser finds no action is loaded
(it is a real recipe our glossary cannot read) and counted as ``no_action`` after parsing.
"""

from __future__ import annotations

import re

NO_CHINESE = "no_chinese"
STEP_NUMBERS_ONLY = "step_numbers_only"
NO_ACTION = "no_action"
KINDS = (NO_CHINESE, STEP_NUMBERS_ONLY, NO_ACTION)

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# Digits (ASCII, full-width, Chinese step counters), step words and every punctuation or space between them.
_STEP_NOISE = re.compile(r"[\s\d０-９一二三四五六七八九十步骤第.。,，、:：;；!！?？()（）\[\]【】\-—_~～*#·•]+")


def junk_kind(text: str) -> str | None:
    """The junk kind of a recipe text, or None for a text worth parsing."""
    if _STEP_NOISE.fullmatch(text or ""):
        return STEP_NUMBERS_ONLY
    if not _CJK.search(text or ""):
        return NO_CHINESE
    return None
