"""The judged sample of shown actions: does the default top-10 of a dish name the right food?

Protocol (docs/food-lexicon.md, "Judged sample"): a seeded draw of 30 dishes with at least 10 parsed recipes;
for each, the default top-10 actions (``DishGraph.dish``: the typed reading's cooking steps), each with up to
three recipe lines where a step is read as it. ``draw`` writes one graph's items; ``blind`` mixes the items of
two graphs (before / after a change) into one shuffled file without saying which graph gave which, plus a
private key; a judge labels every item; ``score`` reads the labels back per graph.

    python benchmarks/food_judging.py draw --db BEFORE --label before --out /tmp/before.jsonl
    python benchmarks/food_judging.py draw --db AFTER --label after --out /tmp/after.jsonl
    python benchmarks/food_judging.py blind /tmp/before.jsonl /tmp/after.jsonl --out judge.tsv --key key.json
    python benchmarks/food_judging.py score judge.tsv --key key.json --out benchmarks/results/food_judging.json
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
from pathlib import Path

SEED = 20261129
DISHES = 30
TOP = 10
MIN_RECIPES = 10


def draw(db: str, label: str, out: Path, seed: int = SEED) -> None:
    from dishgraph.api import DishGraph

    with DishGraph.open(db=db, read_only=True) as g:
        have = g.store.query("uses_dishes_with_recipes")
        names = sorted(r["dish"] for r in have if r["recipes"] >= MIN_RECIPES)
        chosen = sorted(random.Random(seed).sample(names, min(DISHES, len(names))))
        with open(out, "w", encoding="utf-8") as fh:
            for dish in chosen:
                for rank, row in enumerate(g.dish(dish, top=TOP)["top_actions"], 1):
                    lines = []
                    for ex in g.store.query("typed_action_examples", dish=dish, key=row["action"], limit=3):
                        text = ex["text"] or ""
                        a, b = int(ex["span_start"] or 0), int(ex["span_end"] or 0)
                        lines.append(text[max(0, a - 30) : a] + "【" + text[a:b] + "】" + text[b : b + 20])
                    item = {"graph": label, "dish": dish, "rank": rank, "action": row["action"], "lines": lines}
                    fh.write(json.dumps(item, ensure_ascii=False) + "\n")


def blind(files: list[Path], out: Path, key: Path, seed: int = SEED) -> None:
    items = [json.loads(line) for f in files for line in open(f, encoding="utf-8")]
    # one row per distinct (dish, action): the same item shown by both graphs is judged once
    rows: dict[tuple[str, str], dict] = {}
    for it in items:
        r = rows.setdefault(
            (it["dish"], it["action"]), {"dish": it["dish"], "action": it["action"], "lines": it["lines"], "graphs": []}
        )
        r["graphs"].append(it["graph"])
        if len(it["lines"]) > len(r["lines"]):
            r["lines"] = it["lines"]
    order = sorted(rows.values(), key=lambda r: (r["dish"], r["action"]))
    random.Random(seed).shuffle(order)
    with open(out, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(["id", "dish", "action", "lines", "judgement", "error_class"])
        for i, r in enumerate(order, 1):
            w.writerow([i, r["dish"], r["action"], " ‖ ".join(r["lines"]), "", ""])
    key.write_text(json.dumps({str(i): r["graphs"] for i, r in enumerate(order, 1)}, ensure_ascii=False, indent=0))


def score(judged: Path, key: Path, out: Path | None) -> dict:
    graphs = json.loads(key.read_text())
    per: dict[str, dict] = {}
    with open(judged, encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
            verdict = (row.get("judgement") or "").strip().lower()
            if verdict not in ("correct", "wrong"):
                raise SystemExit(f"{judged}: item {row['id']}: judgement must be correct or wrong, got {verdict!r}")
            for gname in graphs[row["id"]]:
                p = per.setdefault(gname, {"items": 0, "correct": 0, "errors": {}})
                p["items"] += 1
                p["correct"] += verdict == "correct"
                if verdict == "wrong":
                    cls = ((row.get("error_class") or "").split() or ["other"])[0]  # a note may follow
                    p["errors"][cls] = p["errors"].get(cls, 0) + 1
    for p in per.values():
        p["percent_correct"] = round(100 * p["correct"] / p["items"], 1) if p["items"] else 0.0
        p["errors"] = dict(sorted(p["errors"].items(), key=lambda kv: -kv[1]))
    result = {"seed": SEED, "dishes": DISHES, "top": TOP, "graphs": per}
    if out:
        out.write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n")
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("draw")
    d.add_argument("--db", required=True)
    d.add_argument("--label", required=True)
    d.add_argument("--out", type=Path, required=True)
    b = sub.add_parser("blind")
    b.add_argument("files", type=Path, nargs="+")
    b.add_argument("--out", type=Path, required=True)
    b.add_argument("--key", type=Path, required=True)
    s = sub.add_parser("score")
    s.add_argument("judged", type=Path)
    s.add_argument("--key", type=Path, required=True)
    s.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "draw":
        draw(args.db, args.label, args.out)
    elif args.cmd == "blind":
        blind(args.files, args.out, args.key)
    else:
        json.dump(score(args.judged, args.key, args.out), sys.stdout, ensure_ascii=False, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
