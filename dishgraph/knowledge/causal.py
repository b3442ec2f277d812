"""Causal order effects between actions of a dish (CRG §4.3), by propensity score matching.

Units are a dish's recipes. For a candidate pair (x, y) (x appears before y in some recipe):
treatment T = the recipe contains x; outcome Y = y occurs after the first x (treated) / y occurs (control);
confounders = the other actions that appear before both x and y in the dish's recipes, each measured as
a 0/1 column in one of two windows:

* ``paper`` (default, as the CRG release did it): c occurs before the first y of the recipe (anywhere when
  y is absent). The window ends at the *outcome*, so the column is partly caused by Y itself (whether and
  where y occurs decides how much of the recipe is looked at); conditioning on it biases ψ downwards.
* ``pretreatment``: c occurs before the first x in treated recipes; in the others, before x's median
  relative position among treated recipes. The window ends at the (would-be) *treatment*, so no column
  depends on the outcome.

ψ(x, y) is DoWhy's ``backdoor.propensity_score_matching`` ATE; ``fast`` is the same computation without
DoWhy's model machinery (same LogisticRegression, same ball-tree nearest neighbours, same ATT/ATC
weighting), equal to DoWhy to float rounding, and both can run many dishes in parallel processes.
"""

from __future__ import annotations

import functools
import logging
import multiprocessing as mp
import os
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field

import numpy as np

from dishgraph.registry import Registry

log = logging.getLogger(__name__)

WINDOWS = ("paper", "pretreatment")
TAU_C = 0.1
ABSENT = np.iinfo(np.int64).max // 4


@dataclass
class DishSequences:
    """A dish's recipes as first/last positions of every action (ABSENT where an action is missing)."""

    dish: str
    recipes: list[str]
    actions: list[str]
    first: np.ndarray  # (n_recipes, n_actions) int64
    last: np.ndarray
    length: np.ndarray  # (n_recipes,) number of steps

    @classmethod
    def from_sequences(cls, dish: str, seqs: dict[str, Sequence[str]]) -> DishSequences:
        recipes = list(seqs)
        actions = sorted({a for s in seqs.values() for a in s})
        col = {a: j for j, a in enumerate(actions)}
        first = np.full((len(recipes), len(actions)), ABSENT, dtype=np.int64)
        last = np.full((len(recipes), len(actions)), -1, dtype=np.int64)
        for i, r in enumerate(recipes):
            for pos, a in enumerate(seqs[r]):
                j = col[a]
                if first[i, j] == ABSENT:
                    first[i, j] = pos
                last[i, j] = pos
        length = np.array([len(seqs[r]) for r in recipes], dtype=np.int64)
        return cls(dish, recipes, actions, first, last, length)

    @classmethod
    def from_rows(cls, dish: str, rows: Iterable[dict]) -> DishSequences:
        """From ``order_dish_sequences`` rows (recipe, pos, action), ordered by recipe and pos."""
        seqs: dict[str, list[str]] = {}
        for r in rows:
            s = seqs.setdefault(r["recipe"], [])
            if r["action"] is not None:
                s.append(r["action"])
        return cls.from_sequences(dish, seqs)

    @property
    def present(self) -> np.ndarray:
        return self.first != ABSENT

    def support(self) -> np.ndarray:
        """S[x, y] = number of recipes in which an occurrence of x comes before an occurrence of y."""
        first = self.first[:, :, None]
        last = self.last[:, None, :]
        s = ((first < last) & (first != ABSENT)).sum(axis=0)
        np.fill_diagonal(s, 0)
        return s

    def freq(self) -> np.ndarray:
        n = max(len(self.recipes), 1)
        return self.present.sum(axis=0) / n


def candidate_pairs(
    ds: DishSequences, focus: Iterable[str], min_support: int = 2, support: np.ndarray | None = None
) -> list[tuple[str, str]]:
    """(cause, effect) pairs around focus actions: every x before a focus a (A_p), every y after it (A_s)."""
    s = ds.support() if support is None else support
    col = {a: j for j, a in enumerate(ds.actions)}
    pairs: set[tuple[int, int]] = set()
    for a in focus:
        j = col.get(a)
        if j is None:
            continue
        pairs.update((int(x), j) for x in np.nonzero(s[:, j] >= min_support)[0] if x != j)
        pairs.update((j, int(y)) for y in np.nonzero(s[j, :] >= min_support)[0] if y != j)
    return [(ds.actions[x], ds.actions[y]) for x, y in sorted(pairs)]


@dataclass
class PairFrame:
    """The per-pair estimation input: confounder matrix X, treatment t, outcome y (all 0/1 ints)."""

    X: np.ndarray
    t: np.ndarray
    y: np.ndarray
    confounders: list[str]


def pair_frame(
    ds: DishSequences, cause: str, effect: str, window: str = "paper", support: np.ndarray | None = None
) -> PairFrame:
    if window not in WINDOWS:
        raise ValueError(f"window {window!r} is not one of {WINDOWS}")
    col = {a: j for j, a in enumerate(ds.actions)}
    x, e = col[cause], col[effect]
    s = ds.support() if support is None else support
    conf = [c for c in np.nonzero((s[:, x] >= 1) & (s[:, e] >= 1))[0] if c != x and c != e]
    present = ds.present
    t = present[:, x]
    y = np.where(t, ds.last[:, e] > ds.first[:, x], present[:, e])
    fc = ds.first[:, conf]
    if window == "paper":
        X = fc < ds.first[:, [e]]
    else:
        rel = np.where(ds.first != ABSENT, ds.first / np.maximum(ds.length, 1)[:, None], np.inf)
        w = float(np.median(rel[t, x])) if t.any() else np.inf
        X = np.where(t[:, None], fc < ds.first[:, [x]], rel[:, conf] < w)
    return PairFrame(X.astype(np.int64), t.astype(np.int64), y.astype(np.int64), [ds.actions[c] for c in conf])


# ------------------------------------------------------------------------------------------ estimators
def _quiet() -> None:
    logging.getLogger("dowhy").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")


def psm_fast(X: np.ndarray, t: np.ndarray, y: np.ndarray) -> float:
    """DoWhy's propensity score matching ATE, step for step, on plain arrays (`psm_matched`'s ATE)."""
    return psm_matched(X, t, y)[0]


def psm_matched(X: np.ndarray, t: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(ATE, its standard error from the matched pairs) by DoWhy's propensity score matching, on plain arrays.

    The standard error is that of the mean of the n matched differences (each treated recipe against its
    nearest control, each control against its nearest treated one): it ignores that a recipe can be matched
    more than once, so the interval it gives is on the narrow side (Abadie–Imbens would widen it).

    The same LogisticRegression and the same ball trees as DoWhy's ``NearestNeighbors(n_neighbors=1,
    algorithm="ball_tree")`` (leaf size 30, euclidean), built directly: for the ~5,000 small pairs of the
    demo, sklearn's per-call input validation and joblib dispatch cost more than the fits and queries
    (2.2x faster, identical matches, ties included: ``tests/test_causal.py``)."""
    from sklearn.neighbors import BallTree

    ps = propensity_scores(X, t)
    treated, control = t == 1, t == 0
    ps_t, ps_c = ps[treated].reshape(-1, 1), ps[control].reshape(-1, 1)
    y_t, y_c = y[treated], y[control]
    idx = BallTree(ps_c, leaf_size=30, metric="euclidean").query(ps_t, k=1, return_distance=False)
    d_t = y_t - y_c[idx.ravel()]
    att = d_t.mean()
    idx = BallTree(ps_t, leaf_size=30, metric="euclidean").query(ps_c, k=1, return_distance=False)
    d_c = y_t[idx.ravel()] - y_c
    atc = d_c.mean()
    nt, nc = len(y_t), len(y_c)
    return float((att * nt + atc * nc) / (nt + nc)), _se(np.concatenate([d_t, d_c]))


def propensity_scores(X: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``LogisticRegression().fit(X, t).predict_proba(X)[:, 1]`` (DoWhy's propensity model), the same floats.

    The fit is the estimator's own for a binary target with the default lbfgs solver: scikit-learn's loss
    (``LinearModelLoss`` over ``HalfBinomialLoss``, l2 strength 1 / (C n)) minimised by scipy's L-BFGS-B with
    the options scikit-learn passes, then ``expit(X @ coef.T + intercept)``; what the estimator adds around
    it (input validation, namespace dispatch, callbacks) cost more than the fit on the order step's thousands
    of 50-row frames. Where those internals are not importable, or the target is not binary, the estimator
    itself runs. ``tests/test_causal.py`` compares the two bit for bit."""
    fit = _lbfgs_parts()
    if fit is None or X.ndim != 2 or not X.shape[1] or set(np.unique(t).tolist()) != {0, 1}:
        return _estimator_scores(X, t)
    loss_gradient, extra_options = fit
    from scipy import optimize
    from scipy.special import expit

    Xf = np.asarray(X, dtype=np.float64, order="C")
    y = np.ones(t.shape, dtype=np.float64)
    y[t != 1] = 0.0
    res = optimize.minimize(
        loss_gradient,
        np.zeros(Xf.shape[1] + 1, dtype=np.float64),
        method="L-BFGS-B",
        jac=True,
        args=(Xf, y, None, 1.0 / (1.0 * Xf.shape[0]), 1),
        options={"maxiter": 100, "maxls": 50, "gtol": 1e-4, "ftol": 64 * np.finfo(float).eps, **extra_options},
    )
    coef, intercept = res.x[:-1][None, :], res.x[-1:]
    scores = (X @ coef.T + intercept).reshape(-1)
    return expit(scores, out=scores)


def _estimator_scores(X: np.ndarray, t: np.ndarray) -> np.ndarray:
    import sklearn
    from sklearn.linear_model import LogisticRegression

    with sklearn.config_context(assume_finite=True, skip_parameter_validation=True):
        return LogisticRegression().fit(X, t).predict_proba(X)[:, 1]


@functools.cache
def _lbfgs_parts():
    """(the loss-and-gradient function, scipy's extra options) of scikit-learn's lbfgs logistic regression,
    or None where this scikit-learn keeps them elsewhere."""
    try:
        from sklearn._loss.loss import HalfBinomialLoss
        from sklearn.linear_model._linear_loss import LinearModelLoss
        from sklearn.utils.fixes import _get_additional_lbfgs_options_dict
    except ImportError:
        return None
    loss = LinearModelLoss(base_loss=HalfBinomialLoss(), fit_intercept=True)
    return loss.loss_gradient, _get_additional_lbfgs_options_dict("iprint", -1)


def _se(d: np.ndarray) -> float:
    return float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else float("inf")


def psm_dowhy(X: np.ndarray, t: np.ndarray, y: np.ndarray) -> float:
    """DoWhy 0.14: CausalModel + maximal-adjustment identification + propensity score matching.

    A fresh frame per call: DoWhy writes a ``propensity_score`` column into the frame it is given and
    silently reuses it on the next estimate. Identification by maximal adjustment: DoWhy's default
    backdoor search is exponential in the number of confounders. The adjustment set comes back in
    Python-set order, which varies with PYTHONHASHSEED and, through the LogisticRegression's floating point,
    can flip a near-tied nearest neighbour (one match = 1/n of ATE); we put it back in column order, which
    makes DoWhy itself reproducible run to run (and equal to ``psm_fast``).
    """
    import pandas as pd
    from dowhy import CausalModel

    _quiet()
    cols = [f"c{i}" for i in range(X.shape[1])]
    df = pd.DataFrame(X, columns=cols)
    df["T"] = t
    df["Y"] = y
    model = CausalModel(data=df, treatment="T", outcome="Y", common_causes=cols)
    estimand = model.identify_effect(method_name="maximal-adjustment")
    adjustment = estimand.get_adjustment_set()
    if set(adjustment) != set(cols):
        raise RuntimeError(f"DoWhy adjusted for {sorted(adjustment)}, expected every confounder {cols}")
    for key, variables in estimand.backdoor_variables.items():  # the estimator reads its own key
        if set(variables) == set(cols):
            estimand.backdoor_variables[key] = list(cols)
    est = model.estimate_effect(estimand, method_name="backdoor.propensity_score_matching", target_units="ate")
    return float(est.value)


def naive_ate(t: np.ndarray, y: np.ndarray) -> float:
    """Without confounders there is nothing to match on: difference of outcome means."""
    return float(y[t == 1].mean() - y[t == 0].mean())


def naive_se(t: np.ndarray, y: np.ndarray) -> float:
    """Standard error of the difference of two outcome means (unpooled)."""
    a, b = y[t == 1], y[t == 0]
    v = sum(x.var(ddof=1) / len(x) if len(x) > 1 else 0.25 for x in (a, b))
    return float(np.sqrt(v))


Estimator = Callable[[np.ndarray, np.ndarray, np.ndarray], float]  # (X, t, y) -> ATE

ESTIMATORS: Registry[Estimator] = Registry(
    "estimator", doc="propensity-score-matching ATE of one action pair (--estimator)"
)
ESTIMATORS.add("fast", psm_fast, doc="DoWhy's propensity score matching step for step on plain arrays; the default.")
ESTIMATORS.add("dowhy", psm_dowhy, doc="DoWhy 0.14 itself (CausalModel, maximal adjustment); slower, same values.")


@dataclass
class Estimate:
    dish: str
    cause: str
    effect: str
    ate: float | None
    n_treated: int
    n_control: int
    n_confounders: int
    estimator: str  # fast | dowhy | naive (no confounders)
    window: str
    skipped: str | None = None
    se: float | None = None  # standard error: matched pairs (fast, dowhy) or two means (naive)

    @property
    def ci(self) -> tuple[float, float] | None:
        """The 95% interval of the ATE (normal, from ``se``)."""
        if self.ate is None or self.se is None:
            return None
        return self.ate - 1.959963984540054 * self.se, self.ate + 1.959963984540054 * self.se

    @property
    def p_value(self) -> float | None:
        """Two-sided p-value of ATE = 0 (normal); 1 where the matched differences are all equal to zero."""
        if self.ate is None or self.se is None:
            return None
        if self.se == 0:
            return 0.0 if self.ate != 0 else 1.0
        from math import erfc, sqrt

        return erfc(abs(self.ate) / self.se / sqrt(2))

    def to_dict(self) -> dict:
        return asdict(self)


def estimate_pair(
    ds: DishSequences,
    cause: str,
    effect: str,
    *,
    estimator: str = "fast",
    window: str = "paper",
    support: np.ndarray | None = None,
) -> Estimate:
    estimate_ate = ESTIMATORS.lookup(estimator)  # an unknown name: UnknownName (a ValueError) listing them
    estimator = estimate_ate.name
    f = pair_frame(ds, cause, effect, window, support)
    nt = int(f.t.sum())
    nc = len(f.t) - nt
    est = Estimate(ds.dish, cause, effect, None, nt, nc, len(f.confounders), estimator, window)
    if nt == 0 or nc == 0:
        est.skipped = "constant treatment"
        return est
    if not f.confounders:
        est.ate, est.estimator, est.se = naive_ate(f.t, f.y), "naive", naive_se(f.t, f.y)
        return est
    if estimate_ate.target is psm_fast:  # one matching gives both
        est.ate, est.se = psm_matched(f.X, f.t, f.y)
    else:
        est.ate = estimate_ate.target(f.X, f.t, f.y)
        est.se = psm_matched(f.X, f.t, f.y)[1] if estimator == "dowhy" else None
    return est


@dataclass
class DishTask:
    ds: DishSequences
    pairs: list[tuple[str, str]]
    estimator: str = "fast"
    window: str = "paper"


@dataclass
class DishResult:
    dish: str
    estimates: list[Estimate] = field(default_factory=list)
    seconds: float = 0.0


def run_task(task: DishTask) -> DishResult:
    t0 = time.perf_counter()
    s = task.ds.support()
    ests = [
        estimate_pair(task.ds, c, e, estimator=task.estimator, window=task.window, support=s) for c, e in task.pairs
    ]
    return DishResult(task.ds.dish, ests, time.perf_counter() - t0)


def _init_worker() -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    _quiet()


def run_tasks(
    tasks: Sequence[DishTask], workers: int = 1, on_done: Callable[[DishResult], None] | None = None
) -> list[DishResult]:
    """Estimate every dish's pairs, one dish per job; ``workers`` > 1 runs dishes in parallel processes.

    A worker that dies (killed, out of memory, or a calling script without an ``if __name__ == "__main__":``
    guard, whose workers re-run it on import and fail) breaks the pool instead of being replaced forever, as
    ``multiprocessing.Pool`` would do, hanging the caller: the dishes not yet done are then estimated here."""
    results: list[DishResult] = []

    def finish(r: DishResult) -> None:
        results.append(r)
        if on_done:
            on_done(r)

    if workers > 1 and len(tasks) > 1:
        order = sorted(range(len(tasks)), key=lambda i: -len(tasks[i].pairs))  # big dishes first
        todo = [tasks[i] for i in order]
        ctx = mp.get_context("forkserver" if os.name == "posix" else "spawn")  # see pipeline.worker_context
        pool = ProcessPoolExecutor(min(workers, len(tasks)), mp_context=ctx, initializer=_init_worker)
        try:
            for future in as_completed([pool.submit(run_task, t) for t in todo]):
                finish(future.result())
        except BrokenProcessPool:
            log.warning("an order-estimation worker died; estimating the remaining dishes in this process")
        finally:  # an error in on_done or Ctrl-C: drop the dishes not started instead of estimating them all
            pool.shutdown(wait=True, cancel_futures=True)
    done = {r.dish for r in results}
    _init_worker()
    for t in tasks:  # in the caller's order: a serial run stores (and reports) the dishes as given
        if t.ds.dish not in done:
            finish(run_task(t))
    pos = {t.ds.dish: i for i, t in enumerate(tasks)}
    return sorted(results, key=lambda r: pos[r.dish])


def recovery_auc(estimates: Iterable[Estimate], truth: dict[str, set[tuple[str, str]]]) -> dict:
    """ROC AUC of ψ as a score for "cause must precede effect" against planted truth (per-dish pairs)."""
    from sklearn.metrics import roc_auc_score

    scores, labels = [], []
    for e in estimates:
        if e.ate is None:
            continue
        scores.append(e.ate)
        labels.append(int((e.cause, e.effect) in truth.get(e.dish, set())))
    out = {
        "pairs": len(scores),
        "positives": int(sum(labels)),
        "auc": None,
        "mean_ate_pos": float(np.mean([s for s, p in zip(scores, labels) if p])) if any(labels) else None,
        "mean_ate_neg": float(np.mean([s for s, p in zip(scores, labels) if not p])) if not all(labels) else None,
    }
    if 0 < sum(labels) < len(labels):
        out["auc"] = float(roc_auc_score(labels, scores))
    return out
