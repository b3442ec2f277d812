"""Base-recipe parses served from the graph, so a full CRG evaluation never re-parses the 2,500 bases.

``dishgraph ingest counterfactual`` already parsed every base recipe into Steps; ``pair_base_steps`` reads
them back as ``Action`` lists keyed by recipe text (the form ``CachedParse`` consults). A Step keeps all an
Action holds: phrase, surface verb, span, clause, sentence, proto-action and the surface ingredient and
tool forms as written, in order (L2 needs the ingredient forms to tell whether the replaced ingredient is
among an action's ingredients: simple-replacement exclusion). So a parse served from the graph equals a
fresh parse and both evaluation paths give the same figures (tests/test_eval_graph_equivalence.py).

Steps written before those forms were stored hold null there (a read-write open adds the columns to an
old database; a read-only one cannot, and reads the legacy query). Their forms are guessed back as before:
glossary forms inside the phrase whose class is in the proto-action, or, for an inherited (omitted)
object, the previous action's forms. That guess differs from the parse on some recipes (456 of the
release's 2,496 parsed bases; replace Hard F1 13.24 against 13.27), so ``base_parses`` says how many
steps it had to guess; re-ingesting (or ``dishgraph ingest counterfactual`` into a new database) fixes it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping

from dishgraph.actions import Action, ProtoAction
from dishgraph.graph.base import GraphStore


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
            if not any(taken[i : i + len(f)]):
                taken[i : i + len(f)] = [True] * len(f)
                found.append((i, f))
            i = phrase.find(f, i + 1)
    return list(dict.fromkeys(f for _, f in sorted(found)))


def base_parses(
    store: GraphStore, ingredient_table: Mapping[str, str], note: Callable[[str], None] | None = None
) -> dict[str, list[Action]]:
    """Recipe text -> its parsed actions, for every parsed base recipe of a DishPair in the graph.

    ``note`` receives one line when some steps lack their stored surface forms (an older database) and
    they were guessed back instead.
    """
    legacy = bool(store.missing_properties("Step"))
    steps: dict[str, list[dict]] = defaultdict(list)
    texts: dict[str, str] = {}
    for r in store.query("pair_base_steps_legacy" if legacy else "pair_base_steps"):
        texts[r["recipe"]] = r["text"]
        if r["action"] is not None:
            steps[r["recipe"]].append(r)
    forms_of = _forms_by_class(ingredient_table)
    out: dict[str, list[Action]] = {}
    guessed = 0
    for rid, text in texts.items():
        actions: list[Action] = []
        prev: list[str] = []
        for r in sorted(steps.get(rid, ()), key=lambda r: r["pos"]):
            proto = ProtoAction.from_key(r["action"])
            phrase = r["phrase"] or ""
            ingr, tools = r.get("ingredient_forms"), r.get("tool_forms")
            if ingr is None:  # written before surface forms were stored (or a list CSV could not carry)
                ingr = list(prev) if r["inherited"] else surface_ingredients(phrase, proto, forms_of)
                # Without an ingredient class nor an inherited object the forms are [] either way (a
                # neo4j-admin import turns stored empty lists into null): only real guesses are noted.
                guessed += bool(proto.ingredients or r["inherited"])
            actions.append(
                Action(
                    r["verb"] or proto.verb,
                    list(ingr),
                    list(tools or ()),
                    proto=proto,
                    start=r["start"] or 0,
                    end=r["stop"] or 0,
                    phrase=phrase,
                    step=r.get("sentence") or 0,
                    clause=r["clause"] or 0,
                    inherited=bool(r["inherited"]),
                )
            )
            prev = ingr
        out[text] = actions
    if guessed and note is not None:
        note(
            f"{guessed} base-recipe steps in the graph have no stored surface ingredient forms (written by "
            "an older dishgraph); guessed from the phrase, so L2 may differ slightly from fresh parses "
            "(re-ingest into a new database to fix)."
        )
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
