"""Composed knowledge in the typed reading: a target's pivots on its own foods.

The CRG-keyed composition (``compose.pairs``) swaps and pools by the release's ingredient *class*, and the
classes are coarse: 冰糖雪梨 → 冰糖金桔 pools every dish of class 梨, so the kumquat target "inserts" 去皮|梨|;
清炒小白菜 → 清炒丝瓜 finds nothing to change, 小白菜 and 丝瓜 sharing class 黄瓜. That key stays for the fair
editor and the CRG scores. Beside it, this module composes the same target from the same kinds of sources in
the typed reading, where foods have their own canonical names (``ingest.foods``):

- ``base``: the base dish's recipes, the old food swapped for the new one where both are of one category
  (菜心 → 油麦菜, leafy vegetables; a pear's peeling is no kumquat's), recipe by recipe;
- ``action`` / ``flavour`` / ``food``: the recipes of every other dish sharing a DiNeR component of the name;
- ``class`` → the **food pool**: recipes of other dishes with a cooking step on the new food itself (金桔),
  not on its class;
- ``own``: the target's own recipes.

The weights, shrinkage and pivot thresholds are the CRG composition's defaults (``ComposeSettings``,
``ComposedThresholds``), tuned on even pairs; nothing here reads a released pivot or constraint. Nothing is
stored: the pivots are computed when asked (a few milliseconds once the graph's typed actions are read).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from dishgraph.actions import ProtoAction
from dishgraph.graph.base import GraphStore
from dishgraph.ingest.foods import food_lexicon
from dishgraph.knowledge.compose.mixing import mix
from dishgraph.knowledge.compose.settings import ComposedThresholds, ComposeSettings
from dishgraph.knowledge.compose.sources import Source, swap_class

TYPED_COMPOSED = "composed-typed"


@dataclass
class TypedRecipes:
    """Every parsed recipe's set of typed keys, by dish, and each dish's parsed recipes (read once)."""

    actions: dict[str, list[frozenset[str]]]
    recipes: dict[str, int]

    @classmethod
    def read(cls, store: GraphStore) -> TypedRecipes:
        actions: dict[str, list[frozenset[str]]] = defaultdict(list)
        for r in store.query("typed_actions_all_recipes"):
            actions[r["dish"]].append(frozenset(r["actions"] or ()))
        recipes = {r["dish"]: int(r["recipes"]) for r in store.query("uses_dishes_with_recipes")}
        return cls(dict(actions), recipes)

    def pool(self, kind: str, atom: str, dishes: Iterable[str]) -> Source | None:
        """The dishes' recipes pooled: per key, the share of their parsed recipes doing it."""
        ds = [d for d in dishes if self.recipes.get(d)]
        n = sum(self.recipes[d] for d in ds)
        if not n:
            return None
        counts: Counter = Counter()
        for d in ds:
            for acts in self.actions.get(d, ()):
                counts.update(acts)
        return Source(kind, atom, n, {a: c / n for a, c in counts.items()}, [(d, self.recipes[d]) for d in ds])

    def food_pool(self, food: str, exclude: Iterable[str]) -> Source | None:
        """Recipes of every dish but ``exclude`` with a cooking step on ``food`` itself."""
        skip = set(exclude)
        counts: Counter = Counter()
        per_dish: Counter = Counter()
        for d, recipes in self.actions.items():
            if d in skip:
                continue
            for acts in recipes:
                if any(food in ProtoAction.from_key(a).ingredients for a in acts):
                    counts.update(acts)
                    per_dish[d] += 1
        n = sum(per_dish.values())
        if not n:
            return None
        return Source("class", food, n, {a: c / n for a, c in counts.items()}, sorted(per_dish.items()))

    def frequencies(self, dish: str) -> dict[str, float]:
        n = self.recipes.get(dish, 0)
        counts: Counter = Counter()
        for acts in self.actions.get(dish, ()):
            counts.update(acts)
        return {a: c / n for a, c in counts.items()} if n else {}


def _swap(key: str, old: str, new: str) -> str:
    return swap_class(key, old, new)


def typed_sources(
    store: GraphStore, pair: str, data: TypedRecipes, diner_glossary=None
) -> tuple[list[Source], str, str, str | None]:
    """The sources of a pair's target in the typed reading, with base, target and the new food's name."""
    from dishgraph.diner.names import parse_name
    from dishgraph.knowledge.compose.sources import default_glossaries
    from dishgraph.knowledge.pivots import pair_info

    info = pair_info(store, pair)
    base, target = info["base"], info["target"]
    lex = food_lexicon()
    old = lex.canonical(info["change_from"]) if info.get("change_from") else None
    new = lex.canonical(info["change_to"]) if info.get("change_to") else None
    if info.get("change_kind") == "add":
        old = None
    if diner_glossary is None:
        diner_glossary = default_glossaries(store)[0]
    sources: list[Source] = []
    # The base's handling of the old food carries over to the new one only within one category (菜心 → 油麦菜,
    # both leafy): a pear is peeled, a kumquat is not, and the kumquat's own dishes say what is done to it.
    swap = bool(old and new and lex.category(old) and lex.category(old) == lex.category(new))
    if data.recipes.get(base):
        swapped: Counter = Counter()
        for acts in data.actions.get(base, ()):
            swapped.update({_swap(a, old, new) if swap else a for a in acts})
        n = data.recipes[base]
        sources.append(Source("base", base, n, {a: c / n for a, c in swapped.items()}, [(base, n)]))
    parse = parse_name(target, diner_glossary)
    for atom in sorted(parse.atoms) if parse.ok else ():
        dishes = [r["dish"] for r in store.query("compose_component_dishes", atom=atom, exclude=[base, target])]
        if s := data.pool(atom.split(":", 1)[0], atom, dishes):
            sources.append(s)
    if new and (s := data.food_pool(new, [base, target])):
        sources.append(s)
    if s := data.pool("own", target, [target]):
        sources.append(s)
    return sources, base, target, new


def typed_composed_pivots(
    store: GraphStore,
    pair: str,
    data: TypedRecipes | None = None,
    settings: ComposeSettings = ComposeSettings(),
    thresholds: ComposedThresholds = ComposedThresholds(),
) -> list[dict]:
    """The pair's composed pivots in the typed reading: rows {action, kind, fb, ft} (remove / insert), by the
    rule of ``pivot_mine_composed`` with its default thresholds, on keys that name foods by their own names."""
    data = data or TypedRecipes.read(store)
    sources, base, _target, new = typed_sources(store, pair, data)
    ft, _weights, _total = mix(sources, settings)
    fb = data.frequencies(base)
    t = thresholds
    rows = []
    for a in sorted(set(fb) | set(ft)):
        b, f = fb.get(a, 0.0), ft.get(a, 0.0)
        p = ProtoAction.from_key(a)
        if b > t.alpha * f and f < t.tau_r and b >= t.min_fb:
            kind = "remove"
        elif f > t.alpha * b and (f > t.tau_i or (new and p.ingredients == {new} and not p.tools and f > t.tau_new)):
            kind = "insert"
        else:
            continue
        rows.append({"action": a, "kind": kind, "fb": round(b, 6), "ft": round(f, 6)})
    return sorted(rows, key=lambda r: (r["kind"], -max(r["fb"], r["ft"]), r["action"]))
