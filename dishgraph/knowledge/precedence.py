"""Order knowledge with its evidence: which action comes before which, at three levels, each pair tested.

The unit is a recipe that has both actions. Repeated actions are aligned, not read at their first occurrence:
x is *strictly before* y in a recipe when every x comes before every y (last x < first y); recipes where they
interleave (oil heated, then sesame added, then oil heated again) count for neither order. For a pair the
estimate is p = n_before / (n_before + n_after), the share of the recipes ordering the two that put x first.

* **effect**: 2p - 1 (from -1, always after, to +1, always before), with a Wilson 95% interval;
* **decision**: a two-sided sign test of p = 1/2 per pair, Benjamini–Hochberg at ``alpha`` over every pair
  tested at that level and unit (a dish, a dish's family, the corpus); a constraint is *kept* when its
  adjusted q ≤ alpha and its interval excludes zero, so a pair can be kept in one direction only;
* **cycles**: kept constraints that form a cycle within one unit are reported and not kept.

Levels: ``dish`` (the dish's recipes), ``family`` (the recipes of the dishes sharing two or more DiNeR name
components with it, the dish itself left out: same main food and technique, or a shared compound) and
``global`` (every recipe of the corpus). Counts add over recipes, so a level's counts without some recipes
are the level's counts minus theirs: the held-out benchmark re-estimates per fold at no cost.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

LEVELS = ("dish", "family", "global")
ALPHA = 0.05
Z95 = 1.959963984540054
GLOBAL_DISH = "*"  # the `dish` of global-level MUST_PRECEDE edges: they hold in every dish


def spans(seq: Sequence[str]) -> dict[str, tuple[int, int]]:
    """{action: (first position, last position)} of a sequence."""
    out: dict[str, tuple[int, int]] = {}
    for i, a in enumerate(seq):
        f = out.get(a)
        out[a] = (i, i) if f is None else (f[0], i)
    return out


def strict_pairs(seq: Sequence[str]) -> list[tuple[str, str]]:
    """Every (x, y) of distinct actions with every x before every y in the sequence."""
    sp = sorted(spans(seq).items(), key=lambda kv: kv[1][0])
    out = []
    for i, (x, (_, lx)) in enumerate(sp):
        for y, (fy, _) in sp[i + 1 :]:
            if lx < fy:
                out.append((x, y))
    return out


def count(seqs: Iterable[Sequence[str]]) -> Counter:
    """Counter {(x, y): recipes with x strictly before y}."""
    c: Counter = Counter()
    for s in seqs:
        c.update(strict_pairs(s))
    return c


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, mid - half), min(1.0, mid + half)


def sign_test(k: int, n: int) -> float:
    """Two-sided exact binomial p-value of k successes in n at p = 1/2."""
    if n == 0:
        return 1.0
    m = min(k, n - k)
    tail = sum(math.comb(n, i) for i in range(m + 1)) / 2**n
    return min(1.0, 2 * tail)


def bh(pvalues: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg adjusted q-values, in the input order."""
    n = len(pvalues)
    order = sorted(range(n), key=lambda i: pvalues[i])
    q = [1.0] * n
    prev = 1.0
    for rank in range(n, 0, -1):
        i = order[rank - 1]
        prev = min(prev, pvalues[i] * n / rank)
        q[i] = prev
    return q


@dataclass
class Evidence:
    """One tested order x -> y at one level: support, effect with its interval, the decision."""

    cause: str
    effect: str
    level: str
    n_before: int  # recipes with every cause before every effect
    n_after: int  # recipes with every effect before every cause
    ate: float  # 2p - 1
    ci_low: float
    ci_high: float
    p_value: float
    q_value: float = 1.0
    kept: bool = False
    decision: str = "not significant"  # kept | not significant | cycle | few recipes

    @property
    def share(self) -> float:
        """p: the share of recipes ordering the two that put the cause first."""
        n = self.n_before + self.n_after
        return self.n_before / n if n else 0.5

    @property
    def confidence(self) -> float:
        """How sure a violation of this constraint is a mistake: the lower 95% bound of p (0 when not kept)."""
        return wilson(self.n_before, self.n_before + self.n_after)[0] if self.kept else 0.0

    def to_dict(self) -> dict:
        d = asdict(self)
        d["confidence"] = round(self.confidence, 4)
        return d


def tested_pairs(
    counts: Mapping[tuple[str, str], int], level: str, alpha: float = ALPHA, min_n: int = 3
) -> list[Evidence]:
    """One Evidence per unordered pair ordered in ``min_n``+ recipes, in its majority direction, with the BH
    decision over all of them and cycles among the kept ones dropped (decision "cycle")."""
    seen: set[tuple[str, str]] = set()
    out: list[Evidence] = []
    for (x, y), k in counts.items():
        if (y, x) in seen or (x, y) in seen:
            continue
        seen.add((x, y))
        r = counts.get((y, x), 0)
        n = k + r
        if n < min_n:
            continue
        if r > k or (r == k and y < x):
            x, y, k, r = y, x, r, k
        lo, hi = wilson(k, n)
        out.append(Evidence(x, y, level, k, r, 2 * k / n - 1, 2 * lo - 1, 2 * hi - 1, sign_test(k, n)))
    for e, q in zip(out, bh([e.p_value for e in out])):
        e.q_value = q
        e.kept = q <= alpha and e.ci_low > 0
        e.decision = "kept" if e.kept else "not significant"
    drop_cycles([e for e in out if e.kept])
    return out


def drop_cycles(kept: list[Evidence]) -> list[list[str]]:
    """Mark kept constraints inside a strongly connected component (a cycle) as not kept; the components."""
    graph: dict[str, list[str]] = {}
    for e in kept:
        graph.setdefault(e.cause, []).append(e.effect)
        graph.setdefault(e.effect, [])
    comp = _scc(graph)
    cyc = [c for c in set(map(frozenset, comp.values())) if len(c) > 1] if comp else []
    bad = {a for c in cyc for a in c}
    for e in kept:
        if e.cause in bad and e.effect in bad and comp[e.cause] is comp[e.effect]:
            e.kept, e.decision = False, "cycle"
    return [sorted(c) for c in cyc]


def _scc(graph: dict[str, list[str]]) -> dict[str, list[str]]:
    """Tarjan's strongly connected components, iterative: {node: its component (shared list)}."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    comp: dict[str, list[str]] = {}
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(graph[w])))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                c: list[str] = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    c.append(w)
                    comp[w] = c
                    if w == v:
                        break
    return comp


def bh_cutoff(pvalues: Iterable[float], alpha: float = ALPHA) -> float:
    """The largest p-value Benjamini–Hochberg rejects at ``alpha`` (-1 when none): q ≤ alpha ⇔ p ≤ cutoff."""
    ps = sorted(pvalues)
    m = len(ps)
    cut = -1.0
    for i, p in enumerate(ps, 1):
        if p <= alpha * i / m:
            cut = p
    return cut


@dataclass
class Level:
    """One level's counts, tested on demand: the BH cut-off is fixed from all its pairs once, so a lookup
    with some recipes' counts taken away (``minus``, the held-out recipes) needs no new pass over them."""

    name: str
    counts: Counter
    min_n: int = 3
    alpha: float = ALPHA
    minus: Counter = field(default_factory=Counter)
    p_cut: float = field(init=False, default=-1.0)

    def __post_init__(self) -> None:
        self.p_cut = bh_cutoff(self._pvalues(), self.alpha)

    def _pvalues(self) -> Iterable[float]:
        for (x, y), k in self.counts.items():
            if x < y or (y, x) not in self.counts:
                n = k + self.counts.get((y, x), 0)
                if n >= self.min_n:
                    yield sign_test(min(k, n - k), n)

    def n(self, x: str, y: str) -> int:
        return self.counts.get((x, y), 0) - self.minus.get((x, y), 0)

    def kept(self, x: str, y: str) -> Evidence | None:
        """The kept constraint between x and y in either direction, or None."""
        k, r = self.n(x, y), self.n(y, x)
        n = k + r
        if n < self.min_n or k == r:
            return None
        if r > k:
            x, y, k, r = y, x, r, k
        p = sign_test(k, n)
        lo, hi = wilson(k, n)
        if p > self.p_cut or lo <= 0.5:
            return None
        return Evidence(x, y, self.name, k, r, 2 * k / n - 1, 2 * lo - 1, 2 * hi - 1, p, kept=True, decision="kept")


Lookup = Callable[[str, str], "Evidence | None"]


def backoff(levels: Sequence[Level]) -> Lookup:
    """The most specific level that keeps a constraint between the two actions decides (dish, family, global)."""

    def look(a: str, b: str) -> Evidence | None:
        for lv in levels:
            e = lv.kept(a, b)
            if e is not None:
                return e
        return None

    return look


@dataclass
class ScoredViolation:
    """A kept constraint cause -> effect broken by the recipe: every effect comes before every cause."""

    cause: str
    effect: str
    level: str
    confidence: float  # lower 95% bound of the share of recipes that keep the order
    n_before: int
    n_after: int
    ate: float
    ci_low: float
    ci_high: float
    q_value: float | None
    cause_pos: int  # first occurrence of the cause
    effect_pos: int  # last occurrence of the effect (before the cause)
    cause_phrase: str = ""
    effect_phrase: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


class _ViolationsAsDicts:
    """``to_dict`` of a recipe's verdict: its fields, each violation as its own dict."""

    def to_dict(self) -> dict:
        d = asdict(self)  # type: ignore[call-overload]
        d["violations"] = [v.to_dict() for v in self.violations]  # type: ignore[attr-defined]
        return d


@dataclass
class RecipeCheck(_ViolationsAsDicts):
    """A whole recipe checked: every kept constraint among its actions, kept or broken, and a verdict."""

    violations: list[ScoredViolation]
    applicable: int  # kept constraints with both actions in the recipe, strictly ordered
    disorder: float  # weighted share of those the recipe breaks (weights: log-odds of the constraint)
    confidence: float  # how sure the recipe is out of order: the larger of the best violation and the share
    flagged: bool
    min_confidence: float


MIN_CONFIDENCE = 0.9  # flag a recipe (exit 4) when its confidence reaches this
SHARE_SCALE = 0.5  # a recipe breaking this weighted share of its applicable constraints reads as confidence 1


def _weight(e: Evidence) -> float:
    n = e.n_before + e.n_after
    p = (e.n_before + 0.5) / (n + 1)
    return math.log(p / (1 - p))


def check_recipe(
    keys: Sequence[str],
    lookup: Lookup,
    phrases: Sequence[str] | None = None,
    min_confidence: float = MIN_CONFIDENCE,
    share_scale: float = SHARE_SCALE,
) -> RecipeCheck:
    """Every pair of distinct actions the recipe orders strictly, against the kept constraint between them."""
    sp = spans(keys)
    acts = sorted(sp, key=lambda a: sp[a][0])
    viol: list[ScoredViolation] = []
    w_all = w_bad = 0.0
    applicable = 0
    for i, a in enumerate(acts):
        for b in acts[i + 1 :]:
            if not sp[a][1] < sp[b][0]:  # interleaved: neither order is broken
                continue
            e = lookup(a, b)
            if e is None:
                continue
            applicable += 1
            w = _weight(e)
            w_all += w
            if e.cause == b:  # the recipe puts every b (the cause) after every a (the effect)
                w_bad += w
                viol.append(
                    ScoredViolation(
                        b,
                        a,
                        e.level,
                        e.confidence,
                        e.n_before,
                        e.n_after,
                        e.ate,
                        e.ci_low,
                        e.ci_high,
                        e.q_value if e.q_value != 1.0 else None,
                        sp[b][0],
                        sp[a][1],
                        phrases[sp[b][0]] if phrases else "",
                        phrases[sp[a][1]] if phrases else "",
                    )
                )
    disorder = w_bad / w_all if w_all else 0.0
    best = max((v.confidence for v in viol), default=0.0)
    conf = max(best, min(1.0, disorder / share_scale) if viol else 0.0)
    viol.sort(key=lambda v: (-v.confidence, v.effect_pos, v.cause_pos))
    return RecipeCheck(viol, applicable, round(disorder, 4), round(conf, 4), conf >= min_confidence, min_confidence)


def families(components: Mapping[str, set[str]], dishes: Iterable[str], min_shared: int = 2) -> dict[str, list[str]]:
    """{dish: the other dishes sharing ``min_shared``+ DiNeR components with it (all of them when it has fewer)}."""
    by_comp: dict[str, set[str]] = {}
    for d, cs in components.items():
        for c in cs:
            by_comp.setdefault(c, set()).add(d)
    out = {}
    for d in dishes:
        mine = components.get(d, set())
        if not mine:
            out[d] = []
            continue
        shared: Counter = Counter()
        for c in mine:
            shared.update(by_comp[c])
        need = min(min_shared, len(mine))
        out[d] = sorted(o for o, n in shared.items() if o != d and n >= need)
    return out


# ------------------------------------------------------------------------------------------ the recipe's likelihood
# The whole-recipe score. Every pair of distinct actions the recipe orders strictly (aligned repeats) is looked
# up in the pairwise order counts, each level shrunk toward the next coarser one (a Beta prior of ``PRIOR``
# pseudo-recipes at the coarser level's p): the order of the two keys' verb classes over the corpus, then in the
# dish's recipes, then the keys' order over the corpus, in the dish's family and in the dish. A pair's log-odds
# of the order the recipe has, llr = log p / (1 - p); the recipe's score z = Σ llr / √Σ llr² is ~0 for a random
# order of the same actions (each pair as likely either way) and grows with the recipe's length for a recipe in
# the usual order. Two readings are compared with how low real recipes (held out) read (``CALIBRATION``): the
# score against its length, u = z - SLOPE_Z √pairs, and the strongest single violation against the number of
# pairs it was the lowest of, w = min llr + SLOPE_MIN log(1 + pairs). The recipe's confidence that it is out of
# order is 1 - the share of real recipes reading as low on either.

PRIOR_VERB = 1.0  # pseudo-recipes of the corpus's verb level around 1/2
PRIOR = 2.0  # pseudo-recipes of each finer level around the coarser level's p


def verb_of(key: str) -> str:
    return key.split("|", 1)[0]


@dataclass
class PairCounts:
    """Counts of one level: recipes with x strictly before y, minus the held-out ones (``minus``)."""

    name: str
    counts: Counter
    minus: Counter = field(default_factory=Counter)

    def n(self, x: str, y: str) -> int:
        return self.counts.get((x, y), 0) - self.minus.get((x, y), 0)


@dataclass
class PairOrder:
    """How likely a pair's order is: p = P(x before y) after backoff, and the most specific level's evidence."""

    x: str
    y: str
    p: float
    level: str  # the most specific level with recipes ordering the two (verb, dish verb: only their verbs')
    n_before: int  # recipes at that level with every x before every y
    n_after: int
    ci_low: float  # 95% interval of p (the Beta posterior at that level, normal approximation)
    ci_high: float

    @property
    def llr(self) -> float:
        return math.log(self.p / (1 - self.p))


class OrderModel:
    """Pairwise order statistics with backoff dish → family → global (``levels``, most specific first, on keys)
    → the same on class keys (``classes``: the typed key lifted to the release's classes, where given) → dish
    verbs → verbs (``verbs``, most specific first, on verb classes)."""

    def __init__(
        self,
        levels: Sequence[PairCounts],
        verbs: Sequence[PairCounts],
        prior: float = PRIOR,
        prior_verb: float = PRIOR_VERB,
        classes: Sequence[PairCounts] = (),
    ):
        self.levels = list(levels)
        self.verbs = list(verbs)
        self.classes = list(classes)
        self.prior = prior
        self.prior_verb = prior_verb

    def pair(self, x: str, y: str, cx: str | None = None, cy: str | None = None) -> PairOrder | None:
        """P(x before y) (class keys cx, cy) and its evidence; None when no recipe of the corpus orders the two
        (nor their classes, nor their verbs)."""
        vx, vy = verb_of(x), verb_of(y)
        p, best, first = 0.5, None, True
        steps = [(lv, vx, vy) for lv in reversed(self.verbs)]
        if cx is not None and cy is not None:
            steps += [(lv, cx, cy) for lv in reversed(self.classes)]
        steps += [(lv, x, y) for lv in reversed(self.levels)]
        for lv, a_, b_ in steps:  # coarse to fine
            k, r = (lv.n(a_, b_), lv.n(b_, a_)) if a_ != b_ else (0, 0)
            w = self.prior_verb if first else self.prior
            first = False
            a, b = k + w * p, r + w * (1 - p)
            p = a / (a + b)
            if k + r:
                best = (lv.name, k, r, a, b)
        if best is None:
            return None
        name, k, r, a, b = best
        sd = math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
        return PairOrder(x, y, p, name, k, r, max(0.0, p - Z95 * sd), min(1.0, p + Z95 * sd))


def _cdf(table: Sequence[tuple[float, float]], v: float) -> float:
    """The share of real recipes reading at most ``v``, interpolated in a table [(value, share)] by value."""
    if v <= table[0][0]:
        return table[0][1]
    for (v0, c0), (v1, c1) in zip(table, table[1:]):
        if v <= v1:
            return c0 + (c1 - c0) * (v - v0) / (v1 - v0) if v1 > v0 else c1
    return 1.0


# Chosen on the demo graph's even-numbered dishes, held out (benchmarks/bench_order_check.py, method scored):
SLOPE_Z = 0.3
SLOPE_MIN = 2.0
# how low those dishes' real recipes read, knowledge estimated without each recipe's fold: [(value, share)]
CALIBRATION: dict[str, list[tuple[float, float]]] = {
    "u": [
        (-5.854, 0.001),
        (-4.262, 0.0025),
        (-3.383, 0.005),
        (-2.736, 0.01),
        (-2.185, 0.015),
        (-1.9, 0.02),
        (-1.396, 0.025),
        (-1.3, 0.03),
        (-0.931, 0.04),
        (-0.6308, 0.05),
        (-0.1803, 0.075),
        (0.1805, 0.1),
        (1.071, 0.2),
        (1.635, 0.3),
        (2.591, 0.5),
        (12.06, 1.0),
    ],
    "w": [
        (-3.759, 0.001),
        (-3.521, 0.0025),
        (-2.057, 0.005),
        (-0.8955, 0.01),
        (0.1024, 0.015),
        (0.3305, 0.02),
        (0.8167, 0.025),
        (0.9462, 0.03),
        (1.314, 0.04),
        (1.574, 0.05),
        (2.25, 0.075),
        (2.586, 0.1),
        (3.751, 0.2),
        (4.497, 0.3),
        (5.541, 0.5),
        (11.99, 1.0),
    ],
}
MIN_RECIPE_CONFIDENCE = 0.9775  # flag (exit 4) from this recipe confidence (chosen with step_swaps' cut)


@dataclass
class RecipeScore(_ViolationsAsDicts):
    """A whole recipe scored: the pairs it orders that the corpus informs (``pairs``), its score z, its lowest
    llr, the confidence that it is out of order, and the violations (pairs surely in the less likely order)."""

    violations: list[ScoredViolation]
    pairs: int
    z: float
    min_llr: float
    confidence: float
    flagged: bool
    min_confidence: float


def recipe_stats(
    keys: Sequence[str], model: OrderModel, classes: Sequence[str] | None = None
) -> tuple[list[tuple[str, str, PairOrder]], float, float]:
    """(the informative pairs (x, y, its order) with x strictly before y, z, the lowest llr); ``classes``: each
    action's class key, for the model's class levels."""
    cls = dict(zip(keys, classes)) if classes is not None else {}
    found = []
    for x, y in strict_pairs(keys):
        po = model.pair(x, y, cls.get(x), cls.get(y))
        if po is not None:
            found.append((x, y, po))
    if not found:
        return found, 0.0, 0.0
    ls = [po.llr for _, _, po in found]
    q = math.sqrt(sum(v * v for v in ls)) or 1.0
    return found, sum(ls) / q, min(ls)


def readings(
    z: float, min_llr: float, pairs: int, slope_z: float = SLOPE_Z, slope_min: float = SLOPE_MIN
) -> tuple[float, float]:
    """(u, w): the score against the recipe's length, the strongest violation against its number of pairs."""
    return z - slope_z * math.sqrt(pairs), min_llr + slope_min * math.log1p(pairs)


def recipe_confidence(u: float, w: float, calibration: Mapping[str, Sequence[tuple[float, float]]]) -> float:
    """1 - the share of real recipes reading as low, on u or on w (the larger)."""
    return max(1 - _cdf(calibration["u"], u), 1 - _cdf(calibration["w"], w))


def score_recipe(
    keys: Sequence[str],
    model: OrderModel,
    phrases: Sequence[str] | None = None,
    min_confidence: float = MIN_RECIPE_CONFIDENCE,
    calibration: Mapping[str, Sequence[tuple[float, float]]] | None = None,
    max_violations: int = 20,
    classes: Sequence[str] | None = None,
) -> RecipeScore:
    """Score the whole recipe (repeats aligned); violations: pairs whose reverse order is surely the likelier
    (the 95% interval of p(cause before effect) above 1/2, and the recipe has every effect before every cause),
    surest first. The score and the confidence read every informative pair, violation or not."""
    found, z, m = recipe_stats(keys, model, classes)
    conf = recipe_confidence(*readings(z, m, len(found)), calibration or CALIBRATION) if found else 0.0
    sp = spans(keys)
    viol = []
    for x, y, po in found:
        if po.ci_high >= 0.5:
            continue  # the recipe's order is the likelier one, or not surely the less likely
        # the constraint is y -> x (p(y before x) = 1 - p); the recipe puts every x before every y
        viol.append(
            ScoredViolation(
                y,
                x,
                po.level,
                round(1 - po.ci_high, 4),
                po.n_after,
                po.n_before,
                round(1 - 2 * po.p, 4),
                round(1 - 2 * po.ci_high, 4),
                round(1 - 2 * po.ci_low, 4),
                None,
                sp[y][0],
                sp[x][1],
                phrases[sp[y][0]] if phrases else "",
                phrases[sp[x][1]] if phrases else "",
            )
        )
    viol.sort(key=lambda v: (-v.ate, v.effect_pos, v.cause_pos))
    return RecipeScore(
        viol[:max_violations], len(found), round(z, 4), round(m, 4), round(conf, 4), conf >= min_confidence,
        min_confidence,
    )  # fmt: skip
