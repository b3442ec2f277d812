"""Keep what is derived from recipes in step with them: USES frequencies and composed target knowledge.

An ingest that adds recipes changes the frequencies of their dishes (USES) and, through the pools, the composed
knowledge of the targets whose sources those dishes belong to (COMPOSED_USES, composed pivots and constraints).
``refresh_derived`` runs after every ingest (the CLI's and the demo's) and re-derives only what the ingest
touched: USES of the dishes it added recipes to, and the composition of a target only when one of those dishes
is its base, itself, shares a component of its name, or handles its new ingredient class. Every other target's
knowledge is marked current, since recomposing it would give the same edges. So ingesting 22 recipes costs a few
targets' composition, not all fifty, and ingesting the release after the PizzaCommonSense tables does not count
the actions of 988 English pizza dishes. Commands that read composed knowledge still check it
(``compose.ensure_fresh``) and say what to run when an ingest skipped the refresh (``--no-refresh``).
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
        return (
            f"refreshed in {self.seconds:.1f} s: USES of {len(self.uses_dishes)} dish(es) the ingest touched; "
            f"composed knowledge of {len(self.recomposed_pairs)} pair(s) recomposed, "
            f"{self.current_targets} target(s) unaffected"
        )


def composed_pairs(store: GraphStore, targets: set[str]) -> list[str]:
    from dishgraph.knowledge.pivots import all_pairs, parse_pair

    return [p for p in all_pairs(store) if parse_pair(p)[1] in targets]


def affected_pairs(store: GraphStore, pairs: list[str], touched: Collection[str]) -> list[str]:
    """The pairs whose composition can read a recipe of a ``touched`` dish: the dish is the pair's base or target,
    shares a DiNeR component with the target's name, or handles the target's new ingredient class."""
    from dishgraph.diner.names import parse_name
    from dishgraph.knowledge.compose import default_glossaries, pair_spec

    touched = set(touched)
    if not touched:
        return []
    diner_glossary, glossary = default_glossaries(store)
    atoms: set[str] = set()
    for dish in touched:
        parse = parse_name(dish, diner_glossary)
        if parse.ok:
            atoms.update(parse.atoms)
    classes = {r["cls"] for r in store.query("derived_dish_classes", dishes=sorted(touched))}
    out = []
    for key in pairs:
        spec = pair_spec(store, key, diner_glossary, glossary)
        if (
            spec.target in touched
            or (spec.base is not None and spec.base in touched)
            or atoms.intersection(spec.atoms)
            or classes.intersection(spec.classes)
        ):
            out.append(key)
    return out


def refresh_derived(
    store: GraphStore,
    *,
    touched: Collection[str] | None = None,
    recompose: bool = True,
    progress: Callable[[str], None] | None = None,
) -> DerivedRefresh:
    """Re-materialize stale USES and recompose stale composed knowledge, limited to what the ``touched`` dishes
    (those an ingest added recipes to) can change; ``touched=None`` re-derives everything stale.
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
            redo = pairs if touched is None else affected_pairs(store, pairs, touched)
            if redo:
                say(f"recomposing the knowledge of {len(redo)} of {len(pairs)} composed pair(s)")
                compose.compose_pairs(store, redo, refresh_uses=False)
            redone = {parse_pair(p)[1] for p in redo}
            current = sorted(set(state["stale"]) - redone)
            if current:
                store.query("compose_mark_current", dishes=current, recipes=compose.corpus_recipes(store))
            out.recomposed_pairs, out.current_targets = redo, len(current)
    out.seconds = round(time.perf_counter() - t0, 2)
    return out
