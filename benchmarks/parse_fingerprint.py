"""Every field of every Action the rule parser reads from a fixed sample of recipes, as one JSON line per recipe,
so that a change meant to leave parses alone (a speed-up) can be checked to do so: both readings, CRG and typed.

A speed-up of the parser is checked by fingerprinting before and after and comparing line by line; the first
difference is printed with its recipe. The sample: the first XiaChuFang and classic recipes and the 2,500 CRG
base recipes through ``parse_many`` with LAC, a share of them with jieba, and some through ``parse`` one at a
time (the two paths must agree).

    OMP_NUM_THREADS=1 python benchmarks/parse_fingerprint.py --out /tmp/before.jsonl
    OMP_NUM_THREADS=1 python benchmarks/parse_fingerprint.py --out /tmp/after.jsonl --against /tmp/before.jsonl
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")


def action_fields(a) -> dict:
    """One action as plain JSON values, every dataclass field included (the proto-action by its key, typed
    objects with their type name, so a change of type shows too)."""
    out = {}
    for f in dataclasses.fields(a):
        v = getattr(a, f.name)
        if f.name == "proto":
            v = None if v is None else v.key
        elif f.name == "objects":
            v = [[type(o).__name__, *o] for o in v]
        out[f.name] = v
    return out


def recipe_line(label: str, i: int, actions: list) -> str:
    """The JSON line of one recipe's parse."""
    return json.dumps({"r": f"{label}#{i}", "actions": [action_fields(a) for a in actions]}, ensure_ascii=False)


def read_texts(data: Path, xcf: int, classic: int, crg: int | None = None) -> dict[str, list[str]]:
    """The sample's recipe texts by corpus (the first ``xcf`` / ``classic`` lines, the first ``crg`` CRG base
    recipes, all by default)."""
    from dishgraph.eval.parse_recall import read_base_recipes

    def head(path: Path, n: int) -> list[str]:
        with open(path, encoding="utf-8") as fh:
            return [json.loads(line)["text"] for line, _ in zip(fh, range(n))]

    base = [t for ts in read_base_recipes(data / "counterfactual").values() for t in ts]
    return {
        "xiachufang": head(data / "xiachufang" / "recipes.jsonl", xcf),
        "classic": head(data / "classic" / "recipes.jsonl", classic),
        "crg": base[:crg],
    }


def fingerprint_lines(
    data: Path, xcf: int, classic: int, jieba_share: int, single: int, crg: int | None = None
) -> Iterator[str]:
    """The sample's lines: every corpus with LAC (``parse_many`` in chunks of 250, as ingest runs it), every
    ``jieba_share``-th recipe with jieba, and the first ``single`` of each corpus through ``parse``."""
    from dishgraph.ingest.glossary import Glossary
    from dishgraph.ingest.parser import RecipeParser

    glossary = Glossary.load(data / "counterfactual" / "glossary.json")
    texts = read_texts(data, xcf, classic, crg)
    for seg in ("lac", "jieba"):
        parser = RecipeParser(glossary, segmenter=seg)
        for corpus, ts in texts.items():
            if seg == "jieba":
                ts = ts[::jieba_share]
            for k in range(0, len(ts), 250):
                for i, acts in enumerate(parser.parse_many(ts[k : k + 250]), k):
                    yield recipe_line(f"{seg}/many/{corpus}", i, acts)
            for i, t in enumerate(ts[:single]):
                yield recipe_line(f"{seg}/one/{corpus}", i, parser.parse(t))


def digest(lines: Iterator[str]) -> str:
    """sha256 of the lines, each ended by a newline (what ``main`` prints for its file)."""
    h = hashlib.sha256()
    for line in lines:
        h.update(line.encode("utf-8") + b"\n")
    return h.hexdigest()


def compare(ours: Path, theirs: Path) -> int:
    """Line-by-line comparison; prints the first difference (recipe, action, field). 0 when identical."""
    with open(ours, encoding="utf-8") as a, open(theirs, encoding="utf-8") as b:
        n = 0
        for la, lb in zip(a, b, strict=True):
            n += 1
            if la != lb:
                ra, rb = json.loads(la), json.loads(lb)
                print(f"differs at {ra['r']} (against {rb['r']}): {len(ra['actions'])} vs {len(rb['actions'])} actions")
                for k, (x, y) in enumerate(zip(ra["actions"], rb["actions"])):
                    diff = {f: (x[f], y.get(f)) for f in x if x[f] != y.get(f)}
                    if diff:
                        print(f"  action {k}: {json.dumps(diff, ensure_ascii=False)}")
                        break
                return 1
    print(f"identical: {n} recipe parses")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="JSON lines, one per recipe parse")
    ap.add_argument("--against", type=Path, help="an earlier --out to compare with")
    ap.add_argument("--data", type=Path, default=None, help="data root (default: located as the CLI does)")
    ap.add_argument("--xiachufang", type=int, default=3000, help="first N XiaChuFang recipes")
    ap.add_argument("--classic", type=int, default=500, help="first N classic recipes")
    ap.add_argument("--jieba-share", type=int, default=4, help="every Nth recipe also with jieba")
    ap.add_argument("--single", type=int, default=300, help="first N of each corpus also through parse()")
    args = ap.parse_args()
    from dishgraph import config  # the package PYTHONPATH names: another tree's parser can be fingerprinted

    data = config.data_dir(args.data)
    digest = hashlib.sha256()
    n = 0
    with open(args.out, "w", encoding="utf-8") as fh:
        for line in fingerprint_lines(data, args.xiachufang, args.classic, args.jieba_share, args.single):
            fh.write(line + "\n")
            digest.update(line.encode("utf-8") + b"\n")
            n += 1
    print(f"{n} recipe parses, sha256 {digest.hexdigest()} → {args.out}")
    return compare(args.out, args.against) if args.against else 0


if __name__ == "__main__":
    sys.exit(main())
