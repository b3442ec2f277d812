"""Re-mixing one example's sources thousands of times, as a weight fit does, with the same floats as `mix`.

A weight fit (``validation.fit_weights``) scores every candidate setting by mixing each example's sources
and comparing with its real frequencies (``weighted_jaccard``): tens of thousands of mixes of hundreds of
actions, one Python addition each. Here each example's sources are laid out once as arrays over its actions
and a mix is a few array operations. The result is bit for bit ``weighted_jaccard(mix(...)[0], truth)``:
the same products (``w / total * f``) added source by source in the same order, and both sums of the
Jaccard taken left to right in the order the dicts would be walked (``np.cumsum`` is a running sum, never a
pairwise one); ``tests/test_compose_remix.py`` checks equality on real examples. The focus mixture
(``focus_kappa`` > 0) and an empty mixture go through ``mix`` itself.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dishgraph.knowledge.compose.mixing import mix, source_weights, weighted_jaccard
from dishgraph.knowledge.compose.settings import ComposeSettings
from dishgraph.knowledge.compose.sources import Source, _sid


def _running_total(values: np.ndarray) -> float:
    """``s = 0.0; for v in values: s += v`` (``np.cumsum`` adds left to right)."""
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


class _Layout:
    """The actions of the sources that weigh (in the order ``mix`` first meets them), where each source's
    shares sit among them, and the real shares read against them. Built from the example's `_Actions`
    with array operations: a fit meets a new set of weighing sources whenever a grid weight is 0."""

    def __init__(self, actions: _Actions, active: tuple[bool, ...]):
        on = [i for i, a in enumerate(active) if a]
        met = np.concatenate([actions.where[i] for i in on]) if on else np.zeros(0, np.intp)
        ids, first = np.unique(met, return_index=True)
        order = ids[np.argsort(first, kind="stable")]  # action ids in the order mix first meets them
        local = np.full(actions.size, -1, np.intp)
        local[order] = np.arange(len(order))
        self.size = len(order)
        self.where = [local[actions.where[i]] if a else None for i, a in enumerate(active)]
        self.shares = [actions.shares[i] if a else None for i, a in enumerate(active)]
        self.in_truth = actions.in_truth[order]
        self.truth = actions.truth[order]
        mixed = actions.truth_ids >= 0
        mixed[mixed] = local[actions.truth_ids[mixed]] >= 0
        self.truth_only = actions.truth_values[~mixed]


class _Actions:
    """Every action of an example's sources numbered once, each source as (action ids, shares), and the real
    shares by action id and in the truth's own order."""

    def __init__(self, sources: Sequence[Source], truth: dict[str, float]):
        ids: dict[str, int] = {}
        self.where = [np.fromiter((ids.setdefault(a, len(ids)) for a in s.freq), np.intp, len(s.freq)) for s in sources]
        self.shares = [np.fromiter(s.freq.values(), np.float64, len(s.freq)) for s in sources]
        self.size = len(ids)
        self.in_truth = np.zeros(self.size, bool)
        self.truth = np.zeros(self.size)
        for a, i in ids.items():
            if a in truth:
                self.in_truth[i], self.truth[i] = True, truth[a]
        self.truth_ids = np.fromiter((ids.get(a, -1) for a in truth), np.intp, len(truth))
        self.truth_values = np.fromiter(truth.values(), np.float64, len(truth))


class Remixer:
    """``score(settings)`` = ``weighted_jaccard(mix(sources, settings, focus)[0], truth)`` for one example."""

    def __init__(self, sources: Sequence[Source], truth: dict[str, float], focus: Sequence[str] = ()):
        self.sources, self.truth, self.focus = list(sources), truth, tuple(focus)
        self._actions: _Actions | None = None
        self._layouts: dict[tuple[bool, ...], _Layout] = {}

    def score(self, settings: ComposeSettings) -> float:
        if settings.focus_kappa > 0 and self.focus:
            return weighted_jaccard(mix(self.sources, settings, self.focus)[0], self.truth)
        weights = source_weights(self.sources, settings)
        total = sum(weights.values())
        if total <= 0:
            return weighted_jaccard({}, self.truth)
        w = [weights[_sid(s)] for s in self.sources]
        active = tuple(x > 0 for x in w)
        layout = self._layouts.get(active)
        if layout is None:
            if self._actions is None:
                self._actions = _Actions(self.sources, self.truth)
            layout = self._layouts[active] = _Layout(self._actions, active)
        freq = np.zeros(layout.size)
        for w_s, where, shares in zip(w, layout.where, layout.shares):
            if where is not None:
                freq[where] += w_s / total * shares
        inside = layout.in_truth
        num = _running_total(np.minimum(freq, layout.truth)[inside])
        den_mixed = np.where(inside, np.maximum(freq, layout.truth), freq)
        den = _running_total(np.concatenate([den_mixed, layout.truth_only]))
        return num / den if den else 0.0
