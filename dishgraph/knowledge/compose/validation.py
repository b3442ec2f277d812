"""How well composition predicts real dishes: leave-one-dish-out, pseudo-pairs, and weights fitted on them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace

from dishgraph.graph.base import GraphStore
from dishgraph.knowledge.compose.mixing import mix, weighted_jaccard
from dishgraph.knowledge.compose.remix import Remixer
from dishgraph.knowledge.compose.settings import ComposeSettings
from dishgraph.knowledge.compose.sources import (
    Pools,
    Source,
    TargetSpec,
    default_glossaries,
    ensure_components,
    gather_sources,
    own_source,
    real_uses,
)
from dishgraph.knowledge.compose.storing import corpus_recipes


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
    real, pools = real_uses(store), Pools(store)
    return [
        (spec.target, gather_sources(store, spec, settings.by_corpus, pools), real(spec.target), spec.classes)
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
    pools = Pools(store)
    for spec, n in holdout_specs(store, min_recipes, min_components, diner_glossary=dg, glossary=gl):
        key = (spec.target, settings.by_corpus)
        if key not in cache:
            truth = own_source(store, spec.target)
            sources = gather_sources(store, spec, settings.by_corpus, pools)
            cache[key] = (sources, truth.freq if truth else {}, spec.classes)
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
    remixers = [Remixer(srcs, truth, focus) for srcs, truth, focus in examples]

    def lodo(settings: ComposeSettings) -> float:  # _lodo_score(examples, settings), the same floats
        return sum(r.score(settings) for r in remixers) / len(remixers) if remixers else 0.0

    score = lodo(best)

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
                sc = lodo(cand)
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
