"""Composing every CRG pair's target: store it, mine its pivots, transfer its order constraints."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

from dishgraph.actions import ProtoAction
from dishgraph.graph.base import GraphStore
from dishgraph.ingest.loader import food_classes, judge_unjudged
from dishgraph.knowledge.compose.mixing import compose_spec
from dishgraph.knowledge.compose.ranking import corpus_rates, fit_ranker, rank_inserts
from dishgraph.knowledge.compose.settings import (
    DEFAULT_INSERTS,
    INSERT_METHODS,
    RANKER,
    RULE_AND_RANKER,
    STORE_MIN_FREQ,
    ComposedThresholds,
    ComposeSettings,
)
from dishgraph.knowledge.compose.sources import (
    Composition,
    Pools,
    TargetSpec,
    _sid,
    default_glossaries,
    ensure_components,
    pair_spec,
    swap_class,
)
from dishgraph.knowledge.compose.storing import corpus_recipes, write_composition
from dishgraph.knowledge.compose.validation import _lodo_score, fit_weights, lodo_examples
from dishgraph.knowledge.insert_ranker import (
    DEFAULT_MODEL,
    MODELS,
)
from dishgraph.knowledge.pivots import COMPOSED
from dishgraph.knowledge.typed import hidden_actions


@dataclass
class ComposeReport:
    pairs: int = 0
    targets: list[dict] = field(default_factory=list)
    pivots: dict[str, int] = field(default_factory=dict)
    constraints: int = 0
    components: int = 0
    seconds: float = 0.0
    settings: dict = field(default_factory=dict)
    fit: dict = field(default_factory=dict)  # with ``fit``: the leave-one-dish-out scores before / after
    ranker: dict = field(default_factory=dict)  # with ``inserts="ranker"``: the fitted ranker

    def to_dict(self) -> dict:
        return asdict(self)


def compose_pairs(
    store: GraphStore,
    pairs: Sequence[str] | None = None,
    settings: ComposeSettings = ComposeSettings(),
    thresholds=None,
    *,
    diner_glossary=None,
    glossary=None,
    constraints: bool = True,
    progress: Callable[[], None] | None = None,
    fit: bool = False,
    inserts: str = DEFAULT_INSERTS,
    pseudo_min_recipes: int = 10,
    ranker_model: str = DEFAULT_MODEL,
    refresh_uses: bool = True,
    component_dishes: Sequence[str] | None = None,
    all_actions: bool = False,
) -> ComposeReport:
    """Compose every pair's target (default: all DishPairs), store it, mine its pivots, transfer constraints.

    ``fit``: first fit the component / class / shrinkage (and per-corpus) weights on the graph's own corpus
    dishes by leave-one-dish-out (``fit_weights``; no pair is read), starting from ``settings``.
    ``inserts``: ``rule`` (the paper's rule on composed shares), ``ranker`` (the insertions chosen by a
    ranker fitted on the graph's pseudo-pairs of dishes with ``pseudo_min_recipes`` recipes, ``insert_ranker``,
    whose ``MODELS`` ``ranker_model`` names) or ``rule+ranker`` (the rule's insertions and the ranker's). The
    removals stay the rule's; a corpus without pseudo-pairs keeps the rule's insertions, ``ranker`` empty.
    ``refresh_uses=False``: the caller has refreshed the USES that matter, ``component_dishes``: the only dishes
    whose name components may be missing (both from ``derived.refresh_derived``, after an ingest).
    ``all_actions``: every proto-action may be a pivot, not only culinary ones (``ProtoAction.culinary``)."""
    if inserts not in INSERT_METHODS:
        raise ValueError(f"inserts must be one of {', '.join(INSERT_METHODS)}, not {inserts!r}")
    MODELS.lookup(ranker_model)  # a typo fails before any work, naming the known models
    import time

    from dishgraph.knowledge.frequencies import refresh_stale_uses
    from dishgraph.knowledge.pivots import all_pairs

    t0 = time.perf_counter()
    if diner_glossary is None or glossary is None:
        dg, gl = default_glossaries()
        diner_glossary, glossary = diner_glossary or dg, glossary or gl
    if refresh_uses:
        refresh_stale_uses(store)
    rep = ComposeReport()
    rep.components = ensure_components(store, diner_glossary, component_dishes)
    if fit:
        examples = [(s, t, f) for _, s, t, f in lodo_examples(store, settings)]
        start = _lodo_score(examples, settings)
        settings, _ = fit_weights(examples, settings)
        score = _lodo_score(examples, settings)
        rep.fit = {"dishes": len(examples), "start_weighted_jaccard": start, "weighted_jaccard": score}
    rep.settings = settings.to_dict()
    pairs = list(pairs) if pairs is not None else all_pairs(store)
    now = corpus_recipes(store)
    counts: Counter = Counter()
    ranker, rates = None, {}
    if inserts in (RANKER, RULE_AND_RANKER):
        rates = corpus_rates(store)
        ranker = fit_ranker(
            store, settings, thresholds, rates=rates, min_recipes=pseudo_min_recipes, model=ranker_model
        )
        rep.ranker = ranker.to_dict() if ranker else {}
    foods = food_classes(glossary)
    pools = Pools(store)  # what the loop writes (composed edges, pivots, constraints) is no pool's input
    for key in pairs:
        spec = pair_spec(store, key, diner_glossary, glossary)
        comp = compose_spec(store, spec, settings, pools=pools)
        write_composition(store, comp, min_freq=STORE_MIN_FREQ, recipes_now=now)
        judge_unjudged(store, comp.freq, foods)
        mined = mine_composed(store, key, thresholds, spec.new_cls, all_actions=all_actions)
        if ranker is not None:
            hidden = set() if all_actions else hidden_actions(store)
            mined = rank_inserts(
                store,
                key,
                spec,
                comp,
                mined,
                ranker,
                rates,
                thresholds,
                keep_rule=inserts == RULE_AND_RANKER,
                hidden=hidden,
            )
        counts.update(p["kind"] for p in mined)
        if constraints:
            rep.constraints += transfer_constraints(store, spec, comp)
        rep.targets.append(comp.summary())
        if progress:
            progress()
    rep.pairs = len(pairs)
    rep.pivots = dict(counts)
    rep.seconds = round(time.perf_counter() - t0, 2)
    return rep


def mine_composed(
    store: GraphStore,
    pair: str,
    thresholds: ComposedThresholds | None = None,
    new_cls: str | None = None,
    *,
    all_actions: bool = False,
) -> list[dict]:
    """Mine and store the pair's ``PIVOT {source: composed}`` edges from base USES and target COMPOSED_USES
    (``new_cls``: the new ingredient's class, whose own actions need only ``tau_new``)."""
    t = thresholds or ComposedThresholds()
    store.query("pivot_clear", pair=pair, source=COMPOSED)
    return store.query(
        "pivot_mine_composed",
        pair=pair,
        alpha=float(t.alpha),
        tau_r=float(t.tau_r),
        tau_i=float(t.tau_i),
        min_fb=float(t.min_fb),
        source=COMPOSED,
        new_cls=new_cls or "",
        tau_new=float(t.tau_new),
        all_actions=all_actions,
    )


def transfer_constraints(
    store: GraphStore, spec: TargetSpec, comp: Composition, *, min_freq: float = 0.05, min_share: float = 0.3
) -> int:
    """Order constraints of the target, transferred from the contributing dishes' estimated ones.

    A constraint (cause → effect) estimated on a contributing dish (class-swapped for the base) is kept when
    both actions are composed at ``min_freq`` or more and the dishes holding it carry at least ``min_share``
    of the weight of the contributors that have constraints at all. Stored as MUST_PRECEDE {dish: target,
    source: composed, estimator: transfer, window: composed}."""
    weight_of: dict[str, float] = defaultdict(float)
    for s in comp.sources:
        w = comp.weights[_sid(s)] / comp.total_weight if comp.total_weight else 0.0
        for dish, n_d in s.dishes:
            weight_of[dish] += w * n_d / s.recipes if s.recipes else 0.0
    dishes = sorted(weight_of)
    rows = store.query("compose_estimated_constraints", dishes=dishes, source="estimated")
    votes: dict[tuple[str, str], float] = defaultdict(float)
    ates: dict[tuple[str, str], list[float]] = defaultdict(list)
    seen: set[tuple[str, str, str]] = set()
    have: set[str] = set()
    for r in rows:
        dish = r["dish"]
        old, new = (spec.old_cls, spec.new_cls) if dish == spec.base else (None, None)
        c, e = swap_class(r["cause"], old, new), swap_class(r["effect"], old, new)
        have.add(dish)
        if c == e or (c, e, dish) in seen:
            continue
        seen.add((c, e, dish))
        votes[(c, e)] += weight_of[dish]
        ates[(c, e)].append(float(r["ate"] or 0.0))
    covered = sum(weight_of[d] for d in have)
    out = []
    for (c, e), v in votes.items():
        if covered and v / covered >= min_share and comp.freq.get(c, 0) >= min_freq and comp.freq.get(e, 0) >= min_freq:
            out.append(
                {
                    "cause": c,
                    "effect": e,
                    "dish": spec.target,
                    "ate": sum(ates[(c, e)]) / len(ates[(c, e)]),
                    "n_treated": 0,
                    "n_control": 0,
                    "estimator": "transfer",
                    "source": COMPOSED,
                    "window": COMPOSED,
                }
            )
    store.query("compose_clear_constraints", dish=spec.target, source=COMPOSED)
    if out:
        from dishgraph.ingest.loader import load_proto_actions

        load_proto_actions(
            store,
            [ProtoAction.from_key(k) for k in sorted({x for r in out for x in (r["cause"], r["effect"])})],
            mode="create",
        )
        store.write("order_write_constraints", out)
    return len(out)
