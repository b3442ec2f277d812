"""Composed knowledge as graph data (COMPOSED_USES, COMPOSED_FROM) and whether it is stale."""

from __future__ import annotations

from dishgraph.actions import ProtoAction
from dishgraph.graph.base import GraphStore
from dishgraph.knowledge.compose.sources import Composition, _sid
from dishgraph.knowledge.pivots import COMPOSED


def corpus_recipes(store: GraphStore) -> int:
    return int(store.query("compose_parsed_recipes")[0]["recipes"] or 0)


def write_composition(
    store: GraphStore, comp: Composition, *, min_freq: float = 0.0, recipes_now: int | None = None
) -> int:
    """Replace the target's COMPOSED_USES / COMPOSED_FROM edges with ``comp`` (proto-actions created as needed:
    a swapped key may name an action no recipe has done yet)."""
    from dishgraph.ingest.loader import load_proto_actions

    recipes_now = corpus_recipes(store) if recipes_now is None else recipes_now
    store.query("compose_clear", dishes=[comp.target])
    keep = {a: f for a, f in comp.freq.items() if f > min_freq}
    # create: ask which keys exist and CREATE only the absent ones (almost all exist); a MERGE of every action
    # cost ~0.3 s a target
    # "create": look the keys up and CREATE the few absent ones; MERGEing every action cost ~0.3 s a target
    load_proto_actions(store, [ProtoAction.from_key(a) for a in sorted(keep)], mode="create")
    n = store.write(
        "compose_write_uses",
        (
            {
                "dish": comp.target,
                "action": a,
                "freq": float(f),
                "weight": float(comp.total_weight),
                "source": COMPOSED,
                "corpus_recipes": recipes_now,
            }
            for a, f in sorted(keep.items())
        ),
    )
    rows = []
    for s in comp.sources:
        w = comp.weights[_sid(s)] / comp.total_weight if comp.total_weight else 0.0
        for dish, n_d in s.dishes:
            rows.append(
                {
                    "target": comp.target,
                    "dish": dish,
                    "role": s.kind,
                    "atom": s.atom,
                    "weight": float(w * n_d / s.recipes) if s.recipes else 0.0,
                    "recipes": int(n_d),
                }
            )
    store.write("compose_write_from", rows)
    return n


def composed_state(store: GraphStore) -> dict:
    """Which dishes hold composed knowledge and whether it is stale (the parsed recipes changed since)."""
    now = corpus_recipes(store)
    rows = store.query("compose_state")
    stale = [r["dish"] for r in rows if int(r["corpus_recipes"] or -1) != now]
    return {"dishes": len(rows), "recipes_now": now, "stale": stale}


class StaleKnowledge(RuntimeError):
    """Composed knowledge older than the recipes in the graph."""


def ensure_fresh(store: GraphStore) -> dict:
    """Raise ``StaleKnowledge`` (a message saying what to run) if composed knowledge predates the recipes."""
    state = composed_state(store)
    if not state["dishes"]:
        raise StaleKnowledge("no composed knowledge in the graph: run `dishgraph pivots mine --knowledge composed`")
    if state["stale"]:
        raise StaleKnowledge(
            f"composed knowledge of {len(state['stale'])} dish(es) predates the "
            f"{state['recipes_now']} parsed recipes now in the graph: run "
            "`dishgraph pivots mine --knowledge composed` again"
        )
    return state
