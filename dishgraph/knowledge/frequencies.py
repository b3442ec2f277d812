"""Dish-level action frequencies f_d(a) as ``(:Dish)-[:USES {freq, n, total}]->(:ProtoAction)``.

Everything downstream (pivot mining, the focus actions of order estimation, ``DishGraph.actions``) reads
these edges, so they are computed once in Cypher (``uses_materialize``) rather than re-counted in Python.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from dishgraph.actions import ProtoAction
from dishgraph.graph.base import GraphStore
from dishgraph.graph.values import batched


def dishes_with_recipes(store: GraphStore) -> dict[str, int]:
    """Dish name -> number of parsed recipes (dishes without any cannot have frequencies)."""
    return {r["dish"]: r["recipes"] for r in store.query("uses_dishes_with_recipes")}


@dataclass(frozen=True)
class _FrequencyQueries:
    """The named queries that (re)write one kind of dish→action frequency edge: USES (the CRG keys) and
    TYPED_USES (the typed reading's keys) are written the same way."""

    rel: str
    without: str  # which of the dishes have no such edge yet
    counts: str  # the edges' rows, for the bulk write
    probe: str  # whether counts has a row (no COPY from an empty subquery)
    clear: str  # delete the dishes' edges
    materialize: str  # count and MERGE them


USES_QUERIES = _FrequencyQueries(
    "USES", "uses_dishes_without_uses", "uses_counts", "uses_have_actions", "uses_clear", "uses_materialize"
)
TYPED_USES_QUERIES = _FrequencyQueries(
    "TYPED_USES",
    "typed_uses_dishes_without",
    "typed_uses_counts",
    "typed_uses_have_actions",
    "typed_uses_clear",
    "typed_uses_materialize",
)


def materialize_uses(store: GraphStore, dishes: Iterable[str] | None = None) -> dict[str, int]:
    """(Re)compute USES edges for ``dishes`` (default: every dish with parsed recipes), and TYPED_USES beside
    them (`materialize_typed_uses`); dish -> #actions (USES).

    Old edges of those dishes are deleted first, so an action no longer used leaves no stale frequency;
    dishes without any edge yet (new in an ingest) get theirs in one bulk write (`_rewrite`).
    """
    names = sorted(set(dishes)) if dishes is not None else sorted(dishes_with_recipes(store))
    if not names:
        return {}
    out = {n: 0 for n in names}
    # TYPED_USES first: USES matching the dish's recipes is what marks it current (``uses_stale_dishes``), so
    # a run killed between the two leaves the dish stale and the next refresh writes both.
    materialize_typed_uses(store, names)
    new, merged = _rewrite(store, USES_QUERIES, names)
    if new:
        out.update({r["dish"]: r["actions"] for r in store.query("uses_action_counts", dishes=new)})
    out.update({r["dish"]: r["actions"] for r in merged})
    return out


def materialize_typed_uses(store: GraphStore, dishes: list[str]) -> None:
    """(Re)compute the typed reading's frequencies ``(:Dish)-[:TYPED_USES {freq, n, total}]->(:ProtoAction)``
    beside USES, for the same dishes and whenever USES is: a cook's 切|洋葱| is counted in every recipe that cuts
    the onion, also where the CRG key is 切|丝| (切丝 after 洋葱洗净). Typed keys no recipe's CRG reading has get
    their ProtoAction node (and its classes) first; they have no INSTANCE_OF step, so no CRG consumer sees them."""
    from dishgraph.ingest import loader

    for part in batched(dishes, LOOKUP_BATCH):
        missing = [r["key"] for r in store.query("typed_keys_of_dishes", dishes=part) if not r["known"]]
        if missing:
            loader.load_proto_actions(store, [ProtoAction.from_key(k) for k in missing])
            store.write("proto_set_culinary", [{"key": k, "culinary": True} for k in missing])  # read as cooking
    _rewrite(store, TYPED_USES_QUERIES, dishes)


LOOKUP_BATCH = 5000  # dish names per query
USES_ROW_BYTES = 100  # one frequency row as CSV, generously: dish name, proto-action key, freq, n, total


def _rewrite(store: GraphStore, q: _FrequencyQueries, names: list[str]) -> tuple[list[str], list[dict]]:
    """Write ``q.rel`` edges of ``names``: dishes without any get theirs in one bulk write from the counting
    query's rows, the others have theirs deleted and MERGEd again (a COPY after a DELETE of the same table's
    edges crashed Ladybug). Returns the bulk-written dishes and the MERGE query's rows.

    An ingest that adds thousands of dishes (7.7k for the XiaChuFang sample: 200k edges) spent 9 s MERGEing
    the edges one at a time; on Ladybug the same rows now go from the query into the table in one COPY, after
    the disk is checked for room (a bound: one edge per action of the dishes' parsed recipes).
    """
    new = sorted({r["dish"] for part in batched(names, LOOKUP_BATCH) for r in store.query(q.without, dishes=part)})
    if new:
        bound = store.query("uses_actions_bound", dishes=new)[0]["actions"] or 0
        store.bulk_load_rels_from_query(
            q.rel, "Dish", "ProtoAction", q.counts, probe=q.probe, dishes=new, reserve_bytes=bound * USES_ROW_BYTES
        )
    fresh = set(new)
    old = [n for n in names if n not in fresh]
    if not old:
        return new, []
    store.query(q.clear, dishes=old)
    return new, store.query(q.materialize, dishes=old)


def dish_actions(
    store: GraphStore, dish: str, *, top: int = 20, min_freq: float = 0.0, typed_keys: bool = False
) -> list[dict]:
    """A dish's actions by frequency: rows {action, verb, ingredients, tools, freq, n, total}; the typed
    reading's keys (TYPED_USES) with ``typed_keys``, else the CRG keys (USES)."""
    name = "typed_uses_dish_actions" if typed_keys else "uses_dish_actions"
    return store.query(name, dish=dish, min_freq=float(min_freq), top=int(top))


def stale_uses_dishes(store: GraphStore) -> list[str]:
    """Dishes whose USES edges were counted over other recipes than the parsed ones they have now."""
    return [r["dish"] for r in store.query("uses_stale_dishes")]


def refresh_stale_uses(store: GraphStore) -> list[str]:
    """Re-materialize USES of every stale dish (after an ingest added recipes); returns those dishes.

    Everything that reads USES goes through here or runs after an ingest that calls it, so dish→action
    frequencies never silently lag behind the recipes (a dish whose recipes all produce no action has no
    USES edge and is not listed)."""
    stale = stale_uses_dishes(store)
    if stale:
        materialize_uses(store, stale)
    return stale
