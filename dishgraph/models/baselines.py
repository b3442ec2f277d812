"""Reference-free baselines for counterfactual recipe generation.

*identity* copies the base recipe: it anchors the table (BLEU 100, CoI(add) = share of base recipes that
already mention the new ingredient). *replace* is the "surface edit" a model could learn without any
knowledge of cooking: swap mentions of the replaced ingredient for the new one and change nothing else.
"""

from __future__ import annotations

import re
from pathlib import Path

from dishgraph.ingest.glossary import Glossary
from dishgraph.models.registry import register
from dishgraph.task import REPLACE, Instance

SYNONYM_MODES = ("class", "form", "none")


@register("identity")
class IdentityGenerator:
    """Copy the base recipe unchanged."""

    def generate(self, batch: list[Instance]) -> list[str]:
        return [inst.base_recipe for inst in batch]


@register("replace")
class ReplaceGenerator:
    """Replace the changed ingredient's mentions (with its glossary synonyms) by the new ingredient.

    ``synonyms``: "class" replaces every surface form of the old ingredient's glossary class; "form" only the
    old form and the class forms containing it (白菜 → also 大白菜, not 丝瓜 — CRG classes are coarse
    clusters); "none" only the exact old form. Longer glossary forms that are not replaced but contain a
    replaced form (e.g. 蛋糕 around 蛋) are left intact. "add" pairs are returned unchanged.
    """

    def __init__(self, glossary: Glossary | None = None, synonyms: str = "class", data_dir: str | Path | None = None):
        if synonyms not in SYNONYM_MODES:
            raise ValueError(f"synonyms must be one of {SYNONYM_MODES}, got {synonyms!r}")
        if glossary is None:
            from dishgraph.eval.outputs import crg_dir

            glossary = Glossary.load(crg_dir(data_dir) / "glossary.json")
        self.glossary = glossary
        self.synonyms = synonyms
        self._patterns: dict[str, tuple[re.Pattern, frozenset[str]]] = {}

    def forms_to_replace(self, old: str) -> list[str]:
        """Surface forms that count as mentions of `old`, longest first."""
        table = self.glossary.ingredient
        forms = {old}
        cls = table.get(old)
        if cls is not None and self.synonyms != "none":
            for f in self.glossary.synonyms("ingredient", cls):
                if self.synonyms == "class" or old in f:
                    forms.add(f)
        return sorted((f for f in forms if f), key=lambda f: (-len(f), f))

    def _pattern(self, old: str) -> tuple[re.Pattern, frozenset[str]]:
        if old not in self._patterns:
            targets = frozenset(self.forms_to_replace(old))
            # Longer forms of other ingredients that contain a target: matched first, then kept as they are.
            shields = {f for f in self.glossary.ingredient if f not in targets and any(t in f for t in targets)}
            alts = sorted(targets | shields, key=lambda f: (-len(f), f))
            self._patterns[old] = (re.compile("|".join(map(re.escape, alts))), targets)
        return self._patterns[old]

    def replace(self, text: str, old: str, new: str) -> str:
        pattern, targets = self._pattern(old)
        return pattern.sub(lambda m: new if m.group(0) in targets else m.group(0), text)

    def generate(self, batch: list[Instance]) -> list[str]:
        return [
            self.replace(inst.base_recipe, inst.old, inst.new)
            if inst.change_kind == REPLACE and inst.old
            else inst.base_recipe
            for inst in batch
        ]
