"""The data of one dish-pair explorer page: both dishes' frequent actions, pivots, order constraints, phrases.

By default the page shows what the graph stores (the command opens it read-only). Asked to compute
(`explore --compute`), whatever the graph does not hold yet is computed and stored through the API first
(`complete_pair`: USES frequencies, mined pivots when both dishes have recipes, fast order estimation for
dishes with recipes); `pair_view` then only reads and shapes the data `render_html` draws, and its first
note says which of the two the page shows. In the CRG
release only base dishes have recipes: a release target shows its reference pivots and reference constraints
only, which the view says in ``notes``.
"""

from __future__ import annotations

from pathlib import Path

from dishgraph.actions import ProtoAction
from dishgraph.knowledge import annotation, names, order
from dishgraph.knowledge import pivots as pivots_mod
from dishgraph.knowledge.frequencies import dishes_with_recipes
from dishgraph.knowledge.typed import form_with_class, hidden_actions

N_EXAMPLES = 3
ALL = 1_000_000  # "every action" for the top-N queries


def action_label(key: str, shown_as: dict[str, str] | None = None) -> str:
    """``切(洋葱; 刀)`` for the key ``切|洋葱|刀``; ``shown_as`` names classes by a surface form instead
    (``{"洋葱": "秋葵 (class 洋葱)"}`` on the okra side of 白灼菜心->白灼秋葵)."""
    pa = ProtoAction.from_key(key)
    if not shown_as or not pa.ingredients & shown_as.keys():
        return str(pa)
    inner = ",".join(shown_as.get(c, c) for c in sorted(pa.ingredients))
    return f"{pa.verb}({inner}; {','.join(sorted(pa.tools))})" if pa.tools else f"{pa.verb}({inner})"


def changed_form(store, info: list[dict]) -> dict[str, str]:
    """The pair's new ingredient under its glossary class, where the class is another word: 白灼秋葵's 秋葵 is
    in the class 洋葱, so the target's actions on 洋葱 are shown on ``秋葵 (class 洋葱)``, not on onions."""
    form = (info[0].get("change_to") or "") if info else ""
    if not form:
        return {}
    rows = store.query("names_form_classes", keys=[f"ingredient:{form}"])
    cls = rows[0]["class"] if rows else None
    return {cls: form_with_class(form, cls)} if cls and cls != form else {}


def complete_pair(g, base: str, target: str) -> list[str]:
    """Compute and store what the graph lacks for the page of (base, target), and say what was computed:
    USES frequencies of a dish with recipes but none counted, mined pivots when both dishes have recipes and
    no mined pivot is stored (the DishPair created if missing), fast order estimation of a dish with recipes
    and no estimated constraint. ``g`` is a ``DishGraph`` opened for writing."""
    store = g.store
    have = dishes_with_recipes(store)
    computed: list[str] = []
    for dish in (base, target):
        if dish in have and not store.query("uses_dish_actions", dish=dish, min_freq=0.0, top=1):
            g.frequencies([dish])
            computed.append(f"USES {dish}")
    stored = g.pivots(base, target) if store.query("pivot_pair_info", pair=pivots_mod.pair_key(base, target)) else []
    if base in have and target in have and not any(p.source == pivots_mod.MINED for p in stored):
        pivots_mod.mine_pivots(store, base, target, create=True)
        computed.append("pivots")
    for dish in (base, target):
        if dish in have and not any(c.source == order.ESTIMATED for c in order.dish_constraints(store, dish)):
            g.estimate_order([dish], order.OrderSettings(estimator="fast"))
            computed.append(f"order {dish}")
    return computed


def shown_note(compute: bool, computed: list[str]) -> str:
    """What the page shows: the graph as stored (a read-only open), or with what was computed now."""
    if not compute:
        return (
            "shows what the graph stores (opened read-only, nothing computed; "
            "`dishgraph explore --compute` computes what is missing and stores it)."
        )
    if not computed:
        return "shows what the graph stores (--compute found nothing missing)."
    return f"shows what the graph stores plus what was computed now and stored: {', '.join(computed)}."


def pair_view(g, base: str, target: str, top: int = 25, *, compute: bool = False, all_actions: bool = False) -> dict:
    """Everything the explorer draws for (base, target), as plain JSON-ready data (`render_html` draws it).

    ``g`` is a ``DishGraph``; with ``compute`` what is missing is computed and stored first (`complete_pair`),
    without it the graph is only read. A dish the graph does not know is `UnknownName` with the closest names.
    Actions, pivots and constraints are the typed reading's cooking steps on foods unless ``all_actions``.
    """
    store = g.store
    for dish in (base, target):
        names.require_dish(store, dish)
    computed = complete_pair(g, base, target) if compute else []
    have = dishes_with_recipes(store)
    notes: list[str] = [shown_note(compute, computed)]
    key = pivots_mod.pair_key(base, target)
    info = store.query("pivot_pair_info", pair=key)
    hidden = set() if all_actions else hidden_actions(store)

    actions, freqs = {}, {}
    composed_from = g.composed_sources(target)
    for dish in (base, target):
        rows = store.query("uses_dish_actions", dish=dish, min_freq=0.0, top=ALL)
        if not rows and dish == target:  # composed knowledge stands in for a target without recipes
            rows = [{**r, "n": None, "total": None} for r in g.composed_actions(dish, top=ALL)]
            if rows:
                notes.append(
                    f"{dish} has no parsed recipes: its frequencies are composed from "
                    f"{len(composed_from)} other dishes (source composed)."
                )
        rows = [r for r in rows if r["action"] not in hidden]
        actions[dish] = rows[:top]
        freqs[dish] = {r["action"]: r["freq"] for r in rows}
        if dish not in have and not rows:
            notes.append(f"{dish} has no parsed recipes: no action frequencies (reference knowledge only).")

    pivots = [p for p in g.pivots(base, target) if p.action not in hidden] if info else []
    if not info:
        notes.append(f"no DishPair {key} in the graph and not both dishes have recipes: no pivots.")

    constraints = {}
    for dish in (base, target):
        cons = [c for c in order.dish_constraints(store, dish) if c.cause not in hidden and c.effect not in hidden]
        dropped = sum(c.kept is False for c in cons)  # estimated with evidence against them: not significant,
        cons = [c for c in cons if c.kept is not False]  # both directions or a cycle (the release's carry none)
        if dropped:
            notes.append(
                f"{dropped} order constraint(s) of {dish} not kept (not significant, both ways, a cycle): not drawn."
            )
        cons.sort(key=lambda c: (c.ate is None, -(c.ate or 0.0), c.source or "", c.cause, c.effect))  # strongest first
        constraints[dish] = [c.to_dict() for c in cons]

    shown = _shown_pivots(pivots, top)
    changed = changed_form(store, info)
    if changed:
        ((cls, label),) = changed.items()
        notes.append(f"actions only {target} has on the class {cls} are shown on {label}.")
    keys = {r["action"] for rows in actions.values() for r in rows} | {p.action for p in shown}
    for dish in (base, target):
        if not actions[dish]:  # a dish known only by reference: its constraints bring their own actions
            keys |= {k for c in constraints[dish] for k in (c["cause"], c["effect"])}
    for dish in (base, target):
        constraints[dish] = [c for c in constraints[dish] if c["cause"] in keys and c["effect"] in keys]
    examples = annotation.examples(store, sorted(keys), [base, target], n=N_EXAMPLES)
    return {
        "base": base,
        "target": target,
        "pair": info[0] if info else None,
        "top": int(top),
        "actions": {"base": actions[base], "target": actions[target]},
        "pivots": [p.to_dict() for p in shown],
        "pivots_total": len(pivots),  # edges: one per (action, source), as `DishGraph.pivots` lists them
        "pivot_actions_total": len({p.action for p in pivots}),  # the rows of `dishgraph pivots show`
        "constraints": {"base": constraints[base], "target": constraints[target]},
        "nodes": _nodes(keys, freqs[base], freqs[target], shown, examples, changed),
        "computed": computed,
        "notes": notes,
        "composed_from": _composed_summary(composed_from),
    }


def write_page(
    g, base: str, target: str, html: Path, top: int = 25, *, compute: bool = False, all_actions: bool = False
) -> dict:
    """Write the explorer page of (base, target) to ``html``; returns what it shows (counts, computed, notes).
    A pair the graph knows nothing of is an `UnknownName` (an empty page would say nothing)."""
    from dishgraph.errors import UnknownName
    from dishgraph.explore.render import render_html

    view = pair_view(g, base, target, top, compute=compute, all_actions=all_actions)
    if not view["nodes"]:
        hint = "" if compute else " (`--compute` computes what their recipes give and stores it)"
        raise UnknownName(f"the graph stores no actions, pivots or constraints of {base} / {target}{hint}")
    html.parent.mkdir(parents=True, exist_ok=True)
    from dishgraph.outputs import write_text

    write_text(html, render_html(view))
    return {
        "html": str(html),
        "nodes": len(view["nodes"]),
        "pivots": len(view["pivots"]),
        "pivot_actions": view["pivot_actions_total"],
        "pivot_edges": view["pivots_total"],
        "constraints": {k: len(v) for k, v in view["constraints"].items()},
        "computed": view["computed"],
        "notes": view["notes"],
    }


def _composed_summary(rows: list[dict], top: int = 8) -> list[dict]:
    """Per role (base, action, flavour, food, class, own): its share of the composed target's weight and the
    dishes contributing most, for the page's provenance line."""
    roles: dict[str, dict] = {}
    for r in rows:
        role = roles.setdefault(r["role"], {"role": r["role"], "weight": 0.0, "dishes": 0, "top": []})
        role["weight"] += float(r["weight"] or 0.0)
        role["dishes"] += 1
        if len(role["top"]) < top:
            role["top"].append(r["dish"])
    return sorted(roles.values(), key=lambda x: -x["weight"])


def _shown_pivots(pivots, top: int) -> list:
    """Pivots worth drawing: every reference / annotated one, and the ``top`` strongest mined remove / insert
    (mining marks hundreds of rare actions ``manual``; those stay in ``dishgraph pivots show``)."""
    fixed = [p for p in pivots if p.source != pivots_mod.MINED]
    mined = [p for p in pivots if p.source == pivots_mod.MINED and p.kind in ("remove", "insert")]
    mined.sort(key=lambda p: (-max(p.fb or 0.0, p.ft or 0.0), p.action))
    return fixed + mined[:top]


def _nodes(
    keys: set[str], fb: dict[str, float], ft: dict[str, float], pivots, examples: dict, changed: dict[str, str]
) -> list[dict]:
    kinds: dict[str, dict[str, str]] = {}
    for p in pivots:
        kinds.setdefault(p.action, {})[p.source] = p.kind
    out = []
    for k in sorted(keys):
        pa = ProtoAction.from_key(k)
        out.append(
            {
                "id": k,
                "label": action_label(k, changed if k not in fb else None),  # the target's own: its new form
                "verb": pa.verb,
                "ingredients": sorted(pa.ingredients),
                "tools": sorted(pa.tools),
                "fb": fb.get(k),
                "ft": ft.get(k),
                "pivot": _pivot_kind(kinds.get(k, {})),
                "pivots": kinds.get(k, {}),
                "examples": examples.get(k, []),
            }
        )
    return out


def _pivot_kind(by_source: dict[str, str]) -> str | None:
    """The kind the page colours: annotated decisions, then the release, then mined (remove / insert / manual)."""
    for source in (pivots_mod.ANNOTATED, pivots_mod.RELEASE, pivots_mod.MINED, pivots_mod.COMPOSED):
        kind = by_source.get(source)
        if kind in ("remove", "insert", "manual"):
            return kind
    return None
