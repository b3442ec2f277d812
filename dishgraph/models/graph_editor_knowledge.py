"""What the graph knows about one dish pair, gathered once per pair for the graph-guided editor.

Everything here is dish-level knowledge derived from *other* recipes: pivot edges of the pair (the released
ones, or mined ones), order constraints of the target dish (MUST_PRECEDE), how the verb classes are applied to
the replaced and the new ingredient class across all dishes (USES association), where actions usually sit in
a recipe, and real example phrases of the actions to insert. No target recipe is ever read.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from dishgraph.actions import ProtoAction
from dishgraph.eval.l2 import INSERT, REMOVE, OrderConstraint, normalise_constraints
from dishgraph.graph.store import GraphStore
from dishgraph.ingest.loader import pair_key

PIVOT_SOURCES = ("crg-release", "annotated", "mined")
MAX_EXAMPLES = 40


@dataclass
class Association:
    """P(verb | ingredient class) over all dishes, from USES edges (``editor_class_verb_association``)."""

    uses: dict[str, dict[str, int]] = field(default_factory=dict)     # class -> verb -> recipes

    def prob(self, cls: str, verb: str) -> float:
        row = self.uses.get(cls, {})
        total = sum(row.values())
        return row.get(verb, 0) / total if total else 0.0

    def specific_verbs(self, cls: str, other: str, min_prob: float = 0.05, ratio: float = 3.0) -> list[str]:
        """Verbs applied to `cls` clearly more often than to `other` (most associated first)."""
        out = [(self.prob(cls, v), v) for v in self.uses.get(cls, {})
               if self.prob(cls, v) >= min_prob and self.prob(cls, v) >= ratio * self.prob(other, v)]
        return [v for _, v in sorted(out, key=lambda t: (-t[0], t[1]))]


@dataclass
class PairKnowledge:
    base: str
    target: str
    old_cls: str | None
    new_cls: str | None
    pivots: list[tuple[ProtoAction, str]]          # (proto, remove|insert) from the best available source
    pivot_source: str | None
    constraints: list[OrderConstraint]             # MUST_PRECEDE of the target dish (flat pairs)
    association: Association
    positions: dict[str, float]                    # proto key -> mean relative position in real recipes
    verb_positions: dict[str, float]               # verb class -> mean relative position
    examples: dict[str, list[str]]                 # proto key -> real example phrases (other dishes first)

    def kind_of(self) -> dict[ProtoAction, str]:
        return {p: k for p, k in self.pivots}

    def position(self, proto: ProtoAction) -> float:
        return self.positions.get(proto.key, self.verb_positions.get(proto.verb, 0.5))


def _pivots(store: GraphStore, base: str, target: str, sources: tuple[str, ...]
            ) -> tuple[list[tuple[ProtoAction, str]], str | None]:
    rows = store.query("pivot_edges", pair=pair_key(base, target))
    for source in sources:
        picked = [(ProtoAction.from_key(r["action"]), r["kind"]) for r in rows
                  if r["source"] == source and r["kind"] in (REMOVE, INSERT)]
        if picked:
            return sorted(set(picked), key=lambda t: (t[1], t[0].key)), source
    return [], None


def association_pivots(assoc: Association, old_cls: str | None, new_cls: str | None,
                       base_protos: set[ProtoAction] | None = None) -> list[tuple[ProtoAction, str]]:
    """Pseudo-pivots for a pair the graph has no pivot edges for: actions on the replaced class whose verb is
    specific to it are removed; the new class's specific verbs are inserted (one ingredient, no tool)."""
    out: list[tuple[ProtoAction, str]] = []
    if old_cls and new_cls:
        old_verbs = set(assoc.specific_verbs(old_cls, new_cls))
        out += [(p, REMOVE) for p in sorted(base_protos or ()) if old_cls in p.ingredients and p.verb in old_verbs]
    if new_cls:
        for v in assoc.specific_verbs(new_cls, old_cls or "", min_prob=0.05)[:4]:
            out.append((ProtoAction(v, frozenset({new_cls})), INSERT))
    return out


def load_pair_knowledge(store: GraphStore, base: str, target: str, old_cls: str | None, new_cls: str | None,
                        sources: tuple[str, ...] = PIVOT_SOURCES) -> PairKnowledge:
    pivots, source = _pivots(store, base, target, sources) if sources else ([], None)
    cons_rows = store.query("order_dish_constraints", dish=target) or store.query("order_dish_constraints", dish=base)
    flat = list(dict.fromkeys((r["cause"], r["effect"]) for r in cons_rows))
    constraints = normalise_constraints([(ProtoAction.from_key(c), ProtoAction.from_key(e)) for c, e in flat])

    assoc = Association()
    classes = [c for c in (old_cls, new_cls) if c]
    if classes:
        table: dict[str, dict[str, int]] = defaultdict(dict)
        for r in store.query("editor_class_verb_association", classes=classes):
            table[r["cls"]][r["verb"]] = int(r["uses"])
        assoc.uses = dict(table)
    if not pivots:  # no pivot edges for this pair: fall back on the association statistics alone
        pivots, source = association_pivots(assoc, old_cls, new_cls), "association"
    inserts = [p for p, k in pivots if k == INSERT]
    keys = [p.key for p in inserts]
    positions = {r["action"]: float(r["rel_pos"]) for r in store.query("editor_action_positions", keys=keys)} \
        if keys else {}
    verbs = sorted({p.verb for p in inserts})
    verb_positions = {r["verb"]: float(r["rel_pos"]) for r in store.query("editor_verb_positions", verbs=verbs)} \
        if verbs else {}
    counts: dict[str, Counter] = defaultdict(Counter)
    if keys:
        for r in store.query("pivot_examples", keys=keys, dishes=[base]):
            if r["phrase"]:
                counts[r["action"]][r["phrase"]] += 1
    # Most frequent phrasing first, shorter first among equals: the plainest real way to say the action.
    examples = {k: [t for t, _ in sorted(c.items(), key=lambda kv: (-kv[1], len(kv[0]), kv[0]))][:MAX_EXAMPLES]
                for k, c in counts.items()}
    return PairKnowledge(base, target, old_cls, new_cls, pivots, source, constraints, assoc, positions,
                         verb_positions, examples)
