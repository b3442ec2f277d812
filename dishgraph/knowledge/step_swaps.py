"""Two dependent steps in each other's places: read from which actions follow which.

A swap of two steps that share a food (cut the potato where it should be fried, fry it where it should be cut)
moves few of a recipe's pairs, and the pairwise order counts (`precedence`) read most such pairs as only
usually ordered, so one swap rarely reads worse than a real recipe's own quirks. What a swap also breaks is the
neighbourhood of both steps: "切|土豆|" now follows "出锅|菜|" and precedes "装盘|菜|". A trigram model of the
corpus's action sequences (typed keys, backing off to verbs) reads that, and so does where each key is
usually done (washing near the start, plating at the end). The recipe's *swap gain* is the largest gain that
swapping one pair of dependent steps back would bring: in log-likelihood, plus `PLACE_WEIGHT` times the squared
distances from their usual places saved. A real recipe is about as likely as its best single edit; a swapped
one gains much from the swap that undoes it.

Dependent steps are those a swap of the benchmark moves (`benchmarks/bench_order_check.py`): two actions in
different sentences whose release keys have different verbs and share an ingredient class. The model counts
the whole corpus and, on top of it, the checked dish's recipes (absolute discounting, interpolated). The flag
line `SWAP_GAIN_CUT` and the thresholds beside it were chosen held out on the demo graph's even-numbered
dishes (benchmarks/bench_order_check.py, method swap).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass

from dishgraph.actions import ProtoAction
from dishgraph.knowledge.precedence import verb_of  # START and END are their own verbs

START, END = "<s>", "</s>"
DISCOUNT = 0.9  # absolute discount of the trigram, bigram and dish layers
VERB_PRIOR = 0.5  # pseudo-count of each verb in the verb unigram
KEY_PRIOR = 0.1  # pseudo-count of a key given its verb (out of KEY_PRIOR_TOTAL)
KEY_PRIOR_TOTAL = 5.0
PLACE_PRIOR = 3.0  # pseudo-recipes of the coarser place (the verb's, the middle; the corpus's for a dish)
PLACE_WEIGHT = 30.0  # the place gain's weight beside the log-likelihood gain (chosen on the even dishes)

# chosen on the even-numbered dishes (benchmarks/results/order_check.json, "swap"): flag when the swap gain is
# above this (the share of those dishes' real recipes in the name)
SWAP_GAIN_CUT = 17.1902  # a text: 2% of real recipes read above it (with TEXT_CUT at 2% and the score at 0.995)
SWAP_GAIN_CUT_ACTIONS = 20.4554  # an action sequence, every action its own sentence: 1% (the score at 0.9775)


class ActionTrigrams:
    """An interpolated absolute-discount trigram model of action keys: P(c | a, b) backs off to P(c | b), which
    backs off to P(verb(c) | verb(b)) · P(c | verb(c)), so an unseen key still reads by its verb."""

    def __init__(self, sequences: Iterable[Sequence[str]]) -> None:
        self.tri: Counter = Counter()
        self.bi: Counter = Counter()
        self.vbi: Counter = Counter()
        self.key: Counter = Counter()
        self.verb: Counter = Counter()
        for seq in sequences:  # Counter.update counts an iterable in C: a corpus in about a second
            t = [START, START, *seq, END]
            v = [verb_of(k) for k in t]
            self.tri.update(zip(t, t[1:], t[2:]))
            self.bi.update(zip(t[1:], t[2:]))
            self.vbi.update(zip(v[1:], v[2:]))
            self.key.update(t[2:])
            self.verb.update(v[2:])
        self.tri_ctx, self.tri_types = _contexts(self.tri)
        self.bi_ctx, self.bi_types = _contexts(self.bi)
        self.vbi_ctx, self.vbi_types = _contexts(self.vbi)
        self.verbs_total = sum(self.verb.values())
        self._cache: dict[tuple[str, str, str], float] = {}

    def _p_verb(self, vb: str, vc: str) -> float:
        uni = (self.verb[vc] + VERB_PRIOR) / (self.verbs_total + VERB_PRIOR * (len(self.verb) + 1))
        return _interpolate(self.vbi[(vb, vc)], self.vbi_ctx[vb], self.vbi_types[vb], uni)

    def p_bigram(self, b: str, c: str) -> float:
        vc = verb_of(c)
        low = self._p_verb(verb_of(b), vc)
        if c != END:
            low *= (self.key[c] + KEY_PRIOR) / (self.verb[vc] + KEY_PRIOR_TOTAL)
        return _interpolate(self.bi[(b, c)], self.bi_ctx[b], self.bi_types[b], low)

    def p(self, a: str, b: str, c: str) -> float:
        return _interpolate(self.tri[(a, b, c)], self.tri_ctx[(a, b)], self.tri_types[(a, b)], self.p_bigram(b, c))

    def logp(self, a: str, b: str, c: str) -> float:
        k = (a, b, c)
        r = self._cache.get(k)
        if r is None:
            r = self._cache[k] = math.log(self.p(a, b, c))
        return r


class DishTrigrams:
    """The dish's own trigrams over the corpus model: where the dish's recipes have seen a context, their
    continuations weigh most."""

    def __init__(self, corpus: ActionTrigrams, sequences: Iterable[Sequence[str]]) -> None:
        self.corpus = corpus
        self.tri: Counter = Counter()
        for seq in sequences:
            t = [START, START, *seq, END]
            self.tri.update(zip(t, t[1:], t[2:]))
        self.ctx, self.types = _contexts(self.tri)
        self._cache: dict[tuple[str, str, str], float] = {}

    def logp(self, a: str, b: str, c: str) -> float:
        k = (a, b, c)
        r = self._cache.get(k)
        if r is None:
            low = self.corpus.p(a, b, c)
            r = self._cache[k] = math.log(_interpolate(self.tri[k], self.ctx[(a, b)], self.types[(a, b)], low))
        return r


def _contexts(counts: Counter) -> tuple[Counter, Counter]:
    ctx: Counter = Counter()
    types: Counter = Counter()
    for k, n in counts.items():
        ctx[k[:-1] if len(k) > 2 else k[0]] += n
        types[k[:-1] if len(k) > 2 else k[0]] += 1
    return ctx, types


def _interpolate(count: int, context: int, types: int, lower: float) -> float:
    if not context:
        return lower
    return max(count - DISCOUNT, 0.0) / context + DISCOUNT * types / context * lower


def dependent_pairs(release_keys: Sequence[str], units: Sequence[object]) -> Iterator[tuple[int, int]]:
    """(i, j), i < j: two actions in different sentences (``units``) whose release keys differ in verb and share
    an ingredient class. A generator: a recipe at the check's cap of actions has a million and more."""
    protos = [ProtoAction.from_key(k) for k in release_keys]
    for i, pi in enumerate(protos):
        for j in range(i + 1, len(protos)):
            pj = protos[j]
            if units[i] != units[j] and release_keys[i] != release_keys[j]:
                if pi.verb != pj.verb and pi.ingredients & pj.ingredients:
                    yield (i, j)


@dataclass
class SwapReading:
    """The largest gain in log-likelihood from swapping one dependent pair back, and that pair."""

    gain: float | None  # None: no dependent pair to swap
    first: int | None = None  # the pair's positions in the recipe's actions
    second: int | None = None
    cut: float = SWAP_GAIN_CUT
    flagged: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


class KeyPlaces:
    """Where in a recipe each key is usually done (its mean relative place, 0 first, 1 last), shrunk toward
    its verb's and that toward the middle; ``dish`` recipes, when given, shrunk toward the corpus's."""

    def __init__(self, sequences: Iterable[Sequence[str]], corpus: KeyPlaces | None = None) -> None:
        self.corpus = corpus
        self.key_sum: Counter = Counter()
        self.key_n: Counter = Counter()
        self.verb_sum: Counter = Counter()
        self.verb_n: Counter = Counter()
        for seq in sequences:
            if len(seq) < 2:
                continue
            for i, k in enumerate(seq):
                x = i / (len(seq) - 1)
                self.key_sum[k] += x
                self.key_n[k] += 1
                self.verb_sum[verb_of(k)] += x
                self.verb_n[verb_of(k)] += 1
        self._cache: dict[str, float] = {}

    def place(self, key: str) -> float:
        r = self._cache.get(key)
        if r is None:
            if self.corpus is not None:
                prior = self.corpus.place(key)
            else:
                v = verb_of(key)
                prior = (self.verb_sum[v] + 0.5 * PLACE_PRIOR) / (self.verb_n[v] + PLACE_PRIOR)
            r = self._cache[key] = (self.key_sum[key] + PLACE_PRIOR * prior) / (self.key_n[key] + PLACE_PRIOR)
        return r


@dataclass
class SwapModel:
    """What the swap reading reads: the action trigrams and the keys' usual places."""

    trigrams: ActionTrigrams | DishTrigrams
    places: KeyPlaces
    place_weight: float = PLACE_WEIGHT

    @classmethod
    def of(cls, corpus: Iterable[Sequence[str]], dish: Iterable[Sequence[str]], base: tuple | None = None) -> SwapModel:
        """The model of a corpus with a dish's recipes on top; ``base`` = (ActionTrigrams, KeyPlaces) of the
        same corpus when already counted."""
        if base is None:
            corpus = [list(s) for s in corpus]
            base = (ActionTrigrams(corpus), KeyPlaces(corpus))
        dish = [list(s) for s in dish]
        return cls(DishTrigrams(base[0], dish), KeyPlaces(dish, base[1]))


def pair_gains(
    model: SwapModel, keys: Sequence[str], pairs: Iterable[tuple[int, int]]
) -> Iterator[tuple[int, int, float, float]]:
    """(i, j, log-likelihood gain, place gain) of swapping each pair: log P(keys with the pair swapped) −
    log P(keys) (only the trigrams around the two positions change, so a pair costs a few lookups), and how
    much closer to their usual places the two keys would sit (the squared distances saved); a generator."""
    t = [START, START, *keys, END]
    n = max(1, len(keys) - 1)
    for i, j in pairs:
        a, b = i + 2, j + 2
        at = sorted({x for p in (a, b) for x in range(p, min(len(t), p + 3))})
        before = sum(model.trigrams.logp(t[x - 2], t[x - 1], t[x]) for x in at)
        t[a], t[b] = t[b], t[a]
        after = sum(model.trigrams.logp(t[x - 2], t[x - 1], t[x]) for x in at)
        t[a], t[b] = t[b], t[a]
        ri, rj = i / n, j / n
        pi, pj = model.places.place(keys[i]), model.places.place(keys[j])
        place = (ri - pi) ** 2 + (rj - pj) ** 2 - (ri - pj) ** 2 - (rj - pi) ** 2
        yield (i, j, after - before, place)


def best_swap(gains: Iterable[tuple[int, int, float, float]], weight: float) -> tuple[float | None, int, int]:
    """The swap of the largest gain, log-likelihood + ``weight`` · place, and its pair."""
    best: tuple[float | None, int, int] = (None, -1, -1)
    for i, j, lm, place in gains:
        g = lm + weight * place
        if best[0] is None or g > best[0]:
            best = (g, i, j)
    return best


def read_swaps(
    model: SwapModel, keys: Sequence[str], release_keys: Sequence[str], units: Sequence[object], cut: float
) -> SwapReading:
    """The recipe's swap gain over its dependent pairs, flagged above ``cut``."""
    gain, i, j = best_swap(pair_gains(model, keys, dependent_pairs(release_keys, units)), model.place_weight)
    if gain is None:
        return SwapReading(None, cut=cut)
    return SwapReading(round(gain, 4), i, j, cut, gain > cut)
