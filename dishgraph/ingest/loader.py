"""Typed records into the graph: batched ``UNWIND $rows`` MERGE on stable keys (idempotent, resumable).

Readers and the parser never touch the database; this module is the only place that turns their records
into rows for the named load queries in ``dishgraph/cypher/load_*.cypher``.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from dishgraph.actions import Action, ProtoAction
from dishgraph.graph.store import GraphStore
from dishgraph.ingest.glossary import KINDS, Glossary


def recipe_id(source: str, dish: str, text: str) -> str:
    """Stable id: source tag + content hash, so re-ingesting the same corpus never duplicates a recipe."""
    h = hashlib.sha1(f"{dish}\x00{text}".encode("utf-8")).hexdigest()[:16]
    return f"{source}:{h}"


def pair_key(base: str, target: str) -> str:
    return f"{base}->{target}"


@dataclass
class RecipeRecord:
    id: str
    dish: str
    text: str
    source: str
    line: int = 0


@dataclass
class ParsedRecipe:
    id: str
    actions: list[Action] = field(default_factory=list)


def load_glossary(store: GraphStore, glossary: Glossary) -> None:
    for kind in KINDS:
        rows = [{"key": f"{kind}:{f}", "form": f, "kind": kind, "cls": c} for f, c in glossary.table(kind).items()]
        store.write("load_glossary_forms", rows)
        store.write(f"load_glossary_{kind}_classes", rows)


def load_dishes(store: GraphStore, names: Iterable[str], source: str) -> int:
    return store.write("load_dishes", ({"name": n, "source": source} for n in dict.fromkeys(names)))


def load_recipes(store: GraphStore, recipes: Iterable[RecipeRecord], batch_size: int = 2000) -> int:
    return store.write(
        "load_recipes",
        ({"id": r.id, "dish": r.dish, "text": r.text, "source": r.source, "line": r.line} for r in recipes),
        batch_size=batch_size,
    )


def load_proto_actions(store: GraphStore, protos: Iterable[ProtoAction]) -> int:
    protos = list(dict.fromkeys(protos))
    if not protos:
        return 0
    store.write("load_proto_actions", (
        {"key": p.key, "verb": p.verb, "ingredients": sorted(p.ingredients), "tools": sorted(p.tools)}
        for p in protos))
    store.write("load_proto_ingredients", ({"key": p.key, "name": c} for p in protos for c in sorted(p.ingredients)))
    store.write("load_proto_tools", ({"key": p.key, "name": c} for p in protos for c in sorted(p.tools)))
    return len(protos)


def step_rows(parsed: Sequence[ParsedRecipe]) -> tuple[list[dict], list[dict]]:
    """Step rows and NEXT rows for recipes; only actions with a proto-action become steps."""
    steps, nexts = [], []
    for pr in parsed:
        prev = None
        pos = 0
        for a in pr.actions:
            if a.proto is None:
                continue
            sid = f"{pr.id}#{pos}"
            steps.append({"id": sid, "recipe": pr.id, "pos": pos, "phrase": a.phrase, "verb": a.verb,
                          "start": a.start, "end": a.end, "inherited": bool(a.inherited),
                          "clause": a.clause, "action": a.proto.key})
            if prev is not None:
                nexts.append({"src": prev, "dst": sid})
            prev = sid
            pos += 1
    return steps, nexts


def load_parsed(store: GraphStore, parsed: Sequence[ParsedRecipe], batch_size: int = 5000) -> int:
    """Steps, order edges and proto-actions of parsed recipes; marks each recipe parsed last (checkpoint)."""
    load_proto_actions(store, (a.proto for pr in parsed for a in pr.actions if a.proto is not None))
    steps, nexts = step_rows(parsed)
    store.write("load_steps", steps, batch_size=batch_size)
    store.write("load_next", nexts, batch_size=batch_size)
    store.write("mark_parsed", ({"id": pr.id, "n": sum(a.proto is not None for a in pr.actions)} for pr in parsed))
    return len(steps)
