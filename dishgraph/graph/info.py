"""What `db info` and `stats` report: backend, location, counts, and action-graph statistics."""

from __future__ import annotations

from typing import Any

from dishgraph.graph.base import GraphStore


def database_info(store: GraphStore) -> dict[str, Any]:
    return {
        "backend": store.backend,
        "location": store.location(),
        "version": store.version(),
        "counts": store.counts(),
    }


def graph_stats(store: GraphStore, top: int = 5) -> dict[str, Any]:
    """Counts plus the action-graph figures of issue 3 (recipes with actions, steps and omissions)."""
    counts = store.counts()
    recipes = store.query("stats_recipe_actions")
    n = len(recipes)
    with_actions = sum(1 for r in recipes if r["steps"] > 0)
    steps = sum(r["steps"] for r in recipes)
    inherited = sum(r["inherited"] for r in recipes)
    top_rows = store.query("stats_top_actions_per_dish")
    per_dish: dict[str, list[dict[str, Any]]] = {}
    for r in top_rows:
        lst = per_dish.setdefault(r["dish"], [])
        if len(lst) < top:
            lst.append({"action": r["action"], "recipes": r["recipes"]})
    return {
        "counts": counts,
        "recipes": n,
        "recipes_with_actions": with_actions,
        "share_with_actions": (with_actions / n) if n else 0.0,
        "steps_per_recipe": (steps / n) if n else 0.0,
        "inherited_per_recipe": (inherited / n) if n else 0.0,
        "distinct_proto_actions": store.query("stats_distinct_proto_actions")[0]["n"],
        "top_actions_per_dish": per_dish,
    }
