"""Throughput (recipes/s) of the LM generators on CPU, one thread, on real CRG instances.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_generate.py [--model DIR] [--mlm DIR] [--n 8]
        [--batch-size 4] [--generators gpt2-d,gpt2-dr,delorean,educat] [--json-out F]

Without --model it builds a small random-init GPT-2 (2 layers, 128 dims) and a BERT MLM (2 layers, 128 dims)
over the recipes' character vocabulary: speed does not depend on what the weights have learned, only on
their shapes, the vocabulary (~2.9k characters here vs 21k for bert-base-chinese) and text lengths.
Every generator runs with its reference defaults (GPT-2: 256 new tokens; DeLorean: 5 passes × 5 backward
iterations; EduCat: 100 MCMC steps per sentence), unless overridden with --fast.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

FAST = {"gpt2-d": {"max_new_tokens": 64}, "gpt2-dr": {"max_new_tokens": 64},
        "delorean": {"num_passes": 2, "num_backward_iters": 2}, "educat": {"sample_time": 10, "drop_time": 5}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None, help="causal LM dir/hub id (default: build a small random one)")
    ap.add_argument("--mlm", default=None, help="masked LM for EduCat (default: build a small random one)")
    ap.add_argument("--n", type=int, default=8, help="instances per generator (spread over the 50 pairs)")
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--generators", default="gpt2-d,gpt2-dr,delorean,educat")
    ap.add_argument("--fast", action="store_true", help="cut the methods' iteration counts (see FAST)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--json-out", default=None)
    args = ap.parse_args()

    import torch
    from transformers.utils import logging as hf_logging

    from dishgraph.eval.outputs import load_instances
    from dishgraph.models import prompts, registry
    from dishgraph.models.tiny import build_tiny_models

    torch.set_num_threads(1)
    hf_logging.disable_progress_bar()
    instances = load_instances()
    step = max(1, len(instances) // args.n)
    sample = instances[::step][:args.n]
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
        rows.append({"generator": name, "instances": len(sample), "batch_size": args.batch_size,
                     "seconds": round(secs, 2), "recipes_per_s": round(len(sample) / secs, 3),
                     "mean_base_chars": round(chars, 1), "mean_out_chars": round(sum(map(len, out)) / len(out), 1),
                     "options": opts})
        print(f"{name:>10}: {len(sample)} recipes in {secs:7.2f} s = {len(sample) / secs:7.3f} recipes/s", flush=True)
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as fh:
            json.dump({"model": model, "mlm": mlm, "threads": 1, "rows": rows}, fh, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
