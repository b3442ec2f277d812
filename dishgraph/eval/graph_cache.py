"""Base-recipe parses served from the graph, so a full CRG evaluation never re-parses the 2,500 bases.

``dishgraph ingest counterfactual`` already parsed every base recipe into Steps; ``pair_base_steps`` reads
them back as ``Action`` lists keyed by recipe text (the form ``CachedParse`` consults). Steps store the
phrase, verb, span and proto-action but not the surface ingredient forms, which L2 needs for one thing:
whether the replaced ingredient is among an action's ingredients (simple-replacement exclusion). They are
recovered like the parser assigns them: glossary forms inside the phrase whose class is in the
proto-action, or, for an inherited (omitted) object, the previous action's forms.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Mapping

from dishgraph.actions import Action, ProtoAction
from dishgraph.graph.store import GraphStore


def _forms_by_class(table: Mapping[str, str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for form, cls in table.items():
        out[cls].append(form)
    for forms in out.values():
        forms.sort(key=lambda f: (-len(f), f))
    return out


def surface_ingredients(phrase: str, proto: ProtoAction, forms_of: Mapping[str, list[str]]) -> list[str]:
    """Glossary forms of the proto-action's ingredient classes written in the phrase, in reading order;
    longest forms first and without overlaps (清水 is one mention, not also 水)."""
    cands = sorted({f for cls in proto.ingredients for f in forms_of.get(cls, ())}, key=lambda f: (-len(f), f))
    taken = [False] * len(phrase)
    found: list[tuple[int, str]] = []
    for f in cands:
        i = phrase.find(f)
        while i >= 0:
            if not any(taken[i:i + len(f)]):
                taken[i:i + len(f)] = [True] * len(f)
                found.append((i, f))
            i = phrase.find(f, i + 1)
    return list(dict.fromkeys(f for _, f in sorted(found)))


def base_parses(store: GraphStore, ingredient_table: Mapping[str, str]) -> dict[str, list[Action]]:
    """Recipe text -> its parsed actions, for every parsed base recipe of a DishPair in the graph."""
    steps: dict[str, list[dict]] = defaultdict(list)
    texts: dict[str, str] = {}
    for r in store.query("pair_base_steps"):
        texts[r["recipe"]] = r["text"]
        if r["action"] is not None:
            steps[r["recipe"]].append(r)
    forms_of = _forms_by_class(ingredient_table)
    out: dict[str, list[Action]] = {}
    for rid, text in texts.items():
        actions: list[Action] = []
        prev: list[str] = []
        for r in sorted(steps.get(rid, ()), key=lambda r: r["pos"]):
            proto = ProtoAction.from_key(r["action"])
            phrase = r["phrase"] or ""
            ingr = list(prev) if r["inherited"] else surface_ingredients(phrase, proto, forms_of)
            actions.append(Action(r["verb"] or proto.verb, ingr, [], proto=proto, start=r["start"] or 0,
                                  end=r["stop"] or 0, phrase=phrase, clause=r["clause"] or 0,
                                  inherited=bool(r["inherited"])))
            prev = ingr
        out[text] = actions
    return out


def graph_pivots(store: GraphStore, source: str = "mined") -> dict[str, list[tuple[ProtoAction, str]]]:
    """Target dish -> [(proto-action, remove|insert)] from the PIVOT edges of every pair: ``mined`` (mined
    P_R ∪ P_I with annotation decisions applied) or any single source such as ``crg-release``."""
    from dishgraph.knowledge.pivots import all_pairs, effective_pivots, parse_pair

    out: dict[str, list[tuple[ProtoAction, str]]] = {}
    for key in all_pairs(store):
        base, target = parse_pair(key)
        eff = effective_pivots(store, base, target, source=source)
        out[target] = [(ProtoAction.from_key(a), k) for a, k in sorted(eff.items())]
    return out
