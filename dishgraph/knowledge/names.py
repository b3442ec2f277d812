"""Names the graph must know (dishes, pairs, proto-actions, classes), checked before a lookup answers.

A lookup of a name the graph lacks returns nothing, and "nothing" reads as a true answer ("no pivots", "no
constraint"). So every lookup that takes a user's name checks it here first and raises `UnknownName` with
the closest names the graph holds (difflib's ratio over the names a named query lists: no dependency, and
it works on Chinese characters as on letters). An action written with surface forms (切|菜心|) is mapped to
its class form (切|油菜|) through the glossary's FORM_OF edges, the way the parser lifts recipe text.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from dishgraph.actions import KEY_SEP, ProtoAction
from dishgraph.errors import UnknownName, UsageError
from dishgraph.graph.base import GraphStore
from dishgraph.ingest.loader import pair_key

SUGGESTIONS = 3
CUTOFF = 0.5  # difflib ratio: 白灼菜新 vs 白灼菜心 is 0.75; unrelated names of four characters score 0 to 0.25


def closest(name: str, candidates: Iterable[str], n: int = SUGGESTIONS) -> list[str]:
    """The ``n`` candidates most like ``name`` (best first), none below `CUTOFF`."""
    return difflib.get_close_matches(name, list(candidates), n=n, cutoff=CUTOFF)


def did_you_mean(names: list[str]) -> str:
    """ "; did you mean X?" or "; did you mean one of X, Y?" (empty when there is nothing to suggest)."""
    if not names:
        return ""
    return f"; did you mean {names[0]}?" if len(names) == 1 else f"; did you mean one of {', '.join(names)}?"


def dish_names(store: GraphStore) -> list[str]:
    return [r["name"] for r in store.query("diner_dish_names")]


def require_dish(store: GraphStore, dish: str) -> str:
    """``dish`` if the graph has a Dish of that name, else `UnknownName` with the closest dish names."""
    if store.query("load_existing_dishes", names=[dish]):
        return dish
    names = dish_names(store)
    if not names:
        raise UnknownName(f"unknown dish {dish!r}: the graph at {store.location()} has no dishes{_LOAD_HINT}")
    raise UnknownName(f"unknown dish {dish!r}{did_you_mean(closest(dish, names))}")


_LOAD_HINT = " (load them first, e.g. `dishgraph ingest counterfactual`)"


def require_pair(store: GraphStore, base: str, target: str) -> str:
    """The DishPair key of (base, target) if the graph has it, else `UnknownName`: an unknown dish of the two
    with its closest names, or the closest pairs (the "load it first" hint only on a graph without pairs)."""
    key = pair_key(base, target)
    if store.query("pivot_pair_info", pair=key):
        return key
    pairs = [r["pair"] for r in store.query("pivot_pairs")]
    if not pairs:
        raise UnknownName(f"no DishPair {key!r}: the graph at {store.location()} has no dish pairs{_LOAD_HINT}")
    for dish in (base, target):
        require_dish(store, dish)
    reverse = pair_key(target, base)
    if reverse in pairs:  # the two dishes given the other way round: the pair that exists is the answer
        raise UnknownName(
            f"no DishPair {key!r}: the pair runs the other way, {reverse!r} (base {target}, target {base}); "
            f"did you mean {target} {base}?"
        )
    near = closest(key, pairs) or [p for p in pairs if p.startswith(base + "->")][:SUGGESTIONS]
    raise UnknownName(
        f"no DishPair {key!r} in the graph (both dishes exist; `dishgraph pivots mine {base} {target} --new-pair` "
        f"makes one when both have recipes){did_you_mean(near)}"
    )


def action_key(action: str) -> str:
    """A proto-action key from ``verb|ingredients|tools`` text; anything else is a usage error saying the form."""
    if action.count(KEY_SEP) != 2:
        raise UsageError(f"action {action!r} is not VERB|INGREDIENTS|TOOLS (e.g. 切|油菜|) or VERB(INGREDIENTS; TOOLS)")
    return ProtoAction.from_key(action).key


def require_action(store: GraphStore, key: str) -> str:
    """``key`` if the graph has that ProtoAction, else `UnknownName`: surface forms named with their class
    (切|菜心| → did you mean 切|油菜|?), unknown classes with the closest class names, else the closest keys."""
    if store.query("load_existing_proto_actions", keys=[key]):
        return key
    pa = ProtoAction.from_key(key)
    lifted, notes = _lift(store, pa)
    if lifted is not None and lifted.key != key and store.query("load_existing_proto_actions", keys=[lifted.key]):
        raise UnknownName(f"unknown action {key!r} ({'; '.join(notes)}){did_you_mean([lifted.key])}")
    if lifted is not None and lifted.key != key:
        notes.append(f"{lifted.key} is not in the graph either")
    keys = [r["key"] for r in store.query("names_proto_actions")]
    why = f" ({'; '.join(notes)})" if notes else ""
    near = closest(lifted.key if lifted is not None else key, keys)
    raise UnknownName(f"unknown action {key!r}{why}{did_you_mean(near)}")


def _lift(store: GraphStore, pa: ProtoAction) -> tuple[ProtoAction | None, list[str]]:
    """(the proto-action with every surface form replaced by its class, or None if a part is neither a class
    nor a surface form; one note per replaced or unknown part)."""
    parts = [("verb", pa.verb)] + [("ingredient", i) for i in sorted(pa.ingredients)]
    parts += [("tool", t) for t in sorted(pa.tools)]
    classes: dict[str, set[str]] = {}
    for r in store.query("load_existing_class_names"):
        classes.setdefault(r["kind"], set()).add(r["name"])
    odd = [(kind, name) for kind, name in parts if name not in classes.get(kind, set())]
    rows = store.query("names_form_classes", keys=[f"{kind}:{name}" for kind, name in odd]) if odd else []
    form_of: dict[tuple[str, str], list[str]] = {}
    for r in rows:
        form_of.setdefault((r["kind"], r["form"]), []).append(r["class"])
    notes, lifted, complete = [], {}, True
    for kind, name in odd:
        if (kind, name) in form_of:
            cls = form_of[(kind, name)]
            lifted[(kind, name)] = cls[0]
            notes.append(
                f"{name} is {'an' if kind == 'ingredient' else 'a'} {kind} form of the class {' / '.join(cls)}"
            )
        else:
            complete = False
            notes.append(f"unknown {kind} class {name!r}{did_you_mean(closest(name, classes.get(kind, ())))}")
    if not complete:
        return None, notes
    verb = lifted.get(("verb", pa.verb), pa.verb)
    ingredients = frozenset(lifted.get(("ingredient", i), i) for i in pa.ingredients)
    tools = frozenset(lifted.get(("tool", t), t) for t in pa.tools)
    return ProtoAction(verb, ingredients, tools), notes
