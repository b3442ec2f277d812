"""One dish at a glance (`dishgraph dish NAME`, `DishGraph.dish`): where it comes from, its recipes, its top
actions, the dish pairs it is in and how many order constraints it has per source. The first thing a newcomer
asks of a graph, answered from the named queries every other command uses."""

from __future__ import annotations

from dishgraph.graph.base import GraphStore
from dishgraph.knowledge import names


def dish_card(store: GraphStore, dish: str, actions: list[dict]) -> dict:
    """The card of ``dish`` (an unknown name raises `UnknownName` with the closest ones); ``actions``: its
    top actions as the caller reads them (`DishGraph.actions`, culinary ones by default)."""
    names.require_dish(store, dish)
    rows = store.query("dish_overview", dish=dish)
    sources = [
        {"source": r["recipe_source"], "recipes": r["recipes"], "parsed": r["parsed"]} for r in rows if r["recipes"]
    ]
    pairs = [
        {"pair": p["pair"], "role": "base" if p["base"] == dish else "target"}
        for p in store.query("pivot_pairs")
        if dish in (p["base"], p["target"])
    ]
    constraints = {r["source"]: r["constraints"] for r in store.query("order_dish_sources", dish=dish)}
    return {
        "dish": dish,
        "named_by": rows[0]["dish_source"] if rows else None,
        "recipes": sum(s["recipes"] for s in sources),
        "recipes_by_source": sources,
        "top_actions": [_action_row(a) for a in actions],
        "pairs": pairs,
        "order_constraints": constraints,
    }


def _action_row(a: dict) -> dict:
    return {"action": a["action"], "freq": a["freq"], "recipes": a["n"]}
