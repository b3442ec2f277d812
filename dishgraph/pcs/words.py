"""Words of PCS cells and ingredient lines: one normalisation shared by the graph loader and the tracker.

The release writes the same food three ways (``pizza_crust``, ``pizza crust``, ``Pizza Crust``) and Recipe1M
ingredient lines bury it in quantities (``1 (8 ounce) can refrigerated buttermilk biscuits``). Matching a
comestible to the line it comes from, or an instruction's words to a live comestible, needs the content words
alone: lower case, ``_`` and punctuation as spaces, a crude singular (``tomatoes`` → ``tomato``), and the
quantity/unit/preparation words dropped. Crude on purpose: it only has to agree with itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

_WORD = re.compile(r"[a-z]+")
UNITS = frozenset(
    "cup cups c tablespoon tablespoons tbsp tbs tb teaspoon teaspoons tsp ounce ounces oz pound pounds lb lbs "
    "gram grams g kg ml l liter quart pint gallon can cans package packages pkg jar jars bottle envelope "
    "pinch dash clove cloves slice slices piece pieces inch inches stick sticks bunch head heads "
    "container bag box sprig sprigs handful".split()
)
PREP = frozenset(
    "chopped diced minced sliced grated shredded crushed fresh freshly large small medium finely thinly "
    "coarsely roughly cut into and or of to for the a an about optional divided plus more as needed taste "
    "packed softened melted cooked uncooked drained rinsed peeled seeded halved quartered beaten room "
    "temperature warm cold hot lukewarm ground whole dried frozen thawed prepared refrigerated each "
    "additional extra good quality your favorite favourite such with in on at if like".split()
)
STOP = UNITS | PREP


def singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("oes", "ches", "shes", "sses", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def words(text: str) -> list[str]:
    """All words, normalised (``Pizza_Crusts.`` → ["pizza", "crust"])."""
    return [singular(w) for w in _WORD.findall(text.lower().replace("_", " "))]


def content_words(text: str) -> list[str]:
    """Words minus quantities, units and preparation words (what names the food)."""
    return list(_content_words(text))


@lru_cache(maxsize=1 << 16)
def _content_words(text: str) -> tuple[str, ...]:  # the tracker asks for the same names many times
    return tuple(w for w in words(text) if w not in STOP and len(w) > 1)


def match_ingredient(name: str, lines: Sequence[str]) -> int | None:
    """The ingredient line a comestible name comes from: most shared content words, the name's last word
    (its head noun: ``pizza crust`` is a crust) counting extra; None when no content word is shared."""
    mine = content_words(name)
    if not mine:
        return None
    head = mine[-1]
    best, best_score = None, 0.0
    for k, line in enumerate(lines):
        theirs = set(content_words(line))
        score = len(set(mine) & theirs) + (0.5 if head in theirs else 0.0)
        if score > best_score:
            best, best_score = k, score
    return best
