"""Parse recall against the CRG release: are the released *remove* pivots found by our parser?

A remove pivot of a target dish is a proto-action frequent in the recipes of its base dish (CRG §4.2). If
the parser is faithful to the CRG action conventions, every such pivot should appear among the
proto-actions it extracts from that base dish's 50 recipes. Exact match on (verb class, ingredient class
set, tool class set). Recall alone is gameable (emit every verb×ingredient pair), so the result also
carries the parser's output volume (actions and distinct proto-actions per recipe) to read it against.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from dishgraph.actions import ProtoAction


@dataclass
class RecallResult:
    recall: float
    found: int
    total: int
    per_pair: dict[str, dict] = field(default_factory=dict)  # target dish -> {base, found, total, recall}
    missed: list[dict] = field(default_factory=list)  # {target, base, pivot}
    recipes: int = 0
    recipes_with_actions: int = 0
    actions_per_recipe: float = 0.0
    protos_per_recipe: float = 0.0  # distinct proto-actions per recipe

    def to_dict(self) -> dict:
        return asdict(self)


def read_pairs(crg_dir: Path) -> list[tuple[str, str]]:
    pairs = []
    path = crg_dir / "dish_pairs.txt"
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ValueError(f"{path}:{n}: expected 'base target', got {line!r}")
        pairs.append((parts[0], parts[1]))
    return pairs


def read_base_recipes(crg_dir: Path) -> dict[str, list[str]]:
    """base dish -> its recipe texts, through the release reader (strict: a malformed line is an error)."""
    from dishgraph.ingest.readers import read_base_recipes as stream

    out: dict[str, list[str]] = defaultdict(list)
    for r in stream(Path(crg_dir) / "base_recipes.txt", strict=True):
        out[r.base].append(r.text)
    return dict(out)


def parse_recall(crg_dir: str | Path, parser, progress: Callable[[int], None] | None = None) -> RecallResult:
    """Exact recall of the released remove pivots among proto-actions parsed from each base dish's recipes."""
    crg_dir = Path(crg_dir)
    pairs = read_pairs(crg_dir)
    recipes = read_base_recipes(crg_dir)
    pivots = json.loads((crg_dir / "pivot_actions.json").read_text(encoding="utf-8"))

    found_by_base: dict[str, set[ProtoAction]] = {}
    n_recipes = n_with = n_actions = n_protos = 0
    for base, texts in recipes.items():
        protos: set[ProtoAction] = set()
        parse_many = getattr(parser, "parse_many", None)
        parsed = parse_many(texts) if parse_many else [parser.parse(t) for t in texts]
        for acts in parsed:
            p = {a.proto for a in acts if a.proto is not None}
            protos |= p
            n_recipes += 1
            n_with += bool(acts)
            n_actions += len(acts)
            n_protos += len(p)
            if progress:
                progress(1)
        found_by_base[base] = protos

    res = RecallResult(
        0.0,
        0,
        0,
        recipes=n_recipes,
        recipes_with_actions=n_with,
        actions_per_recipe=n_actions / max(n_recipes, 1),
        protos_per_recipe=n_protos / max(n_recipes, 1),
    )
    for base, target in pairs:
        have = found_by_base.get(base, set())
        f = t = 0
        for piv in pivots.get(target, []):
            if piv.get("kind") != "remove":
                continue
            pa = ProtoAction.from_release(piv)
            t += 1
            if pa in have:
                f += 1
            else:
                res.missed.append({"target": target, "base": base, "pivot": str(pa)})
        res.per_pair[target] = {"base": base, "found": f, "total": t, "recall": f / t if t else None}
        res.found += f
        res.total += t
    res.recall = res.found / res.total if res.total else 0.0
    return res
