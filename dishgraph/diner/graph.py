"""DiNeR structures in the graph: dish-name components and compounds, TMCD splits, and their export.

    (:Dish)-[:HAS_COMPONENT {pos, surface}]->(:Component {key, type, cluster})
    (:Dish)-[:HAS_COMPOUND]->(:Compound {key, size})-[:PART]->(:Component)
    (:Dish)-[:IN_SPLIT {part}]->(:Split {name, divergence, atom_divergence, seed, ratio})

Every write is a MERGE on a stable key, so storing twice changes nothing; re-parsing a dish (say with an
extended glossary) first drops its old component and compound links.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dishgraph.diner.names import DinerGlossary, NameParse, compound_parts, parse_names
from dishgraph.diner.tmcd import Split, tmcd_split
from dishgraph.graph.base import GraphStore


@dataclass
class ComponentReport:
    dishes: int = 0
    parsed: int = 0
    components: int = 0  # distinct Component nodes written
    compounds: int = 0  # distinct Compound nodes written
    unparsed: list[dict] = field(default_factory=list)  # {name, remainder, unknown}

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def dish_names(store: GraphStore) -> list[str]:
    return [r["name"] for r in store.query("diner_dish_names")]


def merge_dishes(store: GraphStore, names: Iterable[str]) -> int:
    """Create Dish nodes by name (small loads and tests; real corpora go through ``dishgraph ingest``)."""
    return store.write("diner_merge_dishes", ({"name": n} for n in dict.fromkeys(names)))


def store_components(store: GraphStore, glossary: DinerGlossary, names: Sequence[str] | None = None) -> ComponentReport:
    """Parse the dishes (default: every Dish) and store their components and compounds.

    Unparsable names get no links and are listed in the report with their unparsed remainder.
    """
    names = dish_names(store) if names is None else list(dict.fromkeys(names))
    report = parse_names(names, glossary)
    rows = [{"name": n} for n in names]
    store.write("diner_clear_dish_components", rows)
    store.write("diner_clear_dish_compounds", rows)
    comps = {c.key: {"key": c.key, "type": c.type, "cluster": c.cluster} for p in report.parsed for c in p.components}
    compounds = {k for p in report.parsed for k in p.compounds}
    store.write("diner_merge_components", comps.values())
    store.write(
        "diner_link_components",
        (
            {"dish": p.name, "key": c.key, "pos": c.pos, "surface": c.surface}
            for p in report.parsed
            for c in p.components
        ),
    )
    store.write("diner_merge_compounds", ({"key": k, "size": len(compound_parts(k))} for k in sorted(compounds)))
    store.write(
        "diner_link_compound_parts",
        ({"compound": k, "component": a} for k in sorted(compounds) for a in compound_parts(k)),
    )
    store.write(
        "diner_link_dish_compounds",
        ({"dish": p.name, "compound": k} for p in report.parsed for k in sorted(p.compounds)),
    )
    return ComponentReport(
        dishes=len(names),
        parsed=len(report.parsed),
        components=len(comps),
        compounds=len(compounds),
        unparsed=report.to_dict()["unparsed"],
    )


def dish_atoms(store: GraphStore) -> dict[str, frozenset[str]]:
    """Component keys per parsed dish, read back from the graph."""
    atoms: dict[str, set[str]] = defaultdict(set)
    for r in store.query("diner_dish_components"):
        atoms[r["dish"]].add(r["key"])
    return {d: frozenset(a) for d, a in atoms.items()}


# DiNeR's own target; everything else is `tmcd_split`'s default (ratio 4.5, seed 1, one restart, method fast).
DINER_TARGET_DIVERGENCE = 0.98


def split_parses(parses: Sequence[NameParse], **options: Any) -> Split:
    """TMCD over parsed names: atoms are component keys, compounds every >= 2-subset of them.

    ``options`` are `tmcd_split`'s keywords (ratio, target_divergence, seed, restarts, max_iterations, method,
    progress); the target divergence defaults to DiNeR's 0.98."""
    options.setdefault("target_divergence", DINER_TARGET_DIVERGENCE)
    return tmcd_split([p.atoms for p in parses], names=[p.name for p in parses], **options)


def split_graph(store: GraphStore, name: str, **options: Any) -> Split:
    """Split every dish whose components are stored (see ``store_components``) and store the split as ``name``.

    ``options`` as for `split_parses`."""
    atoms = dish_atoms(store)
    if len(atoms) < 2:
        raise ValueError("fewer than 2 dishes with stored components; run `dishgraph diner load` first")
    dishes = sorted(atoms)
    options.setdefault("target_divergence", DINER_TARGET_DIVERGENCE)
    split = tmcd_split([atoms[d] for d in dishes], names=dishes, **options)
    store_split(store, split, name)
    return split


def store_split(store: GraphStore, split: Split, name: str) -> int:
    """Store a split under ``name`` (replacing an older one of that name); returns dishes linked."""
    if not split.names:
        raise ValueError("the split carries no dish names (pass names= to tmcd_split)")
    store.query(
        "diner_merge_split",
        split=name,
        divergence=float(split.divergence),
        atom_divergence=float(split.atom_divergence),
        seed=split.seed,
        ratio=float(split.ratio),
    )
    store.query("diner_clear_split", split=name)
    rows = [{"dish": d, "part": "train"} for d in split.train_names] + [
        {"dish": d, "part": "test"} for d in split.test_names
    ]
    return store.write("diner_link_split", rows, split=name)


def split_info(store: GraphStore, name: str) -> dict:
    rows = store.query("diner_split_info", split=name)
    if not rows:
        raise KeyError(f"no split named {name!r} in the graph")
    return rows[0]


def list_splits(store: GraphStore) -> list[dict]:
    return store.query("diner_list_splits")


def export_split(store: GraphStore, name: str, what: str = "dishes") -> dict[str, list[str]]:
    """``{train: [...], test: [...]}`` of dish names (``what="dishes"``) or recipe ids (``"recipes"``)."""
    split_info(store, name)  # raises if absent
    if what == "dishes":
        rows, col = store.query("diner_split_dishes", split=name), "dish"
    elif what == "recipes":
        rows, col = store.query("diner_split_recipes", split=name), "recipe"
    else:
        raise ValueError(f"what must be 'dishes' or 'recipes', not {what!r}")
    out: dict[str, list[str]] = {"train": [], "test": []}
    for r in rows:
        out[r["part"]].append(r[col])
    return out
