"""The public Python API: ``DishGraph`` over a graph store (embedded LadybugDB or Neo4j).

    from dishgraph import DishGraph
    with DishGraph.open() as g:
        g.pivots("白灼菜心", "白灼秋葵")
        before, after = g.order_constraints("白灼菜心", "切|洋葱|")
        g.check_order("白灼菜心", "菜心洗干净，……")

Every CLI command of the ``pivots`` and ``order`` groups, and ``explore``, is a thin wrapper over one method
here (other areas have their own entry points: `dishgraph.ingest.jobs`, `dishgraph.eval.jobs`,
`dishgraph.diner.jobs`, `dishgraph.models.run`, `dishgraph.models.gpu`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from dishgraph.actions import Action, ProtoAction
from dishgraph.api_args import check_all, one_of
from dishgraph.graph.base import GraphStore
from dishgraph.graph.factory import open_store
from dishgraph.knowledge import annotation, names, order, precedence, sentence_order, step_swaps
from dishgraph.knowledge import compose as compose_mod
from dishgraph.knowledge import pivots as pivots_mod
from dishgraph.knowledge.frequencies import dish_actions, materialize_uses
from dishgraph.knowledge.order import Constraint, OrderReport, OrderSettings
from dishgraph.knowledge.pivots import MineResult, Pivot, PivotThresholds
from dishgraph.knowledge.typed import hidden_actions

if TYPE_CHECKING:
    from dishgraph.actions import ProtoAction
    from dishgraph.ingest.glossary import Glossary
    from dishgraph.ingest.parser import RecipeParser
    from dishgraph.knowledge.causal import DishResult

Row = dict[str, Any]


# The sources a stored pivot or order constraint may carry (a filter on any other name is a UsageError).
PIVOT_SOURCES = (pivots_mod.MINED, pivots_mod.TYPED, pivots_mod.COMPOSED, pivots_mod.ANNOTATED, pivots_mod.RELEASE)
# The longest recipe `check_order` parses, as ingest caps a recipe (a 600,000-character text took 30 s).
MAX_CHECK_CHARS = 20_000
MAX_CHECK_ACTIONS = 2_000


@check_all
class DishGraph:
    """Culinary knowledge lookups and mining over one open graph store. Every public method checks its
    arguments first (`dishgraph.api_args`): a wrong type or an unknown source is a `UsageError`."""

    def __init__(self, store: GraphStore, glossary: Glossary | None = None):
        self._store = store
        self._glossary = glossary
        self._parser: RecipeParser | None = None
        self._sentences: tuple[sentence_order.SentencePositions | None] | None = None

    @classmethod
    def open(
        cls,
        db: str | None = None,
        uri: str | None = None,
        *,
        read_only: bool = False,
        glossary: Glossary | None = None,
    ) -> DishGraph:
        """Embedded database by default (``db`` dir or $DISHGRAPH_DB), or a Neo4j ``uri``."""
        return cls(open_store(uri=uri, db=db, read_only=read_only), glossary=glossary)

    @property
    def store(self) -> GraphStore:
        return self._store

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> DishGraph:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- frequencies and pivots
    def actions(
        self, dish: str, top: int = 20, min_freq: float = 0.0, typed_keys: bool = False, by: str = "food"
    ) -> list[Row]:
        """The dish's most frequent proto-actions: {action, verb, ingredients, tools, freq, n, total}; with
        ``typed_keys`` the typed reading's, foods by their own names (切|娃娃菜| where recipes say 切丝 after
        娃娃菜洗净; the CRG key names the release class, 切|丝| or 切|洋葱|), rolled up to the foods' category
        with ``by="category"`` (切|蔬菜›叶菜类|) or group (``by="group"``: 切|蔬菜|). On a read-only open
        nothing is computed: what the graph stores (a dish without stored frequencies gives [] there, where a
        read-write open computes them)."""
        if by != "food":
            return self._rolled_actions(dish, top, min_freq, by)
        rows = dish_actions(self._store, dish, top=top, min_freq=min_freq, typed_keys=typed_keys)
        if not rows:  # an unknown dish is an error with the closest names, never an empty answer
            names.require_dish(self._store, dish)
        if not rows and not getattr(self._store, "read_only", False):
            materialize_uses(self._store, [dish])
            rows = dish_actions(self._store, dish, top=top, min_freq=min_freq, typed_keys=typed_keys)
        return rows

    def _rolled_actions(self, dish: str, top: int, min_freq: float, by: str) -> list[Row]:
        """``actions(typed_keys=True)`` with foods rolled up: each recipe counts once per rolled-up key."""
        from dishgraph.errors import UsageError
        from dishgraph.ingest.foods import ROLLUPS, rollup_recipes

        if by not in ROLLUPS:
            raise UsageError(f"by={by!r}: expected one of {', '.join(ROLLUPS)}")
        typed = self.actions(dish, top=1, typed_keys=True)  # the dish's parsed recipes, checked and counted
        total = int(typed[0]["total"]) if typed else 0
        counts = rollup_recipes(self._store.query("typed_actions_per_recipe", dishes=[dish]), by).get(dish, {})
        out = []
        for key, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            freq = n / total if total else 0.0
            if freq < min_freq:
                continue
            p = ProtoAction.from_key(key)
            out.append(
                {
                    "action": key,
                    "verb": p.verb,
                    "ingredients": sorted(p.ingredients),
                    "tools": sorted(p.tools),
                    "freq": freq,
                    "n": n,
                    "total": total,
                }
            )
        return out[:top]

    def dish(self, dish: str, top: int = 10, all_actions: bool = False, by: str = "food") -> dict[str, Any]:
        """One dish at a glance: who named it, its recipes per source, its ``top`` actions (the typed reading's
        cooking steps on foods, as `dishgraph stats` shows them; every CRG key with ``all_actions``), the dish
        pairs it is in and its order constraints per source. An unknown dish raises `UnknownName` with the
        closest names."""
        from dishgraph.knowledge.dish_card import dish_card

        # the keys `dishgraph stats` shows: the typed reading's cooking steps; every CRG key with all_actions
        # (an unknown dish: `actions` raises UnknownName with the closest names)
        rows = self.actions(dish, top=top, typed_keys=not all_actions, by="food" if all_actions else by)
        return dish_card(self._store, dish, rows)

    def frequencies(self, dishes: Sequence[str] | None = None) -> dict[str, int]:
        """(Re)materialize USES edges; dish -> number of actions."""
        return materialize_uses(self._store, dishes)

    def pivots(self, base: str, target: str, source: str | None = None) -> list[Pivot]:
        """Stored pivot edges of the pair (mined, annotated, crg-release; all unless ``source``): one per
        (action, source), so an action several sources mark counts once per source (`pivots_side_by_side`
        has one row per action). A pair the graph does not know raises `UnknownName` with the closest names;
        an unknown ``source`` a `UsageError`."""
        one_of(source, PIVOT_SOURCES, "pivot source")
        return pivots_mod.pivots(self._store, base, target, source)

    def pivots_side_by_side(self, base: str, target: str, all_actions: bool = False) -> list[Row]:
        """A pair's pivots of every source, one row per action; the typed reading's cooking steps on foods
        unless ``all_actions``."""
        rows = pivots_mod.side_by_side(self._store, base, target)
        return rows if all_actions else self._culinary(rows, "action")

    def typed_pivots(self, base: str, target: str) -> list[Row]:
        """The pair's composed pivots in the typed reading, foods by their own names ({action, kind, fb, ft}):
        冰糖雪梨 → 冰糖金桔 pools the dishes that handle 金桔 itself, not every dish of its release class 梨.
        Computed when asked, nothing stored; reads no released pivot (`knowledge.compose.typed`)."""
        from dishgraph.knowledge.compose.typed import typed_composed_pivots

        return typed_composed_pivots(self._store, pivots_mod.pair_key(base, target))

    def named_by_food(self, base: str, target: str) -> dict[str, str]:
        """The release classes of the pair's changed foods, each with the food it stands for where the two differ
        (白灼菜心 → 白灼秋葵: 洋葱 → "秋葵 (class 洋葱)"): how reference-keyed answers name the food they mean."""
        from dishgraph.ingest.foods import class_labels

        info = pivots_mod.pair_info(self._store, pivots_mod.pair_key(base, target))
        return class_labels(info.get("change_from"), info.get("change_to"))

    def _culinary(self, rows: list[Any], *fields: str) -> list[Any]:
        """``rows`` (dicts or objects) none of whose ``fields`` is a proto-action the typed reading hides."""
        hidden = hidden_actions(self._store)

        def get(r: Any, f: str) -> Any:
            return r.get(f) if isinstance(r, dict) else getattr(r, f)

        return [r for r in rows if not any(get(r, f) in hidden for f in fields)]

    def mine_pivots(
        self,
        base: str,
        target: str,
        thresholds: PivotThresholds = PivotThresholds(),
        create: bool = False,
        all_actions: bool = False,
        typed_keys: bool = False,
    ) -> MineResult:
        """Mine and store one pair's pivots; ``create`` makes the DishPair of two dishes with recipes;
        ``all_actions``: any proto-action may be a pivot, not only the typed reading's culinary ones;
        ``typed_keys``: the typed reading's keys (切|洋葱| for 切丝 after 洋葱洗净), stored as source "typed"."""
        return pivots_mod.mine_pivots(
            self._store, base, target, thresholds, create=create, all_actions=all_actions, typed_keys=typed_keys
        )

    def mine_all_pivots(
        self,
        thresholds: PivotThresholds = PivotThresholds(),
        progress: Callable[[], None] | None = None,
        pairs: Sequence[str] | None = None,
        all_actions: bool = False,
        typed_keys: bool = False,
    ) -> list[MineResult]:
        """Mine every DishPair (or ``pairs``) from corpus frequencies (the targets' own recipes)."""
        return pivots_mod.mine_all(
            self._store,
            thresholds,
            list(pairs) if pairs is not None else None,
            progress=progress,
            all_actions=all_actions,
            typed_keys=typed_keys,
        )

    def pair_keys(self) -> list[str]:
        """Every DishPair of the graph, as ``base->target`` keys."""
        return pivots_mod.all_pairs(self._store)

    def mine_pairs(
        self,
        pairs: Sequence[tuple[str, str]] | None = None,
        *,
        alpha: float | None = None,
        tau_r: float | None = None,
        tau_i: float | None = None,
        create: bool = False,
        progress: Callable[[], None] | None = None,
        all_actions: bool = False,
        typed_keys: bool = False,
    ) -> list[MineResult]:
        """Mine and store the pivots of ``pairs`` ((base, target); None: every DishPair) from corpus frequencies,
        the thresholds given replacing the defaults of `PivotThresholds`. ``create``, ``typed_keys``: see
        `mine_pivots`."""
        thr = _with(PivotThresholds(), alpha=alpha, tau_r=tau_r, tau_i=tau_i)
        if pairs is None:
            return self.mine_all_pivots(thr, progress=progress, all_actions=all_actions, typed_keys=typed_keys)
        return [
            self.mine_pivots(b, t, thr, create=create, all_actions=all_actions, typed_keys=typed_keys) for b, t in pairs
        ]

    def compose_pivots(
        self,
        pairs: Sequence[tuple[str, str]] | None = None,
        *,
        alpha: float | None = None,
        tau_r: float | None = None,
        tau_i: float | None = None,
        inserts: str | None = None,
        progress: Callable[[], None] | None = None,
        all_actions: bool = False,
    ) -> compose_mod.ComposeReport:
        """`compose` the targets of ``pairs`` ((base, target); None: every DishPair), the thresholds given
        replacing the defaults of `ComposedThresholds`, ``inserts`` (None: the default) choosing how
        insertions are picked (fair: reads no released pivot)."""
        keys = self.pair_keys() if pairs is None else [pivots_mod.pair_key(b, t) for b, t in pairs]
        thr = _with(compose_mod.ComposedThresholds(), alpha=alpha, tau_r=tau_r, tau_i=tau_i)
        inserts = inserts or compose_mod.DEFAULT_INSERTS
        return self.compose(keys, thresholds=thr, progress=progress, inserts=inserts, all_actions=all_actions)

    def compare_pivots(
        self, base: str, target: str, reference: str = pivots_mod.RELEASE, source: str = pivots_mod.MINED
    ) -> Row:
        """P / R / F1 per kind of one source's pivots (mined, composed) against a reference source."""
        one_of(reference, PIVOT_SOURCES, "reference source")
        one_of(source, PIVOT_SOURCES, "pivot source")
        return pivots_mod.compare_pivots(self._store, base, target, reference, source)

    # ---------------------------------------------------------------- composed target knowledge
    def compose(
        self,
        pairs: Sequence[str] | None = None,
        settings: compose_mod.ComposeSettings = compose_mod.ComposeSettings(),
        thresholds: compose_mod.ComposedThresholds | None = None,
        progress: Callable[[], None] | None = None,
        fit: bool = False,
        inserts: str = compose_mod.DEFAULT_INSERTS,
        ranker_model: str = compose_mod.DEFAULT_MODEL,
        all_actions: bool = False,
    ) -> compose_mod.ComposeReport:
        """Compose the targets of ``pairs`` (default: every DishPair) from the dishes sharing their name's
        components, store COMPOSED_USES with provenance, mine ``PIVOT {source: composed}`` and transfer order
        constraints (``MUST_PRECEDE {source: composed}``). Reads no released pivot or constraint. ``fit``: the
        weights are first fitted by leave-one-dish-out on the graph's corpus dishes (``compose.fit_weights``).
        ``inserts="ranker"``: insertions chosen by a ranker fitted on corpus pseudo-pairs (``insert_ranker``;
        ``ranker_model`` names one of its ``MODELS``); ``"rule+ranker"``: the rule's insertions and the ranker's.
        ``all_actions``: pivots may be any proto-action, not only the typed reading's culinary ones."""
        return compose_mod.compose_pairs(
            self._store,
            pairs,
            settings,
            thresholds,
            progress=progress,
            fit=fit,
            inserts=inserts,
            ranker_model=ranker_model,
            all_actions=all_actions,
        )

    def composed_actions(self, dish: str, top: int = 20) -> list[Row]:
        """A composed dish's estimated actions: {action, verb, ingredients, tools, freq, weight}; an unknown dish
        raises `UnknownName` with the closest names (a known dish not composed gives [])."""
        rows = self._store.query("compose_dish_uses", dish=dish, top=int(top))
        if not rows:
            names.require_dish(self._store, dish)
        return rows

    def composed_sources(self, dish: str) -> list[Row]:
        """Which dishes a composed dish's knowledge came from: {role, atom, dish, recipes, weight}."""
        return self._store.query("compose_dish_sources", dish=dish)

    def validate_composition(
        self,
        min_recipes: int = 10,
        min_components: int = 2,
        settings: compose_mod.ComposeSettings = compose_mod.ComposeSettings(),
        progress: Callable[[], None] | None = None,
    ) -> compose_mod.ValidationReport:
        """Leave-one-dish-out: hide each corpus dish with enough recipes, compose it, compare with its USES."""
        return compose_mod.leave_one_dish_out(self._store, min_recipes, min_components, settings, progress=progress)

    def export_annotation(self, pair: str, out: str | Path, include_mined: bool = False) -> int:
        return annotation.export_questions(self._store, pair, out, include_mined=include_mined)

    def import_annotation(self, paths: Sequence[str | Path], min_annotators: int = 3) -> annotation.ImportReport:
        return annotation.import_answers(self._store, paths, min_annotators=min_annotators)

    # ---------------------------------------------------------------- order constraints
    def estimate_order(
        self,
        dishes: Sequence[str] | None = None,
        settings: OrderSettings = OrderSettings(),
        *,
        workers: int = 1,
        on_dish: Callable[[DishResult], None] | None = None,
    ) -> OrderReport:
        """Estimate and store MUST_PRECEDE edges (source "estimated") for dishes (default: all with recipes)."""
        return order.estimate_order(self._store, dishes, settings, workers=workers, on_dish=on_dish)

    def estimate_tested_order(self, dishes: Sequence[str] | None = None) -> order.TestedReport:
        """Test every ordered pair of actions per dish, per family of dishes and over the corpus, and store the
        kept ones as MUST_PRECEDE {source: "tested", level, interval, support, decision} (`knowledge.precedence`)."""
        return order.estimate_tested(self._store, dishes)

    def order_constraints(
        self,
        dish: str,
        action: str | ProtoAction,
        source: str | None = None,
        all_actions: bool = False,
        min_confidence: float | None = None,
    ) -> tuple[list[Constraint], list[Constraint]]:
        """(actions that must precede ``action`` in ``dish``, actions that must follow it). An unknown dish or
        action raises `UnknownName` with the closest names ("did you mean 切|油菜|?" for 切|菜心|); a known
        action without constraints gives two empty lists. Constraints with an action the typed reading hides
        are left out unless ``all_actions``; with ``min_confidence``, only those at least that sure (tested ones
        by their confidence, estimated ones by their decision, others left out)."""
        order.check_source(source)  # a UsageError naming the sources
        before, after = order.order_constraints(self._store, dish, action, source, min_confidence)
        if all_actions:
            return before, after
        return self._culinary(before, "cause", "effect"), self._culinary(after, "cause", "effect")

    def check_order(
        self,
        dish: str,
        actions_or_text: str | Sequence[Action | ProtoAction | str],
        source: str | None = None,
        all_actions: bool = False,
        min_confidence: float | None = None,
    ) -> list[order.Violation | precedence.ScoredViolation]:
        """Violated constraints of the dish in a recipe (text, parsed lazily) or an action sequence.

        Where the graph has tested constraints (`dishgraph order test`) and no ``source`` is named, the whole
        recipe is scored by how likely its order is under the corpus's pairwise order counts on the typed keys,
        backing off dish → family → global → class keys → verb classes (`precedence.score_recipe`): the
        violations (pairs surely in the less likely order, each with its level, counts and interval) come back
        only when the recipe is out of order at ``min_confidence`` (default `precedence.MIN_RECIPE_CONFIDENCE`;
        for a text, `sentence_order.MIN_RECIPE_CONFIDENCE_WITH_TEXT`, since its sentences are read too: a text
        whose sentences read out of order from their words, `sentence_order.read_order`, is out of order as
        well, as is a recipe that one swap of two dependent steps would make much likelier, `step_swaps`; such
        a recipe may come back with no pair: the report's ``flagged`` is the verdict); `check_order_report` has
        every pair, the sentence reading (``sentence_order``) and the swap reading (``swap``). Every action is
        read (the typed reading's hidden ones too).
        ``source="tested"`` reads the kept tested constraints only (`precedence.check_recipe`). With another
        ``source`` named, or none tested, every violated constraint of that source (first occurrences compared).

        A dish the graph does not know, or an action given by name (key or display form) that it does not
        know, raises `UnknownName` with the closest names: "no constraint violated" would be a lie. A text
        over `MAX_CHECK_CHARS` (or a sequence over `MAX_CHECK_ACTIONS`) is a `UsageError`, as ingest caps a
        recipe. Otherwise constraints with an action the typed reading hides are not checked unless
        ``all_actions``."""
        rep = self.check_order_report(dish, actions_or_text, source, all_actions, min_confidence)
        return rep.violations if rep.flagged else []

    def check_order_report(
        self,
        dish: str,
        actions_or_text: str | Sequence[Action | ProtoAction | str],
        source: str | None = None,
        all_actions: bool = False,
        min_confidence: float | None = None,
    ) -> order.OrderCheck:
        """`check_order` with how many actions were read and constraints checked, and a note when the dish
        has no constraint to check. Text in which no action is read raises `InputError`."""
        order.check_source(source)  # a UsageError naming the sources
        _check_recipe_size(actions_or_text)
        names.require_dish(self._store, dish)
        starts: list[int] = []
        typed: list[str] = []
        classes: list[str] = []
        units: list[object] = []
        keys, phrases = order.action_sequence(actions_or_text, self._make_parser, starts, typed, classes, units)
        if not isinstance(actions_or_text, str):
            named = {order.resolve_action(a) for a in actions_or_text if not isinstance(a, Action)}
            found = {r["key"] for r in self._store.query("load_existing_proto_actions", keys=sorted(named))}
            for key in sorted(named - found):
                names.require_action(self._store, key)
        elif not keys:
            raise order.no_action_read(actions_or_text)
        if source is None and order.has_tested(self._store, dish):
            # the whole recipe scored by the likelihood of its order (every action, typed keys); from a text,
            # its sentences' order read from their words too (either flags)
            model = self._sentence_positions() if isinstance(actions_or_text, str) else None
            default = (
                precedence.MIN_RECIPE_CONFIDENCE if model is None else sentence_order.MIN_RECIPE_CONFIDENCE_WITH_TEXT
            )
            conf = default if min_confidence is None else min_confidence
            cut = step_swaps.SWAP_GAIN_CUT_ACTIONS if model is None else step_swaps.SWAP_GAIN_CUT
            rep = order.check_scored(self._store, dish, typed, phrases, conf, classes, (keys, units, cut))
            if model is not None:
                read = sentence_order.read_order(model, str(actions_or_text), starts)
                rep.sentence_order = read.to_dict()
                rep.flagged = bool(rep.flagged or read.flagged)
        elif source == order.TESTED and order.has_tested(self._store, dish):
            conf = precedence.MIN_CONFIDENCE if min_confidence is None else min_confidence
            hidden = None if all_actions else hidden_actions(self._store)
            rep = order.check_tested(self._store, dish, keys, phrases, hidden, conf)
        else:
            keep = None if all_actions else (lambda cons: self._culinary(cons, "cause", "effect"))
            rep = order.check_actions(self._store, dish, keys, phrases, source, keep)
        if isinstance(actions_or_text, str):
            rep.lines, rep.action_lines = order.recipe_lines(actions_or_text, starts)
        return rep

    def why_no_order(
        self, dish: str, action: str | ProtoAction | None = None, source: str | None = None, all_actions: bool = False
    ) -> str:
        """Why `order_constraints` found nothing for ``dish`` (and ``action``), and what to run; the actions it
        names instead are ones shown without ``all_actions``."""
        key = None if action is None else order.resolve_action(action)
        return order.why_none(self._store, dish, key, source, None if all_actions else hidden_actions(self._store))

    def compare_order(self, dish: str, window: str | None = None) -> Row:
        return order.compare_constraints(self._store, dish, window=window)

    def _sentence_positions(self) -> sentence_order.SentencePositions | None:
        """The graph's sentence-position model (trained once per graph, cached on disk; kept for this
        object's later checks)."""
        if self._sentences is None:
            self._sentences = (sentence_order.corpus_model(self._store),)
        return self._sentences[0]

    def _make_parser(self) -> RecipeParser:
        if self._parser is None:
            from dishgraph.ingest.parser import RecipeParser

            if self._glossary is None:
                from dishgraph import config
                from dishgraph.ingest.glossary import Glossary

                self._glossary = Glossary.load(config.data_dir() / "counterfactual" / "glossary.json")
            self._parser = RecipeParser(self._glossary)
        return self._parser


def _check_recipe_size(actions_or_text: object) -> None:
    from dishgraph.errors import UsageError

    if isinstance(actions_or_text, str):
        if len(actions_or_text) > MAX_CHECK_CHARS:
            raise UsageError(
                f"check_order(): a recipe of {len(actions_or_text):,} characters; at most {MAX_CHECK_CHARS:,}"
            )
    elif not isinstance(actions_or_text, (list, tuple)):
        raise UsageError(
            f"check_order(): give the recipe as a str or a list of actions, got {type(actions_or_text).__name__}"
        )
    elif len(actions_or_text) > MAX_CHECK_ACTIONS:
        raise UsageError(f"check_order(): {len(actions_or_text):,} actions; at most {MAX_CHECK_ACTIONS:,}")


_T = TypeVar("_T", PivotThresholds, compose_mod.ComposedThresholds)


def _with(defaults: _T, **given: float | None) -> _T:
    """``defaults`` (a dataclass) with the values given (not None) replacing its own."""
    return replace(defaults, **{k: v for k, v in given.items() if v is not None})
