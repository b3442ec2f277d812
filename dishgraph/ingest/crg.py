"""`dishgraph ingest counterfactual DIR`: the CRG release (EMNLP 2022) into the graph.

Dishes, the 50 dish pairs with their changing ingredient, the 2,500 base recipes with provenance, the
glossary as class nodes with surface forms, the released pivots and order constraints as reference edges
(``source: "crg-release"``), then (unless ``parse=False``) every recipe parsed into its action graph.
Every step is a MERGE on a stable key: running it twice changes no counts.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from dishgraph.graph.base import GraphStore
from dishgraph.ingest import loader
from dishgraph.ingest.readers import read_crg_release

SOURCE = "crg-release"  # the one name of the release as a source: oracle knowledge, never a result
RECIPES_SOURCE = f"{SOURCE}/base_recipes.txt"  # provenance of the release's recipe records


@dataclass
class IngestReport:
    dishes: int = 0
    pairs: int = 0
    recipes: int = 0
    reference_pivots: int = 0
    reference_constraints: int = 0
    parsed: dict = field(default_factory=dict)
    skipped_lines: int = 0
    seconds: float = 0.0
    touched_dishes: list[str] = field(default_factory=list, repr=False)  # what derived data it can make stale

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("touched_dishes", None)
        return d


def release_records(
    crg_dir: str | Path, dishes=None, per_dish: int | None = None, release=None
) -> list[loader.RecipeRecord]:
    """The release's base recipes as loader records (content-hash ids, file/line provenance), in file order;
    ``dishes``: only those base dishes, ``per_dish``: at most that many of each. The ingest and every test or
    notebook that parses part of the release build the same records (so their ids agree)."""
    crg_dir = Path(crg_dir)
    release = release or read_crg_release(crg_dir)
    wanted = set(dishes) if dishes is not None else None
    taken: dict[str, int] = {}
    out = []
    for r in release.recipes():
        if wanted is not None and r.base not in wanted:
            continue
        if per_dish is not None and taken.get(r.base, 0) >= per_dish:
            continue
        taken[r.base] = taken.get(r.base, 0) + 1
        out.append(
            loader.RecipeRecord(
                loader.recipe_id("crg", r.base, r.text), r.base, r.text, source=RECIPES_SOURCE, line=r.line
            )
        )
    return out


def ingest_counterfactual(
    store: GraphStore,
    crg_dir: str | Path,
    *,
    parse: bool = True,
    segmenter: str = "auto",
    parser: str = "rules",
    workers: int = 1,
    show_progress: bool = True,
    mode: str = "auto",
) -> IngestReport:
    """Load the release and parse its recipes; ``mode`` is the loader's write path (auto | merge | create | copy)."""
    t0 = time.perf_counter()
    crg_dir = Path(crg_dir)
    release = read_crg_release(crg_dir)
    rep = IngestReport()

    loader.load_glossary(store, release.glossary)
    records = release_records(crg_dir, release=release)
    rep.skipped_lines = release.report.skipped if getattr(release, "report", None) else 0
    dishes = [n for p in release.pairs for n in (p.base, p.target)] + [r.dish for r in records]
    rep.dishes = loader.load_dishes(store, dishes, SOURCE)
    rep.touched_dishes = sorted(set(dishes))
    rep.pairs = store.write(
        "load_pairs",
        [
            {
                "key": loader.pair_key(p.base, p.target),
                "base": p.base,
                "target": p.target,
                "change_from": p.change.old,
                "change_to": p.change.new,
                "change_kind": p.change.kind,
            }
            for p in release.pairs
        ],
    )
    rep.recipes = loader.load_recipes(store, records, mode=mode)

    # Reference knowledge of the release: pivots per pair, cause->effect constraints per target dish.
    base_of = {p.target: p.base for p in release.pairs}
    pivots = [(t, proto, kind) for t, items in release.pivots.items() for proto, kind in items]
    pairs_cons = [(t, c, e) for t, items in release.constraints.items() for it in items for c, e in it["pairs"]]
    loader.load_proto_actions(
        store, [p for _, p, _ in pivots] + [a for _, c, e in pairs_cons for a in (c, e)], mode=mode
    )
    rep.reference_pivots = store.write(
        "load_reference_pivots",
        [
            {"pair": loader.pair_key(base_of[t], t), "key": p.key, "kind": kind, "source": SOURCE}
            for t, p, kind in pivots
        ],
    )
    rep.reference_constraints = store.write(
        "load_reference_constraints",
        [{"cause": c.key, "effect": e.key, "dish": t, "source": SOURCE} for t, c, e in dict.fromkeys(pairs_cons)],
    )

    if parse:
        from dishgraph.ingest.pipeline import parse_and_load

        stats = parse_and_load(
            store,
            records,
            release.glossary,
            segmenter=segmenter,
            parser=parser,
            workers=workers,
            total=len(records),
            show_progress=show_progress,
            mode=mode,
        )
        rep.parsed = asdict(stats)
    rep.seconds = time.perf_counter() - t0
    return rep
