"""DiNeR's dish-name metrics: component F1 (with its approximation for unparsable predictions) and EM.

Both names are parsed into component atoms (type:cluster), so a synonym (凤爪 for 鸡爪) is not an error.
A prediction the glossary cannot parse still earns credit as DiNeR scores it: a gold component counts as a
true positive if any surface form of its cluster occurs in the prediction string, and the number of
predicted components is estimated from length, ``n_p = n * len(pred) / sum(len(c_i))`` with n gold
components c_i. F1 is micro-averaged (sums of TP, n_p, n_g over all examples); the per-example mean that
DiNeR's released code reports is given too as ``macro``. (That code tests ``pred_id == []`` on a set, so
its fallback never fires and unparsable predictions score 0; here it does fire.) Exact match compares
the strings.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dishgraph.diner.names import TYPES, DinerGlossary, NameParse, parse_name


@dataclass
class Counts:
    tp: float = 0.0
    n_pred: float = 0.0
    n_gold: float = 0.0

    def add(self, tp: float, n_pred: float, n_gold: float) -> None:
        self.tp += tp
        self.n_pred += n_pred
        self.n_gold += n_gold

    @property
    def precision(self) -> float:
        return self.tp / self.n_pred if self.n_pred else 0.0

    @property
    def recall(self) -> float:
        return self.tp / self.n_gold if self.n_gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_dict(self) -> dict:
        return {
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "tp": self.tp,
            "n_pred": self.n_pred,
            "n_gold": self.n_gold,
        }


@dataclass
class ExampleScore:
    gold: str
    pred: str
    pred_parsed: bool
    exact: bool
    total: Counts
    by_type: dict[str, Counts]
    form: str = "n/a"


def score_example(pred: str, gold: NameParse, glossary: DinerGlossary, form: str = "n/a") -> ExampleScore:
    """Component counts of one prediction against a parsed gold name."""
    pred = pred.strip()
    gold_by_type: dict[str, set[str]] = defaultdict(set)
    for c in gold.components:
        gold_by_type[c.type].add(c.cluster)
    by_type = {t: Counts() for t in TYPES}
    p = parse_name(pred, glossary) if pred else NameParse(pred)
    parsed = p.ok or not pred
    if parsed:
        pred_by_type: dict[str, set[str]] = defaultdict(set)
        for c in p.components:
            pred_by_type[c.type].add(c.cluster)
        for t in TYPES:
            by_type[t].add(len(pred_by_type[t] & gold_by_type[t]), len(pred_by_type[t]), len(gold_by_type[t]))
    else:
        n_gold = sum(len(v) for v in gold_by_type.values())
        gold_len = sum(len(c.surface) for c in gold.components)
        for t in TYPES:
            tp = sum(any(s in pred for s in glossary.surfaces(t, cl)) for cl in gold_by_type[t])
            by_type[t].add(tp, len(gold_by_type[t]) * len(pred) / gold_len if gold_len else 0.0, len(gold_by_type[t]))
        assert n_gold == sum(c.n_gold for c in by_type.values())
    total = Counts()
    for c in by_type.values():
        total.add(c.tp, c.n_pred, c.n_gold)
    return ExampleScore(gold.name, pred, parsed, pred == gold.name, total, by_type, form)


@dataclass
class DinerScores:
    n: int
    micro: Counts
    macro: dict[str, float]
    exact_match: float
    by_type: dict[str, Counts]
    by_form: dict[str, dict]
    unparsable_predictions: int
    skipped: list[dict] = field(default_factory=list)  # gold names the glossary cannot parse

    def to_dict(self) -> dict:
        return {
            "n": self.n,
            "micro": self.micro.to_dict(),
            "macro": self.macro,
            "exact_match": self.exact_match,
            "by_type": {t: c.to_dict() for t, c in self.by_type.items()},
            "by_form": self.by_form,
            "unparsable_predictions": self.unparsable_predictions,
            "skipped": self.skipped,
        }


def diner_f1(
    preds: Sequence[str],
    golds: Sequence[str],
    glossary: DinerGlossary | None = None,
    forms: Mapping[str, str] | Sequence[str | None] | None = None,
) -> DinerScores:
    """Score predictions against gold dish names; ``forms`` (gold name -> form, or one per example)
    adds a per-generalization-form breakdown. Gold names that do not parse are skipped and listed."""
    if len(preds) != len(golds):
        raise ValueError(f"{len(preds)} predictions but {len(golds)} gold names")
    glossary = glossary or DinerGlossary.load()
    scores, skipped = [], []
    for i, (pred, gold) in enumerate(zip(preds, golds)):
        g = parse_name(gold, glossary)
        if not g.ok:
            skipped.append({"index": i, "gold": gold, "remainder": g.remainder})
            continue
        form = _form_of(forms, i, g.name)
        scores.append(score_example(pred, g, glossary, form))
    return aggregate(scores, skipped)


def _form_of(forms, i: int, gold: str) -> str:
    if forms is None:
        return "n/a"
    if isinstance(forms, Mapping):
        return forms.get(gold) or "n/a"
    return forms[i] or "n/a"


def aggregate(scores: Sequence[ExampleScore], skipped: list[dict] | None = None) -> DinerScores:
    micro = Counts()
    by_type = {t: Counts() for t in TYPES}
    groups: dict[str, list[ExampleScore]] = defaultdict(list)
    for s in scores:
        micro.add(s.total.tp, s.total.n_pred, s.total.n_gold)
        for t, c in s.by_type.items():
            by_type[t].add(c.tp, c.n_pred, c.n_gold)
        groups[s.form].append(s)
    n = len(scores)
    macro = {k: (sum(getattr(s.total, k) for s in scores) / n if n else 0.0) for k in ("precision", "recall", "f1")}
    by_form = {}
    for form, group in sorted(groups.items()):
        c = Counts()
        for s in group:
            c.add(s.total.tp, s.total.n_pred, s.total.n_gold)
        by_form[form] = {
            "n": len(group),
            "f1": c.f1,
            "precision": c.precision,
            "recall": c.recall,
            "exact_match": sum(s.exact for s in group) / len(group),
        }
    return DinerScores(
        n=n,
        micro=micro,
        macro=macro,
        exact_match=(sum(s.exact for s in scores) / n if n else 0.0),
        by_type=by_type,
        by_form=by_form,
        unparsable_predictions=sum(not s.pred_parsed for s in scores),
        skipped=skipped or [],
    )


def read_predictions(path: str | Path) -> list[dict]:
    """JSONL lines ``{"pred": ..., "gold": ...}`` (or ``"name"`` for the gold), optional ``"form"``."""
    from dishgraph.jsonl import json_objects

    rows = []
    for lineno, obj in json_objects(path, "a JSON object with 'pred' and 'gold' (or 'name')"):
        gold = obj.get("gold", obj.get("name"))
        pred = obj.get("pred")
        if not isinstance(gold, str) or not isinstance(pred, str):
            raise ValueError(f"{path}:{lineno}: needs string fields 'pred' and 'gold' (or 'name')")
        rows.append({"pred": pred, "gold": gold, "form": obj.get("form"), "line": lineno})
    return rows


def evaluate_file(
    path: str | Path, glossary: DinerGlossary | None = None, forms: Mapping[str, str] | None = None
) -> DinerScores:
    """Score a predictions file; a ``form`` field on a line wins over the ``forms`` mapping."""
    rows = read_predictions(path)
    per_example: list[str | None] = [r["form"] or (forms or {}).get(r["gold"]) for r in rows]
    scores = diner_f1([r["pred"] for r in rows], [r["gold"] for r in rows], glossary, per_example)
    for s in scores.skipped:
        s["line"] = rows[s.pop("index")]["line"]
    return scores
