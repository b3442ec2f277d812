"""Dish-name parsing as DiNeR does it: maximal matching over the food / action / flavour glossary.

DiNeR (Hu et al., EMNLP 2023) reads a dish name left to right and at each position takes the longest
glossary surface form; when one surface is listed under several types, action beats flavour beats food
(the order of the checks in DiNeR's ``NameParser``). A name that cannot be read to its end has no parse:
DiNeR drops it; we keep it and say where reading stopped (``remainder``) and which spans no entry covers
(``unknown``), so a glossary extension can be written for it.

Components are typed and mapped to their *cluster* (凤爪 and 鸡爪 are both ``food:鸡爪``); the atom of
compositional-generalization splits is the key ``type:cluster``, and a compound is any set of >= 2 atoms
of one name.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations
from pathlib import Path

# Priority order at equal match length (DiNeR checks action, then flavour, then food).
TYPES = ("action", "flavour", "food")
EXTRA_GLOSSARY = Path(__file__).resolve().parent / "extra_glossary.json"


def default_glossary_path() -> Path:
    from dishgraph import config

    return config.data_dir() / "diner" / "glossary.json"


@dataclass
class DinerGlossary:
    """``{type: {surface: cluster}}`` for the three DiNeR types, plus where each table came from."""

    tables: dict[str, dict[str, str]] = field(default_factory=lambda: {t: {} for t in TYPES})
    sources: tuple[str, ...] = ()

    @classmethod
    def from_mapping(cls, data, source: str = "<mapping>") -> DinerGlossary:
        """Validate the DiNeR JSON shape; errors name the source and the offending entry."""
        if not isinstance(data, dict):
            raise ValueError(
                f"{source}: a DiNeR glossary is a JSON object {{food|action|flavour: {{surface: cluster}}}}"
            )
        unknown = sorted(set(data) - set(TYPES))
        if unknown:
            raise ValueError(f"{source}: unknown component type(s) {unknown}; expected {list(TYPES)}")
        tables: dict[str, dict[str, str]] = {t: {} for t in TYPES}
        for t in TYPES:
            table = data.get(t, {})
            if not isinstance(table, dict):
                raise ValueError(f"{source}: [{t!r}] must map surface form -> cluster, got {type(table).__name__}")
            for surface, cluster in table.items():
                s = str(surface).strip()
                if not s or not isinstance(cluster, str) or not cluster.strip():
                    raise ValueError(f"{source}: [{t!r}][{surface!r}] needs a non-empty surface and cluster name")
                tables[t][s] = cluster.strip()
        return cls(tables, (source,))

    @classmethod
    def load(cls, path: str | Path | None = None, extra: Iterable[str | Path] = ()) -> DinerGlossary:
        """The DiNeR glossary (default: the shared data copy), extended by each ``extra`` file in turn."""
        glossary = cls._read(Path(path) if path else default_glossary_path())
        for p in extra:
            glossary = glossary.extended(cls._read(Path(p)))
        return glossary

    @classmethod
    def _read(cls, path: Path) -> DinerGlossary:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise FileNotFoundError(f"DiNeR glossary not found: {path}") from None
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: line {e.lineno}, column {e.colno}: invalid JSON ({e.msg})") from None
        return cls.from_mapping(data, str(path))

    def extended(self, other: DinerGlossary) -> DinerGlossary:
        """A new glossary with ``other``'s entries added (and overriding ours for the same surface)."""
        tables = {t: {**self.tables[t], **other.tables[t]} for t in TYPES}
        return DinerGlossary(tables, self.sources + other.sources)

    def lookup(self, surface: str) -> tuple[str, str] | None:
        """(type, cluster) of a surface form, by DiNeR's type priority."""
        for t in TYPES:
            cluster = self.tables[t].get(surface)
            if cluster is not None:
                return t, cluster
        return None

    @cached_property  # read once per name parsed: recomputing it was most of parsing 7,800 names (6 of 8 s)
    def max_len(self) -> int:
        return max((len(s) for t in TYPES for s in self.tables[t]), default=0)

    def surfaces(self, type_: str, cluster: str) -> list[str]:
        """Every surface form of one cluster, longest first."""
        forms = [s for s, c in self.tables[type_].items() if c == cluster]
        return sorted(forms, key=lambda s: (-len(s), s))

    def sizes(self) -> dict[str, dict[str, int]]:
        return {t: {"surfaces": len(self.tables[t]), "clusters": len(set(self.tables[t].values()))} for t in TYPES}


@dataclass(frozen=True)
class Component:
    surface: str
    type: str
    cluster: str
    pos: int  # index in the name's component sequence

    @property
    def key(self) -> str:
        return f"{self.type}:{self.cluster}"


@dataclass(frozen=True)
class NameParse:
    """A parse of one dish name. ``components`` is empty unless the whole name was read."""

    name: str
    components: tuple[Component, ...] = ()
    remainder: str = ""  # the unread tail where maximal matching got stuck ("" when parsed)
    unknown: tuple[str, ...] = ()  # spans no glossary entry covers (reading resumed after each)

    @property
    def ok(self) -> bool:
        return not self.remainder and bool(self.components)

    @property
    def atoms(self) -> frozenset[str]:
        return frozenset(c.key for c in self.components)

    @property
    def compounds(self) -> frozenset[str]:
        return compound_keys(self.atoms)

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "ok": self.ok,
            "components": [
                {"surface": c.surface, "type": c.type, "cluster": c.cluster, "key": c.key} for c in self.components
            ],
            "remainder": self.remainder,
            "unknown": list(self.unknown),
        }


def _scan(name: str, glossary: DinerGlossary, start: int, longest: int) -> tuple[int, tuple[str, str] | None]:
    """Longest glossary match at ``start``: (end, (type, cluster)) or (start, None)."""
    for end in range(min(len(name), start + longest), start, -1):
        hit = glossary.lookup(name[start:end])
        if hit:
            return end, hit
    return start, None


def parse_name(name: str, glossary: DinerGlossary) -> NameParse:
    """Left-to-right maximal matching; no parse (but a remainder and unknown spans) if any span is unread."""
    name = name.strip()
    longest = glossary.max_len
    comps: list[Component] = []
    i = 0
    while i < len(name):
        end, hit = _scan(name, glossary, i, longest)
        if hit is None:
            break
        comps.append(Component(name[i:end], hit[0], hit[1], len(comps)))
        i = end
    if i == len(name) and comps:
        return NameParse(name, tuple(comps))
    return NameParse(name, (), name[i:], tuple(_unknown_spans(name, glossary, longest)))


def _unknown_spans(name: str, glossary: DinerGlossary, longest: int) -> Iterator[str]:
    """Spans left uncovered when reading skips one character at a time past unmatched text."""
    i, gap = 0, ""
    while i < len(name):
        end, hit = _scan(name, glossary, i, longest)
        if hit is None:
            gap += name[i]
            i += 1
            continue
        if gap:
            yield gap
            gap = ""
        i = end
    if gap:
        yield gap


def compound_keys(atoms: Iterable[str], min_size: int = 2, max_size: int | None = None) -> frozenset[str]:
    """Every subset of >= ``min_size`` atoms, as a canonical key (sorted atom keys joined by '+')."""
    atoms = sorted(set(atoms))
    top = len(atoms) if max_size is None else min(max_size, len(atoms))
    return frozenset("+".join(sub) for k in range(min_size, top + 1) for sub in combinations(atoms, k))


def compound_parts(key: str) -> list[str]:
    return key.split("+")


@dataclass
class ParseReport:
    parsed: list[NameParse]
    failed: list[NameParse]

    def to_dict(self) -> dict:
        return {
            "parsed": len(self.parsed),
            "failed": len(self.failed),
            "unparsed": [{"name": p.name, "remainder": p.remainder, "unknown": list(p.unknown)} for p in self.failed],
        }


def parse_names(names: Iterable[str], glossary: DinerGlossary) -> ParseReport:
    """Parse distinct names (first-seen order); failures are kept with their remainder, never dropped."""
    parsed, failed = [], []
    for name in dict.fromkeys(n.strip() for n in names if n.strip()):
        p = parse_name(name, glossary)
        (parsed if p.ok else failed).append(p)
    return ParseReport(parsed, failed)


def read_names(path: str | Path) -> list[str]:
    """Dish names from a text file: whitespace- or tab-separated names, '#' comments (dish_pairs.txt works)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 text ({e})") from None
    names: list[str] = []
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        names.extend(line.split())
    return names
