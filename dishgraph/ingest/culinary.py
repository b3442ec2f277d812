"""The culinary flag of proto-actions, counted from their steps' typed readings.

``loader.mark_culinary`` judges every proto-action of the graph from a query over all steps. An ingest knows
the steps it loads: a ``CulinaryTally`` counts them as parsed rows arrive (while the workers still parse), so
new proto-actions are written with their flag, and an ingest into a graph that had no proto-action settles
the flags from its own counts without reading every step back (``pipeline.parse_and_load``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dishgraph.actions import ProtoAction

NON_CULINARY_VERB_CLASSES = frozenset({"用", "准备", "做"})  # the release's classes of light verbs
# The release classes of the cooking media, water and oil: the typed reading does not count them as the food of
# 蒸, 炖, 捞出… (上锅蒸 after 水开 steams the food), but a CRG key that names the medium beside or instead of the
# food (捞出|水+排骨|, 蒸|水|) still names a cooking step, as it did when the typed reading counted the water.
MEDIUM_CLASSES = frozenset({"水", "油"})
# The verb classes the typed reading reads a medium with (parser._MEDIUM_VERBS): only their keys may name one
# (关|水| of 关火 names the heat, class 水 holding 火, and stays no cooking step on foods).
MEDIUM_VERB_CLASSES = frozenset(
    {"蒸", "炖", "煎", "炸", "捞出", "焖", "汆", "焯", "煮", "过", "泡", "煲", "洗净", "搅拌", "打"}
)


def culinary_by_classes(key: str, foods: set[str]) -> bool:
    """The verdict on a proto-action no step of which was read: a culinary verb class and food classes only."""
    p = ProtoAction.from_key(key)
    return p.verb not in NON_CULINARY_VERB_CLASSES and all(c in foods for c in p.ingredients)


class CulinaryTally:
    """Steps per proto-action key: how many were read (a typed reading), and how many of those as a cooking
    step whose foods include every ingredient class of the key; and the keys some cooking step is read as."""

    def __init__(self) -> None:
        self.read: dict[str, list[int]] = {}  # key -> [agreeing, read]
        self.typed_keys: set[str] = set()  # keys some cooking step is read as (切|洋葱| of 切丝 after 洋葱洗净)
        self._ingredients: dict[str, frozenset[str]] = {}

    def _ingr(self, key: str) -> frozenset[str]:
        found = self._ingredients.get(key)
        if found is None:
            found = self._ingredients[key] = ProtoAction.from_key(key).ingredients
        return found

    def count(self, agreement: Iterable[tuple[str, str | None, str | None, bool | None, int]]) -> CulinaryTally:
        """Add rows (key, typed key lifted to classes, typed key on the foods' own names, typed culinary, steps),
        as ``proto_typed_agreement`` returns them."""
        for key, typed, own, culinary, n in agreement:
            if not typed:
                continue
            if culinary:
                self.typed_keys.add(typed)
                if own:
                    self.typed_keys.add(own)  # 切|娃娃菜|: a node of its own that no step is an instance of
            c = self.read.setdefault(key, [0, 0])
            c[1] += n
            media = MEDIUM_CLASSES if key.split("|", 1)[0] in MEDIUM_VERB_CLASSES else frozenset()
            if culinary and (typed == key or self._ingr(typed) | media >= self._ingr(key)):
                c[0] += n
        return self

    def count_steps(self, steps: Any) -> CulinaryTally:
        """Add the steps of a step table (``loader.step_tables``), grouped by Arrow."""
        cols = ("action", "typed_classes", "typed_action", "culinary")
        g = steps.group_by(list(cols)).aggregate([("pos", "count")])
        return self.count(zip(*(g[c].to_pylist() for c in (*cols, "pos_count"))))

    def verdicts(self, keys: Iterable[str], foods: set[str]) -> dict[str, bool]:
        """The flag of each key: most of its read steps agree; with none read, a cooking step read as the key,
        or its classes (``culinary_by_classes``)."""
        out = {}
        for key in keys:
            ok, n = self.read.get(key, (0, 0))
            out[key] = 2 * ok > n if n else (key in self.typed_keys or culinary_by_classes(key, foods))
        return out
