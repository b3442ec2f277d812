"""Which composed actions a target inserts, learned from corpus dishes alone (issue #28 §2).

The paper's rule reads one number per action, the composed share, against thresholds. But which of a target's
candidate actions are insertions depends on where the share comes from: an action the okra dishes and the
class pool both stress, done to the new ingredient alone, is a likelier insertion than one every recipe in
the corpus does. A classifier over a few such features ranks the candidates: gradient-boosted trees by
default (``MODELS``, ``dishgraph ls insert-rankers``), chosen over a logistic regression by held-out average
precision on the pseudo-pairs (``cross_validate``, folds by target dish), a corpus-only choice.

It is fitted on *pseudo-pairs* of corpus dishes (``compose.pseudo_pair_specs``: 炒牛肉 → 炒花蛤, both with
recipes of their own), labelled by the paper's rule on the two dishes' real USES (``compose.ranker_examples``
gathers them); no DishPair, released pivot or constraint is read. The only pair-tuned number is the
probability a candidate needs (``ComposedThresholds.ranker_min_prob``, tuned on the even CRG pairs like the
editor's other thresholds). This module imports nothing of the graph: features, the model and the choice.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from dishgraph.actions import ProtoAction
from dishgraph.registry import Registry

SHARE_FEATURES = ("ft", "fb", "food", "action", "flavour", "class", "base", "own", "rate")
FLAG_FEATURES = ("alone_on_new", "with_new", "tool")
FEATURES = SHARE_FEATURES + FLAG_FEATURES
LOG_FLOOR = 1e-3  # shares enter as log(share + floor): a share of 0 and one of 0.0005 say the same
REGULARISATION = 0.1  # sklearn's C: a strong prior toward small weights (a few thousand noisy labels)


BOOSTED, LOGISTIC = "boosted", "logistic"
DEFAULT_MODEL = BOOSTED  # higher pseudo-pair average precision (benchmarks/bench_compose.py --limits)
MODELS: Registry[Callable[[], Any]] = Registry(
    "insert ranker", doc="classifiers ranking a composed target's insertions (compose_pairs(ranker_model=...))"
)


@MODELS.named(BOOSTED, doc="Shallow gradient-boosted trees (scikit-learn); the default.")
def _boosted():
    """Shallow gradient-boosted trees: they learn the interactions a linear model cannot (a high class share
    means more when the action is done to the new ingredient alone). No early stopping: it would hold out a
    random tenth of the examples, so two fits on the same graph could differ."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(
        max_depth=3, learning_rate=0.05, max_iter=200, min_samples_leaf=50, early_stopping=False
    )


@MODELS.named(LOGISTIC, doc="L2-regularised logistic regression (scikit-learn, C=0.1).")
def _logistic():
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=REGULARISATION, max_iter=3000)


@lru_cache(maxsize=1 << 16)
def _proto(key: str) -> ProtoAction:
    """``ProtoAction.from_key``, once per key: a ranker's examples meet the same candidates hundreds of times
    (a ProtoAction is frozen, so one object can serve every caller)."""
    return ProtoAction.from_key(key)


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
        action = _proto(a)
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
    """A fitted classifier (``MODELS``): P(insertion) of each candidate from its features."""

    model_name: str
    model: Any = field(repr=False)
    examples: int = 0
    positives: int = 0
    pseudo_pairs: int = 0

    def probabilities(self, xs: Sequence[Sequence[float]]) -> list[float]:
        return [float(p) for p in self.model.predict_proba(list(xs))[:, 1]] if len(xs) else []

    def to_dict(self) -> dict:
        out: dict = {
            "model": self.model_name,
            "features": list(FEATURES),
            "examples": self.examples,
            "positives": self.positives,
            "pseudo_pairs": self.pseudo_pairs,
        }
        if hasattr(self.model, "coef_"):
            out |= {"coef": [round(float(c), 4) for c in self.model.coef_[0]]}
            out |= {"intercept": round(float(self.model.intercept_[0]), 4)}
        else:
            out["iterations"] = int(self.model.n_iter_)
        return out


def _learnable(ys: Sequence[int]) -> bool:
    """Both kinds of label present: otherwise there is nothing for a classifier to learn."""
    return any(ys) and not all(ys)


def fit(
    xs: Sequence[Sequence[float]], ys: Sequence[int], pseudo_pairs: int = 0, model: str = DEFAULT_MODEL
) -> InsertRanker | None:
    """Fit the classifier on labelled candidates (``compose.ranker_examples`` gathers them from pseudo-pairs);
    None when the labels are all one kind. An unknown ``model`` fails naming the known ones."""
    entry = MODELS.lookup(model)
    if not xs or not _learnable(ys):
        return None
    return InsertRanker(entry.name, entry.target().fit(list(xs), list(ys)), len(ys), sum(ys), pseudo_pairs)


def cross_validate(
    xs: Sequence[Sequence[float]], ys: Sequence[int], groups: Sequence[str], model: str, folds: int = 5
) -> float | None:
    """Held-out average precision of ``model`` on labelled candidates, folds split by ``groups`` (the target
    dish, so no target is both fitted and scored): how the default model was chosen without a CRG pair."""
    from sklearn.metrics import average_precision_score
    from sklearn.model_selection import GroupKFold

    entry = MODELS.lookup(model)
    if not xs or not _learnable(ys) or len(set(groups)) < folds:
        return None
    held_out = [0.0] * len(ys)
    for train, test in GroupKFold(folds).split(xs, ys, groups):
        labels = [ys[i] for i in train]
        if not _learnable(labels):  # a fold with one kind of label: its rate is all there is to predict
            for i in test:
                held_out[i] = float(labels[0])
            continue
        fitted = entry.target().fit([xs[i] for i in train], labels)
        for i, p in zip(test, fitted.predict_proba([xs[i] for i in test])[:, 1]):
            held_out[i] = float(p)
    return float(average_precision_score(ys, held_out))


def choose_inserts(
    ranker: InsertRanker, candidates: Sequence[tuple[str, Sequence[float]]], min_prob: float
) -> list[tuple[str, float]]:
    """The candidates (``candidate_features``) whose insertion probability is at least ``min_prob``,
    likeliest first."""
    scored = zip([a for a, _ in candidates], ranker.probabilities([x for _, x in candidates]))
    return sorted(((a, p) for a, p in scored if p >= min_prob), key=lambda ap: (-ap[1], ap[0]))
