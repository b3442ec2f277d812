"""LM generators on CPU: throughput (recipes/s) and CRG scores of subset runs.

Two modes:

    # speed: each generator on --n real instances with a small random-init model (shapes, not weights, matter)
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_generate.py speed [--model DIR] [--mlm DIR] [--n 8]
        [--batch-size 4] [--generators gpt2-d,gpt2-dr,delorean,educat] [--fast] [--json-out F]

    # collect: score outputs written by `dishgraph generate NAME ... --out DIR/NAME.jsonl --json > DIR/NAME.json`
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_generate.py collect DIR [--model DIR] [--mlm DIR]
        [--common N] [--speed SPEED.json ...] [--json-out benchmarks/results/generators_lm.json]

`collect` scores each output on the instances it holds (a JSONL subset, see `dishgraph generate --instances`)
the way `dishgraph eval crg` scores a full file: same parser, released pivots and order constraints,
PPMI-SVD vectors trained on all 2,500 base recipes (not only the subset, so scores stay comparable),
BERTScore when bert-base-chinese can be loaded. Rows are labelled with n; the generation summaries the CLI
printed (seconds, recipes/s, options) are merged in. identity/replace on the same subset anchor the table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path

from dishgraph.jsonsafe import json_safe

os.environ.setdefault("OMP_NUM_THREADS", "1")

FAST = {
    "gpt2-d": {"max_new_tokens": 64},
    "gpt2-dr": {"max_new_tokens": 64},
    "delorean": {"num_passes": 2, "num_backward_iters": 2},
    "educat": {"sample_time": 10, "drop_time": 5},
}


def speed(args) -> None:
    import torch
    from transformers.utils import logging as hf_logging

    from dishgraph.eval.outputs import load_instances
    from dishgraph.models import prompts, registry
    from dishgraph.testing.tiny_models import build_tiny_models

    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    hf_logging.disable_progress_bar()
    instances = load_instances()
    step = max(1, len(instances) // args.n)
    sample = instances[::step][: args.n]
    chars = sum(len(i.base_recipe) for i in sample) / len(sample)
    model, mlm = args.model, args.mlm
    if model is None or mlm is None:
        tmp = tempfile.mkdtemp(prefix="bench_generate_")
        texts = [i.base_recipe for i in instances] + [prompts.rewrite_prompt(i.base, i.target, "") for i in instances]
        gpt_dir, bert_dir = build_tiny_models(tmp, texts, n_layer=2, n_embd=128, n_head=2)
        model, mlm = model or str(gpt_dir), mlm or str(bert_dir)

    rows = []
    for name in args.generators.split(","):
        opts = FAST.get(name, {}) if args.fast else {}
        gen = registry.create(name, model=model, mlm=mlm, device=args.device, **opts)
        t0 = time.perf_counter()
        out = registry.generate_all(gen, sample, args.batch_size)
        secs = time.perf_counter() - t0
        rows.append(
            {
                "generator": name,
                "instances": len(sample),
                "batch_size": args.batch_size,
                "seconds": round(secs, 2),
                "recipes_per_s": round(len(sample) / secs, 3),
                "mean_base_chars": round(chars, 1),
                "mean_out_chars": round(sum(map(len, out)) / len(out), 1),
                "options": opts,
            }
        )
        print(f"{name:>10}: {len(sample)} recipes in {secs:7.2f} s = {len(sample) / secs:7.3f} recipes/s", flush=True)
    if args.json_out:
        Path(args.json_out).write_text(
            json.dumps({"model": model, "mlm": mlm, "rows": rows}, ensure_ascii=False, indent=1), encoding="utf-8"
        )


def collect(args) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # BERTScore from the local cache only (no retries offline)
    from dishgraph.eval.crg import corpus_vectors, default_parse, evaluate_crg, table_row
    from dishgraph.eval.l2 import CachedParse, L2Reference
    from dishgraph.eval.outputs import crg_dir, load_instances, read_present
    from dishgraph.eval.text_metrics import default_segmenter, memoize
    from dishgraph.ingest.glossary import Glossary

    d = Path(args.dir)
    instances = load_instances()
    glossary = Glossary.load(crg_dir() / "glossary.json")
    seg = memoize(default_segmenter("auto", glossary))
    vectors = corpus_vectors(instances, seg, "ppmi")  # all base recipes, as `eval crg` on a full file
    parse = CachedParse(default_parse(glossary))
    reference = L2Reference.from_release(crg_dir())
    bert = _bertscore()
    rows, results = [], {}
    for out in sorted(d.glob("*.jsonl")):
        chosen_all, texts_all = read_present(out, instances)
        summary_path = out.with_suffix(".json")
        gen = json.loads(summary_path.read_text(encoding="utf-8")) if summary_path.exists() else {}
        # every file on all it holds, and on the first --common instances so rows of different n compare
        sizes = sorted({len(chosen_all), *([args.common] if args.common and args.common < len(chosen_all) else [])})
        for n in sizes:
            chosen, texts = chosen_all[:n], texts_all[:n]
            t0 = time.perf_counter()
            res = evaluate_crg(
                texts,
                chosen,
                glossary=glossary,
                parse=parse,
                reference=reference,
                segment=seg,
                vectors=vectors,
                bertscore_config=bert,
                with_bertscore=bert is not None,
            )
            row = table_row(res, f"{out.stem} (n={n})")
            row.update(
                {
                    "generator": out.stem,
                    "n": n,
                    "indices": [i.index for i in chosen],
                    "gen_seconds": gen.get("seconds"),
                    "gen_instances": gen.get("instances"),
                    "recipes_per_s": gen.get("recipes_per_s"),
                    "changed": gen.get("changed"),
                    "options": gen.get("options"),
                    "mean_out_chars": round(sum(map(len, texts)) / n, 1),
                    "eval_seconds": round(time.perf_counter() - t0, 1),
                }
            )
            rows.append(row)
            results[row["model"]] = res
            print(
                json.dumps(
                    {
                        k: row[k]
                        for k in ("model", "recipes_per_s", "coi_added", "coi_replaced", "bleu4", "hard_f1", "soft_f1")
                    },
                    ensure_ascii=False,
                ),
                flush=True,
            )
    report = {
        "what": "LM-based CRG generators with a small char-level GPT-2 trained here on CPU (NOT the "
        "paper's 102M model); scores on the subset of instances each row names (n)",
        "model": args.model,
        "mlm": args.mlm,
        "train_log": _train_summary(args.model),
        "mlm_train_log": _train_summary(args.mlm),
        "machine": {
            "cpus": os.cpu_count(),
            "omp_threads": os.environ.get("OMP_NUM_THREADS"),
            "python": platform.python_version(),
            "note": "2 shared cores, other jobs running",
        },
        "bertscore": bert.model if bert is not None else None,
        "rows": rows,
        "speed": [json.loads(Path(f).read_text(encoding="utf-8")) for f in args.speed or []],
        "results": results,
    }
    Path(args.json_out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json_out).write_text(json.dumps(json_safe(report), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def _bertscore():
    from dishgraph.eval.text_metrics import (
        BERTSCORE_MODEL_ENV,
        BertScoreConfig,
        bertscore_model_from_env,
        load_bertscore,
    )

    model = bertscore_model_from_env()
    if not model:
        print(f"note: BERTScore skipped (no model named in ${BERTSCORE_MODEL_ENV})")
        return None
    cfg = BertScoreConfig(model=model)
    load_bertscore(cfg)
    return cfg


def _train_summary(model_dir):
    log = Path(model_dir or "") / "train_log.json"
    if not model_dir or not log.exists():
        return None
    data = json.loads(log.read_text(encoding="utf-8"))
    keep = ("n_layer", "n_embd", "n_head", "n_positions", "lr", "batch_size", "max_length", "pack", "objective")
    return {
        **data["summary"],
        "config": {k: data["config"].get(k) for k in keep},
        "val_history": data.get("val_history"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    sp = sub.add_parser("speed", help="throughput with small random-init models")
    sp.add_argument("--model", default=None, help="causal LM dir/hub id (default: build a small random one)")
    sp.add_argument("--mlm", default=None, help="masked LM for EduCat (default: build a small random one)")
    sp.add_argument("--n", type=int, default=8, help="instances per generator (spread over the 50 pairs)")
    sp.add_argument("--batch-size", type=int, default=4)
    sp.add_argument("--generators", default="gpt2-d,gpt2-dr,delorean,educat")
    sp.add_argument("--fast", action="store_true", help="cut the methods' iteration counts (see FAST)")
    sp.add_argument("--device", default="cpu")
    sp.add_argument("--json-out", default=None)
    co = sub.add_parser("collect", help="score subset outputs of `dishgraph generate` and merge their summaries")
    co.add_argument("dir", help="directory with NAME.jsonl outputs and NAME.json CLI summaries")
    co.add_argument("--model", default=None, help="the causal LM used (its train_log.json is summarised)")
    co.add_argument("--mlm", default=None, help="the masked LM used by EduCat")
    co.add_argument(
        "--common",
        type=int,
        default=None,
        help="also score every file on its first N instances (a subset all files share)",
    )
    co.add_argument("--speed", nargs="*", help="`speed --json-out` files to include (e.g. on a quiet machine)")
    co.add_argument("--json-out", default="benchmarks/results/generators_lm.json")
    args = ap.parse_args()
    speed(args) if args.mode == "speed" else collect(args)


if __name__ == "__main__":
    main()
