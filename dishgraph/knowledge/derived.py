"""Keep what is derived from recipes in step with them: USES frequencies and composed target knowledge.

An ingest that adds recipes changes the frequencies of their dishes (USES) and, through the pools, the composed
knowledge of the targets whose sources those dishes belong to (COMPOSED_USES, composed pivots and constraints).
``refresh_derived`` runs after every ingest (the CLI's and the demo's) and re-derives only what the ingest
touched: USES of the dishes it added recipes to, and the composition of a target whose base or target dish got
recipes. A target whose pools the new recipes only joined (a dish sharing a component of its name, or handling
its new ingredient class) is left stale and named: recomposing every such target costs about a second each and
26 of 50 for 22 recipes, far more than the ingest. Every other target's knowledge is marked current, since
recomposing it would give the same edges. So ingesting 22 recipes costs seconds, not a recomposition of all
fifty targets, and ingesting the release after the PizzaCommonSense tables does not count the actions of 988
English pizza dishes. The fair graph editor refuses stale knowledge (``compose.ensure_fresh``) and says what to
run, as after ``--no-refresh``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field

from dishgraph.graph.base import GraphStore


@dataclass
class DerivedRefresh:
    uses_dishes: list[str] = field(default_factory=list)
    recomposed_pairs: list[str] = field(default_factory=list)
    stale_pairs: list[str] = field(default_factory=list)  # pairs whose pools the new recipes joined: left stale
    current_targets: int = 0  # composed targets the ingest could not change, marked current without recomposing
    skipped: bool = False  # ``--no-refresh``: nothing was re-derived
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)

    def summary(self) -> str:
        if self.skipped:
            return (
                "derived data not refreshed (--no-refresh): frequencies and composed knowledge may lag behind the "
                "recipes; `dishgraph pivots mine --all --knowledge composed` recomposes"
            )
        text = (
            f"refreshed in {self.seconds:.1f} s: USES of {len(self.uses_dishes)} dish(es) the ingest touched; "
            f"composed knowledge of {len(self.recomposed_pairs)} pair(s) recomposed (their base or target "
            f"recipes changed), {self.current_targets} target(s) unaffected"
        )
        if self.stale_pairs:
            text += (
                f"; {len(self.stale_pairs)} pair(s) left stale (the new recipes joined pools they read): "
                "`dishgraph pivots mine --all --knowledge composed` recomposes them, about a second each"
            )
        return text


def composed_pairs(store: GraphStore, targets: set[str]) -> list[str]:
    from dishgraph.knowledge.pivots import all_pairs, parse_pair

    return [p for p in all_pairs(store) if parse_pair(p)[1] in targets]


def affected_pairs(store: GraphStore, pairs: list[str], touched: Collection[str]) -> tuple[list[str], list[str]]:
    """The pairs whose composition can read a recipe of a ``touched`` dish, as (direct, pooled): *direct* when
    the dish is the pair's base or target (its own evidence changed), *pooled* when it only shares a DiNeR
    component with the target's name or handles the target's new ingredient class (it joined a pool)."""
    from dishgraph.diner.names import parse_name
    from dishgraph.knowledge.compose import default_glossaries, pair_spec

    touched = set(touched)
    if not touched:
        return [], []
    diner_glossary, glossary = default_glossaries(store)
    atoms: set[str] = set()
    for dish in touched:
        parse = parse_name(dish, diner_glossary)
        if parse.ok:
            atoms.update(parse.atoms)
    classes = {r["cls"] for r in store.query("derived_dish_classes", dishes=sorted(touched))}
    direct, pooled = [], []
    for key in pairs:
        spec = pair_spec(store, key, diner_glossary, glossary)
        if spec.target in touched or (spec.base is not None and spec.base in touched):
            direct.append(key)
        elif atoms.intersection(spec.atoms) or classes.intersection(spec.classes):
            pooled.append(key)
    return direct, pooled


def refresh_derived(
    store: GraphStore,
    *,
    touched: Collection[str] | None = None,
    recipes_before: int | None = None,
    recompose: bool = True,
    progress: Callable[[str], None] | None = None,
) -> DerivedRefresh:
    """Re-materialize stale USES and recompose stale composed knowledge, limited to what the ``touched`` dishes
    (those an ingest added recipes to) can change; ``touched=None`` re-derives everything stale. Knowledge
    this ingest cannot change is marked current only if it was current before it (``recipes_before``, the
    count `compose.corpus_recipes` gave then): knowledge an earlier ``--no-refresh`` left stale stays stale.
    ``progress`` hears one line before each part starts."""
    from dishgraph.knowledge import compose
    from dishgraph.knowledge.frequencies import materialize_uses, stale_uses_dishes
    from dishgraph.knowledge.pivots import parse_pair

    t0 = time.perf_counter()
    say = progress or (lambda _: None)
    stale = stale_uses_dishes(store)
    if touched is not None:
        mine = set(touched)
        stale = [d for d in stale if d in mine]
    if stale:
        say(f"refreshing USES of {len(stale)} dish(es)")
        materialize_uses(store, stale)
    out = DerivedRefresh(uses_dishes=stale)
    if recompose:
        state = compose.composed_state(store)
        if state["stale"]:
            pairs = composed_pairs(store, set(state["stale"]))
            redo, pooled = (pairs, []) if touched is None else affected_pairs(store, pairs, touched)
            if redo:
                say(f"recomposing the knowledge of {len(redo)} of {len(pairs)} composed pair(s)")
                compose.compose_pairs(store, redo, refresh_uses=False, component_dishes=sorted(touched or ()) or None)
            kept_stale = {parse_pair(p)[1] for p in redo + pooled}
            stamps = {r["dish"]: r["corpus_recipes"] for r in store.query("compose_state")}
            current = sorted(
                d
                for d in set(state["stale"]) - kept_stale
                if recipes_before is not None and stamps[d] == recipes_before
            )
            if current:
                store.query("compose_mark_current", dishes=current, recipes=compose.corpus_recipes(store))
            out.recomposed_pairs, out.stale_pairs, out.current_targets = redo, pooled, len(current)
    out.seconds = round(time.perf_counter() - t0, 2)
    return out
