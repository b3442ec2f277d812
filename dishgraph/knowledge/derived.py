"""Keep what is derived from recipes in step with them: USES frequencies and composed target knowledge.

An ingest that adds recipes changes the frequencies of their dishes (USES) and, through the pools, the
composed knowledge of every target (COMPOSED_USES, composed pivots and constraints). ``refresh_derived``
runs after every ingest (the CLI's and the demo's) and re-derives exactly what went stale, so no command
reads frequencies that silently lag behind the recipes; commands that read composed knowledge also check it
(``compose.ensure_fresh``) and say what to run when someone ingested through a path that did not refresh.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from dishgraph.graph.base import GraphStore


@dataclass
class DerivedRefresh:
    uses_dishes: list[str] = field(default_factory=list)
    recomposed_pairs: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)

    def summary(self) -> str:
        return (
            f"USES refreshed for {len(self.uses_dishes)} dish(es); composed knowledge of "
            f"{len(self.recomposed_pairs)} pair(s) recomposed"
        )


def composed_pairs(store: GraphStore, targets: set[str]) -> list[str]:
    from dishgraph.knowledge.pivots import all_pairs, parse_pair

    return [p for p in all_pairs(store) if parse_pair(p)[1] in targets]


def refresh_derived(store: GraphStore, *, recompose: bool = True) -> DerivedRefresh:
    """Re-materialize stale USES; recompose the pairs whose composed knowledge predates the recipes."""
    from dishgraph.knowledge import compose
    from dishgraph.knowledge.frequencies import refresh_stale_uses

    out = DerivedRefresh(uses_dishes=refresh_stale_uses(store))
    if recompose:
        stale = set(compose.composed_state(store)["stale"])
        if stale:
            out.recomposed_pairs = composed_pairs(store, stale)
            compose.compose_pairs(store, out.recomposed_pairs)
    return out
