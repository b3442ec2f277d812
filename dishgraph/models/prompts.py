"""The CRG paper's text formats: how recipes are shown to the LM in training and how generation is prompted.

Training text is "[Dish Name]的做法如下。[Recipe]"; GPT-2 (D) is prompted with the first half, GPT-2 (D+R)
additionally with the base dish's recipe and an instruction to rewrite it.
"""

from __future__ import annotations

import re

RECIPE_INTRO = "{dish}的做法如下。"
REWRITE_INSTRUCTION = "请根据{base}的做法改写{target}的做法。"
SENTENCE_END = "。！？!?；;"

_SPACE_NEAR_CJK = re.compile(r"(?<=[^\x00-\x7f])\s+|\s+(?=[^\x00-\x7f])")
_SENTENCE = re.compile(rf"[^{SENTENCE_END}]*[{SENTENCE_END}]+|[^{SENTENCE_END}]+$")


def training_text(dish: str, recipe: str) -> str:
    return RECIPE_INTRO.format(dish=dish) + recipe


def dish_prompt(target: str) -> str:
    """GPT-2 (D): "[Target Dish]的做法如下。"."""
    return RECIPE_INTRO.format(dish=target)


def rewrite_prompt(base: str, target: str, base_recipe: str) -> str:
    """GPT-2 (D+R): "请根据[Base]的做法改写[Target]的做法。[Base Recipe][Target]的做法如下。"."""
    return REWRITE_INSTRUCTION.format(base=base, target=target) + base_recipe + RECIPE_INTRO.format(dish=target)


def rewrite_prompt_parts(base: str, target: str) -> tuple[str, str]:
    """The text before and after the base recipe in the D+R prompt (to truncate the recipe, not the frame)."""
    return REWRITE_INSTRUCTION.format(base=base, target=target), RECIPE_INTRO.format(dish=target)


def clean_generated(text: str) -> str:
    """One line of recipe text: BERT-style decoders put spaces between characters; outputs are one per line."""
    text = text.replace("\r", " ").replace("\n", " ").replace("\t", " ")
    return _SPACE_NEAR_CJK.sub("", text).strip()


def split_sentences(text: str, max_chars: int = 80) -> list[str]:
    """Sentences ending in 。！？；(kept), long ones cut into chunks of `max_chars` (the editors work per sentence)."""
    out: list[str] = []
    for s in _SENTENCE.findall(text):
        if not s:
            continue
        out.extend(s[i : i + max_chars] for i in range(0, len(s), max_chars))
    return out
