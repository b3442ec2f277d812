"""Order constraints in the graph: estimate MUST_PRECEDE edges per dish, look them up, check sequences.

Estimation reads each dish's recipes with one named query (``order_dish_sequences``), estimates ψ for
every candidate pair around the dish's frequent actions (``causal``), and stores the pairs with
ψ > τ_c as ``(:ProtoAction)-[:MUST_PRECEDE {dish, ate, …, source: "estimated", window}]->(:ProtoAction)``.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

from dishgraph.actions import Action, ProtoAction
from dishgraph.errors import InputError, UsageError
from dishgraph.graph.base import GraphStore
from dishgraph.ingest import crg
from dishgraph.knowledge import causal, names, precedence, step_swaps
from dishgraph.knowledge.frequencies import dish_actions, dishes_with_recipes, materialize_uses
from dishgraph.knowledge.pivots import COMPOSED

ESTIMATED = "estimated"
TESTED = "tested"  # order knowledge with evidence (knowledge/precedence): dish, family and global levels
# who writes MUST_PRECEDE edges: order estimate (the CRG method), order test, compose, the release
SOURCES = (ESTIMATED, TESTED, COMPOSED, crg.SOURCE)


@dataclass(frozen=True)
class OrderSettings:
    estimator: str = "fast"  # fast | dowhy
    window: str = "paper"  # paper | pretreatment
    tau_c: float = causal.TAU_C  # ψ above this makes a constraint
    min_freq: float = 0.1  # focus actions: f_d(a) >= min_freq
    min_support: int = 2  # candidate pair: x before y in at least this many recipes


@dataclass
class DishOrderReport:
    dish: str
    recipes: int
    focus_actions: int
    pairs: int
    estimated: int
    skipped: int
    constraints: int
    seconds: float


@dataclass
class OrderReport:
    settings: OrderSettings
    dishes: list[DishOrderReport] = field(default_factory=list)
    estimates: list[causal.Estimate] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self, with_estimates: bool = False) -> dict:
        d = {
            "settings": asdict(self.settings),
            "dishes": [asdict(x) for x in self.dishes],
            "totals": {
                k: sum(getattr(x, k) for x in self.dishes) for k in ("pairs", "estimated", "skipped", "constraints")
            },
            "seconds": self.seconds,
        }
        if with_estimates:
            d["estimates"] = [e.to_dict() for e in self.estimates]
        return d


def dish_sequences(store: GraphStore, dish: str) -> causal.DishSequences:
    return causal.DishSequences.from_rows(dish, store.query("order_dish_sequences", dish=dish))


def focus_actions(store: GraphStore, dish: str, min_freq: float) -> list[str]:
    return [r["action"] for r in dish_actions(store, dish, top=1_000_000, min_freq=min_freq)]


def estimate_order(
    store: GraphStore,
    dishes: Sequence[str] | None = None,
    settings: OrderSettings = OrderSettings(),
    *,
    workers: int = 1,
    write: bool = True,
    on_dish: Callable[[causal.DishResult], None] | None = None,
) -> OrderReport:
    """Estimate and store order constraints of ``dishes`` (default: every dish with parsed recipes)."""
    if settings.estimator not in causal.ESTIMATORS:
        raise ValueError(f"estimator {settings.estimator!r} is not one of {causal.ESTIMATORS}")
    if settings.window not in causal.WINDOWS:
        raise ValueError(f"window {settings.window!r} is not one of {causal.WINDOWS}")
    t0 = time.perf_counter()
    have = dishes_with_recipes(store)
    dishes = list(dishes) if dishes is not None else sorted(have)
    missing = [d for d in dishes if d not in have]
    for dish in missing[:5]:  # a misspelt dish is named with the closest ones, before "no recipes"
        names.require_dish(store, dish)
    if missing:
        raise KeyError(f"no parsed recipes for dish(es) {missing[:5]} (ingest and parse them first)")
    materialize_uses(store, dishes)
    tasks, focus_n = [], {}
    for d in dishes:
        ds = dish_sequences(store, d)
        focus = focus_actions(store, d, settings.min_freq)
        focus_n[d] = len(focus)
        tasks.append(
            causal.DishTask(
                ds, causal.candidate_pairs(ds, focus, settings.min_support), settings.estimator, settings.window
            )
        )

    def done(res: causal.DishResult) -> None:
        # Stored as each dish finishes, not at the end: a kill or an error loses at most the dishes in
        # progress, and a rerun recomputes every dish idempotently (cleared, then written).
        if write:
            store_constraints(store, res.dish, settings, res.estimates)
        if on_dish:
            on_dish(res)

    results = causal.run_tasks(tasks, workers=workers, on_done=done)
    rep = OrderReport(settings)
    for task, res in zip(tasks, results):
        kept = _kept(res.estimates, settings)
        rep.estimates.extend(res.estimates)
        rep.dishes.append(
            DishOrderReport(
                res.dish,
                len(task.ds.recipes),
                focus_n[res.dish],
                len(task.pairs),
                sum(e.ate is not None for e in res.estimates),
                sum(e.skipped is not None for e in res.estimates),
                len(kept),
                res.seconds,
            )
        )
    rep.seconds = time.perf_counter() - t0
    return rep


def _kept(estimates: Iterable[causal.Estimate], settings: OrderSettings) -> list[causal.Estimate]:
    return [e for e in estimates if e.ate is not None and e.ate > settings.tau_c]


@dataclass
class _Decision:
    cause: str
    effect: str
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    q_value: float
    kept: bool
    decision: str


def estimate_evidence(
    estimates: Sequence[causal.Estimate], tau_c: float = causal.TAU_C, alpha: float = precedence.ALPHA
) -> list[_Decision]:
    """The evidence of each stored estimate (ψ > τ_c) of one dish: interval, p-value, Benjamini–Hochberg q over
    every pair estimated in the dish, and the decision: kept when q ≤ alpha and the interval excludes zero,
    never in both directions ("both directions"), never in a cycle ("cycle")."""
    ests = [e for e in estimates if e.ate is not None]
    qs = precedence.bh([e.p_value if e.p_value is not None else 1.0 for e in ests])
    stored = {(e.cause, e.effect) for e in ests if e.ate is not None and e.ate > tau_c}
    out = []
    for e, q in zip(ests, qs):
        if (e.cause, e.effect) not in stored:
            continue
        ci = e.ci
        if (e.effect, e.cause) in stored:
            kept, why = False, "both directions"
        elif ci is None or ci[0] <= 0:
            kept, why = False, "interval includes zero"
        elif q > alpha:
            kept, why = False, "not significant"
        else:
            kept, why = True, "kept"
        out.append(_Decision(e.cause, e.effect, ci[0] if ci else None, ci[1] if ci else None, e.p_value, q, kept, why))
    precedence.drop_cycles([d for d in out if d.kept])  # type: ignore[misc]
    return out


def store_constraints(
    store: GraphStore, dish: str, settings: OrderSettings, estimates: Iterable[causal.Estimate]
) -> int:
    """Replace the dish's estimated constraints of this window by those with ψ > τ_c, each with its evidence
    (`estimate_evidence`); returns how many."""
    estimates = list(estimates)
    kept = _kept(estimates, settings)
    store.query("order_clear_estimated", dish=dish, source=ESTIMATED, window=settings.window)
    store.write(
        "order_write_constraints",
        [
            {
                "cause": e.cause,
                "effect": e.effect,
                "dish": e.dish,
                "ate": e.ate,
                "n_treated": e.n_treated,
                "n_control": e.n_control,
                "estimator": e.estimator,
                "source": ESTIMATED,
                "window": e.window,
            }
            for e in kept
        ],
    )
    store.write(
        "order_write_evidence",
        [
            {**asdict(d), "dish": dish, "source": ESTIMATED, "window": settings.window}
            for d in estimate_evidence(list(estimates), settings.tau_c)
        ],
    )
    return len(kept)


# ------------------------------------------------------------------------------------------ lookups
@dataclass
class Constraint:
    cause: str
    effect: str
    ate: float | None = None
    n_treated: int | None = None
    n_control: int | None = None
    estimator: str | None = None
    source: str | None = None
    window: str | None = None
    dish: str | None = None  # "*": a global-level tested constraint
    level: str | None = None  # tested: dish | family | global
    ci_low: float | None = None
    ci_high: float | None = None
    q_value: float | None = None
    kept: bool | None = None  # the decision (estimated and tested constraints)
    decision: str | None = None
    confidence: float | None = None  # tested: lower 95% bound of the share of recipes keeping the order
    n_before: int | None = None
    n_after: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    def sure(self, min_confidence: float | None) -> bool:
        """Passes a confidence filter: tested ones by their confidence, estimated ones by their decision;
        constraints without evidence (composed, the release's) do not pass a filter above 0."""
        if not min_confidence:
            return True
        if self.confidence is not None:
            return self.confidence >= min_confidence
        return bool(self.kept)


_DISPLAY = re.compile(r"^\s*([^()]+?)\s*\((.*)\)\s*$")


def resolve_action(action: str | ProtoAction | Mapping) -> str:
    """A proto-action key from a key (``切|洋葱|``), a ProtoAction, a release dict, or ``切(洋葱; 刀)``."""
    if isinstance(action, ProtoAction):
        return action.key
    if isinstance(action, Mapping):
        return ProtoAction.from_release(action).key
    if "|" in action:
        return names.action_key(action)
    m = _DISPLAY.match(action)
    if m:
        inner = m.group(2)
        ingr, _, tools = inner.partition(";")

        def split(s: str) -> frozenset[str]:
            return frozenset(x.strip() for x in re.split(r"[,，+]", s) if x.strip())

        return ProtoAction(m.group(1).strip(), split(ingr), split(tools)).key
    return ProtoAction(action.strip()).key


def check_source(source: str | None) -> None:
    """A --source that no writer uses would filter every constraint out: a usage error naming the sources."""
    if source is not None and source not in SOURCES:
        names = ", ".join(SOURCES)
        raise UsageError(f"unknown constraint source {source!r}: the order constraints' sources are {names}")


def _constraints(rows: Iterable[dict], source: str | None, min_confidence: float | None = None) -> list[Constraint]:
    out = [Constraint(**r) for r in rows if source is None or r["source"] == source]
    return [c for c in out if c.sure(min_confidence)]


def order_constraints(
    store: GraphStore, dish: str, action, source: str | None = None, min_confidence: float | None = None
) -> tuple[list[Constraint], list[Constraint]]:
    """(must precede the action, must follow it) in the dish, from every source unless one is named; with
    ``min_confidence``, only constraints at least that sure (`Constraint.sure`). Tested constraints of the
    global level (dish "*") hold in every dish and are listed too.

    An unknown dish or action raises `UnknownName` with the closest names (an action written with surface
    forms, 切|菜心|, is told its class form, 切|油菜|); a known action without constraints gives ([], [])."""
    check_source(source)
    names.require_dish(store, dish)
    key = names.require_action(store, resolve_action(action))
    dishes = [dish] + ([precedence.GLOBAL_DISH] if source in (None, TESTED) else [])
    before = [r for d in dishes for r in store.query("action_must_precede", dish=d, action=key)]
    after = [r for d in dishes for r in store.query("action_must_follow", dish=d, action=key)]
    return _constraints(before, source, min_confidence), _constraints(after, source, min_confidence)


def dish_constraints(store: GraphStore, dish: str, source: str | None = None) -> list[Constraint]:
    check_source(source)
    return _constraints(store.query("order_dish_constraints", dish=dish), source)


def why_none(
    store: GraphStore, dish: str, action: str | None = None, source: str | None = None, hidden: set[str] | None = None
) -> str:
    """Why a lookup in ``dish`` found no order constraint, and what to run: the dish has none yet (estimate
    them, or first ingest its recipes), none from ``source`` (the sources it has), or none that involves
    ``action`` (a few actions that have some)."""
    counts = {r["source"]: r["constraints"] for r in store.query("order_dish_sources", dish=dish)}
    if not counts:
        recipes = dishes_with_recipes(store).get(dish, 0)
        if recipes:
            return f"{dish} has none yet: run `dishgraph order estimate {dish}` (from its {recipes} parsed recipes)"
        return (
            f"{dish} has none, and no parsed recipes to estimate them from: ingest its recipes (`dishgraph ingest "
            f"corpus FILE`), then run `dishgraph order estimate {dish}`; a target dish gets composed ones from "
            "`dishgraph pivots mine --knowledge composed`"
        )
    have = f"{sum(counts.values())} order constraints ({', '.join(f'{s} {n}' for s, n in sorted(counts.items()))})"
    if source is not None and source not in counts:
        return f"{dish} has none from {source}, only {have}; leave out --source for all"
    if action is None:
        return f"{dish} has {have}"
    rows = store.query("order_dish_actions", dish=dish, source=source or "", limit=200)
    if any(r["action"] == action for r in rows):  # it has some, each with an action the typed reading hides
        return (
            f"{dish} has {have}; those involving this action also involve an action hidden by default "
            "(not a cooking step on foods): --all-actions shows them"
        )
    busiest = [r["action"] for r in rows if r["action"] != action and not (hidden and r["action"] in hidden)][:5]
    return f"{dish} has {have}, none involving this action; actions that have some: " + ", ".join(busiest)


@dataclass
class Violation:
    cause: str
    effect: str
    cause_pos: int  # first occurrence of the cause (0-based index in the action sequence)
    effect_pos: int  # first occurrence of the effect, which comes before any cause
    ate: float | None
    sources: list[str]
    cause_phrase: str = ""
    effect_phrase: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def check_sequence(
    constraints: Sequence[Constraint], keys: Sequence[str], phrases: Sequence[str] | None = None
) -> list[Violation]:
    """Constraints c -> e violated by the sequence: e occurs, c occurs too, but only after e's first place."""
    first: dict[str, int] = {}
    for i, k in enumerate(keys):
        first.setdefault(k, i)
    merged: dict[tuple[str, str], Violation] = {}
    for c in constraints:
        if c.cause in first and c.effect in first and first[c.cause] > first[c.effect]:
            v = merged.get((c.cause, c.effect))
            if v is None:
                i, j = first[c.cause], first[c.effect]
                merged[(c.cause, c.effect)] = Violation(
                    c.cause,
                    c.effect,
                    i,
                    j,
                    c.ate,
                    [c.source or ""],
                    phrases[i] if phrases else "",
                    phrases[j] if phrases else "",
                )
            else:
                v.sources.append(c.source or "")
                if v.ate is None:
                    v.ate = c.ate
    return sorted(merged.values(), key=lambda v: (v.effect_pos, v.cause_pos, v.cause))


@dataclass
class OrderCheck:
    """`check_order`'s answer with what it rests on: an empty ``violations`` means something only when
    ``constraints`` were checked (``note`` says why there were none and what to run)."""

    violations: list  # Violation (first-occurrence check of one source) or precedence.ScoredViolation (tested)
    actions: int  # actions read from the text (or given)
    constraints: int  # constraints of the dish checked against them
    note: str = ""
    flagged: bool | None = None  # out of order: any violation (one source), confidence ≥ min_confidence (tested)
    confidence: float | None = None  # tested: how sure the recipe is out of order
    min_confidence: float | None = None
    applicable: int | None = None  # tested: constraints with both actions in the recipe (scored: pairs read)
    score: float | None = None  # scored: the recipe's z (Σ log-odds of its pairs' order / √Σ squares)
    lines: list[str] = field(default_factory=list)  # the recipe's lines (sentences), for --explain
    action_lines: list[int] = field(default_factory=list)  # each action's line
    # scored, from a text: how its sentences read in their written order (sentence_order.SentenceOrder.to_dict)
    sentence_order: dict | None = None
    # scored: one pair of dependent steps in each other's places (step_swaps.SwapReading.to_dict + phrases)
    swap: dict | None = None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["violations"] = [v.to_dict() for v in self.violations]
        return d


def check_actions(
    store: GraphStore,
    dish: str,
    keys: Sequence[str],
    phrases: Sequence[str],
    source: str | None = None,
    keep: Callable[[list[Constraint]], list[Constraint]] | None = None,
) -> OrderCheck:
    """The dish's constraints (of ``source``; those ``keep`` keeps) checked against an action sequence read from
    a recipe."""
    cons = dish_constraints(store, dish, source)
    if keep is not None:
        cons = keep(cons)
    note = "" if cons else why_none(store, dish, None, source)
    found = check_sequence(cons, keys, phrases)
    return OrderCheck(found, len(keys), len(cons), note, flagged=bool(found))


def check_tested(
    store: GraphStore,
    dish: str,
    keys: Sequence[str],
    phrases: Sequence[str],
    hidden: set[str] | None = None,
    min_confidence: float = precedence.MIN_CONFIDENCE,
) -> OrderCheck:
    """The whole recipe against the tested constraints, backing off dish → family → global (`check_recipe`)."""
    look, n = tested_lookup(store, dish, hidden)
    shown = [(k, p) for k, p in zip(keys, phrases) if not hidden or k not in hidden]
    rc = precedence.check_recipe([k for k, _ in shown], look, [p for _, p in shown], min_confidence)
    pos = [i for i, k in enumerate(keys) if not hidden or k not in hidden]
    for v in rc.violations:  # positions in the whole action sequence, as the one-source check gives them
        v.cause_pos, v.effect_pos = pos[v.cause_pos], pos[v.effect_pos]
    return OrderCheck(
        rc.violations, len(keys), n, "" if n else why_none(store, dish, None, TESTED), rc.flagged, rc.confidence,
        min_confidence, rc.applicable,
    )  # fmt: skip


def order_model(
    store: GraphStore,
    dish: str,
    keys: Sequence[str] | None = None,
    classes: Sequence[str] | None = None,
    rows: Sequence[Mapping] | None = None,
) -> precedence.OrderModel:
    """The pairwise order counts of every parsed recipe on the typed reading's keys (Step.typed_action, the CRG
    key where a step has none), at the levels dish, family (`dish_families`) and global; of the same keys lifted
    to the release's classes (Step.typed_classes) in the dish and over the corpus; and of their verb classes in
    the dish and over the corpus: the model `precedence.score_recipe` reads.

    Given the checked recipe's ``keys`` (and ``classes``), only pairs among them are counted: a pair's count
    depends on the positions of its two actions alone (`precedence.strict_pairs`), so the other actions of each
    recipe are dropped first, and a check counts a few pairs per recipe instead of all of them. ``rows``: the
    named query ``order_corpus_steps`` already read (a check reads it once for this and `swap_model`)."""
    rows = store.query("order_corpus_steps", dishes=[]) if rows is None else rows
    want = set(keys) if keys is not None else None
    want_cls = set(classes) if classes is not None else (want if want is not None else None)
    want_verbs = {precedence.verb_of(k) for k in want} if want is not None else None
    seqs: dict[str, list[str]] = {}
    cls: dict[str, list[str]] = {}
    dish_of: dict[str, str] = {}
    for r in rows:
        key = r.get("typed") or r["action"]
        seqs.setdefault(r["recipe"], []).append(key)
        cls.setdefault(r["recipe"], []).append(r.get("typed_classes") or key)
        dish_of[r["recipe"]] = r["dish"]
    fam = set(dish_families(store, [dish]).get(dish, []))
    own, family, glob, verbs, own_verbs, classes, own_classes = (Counter() for _ in range(7))
    for rid, s in seqs.items():
        verbs_of = [precedence.verb_of(k) for k in s]
        if want is not None:
            s, verbs_of = [k for k in s if k in want], [v for v in verbs_of if v in want_verbs]
            cls[rid] = [k for k in cls[rid] if k in want_cls]
        c = precedence.strict_pairs(s)
        v = precedence.strict_pairs(verbs_of)
        k = precedence.strict_pairs(cls[rid])
        glob.update(c)
        verbs.update(v)
        classes.update(k)
        if dish_of[rid] == dish:
            own.update(c)
            own_verbs.update(v)
            own_classes.update(k)
        elif dish_of[rid] in fam:
            family.update(c)
    P = precedence.PairCounts
    return precedence.OrderModel(
        [P("dish", own), P("family", family), P("global", glob)],
        [P("dish verbs", own_verbs), P("verbs", verbs)],
        classes=[P("dish classes", own_classes), P("global classes", classes)],
    )


def check_scored(
    store: GraphStore,
    dish: str,
    keys: Sequence[str],
    phrases: Sequence[str],
    min_confidence: float = precedence.MIN_RECIPE_CONFIDENCE,
    classes: Sequence[str] | None = None,
    swaps: tuple[Sequence[str], Sequence[object], float] | None = None,
) -> OrderCheck:
    """The whole recipe (typed keys, their class keys, repeats aligned) scored by how likely its order is
    (`precedence.score_recipe`); with ``swaps`` = (release keys, each action's sentence, cut), also read for one
    pair of dependent steps in each other's places (`step_swaps`): either flags."""
    rows = store.query("order_corpus_steps", dishes=[])
    model = order_model(store, dish, keys, classes, rows)
    rs = precedence.score_recipe(keys, model, phrases, min_confidence, classes=classes)
    rep = OrderCheck(
        rs.violations, len(keys), rs.pairs, "" if rs.pairs else "no pair of the recipe's actions is ordered in the "
        "corpus's recipes", rs.flagged, rs.confidence, min_confidence, rs.pairs, score=rs.z,
    )  # fmt: skip
    if swaps is not None:
        release, units, cut = swaps
        read = step_swaps.read_swaps(swap_model(rows, dish), keys, release, units, cut)
        rep.swap = read.to_dict()
        if read.first is not None and read.second is not None:
            rep.swap["phrases"] = [phrases[read.first], phrases[read.second]]
        rep.flagged = bool(rep.flagged or read.flagged)
    return rep


def swap_model(rows: Iterable[Mapping], dish: str, base: tuple | None = None) -> step_swaps.SwapModel:
    """The swap reading's model: every parsed recipe's typed keys, with the dish's own recipes on top (``base``:
    the corpus's (ActionTrigrams, KeyPlaces) when already counted from the same rows)."""
    seqs: dict[str, list[str]] = {}
    dish_of: dict[str, str] = {}
    for r in rows:
        seqs.setdefault(r["recipe"], []).append(r.get("typed") or r["action"])
        dish_of[r["recipe"]] = r["dish"]
    return step_swaps.SwapModel.of(seqs.values(), (s for rid, s in seqs.items() if dish_of[rid] == dish), base)


_LINE_END = re.compile(r"(?<=[。！？!?；;\n])")


def recipe_lines(text: str, starts: Sequence[int]) -> tuple[list[str], list[int]]:
    """The text's lines (split after 。！？；and newlines) and the line of each character offset."""
    lines, bounds, at = [], [], 0
    for part in _LINE_END.split(text):
        if part.strip():
            lines.append(part.strip())
            bounds.append(at + len(part))
        at += len(part)
    import bisect

    return lines, [min(bisect.bisect_right(bounds, s), len(lines) - 1) for s in starts]


def no_action_read(text: str) -> InputError:
    """Text in which the parser found no action: checking it would say "no constraint violated" of nothing."""
    shown = " ".join(text.split())
    shown = shown if len(shown) <= 40 else shown[:39] + "…"
    return InputError(
        f"no cooking action was read from the text {shown!r}, so there is nothing to check; give the recipe's "
        "steps in Chinese (e.g. 菜心洗净，切段，焯水。) — `dishgraph parse TEXT` shows what the parser reads"
    )


def action_sequence(
    actions_or_text,
    parser_factory: Callable[[], object] | None = None,
    starts: list[int] | None = None,
    typed: list[str] | None = None,
    classes: list[str] | None = None,
    units: list[object] | None = None,
) -> tuple[list[str], list[str]]:
    """(keys, phrases) from recipe text (parsed), Actions, ProtoActions, keys or display strings; ``starts``,
    when given, receives each action's offset in the text, ``typed`` each action's typed key, ``classes`` its
    class-lifted typed key (its key where an action has none) and ``units`` its sentence (a key or ProtoAction
    given alone: its own)."""
    if isinstance(actions_or_text, str):
        parser = parser_factory() if parser_factory else None
        if parser is None:
            raise ValueError("checking free text needs the recipe parser (dishgraph.ingest.parser)")
        acts = [a for a in parser.parse(actions_or_text) if a.proto is not None]
        if starts is not None:
            starts.extend(a.start for a in acts)
        if typed is not None:
            typed.extend(a.typed_key or a.proto.key for a in acts)
        if classes is not None:
            classes.extend(a.typed_class_key or a.typed_key or a.proto.key for a in acts)
        if units is not None:
            units.extend(a.step for a in acts)
        return [a.proto.key for a in acts], [a.phrase for a in acts]
    keys, phrases = [], []
    for a in actions_or_text:
        if isinstance(a, Action):
            if a.proto is None:
                continue
            keys.append(a.proto.key)
            phrases.append(a.phrase)
            if typed is not None:
                typed.append(a.typed_key or a.proto.key)
            if classes is not None:
                classes.append(a.typed_class_key or a.typed_key or a.proto.key)
            if units is not None:
                units.append(a.step)
        else:
            keys.append(resolve_action(a))
            phrases.append(str(ProtoAction.from_key(keys[-1])))
            if typed is not None:
                typed.append(keys[-1])
            if classes is not None:
                classes.append(keys[-1])
            if units is not None:
                units.append(("own", len(keys)))
    return keys, phrases


def compare_constraints(
    store: GraphStore, dish: str, ours: str = ESTIMATED, reference: str = crg.SOURCE, window: str | None = None
) -> dict:
    """Precision / recall of our cause->effect pairs against the reference pairs of the same dish."""
    cons = dish_constraints(store, dish)
    a = {(c.cause, c.effect) for c in cons if c.source == ours and (window is None or c.window == window)}
    b = {(c.cause, c.effect) for c in cons if c.source == reference}
    tp = len(a & b)
    return {
        "dish": dish,
        "ours": len(a),
        "reference": len(b),
        "overlap": tp,
        "precision": tp / len(a) if a else None,
        "recall": tp / len(b) if b else None,
    }


def dishes_with_constraints(store: GraphStore) -> list[dict]:
    return store.query("order_dishes")


# ------------------------------------------------------------------------------------------ tested constraints


@dataclass
class TestedReport:
    dishes: int
    recipes: int
    tested: dict[str, int]  # pairs tested per level (summed over units)
    kept: dict[str, int]  # constraints stored per level
    cycles: dict[str, int]  # constraints dropped for a cycle, per level
    families: int  # dishes with a family of 1+ other dishes
    seconds: float

    def to_dict(self) -> dict:
        return asdict(self)


def corpus_sequences(store: GraphStore) -> tuple[dict[str, list[str]], dict[str, str]]:
    """({recipe: its CRG keys in order}, {recipe: dish}) of every parsed recipe."""
    seqs: dict[str, list[str]] = {}
    dish_of: dict[str, str] = {}
    for r in store.query("order_corpus_steps", dishes=[]):
        seqs.setdefault(r["recipe"], []).append(r["action"])
        dish_of[r["recipe"]] = r["dish"]
    return seqs, dish_of


def dish_families(store: GraphStore, dishes: Iterable[str]) -> dict[str, list[str]]:
    comps: dict[str, set[str]] = {}
    for r in store.query("diner_dish_components"):
        comps.setdefault(r["dish"], set()).add(r["key"])
    return precedence.families(comps, dishes)


def _rows(evs: Iterable[precedence.Evidence], dish: str) -> list[dict]:
    return [
        {
            "cause": e.cause, "effect": e.effect, "dish": dish, "level": e.level, "ate": e.ate,
            "n_before": e.n_before, "n_after": e.n_after, "ci_low": e.ci_low, "ci_high": e.ci_high,
            "p_value": e.p_value, "q_value": e.q_value, "kept": e.kept, "decision": e.decision,
            "confidence": e.confidence, "estimator": "sign-test", "source": TESTED, "window": "aligned",
        }
        for e in evs
    ]  # fmt: skip


def estimate_tested(
    store: GraphStore,
    dishes: Sequence[str] | None = None,
    *,
    alpha: float = precedence.ALPHA,
    min_n: int = 3,
    min_recipes: int = 5,
) -> TestedReport:
    """Test every ordered pair of actions at three levels and store the kept ones as MUST_PRECEDE {source:
    "tested"}: each dish's own (level dish), its family's on pairs of actions the dish does that its own recipes
    leave undecided (level family), and the corpus's (level global, dish "*"). ``dishes`` default: those with
    ``min_recipes``+ parsed recipes (fewer cannot make a dish-level test significant; a check of any other dish
    reads the global level)."""
    t0 = time.perf_counter()
    seqs, dish_of = corpus_sequences(store)
    by_dish: dict[str, Counter] = {}
    acts: dict[str, set[str]] = {}
    glob: Counter = Counter()
    for rid, s in seqs.items():
        c = Counter(precedence.strict_pairs(s))
        d = dish_of[rid]
        by_dish.setdefault(d, Counter()).update(c)
        acts.setdefault(d, set()).update(s)
        glob.update(c)
    n_recipes = Counter(dish_of.values())
    dishes = sorted(d for d, n in n_recipes.items() if n >= min_recipes) if dishes is None else list(dishes)
    fams = dish_families(store, dishes)
    tested = {lv: 0 for lv in precedence.LEVELS}
    kept = dict(tested)
    cycles = dict(tested)

    def tally(evs: list[precedence.Evidence]) -> list[precedence.Evidence]:
        lv = evs[0].level if evs else "dish"
        tested[lv] += len(evs)
        cycles[lv] += sum(e.decision == "cycle" for e in evs)
        k = [e for e in evs if e.kept]
        kept[lv] += len(k)
        return k

    store.query("order_clear_tested", dishes=[*dishes, precedence.GLOBAL_DISH], source=TESTED)
    g_kept = tally(precedence.tested_pairs(glob, "global", alpha, min_n))
    rows = _rows(g_kept, precedence.GLOBAL_DISH)
    for d in dishes:
        own = tally(precedence.tested_pairs(by_dish.get(d, Counter()), "dish", alpha, min_n))
        decided = {(e.cause, e.effect) for e in own} | {(e.effect, e.cause) for e in own}
        fc: Counter = Counter()
        for o in fams.get(d, []):
            fc.update(by_dish.get(o, Counter()))
        mine = acts.get(d, set())
        fc = Counter({p: n for p, n in fc.items() if p[0] in mine and p[1] in mine})
        fam = [
            e for e in tally(precedence.tested_pairs(fc, "family", alpha, min_n)) if (e.cause, e.effect) not in decided
        ]
        rows.extend(_rows(own + fam, d))
    store.write("order_write_tested", rows)
    return TestedReport(
        len(dishes), sum(n_recipes[d] for d in dishes), tested, kept, cycles,
        sum(bool(fams.get(d)) for d in dishes), round(time.perf_counter() - t0, 1),
    )  # fmt: skip


def tested_lookup(store: GraphStore, dish: str, hidden: set[str] | None = None) -> tuple[precedence.Lookup, int]:
    """The backoff lookup over the stored tested constraints of ``dish`` (dish, then family level) and the
    global ones, leaving out those with a ``hidden`` action; and how many constraints it holds."""
    by_level: dict[str, dict[tuple[str, str], precedence.Evidence]] = {lv: {} for lv in precedence.LEVELS}
    rows = store.query(
        "order_tested_constraints", dishes=[dish, precedence.GLOBAL_DISH], source=TESTED, min_confidence=0.0
    )
    for r in rows:
        if hidden and (r["cause"] in hidden or r["effect"] in hidden):
            continue
        e = precedence.Evidence(
            r["cause"], r["effect"], r["level"], r["n_before"], r["n_after"], r["ate"], r["ci_low"], r["ci_high"],
            r["p_value"], r["q_value"], True, "kept",
        )  # fmt: skip
        by_level[r["level"]][(e.cause, e.effect)] = e

    def look(a: str, b: str) -> precedence.Evidence | None:
        for lv in precedence.LEVELS:
            t = by_level[lv]
            e = t.get((a, b)) or t.get((b, a))
            if e is not None:
                return e
        return None

    return look, sum(len(t) for t in by_level.values())


def has_tested(store: GraphStore, dish: str) -> bool:
    """Whether a check of ``dish`` has tested constraints to read (its own, or global ones)."""
    return bool(store.query("order_dish_sources_tested", dishes=[dish, precedence.GLOBAL_DISH], source=TESTED))
