"""The CRG glossary: surface forms → classes for ingredients, verbs and tools.

The released file (`glossary.json`, or the original `glossary_dict.pkl`: a list of three dicts in the
order ingredient, verb, tool) maps every surface form to its class name. Classes are the atoms of
proto-actions; surface forms are what the parser matches in text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

KINDS = ("ingredient", "verb", "tool")


@dataclass
class Glossary:
    ingredient: dict[str, str] = field(default_factory=dict)
    verb: dict[str, str] = field(default_factory=dict)
    tool: dict[str, str] = field(default_factory=dict)

    def table(self, kind: str) -> dict[str, str]:
        if kind not in KINDS:
            raise ValueError(f"unknown glossary kind {kind!r}; expected one of {KINDS}")
        return getattr(self, kind)

    def classes(self, kind: str) -> list[str]:
        return sorted(set(self.table(kind).values()))

    def synonyms(self, kind: str, cls: str) -> list[str]:
        """All surface forms of a class, longest first (for substitution and matching)."""
        return sorted((f for f, c in self.table(kind).items() if c == cls), key=lambda f: (-len(f), f))

    def to_json(self) -> dict:
        return {k: dict(self.table(k)) for k in KINDS}

    @classmethod
    def from_mapping(cls, data, source: str = "<mapping>") -> Glossary:
        if isinstance(data, (list, tuple)):  # original pickle layout
            if len(data) != 3:
                raise ValueError(f"{source}: expected 3 dicts (ingredient, verb, tool), got {len(data)}")
            data = dict(zip(KINDS, data))
        if not isinstance(data, dict) or not all(k in data for k in KINDS):
            raise ValueError(f"{source}: glossary must have keys {KINDS}")
        tables = {}
        for k in KINDS:
            t = data[k]
            if not isinstance(t, dict):
                raise ValueError(f"{source}: glossary[{k!r}] must map surface form -> class")
            # Surface forms in the release sometimes carry stray whitespace ('盐 '): strip, keep first.
            clean: dict[str, str] = {}
            for form, c in t.items():
                f = str(form).strip()
                if f and f not in clean:
                    clean[f] = str(c).strip()
            tables[k] = clean
        return cls(**tables)

    @classmethod
    def load(cls, path: str | Path) -> Glossary:
        """Load ``glossary.json`` or the released ``glossary_dict.pkl`` (through the safe unpickler)."""
        path = Path(path)
        if path.suffix == ".pkl":
            from dishgraph.ingest.safe_pickle import safe_load

            return cls.from_mapping(safe_load(path), str(path))
        with open(path, encoding="utf-8-sig") as fh:
            try:
                data = json.load(fh)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None
        return cls.from_mapping(data, str(path))
