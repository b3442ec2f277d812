"""Which composed actions a target inserts, learned from corpus dishes alone (issue #28 §2).

The paper's rule reads one number per action, the composed share, against thresholds. But which of a target's
candidate actions are insertions depends on where the share comes from: an action the okra dishes and the
class pool both stress, done to the new ingredient alone, is a likelier insertion than one every recipe in
the corpus does. A logistic regression over a few such features ranks the candidates.

It is fitted on *pseudo-pairs* of corpus dishes (``compose.pseudo_pair_specs``: 炒牛肉 → 炒花蛤, both with
recipes of their own), labelled by the paper's rule on the two dishes' real USES (``compose.fit_ranker``
gathers them); no DishPair, released pivot or constraint is read. The only pair-tuned number is the
probability a candidate needs (``ComposedThresholds.ranker_min_prob``, tuned on the even CRG pairs like the
editor's other thresholds). This module imports nothing of the graph: features, the model and the choice.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dishgraph.actions import ProtoAction

SHARE_FEATURES = ("ft", "fb", "food", "action", "flavour", "class", "base", "own", "rate")
FLAG_FEATURES = ("alone_on_new", "with_new", "tool")
FEATURES = SHARE_FEATURES + FLAG_FEATURES
LOG_FLOOR = 1e-3  # shares enter as log(share + floor): a share of 0 and one of 0.0005 say the same
REGULARISATION = 0.1  # sklearn's C: a strong prior toward small weights (a few thousand noisy labels)


def candidate_features(
    sources: Sequence,
    freq: Mapping[str, float],
    fb: Mapping[str, float],
    rates: Mapping[str, float],
    new_cls: str | None,
    *,
    min_freq: float,
    ratio: float,
) -> list[tuple[str, list[float]]]:
    """(action, feature vector) of each insertion candidate: composed share at least ``min_freq`` and more than
    ``ratio`` times the base's. Per source kind the feature is the largest share a source of that kind gives."""
    by_kind: dict[str, dict[str, float]] = defaultdict(dict)
    for s in sources:
        table = by_kind[s.kind]
        for a, f in s.freq.items():
            if f > table.get(a, 0.0):
                table[a] = f
    out = []
    for a, ft in sorted(freq.items()):
        b = fb.get(a, 0.0)
        if ft < min_freq or ft <= ratio * b:
            continue
        action = ProtoAction.from_key(a)
        shares = {"ft": ft, "fb": b, "rate": rates.get(a, 0.0)} | {
            k: by_kind[k].get(a, 0.0) for k in ("food", "action", "flavour", "class", "base", "own")
        }
        flags = [
            float(bool(new_cls) and action.ingredients == {new_cls}),
            float(bool(new_cls) and new_cls in action.ingredients),
            float(bool(action.tools)),
        ]
        out.append((a, [math.log(shares[k] + LOG_FLOOR) for k in SHARE_FEATURES] + flags))
    return out


@dataclass
class InsertRanker:
    """A fitted logistic regression: P(insertion) of a candidate from its features."""

    coef: list[float]
    intercept: float
    examples: int = 0
    positives: int = 0
    pseudo_pairs: int = 0

    def probability(self, x: Sequence[float]) -> float:
        z = self.intercept + sum(c * v for c, v in zip(self.coef, x))
        return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0

    def to_dict(self) -> dict:
        return {
            "features": list(FEATURES),
            "coef": [round(c, 4) for c in self.coef],
            "intercept": round(self.intercept, 4),
            "examples": self.examples,
            "positives": self.positives,
            "pseudo_pairs": self.pseudo_pairs,
        }


def fit(xs: Sequence[Sequence[float]], ys: Sequence[int], pseudo_pairs: int = 0) -> InsertRanker | None:
    """Fit the regression on labelled candidates (``compose.fit_ranker`` gathers them from pseudo-pairs);
    None when the labels are all one kind."""
    from sklearn.linear_model import LogisticRegression

    if not xs or not any(ys) or all(ys):
        return None
    model = LogisticRegression(C=REGULARISATION, max_iter=3000).fit(xs, ys)
    return InsertRanker([float(c) for c in model.coef_[0]], float(model.intercept_[0]), len(ys), sum(ys), pseudo_pairs)


def choose_inserts(
    ranker: InsertRanker, candidates: Sequence[tuple[str, Sequence[float]]], min_prob: float
) -> list[tuple[str, float]]:
    """The candidates (``candidate_features``) whose insertion probability is at least ``min_prob``,
    likeliest first."""
    scored = [(a, ranker.probability(x)) for a, x in candidates]
    return sorted(((a, p) for a, p in scored if p >= min_prob), key=lambda ap: (-ap[1], ap[0]))
