"""The GPU bundle: everything a GPU machine without network, graph database or segmenters needs to train the
recipe LM and run the LM generators, exported from the graph on CPU.

Why a bundle: the GPU machine has torch, transformers and tokenizers but neither LadybugDB nor LAC/jieba,
cannot install anything, and receives only a small working tree. So the graph is read here, once, into plain
files, and the GPU side reads only those (`train lm --source bundle --data DIR`, `generate … --data DIR`).
Layout (all UTF-8)::

    DIR/manifest.json               counts, hold-out report, file sizes and sha256
    DIR/corpus/train.jsonl          {"dish", "text", "source"} — LM training recipes
    DIR/corpus/val.jsonl            the same, the fixed validation split (every model size sees the same one)
    DIR/corpus/held_out.json        target dishes and the recipes dropped for them, by rule
    DIR/instances.jsonl             the 2,500 CRG instances with their GPT-2 (D) / (D+R) prompts
    DIR/counterfactual/             base_recipes.txt, dish_pairs.txt, changing_ingres.txt, glossary.json
                                    (copied, so `load_instances(DIR)` and `--data DIR` work unchanged)

The release's pivots and order constraints are *not* copied: they are oracles, read only when scoring here.

Hold-out: a recipe is dropped when its dish is a target dish of any pair (the graph's own rule, as in
`train lm --source db`) and also when a target dish name occurs inside its dish name — the XiaChuFang sample's
dish names are lightly cleaned titles ("家常麻婆豆腐"), which the exact rule would let through. Both counts are
reported. This module imports nothing heavy: the GPU side imports it to read the bundle.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

TRAIN_FILE = "corpus/train.jsonl"
VAL_FILE = "corpus/val.jsonl"
HELD_OUT_FILE = "corpus/held_out.json"
INSTANCES_FILE = "instances.jsonl"
MANIFEST_FILE = "manifest.json"
CRG_FILES = ("base_recipes.txt", "dish_pairs.txt", "changing_ingres.txt", "glossary.json")


@dataclass
class CorpusRecipe:
    dish: str
    text: str
    source: str


@dataclass
class HoldOut:
    """Which recipes were dropped and why (`exact`: dish is a target; `contains`: a target occurs in the dish)."""

    targets: list[str]
    exact: int = 0
    contains: int = 0
    contains_examples: dict[str, list[str]] = field(default_factory=dict)  # target -> dish names dropped
    by_source: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "targets": self.targets,
            "dropped_exact": self.exact,
            "dropped_contains": self.contains,
            "dropped_by_source": self.by_source,
            "contains_dishes": self.contains_examples,
        }


def source_of(recipe_id: str | None) -> str:
    """The source tag of a graph recipe id (``source:hash``, see `loader.recipe_id`)."""
    return (recipe_id or "").rpartition(":")[0] or "unknown"


def hold_out(recipes: Iterable[CorpusRecipe], targets: Iterable[str]) -> tuple[list[CorpusRecipe], HoldOut]:
    """Recipes of no target dish (exact name or containing one), and the report of what was dropped."""
    names = sorted({t for t in targets if t})
    report = HoldOut(targets=names)
    exact = set(names)
    kept = []
    for r in recipes:
        hit = None
        if r.dish in exact:
            report.exact += 1
            hit = r.dish
        else:
            hit = next((t for t in names if t in r.dish), None)
            if hit is not None:
                report.contains += 1
                report.contains_examples.setdefault(hit, [])
                if r.dish not in report.contains_examples[hit]:
                    report.contains_examples[hit].append(r.dish)
        if hit is None:
            kept.append(r)
        else:
            report.by_source[r.source] = report.by_source.get(r.source, 0) + 1
    return kept, report


def dedupe(recipes: Iterable[CorpusRecipe]) -> tuple[list[CorpusRecipe], int]:
    """First recipe of each distinct (stripped) text, and how many repeats were dropped."""
    seen, out, dropped = set(), [], 0
    for r in recipes:
        text = (r.text or "").strip()
        if not text:
            dropped += 1
            continue
        if text in seen:
            dropped += 1
            continue
        seen.add(text)
        out.append(CorpusRecipe(r.dish, text, r.source))
    return out, dropped


def split_validation(recipes: list[CorpusRecipe], fraction: float, seed: int) -> tuple[list, list]:
    """(train, val): a seeded share of each source goes to validation, so both corpora are measured."""
    by_source: dict[str, list[CorpusRecipe]] = {}
    for r in recipes:
        by_source.setdefault(r.source, []).append(r)
    train, val = [], []
    for source in sorted(by_source):
        rows = by_source[source]
        order = list(range(len(rows)))
        random.Random(f"{seed}:{source}").shuffle(order)
        n_val = int(round(len(rows) * fraction))
        picked = set(order[:n_val])
        val.extend(r for i, r in enumerate(rows) if i in picked)
        train.extend(r for i, r in enumerate(rows) if i not in picked)
    return train, val


def _write_jsonl(path: Path, rows: Iterable[dict]) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    return n


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_bundle(
    out: str | Path,
    recipes: Iterable[CorpusRecipe],
    targets: Iterable[str],
    crg_data: str | Path | None = None,
    val_fraction: float = 0.05,
    seed: int = 0,
    origin: dict | None = None,
) -> dict:
    """Write the bundle to `out` (see the module docstring); returns the manifest."""
    from dishgraph.eval.outputs import crg_dir, load_instances
    from dishgraph.models import prompts

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    recipes = list(recipes)
    read = len(recipes)
    distinct, duplicates = dedupe(recipes)
    kept, report = hold_out(distinct, targets)
    if not kept:
        raise ValueError("no training recipes left after removing the held-out dishes")
    train, val = split_validation(kept, val_fraction, seed)
    _write_jsonl(out / TRAIN_FILE, ({"dish": r.dish, "text": r.text, "source": r.source} for r in train))
    _write_jsonl(out / VAL_FILE, ({"dish": r.dish, "text": r.text, "source": r.source} for r in val))
    (out / HELD_OUT_FILE).write_text(json.dumps(report.to_json(), ensure_ascii=False, indent=1), encoding="utf-8")

    src = crg_dir(crg_data)
    (out / "counterfactual").mkdir(exist_ok=True)
    for name in CRG_FILES:
        shutil.copyfile(src / name, out / "counterfactual" / name)
    instances = load_instances(out)
    missing_targets = sorted({i.target for i in instances} - set(report.targets))
    if missing_targets:
        raise ValueError(
            f"{len(missing_targets)} target dishes of the release are not held out by the graph "
            f"(e.g. {missing_targets[0]!r}): ingest the release into this database first"
        )
    _write_jsonl(
        out / INSTANCES_FILE,
        (
            {
                "index": i.index,
                "base": i.base,
                "target": i.target,
                "base_recipe": i.base_recipe,
                "change_kind": i.change_kind,
                "old": i.old,
                "new": i.new,
                "prompt_d": prompts.dish_prompt(i.target),
                "prompt_dr": prompts.rewrite_prompt(i.base, i.target, i.base_recipe),
            }
            for i in instances
        ),
    )

    def count(rows):
        c: dict[str, int] = {}
        for r in rows:
            c[r.source] = c.get(r.source, 0) + 1
        return c

    files = sorted(p for p in out.rglob("*") if p.is_file() and p.name != MANIFEST_FILE)
    manifest = {
        "origin": origin or {},
        "recipes_read": read,
        "duplicates_dropped": duplicates,
        "held_out": {
            "targets": len(report.targets),
            "dropped_exact": report.exact,
            "dropped_contains": report.contains,
            "dropped_by_source": report.by_source,
        },
        "train_recipes": len(train),
        "val_recipes": len(val),
        "val_fraction": val_fraction,
        "seed": seed,
        "train_by_source": count(train),
        "val_by_source": count(val),
        "train_chars": sum(len(r.text) for r in train),
        "instances": len(instances),
        "files": {str(p.relative_to(out)): {"bytes": p.stat().st_size, "sha256": _sha256(p)} for p in files},
    }
    manifest["bytes"] = sum(f["bytes"] for f in manifest["files"].values())
    (out / MANIFEST_FILE).write_text(json.dumps(manifest, ensure_ascii=False, indent=1), encoding="utf-8")
    return manifest


# ----------------------------------------------------------------------------------------- reading


def _read_jsonl(path: Path) -> list[tuple[str, str]]:
    from dishgraph.jsonl import json_objects

    rows = []
    for n, rec in json_objects(path, "an object with string 'dish' and 'text'"):
        if not isinstance(rec.get("dish"), str) or not isinstance(rec.get("text"), str):
            raise ValueError(f"{path}:{n}: expected an object with string 'dish' and 'text'")
        rows.append((rec["dish"], rec["text"]))
    return rows


def is_bundle(directory: str | Path) -> bool:
    return (Path(directory) / TRAIN_FILE).exists()


def read_corpus(directory: str | Path) -> tuple[list[tuple[str, str]], list[tuple[str, str]], set[str]]:
    """(train, val, held-out target dishes) of a bundle, as (dish, text) pairs — no database needed."""
    d = Path(directory)
    if not is_bundle(d):
        raise FileNotFoundError(f"{d}: not a GPU bundle (no {TRAIN_FILE}; write one with `dishgraph gpu bundle`)")
    held = json.loads((d / HELD_OUT_FILE).read_text(encoding="utf-8"))
    return _read_jsonl(d / TRAIN_FILE), _read_jsonl(d / VAL_FILE), set(held.get("targets", []))
