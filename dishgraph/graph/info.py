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


def graph_stats(store: GraphStore, top: int = 5, all_actions: bool = False, by: str = "food") -> dict[str, Any]:
    """Counts plus the action-graph figures (recipes with actions, steps and omissions); the top actions per
    dish are the typed reading's keys of cooking steps (``Step.typed_action``: foods by their own names, rolled
    up to their category or group with ``by``), every CRG key with ``all_actions``."""
    counts = store.counts()
    recipes = store.query("stats_recipe_actions")
    n = len(recipes)
    with_actions = sum(1 for r in recipes if r["steps"] > 0)
    steps = sum(r["steps"] for r in recipes)
    inherited = sum(r["inherited"] for r in recipes)
    dish_recipes = {r["dish"]: int(r["recipes"]) for r in store.query("uses_dishes_with_recipes")}
    ranked = sorted(dish_recipes, key=lambda d: (-dish_recipes[d], d))  # most recipes first: a reader's dishes
    found: dict[str, list[dict[str, Any]]] = {}
    # Default: the typed keys of cooking steps (切|洋葱| where 切丝 follows 洋葱洗净); --all-actions: every CRG key.
    for r in _top_rows(store, all_actions, by):
        lst = found.setdefault(r["dish"], [])
        if len(lst) < top:
            lst.append({"action": r["action"], "recipes": r["recipes"]})
    per_dish = {d: found[d] for d in ranked if d in found}
    per_dish.update({d: acts for d, acts in found.items() if d not in per_dish})
    return {
        "counts": counts,
        "recipes": n,
        "recipes_with_actions": with_actions,
        "share_with_actions": (with_actions / n) if n else 0.0,
        "steps_per_recipe": (steps / n) if n else 0.0,
        "inherited_per_recipe": (inherited / n) if n else 0.0,
        "distinct_proto_actions": store.query("stats_distinct_proto_actions")[0]["n"],
        "top_actions_per_dish": per_dish,  # dishes ranked by parsed recipes, most first
        "dish_recipes": {d: dish_recipes[d] for d in ranked},
    }


def _top_rows(store: GraphStore, all_actions: bool, by: str) -> list[dict[str, Any]]:
    """Rows {dish, action, recipes}, per dish most used first."""
    if all_actions:
        return store.query("stats_top_actions_per_dish")
    if by == "food":
        return store.query("stats_top_typed_actions_per_dish")
    from dishgraph.ingest.foods import rollup_recipes

    rolled = rollup_recipes(store.query("typed_actions_all_recipes"), by)
    return [
        {"dish": d, "action": k, "recipes": n}
        for d in sorted(rolled)
        for k, n in sorted(rolled[d].items(), key=lambda kv: (-kv[1], kv[0]))
    ]
