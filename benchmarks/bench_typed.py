"""The typed reading, before and after: the dev set (CRG reading = the parser before, typed reading = after), and on
a demo graph the composed knowledge with every proto-action (as before) and with culinary ones only (the default).

    OMP_NUM_THREADS=1 python benchmarks/bench_typed.py --devset tests/data/devset/*.txt \\
        [--second tests/data/devset/second_30.txt] [--db DEMO_DB [--editor]] [--out benchmarks/results/typed.json]

``--db``: a graph built by `dishgraph demo` (release + XiaChuFang sample). For each of ``all_actions`` True (what
main composed) and False (the default now) it composes the targets, counts composed pivots whose key has a class
a cook would not call a food (FORBIDDEN), compares them with the release's pivots, and with ``--editor`` scores the
fair composed graph editor (Table-3 rows, all / even / odd). The graph is left with the default composition.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

FORBIDDEN = {"个人", "心情", "厨房", "手", "颜色", "口味", "情况"}


def devset(files: list[Path], second: Path | None, data: Path) -> dict:
    from dishgraph.eval.devset import agree, read_all, read_file, score_parser
    from dishgraph.ingest.glossary import Glossary
    from dishgraph.ingest.parser import RecipeParser

    glossary = Glossary.load(data / "counterfactual" / "glossary.json")
    gold = read_all(files, data)
    parser = RecipeParser(glossary)
    out = {
        "files": [str(f) for f in files],
        "recipes": len(gold),
        "segmenter": parser.name,
        "before (CRG reading)": score_parser(parser, gold, typed=False),
        "after (typed reading)": score_parser(parser, gold, typed=True),
    }
    if second is not None:
        first = [r for f in files for r in read_file(f, data)]
        out["agreement"] = agree(first, read_file(second, data), glossary.verb)
    return out


def composed(db: str, editor: bool) -> dict:
    from _crg import release_with_parity, rows_by_parity

    from dishgraph.actions import ProtoAction
    from dishgraph.api import DishGraph
    from dishgraph.eval.crg import CrgScorer
    from dishgraph.eval.l2 import L2Reference
    from dishgraph.graph.ladybug_store import LadybugStore
    from dishgraph.knowledge.pivots import micro_totals, parse_pair
    from dishgraph.knowledge.typed import hidden_actions
    from dishgraph.models.graph_editor import GraphEditor

    d, glossary, instances, parity = release_with_parity()
    keys = [f"{b}->{t}" for b, t in parity]
    scorer = CrgScorer(instances, glossary, L2Reference.from_release(d), data_dir=d, workers=2) if editor else None
    out: dict = {}
    with LadybugStore(db) as store:
        g = DishGraph(store, glossary=glossary)
        hidden = hidden_actions(store)
        n_protos = len(store.query("proto_all_keys"))
        out["proto_actions"] = {"all": n_protos, "hidden by default": len(hidden)}
        for all_actions in (True, False):
            label = "all actions (before)" if all_actions else "culinary actions (after, default)"
            t0 = time.perf_counter()
            rep = g.compose(all_actions=all_actions)
            row: dict = {"compose_s": round(time.perf_counter() - t0, 1), "pivots": rep.pivots}
            stored = [p for k in keys for p in g.pivots(*parse_pair(k), source="composed")]
            bad = [p.action for p in stored if ProtoAction.from_key(p.action).ingredients & FORBIDDEN]
            row["composed_pivots"] = len(stored)
            row["with_forbidden_class"] = len(bad)
            row["forbidden_examples"] = sorted(set(bad))[:10]
            row["shown_by_default_with_forbidden_class"] = len([a for a in bad if a not in hidden])
            cmp = [g.compare_pivots(*parse_pair(k), source="composed") for k in keys]
            row["pivots_vs_release"] = {
                "all": micro_totals(cmp, "composed"),
                "even": micro_totals([c for k, c in zip(keys, cmp) if parity[parse_pair(k)] == 0], "composed"),
                "odd": micro_totals([c for k, c in zip(keys, cmp) if parity[parse_pair(k)] == 1], "composed"),
            }
            if scorer is not None:
                t0 = time.perf_counter()
                ed = GraphEditor(glossary, store=store, knowledge="composed")
                texts = [ed.edit(i) for i in instances]
                row["table3"] = rows_by_parity(scorer, texts, instances, parity, f"graph editor (composed, {label})")
                row["edit_and_score_s"] = round(time.perf_counter() - t0, 1)
            out[label] = row
            print(label, json.dumps(row, ensure_ascii=False, default=str)[:2000], flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--devset", nargs="*", type=Path, default=[])
    ap.add_argument("--second", type=Path, help="a second annotation of some dev-set records (agreement)")
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--db", help="a demo graph (release + XiaChuFang sample)")
    ap.add_argument("--editor", action="store_true", help="also score the fair composed editor (minutes)")
    ap.add_argument("--out", default="benchmarks/results/typed.json")
    args = ap.parse_args()
    path = Path(args.out)
    result = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    result["load_before"] = os.getloadavg()
    if args.devset:
        result["devset"] = devset(args.devset, args.second, args.data)
    if args.db:
        result["demo_graph"] = composed(args.db, args.editor)
    result["load_after"] = os.getloadavg()
    path.write_text(json.dumps(result, ensure_ascii=False, indent=1, default=str) + "\n", encoding="utf-8")
    print(f"→ {path}")


if __name__ == "__main__":
    main()
