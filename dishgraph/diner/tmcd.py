"""TMCD splits (Shaw et al., 2021) as DiNeR builds them: maximise compound divergence, keep atoms covered.

Divergence between the train compound distribution p and the test distribution q is one minus the
Chernoff coefficient, ``D = 1 - sum_k p_k^a q_k^(1-a)``: a = 0.1 for compounds, 0.5 for atoms. The search
is the greedy swap of google-research ``language/compgen/nqg/tasks/mcd_utils.py``:

1. seeded shuffle, cut at the requested train:test ratio (DiNeR: 4.5 : 1);
2. *balance atoms*: while some test atom occurs in fewer than ``min_atom_count`` training examples, swap
   the first training example with no rare atom against the first test example holding a missing atom;
3. *maximise*: find the first training example (scanning from just after the last swap) whose move to test
   raises D without taking a training atom below ``min_atom_count``; then the first test example whose move
   back still leaves D above its value before the pair; swap them; stop at the target divergence (DiNeR:
   0.6 / 0.8 / 0.98) or when no such pair exists.

Two implementations of step 3 make the same decisions. ``method="naive"`` copies the compound counters and
recomputes D from scratch for every candidate, as the first reference version did. ``method="fast"``
keeps the counts, their sums and the numerator ``sum_k c1_k^a c2_k^(1-a)`` up to date, so a candidate
costs only its own compounds (a dish name has a handful); the numerator is re-summed every few swaps so
rounding cannot drift. Comparisons use a 1e-12 margin in both, so equal divergences never count as a gain.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Collection, Hashable, Sequence
from dataclasses import asdict, dataclass, field

from dishgraph.diner.names import compound_keys

COMPOUND_ALPHA = 0.1
ATOM_ALPHA = 0.5
EPS = 1e-12
RESUM_EVERY = 64


def chernoff_divergence(counts_1: dict, counts_2: dict, alpha: float = COMPOUND_ALPHA) -> float:
    """``1 - sum_k p_k^alpha q_k^(1-alpha)`` with p, q the normalised counts (1.0 if either is empty)."""
    s1, s2 = sum(counts_1.values()), sum(counts_2.values())
    if not s1 or not s2:
        return 1.0
    num = sum(c1**alpha * counts_2[k] ** (1.0 - alpha) for k, c1 in counts_1.items() if c1 and counts_2.get(k))
    return 1.0 - num / (s1**alpha * s2 ** (1.0 - alpha))


def count_all(sets: Sequence[Collection[Hashable]], members: Sequence[int]) -> Counter:
    c: Counter = Counter()
    for i in members:
        c.update(sets[i])
    return c


@dataclass
class Split:
    """The result: example indices per part (in the search's final order) and the measured figures."""

    train: list[int]
    test: list[int]
    divergence: float
    atom_divergence: float
    initial_divergence: float  # after atom balancing, before maximising
    seed: int | None
    ratio: float
    target_divergence: float | None
    swaps: int
    balance_swaps: int
    stopped: str  # "target" | "no-improving-swap" | "max-iterations"
    atoms_covered: bool  # every test atom occurs in >= min_atom_count training examples
    test_compounds_seen: float  # share of distinct test compounds that also occur in train
    seconds: float
    method: str
    names: list[str] = field(default_factory=list)  # optional labels of the examples

    @property
    def train_names(self) -> list[str]:
        return [self.names[i] for i in self.train]

    @property
    def test_names(self) -> list[str]:
        return [self.names[i] for i in self.test]

    def summary(self) -> dict:
        d = asdict(self)
        for k in ("train", "test", "names"):
            d.pop(k)
        d.update(n_train=len(self.train), n_test=len(self.test))
        return d


def tmcd_split(
    atoms: Sequence[Collection[Hashable]],
    compounds: Sequence[Collection[Hashable]] | None = None,
    *,
    ratio: float = 4.5,
    target_divergence: float | None = None,
    seed: int | None = 1,
    max_iterations: int | None = None,
    min_atom_count: int = 1,
    alpha: float = COMPOUND_ALPHA,
    initial: tuple[Sequence[int], Sequence[int]] | None = None,
    method: str = "fast",
    names: Sequence[str] | None = None,
    restarts: int = 1,
    progress: Callable[[int, float], None] | None = None,
) -> Split:
    """Split examples (given by their atom sets, and compound sets or all >=2-atom subsets) by TMCD.

    ``initial`` = (train indices, test indices) replaces the seeded shuffle (the reference unit test
    starts from a fixed split). The greedy search depends on its starting split, which matters on small
    sets: ``restarts`` > 1 tries seeds ``seed, seed + 1, ...`` and keeps the first split that reaches the
    target (else the most divergent); ``Split.seed`` says which one. ``progress(swaps, divergence)`` is
    called after every swap.
    """
    if restarts < 1:
        raise ValueError(f"restarts must be >= 1, got {restarts}")
    # A given start split, or no seed to vary, leaves one attempt; otherwise seeds seed .. seed + restarts - 1.
    seeds = [seed] if initial is not None or seed is None else range(seed, seed + restarts)
    t0 = time.perf_counter()
    best: Split | None = None
    for s in seeds:
        split = _tmcd_once(
            atoms,
            compounds,
            ratio,
            target_divergence,
            s,
            max_iterations,
            min_atom_count,
            alpha,
            initial,
            method,
            names,
            progress,
        )
        if best is None or split.divergence > best.divergence:
            best = split
        if target_divergence is not None and best.divergence >= target_divergence:
            break
    assert best is not None  # seeds is never empty (restarts >= 1)
    best.seconds = time.perf_counter() - t0
    return best


def _tmcd_once(
    atoms,
    compounds,
    ratio,
    target_divergence,
    seed,
    max_iterations,
    min_atom_count,
    alpha,
    initial,
    method,
    names,
    progress,
) -> Split:
    t0 = time.perf_counter()
    n = len(atoms)
    if compounds is None:
        compounds = [compound_keys(a) for a in atoms]
    if len(compounds) != n:
        raise ValueError(f"{n} atom sets but {len(compounds)} compound sets")
    if method not in ("fast", "naive"):
        raise ValueError(f"method must be 'fast' or 'naive', not {method!r}")
    atom_ids, comp_ids = _index(atoms), _index(compounds)
    if initial is not None:
        ex1, ex2 = list(initial[0]), list(initial[1])
        if sorted(ex1 + ex2) != list(range(n)):
            raise ValueError("initial split must use every example index exactly once")
    else:
        if ratio <= 0:
            raise ValueError(f"ratio (train:test) must be positive, got {ratio}")
        order = list(range(n))
        random.Random(seed).shuffle(order)
        n_test = max(1, round(n / (ratio + 1))) if n > 1 else 0
        ex1, ex2 = order[: n - n_test], order[n - n_test :]
    if not ex1 or not ex2:
        raise ValueError(f"need at least one example on each side (got {len(ex1)} train, {len(ex2)} test)")

    balance_swaps = _balance_atoms(ex1, ex2, atom_ids, min_atom_count, fast=(method == "fast"))
    search = _FastSearch if method == "fast" else _NaiveSearch
    s = search(ex1, ex2, atom_ids, comp_ids, alpha, min_atom_count)
    initial_divergence = s.divergence()
    swaps, stopped = s.run(target_divergence, max_iterations, progress)

    c1, c2 = count_all(comp_ids, ex1), count_all(comp_ids, ex2)
    a1, a2 = count_all(atom_ids, ex1), count_all(atom_ids, ex2)
    seen = len(set(c2) & set(c1)) / len(c2) if c2 else 0.0
    return Split(
        train=list(ex1),
        test=list(ex2),
        divergence=chernoff_divergence(c1, c2, alpha),
        atom_divergence=chernoff_divergence(a1, a2, ATOM_ALPHA),
        initial_divergence=initial_divergence,
        seed=None if initial is not None else seed,
        ratio=ratio,
        target_divergence=target_divergence,
        swaps=swaps,
        balance_swaps=balance_swaps,
        stopped=stopped,
        atoms_covered=all(a1[a] >= min_atom_count for a in a2),
        test_compounds_seen=seen,
        seconds=time.perf_counter() - t0,
        method=method,
        names=list(names) if names is not None else [],
    )


def _index(sets: Sequence[Collection[Hashable]]) -> list[tuple[int, ...]]:
    """Sets of hashables -> tuples of small ints (deduplicated, in first-seen order)."""
    ids: dict[Hashable, int] = {}
    out = []
    for s in sets:
        out.append(tuple(dict.fromkeys(ids.setdefault(x, len(ids)) for x in s)))
    return out


def _balance_atoms(ex1: list[int], ex2: list[int], atoms: list[tuple[int, ...]], min_count: int, fast: bool) -> int:
    """Step 2 (reference ``balance_atoms``): swap until every test atom is in train ``min_count`` times."""
    counts = count_all(atoms, ex1)
    for it in range(len(ex1) + len(ex2) + 1):
        if not fast:
            counts = count_all(atoms, ex1)  # the reference recounts every iteration
        missing = next((p for p, e in enumerate(ex2) if any(counts[a] < min_count for a in atoms[e])), None)
        if missing is None:
            return it
        give = next((p for p, e in enumerate(ex1) if not any(counts[a] <= min_count for a in atoms[e])), None)
        if give is None:
            raise ValueError(
                "cannot balance atoms: every training example holds an atom that training "
                "needs to keep; use a smaller test share or min_atom_count"
            )
        e1, e2 = ex1.pop(give), ex2.pop(missing)
        ex1.append(e2)
        ex2.append(e1)
        for a in atoms[e1]:
            counts[a] -= 1
        for a in atoms[e2]:
            counts[a] += 1
    raise ValueError("cannot balance atoms: no progress after one pass over all examples")


class _Search:
    """Shared loop of step 3; subclasses price candidate moves and apply them."""

    def __init__(self, ex1, ex2, atoms, comps, alpha, min_count):
        self.ex1, self.ex2, self.atoms, self.comps = ex1, ex2, atoms, comps
        self.alpha, self.min_count = alpha, min_count

    def run(self, target, max_iterations, progress) -> tuple[int, str]:
        start1 = start2 = swaps = 0
        while max_iterations is None or swaps < max_iterations:
            d = self.divergence()
            if target is not None and d >= target:
                return swaps, "target"
            self.begin_iteration()
            hit1 = self.find(self.ex1, start1, d, from_train=True)
            if hit1 is None:
                return swaps, "no-improving-swap"
            p1, e1 = hit1
            self.move(e1, from_train=True)
            hit2 = self.find(self.ex2, start2, d, from_train=False)
            if hit2 is None:
                self.move(e1, from_train=False)  # undo: nothing is swapped
                return swaps, "no-improving-swap"
            p2, e2 = hit2
            self.move(e2, from_train=False)
            self.swapped(e1, e2)
            self.ex1[p1], self.ex2[p2] = e2, e1
            start1, start2 = (p1 + 1) % len(self.ex1), (p2 + 1) % len(self.ex2)
            swaps += 1
            if progress:
                progress(swaps, self.divergence())
        return swaps, "max-iterations"

    def find(self, examples, start, d, from_train):
        n = len(examples)
        for j in range(n):
            p = (start + j) % n
            e = examples[p]
            if from_train and self.holds_rare_atom(e):
                continue
            if self.divergence_after(e, from_train) > d + EPS:
                return p, e
        return None

    def begin_iteration(self):
        pass

    def swapped(self, e1, e2):
        pass


class _NaiveSearch(_Search):
    """Recompute everything: counters copied and D summed over all compounds for every candidate."""

    def __init__(self, *args):
        super().__init__(*args)
        self.c1, self.c2 = count_all(self.comps, self.ex1), count_all(self.comps, self.ex2)

    def divergence(self):
        return chernoff_divergence(self.c1, self.c2, self.alpha)

    def begin_iteration(self):
        a1 = count_all(self.atoms, self.ex1)
        self.rare = {a for a, c in a1.items() if c <= self.min_count}

    def holds_rare_atom(self, e):
        return any(a in self.rare for a in self.atoms[e])

    def divergence_after(self, e, from_train):
        c1, c2 = self.c1.copy(), self.c2.copy()
        if from_train:
            c1.subtract(self.comps[e])
            c2.update(self.comps[e])
        else:
            c2.subtract(self.comps[e])
            c1.update(self.comps[e])
        return chernoff_divergence(c1, c2, self.alpha)

    def move(self, e, from_train):
        src, dst = (self.c1, self.c2) if from_train else (self.c2, self.c1)
        src.subtract(self.comps[e])
        dst.update(self.comps[e])


class _FastSearch(_Search):
    """Incremental: counts, sums and the Chernoff numerator updated per moved compound only."""

    def __init__(self, *args):
        super().__init__(*args)
        n_comp = 1 + max((k for c in self.comps for k in c), default=-1)
        n_atom = 1 + max((a for at in self.atoms for a in at), default=-1)
        self.c1, self.c2 = [0] * n_comp, [0] * n_comp
        for e in self.ex1:
            for k in self.comps[e]:
                self.c1[k] += 1
        for e in self.ex2:
            for k in self.comps[e]:
                self.c2[k] += 1
        self.a1 = [0] * n_atom
        for e in self.ex1:
            for a in self.atoms[e]:
                self.a1[a] += 1
        total = sum(self.c1) + sum(self.c2)
        a = self.alpha
        self.pa = [x**a for x in range(total + 2)]  # x^alpha
        self.pb = [x ** (1.0 - a) for x in range(total + 2)]  # x^(1-alpha)
        self.s1, self.s2 = sum(self.c1), sum(self.c2)
        self._resum()
        self.moves = 0

    def _resum(self):
        pa, pb = self.pa, self.pb
        self.num = sum(pa[x] * pb[y] for x, y in zip(self.c1, self.c2) if x and y)

    def _div(self, num, s1, s2):
        if s1 <= 0 or s2 <= 0:
            return 1.0
        return 1.0 - num / (self.pa[s1] * self.pb[s2])

    def divergence(self):
        return self._div(self.num, self.s1, self.s2)

    def holds_rare_atom(self, e):
        a1, m = self.a1, self.min_count
        return any(a1[a] <= m for a in self.atoms[e])

    def divergence_after(self, e, from_train):
        pa, pb, c1, c2 = self.pa, self.pb, self.c1, self.c2
        ks = self.comps[e]
        dn = 0.0
        if from_train:
            for k in ks:
                x, y = c1[k], c2[k]
                dn += pa[x - 1] * pb[y + 1] - pa[x] * pb[y]
            return self._div(self.num + dn, self.s1 - len(ks), self.s2 + len(ks))
        for k in ks:
            x, y = c1[k], c2[k]
            dn += pa[x + 1] * pb[y - 1] - pa[x] * pb[y]
        return self._div(self.num + dn, self.s1 + len(ks), self.s2 - len(ks))

    def move(self, e, from_train):
        pa, pb, c1, c2 = self.pa, self.pb, self.c1, self.c2
        ks = self.comps[e]
        step = -1 if from_train else 1
        for k in ks:
            x, y = c1[k], c2[k]
            self.num += pa[x + step] * pb[y - step] - pa[x] * pb[y]
            c1[k], c2[k] = x + step, y - step
        self.s1 += step * len(ks)
        self.s2 -= step * len(ks)
        self.moves += 1
        if self.moves % RESUM_EVERY == 0:
            self._resum()

    def swapped(self, e1, e2):
        for a in self.atoms[e1]:
            self.a1[a] -= 1
        for a in self.atoms[e2]:
            self.a1[a] += 1
