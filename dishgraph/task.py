"""The CRG task every generator solves: an instance to edit, and the protocol a generator implements.

Apart from ``eval`` (which reads instances from the release and scores outputs) and ``models`` (which
generate), because both use them: the generator registry needs the types, not the evaluation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

ADD = "add"
REPLACE = "replace"


@dataclass(frozen=True)
class Instance:
    index: int  # 0-based line number in base_recipes.txt
    base: str  # base dish
    target: str  # target dish
    base_recipe: str  # the recipe to edit
    change_kind: str  # "add" (only `new`) or "replace" (`old` by `new`)
    old: str  # replaced ingredient; "" for "add" pairs (as the CRG scripts do)
    new: str  # added / replacing ingredient


class Generator(Protocol):
    """A counterfactual recipe generator: one recipe per instance, in the same order."""

    def generate(self, batch: list[Instance]) -> list[str]: ...
