"""Generated corpora with planted answers: pivot differences between dish pairs, order dependencies.

Real recipes have no ground truth for pivots or causal order, so mining and estimation are verified on
corpora whose answer is known by construction, then loaded through the ordinary loader like real data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dishgraph.actions import Action, ProtoAction
from dishgraph.graph.base import GraphStore
from dishgraph.ingest import loader
from dishgraph.knowledge.pivots import PivotThresholds, classify, pair_key

SOURCE = "planted"


@dataclass
class PlantedCorpus:
    """Dish -> recipes (ordered proto-action lists) plus what was planted."""

    recipes: dict[str, list[list[ProtoAction]]] = field(default_factory=dict)
    pairs: list[tuple[str, str]] = field(default_factory=list)
    pivots: dict[str, dict[str, str]] = field(default_factory=dict)  # pair key -> action key -> kind
    edges: dict[str, set[tuple[str, str]]] = field(default_factory=dict)  # dish -> direct (cause, effect)
    ancestors: dict[str, set[tuple[str, str]]] = field(default_factory=dict)  # dish -> transitive closure

    def n_recipes(self) -> int:
        return sum(len(v) for v in self.recipes.values())


def proto(i: int, tag: str = "") -> ProtoAction:
    """A synthetic proto-action with its own verb and ingredient class (keys never collide with real ones)."""
    return ProtoAction(f"动作{tag}{i}", frozenset({f"食材{tag}{i}"}), frozenset())


def recipes_from_counts(
    counts: dict[ProtoAction, int], n_recipes: int, rank: dict[ProtoAction, float], rng: np.random.Generator
) -> list[list[ProtoAction]]:
    """Recipes in which each action occurs in exactly ``counts[a]`` of them (so f_d(a) is exact)."""
    recipes: list[list[ProtoAction]] = [[] for _ in range(n_recipes)]
    for a, c in counts.items():
        for j in rng.choice(n_recipes, size=c, replace=False):
            recipes[int(j)].append(a)
    return [sorted(r, key=lambda a: rank[a]) for r in recipes]


def planted_pivot_corpus(
    n_pairs: int = 5, n_recipes: int = 50, seed: int = 0, thresholds: PivotThresholds = PivotThresholds()
) -> PlantedCorpus:
    """Pairs of dishes whose action counts put each action clearly inside one pivot class (or none).

    Per pair: shared actions (ratio within alpha), remove actions (absent in target), insert actions
    (absent in base, frequent in target), and manual ones from both sides (ratio holds, threshold fails).
    The planted kind is recomputed with ``classify`` on the exact frequencies, so truth and rule agree.
    """
    rng = np.random.default_rng(seed)
    n = n_recipes
    corpus = PlantedCorpus()
    next_id = 0
    for i in range(n_pairs):
        base, target = f"planted-base-{i}", f"planted-target-{i}"
        cb: dict[ProtoAction, int] = {}
        ct: dict[ProtoAction, int] = {}

        def new() -> ProtoAction:
            nonlocal next_id
            next_id += 1
            return proto(next_id)

        for _ in range(int(rng.integers(6, 10))):  # shared, ratio <= 2
            a, b = new(), int(rng.integers(n // 5, n // 2 + 1))
            cb[a], ct[a] = b, max(1, int(round(b * rng.uniform(0.5, 2.0))))
        for _ in range(int(rng.integers(2, 5))):  # remove: frequent in base, absent in target
            a = new()
            cb[a], ct[a] = int(rng.integers(n // 5, n // 2 + 1)), 0
        for _ in range(int(rng.integers(2, 5))):  # insert: absent in base, > tau_i in target
            a = new()
            cb[a], ct[a] = 0, int(rng.integers(max(math.ceil(2 * thresholds.tau_i * n), 1), n // 2 + 1))
        a = new()  # manual (base side): ft >= tau_r
        cb[a], ct[a] = int(0.8 * n), max(1, math.ceil(2 * thresholds.tau_r * n))
        a = new()  # manual (target side): 0 < ft <= tau_i
        cb[a], ct[a] = 0, max(1, int(thresholds.tau_i * n) // 2)
        rank = {a: float(rng.uniform()) for a in cb}
        corpus.recipes[base] = recipes_from_counts({a: c for a, c in cb.items() if c}, n, rank, rng)
        corpus.recipes[target] = recipes_from_counts({a: c for a, c in ct.items() if c}, n, rank, rng)
        corpus.pairs.append((base, target))
        truth = {}
        for a in cb:
            kind = classify(cb[a] / n, ct[a] / n, thresholds)
            if kind:
                truth[a.key] = kind
        corpus.pivots[pair_key(base, target)] = truth
    return corpus


def planted_order_corpus(
    n_dishes: int = 50,
    n_recipes: int = 50,
    n_actions: int = 25,
    seed: int = 0,
    *,
    max_parents: int = 2,
    effect: float = 3.0,
    order_noise: float = 2.0,
) -> PlantedCorpus:
    """Dishes whose recipes follow a planted causal DAG over actions, in a noisy canonical order.

    Action k's presence is Bernoulli(sigmoid(b_k + effect * #present parents)); parents come from earlier
    actions (two shared "root" actions feed many, so candidate pairs are confounded). Steps are sorted by
    k + N(0, order_noise) and then pushed after their present parents, so planted dependencies always keep
    their order while unrelated actions appear in both orders. Truth: ``ancestors`` (a must precede b if a
    causes b directly or through a chain), ``edges`` the direct ones.
    """
    rng = np.random.default_rng(seed)
    corpus = PlantedCorpus()
    for d in range(n_dishes):
        dish = f"planted-dish-{d}"
        acts = [proto(k, tag=f"d{d}-") for k in range(n_actions)]
        parents: list[list[int]] = [[] for _ in range(n_actions)]
        for k in range(2, n_actions):
            pool = list(range(k))
            n_par = int(rng.integers(0, max_parents + 1))
            roots = [r for r in (0, 1) if rng.uniform() < 0.3]
            others = list(rng.choice(pool, size=min(n_par, len(pool)), replace=False))
            parents[k] = sorted(set(int(x) for x in roots + others))
        bias = np.array([rng.uniform(0.0, 1.0) if k < 2 else rng.uniform(-2.5, -0.5) for k in range(n_actions)])
        recipes = []
        for _ in range(n_recipes):
            present = np.zeros(n_actions, dtype=bool)
            for k in range(n_actions):
                logit = bias[k] + effect * sum(present[p] for p in parents[k])
                present[k] = rng.uniform() < 1.0 / (1.0 + math.exp(-logit))
            key = np.arange(n_actions) + rng.normal(0.0, order_noise, n_actions)
            for k in range(n_actions):
                for p in parents[k]:
                    if present[p] and present[k]:
                        key[k] = max(key[k], key[p] + 1e-3)
            order = sorted((k for k in range(n_actions) if present[k]), key=lambda k: key[k])
            recipes.append([acts[k] for k in order])
        corpus.recipes[dish] = recipes
        direct = {(acts[p].key, acts[k].key) for k in range(n_actions) for p in parents[k]}
        anc: set[tuple[str, str]] = set()
        closure = [set() for _ in range(n_actions)]
        for k in range(n_actions):
            for p in parents[k]:
                closure[k] |= {p} | closure[p]
            anc |= {(acts[p].key, acts[k].key) for p in closure[k]}
        corpus.edges[dish] = direct
        corpus.ancestors[dish] = anc
    return corpus


def load_planted(store: GraphStore, corpus: PlantedCorpus) -> int:
    """Load a planted corpus through the ordinary loader (dishes, pairs, recipes, parsed steps); #recipes."""
    loader.load_dishes(store, list(corpus.recipes) + [n for p in corpus.pairs for n in p], SOURCE)
    if corpus.pairs:
        store.write(
            "load_pairs",
            [
                {
                    "key": pair_key(b, t),
                    "base": b,
                    "target": t,
                    "change_from": "",
                    "change_to": "",
                    "change_kind": "planted",
                }
                for b, t in corpus.pairs
            ],
        )
    records, parsed = [], []
    for dish, recipes in corpus.recipes.items():
        for j, steps in enumerate(recipes):
            rid = f"{SOURCE}:{dish}:{j}"
            text = "，".join(str(a) for a in steps) + "。"
            records.append(loader.RecipeRecord(rid, dish, text, SOURCE, j))
            parsed.append(
                loader.ParsedRecipe(
                    rid,
                    [
                        Action(
                            a.verb,
                            sorted(a.ingredients),
                            sorted(a.tools),
                            proto=a,
                            phrase=f"{a.verb}{''.join(sorted(a.ingredients))}",
                            step=i,
                            clause=i,
                        )
                        for i, a in enumerate(steps)
                    ],
                )
            )
    loader.load_recipes(store, records)
    loader.load_parsed(store, parsed)
    return len(records)
