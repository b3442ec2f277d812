"""CRG level-2 (action-level) evaluation, following the reference ``L2_eval.py`` step by step.

Per instance: parse base and generation into proto-actions; the *changes* are base actions missing from the
generation (removed) and generation actions missing from the base (inserted), minus *simple replacements*
(a removed action whose copy with the replaced ingredient swapped for the new one is in the generation; an
inserted action that is such a copy) unless the action is a pivot. Pivots that apply to this base recipe are
remove-pivots it contains and insert-pivots it lacks. Correctly inserted pivots whose order constraints are
violated in the generation (cause after effect) are dropped from the candidates but stay in the precision
denominator. Hard match: same proto-action; soft match: phrase cosine ≥ 0.9 counts with its similarity.
Instances with no pivots and no changes are NaN and skipped by ``nanmean`` exactly as the reference does.

Differences from the reference, forced by the data we have: proto-actions come from our parser and the
glossary classes (not CRG's per-dish verb clusters), and pivot phrases come from `pivot_texts` (default: a
phrase synthesised from the proto-action plus, for remove-pivots, the base recipe's own phrases), since
CRG's ``parsing_data.pkl`` with reference-recipe phrases is not released.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from dishgraph.actions import Action, ProtoAction
from dishgraph.eval.outputs import Instance

REMOVE, INSERT = "remove", "insert"
SIM_THRESHOLD = 0.9  # τ_s
HARD_EPS = 1e-5  # the reference counts a pair as a hard match when its weight exceeds 1 - 1e-5

Parse = Callable[[str], list[Action]]
Similarity = Callable[[Sequence[str], Sequence[str]], np.ndarray]
PivotTexts = Callable[[Instance, ProtoAction, str, list[Action]], list[str]]
METRICS = ("hard_p", "hard_r", "hard_f1", "soft_p", "soft_r", "soft_f1")


@dataclass(frozen=True)
class OrderConstraint:
    """Pivot `action` must keep each (cause, effect) pair in order when both occur in the generation."""

    action: ProtoAction
    pairs: tuple[tuple[ProtoAction, ProtoAction], ...]


@dataclass
class L2Reference:
    pivots: dict[str, list[tuple[ProtoAction, str]]]  # target dish → [(proto-action, "remove"|"insert")]
    constraints: dict[str, list[OrderConstraint]] = field(default_factory=dict)

    @classmethod
    def from_data(cls, pivots: Mapping, constraints: Mapping | None = None) -> L2Reference:
        """Normalise pivots ``{target: [(proto, kind)]}`` and constraints given either as
        ``{target: [OrderConstraint | (action, [(cause, effect)])]}`` or flat ``{target: [(cause, effect)]}``
        (a flat pair is attached to both of its actions)."""
        piv: dict[str, list[tuple[ProtoAction, str]]] = {}
        for target, items in pivots.items():
            rows = []
            for item in items:
                if isinstance(item, Mapping):
                    proto, kind = ProtoAction.from_release(item), item.get("kind")
                else:
                    proto, kind = item
                if kind not in (REMOVE, INSERT):
                    raise ValueError(f"pivot {proto} of {target}: kind must be remove|insert, got {kind!r}")
                rows.append((proto, kind))
            piv[target] = rows
        return cls(piv, {t: normalise_constraints(c) for t, c in (constraints or {}).items()})

    @classmethod
    def from_release(cls, directory: str | Path | None = None) -> L2Reference:
        """The released ``pivot_actions.json`` and ``order_constraints.json``."""
        from dishgraph.eval.outputs import crg_dir

        d = crg_dir(directory)
        pivots = _read_json(d / "pivot_actions.json")
        cons_path = d / "order_constraints.json"
        constraints = _read_json(cons_path) if cons_path.exists() else {}
        return cls.from_data(pivots, constraints)


def _read_json(path: Path):
    with open(path, encoding="utf-8-sig") as fh:
        try:
            return json.load(fh)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None


def _proto(x) -> ProtoAction:
    return x if isinstance(x, ProtoAction) else ProtoAction.from_release(x)


def normalise_constraints(items: Iterable) -> list[OrderConstraint]:
    structured: list[OrderConstraint] = []
    flat: dict[ProtoAction, list[tuple[ProtoAction, ProtoAction]]] = {}
    for item in items:
        if isinstance(item, OrderConstraint):
            structured.append(item)
        elif isinstance(item, Mapping):  # release shape {action, pairs}
            structured.append(
                OrderConstraint(_proto(item["action"]), tuple((_proto(c), _proto(e)) for c, e in item["pairs"]))
            )
        else:
            a, b = item
            if isinstance(b, (ProtoAction, Mapping)):  # a flat (cause, effect) pair
                cause, effect = _proto(a), _proto(b)
                for end in dict.fromkeys((cause, effect)):
                    flat.setdefault(end, []).append((cause, effect))
            else:
                structured.append(OrderConstraint(_proto(a), tuple((_proto(c), _proto(e)) for c, e in b)))
    structured.extend(OrderConstraint(a, tuple(p)) for a, p in flat.items())
    return structured


# ---------------------------------------------------------------------------------------------- metrics


def calc_f1(p: float, r: float) -> float:
    if p == 0 and r == 0:
        return 0.0
    return float(np.divide(2 * p * r, p + r))


def measure_metrics(
    pivot_text: Mapping[ProtoAction, list[str]],
    generate_text: Mapping[ProtoAction, str],
    wrong_order: Iterable[ProtoAction],
    similarity: Similarity | None,
    threshold: float = SIM_THRESHOLD,
) -> tuple[float, ...]:
    """(hard P, R, F1, soft P, R, F1) of generated changes against pivots, with the reference's NaN rules:
    nothing on either side → all NaN; no pivots → P = 0, R/F1 NaN; no changes → R = 0, P/F1 NaN."""
    nan = float("nan")
    if not pivot_text and not generate_text:
        return (nan,) * 6
    if not pivot_text:
        return 0.0, nan, nan, 0.0, nan, nan
    if not generate_text:
        return nan, 0.0, nan, nan, 0.0, nan
    wrong = set(wrong_order)
    candidates = [a for a in generate_text if a not in wrong]
    hard_p = hard_r = soft_p = soft_r = 0.0
    if candidates:
        cand_texts = [generate_text[a] for a in candidates]
        m = np.zeros((len(pivot_text), len(candidates)))
        for i, (pivot, texts) in enumerate(pivot_text.items()):
            if texts and similarity is not None:
                sim = np.array(similarity(list(texts), cand_texts), dtype=float)
                sim[sim < threshold] = 0
                m[i] = sim.max(axis=0)
            for j, a in enumerate(candidates):
                if a == pivot:
                    m[i, j] = 1
        row_best, col_best = m.max(axis=1), m.max(axis=0)
        hard_r, soft_r = float((row_best > 1 - HARD_EPS).sum()), float(row_best.sum())
        hard_p, soft_p = float((col_best > 1 - HARD_EPS).sum()), float(col_best.sum())
    hard_p /= len(generate_text)
    hard_r /= len(pivot_text)
    soft_p /= len(generate_text)
    soft_r /= len(pivot_text)
    return hard_p, hard_r, calc_f1(hard_p, hard_r), soft_p, soft_r, calc_f1(soft_p, soft_r)


def validate_orders(
    correct_insertion: set[ProtoAction], proto_g: Sequence[ProtoAction], constraints: Sequence[OrderConstraint]
) -> tuple[list[ProtoAction], int]:
    """Correct insertions violating an order constraint, and how many insertions had a checkable pair.
    Positions are the *last* occurrence of each action in the generation, as in the reference."""
    last = {p: i for i, p in enumerate(proto_g)}
    pairs_of: dict[ProtoAction, list[tuple[ProtoAction, ProtoAction]]] = {}
    for c in constraints:  # one action may come with several constraint entries: any violation counts
        if c.action in correct_insertion:
            pairs_of.setdefault(c.action, []).extend(c.pairs)
    wrong, checked = [], 0
    for action, pairs in pairs_of.items():
        num = ok = 0
        for cause, effect in pairs:
            if cause in last and effect in last:
                num += 1
                ok += last[cause] < last[effect]
        checked += num > 0
        if ok < num:
            wrong.append(action)
    return wrong, checked


# ---------------------------------------------------------------------------------------------- instances


def synthesized_phrase(proto: ProtoAction) -> str:
    """A phrase for a proto-action with no attested text: its verb, ingredient and tool class names."""
    return " ".join([proto.verb, *sorted(proto.ingredients), *sorted(proto.tools)])


def default_pivot_texts(instance: Instance, proto: ProtoAction, kind: str, base_actions: list[Action]) -> list[str]:
    texts = [synthesized_phrase(proto)]
    if kind == REMOVE:
        texts += [a.phrase for a in base_actions if a.proto == proto and a.phrase]
    return list(dict.fromkeys(texts))


def replaced_proto(action: Action, old: str, new: str, ingredient_class: Callable[[str], str]) -> ProtoAction | None:
    """The proto-action with the replaced ingredient swapped for the new one, if `old` is among its
    surface ingredients (the reference matches the surface form exactly)."""
    if not old or action.proto is None or old not in action.ingredients:
        return None
    old_cls = ingredient_class(old)
    remaining = {ingredient_class(s) for s in action.ingredients if s != old}
    ingredients = (set(action.proto.ingredients) - ({old_cls} - remaining)) | {ingredient_class(new)}
    return ProtoAction(action.proto.verb, frozenset(ingredients), action.proto.tools)


@dataclass
class InstanceL2:
    all: tuple[float, ...]
    insert: tuple[float, ...]
    remove: tuple[float, ...]
    order_checked: int = 0
    order_wrong: int = 0
    pivots_remove: int = 0
    pivots_insert: int = 0
    removed: int = 0
    inserted: int = 0


@dataclass
class InstanceChanges:
    """What one generation changed against its base recipe, matched to the instance's pivots: the texts the
    similarity will compare (pivot phrases, changed actions' phrases) and the order check. Computed for
    every instance before any similarity is asked for, so all phrases can be embedded in one batch."""

    pivot_text: tuple[dict, dict]  # (remove, insert): pivot proto -> texts
    generate_text: tuple[dict, dict]  # (removed, inserted): proto -> phrase
    wrong: list
    checked: int
    pivots_remove: int
    pivots_insert: int

    def texts(self) -> list[str]:
        """The texts `measure_metrics` will embed: none unless both sides have something and some change
        is not an order violation (the sub-scores for insertions and removals compare subsets of these)."""
        wrong = set(self.wrong)
        candidates = [t for side in self.generate_text for a, t in side.items() if a not in wrong]
        pivots = [t for side in self.pivot_text for texts in side.values() for t in texts]
        return pivots + candidates if pivots and candidates else []


def instance_changes(
    instance: Instance,
    base_actions: list[Action],
    gen_actions: list[Action],
    pivots: Sequence[tuple[ProtoAction, str]],
    constraints: Sequence[OrderConstraint],
    ingredient_class: Callable[[str], str] = lambda s: s,
    pivot_texts: PivotTexts = default_pivot_texts,
) -> InstanceChanges:
    base = [a for a in base_actions if a.proto is not None]
    gen = [a for a in gen_actions if a.proto is not None]
    proto_o = [a.proto for a in base]
    proto_g = [a.proto for a in gen]
    set_o, set_g = set(proto_o), set(proto_g)

    proto_o2r: dict[ProtoAction, ProtoAction] = {}
    proto_r: set[ProtoAction] = set()
    for a in base:
        r = replaced_proto(a, instance.old, instance.new, ingredient_class)
        if r is not None:
            proto_o2r[a.proto] = r
            proto_r.add(r)

    pivot_sets: tuple[set, set] = (set(), set())
    pivot_text: tuple[dict, dict] = ({}, {})
    for proto, kind in pivots:
        if kind == REMOVE and proto in set_o:
            idx = 0
        elif kind == INSERT and proto not in set_o:
            idx = 1
        else:
            continue
        pivot_sets[idx].add(proto)
        pivot_text[idx][proto] = pivot_texts(instance, proto, kind, base)

    generate_text: tuple[dict, dict] = ({}, {})
    for a in base:
        p = a.proto
        if p not in set_g and (p in pivot_sets[0] or not (p in proto_o2r and proto_o2r[p] in set_g)):
            generate_text[0][p] = a.phrase
    for a in gen:
        p = a.proto
        if p not in set_o and (p in pivot_sets[1] or p not in proto_r):
            generate_text[1][p] = a.phrase

    correct_insertion = pivot_sets[1] & set(generate_text[1])
    wrong, checked = validate_orders(correct_insertion, proto_g, constraints)
    return InstanceChanges(pivot_text, generate_text, wrong, checked, len(pivot_sets[0]), len(pivot_sets[1]))


def score_changes(
    changes: InstanceChanges, similarity: Similarity | None, threshold: float = SIM_THRESHOLD
) -> InstanceL2:
    pivot_text, generate_text, wrong = changes.pivot_text, changes.generate_text, changes.wrong
    pivot_all = {**pivot_text[0], **pivot_text[1]}
    generate_all = {**generate_text[0], **generate_text[1]}
    return InstanceL2(
        all=measure_metrics(pivot_all, generate_all, wrong, similarity, threshold),
        insert=measure_metrics(pivot_text[1], generate_text[1], wrong, similarity, threshold),
        remove=measure_metrics(pivot_text[0], generate_text[0], (), similarity, threshold),
        order_checked=changes.checked,
        order_wrong=len(wrong),
        pivots_remove=changes.pivots_remove,
        pivots_insert=changes.pivots_insert,
        removed=len(generate_text[0]),
        inserted=len(generate_text[1]),
    )


def score_instance(
    instance: Instance,
    base_actions: list[Action],
    gen_actions: list[Action],
    pivots: Sequence[tuple[ProtoAction, str]],
    constraints: Sequence[OrderConstraint],
    similarity: Similarity | None,
    ingredient_class: Callable[[str], str] = lambda s: s,
    pivot_texts: PivotTexts = default_pivot_texts,
    threshold: float = SIM_THRESHOLD,
) -> InstanceL2:
    """L2 of one instance: its changes (`instance_changes`) scored against its pivots (`score_changes`)."""
    changes = instance_changes(instance, base_actions, gen_actions, pivots, constraints, ingredient_class, pivot_texts)
    return score_changes(changes, similarity, threshold)


# ---------------------------------------------------------------------------------------------- corpus


class CachedParse:
    """Memoised parsing; `cache` (a mapping or a lookup returning None when absent) is consulted first, so
    base-recipe parses can be served from the graph instead of re-parsing."""

    def __init__(
        self, parse: Parse, cache: Mapping[str, list[Action]] | Callable[[str], list[Action] | None] | None = None
    ):
        self.parse = parse
        self.cache = cache
        self.memo: dict[str, list[Action]] = {}
        self.parsed = 0

    def __call__(self, text: str) -> list[Action]:
        got = self.memo.get(text)
        if got is None:
            if isinstance(self.cache, Mapping):
                got = self.cache.get(text)
            elif self.cache is not None:
                got = self.cache(text)
            if got is None:
                got = self.parse(text)
                self.parsed += 1
            self.memo[text] = got
        return got


def nanmean(rows: Sequence[Sequence[float]], width: int = 6) -> list[float]:
    if not rows:
        return [float("nan")] * width
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns stay NaN
        return [float(x) for x in np.nanmean(np.array(rows, dtype=float), axis=0)]


def evaluate_l2(
    outputs: Sequence[str],
    instances: Sequence[Instance],
    parse: Parse,
    reference: L2Reference | Mapping,
    similarity: Similarity | None = None,
    ingredient_class: Callable[[str], str] | None = None,
    parse_cache: Mapping[str, list[Action]] | Callable[[str], list[Action] | None] | None = None,
    pivot_texts: PivotTexts = default_pivot_texts,
    threshold: float = SIM_THRESHOLD,
    progress: Callable[[int], None] | None = None,
    details: list[InstanceL2] | None = None,
    prepare_texts: Callable[[list[str]], None] | None = None,
) -> dict:
    """Corpus L2 scores (×100): hard/soft P, R, F1 over all changes, F1 of insertions (+) and removals (−),
    and order accuracy (share of correctly inserted pivots with a checkable constraint kept in order).

    Every instance's changes are found first; ``prepare_texts`` (e.g. ``PhraseEmbedder.warm``) then gets
    every text the similarity will compare, so they can be segmented in one batch instead of one by one."""
    if len(outputs) != len(instances):
        raise ValueError(f"{len(outputs)} outputs for {len(instances)} instances")
    if not isinstance(reference, L2Reference):  # bare pivots {target: [(proto, kind)]}
        reference = L2Reference.from_data(reference)
    cached = parse if isinstance(parse, CachedParse) else CachedParse(parse, parse_cache)
    ingredient_class = ingredient_class or (lambda s: s)
    changes = []
    for text, inst in zip(outputs, instances):  # parses happen here when nothing prefetched them: progress
        changes.append(
            instance_changes(
                inst,
                cached(inst.base_recipe),
                cached(text),
                reference.pivots.get(inst.target, []),
                reference.constraints.get(inst.target, []),
                ingredient_class,
                pivot_texts,
            )
        )
        if progress:
            progress(1)
    if prepare_texts is not None:  # e.g. segment every phrase in one batch before the similarities
        prepare_texts([t for c in changes for t in c.texts()])
    rows = [score_changes(c, similarity, threshold) for c in changes]
    if details is not None:
        details.extend(rows)
    return summarize_l2(rows)


def summarize_l2(rows: Sequence[InstanceL2]) -> dict:
    out: dict = {}
    for prefix, attr in (("", "all"), ("insert_", "insert"), ("remove_", "remove")):
        means = nanmean([getattr(r, attr) for r in rows])
        for name, value in zip(METRICS, means):
            out[prefix + name] = 100.0 * value
    checked = sum(r.order_checked for r in rows)
    wrong = sum(r.order_wrong for r in rows)
    out["order_accuracy"] = 100.0 * (checked - wrong) / checked if checked else float("nan")
    out["order_checked"] = checked
    out["order_wrong"] = wrong
    out["n"] = len(rows)
    out["n_empty"] = int(sum(all(np.isnan(x) for x in r.all) for r in rows))  # no pivots, no changes
    # The reference averages F1 over the instances where it is defined (some change counted) only: a system
    # that changes little is scored on few instances. n_scored and hard_f1_all (undefined F1 counted as 0)
    # make that visible next to the reference's figure.
    scored = [r.all[2] for r in rows if not np.isnan(r.all[2])]
    out["n_scored"] = len(scored)
    out["hard_f1_all"] = 100.0 * sum(scored) / len(rows) if rows else float("nan")
    out["pivots_remove"] = sum(r.pivots_remove for r in rows)
    out["pivots_insert"] = sum(r.pivots_insert for r in rows)
    out["changes_removed"] = sum(r.removed for r in rows)
    out["changes_inserted"] = sum(r.inserted for r in rows)
    return out
