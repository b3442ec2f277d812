"""Composed target knowledge: what a dish with few or no recipes would do, from the dishes it is made of.

CRG's premise is compositional: red-braised crucian carp = what red-braising does + what is done to a crucian
carp. Every CRG target dish lacks recipes, so its action frequencies are *estimated* by mixing what the graph
knows (each source a frequency table over proto-actions, pooled from real recipes):

- ``base``: the base dish's recipes with the changed ingredient's class swapped for the new one, recipe by
  recipe (``add`` pairs: kept as they are);
- ``action`` / ``flavour`` / ``food``: for each DiNeR component of the target's name (白灼, 酸辣, 秋葵 …), the
  recipes of every other dish whose name has it, pooled, so each dish weighs by its recipe count;
- ``class``: recipes of every other dish that handle the new ingredient's class;
- ``own``: the target's own recipes, where the corpus has some.

The estimate is a shrunk mixture ``f(a) = Σ_s W_s f_s(a) / Σ_s W_s`` with ``W_s = w_kind · n_s / (n_s + k)``:
a source of few recipes says little, a source kind that predicts held-out dishes badly gets a small weight.
The component weights are fitted by leave-one-dish-out over corpus dishes (``validate``: hide a dish, compose
it, compare with its real USES), the ``base`` weight and the pivot thresholds on the even CRG pairs; nothing
reads a released pivot or constraint.

The result is graph data: ``(:Dish)-[:COMPOSED_USES {freq, weight, source, corpus_recipes}]->(:ProtoAction)``
with provenance ``(:Dish)-[:COMPOSED_FROM {role, atom, weight, recipes}]->(:Dish)``; pivots are mined from it
in Cypher (``pivot_mine_composed``) as ``PIVOT {source: "composed"}``, and order constraints are transferred
from the contributing dishes as ``MUST_PRECEDE {source: "composed"}``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Sequence
from dataclasses import asdict, dataclass, field, replace

from dishgraph.actions import KEY_SEP, SET_SEP, ProtoAction
from dishgraph.graph.base import GraphStore
from dishgraph.ingest.loader import food_classes, judge_unjudged
from dishgraph.knowledge.insert_ranker import (
    DEFAULT_MODEL,
    MODELS,
    InsertRanker,
    candidate_features,
    choose_inserts,
)
from dishgraph.knowledge.insert_ranker import fit as fit_insert_ranker
from dishgraph.knowledge.pivots import COMPOSED
from dishgraph.knowledge.typed import hidden_actions

KINDS = ("base", "action", "flavour", "food", "class", "own")
# how a composed pair's insertions are chosen (``compose_pairs(inserts=...)``): the paper's rule, the ranker,
# or the rule's insertions plus the ranker's
RULE, RANKER, RULE_AND_RANKER = "rule", "ranker", "rule+ranker"
INSERT_METHODS = (RULE, RANKER, RULE_AND_RANKER)
# chosen nested inside the even CRG pairs, each method tuned on one half and scored on the other
# (benchmarks/choose_insert_method.py, benchmarks/results/insert_method.json)
DEFAULT_INSERTS = RULE
# Composed frequencies below this are not stored: absent reads as 0, which changes no pivot (a remove-pivot
# needs a base share of min_fb >= 0.05 >> alpha * 0.005, an insert-pivot a composed share above tau_i).
STORE_MIN_FREQ = 0.005


@dataclass(frozen=True)
class ComposeSettings:
    """Source-kind weights and the shrinkage constant k (a source of n recipes weighs n / (n + k)).

    Defaults: component and class weights from the leave-one-dish-out fit on corpus dishes, the base weight
    from the even CRG pairs (see ``benchmarks/results/compose.json``)."""

    base: float = 0.2
    action: float = 1.0
    flavour: float = 1.0
    food: float = 1.0
    cls: float = 0.3
    own: float = 3.0
    shrink: float = 5.0
    # Pool each component / class source per corpus (recipe source tag), each corpus shrunk on its own recipes
    # and weighted by ``corpora`` (tag -> weight, 1 for a tag not listed): a corpus of another style adds a
    # source the fit can weigh down instead of diluting the one it joins.
    by_corpus: bool = False
    corpora: tuple[tuple[str, float], ...] = ()
    # An action on the target's own ingredient class is mixed only over sources that do something to that
    # class in at least this share of their recipes (0: every source, as a plain mixture).
    focus_kappa: float = 0.0

    def weight(self, kind: str, corpus: str = "") -> float:
        w = self.cls if kind == "class" else getattr(self, kind)
        return w * dict(self.corpora).get(corpus, 1.0) if corpus else w

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Source:
    """One frequency table: ``freq[action]`` = share of the source's ``recipes`` doing the action."""

    kind: str
    atom: str
    recipes: int
    freq: dict[str, float]
    dishes: list[tuple[str, int]] = field(default_factory=list)  # contributing (dish, recipes)
    corpus: str = ""  # the recipe source tag of a per-corpus pool ("" = every corpus pooled)


@dataclass
class Composition:
    target: str
    freq: dict[str, float]
    sources: list[Source]
    weights: dict[str, float]  # (kind:atom) -> W_s
    total_weight: float

    def top(self, n: int = 20) -> list[tuple[str, float]]:
        return sorted(self.freq.items(), key=lambda kv: (-kv[1], kv[0]))[:n]

    def summary(self) -> dict:
        return {
            "target": self.target,
            "actions": len(self.freq),
            "total_weight": round(self.total_weight, 3),
            "sources": [
                {
                    "kind": s.kind,
                    "atom": s.atom,
                    "recipes": s.recipes,
                    "dishes": len(s.dishes),
                    "weight": round(self.weights[_sid(s)], 3),
                }
                for s in self.sources
            ],
        }


def _sid(s: Source) -> str:
    return f"{s.kind}:{s.atom}@{s.corpus}" if s.corpus else f"{s.kind}:{s.atom}"


# ---------------------------------------------------------------------------------------------- sources


def swap_class(key: str, old: str | None, new: str | None) -> str:
    """The proto-action key with ingredient class ``old`` replaced by ``new`` (unchanged if absent)."""
    if not old or not new:
        return key
    verb, ingr, tools = key.split(KEY_SEP)
    classes = ingr.split("+") if ingr else []
    if old not in classes:
        return key
    return KEY_SEP.join([verb, "+".join(sorted({new if c == old else c for c in classes})), tools])


def base_source(store: GraphStore, base: str, old: str | None, new: str | None) -> Source | None:
    """The base dish's recipes, each with the changed class swapped for the new one."""
    rows = store.query("compose_dish_recipe_actions", dish=base)
    if not rows:
        return None
    counts: Counter = Counter()
    for r in rows:
        counts.update({swap_class(k, old, new) for k in (r["actions"] or []) if k})
    n = len(rows)
    return Source("base", base, n, {a: c / n for a, c in counts.items()}, [(base, n)])


def _pool(store: GraphStore, kind: str, name: str, dishes_query: str, pool_query: str, **params) -> Source | None:
    """A pooled source: the contributing dishes (with recipe counts) and per action the recipes doing it."""
    dishes = [(r["dish"], int(r["recipes"])) for r in store.query(dishes_query, **params)]
    n = sum(c for _, c in dishes)
    if not n:
        return None
    freq = {r["action"]: int(r["recipes"]) / n for r in store.query(pool_query, **params)}
    return Source(kind, name, n, freq, dishes)


def _pool_by_corpus(
    store: GraphStore, kind: str, name: str, dishes_query: str, pool_query: str, **params
) -> list[Source]:
    """``_pool`` split by corpus (recipe source tag): one source per corpus with recipes."""
    dishes: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for r in store.query(dishes_query, **params):
        dishes[r["corpus"] or ""].append((r["dish"], int(r["recipes"])))
    counts: dict[str, dict[str, int]] = defaultdict(dict)
    for r in store.query(pool_query, **params):
        counts[r["corpus"] or ""][r["action"]] = int(r["recipes"])
    out = []
    for corpus, ds in sorted(dishes.items()):
        n = sum(c for _, c in ds)
        if n:
            freq = {a: c / n for a, c in counts[corpus].items()}
            out.append(Source(kind, name, n, freq, ds, corpus=corpus or "?"))
    return out


def component_sources(store: GraphStore, kind: str, atom: str, exclude: Sequence[str]) -> list[Source]:
    """``component_source`` per corpus."""
    return _pool_by_corpus(
        store,
        kind,
        atom,
        "compose_component_corpus_dishes",
        "compose_pool_by_component_corpus",
        atom=atom,
        exclude=list(exclude),
    )


def class_sources(store: GraphStore, cls: str, exclude: Sequence[str]) -> list[Source]:
    """``class_source`` per corpus."""
    return _pool_by_corpus(
        store,
        "class",
        cls,
        "compose_class_corpus_dishes",
        "compose_pool_by_class_corpus",
        cls=cls,
        exclude=list(exclude),
    )


def component_source(store: GraphStore, kind: str, atom: str, exclude: Sequence[str]) -> Source | None:
    """Pooled recipes of every dish (but ``exclude``) whose name has DiNeR component ``atom``."""
    return _pool(
        store, kind, atom, "compose_component_dishes", "compose_pool_by_component", atom=atom, exclude=list(exclude)
    )


def class_source(store: GraphStore, cls: str, exclude: Sequence[str]) -> Source | None:
    """Recipes of every dish (but ``exclude``) that handle ingredient class ``cls``."""
    return _pool(store, "class", cls, "compose_class_dishes", "compose_pool_by_class", cls=cls, exclude=list(exclude))


def own_source(store: GraphStore, dish: str) -> Source | None:
    """The dish's own parsed recipes (its USES edges), where the corpus has some."""
    rows = store.query("uses_dish_actions", dish=dish, min_freq=0.0, top=1_000_000)
    if not rows:
        return None
    n = int(rows[0]["total"])
    return Source("own", dish, n, {r["action"]: float(r["freq"]) for r in rows}, [(dish, n)])


def real_uses(store: GraphStore) -> Callable[[str], dict[str, float]]:
    """A dish's real USES shares (``own_source``; empty without recipes), each dish read once: the pseudo-pair
    examples and the ranker's labels read the same dishes again and again."""
    cache: dict[str, dict[str, float]] = {}

    def real(dish: str) -> dict[str, float]:
        if dish not in cache:
            own = own_source(store, dish)
            cache[dish] = own.freq if own else {}
        return cache[dish]

    return real


def _classes(key: str) -> list[str]:
    """The ingredient classes of a proto-action key (``verb|a+b|tools``)."""
    parts = key.split(KEY_SEP)
    return parts[1].split(SET_SEP) if len(parts) == 3 and parts[1] else []


def known_classes(source: Source, classes: Sequence[str], kappa: float) -> frozenset[str]:
    """Which of ``classes`` a source knows: some action on the class is done by ``kappa`` of its recipes or
    more. A pool of dishes that never handle the class says nothing about what is done to it."""
    want = set(classes)
    best: dict[str, float] = defaultdict(float)
    for a, f in source.freq.items():
        for c in _classes(a):
            if c in want and f > best[c]:
                best[c] = f
    return frozenset(c for c, f in best.items() if f >= kappa)


def mix(
    sources: Sequence[Source], settings: ComposeSettings, focus: Sequence[str] = ()
) -> tuple[dict[str, float], dict[str, float], float]:
    """The shrunk mixture of the sources: (freq per action, W per source id, total weight).

    ``focus``: the target's own ingredient classes (a pair's new ingredient; a held-out dish's food). With
    ``settings.focus_kappa`` > 0, an action on a focus class is mixed only over the sources that know that
    class (``known_classes``): what is done to okra is read from the okra dishes and the class-swapped base,
    not averaged with the zeros of every blanched dish that never saw okra."""
    weights = {_sid(s): settings.weight(s.kind, s.corpus) * s.recipes / (s.recipes + settings.shrink) for s in sources}
    total = sum(weights.values())
    freq: dict[str, float] = defaultdict(float)
    if total <= 0:
        return {}, weights, 0.0
    focus = tuple(focus) if settings.focus_kappa > 0 else ()
    knows = {_sid(s): known_classes(s, focus, settings.focus_kappa) for s in sources} if focus else {}
    group_total: dict[frozenset[str], float] = {}

    def denominator(group: frozenset[str]) -> float:
        if group not in group_total:
            group_total[group] = sum(weights[_sid(s)] for s in sources if knows[_sid(s)] & group)
        return group_total[group]

    for s in sources:
        w_s = weights[_sid(s)]
        if w_s <= 0:
            continue
        for a, f in s.freq.items():
            group = frozenset(_classes(a)).intersection(focus) if focus else frozenset()
            if not group:
                freq[a] += w_s / total * f
            elif knows[_sid(s)] & group:
                freq[a] += w_s / denominator(group) * f
    return dict(freq), weights, total


# ---------------------------------------------------------------------------------------------- targets


@dataclass(frozen=True)
class TargetSpec:
    """What composition needs to know of a target: its name parts, the dishes to leave out, the classes."""

    target: str
    atoms: tuple[str, ...]  # DiNeR component keys type:cluster
    exclude: tuple[str, ...]  # dishes whose recipes must not count (base, target, held-out)
    base: str | None = None
    old_cls: str | None = None
    new_cls: str | None = None
    classes: tuple[str, ...] = ()  # ingredient classes for the class pool
    own: bool = True


def gather_sources(store: GraphStore, spec: TargetSpec, by_corpus: bool = False) -> list[Source]:
    """Every source of ``spec``'s target; ``by_corpus``: component and class pools one per corpus."""
    out: list[Source] = []
    if spec.base:
        s = base_source(store, spec.base, spec.old_cls, spec.new_cls)
        if s:
            out.append(s)
    for atom in spec.atoms:
        kind = atom.split(":", 1)[0]
        if by_corpus:
            out.extend(component_sources(store, kind, atom, spec.exclude))
        elif s := component_source(store, kind, atom, spec.exclude):
            out.append(s)
    for cls in spec.classes:
        if by_corpus:
            out.extend(class_sources(store, cls, spec.exclude))
        elif s := class_source(store, cls, spec.exclude):
            out.append(s)
    if spec.own:
        s = own_source(store, spec.target)
        if s:
            out.append(s)
    return out


def compose_spec(
    store: GraphStore,
    spec: TargetSpec,
    settings: ComposeSettings = ComposeSettings(),
    sources: list[Source] | None = None,
) -> Composition:
    sources = gather_sources(store, spec, settings.by_corpus) if sources is None else sources
    freq, weights, total = mix(sources, settings, spec.classes)
    return Composition(spec.target, freq, sources, weights, total)


def pair_spec(store: GraphStore, pair: str, diner_glossary, glossary) -> TargetSpec:
    """The composition spec of a DishPair: its target's name components, its base, the changed classes."""
    from dishgraph.diner.names import parse_name
    from dishgraph.knowledge.pivots import pair_info

    info = pair_info(store, pair)
    base, target = info["base"], info["target"]
    parse = parse_name(target, diner_glossary)
    atoms = tuple(sorted(parse.atoms)) if parse.ok else ()
    old = glossary.ingredient.get(info["change_from"]) if info.get("change_from") else None
    new = glossary.ingredient.get(info["change_to"]) if info.get("change_to") else None
    if info.get("change_kind") == "add":
        old = None
    return TargetSpec(target, atoms, (base, target), base, old, new, (new,) if new else ())


# ---------------------------------------------------------------------------------------------- storing


def corpus_recipes(store: GraphStore) -> int:
    return int(store.query("compose_parsed_recipes")[0]["recipes"] or 0)


def write_composition(
    store: GraphStore, comp: Composition, *, min_freq: float = 0.0, recipes_now: int | None = None
) -> int:
    """Replace the target's COMPOSED_USES / COMPOSED_FROM edges with ``comp`` (proto-actions created as needed:
    a swapped key may name an action no recipe has done yet)."""
    from dishgraph.ingest.loader import load_proto_actions

    recipes_now = corpus_recipes(store) if recipes_now is None else recipes_now
    store.query("compose_clear", dishes=[comp.target])
    keep = {a: f for a, f in comp.freq.items() if f > min_freq}
    # create: ask which keys exist and CREATE only the absent ones (almost all exist); a MERGE of every action
    # cost ~0.3 s a target
    # "create": look the keys up and CREATE the few absent ones; MERGEing every action cost ~0.3 s a target
    load_proto_actions(store, [ProtoAction.from_key(a) for a in sorted(keep)], mode="create")
    n = store.write(
        "compose_write_uses",
        (
            {
                "dish": comp.target,
                "action": a,
                "freq": float(f),
                "weight": float(comp.total_weight),
                "source": COMPOSED,
                "corpus_recipes": recipes_now,
            }
            for a, f in sorted(keep.items())
        ),
    )
    rows = []
    for s in comp.sources:
        w = comp.weights[_sid(s)] / comp.total_weight if comp.total_weight else 0.0
        for dish, n_d in s.dishes:
            rows.append(
                {
                    "target": comp.target,
                    "dish": dish,
                    "role": s.kind,
                    "atom": s.atom,
                    "weight": float(w * n_d / s.recipes) if s.recipes else 0.0,
                    "recipes": int(n_d),
                }
            )
    store.write("compose_write_from", rows)
    return n


def composed_state(store: GraphStore) -> dict:
    """Which dishes hold composed knowledge and whether it is stale (the parsed recipes changed since)."""
    now = corpus_recipes(store)
    rows = store.query("compose_state")
    stale = [r["dish"] for r in rows if int(r["corpus_recipes"] or -1) != now]
    return {"dishes": len(rows), "recipes_now": now, "stale": stale}


class StaleKnowledge(RuntimeError):
    """Composed knowledge older than the recipes in the graph."""


def ensure_fresh(store: GraphStore) -> dict:
    """Raise ``StaleKnowledge`` (a message saying what to run) if composed knowledge predates the recipes."""
    state = composed_state(store)
    if not state["dishes"]:
        raise StaleKnowledge("no composed knowledge in the graph: run `dishgraph pivots mine --knowledge composed`")
    if state["stale"]:
        raise StaleKnowledge(
            f"composed knowledge of {len(state['stale'])} dish(es) predates the "
            f"{state['recipes_now']} parsed recipes now in the graph: run "
            "`dishgraph pivots mine --knowledge composed` again"
        )
    return state


# ---------------------------------------------------------------------------------------------- all pairs


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


def ensure_components(store: GraphStore, diner_glossary, dishes: Sequence[str] | None = None) -> int:
    """Store DiNeR components of every dish, or of ``dishes`` only (composition pools dishes by them: after an
    ingest only its dishes can lack theirs); returns dishes parsed."""
    from dishgraph.diner.graph import store_components

    return store_components(store, diner_glossary, dishes).parsed


def default_glossaries(store: GraphStore | None = None):
    from dishgraph import config
    from dishgraph.diner.names import EXTRA_GLOSSARY, DinerGlossary
    from dishgraph.ingest.glossary import Glossary

    return DinerGlossary.load(None, [EXTRA_GLOSSARY]), Glossary.load(
        config.data_dir() / "counterfactual" / "glossary.json"
    )


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
    for key in pairs:
        spec = pair_spec(store, key, diner_glossary, glossary)
        comp = compose_spec(store, spec, settings)
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


@dataclass(frozen=True)
class ComposedThresholds:
    """The paper's rule (α, τR, τI) plus a floor on the base frequency of a remove-pivot and a lower insert
    threshold for what is done to the new ingredient alone. Tuned on the even CRG pairs."""

    alpha: float = 3.0
    tau_r: float = 0.1
    tau_i: float = 0.2
    min_fb: float = 0.1
    tau_new: float = 0.03
    # inserts="ranker": the insertion probability a candidate needs (chosen on the even pairs from the grid of
    # benchmarks/bench_compose.py --limits, for the default model and for the logistic one alike)
    ranker_min_prob: float = 0.1


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
    for spec in specs:
        assert spec.base is not None
        sources = gather_sources(store, spec, settings.by_corpus)
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


# ---------------------------------------------------------------------------------------------- constraints


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


# ---------------------------------------------------------------------------------------------- validation


def weighted_jaccard(a: dict[str, float], b: dict[str, float]) -> float:
    keys = set(a) | set(b)
    num = sum(min(a.get(k, 0.0), b.get(k, 0.0)) for k in keys)
    den = sum(max(a.get(k, 0.0), b.get(k, 0.0)) for k in keys)
    return num / den if den else 0.0


def top_overlap(a: dict[str, float], b: dict[str, float], n: int = 20) -> float:
    ta = {k for k, _ in sorted(a.items(), key=lambda kv: (-kv[1], kv[0]))[:n]}
    tb = {k for k, _ in sorted(b.items(), key=lambda kv: (-kv[1], kv[0]))[:n]}
    return len(ta & tb) / max(1, min(n, len(tb)))


@dataclass
class DishValidation:
    dish: str
    recipes: int
    atoms: list[str]
    sources: int
    weighted_jaccard: float
    top20: float


@dataclass
class ValidationReport:
    """Leave-one-dish-out agreement of composed with real frequencies (mean over dishes)."""

    dishes: list[DishValidation] = field(default_factory=list)
    settings: dict = field(default_factory=dict)
    corpus_recipes: int = 0
    seconds: float = 0.0

    def means(self) -> dict:
        n = len(self.dishes)
        return {
            "dishes": n,
            "weighted_jaccard": sum(d.weighted_jaccard for d in self.dishes) / n if n else None,
            "top20": sum(d.top20 for d in self.dishes) / n if n else None,
        }

    def to_dict(self) -> dict:
        return {
            "means": self.means(),
            "settings": self.settings,
            "corpus_recipes": self.corpus_recipes,
            "seconds": self.seconds,
            "dishes": [asdict(d) for d in self.dishes],
        }


def holdout_specs(
    store: GraphStore, min_recipes: int = 10, min_components: int = 2, *, diner_glossary=None, glossary=None
) -> list[tuple[TargetSpec, int]]:
    """Corpus dishes to hide one at a time: enough parsed recipes and a name of enough DiNeR components.
    The class pool uses the glossary classes of the name's food components (the stand-in for the new
    ingredient of a pair)."""
    from dishgraph.diner.names import parse_name
    from dishgraph.knowledge.frequencies import dishes_with_recipes

    if diner_glossary is None or glossary is None:
        dg, gl = default_glossaries()
        diner_glossary, glossary = diner_glossary or dg, glossary or gl
    out = []
    for dish, n in sorted(dishes_with_recipes(store).items()):
        if n < min_recipes:
            continue
        parse = parse_name(dish, diner_glossary)
        if not parse.ok or len(parse.atoms) < min_components:
            continue
        classes = tuple(
            sorted(
                {
                    glossary.ingredient[c.surface]
                    for c in parse.components
                    if c.type == "food" and c.surface in glossary.ingredient
                }
            )
        )
        out.append((TargetSpec(dish, tuple(sorted(parse.atoms)), (dish,), classes=classes, own=False), n))
    return out


def pseudo_pair_specs(
    store: GraphStore, min_recipes: int = 10, *, diner_glossary=None, glossary=None
) -> list[TargetSpec]:
    """Pairs made of corpus dishes alone, to fit what leave-one-dish-out cannot (the ``base`` weight): two
    dishes with ``min_recipes`` parsed recipes each whose names share every non-food DiNeR component (炒 …,
    酸辣 …) and differ in their food ones, like a CRG pair (白灼菜心 → 白灼秋葵). Both orders count; the target is
    composed from the base (its one changed food class swapped) and the other dishes, never from its own
    recipes. No DishPair is read, so the CRG pairs stay a test the fit never saw."""
    from itertools import permutations

    from dishgraph.diner.names import parse_name
    from dishgraph.knowledge.frequencies import dishes_with_recipes

    if diner_glossary is None or glossary is None:
        dg, gl = default_glossaries()
        diner_glossary, glossary = diner_glossary or dg, glossary or gl
    info: dict[str, tuple[tuple[str, ...], dict[str, str | None]]] = {}
    groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for dish, n in sorted(dishes_with_recipes(store).items()):
        parse = parse_name(dish, diner_glossary) if n >= min_recipes else None
        if parse is None or not parse.ok:
            continue
        food = {c.key: glossary.ingredient.get(c.surface) for c in parse.components if c.type == "food"}
        method = tuple(sorted(a for a in parse.atoms if not a.startswith("food:")))
        if food and method:
            info[dish] = (tuple(sorted(parse.atoms)), food)
            groups[method].append(dish)
    out = []
    for dishes in groups.values():
        for base, target in permutations(dishes, 2):
            fb, ft = info[base][1], info[target][1]
            if set(fb) == set(ft):
                continue
            old = sorted({c for k, c in fb.items() if k not in ft and c})
            new = sorted({c for k, c in ft.items() if k not in fb and c})
            swap = len(old) == 1 and len(new) == 1  # one food class changed: swap it, as a CRG 'replace' pair
            classes = tuple(new) if swap else tuple(sorted({c for c in ft.values() if c}))
            out.append(
                TargetSpec(
                    target,
                    info[target][0],
                    (base, target),
                    base,
                    old[0] if swap else None,
                    new[0] if swap else None,
                    classes,
                    own=False,
                )
            )
    return out


def pseudo_pair_examples(store: GraphStore, settings: ComposeSettings = ComposeSettings(), min_recipes: int = 10):
    """``pseudo_pair_specs`` as fitting examples: (target, gathered sources with the base, real shares, focus)."""
    real = real_uses(store)
    return [
        (spec.target, gather_sources(store, spec, settings.by_corpus), real(spec.target), spec.classes)
        for spec in pseudo_pair_specs(store, min_recipes)
    ]


def leave_one_dish_out(
    store: GraphStore,
    min_recipes: int = 10,
    min_components: int = 2,
    settings: ComposeSettings = ComposeSettings(),
    *,
    progress: Callable[[], None] | None = None,
    cache: dict | None = None,
) -> ValidationReport:
    """Hide each qualifying dish, compose it from the others, and compare with its real USES frequencies
    (weighted Jaccard; share of its 20 most frequent actions among the composed top 20). ``cache`` keeps the
    gathered sources per dish, so a weight search re-mixes without re-querying."""
    import time

    from dishgraph.knowledge.frequencies import refresh_stale_uses

    t0 = time.perf_counter()
    refresh_stale_uses(store)
    dg, gl = default_glossaries()
    ensure_components(store, dg)
    cache = {} if cache is None else cache
    rep = ValidationReport(settings=settings.to_dict(), corpus_recipes=corpus_recipes(store))
    for spec, n in holdout_specs(store, min_recipes, min_components, diner_glossary=dg, glossary=gl):
        key = (spec.target, settings.by_corpus)
        if key not in cache:
            truth = own_source(store, spec.target)
            cache[key] = (gather_sources(store, spec, settings.by_corpus), truth.freq if truth else {}, spec.classes)
        sources, truth, focus = cache[key]
        freq, _, _ = mix(sources, settings, focus)
        rep.dishes.append(
            DishValidation(
                spec.target, n, list(spec.atoms), len(sources), weighted_jaccard(freq, truth), top_overlap(freq, truth)
            )
        )
        if progress:
            progress()
    rep.seconds = round(time.perf_counter() - t0, 2)
    return rep


# ---------------------------------------------------------------------------------------------- fitting

FIT_GRID = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0)
SHRINK_GRID = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0)


Example = tuple[list[Source], dict[str, float], tuple[str, ...]]  # gathered sources, real shares, focus classes


def _lodo_score(examples: Sequence[Example], settings: ComposeSettings) -> float:
    """Mean weighted Jaccard of the composed against the real frequencies over held-out corpus dishes."""
    if not examples:
        return 0.0
    return sum(weighted_jaccard(mix(srcs, settings, focus)[0], truth) for srcs, truth, focus in examples) / len(
        examples
    )


FIT_MIN_FREQ = 0.01  # source shares below this are left out while fitting (a fit re-mixes thousands of times)


def _trimmed(sources: Sequence[Source], trim: float = FIT_MIN_FREQ) -> list[Source]:
    return [replace(s, freq={a: f for a, f in s.freq.items() if f >= trim}) for s in sources]


def fit_weights(
    examples: Sequence[Example],
    start: ComposeSettings = ComposeSettings(),
    rounds: int = 2,
    trim: float = FIT_MIN_FREQ,
) -> tuple[ComposeSettings, float]:
    """Coordinate ascent of the component / class kind weights, the shrinkage k and (per-corpus sources) each
    corpus's weight on the leave-one-dish-out score of ``examples`` (gathered sources, real frequencies).

    Only corpus dishes are read: no CRG pair, no released answer. The ``food`` weight stays fixed (the mixture
    is normalised, so one weight sets the scale), as does ``own``; ``base`` is fitted only where the examples
    have a base (``pseudo_pair_examples``: a held-out dish has none). A coarse grid keeps the fit from chasing
    noise over a few dozen dishes. ``trim``: source shares below it are left out while searching (speed); the
    result is kept only if it also scores better on the full shares."""
    full = examples
    if trim > 0:
        examples = [(_trimmed(srcs, trim), truth, focus) for srcs, truth, focus in examples]
    corpora = sorted({s.corpus for srcs, _, _ in examples for s in srcs if s.corpus})
    first = best = replace(start, corpora=tuple((c, dict(start.corpora).get(c, 1.0)) for c in corpora))
    score = _lodo_score(examples, best)

    def candidates(name: str, s: ComposeSettings) -> list[ComposeSettings]:
        if name == "shrink":
            return [replace(s, shrink=v) for v in SHRINK_GRID]
        if name.startswith("corpus:"):
            tag = name.split(":", 1)[1]
            return [replace(s, corpora=tuple((c, v if c == tag else w) for c, w in s.corpora)) for v in FIT_GRID]
        return [replace(s, **{name: v}) for v in FIT_GRID]

    with_base = any(src.kind == "base" for srcs, _, _ in examples for src in srcs)
    names = ["base"] * with_base + ["action", "flavour", "cls", "shrink"] + [f"corpus:{c}" for c in corpora]
    for _ in range(rounds):
        improved = False
        for name in names:
            for cand in candidates(name, best):
                sc = _lodo_score(examples, cand)
                if sc > score + 1e-9:
                    best, score, improved = cand, sc, True
        if not improved:
            break
    before, after = _lodo_score(full, first), _lodo_score(full, best)
    return (best, after) if after >= before else (first, before)


def lodo_examples(
    store: GraphStore, settings: ComposeSettings = ComposeSettings(), min_recipes: int = 10, min_components: int = 2
) -> list[tuple[str, list[Source], dict[str, float], tuple[str, ...]]]:
    """The held-out corpus dishes with their gathered sources, real frequencies and food classes
    (``leave_one_dish_out``'s)."""
    cache: dict = {}
    rep = leave_one_dish_out(store, min_recipes, min_components, settings, cache=cache)
    return [(d.dish, *cache[(d.dish, settings.by_corpus)]) for d in rep.dishes]


def fit_settings(
    store: GraphStore,
    start: ComposeSettings = ComposeSettings(),
    *,
    cache: dict | None = None,
    folds: int = 2,
    pseudo_pairs: bool = False,
    min_recipes: int = 10,
) -> dict:
    """Fit the composition weights on corpus dishes alone (``fit_weights``) and say how well they carry:
    the in-sample score, and a ``folds``-fold cross-validated one (fit on the other dishes, score these).

    ``pseudo_pairs``: fit on ``pseudo_pair_examples`` instead (the base weight too), untrimmed, with the folds
    split by target dish so that no dish is scored by weights fitted on its own recipes."""
    if pseudo_pairs:
        named = pseudo_pair_examples(store, start, min_recipes)
        examples = [(s, t, f) for _, s, t, f in named]
        targets = sorted({name for name, *_ in named})
        fold_of = [targets.index(name) % folds for name, *_ in named]
        trim = 0.0
    else:
        if cache is None:
            examples = [(s, t, f) for _, s, t, f in lodo_examples(store, start, min_recipes)]
        else:
            examples = [v for k, v in sorted(cache.items()) if k[1] == start.by_corpus]
        fold_of = [i % folds for i in range(len(examples))]
        trim = FIT_MIN_FREQ
    fitted, _ = fit_weights(examples, start, trim=trim)
    score = _lodo_score(examples, fitted)
    cv = []
    for f in range(folds):
        train = [e for i, e in enumerate(examples) if fold_of[i] != f]
        test = [e for i, e in enumerate(examples) if fold_of[i] == f]
        cv.append((_lodo_score(test, fit_weights(train, start, trim=trim)[0]), len(test)))
    return {
        "settings": fitted.to_dict(),
        "weighted_jaccard": score,
        "start_weighted_jaccard": _lodo_score(examples, start),
        "cv_weighted_jaccard": sum(s * n for s, n in cv) / max(1, sum(n for _, n in cv)),
        "dishes": len(examples),
    }
