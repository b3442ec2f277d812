"""What composition is tuned by: source kinds, mixture settings, insertion methods, storage threshold."""

from __future__ import annotations

from dataclasses import asdict, dataclass

KINDS = ("base", "action", "flavour", "food", "class", "own")


# how a composed pair's insertions are chosen (``compose_pairs(inserts=...)``): the paper's rule, the ranker,
# or the rule's insertions plus the ranker's
RULE, RANKER, RULE_AND_RANKER = "rule", "ranker", "rule+ranker"


INSERT_METHODS = (RULE, RANKER, RULE_AND_RANKER)


# chosen nested inside the even CRG pairs, each method tuned on one half and scored on the other
# (benchmarks/choose_insert_method.py, benchmarks/results/insert_method.json)
DEFAULT_INSERTS = RULE


# Composed frequencies below this are not stored: absent reads as 0, which changes no pivot (a remove-pivot
# needs a base share of min_fb >= 0.05 >> alpha * 0.005, an insert-pivot a composed share above tau_i).
STORE_MIN_FREQ = 0.005


@dataclass(frozen=True)
class ComposeSettings:
    """Source-kind weights and the shrinkage constant k (a source of n recipes weighs n / (n + k)).

    Defaults: component and class weights from the leave-one-dish-out fit on corpus dishes, the base weight
    from the even CRG pairs (see ``benchmarks/results/compose.json``)."""

    base: float = 0.2
    action: float = 1.0
    flavour: float = 1.0
    food: float = 1.0
    cls: float = 0.3
    own: float = 3.0
    shrink: float = 5.0
    # Pool each component / class source per corpus (recipe source tag), each corpus shrunk on its own recipes
    # and weighted by ``corpora`` (tag -> weight, 1 for a tag not listed): a corpus of another style adds a
    # source the fit can weigh down instead of diluting the one it joins.
    by_corpus: bool = False
    corpora: tuple[tuple[str, float], ...] = ()
    # An action on the target's own ingredient class is mixed only over sources that do something to that
    # class in at least this share of their recipes (0: every source, as a plain mixture).
    focus_kappa: float = 0.0

    def weight(self, kind: str, corpus: str = "") -> float:
        w = self.cls if kind == "class" else getattr(self, kind)
        return w * dict(self.corpora).get(corpus, 1.0) if corpus else w

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class ComposedThresholds:
    """The paper's rule (α, τR, τI) plus a floor on the base frequency of a remove-pivot and a lower insert
    threshold for what is done to the new ingredient alone. Tuned on the even CRG pairs."""

    alpha: float = 3.0
    tau_r: float = 0.1
    tau_i: float = 0.2
    min_fb: float = 0.1
    tau_new: float = 0.03
    # inserts="ranker": the insertion probability a candidate needs (chosen on the even pairs from the grid of
    # benchmarks/bench_compose.py --limits, for the default model and for the logistic one alike)
    ranker_min_prob: float = 0.1
