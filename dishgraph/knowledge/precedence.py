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


@dataclass
class RecipeCheck:
    """A whole recipe checked: every kept constraint among its actions, kept or broken, and a verdict."""

    violations: list[ScoredViolation]
    applicable: int  # kept constraints with both actions in the recipe, strictly ordered
    disorder: float  # weighted share of those the recipe breaks (weights: log-odds of the constraint)
    confidence: float  # how sure the recipe is out of order: the larger of the best violation and the share
    flagged: bool
    min_confidence: float

    def to_dict(self) -> dict:
        d = asdict(self)
        d["violations"] = [v.to_dict() for v in self.violations]
        return d


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
