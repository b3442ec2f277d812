"""Where in a recipe a sentence belongs, read from its words: a reading of sentence order beside the actions'.

Recipes have a shape a cook knows from the words alone: washing and cutting open them, "备用" closes a
preparation, "出锅", "装盘" and "即可" end them. The pairwise order of actions (`precedence`) reads none of
that, and it cannot see that a recipe whose actions it barely knows has been shuffled. Here a ridge regression
on the character 1–3-grams of each sentence predicts its relative position in the recipe (0 first, 1 last),
learned from the graph's parsed recipes; a recipe's sentences in their written order then read as in order or
not (rank agreement, the order's z against random orders, the largest backward step, ...), weighed by a
logistic model chosen held out (benchmarks/bench_order_check.py, method text).

`order check` flags a recipe when this reading is beyond what 2% of real recipes show, OR the action score's
confidence is beyond its threshold, OR one swap of two dependent steps would make it much likelier
(`step_swaps`); the three were chosen together on the demo graph's even-numbered dishes. A swap of two actions
leaves the sentences as they were, so the text cannot see it: that is the swap reading's.
Leading step numbers ("1.", "第2步") are removed before a sentence is read, so numbering never gives the order
away. The model is trained once per graph (seconds) and kept in the cache as a plain ``.npz``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dishgraph.graph.base import GraphStore

SENTENCE = re.compile(r"[^。！？!?；;\n]*[。！？!?；;\n]+|[^。！？!?；;\n]+$")
NUMBERING = re.compile(
    r"^(第?[0-9０-９一二三四五六七八九十]+\s*[步、.．:：)）](?![0-9０-９])|步骤\s*[0-9０-９]+\s*[:：、.]?)\s*"
)
READINGS = (
    "rank_agreement",  # Kendall's tau of predicted against given positions
    "slope",  # least-squares slope of predicted position on given position
    "mean_gap",  # mean over sentence pairs of (predicted later - predicted earlier)
    "order_z",  # the given order's linear rank statistic, z against random orders of the same sentences
    "sentences",
    "worst_gap",  # the largest backward step between any two sentences
    "backward_gaps",  # the sum of the backward steps
    "first_above_lowest",  # how much later than the earliest-reading sentence the first one reads
    "last_below_highest",
    "first_to_last",
)


def unit_texts(text: str, starts: Iterable[tuple[object, int | None]]) -> dict[object, str]:
    """{unit: its text}: the sentences of ``text`` that the unit's steps (unit, start offset) begin in, in
    text order, each without its step number and the spaces around it."""
    import bisect

    segs = [(m.start(), m.end()) for m in SENTENCE.finditer(text or "")]
    firsts = [a for a, _ in segs]
    hit: dict[object, set[int]] = {}
    for unit, start in starts:
        ids = hit.setdefault(unit, set())
        if start is None:
            continue
        i = bisect.bisect_right(firsts, start) - 1
        if i >= 0 and start < segs[i][1]:
            ids.add(i)
    parts = {i: NUMBERING.sub("", text[a:b].strip()) for i, (a, b) in enumerate(segs)}
    return {u: " ".join(parts[i] for i in sorted(ids) if parts[i]) for u, ids in hit.items()}


class SentencePositions:
    """Relative position of a sentence in its recipe from its character 1–3-grams (hashed, so the model is a
    weight vector and an intercept: nothing in it can run code)."""

    N_FEATURES = 2**18

    def __init__(self, coef=None, intercept: float = 0.0):
        from sklearn.feature_extraction.text import HashingVectorizer

        self.vectorizer = HashingVectorizer(
            analyzer="char", ngram_range=(1, 3), n_features=self.N_FEATURES, alternate_sign=False, norm="l2"
        )
        self.coef = coef
        self.intercept = intercept

    def fit(self, recipes: Iterable[Sequence[str]], alpha: float = 1.0) -> SentencePositions:
        """``recipes``: each recipe's sentence texts in written order (recipes of one sentence teach nothing)."""
        from sklearn.linear_model import Ridge

        xs, ys = [], []
        for sents in recipes:
            if len(sents) < 2:
                continue
            for i, t in enumerate(sents):
                xs.append(t)
                ys.append(i / (len(sents) - 1))
        if len(set(ys)) < 2:
            raise ValueError("no recipe of two sentences or more to learn sentence positions from")
        m = Ridge(alpha=alpha, solver="sag", random_state=0).fit(self.vectorizer.transform(xs), ys)
        self.coef, self.intercept = m.coef_, float(m.intercept_)
        return self

    def predict(self, sentences: Sequence[str]) -> list[float]:
        if not sentences:
            return []
        return [float(v) + self.intercept for v in self.vectorizer.transform(list(sentences)) @ self.coef]


def order_readings(predicted: Sequence[float]) -> dict[str, float]:
    """The readings of sentences in a given order from their predicted positions (all 0 for one sentence)."""
    n = len(predicted)
    if n < 2:
        return {k: (float(n) if k == "sentences" else 0.0) for k in READINGS}
    p = list(predicted)
    gaps = [p[j] - p[i] for i in range(n) for j in range(i + 1, n)]
    conc = sum(g > 0 for g in gaps)
    disc = sum(g < 0 for g in gaps)
    a = [2 * k - (n - 1) for k in range(n)]
    mean_p = sum(p) / n
    s = sum(ak * pk for ak, pk in zip(a, p))
    var = sum(ak * ak for ak in a) * sum((pk - mean_p) ** 2 for pk in p) / (n - 1)
    r_mean = (n - 1) / 2
    sxx = sum((k - r_mean) ** 2 for k in range(n))
    return {
        "rank_agreement": (conc - disc) / max(1, conc + disc),
        "slope": sum((k - r_mean) * (pk - mean_p) for k, pk in enumerate(p)) / sxx * (n - 1),
        "mean_gap": sum(gaps) / len(gaps),
        "order_z": s / math.sqrt(var) if var > 0 else 0.0,
        "sentences": float(n),
        "worst_gap": min(gaps),
        "backward_gaps": sum(min(0.0, g) for g in gaps),
        "first_above_lowest": p[0] - min(p),
        "last_below_highest": max(p) - p[-1],
        "first_to_last": p[-1] - p[0],
    }


# The logistic weighing of the readings and the flag, chosen on the demo graph's even-numbered dishes held out
# (benchmarks/bench_order_check.py --methods scored,text; results file, "text"). The flag line and the action
# score's threshold beside it were chosen again with the swap reading (--methods swap; "swap"): of the choices
# reaching reversed ≥ 90% and shuffled ≥ 80% there with real recipes flagged ≤ 5%, the one that keeps the most
# swaps.
MEAN = (-0.023, -0.0085, -0.0086, -0.0211, 6.3521, -0.4492, -3.4193, 0.3441, 0.3472, -0.0086)
SCALE = (0.6789, 0.5403, 0.2825, 1.6575, 3.5204, 0.3595, 5.5461, 0.336, 0.3382, 0.5892)
COEF = (-0.0303, -1.7527, 0.8508, -2.0274, -0.8185, -1.992, -0.8089, 0.7677, 0.9453, 0.6418)
INTERCEPT = 3.1762
TEXT_CUT = 0.8551  # flag when the text score is above this (2% of the even dishes' real recipes are)
MIN_RECIPE_CONFIDENCE_WITH_TEXT = 0.995  # the action score's threshold when the text (and swaps) are read too
MIN_TRAINING_RECIPES = 50  # recipes of two sentences or more: fewer teach positions by chance


def text_score(readings: dict[str, float]) -> float:
    """The logistic model's log-odds that the sentences are out of order (higher: less like a real recipe)."""
    if readings["sentences"] < 2:
        return float("-inf")
    return INTERCEPT + sum(c * (readings[n] - m) / s for n, m, s, c in zip(READINGS, MEAN, SCALE, COEF))


def text_sentences(text: str, starts: Sequence[int]) -> list[str]:
    """The sentences of ``text`` that hold an action (``starts``: each action's offset), in written order."""
    import bisect

    firsts = [m.start() for m in SENTENCE.finditer(text or "")]
    units = unit_texts(text, [(bisect.bisect_right(firsts, s) - 1, s) for s in starts])
    return [units[u] for u in sorted(units) if u >= 0 and units[u]]


@dataclass
class SentenceOrder:
    """How the recipe's sentences read in their written order: each sentence's predicted place (0 first,
    1 last), the text score and the score the flag starts above."""

    score: float
    cut: float
    flagged: bool
    sentences: list[str] = field(default_factory=list)
    positions: list[float] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "score": round(self.score, 4) if math.isfinite(self.score) else None,
            "cut": self.cut,
            "flagged": self.flagged,
            "sentences": [{"text": t, "reads_at": round(p, 3)} for t, p in zip(self.sentences, self.positions)],
        }


def read_order(model: SentencePositions, text: str, starts: Sequence[int]) -> SentenceOrder:
    """The sentence-order reading of a recipe text whose actions start at ``starts``."""
    sents = text_sentences(text, starts)
    pos = model.predict(sents)
    sc = text_score(order_readings(pos))
    return SentenceOrder(sc, TEXT_CUT, sc > TEXT_CUT, sents, pos)


def training_sentences(store: GraphStore, texts: dict[str, str] | None = None) -> list[list[str]]:
    """Every parsed recipe of the graph as its sentences (those holding a step) in written order."""
    if texts is None:
        texts = {r["recipe"]: r["text"] or "" for r in store.query("order_corpus_texts")}
    steps: dict[str, list[tuple[object, int | None]]] = {}
    for r in store.query("order_corpus_steps", dishes=[]):
        unit = r["sentence"] if r["sentence"] is not None else r["clause"]
        steps.setdefault(r["recipe"], []).append((unit if unit is not None else r["pos"], r["start"]))
    out = []
    for rid in sorted(steps):
        units = unit_texts(texts.get(rid, ""), steps[rid])
        out.append([units[u] for u in dict.fromkeys(u for u, _ in steps[rid])])
    return out


def corpus_model(store: GraphStore, cache_dir: Path | None = None) -> SentencePositions | None:
    """The graph's sentence-position model, trained on its parsed recipes and kept on disk between checks: a
    plain ``.npz`` read with ``allow_pickle=False``, named by a digest of every parsed recipe's id, text and
    number of actions and of the library versions (reading the steps again for a digest would cost a check
    seconds; a graph parsed anew with as many actions per recipe keeps its model). None when the graph has
    fewer than `MIN_TRAINING_RECIPES` recipes of two sentences or more. A damaged or unwritable cache only
    costs the training."""
    import hashlib

    import numpy as np

    from dishgraph.eval.text_metrics import dist_versions, token_cache_dir, write_cache_file

    rows = store.query("order_corpus_texts")
    h = hashlib.sha256(f"sentence-positions:{SentencePositions.N_FEATURES}:".encode())
    h.update(dist_versions("numpy", "scipy", "scikit-learn").encode())
    for r in rows:
        h.update(f"{r['recipe']}\x1f{r['text'] or ''}\x1f{r['n_actions']}\x1e".encode())
    path = (cache_dir or token_cache_dir().parent / "models") / f"sentence-positions-{h.hexdigest()[:16]}.npz"
    if path.exists():
        try:
            with np.load(path, allow_pickle=False) as z:
                coef, intercept = z["coef"], float(z["intercept"])
            if coef.shape == (SentencePositions.N_FEATURES,) and np.isfinite(coef).all() and math.isfinite(intercept):
                return SentencePositions(coef, intercept)
        except Exception:  # noqa: BLE001 - any damage (a torn zip, a missing array) only costs the training
            pass  # retrained below
    recipes = training_sentences(store, {r["recipe"]: r["text"] or "" for r in rows})
    if sum(len(r) >= 2 for r in recipes) < MIN_TRAINING_RECIPES:
        return None
    model = SentencePositions().fit(recipes)

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as fh:  # a file object: np.savez would add ".npz" to a path
            np.savez(fh, coef=np.asarray(model.coef, dtype=np.float64), intercept=np.float64(model.intercept))

    write_cache_file(path, write)
    return model
