"""What the graph knows about one dish pair, gathered once per pair for the graph-guided editor.

Everything here is dish-level knowledge derived from *other* recipes: pivot edges of the pair (the released
ones, or mined ones), order constraints of the target dish (MUST_PRECEDE), how the verb classes are applied to
the replaced and the new ingredient class across all dishes (USES association), where actions usually sit in
a recipe, and real example phrases of the actions to insert. No target recipe is ever read.

The fair *association* mode (``sources=()``) reads no PIVOT edge and no released constraint: only USES
statistics, the base dish's own estimated MUST_PRECEDE constraints and how other dishes handle the new class.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from dishgraph.actions import ProtoAction
from dishgraph.eval.l2 import INSERT, REMOVE, OrderConstraint, normalise_constraints
from dishgraph.graph.base import GraphStore
from dishgraph.ingest import crg
from dishgraph.ingest.loader import pair_key
from dishgraph.knowledge.order import ESTIMATED, TESTED
from dishgraph.knowledge.pivots import ANNOTATED, COMPOSED, MINED

# Pivot sources in order of trust. COMPOSED: PIVOT / MUST_PRECEDE edges written by `dishgraph pivots mine --knowledge
# composed`; ESTIMATED: MUST_PRECEDE edges written by `dishgraph order estimate` (base dishes only).
PIVOT_SOURCES = (crg.SOURCE, ANNOTATED, MINED)
MAX_EXAMPLES = 40
# Association mode: how many of the new class's most common single-ingredient actions (in other dishes'
# recipes, absent from the base recipe) become pseudo insert-pivots. Tuned on the even dish pairs.
ASSOC_INSERTS = 8
# Association mode removals: actions of at least this share of the base dish's recipes, new-class free, and
# ASSOC_REMOVE_RATIO times more frequent there than in other dishes' recipes, both all of them and those
# handling the new class (the target stand-in). Tuned on the even dish pairs.
ASSOC_REMOVE_MIN_FREQ = 0.1
ASSOC_REMOVE_RATIO = 4.0
MIN_PROXY_RECIPES = 5
FALLBACK_INSERTS = 6  # composed mode: candidates for a recipe whose edit changed nothing L2 counts
FALLBACK_MIN_FREQ = 0.1  # fewer recipes handling the new class say too little about the target: no removals


@dataclass
class Association:
    """P(verb | ingredient class) over all dishes, from USES edges (``editor_class_verb_association``), and
    the association mode's contrast of the base dish with other dishes' recipes handling the new class."""

    uses: dict[str, dict[str, int]] = field(default_factory=dict)  # class -> verb -> recipes
    # (verb, {new class}) actions in other dishes' recipes, most recipes first (``editor_new_class_actions``)
    new_actions: list[ProtoAction] = field(default_factory=list)
    # base-dish habits rare elsewhere and rarer still where the new class is used (``contrast_removals``)
    base_specific: list[ProtoAction] = field(default_factory=list)

    def prob(self, cls: str, verb: str) -> float:
        row = self.uses.get(cls, {})
        total = sum(row.values())
        return row.get(verb, 0) / total if total else 0.0


@dataclass
class PairKnowledge:
    base: str
    target: str
    old_cls: str | None
    new_cls: str | None
    pivots: list[tuple[ProtoAction, str]]  # (proto, remove|insert) from the best available source
    pivot_source: str | None
    constraints: list[OrderConstraint]  # MUST_PRECEDE of the target dish (flat pairs)
    association: Association
    positions: dict[str, float]  # proto key -> mean relative position in real recipes
    verb_positions: dict[str, float]  # verb class -> mean relative position
    examples: dict[str, list[str]]  # proto key -> real example phrases (other dishes first)
    # composed mode: the target's likeliest actions beyond its pivots, most telling first, for a recipe whose
    # edit would otherwise change nothing L2 counts (an unchanged recipe is an abstention, not an answer)
    fallback: list[ProtoAction] = field(default_factory=list)

    def position(self, proto: ProtoAction) -> float:
        return self.positions.get(proto.key, self.verb_positions.get(proto.verb, 0.5))


class PositionTable:
    """Mean relative positions of every proto-action and verb class, read once for all pairs.

    ``editor_action_positions`` / ``editor_verb_positions`` filtered to one pair's keys still scan every step
    (0.14 s and 0.36 s a pair on the demo's graph; 25 s of the fair editor's 50 pairs); the whole tables take
    about 1.0 s and 0.7 s, once. A pair sees only the rows of its own keys, as with the filtered queries (the
    means agree to the last few bits: the engine sums in another order)."""

    def __init__(self, store: GraphStore):
        self.store = store
        self._actions: dict[str, float] | None = None
        self._verbs: dict[str, float] | None = None

    def actions(self, keys: list[str]) -> dict[str, float]:
        if self._actions is None:
            self._actions = {r["action"]: float(r["rel_pos"]) for r in self.store.query("editor_all_action_positions")}
        return {k: self._actions[k] for k in keys if k in self._actions}

    def verbs(self, verbs: list[str]) -> dict[str, float]:
        if self._verbs is None:
            self._verbs = {r["verb"]: float(r["rel_pos"]) for r in self.store.query("editor_all_verb_positions")}
        return {v: self._verbs[v] for v in verbs if v in self._verbs}


def _pivots(
    store: GraphStore, base: str, target: str, sources: tuple[str, ...]
) -> tuple[list[tuple[ProtoAction, str]], str | None]:
    rows = store.query("pivot_edges", pair=pair_key(base, target))
    for source in sources:
        picked = [
            (ProtoAction.from_key(r["action"]), r["kind"])
            for r in rows
            if r["source"] == source and r["kind"] in (REMOVE, INSERT)
        ]
        if picked:
            return sorted(set(picked), key=lambda t: (t[1], t[0].key)), source
    return [], None


def association_pivots(
    assoc: Association,
    new_cls: str | None,
    base_protos: set[ProtoAction] | None = None,
    max_inserts: int = ASSOC_INSERTS,
    removals: bool = True,
) -> list[tuple[ProtoAction, str]]:
    """Pseudo-pivots for a pair without pivot edges, pivot-style contrast of the base dish with a stand-in for
    the target (other dishes' recipes handling the new class): the base recipe's actions that are habits of the
    base dish only are removed; the new class's most common single-ingredient actions that the base recipe
    lacks are inserted. Actions on the replaced class are left to the ingredient swap, which turns them into
    the new ingredient's without counting as a change unless they are pivots."""
    base_protos = base_protos or set()
    out: list[tuple[ProtoAction, str]] = []
    if removals:
        out += [(p, REMOVE) for p in assoc.base_specific if p in base_protos]
    if new_cls:
        out += [(p, INSERT) for p in [p for p in assoc.new_actions if p not in base_protos][:max_inserts]]
    return out


def contrast_removals(
    store: GraphStore,
    base: str,
    new_cls: str | None,
    min_freq: float = ASSOC_REMOVE_MIN_FREQ,
    ratio: float = ASSOC_REMOVE_RATIO,
) -> list[ProtoAction]:
    """Base-dish actions (share of its recipes >= min_freq, not on the new class) at least `ratio` times more
    frequent in the base dish than in other dishes' recipes and than in those handling the new class (none
    when fewer than MIN_PROXY_RECIPES recipes handle it)."""
    if not new_cls:
        return []
    rows = store.query("uses_dish_actions", dish=base, min_freq=float(min_freq), top=10_000)
    fb = {r["action"]: float(r["freq"]) for r in rows if new_cls not in (r["ingredients"] or [])}
    if not fb:
        return []
    keys = sorted(fb)
    size = store.query("editor_proxy_size", cls=new_cls, base=base)[0]
    n_proxy, n_others = int(size["proxy"] or 0), max(int(size["others"] or 0), 1)
    if n_proxy < MIN_PROXY_RECIPES:
        return []
    fp = {
        r["action"]: int(r["recipes"]) / n_proxy
        for r in store.query("editor_proxy_actions", cls=new_cls, base=base, keys=keys)
    }
    fo = {
        r["action"]: int(r["recipes"]) / n_others
        for r in store.query("editor_other_dish_actions", base=base, keys=keys)
    }
    return [
        ProtoAction.from_key(k) for k in keys if fb[k] >= ratio * fp.get(k, 0.0) and fb[k] >= ratio * fo.get(k, 0.0)
    ]


def new_class_actions(store: GraphStore, new_cls: str | None, base: str) -> list[ProtoAction]:
    """(verb, {new class}) proto-actions without tools, by how many recipes of dishes other than the base do
    them (ties by key): the proxy for how the unseen target dish treats its new ingredient."""
    if not new_cls:
        return []
    single = frozenset({new_cls})
    rows = store.query("editor_new_class_actions", cls=new_cls, base=base)
    protos = [(ProtoAction.from_key(r["action"]), int(r["recipes"])) for r in rows]
    return [
        p
        for p, _ in sorted(
            ((p, n) for p, n in protos if p.ingredients == single and not p.tools), key=lambda t: (-t[1], t[0].key)
        )
    ]


def load_pair_knowledge(
    store: GraphStore,
    base: str,
    target: str,
    old_cls: str | None,
    new_cls: str | None,
    sources: tuple[str, ...] = PIVOT_SOURCES,
    positions_table: PositionTable | None = None,
) -> PairKnowledge:
    """One pair's knowledge; ``positions_table`` (shared by the pairs of one run) saves a scan of every step
    per pair, without it the positions of the pair's keys are queried alone."""
    pivots, source = _pivots(store, base, target, sources) if sources else ([], None)
    if sources == (COMPOSED,):  # fair composed mode: constraints transferred to the target, and the base's own
        cons_rows = store.query("editor_base_constraints", dish=target, source=COMPOSED) + store.query(
            "editor_base_constraints", dish=base, source=ESTIMATED
        )
    elif sources:  # pivot modes: the target dish's constraints (released ones included), else the base dish's
        cons_rows = _not_tested(store.query("order_dish_constraints", dish=target)) or _not_tested(
            store.query("order_dish_constraints", dish=base)
        )
    else:  # fair mode: only what `dishgraph order estimate` learnt from the base dish's own recipes
        cons_rows = store.query("editor_base_constraints", dish=base, source=ESTIMATED)
    flat = list(dict.fromkeys((r["cause"], r["effect"]) for r in cons_rows))
    constraints = normalise_constraints([(ProtoAction.from_key(c), ProtoAction.from_key(e)) for c, e in flat])

    assoc = Association()
    classes = [c for c in (old_cls, new_cls) if c]
    if classes:
        table: dict[str, dict[str, int]] = defaultdict(dict)
        for r in store.query("editor_class_verb_association", classes=classes):
            table[r["cls"]][r["verb"]] = int(r["uses"])
        assoc.uses = dict(table)
    if not pivots and sources != (COMPOSED,):  # no pivot edges: fall back on the association statistics alone
        assoc.new_actions = new_class_actions(store, new_cls, base)
        assoc.base_specific = contrast_removals(store, base, new_cls)
        pivots, source = association_pivots(assoc, new_cls), "association"
    inserts = [p for p, k in pivots if k == INSERT]
    if source == "association":  # a recipe already doing some of them gets the next ones: phrase those too
        inserts += [p for p in assoc.new_actions[: 3 * ASSOC_INSERTS] if p not in inserts]
    fallback = composed_fallback(store, base, target, set(inserts)) if sources == (COMPOSED,) else []
    inserts += fallback
    keys = [p.key for p in inserts]
    verbs = sorted({p.verb for p in inserts})
    if positions_table is not None:
        positions, verb_positions = positions_table.actions(keys), positions_table.verbs(verbs)
    else:
        positions = (
            {r["action"]: float(r["rel_pos"]) for r in store.query("editor_action_positions", keys=keys)}
            if keys
            else {}
        )
        verb_positions = (
            {r["verb"]: float(r["rel_pos"]) for r in store.query("editor_verb_positions", verbs=verbs)} if verbs else {}
        )
    counts: dict[str, Counter] = defaultdict(Counter)
    if keys:
        for r in store.query("pivot_examples", keys=keys, dishes=[base]):
            if r["phrase"]:
                counts[r["action"]][r["phrase"]] += 1
    # Most frequent phrasing first, shorter first among equals: the plainest real way to say the action.
    examples = {
        k: [t for t, _ in sorted(c.items(), key=lambda kv: (-kv[1], len(kv[0]), kv[0]))][:MAX_EXAMPLES]
        for k, c in counts.items()
    }
    return PairKnowledge(
        base,
        target,
        old_cls,
        new_cls,
        pivots,
        source,
        constraints,
        assoc,
        positions,
        verb_positions,
        examples,
        fallback,
    )


def composed_fallback(
    store: GraphStore, base: str, target: str, skip: set[ProtoAction], n: int = FALLBACK_INSERTS
) -> list[ProtoAction]:
    """The target's composed actions (share >= FALLBACK_MIN_FREQ) not among ``skip``, by how much more the
    target does them than the base dish (ties by key): the next-best inserts after the pivots."""
    ft = {r["action"]: float(r["freq"]) for r in store.query("compose_dish_uses", dish=target, top=200)}
    fb = {r["action"]: float(r["freq"]) for r in store.query("uses_dish_actions", dish=base, min_freq=0.0, top=100_000)}
    ranked = sorted(
        (k for k, f in ft.items() if f >= FALLBACK_MIN_FREQ and f > fb.get(k, 0.0)),
        key=lambda k: (-(ft[k] - fb.get(k, 0.0)), k),
    )
    return [p for p in (ProtoAction.from_key(k) for k in ranked) if p not in skip][:n]


def _not_tested(rows: list[dict]) -> list[dict]:
    """The editor's pivot modes read the constraints of the CRG method and the release, as before the tested
    ones (`dishgraph order test`) existed: its figures stay comparable."""
    return [r for r in rows if r["source"] != TESTED]
