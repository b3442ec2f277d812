"""Generalization forms of test dishes relative to the training dishes of a split (DiNeR, Table 2).

DiNeR names four ways a test dish name recombines what training names show: CombTwo (two single
components joined, e.g. 牛肉 + 馒头 -> 牛肉馒头), AddOne (a training name plus one component), RecoTwo and
RecoThree (parts of two / three training names recombined). We could not read the paper's table itself,
so the forms are defined operationally on component sets, S = the test name's atoms, n = |S|, and
"seen compound" = a subset of >= 2 atoms of S that some training name also contains:

    Seen       S equals a training name's atom set (e.g. a synonym surface form: 凤爪 vs 鸡爪)
    Subset     S lies inside a larger training name's atom set
    Single     n = 1 (no composition)
    CombTwo    n = 2, and the pair never co-occurs in a training name
    AddOne     n >= 3 and some training name's atoms are S minus one atom
    RecoTwo    S is rebuilt from two training names' parts (fewest parts = 2)
    RecoThree  ... from three
    Other      needs four or more parts

The first that holds wins, in this order. Each test comes from one named Cypher query
(``diner_forms_*``); "fewest parts" counts up to two seen compounds plus single atoms, which is exact for
names of up to five components (TMCD guarantees every atom is seen in training).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from dishgraph.graph.base import GraphStore

FORMS = ("Seen", "Subset", "Single", "CombTwo", "AddOne", "RecoTwo", "RecoThree", "Other")


@dataclass
class FormsReport:
    split: str
    form_of: dict[str, str] = field(default_factory=dict)  # test dish -> form

    @property
    def counts(self) -> dict[str, int]:
        c = Counter(self.form_of.values())
        return {f: c.get(f, 0) for f in FORMS}

    def to_dict(self) -> dict:
        return {"split": self.split, "test_dishes": len(self.form_of), "counts": self.counts, "forms": self.form_of}


def forms(store: GraphStore, split_name: str) -> FormsReport:
    """Assign each test dish of a stored split its generalization form (see the module docstring)."""
    if not store.query("diner_split_info", split=split_name):
        raise KeyError(f"no split named {split_name!r} in the graph")
    sizes = {r["dish"]: int(r["n"]) for r in store.query("diner_forms_test_sizes", split=split_name)}
    contained = {r["dish"]: int(r["container"]) for r in store.query("diner_forms_contained", split=split_name)}
    addone = {r["dish"] for r in store.query("diner_forms_addone", split=split_name)}
    cover = {r["dish"]: int(r["cover"]) for r in store.query("diner_forms_cover", split=split_name)}
    report = FormsReport(split_name)
    for dish, n in sizes.items():
        report.form_of[dish] = classify(n, contained.get(dish), dish in addone, min(n, cover.get(dish, n)))
    return report


def classify(n: int, container: int | None, addone: bool, cover: int) -> str:
    """The precedence of the forms, given the facts the queries return."""
    if container is not None:
        return "Seen" if container == n else "Subset"
    if n == 1:
        return "Single"
    if n == 2:
        return "CombTwo"
    if addone:
        return "AddOne"
    if cover == 2:
        return "RecoTwo"
    if cover == 3:
        return "RecoThree"
    return "Other"


def forms_in_memory(train: list[frozenset[str]], test: dict[str, frozenset[str]]) -> dict[str, str]:
    """The same classification computed directly on atom sets (exact cover search): a cross-check for the
    Cypher queries and a way to classify splits that are not in a graph."""
    train_sets = set(train)
    out = {}
    for dish, s in test.items():
        n = len(s)
        inside = [len(t) for t in train_sets if s <= t]
        addone = n >= 3 and any(len(t) == n - 1 and t < s for t in train_sets)
        parts = {frozenset(t & s) for t in train_sets if len(t & s) >= 2}
        out[dish] = classify(n, min(inside) if inside else None, addone, _min_cover(s, parts))
    return out


def _min_cover(s: frozenset[str], parts: set[frozenset[str]]) -> int:
    """Fewest pieces covering s, where pieces are seen parts (any subset of one) or single atoms."""
    best = len(s)
    frontier = {frozenset()}
    for used in range(1, len(s) + 1):
        frontier = {f | p for f in frontier for p in parts if not p <= f}
        for f in frontier:
            best = min(best, used + len(s - f))
        if not frontier or used >= best:
            break
    return best
