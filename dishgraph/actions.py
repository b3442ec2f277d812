"""The action model shared by parser, graph, knowledge mining and evaluation.

An *action* is one verb occurrence in a recipe with the ingredients and tools it acts on (surface forms,
with a character span into the recipe text). Its *proto-action* is the same triple lifted to glossary
classes (CRG paper, §4.1): (verb class, set of ingredient classes, set of tool classes). Proto-actions are
what the graph stores, counts and compares; `ProtoAction.key` is their stable primary key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

KEY_SEP = "|"
SET_SEP = "+"


@dataclass(frozen=True, order=True)
class ProtoAction:
    verb: str
    ingredients: frozenset[str] = frozenset()
    tools: frozenset[str] = frozenset()

    @cached_property  # computed once per proto-action: loaders ask for it for every step
    def key(self) -> str:
        """Stable, human-readable key: ``verb|ingr1+ingr2|tool1`` with sorted sets."""
        return KEY_SEP.join((self.verb, SET_SEP.join(sorted(self.ingredients)), SET_SEP.join(sorted(self.tools))))

    @classmethod
    def from_key(cls, key: str) -> ProtoAction:
        verb, ingr, tools = key.split(KEY_SEP)
        return cls(verb, frozenset(filter(None, ingr.split(SET_SEP))), frozenset(filter(None, tools.split(SET_SEP))))

    @classmethod
    def from_release(cls, d: Mapping) -> ProtoAction:
        """From the released JSON shape ``{"verb":…, "ingredients":[…], "tools":[…]}``."""
        return cls(d["verb"], frozenset(d.get("ingredients") or ()), frozenset(d.get("tools") or ()))

    def to_release(self) -> dict:
        return {"verb": self.verb, "ingredients": sorted(self.ingredients), "tools": sorted(self.tools)}

    def __str__(self) -> str:  # 切(洋葱; 刀)
        inner = ",".join(sorted(self.ingredients))
        if self.tools:
            inner += "; " + ",".join(sorted(self.tools))
        return f"{self.verb}({inner})"


class TypedObject(NamedTuple):
    """An object the typed reading attaches to an action: its surface form, role (``ingest.roles``) and span
    (a named tuple: parses make one per object, and a frozen dataclass costs several times more to build)."""

    form: str
    role: str
    start: int
    end: int


@dataclass
class Action:
    """One verb occurrence in a recipe (surface level) plus its proto-action (class level).

    Two readings share the occurrence (``docs/typed-reading.md``). The CRG reading (``verb``, ``ingredients``,
    ``tools``, ``inherited``, ``proto``) keeps the released glossary's conventions, so reference pivots and the
    CRG metrics still match; an action only the typed reading has (a compound such as 勾芡 that is no glossary
    verb) has ``proto`` None, and CRG consumers skip it. The typed reading (``culinary`` and below) says whether
    the verb is a cooking step, which foods it works on, and its heat, duration and cut shape.
    """

    verb: str  # surface verb as written
    ingredients: list[str] = field(default_factory=list)  # surface ingredient forms
    tools: list[str] = field(default_factory=list)  # surface tool/container forms
    proto: ProtoAction | None = None  # glossary classes; None if the verb is not in the glossary
    start: int = 0  # character span of the phrase in the recipe text
    end: int = 0
    phrase: str = ""  # the text of that span
    step: int = 0  # index of the numbered step / sentence
    clause: int = 0  # index of the clause in the recipe
    inherited: bool = False  # ingredients inherited from a previous action (omission)
    # The typed reading. Not compared: two actions are equal when their CRG readings are (what the graph keeps
    # for evaluation, and what parses served from it must equal).
    culinary: bool = field(default=True, compare=False)  # a cooking step (not a light verb, complement, state…)
    foods: list[str] = field(default_factory=list, compare=False)  # surface forms of the food objects it works on
    foods_inherited: bool = field(default=False, compare=False)  # ``foods`` come from the previous culinary action
    objects: list[TypedObject] = field(default_factory=list, compare=False)  # every typed object, with its role
    heat: str = field(default="", compare=False)  # step properties: heat, duration and cut shape, as written
    duration: str = field(default="", compare=False)
    shape: str = field(default="", compare=False)
    typed_key: str = field(default="", compare=False)  # the typed reading's key (verb class|foods|tools, own names)
    typed_class_key: str = field(default="", compare=False)  # the same lifted to glossary classes
    typed_verb: str = field(default="", compare=False)  # the typed key's verb where no glossary class says it (关火)
    verb_start: int = field(default=0, compare=False)  # the verb's own span (``start``/``end``: the phrase)
    verb_end: int = field(default=0, compare=False)


def crg_actions(actions: list[Action]) -> list[Action]:
    """The CRG reading of a parse: the actions with a proto-action (what reference pivots, the CRG metrics and
    the editor's objective were made on); actions only the typed reading has are left out."""
    return [a for a in actions if a.proto is not None]
