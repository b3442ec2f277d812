"""`dishgraph generate`: write counterfactual recipes for all CRG instances with a registered generator."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Optional, Sequence

import typer

from dishgraph.commands._common import (DbOpt, JsonOpt, UriOpt, console, emit_json, err_console, print_error, print_warning, rows_table)

app = typer.Typer(help="Generate counterfactual recipes (one per base recipe) with a registered generator.",
                  no_args_is_help=True)

OutOpt = typer.Option(..., "--out", help="Output file: .jsonl writes {base,target,index,text} records, "
                                         "anything else one recipe per line in base_recipes.txt order "
                                         "(a subset chosen with --limit/--instances needs .jsonl).")
DataOpt = typer.Option(None, "--data", help="Data directory (the one holding counterfactual/); default: auto.")
BatchOpt = typer.Option(32, "--batch-size", help="Instances per generate() call.")
LimitOpt = typer.Option(None, "--limit", help="Only the first N instances of the --instances selection.")
InstancesOpt = typer.Option("all", "--instances",
                            help="Which instances: 'all', 'first-per-pair' (one per dish pair, 50), "
                                 "'spread' (all, round-robin over the pairs: any prefix covers every pair), "
                                 "'every:K' (every K-th), or indices/ranges like '0,50,100-119'.")
MaxMinutesOpt = typer.Option(None, "--max-minutes", help="Time box: start no batch that would, at the pace so far, "
                             "end after this many minutes of generation; write the instances done (JSONL; pair "
                             "with --instances spread).")
ModelOpt = typer.Option(None, "--model", help="Causal LM: a `dishgraph train lm` output dir or a hub id "
                                              "(e.g. uer/gpt2-chinese-cluecorpussmall).")
DeviceOpt = typer.Option(None, "--device", help="cpu, cuda, cuda:N (default: cuda if available).")
DtypeOpt = typer.Option("float32", "--dtype", help="Weights dtype: float32, bfloat16 or float16 (GPU).")
SeedOpt = typer.Option(0, "--seed", help="Random seed.")
MaxNewOpt = typer.Option(256, "--max-new-tokens", help="Most tokens generated per recipe.")
MinNewOpt = typer.Option(8, "--min-new-tokens", help="End-of-text is blocked for the first N tokens.")


def select_instances(instances: Sequence, spec: str = "all", limit: Optional[int] = None) -> list:
    """The instances named by `spec` (see --instances), then the first `limit` of them, in file order."""
    spec = (spec or "all").strip()
    if spec == "all":
        chosen = list(instances)
    elif spec == "first-per-pair":
        seen: set = set()
        chosen = [i for i in instances if (i.base, i.target) not in seen and not seen.add((i.base, i.target))]
    elif spec == "spread":  # the k-th instance of every pair before any pair's (k+1)-th
        seen_in_pair: dict = {}
        keyed = []
        for n, i in enumerate(instances):
            k = seen_in_pair.get((i.base, i.target), 0)
            seen_in_pair[(i.base, i.target)] = k + 1
            keyed.append((k, n))
        chosen = [instances[n] for _, n in sorted(keyed)]
    elif spec.startswith("every:"):
        chosen = list(instances[::max(1, int(spec.split(":", 1)[1]))])
    else:
        wanted: set[int] = set()
        for part in filter(None, (p.strip() for p in spec.split(","))):
            lo, _, hi = part.partition("-")
            if not lo.isdigit() or (hi and not hi.isdigit()):
                raise ValueError(f"--instances: cannot read {part!r} (want 'all', 'first-per-pair', 'every:K' "
                                 "or indices/ranges like 0,5-9)")
            wanted.update(range(int(lo), int(hi or lo) + 1))
        bad = sorted(i for i in wanted if i >= len(instances))
        if bad:
            raise ValueError(f"--instances: index {bad[0]} out of range 0..{len(instances) - 1}")
        chosen = [instances[i] for i in sorted(wanted)]
    return chosen[:limit] if limit is not None else chosen


def run_generator(name: str, out: Path, data: Optional[str] = None, batch_size: int = 32,
                  instances: str = "all", limit: Optional[int] = None, max_minutes: Optional[float] = None,
                  **options) -> dict:
    """Generate with generator `name` for the selected instances and write `out`; returns a summary
    including the generation time and throughput (model loading excluded).

    With `max_minutes` no batch starts after that much generation time, and the instances done are written
    (`instances` in the summary; `selected` is how many were asked for)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from dishgraph.eval.outputs import crg_dir, load_instances, write_outputs
    from dishgraph.ingest.glossary import Glossary
    from dishgraph.models import registry

    everything = load_instances(data)
    chosen = select_instances(everything, instances, limit)
    if not chosen:
        raise ValueError("no instances selected")
    if (len(chosen) < len(everything) or max_minutes is not None) and \
            Path(out).suffix.lower() not in (".jsonl", ".json", ".ndjson"):
        raise ValueError(f"a subset of {len(chosen)} instances must be written as JSONL (records carry their "
                         f"index, so `dishgraph eval` can align them); got --out {out}")
    glossary = Glossary.load(crg_dir(data) / "glossary.json")
    gen = registry.create(name, glossary=glossary, data_dir=data, **options)
    t0 = time.perf_counter()
    with Progress(TextColumn(name), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err_console, transient=True) as prog:
        task = prog.add_task(name, total=len(chosen))
        texts = registry.generate_all(gen, chosen, batch_size, lambda k: prog.advance(task, k),
                                      stop=_time_box(t0, max_minutes))
    seconds = time.perf_counter() - t0
    done = sorted(zip(chosen, texts), key=lambda it: it[0].index)  # file order ('spread' is not)
    write_outputs(out, [t for _, t in done], [i for i, _ in done])
    changed = sum(t != i.base_recipe for i, t in done)
    return {"generator": name, "out": str(out), "instances": len(done), "selected": len(chosen),
            "max_minutes": max_minutes,
            "changed": changed, "seconds": round(seconds, 2),
            "recipes_per_s": round(len(done) / seconds, 4) if seconds else None,
            "options": {k: v for k, v in options.items() if isinstance(v, (str, int, float, bool))}}


def _time_box(t0: float, max_minutes: Optional[float]):
    """A `generate_all` stop test: no batch starts that would, at the mean pace so far, end past the box.

    Predicting the next batch keeps a time-boxed GPU command inside its limit (a batch of DeLorean or
    EduCat can take minutes), where checking only the elapsed time would overrun by up to one batch.
    """
    if max_minutes is None:
        return None
    done = [0]

    def stop() -> bool:
        done[0] += 1  # called before every batch after the first: batches finished so far
        elapsed = time.perf_counter() - t0
        return elapsed + elapsed / done[0] > max_minutes * 60

    return stop


def _report(summary: dict, as_json: bool) -> None:
    if as_json:
        emit_json(summary)
    else:
        console.print(rows_table([summary], "generated"))


def _run(name: str, out: Path, data: Optional[str], batch_size: int, as_json: bool, instances: str = "all",
         limit: Optional[int] = None, **options) -> None:
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    try:
        summary = run_generator(name, out, data, batch_size, instances, limit, **options)
    except (KeyError, ValueError, FileNotFoundError, OSError) as e:
        print_error(f"{e}")
        raise typer.Exit(2)
    _report(summary, as_json)


@app.command("identity")
def identity(out: Path = OutOpt, data: Optional[str] = DataOpt, batch_size: int = BatchOpt,
             instances: str = InstancesOpt, limit: Optional[int] = LimitOpt, as_json: bool = JsonOpt):
    """Copy every base recipe unchanged (BLEU 100 anchor)."""
    _run("identity", out, data, batch_size, as_json, instances, limit)


@app.command("replace")
def replace(out: Path = OutOpt, data: Optional[str] = DataOpt, batch_size: int = BatchOpt,
            synonyms: str = typer.Option("class", "--synonyms",
                                         help="Which mentions to replace: 'class' (all glossary forms of the "
                                              "ingredient's class), 'form' (the form and class forms containing "
                                              "it), 'none' (the exact form)."),
            instances: str = InstancesOpt, limit: Optional[int] = LimitOpt, as_json: bool = JsonOpt):
    """Swap the replaced ingredient's mentions for the new ingredient; "add" pairs are copied."""
    _run("replace", out, data, batch_size, as_json, instances, limit, synonyms=synonyms)


@app.command("graph")
def graph(out: Path = OutOpt, data: Optional[str] = DataOpt, batch_size: int = BatchOpt,
          db: Optional[str] = DbOpt, uri: Optional[str] = UriOpt,
          knowledge: str = typer.Option("pivots", "--knowledge",
                                        help="'composed' (fair, the headline): pivots and order constraints "
                                             "composed from the dishes sharing the target's name components "
                                             "(`dishgraph pivots mine --knowledge composed` first; reads no "
                                             "released pivot or constraint); 'pivots': the pair's pivot edges "
                                             "(crg-release, then annotated, then mined: with the release loaded "
                                             "an oracle, an upper bound); 'association' (fair): the base dish's "
                                             "recipes contrasted with other dishes' handling of the new class."),
          max_insert_ratio: float = typer.Option(0.5, "--max-insert-ratio",
                                                 help="Inserted clauses may add at most this share of the base "
                                                      "recipe's length."),
          abstain: bool = typer.Option(False, "--abstain-unscored",
                                       help="Association mode: leave a recipe at the ingredient swap when the "
                                            "swap changes no action L2 counts (a probe of L2's averaging over "
                                            "changed recipes only, not a quality rule)."),
          instances: str = InstancesOpt, limit: Optional[int] = LimitOpt, as_json: bool = JsonOpt):
    """Graph-guided editor: substitute the ingredient, drop its specific clauses, insert the new one's
    actions (real example phrases) where the order constraints allow; keep the rest verbatim."""
    _run("graph", out, data, batch_size, as_json, instances, limit, db=db, uri=uri, knowledge=knowledge,
         max_insert_ratio=max_insert_ratio, abstain=abstain)


@app.command("run")
def run(name: str = typer.Argument(..., help="Registered generator name (see `dishgraph generate ls`)."),
        out: Path = OutOpt, data: Optional[str] = DataOpt, batch_size: int = BatchOpt,
        instances: str = InstancesOpt, limit: Optional[int] = LimitOpt, model: Optional[str] = ModelOpt,
        device: Optional[str] = DeviceOpt, as_json: bool = JsonOpt):
    """Run any registered generator with its default options."""
    _run(name, out, data, batch_size, as_json, instances, limit, model=model, device=device)


@app.command("ls")
def ls(as_json: bool = JsonOpt):
    """List registered generators (and modules that failed to import)."""
    from dishgraph.models import registry

    rows = [{"name": n, "class": f"{registry.get(n).__module__}.{registry.get(n).__qualname__}",
             "description": registry.describe(n)} for n in registry.names()]
    errors = registry.discover()
    if as_json:
        return emit_json({"generators": rows, "import_errors": errors})
    console.print(rows_table(rows, "generators"))
    for mod, err in errors.items():
        print_warning(f"{mod} not loaded: {err}")


def _sampling(greedy: bool, top_p: float, top_k: int, temperature: float, repetition_penalty: float) -> dict:
    return dict(do_sample=not greedy, top_p=top_p, top_k=top_k, temperature=temperature,
                repetition_penalty=repetition_penalty)


GreedyOpt = typer.Option(False, "--greedy", help="Greedy decoding instead of sampling.")
TopPOpt = typer.Option(0.9, "--top-p", help="Nucleus sampling mass.")
TopKOpt = typer.Option(0, "--top-k", help="Top-k sampling (0 = off).")
TempOpt = typer.Option(1.0, "--temperature", help="Sampling temperature.")
RepOpt = typer.Option(1.0, "--repetition-penalty", help="Repetition penalty (1 = none).")


def _prompt_lm_command(name: str, doc: str):
    """GPT-2 (D) and (D+R) differ only in their prompt (the generator's), so they share one command body."""

    def command(out: Path = OutOpt, model: str = ModelOpt, data: Optional[str] = DataOpt,
                batch_size: int = BatchOpt, instances: str = InstancesOpt, limit: Optional[int] = LimitOpt,
                device: Optional[str] = DeviceOpt, dtype: str = DtypeOpt, seed: int = SeedOpt,
                max_new_tokens: int = MaxNewOpt, min_new_tokens: int = MinNewOpt, greedy: bool = GreedyOpt,
                top_p: float = TopPOpt, top_k: int = TopKOpt, temperature: float = TempOpt,
                repetition_penalty: float = RepOpt, max_minutes: Optional[float] = MaxMinutesOpt,
                as_json: bool = JsonOpt):
        _run(name, out, data, batch_size, as_json, instances, limit, max_minutes=max_minutes, model=model,
             device=device, dtype=dtype,
             seed=seed, max_new_tokens=max_new_tokens, min_new_tokens=min_new_tokens,
             **_sampling(greedy, top_p, top_k, temperature, repetition_penalty))

    command.__name__, command.__doc__ = name.replace("-", "_"), doc
    return app.command(name)(command)


gpt2_d = _prompt_lm_command("gpt2-d", 'GPT-2 (D): continue "[Target]的做法如下。" with the recipe LM.')
gpt2_dr = _prompt_lm_command(
    "gpt2-dr", 'GPT-2 (D+R): "请根据[Base]的做法改写[Target]的做法。[Base Recipe][Target]的做法如下。" continued.')


@app.command("delorean")
def delorean(out: Path = OutOpt, model: str = ModelOpt, data: Optional[str] = DataOpt, batch_size: int = BatchOpt,
             instances: str = InstancesOpt, limit: Optional[int] = LimitOpt, device: Optional[str] = DeviceOpt,
             dtype: str = DtypeOpt, seed: int = SeedOpt,
             max_new_tokens: int = typer.Option(512, "--max-new-tokens", help="Most tokens per recipe."),
             mix_rate: float = typer.Option(0.92, "--mix-rate", help="Weight of the LM logits in each forward step."),
             stepsize: float = typer.Option(0.0004, "--stepsize", help="Normalised backward step size."),
             num_passes: int = typer.Option(5, "--num-passes", help="Backward/forward passes per sentence."),
             num_backward_iters: int = typer.Option(5, "--num-backward-iters", help="Gradient steps per backward pass."),
             extra_tokens: int = typer.Option(20, "--extra-tokens", help="Unmixed steps allowed to finish a sentence."),
             max_minutes: Optional[float] = MaxMinutesOpt, as_json: bool = JsonOpt):
    """DeLorean: backward (toward the base recipe) / forward (LM under the target dish) logit refinement."""
    _run("delorean", out, data, batch_size, as_json, instances, limit, max_minutes=max_minutes, model=model,
         device=device, dtype=dtype,
         seed=seed, max_new_tokens=max_new_tokens, mix_rate=mix_rate, stepsize=stepsize, num_passes=num_passes,
         num_backward_iters=num_backward_iters, extra_tokens=extra_tokens)


@app.command("educat")
def educat(out: Path = OutOpt, model: str = ModelOpt,
           mlm: Optional[str] = typer.Option(None, "--mlm", help="Masked LM sharing the causal LM's vocabulary "
                                             "(bert-base-chinese for uer/gpt2-chinese-*, `dishgraph train mlm` "
                                             "for a from-scratch LM)."),
           data: Optional[str] = DataOpt, batch_size: int = BatchOpt, instances: str = InstancesOpt,
           limit: Optional[int] = LimitOpt, device: Optional[str] = DeviceOpt, dtype: str = DtypeOpt,
           seed: int = typer.Option(1111, "--seed", help="Random seed (reference default 1111)."),
           sample_time: int = typer.Option(100, "--sample-time", help="MCMC steps per sentence."),
           drop_time: int = typer.Option(60, "--drop-time", help="Burn-in steps whose states are not kept."),
           search_size: int = typer.Option(100, "--search-size", help="MLM top-k proposals."),
           threshold: float = typer.Option(0.1, "--threshold", help="Reject unless π' > threshold · π."),
           max_minutes: Optional[float] = MaxMinutesOpt, as_json: bool = JsonOpt):
    """EduCat: MCMC token edits of the base recipe (conflict detection + MLM proposals + MH acceptance)."""
    _run("educat", out, data, batch_size, as_json, instances, limit, max_minutes=max_minutes, model=model,
         mlm=mlm, device=device,
         dtype=dtype, seed=seed, sample_time=sample_time, drop_time=drop_time, search_size=search_size,
         threshold=threshold)
