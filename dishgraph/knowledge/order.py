"""Order constraints in the graph: estimate MUST_PRECEDE edges per dish, look them up, check sequences.

Estimation reads each dish's recipes with one named query (``order_dish_sequences``), estimates ψ for
every candidate pair around the dish's frequent actions (``causal``), and stores the pairs with
ψ > τ_c as ``(:ProtoAction)-[:MUST_PRECEDE {dish, ate, …, source: "estimated", window}]->(:ProtoAction)``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

from dishgraph.actions import Action, ProtoAction
from dishgraph.errors import InputError, UsageError
from dishgraph.graph.base import GraphStore
from dishgraph.ingest import crg
from dishgraph.knowledge import causal, names
from dishgraph.knowledge.frequencies import dish_actions, dishes_with_recipes, materialize_uses
from dishgraph.knowledge.pivots import COMPOSED

ESTIMATED = "estimated"
SOURCES = (ESTIMATED, COMPOSED, crg.SOURCE)  # who writes MUST_PRECEDE edges: order estimate, compose, the release


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


def store_constraints(
    store: GraphStore, dish: str, settings: OrderSettings, estimates: Iterable[causal.Estimate]
) -> int:
    """Replace the dish's estimated constraints of this window by those with ψ > τ_c; returns how many."""
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

    def to_dict(self) -> dict:
        return asdict(self)


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


def _constraints(rows: Iterable[dict], source: str | None) -> list[Constraint]:
    return [Constraint(**r) for r in rows if source is None or r["source"] == source]


def order_constraints(
    store: GraphStore, dish: str, action, source: str | None = None
) -> tuple[list[Constraint], list[Constraint]]:
    """(must precede the action, must follow it) in the dish, from every source unless one is named.

    An unknown dish or action raises `UnknownName` with the closest names (an action written with surface
    forms, 切|菜心|, is told its class form, 切|油菜|); a known action without constraints gives ([], [])."""
    check_source(source)
    names.require_dish(store, dish)
    key = names.require_action(store, resolve_action(action))
    return (
        _constraints(store.query("action_must_precede", dish=dish, action=key), source),
        _constraints(store.query("action_must_follow", dish=dish, action=key), source),
    )


def dish_constraints(store: GraphStore, dish: str, source: str | None = None) -> list[Constraint]:
    check_source(source)
    return _constraints(store.query("order_dish_constraints", dish=dish), source)


def why_none(store: GraphStore, dish: str, action: str | None = None, source: str | None = None) -> str:
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
    busiest = store.query("order_dish_actions", dish=dish, source=source or "", limit=5)
    return f"{dish} has {have}, none involving this action; actions that have some: " + ", ".join(
        r["action"] for r in busiest
    )


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

    violations: list[Violation]
    actions: int  # actions read from the text (or given)
    constraints: int  # constraints of the dish checked against them
    note: str = ""


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
    return OrderCheck(check_sequence(cons, keys, phrases), len(keys), len(cons), note)


def no_action_read(text: str) -> InputError:
    """Text in which the parser found no action: checking it would say "no constraint violated" of nothing."""
    shown = " ".join(text.split())
    shown = shown if len(shown) <= 40 else shown[:39] + "…"
    return InputError(
        f"no cooking action was read from the text {shown!r}, so there is nothing to check; give the recipe's "
        "steps in Chinese (e.g. 菜心洗净，切段，焯水。) — `dishgraph parse TEXT` shows what the parser reads"
    )


def action_sequence(actions_or_text, parser_factory: Callable[[], object] | None = None) -> tuple[list[str], list[str]]:
    """(keys, phrases) from recipe text (parsed), Actions, ProtoActions, keys or display strings."""
    if isinstance(actions_or_text, str):
        parser = parser_factory() if parser_factory else None
        if parser is None:
            raise ValueError("checking free text needs the recipe parser (dishgraph.ingest.parser)")
        acts = [a for a in parser.parse(actions_or_text) if a.proto is not None]
        return [a.proto.key for a in acts], [a.phrase for a in acts]
    keys, phrases = [], []
    for a in actions_or_text:
        if isinstance(a, Action):
            if a.proto is None:
                continue
            keys.append(a.proto.key)
            phrases.append(a.phrase)
        else:
            keys.append(resolve_action(a))
            phrases.append(str(ProtoAction.from_key(keys[-1])))
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
