"""Insertions chosen by a ranker fitted on pseudo-pairs of corpus dishes (no CRG pair read)."""

from __future__ import annotations

from collections.abc import Collection

from dishgraph.graph.base import GraphStore
from dishgraph.knowledge.compose.mixing import mix
from dishgraph.knowledge.compose.settings import STORE_MIN_FREQ, ComposedThresholds, ComposeSettings
from dishgraph.knowledge.compose.sources import Composition, Pools, TargetSpec, gather_sources, own_source, real_uses
from dishgraph.knowledge.compose.storing import corpus_recipes
from dishgraph.knowledge.compose.validation import pseudo_pair_specs
from dishgraph.knowledge.insert_ranker import (
    DEFAULT_MODEL,
    InsertRanker,
    candidate_features,
    choose_inserts,
)
from dishgraph.knowledge.insert_ranker import fit as fit_insert_ranker
from dishgraph.knowledge.pivots import COMPOSED


def corpus_rates(store: GraphStore) -> dict[str, float]:
    """Each proto-action's share of all parsed recipes (a feature of the insertion ranker)."""
    n = corpus_recipes(store)
    return {r["action"]: int(r["recipes"]) / n for r in store.query("compose_action_rates")} if n else {}


def ranker_examples(
    store: GraphStore,
    settings: ComposeSettings | None = None,
    thresholds: ComposedThresholds | None = None,
    *,
    min_recipes: int = 10,
    rates: dict[str, float] | None = None,
) -> tuple[list[list[float]], list[int], list[str], int]:
    """The insertion ranker's training data from the graph's pseudo-pairs: each candidate of a hidden target
    (features, ``insert_ranker.candidate_features``) labelled by the paper's rule (``pivots.classify``) on the
    real USES of the pseudo-pair's two dishes, with its target dish (the CV group) and the number of
    pseudo-pairs. No DishPair is read."""
    from dishgraph.knowledge.pivots import classify

    settings = settings or ComposeSettings()
    thresholds = thresholds or ComposedThresholds()
    rates = corpus_rates(store) if rates is None else rates
    real = real_uses(store)
    xs: list[list[float]] = []
    ys: list[int] = []
    groups: list[str] = []
    specs = pseudo_pair_specs(store, min_recipes)
    pools = Pools(store)
    for spec in specs:
        assert spec.base is not None
        sources = gather_sources(store, spec, settings.by_corpus, pools)
        freq, _, _ = mix(sources, settings, spec.classes)
        fb, ft = real(spec.base), real(spec.target)
        for a, x in candidate_features(
            sources, freq, fb, rates, spec.new_cls, min_freq=STORE_MIN_FREQ, ratio=thresholds.alpha
        ):
            xs.append(x)
            ys.append(int(classify(fb.get(a, 0.0), ft.get(a, 0.0)) == "insert"))
            groups.append(spec.target)
    return xs, ys, groups, len(specs)


def fit_ranker(
    store: GraphStore,
    settings: ComposeSettings | None = None,
    thresholds: ComposedThresholds | None = None,
    *,
    min_recipes: int = 10,
    rates: dict[str, float] | None = None,
    model: str = DEFAULT_MODEL,
) -> InsertRanker | None:
    """Fit the insertion ranker (``insert_ranker``, its ``model``) on the graph's pseudo-pairs
    (``ranker_examples``). None when the corpus has no pseudo-pair or no insertion among them."""
    xs, ys, _, pairs = ranker_examples(store, settings, thresholds, min_recipes=min_recipes, rates=rates)
    return fit_insert_ranker(xs, ys, pairs, model)


def rank_inserts(
    store: GraphStore,
    pair: str,
    spec: TargetSpec,
    comp: Composition,
    mined: list[dict],
    ranker,
    rates: dict[str, float],
    thresholds: ComposedThresholds | None = None,
    *,
    keep_rule: bool = False,
    hidden: Collection[str] = frozenset(),
) -> list[dict]:
    """Replace the rule's insert pivots of ``pair`` with the ranker's choice (its removals stay; ``keep_rule``:
    add the ranker's to the rule's insertions instead); returns the pair's composed pivots as ``mine_composed``
    does."""
    t = thresholds or ComposedThresholds()
    base = own_source(store, spec.base) if spec.base else None
    fb = base.freq if base else {}
    candidates = candidate_features(
        comp.sources, comp.freq, fb, rates, spec.new_cls, min_freq=STORE_MIN_FREQ, ratio=t.alpha
    )
    candidates = [(a, x) for a, x in candidates if a not in hidden]
    chosen = choose_inserts(ranker, candidates, t.ranker_min_prob)
    removes = [p for p in mined if p["kind"] == "remove"]
    inserts = [p for p in mined if p["kind"] == "insert"] if keep_rule else []
    kept = {p["action"] for p in inserts}
    inserts += [
        {"action": a, "kind": "insert", "fb": fb.get(a, 0.0), "ft": comp.freq[a]} for a, _ in chosen if a not in kept
    ]
    store.query("pivot_clear", pair=pair, source=COMPOSED)
    store.write(
        "pivot_write_composed",
        [
            {"pair": pair, "key": p["action"], "kind": p["kind"], "source": COMPOSED, "fb": p["fb"], "ft": p["ft"]}
            for p in removes + inserts
        ],
    )
    return removes + inserts
