"""Where a target's evidence comes from: the base dish, pools of dishes sharing a name component or the new
ingredient class, and the target's own recipes, each a frequency table read from the graph."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from dishgraph.actions import KEY_SEP, SET_SEP
from dishgraph.graph.base import GraphStore


@dataclass
class Source:
    """One frequency table: ``freq[action]`` = share of the source's ``recipes`` doing the action."""

    kind: str
    atom: str
    recipes: int
    freq: dict[str, float]
    dishes: list[tuple[str, int]] = field(default_factory=list)  # contributing (dish, recipes)
    corpus: str = ""  # the recipe source tag of a per-corpus pool ("" = every corpus pooled)


@dataclass
class Composition:
    target: str
    freq: dict[str, float]
    sources: list[Source]
    weights: dict[str, float]  # (kind:atom) -> W_s
    total_weight: float

    def top(self, n: int = 20) -> list[tuple[str, float]]:
        return sorted(self.freq.items(), key=lambda kv: (-kv[1], kv[0]))[:n]

    def summary(self) -> dict:
        return {
            "target": self.target,
            "actions": len(self.freq),
            "total_weight": round(self.total_weight, 3),
            "sources": [
                {
                    "kind": s.kind,
                    "atom": s.atom,
                    "recipes": s.recipes,
                    "dishes": len(s.dishes),
                    "weight": round(self.weights[_sid(s)], 3),
                }
                for s in self.sources
            ],
        }


def _sid(s: Source) -> str:
    return f"{s.kind}:{s.atom}@{s.corpus}" if s.corpus else f"{s.kind}:{s.atom}"


def swap_class(key: str, old: str | None, new: str | None) -> str:
    """The proto-action key with ingredient class ``old`` replaced by ``new`` (unchanged if absent)."""
    if not old or not new:
        return key
    verb, ingr, tools = key.split(KEY_SEP)
    classes = ingr.split("+") if ingr else []
    if old not in classes:
        return key
    return KEY_SEP.join([verb, "+".join(sorted({new if c == old else c for c in classes})), tools])


def base_source(
    store: GraphStore, base: str, old: str | None, new: str | None, rows: list[dict] | None = None
) -> Source | None:
    """The base dish's recipes, each with the changed class swapped for the new one (``rows``: the base's
    ``compose_dish_recipe_actions``, read already)."""
    rows = store.query("compose_dish_recipe_actions", dish=base) if rows is None else rows
    if not rows:
        return None
    counts: Counter = Counter()
    for r in rows:
        counts.update({swap_class(k, old, new) for k in (r["actions"] or []) if k})
    n = len(rows)  # actions in key order: a set's order follows the process's string hashing
    return Source("base", base, n, {a: c / n for a, c in sorted(counts.items())}, [(base, n)])


def _pool(store: GraphStore, kind: str, name: str, dishes_query: str, pool_query: str, **params) -> Source | None:
    """A pooled source: the contributing dishes (with recipe counts) and per action the recipes doing it."""
    dishes = [(r["dish"], int(r["recipes"])) for r in store.query(dishes_query, **params)]
    n = sum(c for _, c in dishes)
    if not n:
        return None
    freq = {r["action"]: int(r["recipes"]) / n for r in store.query(pool_query, **params)}
    return Source(kind, name, n, freq, dishes)


def _pool_by_corpus(
    store: GraphStore, kind: str, name: str, dishes_query: str, pool_query: str, **params
) -> list[Source]:
    """``_pool`` split by corpus (recipe source tag): one source per corpus with recipes."""
    dishes: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for r in store.query(dishes_query, **params):
        dishes[r["corpus"] or ""].append((r["dish"], int(r["recipes"])))
    counts: dict[str, dict[str, int]] = defaultdict(dict)
    for r in store.query(pool_query, **params):
        counts[r["corpus"] or ""][r["action"]] = int(r["recipes"])
    out = []
    for corpus, ds in sorted(dishes.items()):
        n = sum(c for _, c in ds)
        if n:
            freq = {a: c / n for a, c in counts[corpus].items()}
            out.append(Source(kind, name, n, freq, ds, corpus=corpus or "?"))
    return out


def component_sources(store: GraphStore, kind: str, atom: str, exclude: Sequence[str]) -> list[Source]:
    """``component_source`` per corpus."""
    return _pool_by_corpus(
        store,
        kind,
        atom,
        "compose_component_corpus_dishes",
        "compose_pool_by_component_corpus",
        atom=atom,
        exclude=list(exclude),
    )


def class_sources(store: GraphStore, cls: str, exclude: Sequence[str]) -> list[Source]:
    """``class_source`` per corpus."""
    return _pool_by_corpus(
        store,
        "class",
        cls,
        "compose_class_corpus_dishes",
        "compose_pool_by_class_corpus",
        cls=cls,
        exclude=list(exclude),
    )


def component_source(store: GraphStore, kind: str, atom: str, exclude: Sequence[str]) -> Source | None:
    """Pooled recipes of every dish (but ``exclude``) whose name has DiNeR component ``atom``."""
    return _pool(
        store, kind, atom, "compose_component_dishes", "compose_pool_by_component", atom=atom, exclude=list(exclude)
    )


def class_source(store: GraphStore, cls: str, exclude: Sequence[str]) -> Source | None:
    """Recipes of every dish (but ``exclude``) that handle ingredient class ``cls``."""
    return _pool(store, "class", cls, "compose_class_dishes", "compose_pool_by_class", cls=cls, exclude=list(exclude))


class Pools:
    """Component and class pools each read once, with every dish's part, so that a pool leaving some dishes
    out is the whole pool less their parts: composing many targets that each leave out their own dishes (the
    pseudo-pairs of a weight fit, hundreds; the CRG pairs) reads a pool once, not once per target. Counts are
    integers, so each source is ``component_source`` / ``class_source``'s to the last bit, its actions in the
    same order (``tests/test_compose.py`` compares them on a real graph)."""

    def __init__(self, store: GraphStore):
        self.store = store
        self._rows: dict[str, list[dict]] = {}
        self._read: dict[tuple[str, str], tuple[list[tuple[str, int]], dict[str, int], dict[str, dict[str, int]]]] = {}

    def base(self, base: str, old: str | None, new: str | None) -> Source | None:
        """``base_source(store, base, old, new)``, the base's recipes read once (a base serves many targets)."""
        if base not in self._rows:
            self._rows[base] = self.store.query("compose_dish_recipe_actions", dish=base)
        return base_source(self.store, base, old, new, self._rows[base])

    def component(self, kind: str, atom: str, exclude: Sequence[str]) -> Source | None:
        """``component_source(store, kind, atom, exclude)``."""
        read = self._pool(("component", atom), "compose_component_dishes", "compose_pool_by_component_dish", atom=atom)
        return self._less(kind, atom, read, exclude)

    def cls(self, cls: str, exclude: Sequence[str]) -> Source | None:
        """``class_source(store, cls, exclude)``."""
        read = self._pool(("class", cls), "compose_class_dishes", "compose_pool_by_class_dish", cls=cls)
        return self._less("class", cls, read, exclude)

    def _pool(self, key: tuple[str, str], dishes_query: str, pool_query: str, **params):
        if key not in self._read:
            dishes = [(r["dish"], int(r["recipes"])) for r in self.store.query(dishes_query, exclude=[], **params)]
            totals: dict[str, int] = {}
            parts: dict[str, dict[str, int]] = defaultdict(dict)
            for r in self.store.query(pool_query, **params):  # ordered by action
                a, n = r["action"], int(r["recipes"])
                totals[a] = totals.get(a, 0) + n
                parts[r["dish"]][a] = n
            self._read[key] = (dishes, totals, parts)
        return self._read[key]

    @staticmethod
    def _less(kind: str, name: str, read, exclude: Sequence[str]) -> Source | None:
        dishes, totals, parts = read
        out = [parts[d] for d in dict.fromkeys(exclude) if d in parts]
        kept = [(d, c) for d, c in dishes if d not in exclude]
        n = sum(c for _, c in kept)
        if not n:
            return None
        freq = {}
        for a, total in totals.items():
            c = total - sum(p.get(a, 0) for p in out)
            if c > 0:
                freq[a] = c / n
        return Source(kind, name, n, freq, kept)


def own_source(store: GraphStore, dish: str) -> Source | None:
    """The dish's own parsed recipes (its USES edges), where the corpus has some."""
    rows = store.query("uses_dish_actions", dish=dish, min_freq=0.0, top=1_000_000)
    if not rows:
        return None
    n = int(rows[0]["total"])
    return Source("own", dish, n, {r["action"]: float(r["freq"]) for r in rows}, [(dish, n)])


def real_uses(store: GraphStore) -> Callable[[str], dict[str, float]]:
    """A dish's real USES shares (``own_source``; empty without recipes), each dish read once: the pseudo-pair
    examples and the ranker's labels read the same dishes again and again."""
    cache: dict[str, dict[str, float]] = {}

    def real(dish: str) -> dict[str, float]:
        if dish not in cache:
            own = own_source(store, dish)
            cache[dish] = own.freq if own else {}
        return cache[dish]

    return real


def _classes(key: str) -> list[str]:
    """The ingredient classes of a proto-action key (``verb|a+b|tools``)."""
    parts = key.split(KEY_SEP)
    return parts[1].split(SET_SEP) if len(parts) == 3 and parts[1] else []


@dataclass(frozen=True)
class TargetSpec:
    """What composition needs to know of a target: its name parts, the dishes to leave out, the classes."""

    target: str
    atoms: tuple[str, ...]  # DiNeR component keys type:cluster
    exclude: tuple[str, ...]  # dishes whose recipes must not count (base, target, held-out)
    base: str | None = None
    old_cls: str | None = None
    new_cls: str | None = None
    classes: tuple[str, ...] = ()  # ingredient classes for the class pool
    own: bool = True


def gather_sources(
    store: GraphStore, spec: TargetSpec, by_corpus: bool = False, pools: Pools | None = None
) -> list[Source]:
    """Every source of ``spec``'s target; ``by_corpus``: component and class pools one per corpus. ``pools``:
    read the (pooled) component and class sources through it, for callers composing many targets."""
    out: list[Source] = []
    if spec.base:
        s = (
            pools.base(spec.base, spec.old_cls, spec.new_cls)
            if pools
            else base_source(store, spec.base, spec.old_cls, spec.new_cls)
        )
        if s:
            out.append(s)
    for atom in spec.atoms:
        kind = atom.split(":", 1)[0]
        if by_corpus:
            out.extend(component_sources(store, kind, atom, spec.exclude))
        elif s := (
            pools.component(kind, atom, spec.exclude) if pools else component_source(store, kind, atom, spec.exclude)
        ):
            out.append(s)
    for cls in spec.classes:
        if by_corpus:
            out.extend(class_sources(store, cls, spec.exclude))
        elif s := pools.cls(cls, spec.exclude) if pools else class_source(store, cls, spec.exclude):
            out.append(s)
    if spec.own:
        s = own_source(store, spec.target)
        if s:
            out.append(s)
    return out


def pair_spec(store: GraphStore, pair: str, diner_glossary, glossary) -> TargetSpec:
    """The composition spec of a DishPair: its target's name components, its base, the changed classes."""
    from dishgraph.diner.names import parse_name
    from dishgraph.knowledge.pivots import pair_info

    info = pair_info(store, pair)
    base, target = info["base"], info["target"]
    parse = parse_name(target, diner_glossary)
    atoms = tuple(sorted(parse.atoms)) if parse.ok else ()
    old = glossary.ingredient.get(info["change_from"]) if info.get("change_from") else None
    new = glossary.ingredient.get(info["change_to"]) if info.get("change_to") else None
    if info.get("change_kind") == "add":
        old = None
    return TargetSpec(target, atoms, (base, target), base, old, new, (new,) if new else ())


def ensure_components(store: GraphStore, diner_glossary, dishes: Sequence[str] | None = None) -> int:
    """Store DiNeR components of every dish, or of ``dishes`` only (composition pools dishes by them: after an
    ingest only its dishes can lack theirs); returns dishes parsed."""
    from dishgraph.diner.graph import store_components

    return store_components(store, diner_glossary, dishes).parsed


def default_glossaries(store: GraphStore | None = None):
    from dishgraph import config
    from dishgraph.diner.names import EXTRA_GLOSSARY, DinerGlossary
    from dishgraph.ingest.glossary import Glossary

    return DinerGlossary.load(None, [EXTRA_GLOSSARY]), Glossary.load(
        config.data_dir() / "counterfactual" / "glossary.json"
    )
