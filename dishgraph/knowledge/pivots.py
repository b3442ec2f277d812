"""Pivot actions of a dish pair (CRG §4.2): what to remove from / insert into the base recipe.

The rules run in Cypher (``pivot_mine``) over USES frequencies; Python only passes thresholds and the
pair. ``classify`` is the same rule in Python, the oracle for planted corpora and boundary tests.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from dishgraph.graph.base import GraphStore
from dishgraph.ingest import crg
from dishgraph.ingest.loader import pair_key
from dishgraph.knowledge import names
from dishgraph.knowledge.frequencies import materialize_uses

MINED = "mined"
TYPED = "typed"  # mined from the typed reading's frequencies (TYPED_USES): keys such as 切|洋葱|
COMPOSED = "composed"
ANNOTATED = "annotated"
RELEASE = crg.SOURCE  # kept as a name here: callers compare pivots against it
KINDS = ("remove", "insert", "manual")


@dataclass(frozen=True)
class PivotThresholds:
    """alpha: frequency ratio; tau_r: max target frequency to remove; tau_i: min target frequency to insert."""

    alpha: float = 5.0
    tau_r: float = 0.01
    tau_i: float = 0.1


@dataclass
class Pivot:
    action: str
    kind: str
    fb: float | None = None
    ft: float | None = None
    source: str = MINED
    votes: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class MineResult:
    pair: str
    base: str
    target: str
    base_recipes: int
    target_recipes: int
    pivots: list[Pivot] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {k: sum(p.kind == k for p in self.pivots) for k in KINDS}

    def to_dict(self) -> dict:
        return {
            "pair": self.pair,
            "base": self.base,
            "target": self.target,
            "base_recipes": self.base_recipes,
            "target_recipes": self.target_recipes,
            "counts": self.counts(),
            "pivots": [p.to_dict() for p in self.pivots],
        }


def classify(fb: float, ft: float, thr: PivotThresholds = PivotThresholds()) -> str | None:
    """The CRG rule for one action; mirrors ``pivot_mine.cypher`` exactly (same comparisons, same order)."""
    if fb > thr.alpha * ft and ft < thr.tau_r:
        return "remove"
    if ft > thr.alpha * fb and ft > thr.tau_i:
        return "insert"
    if fb > thr.alpha * ft or ft > thr.alpha * fb:
        return "manual"
    return None


SHELL_CUT_HINT = (
    "an unquoted BASE->TARGET reaches the command as 'BASE-' (the shell reads > as a redirection and writes "
    "a file named after the target): quote it, 'BASE->TARGET', or give BASE TARGET"
)


def parse_pair(pair: str) -> tuple[str, str]:
    """``"base->target"`` (the DishPair key) or ``"base,target"`` / ``"base target"`` into (base, target).
    A lone ``"base-"`` is what the shell leaves of an unquoted ``base->target``: the error says to quote it."""
    for sep in ("->", ",", " ", "\t"):
        if sep in pair:
            base, target = (x.strip() for x in pair.split(sep, 1))
            if base and target:
                return base, target
    if pair.rstrip().endswith("-"):
        raise ValueError(f"pair {pair!r} is not 'BASE->TARGET': {SHELL_CUT_HINT}")
    raise ValueError(f"pair {pair!r} is not 'BASE->TARGET' (or give BASE TARGET)")


def pair_info(store: GraphStore, pair: str) -> dict:
    """The stored DishPair ``pair`` (key base->target); one the graph lacks is `UnknownName` with the closest
    names (`names.require_pair`)."""
    rows = store.query("pivot_pair_info", pair=pair)
    if not rows:
        names.require_pair(store, *parse_pair(pair))
    return rows[0]


def all_pairs(store: GraphStore) -> list[str]:
    return [r["pair"] for r in store.query("pivot_pairs")]


def ensure_pair(store: GraphStore, base: str, target: str) -> str:
    """Create the DishPair of two dishes that both have parsed recipes (our data has recipes only for base
    dishes, so mining is checked on pairs of base dishes); change_kind "adhoc" marks it as not from a release."""
    from dishgraph.knowledge.frequencies import dishes_with_recipes

    key = pair_key(base, target)
    if store.query("pivot_pair_info", pair=key):
        return key
    for dish in (base, target):
        names.require_dish(store, dish)
    have = dishes_with_recipes(store)
    missing = [d for d in (base, target) if d not in have]
    if missing:
        raise KeyError(f"no parsed recipes for {missing} (a new pair needs recipes on both sides)")
    store.write(
        "load_pairs",
        [{"key": key, "base": base, "target": target, "change_from": "", "change_to": "", "change_kind": "adhoc"}],
    )
    return key


def mine_pivots(
    store: GraphStore,
    base: str,
    target: str,
    thresholds: PivotThresholds = PivotThresholds(),
    *,
    refresh_frequencies: bool = True,
    create: bool = False,
    all_actions: bool = False,
    typed_keys: bool = False,
) -> MineResult:
    """Mine and store a pair's pivots (source "mined"), replacing earlier mined edges of that pair.

    ``create``: make the DishPair first if the graph has none (both dishes need parsed recipes).
    ``all_actions``: every proto-action may be a pivot, not only culinary ones (``ProtoAction.culinary``).
    ``typed_keys``: mine the typed reading's keys instead (TYPED_USES: 切|洋葱| where the recipes say 切丝 after
    洋葱洗净), stored as source "typed" beside the CRG-keyed ones, which the release's pivots are compared with."""
    key = ensure_pair(store, base, target) if create else pair_key(base, target)
    info = pair_info(store, key)
    if refresh_frequencies:
        materialize_uses(store, [base, target])
    source = TYPED if typed_keys else MINED
    store.query("pivot_clear", pair=key, source=source)
    thr = {"alpha": float(thresholds.alpha), "tau_r": float(thresholds.tau_r), "tau_i": float(thresholds.tau_i)}
    if typed_keys:
        rows = store.query("pivot_mine_typed", pair=key, source=source, **thr)
    else:
        rows = store.query("pivot_mine", pair=key, source=source, all_actions=all_actions, **thr)
    return MineResult(
        key,
        info["base"],
        info["target"],
        info["base_recipes"],
        info["target_recipes"],
        [Pivot(r["action"], r["kind"], r["fb"], r["ft"], source) for r in rows],
    )


def mine_all(
    store: GraphStore,
    thresholds: PivotThresholds = PivotThresholds(),
    pairs: list[str] | None = None,
    progress=None,
    all_actions: bool = False,
    typed_keys: bool = False,
) -> list[MineResult]:
    """Mine every DishPair (frequencies computed once for all dishes first)."""
    pairs = pairs if pairs is not None else all_pairs(store)
    materialize_uses(store)
    out = []
    for key in pairs:
        base, target = parse_pair(key)
        out.append(
            mine_pivots(
                store,
                base,
                target,
                thresholds,
                refresh_frequencies=False,
                all_actions=all_actions,
                typed_keys=typed_keys,
            )
        )
        if progress:
            progress()
    return out


def pivots(store: GraphStore, base: str, target: str, source: str | None = None) -> list[Pivot]:
    """Stored pivot edges of a pair (every source unless one is named), ordered by source, kind, action.
    A pair the graph does not know raises `UnknownName` (an empty list means a known pair without pivots)."""
    rows = store.query("pivot_edges", pair=pair_key(base, target))
    if not rows:
        names.require_pair(store, base, target)
    return [
        Pivot(r["action"], r["kind"], r["fb"], r["ft"], r["source"], r["votes"])
        for r in rows
        if source is None or r["source"] == source
    ]


def side_by_side(store: GraphStore, base: str, target: str) -> list[dict]:
    """One row per action: mined / annotated / released kind and frequencies (``pair_pivots.cypher``), the most
    telling first (`_telling`).

    A pair the graph does not know raises `UnknownName`: an empty table would read as "no pivots yet"."""
    rows = store.query("pair_pivots", base=base, target=target)
    if not rows:
        known_pair(store, base, target)
    return sorted(rows, key=_telling)


SIDE_SOURCES = ("mined", "typed", "composed", "annotated", "release")  # the kind columns of a `side_by_side` row


def edge_count(rows: list[dict]) -> int:
    """Pivot edges behind `side_by_side` rows: an action marked by several sources is one row and one edge per
    source (`DishGraph.pivots` lists edges: 485 edges were 460 actions of one pair)."""
    return sum(row.get(s) is not None for row in rows for s in SIDE_SOURCES)


def _telling(row: dict) -> tuple:
    """Most telling first (a listing may be cut at its top rows): released or annotated actions, then
    remove / insert of any source, then the rest (mostly mined ``manual``), each by the larger frequency."""
    decided = row.get("release") is not None or row.get("annotated") is not None
    kinds = {row.get(s) for s in SIDE_SOURCES}
    return (
        not decided,
        not kinds & {"remove", "insert"},
        -max(row.get("fb") or 0.0, row.get("ft") or 0.0),
        row["action"],
    )


def known_pair(store: GraphStore, base: str, target: str) -> str:
    """The pair's key if a DishPair of it is stored, else `UnknownName` with the closest names."""
    return names.require_pair(store, base, target)


def effective_pivots(store: GraphStore, base: str, target: str, source: str = MINED) -> dict[str, str]:
    """Action -> remove|insert as the paper uses them: mined P_R ∪ P_I plus annotation decisions.

    An annotation decision overrides the mined kind of its action ("none" drops it).
    """
    out: dict[str, str] = {}
    edges = pivots(store, base, target)
    for p in edges:
        if p.source == source and p.kind in ("remove", "insert"):
            out[p.action] = p.kind
    if source == MINED:
        for p in edges:
            if p.source == ANNOTATED:
                if p.kind in ("remove", "insert"):
                    out[p.action] = p.kind
                else:
                    out.pop(p.action, None)
    return out


def compare_pivots(store: GraphStore, base: str, target: str, reference: str = RELEASE, source: str = MINED) -> dict:
    """Precision / recall / F1 of one source's effective pivots (mined: with annotation decisions; composed)
    against reference edges, per kind and overall. A pair the graph does not know raises `UnknownName`."""
    known_pair(store, base, target)
    ours = effective_pivots(store, base, target, source=source)
    ref = effective_pivots(store, base, target, source=reference)
    out = {"pair": pair_key(base, target), "source": source, "reference": reference, "kinds": {}}
    for kind in ("remove", "insert", "all"):
        a = {(k, v) for k, v in ours.items() if kind in ("all", v)}
        b = {(k, v) for k, v in ref.items() if kind in ("all", v)}
        tp = len(a & b)
        p = tp / len(a) if a else None
        r = tp / len(b) if b else None
        f = 2 * p * r / (p + r) if p and r else (0.0 if p is not None and r is not None else None)
        out["kinds"][kind] = {source: len(a), "reference": len(b), "overlap": tp, "precision": p, "recall": r, "f1": f}
    return out


def micro_totals(comparisons: list[dict], source: str = MINED) -> dict:
    """Sum ``compare_pivots`` results over pairs: P / R / F1 per kind from the pooled counts."""
    out = {}
    for kind in ("remove", "insert", "all"):
        n = sum(c["kinds"][kind][source] for c in comparisons)
        ref = sum(c["kinds"][kind]["reference"] for c in comparisons)
        tp = sum(c["kinds"][kind]["overlap"] for c in comparisons)
        p = tp / n if n else None
        r = tp / ref if ref else None
        f = 2 * p * r / (p + r) if p and r else (0.0 if p is not None and r is not None else None)
        out[kind] = {source: n, "reference": ref, "overlap": tp, "precision": p, "recall": r, "f1": f}
    return out
