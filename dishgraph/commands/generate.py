"""`dishgraph generate`: write counterfactual recipes for all CRG instances with a registered generator."""

from __future__ import annotations

from pathlib import Path

import typer

from dishgraph.cli_errors import DishgraphGroup, exit_on
from dishgraph.commands._common import console, emit_json, progress, rows_table
from dishgraph.commands._options import DataOpt, DbOpt, DeviceOpt, JsonOpt, SeedOpt, UriOpt
from dishgraph.ingest.crg import SOURCE as RELEASE

app = typer.Typer(
    help="Generate counterfactual recipes (one per base recipe) with a registered generator. "
    "Every generator reads the release under --data; only `graph` (and `run` with a generator "
    "that reads the graph) also reads the graph database (--db / --uri).",
    no_args_is_help=True,
    cls=DishgraphGroup,
)

OutOpt = typer.Option(
    ...,
    "--out",
    "-o",
    help="Output file: .jsonl writes {base,target,index,text} records, "
    "anything else one recipe per line in base_recipes.txt order "
    "(a subset chosen with --limit/--instances needs .jsonl).",
)
BatchOpt = typer.Option(32, "--batch-size", help="Instances per generate() call.")
LimitOpt = typer.Option(None, "--limit", help="Only the first N instances of the --instances selection.")
InstancesOpt = typer.Option(
    "all",
    "--instances",
    help="Which instances: 'all', 'first-per-pair' (one per dish pair, 50), "
    "'spread' (all, round-robin over the pairs: any prefix covers every pair), 'spread:N' (that order from "
    "its N-th instance: continues an earlier run), "
    "'every:K' (every K-th), or indices/ranges like '0,50,100-119'.",
)
MaxMinutesOpt = typer.Option(
    None,
    "--max-minutes",
    help="Time box: start no batch that would, at the pace so far, "
    "end after this many minutes of generation; write the instances done (JSONL; pair "
    "with --instances spread).",
)
ModelOpt = typer.Option(
    None,
    "--model",
    help="Causal LM: a `dishgraph train lm` output dir or a hub id (e.g. uer/gpt2-chinese-cluecorpussmall).",
)
DtypeOpt = typer.Option("float32", "--dtype", help="Weights dtype: float32, bfloat16 or float16 (GPU).")
MaxNewOpt = typer.Option(256, "--max-new-tokens", help="Most tokens generated per recipe.")
MinNewOpt = typer.Option(8, "--min-new-tokens", help="End-of-text is blocked for the first N tokens.")


def _run(
    name: str,
    out: Path,
    data: str | None,
    batch_size: int,
    as_json: bool,
    instances: str = "all",
    limit: int | None = None,
    **options,
) -> None:
    """Every generate command: `run_generator` under a progress bar, its summary as a table or JSON.

    Commands pass their parsed parameters (``ctx.params``) whole: each option that is not a run option above is a
    generator option of the same name (`registry.create` keeps those the generator's constructor takes)."""
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    from dishgraph.models.run import run_generator

    try:  # the models extra: its own download bars would break ours
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except ModuleNotFoundError:  # core install: the model-free generators need no transformers
        pass
    with (
        exit_on(KeyError, ValueError, OSError, code=2),
        progress(TextColumn(name), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()) as bar,
    ):
        task = bar.add_task(name, total=None)
        summary = run_generator(
            name,
            out,
            data,
            batch_size,
            instances,
            limit,
            progress=lambda k, total: bar.update(task, advance=k, total=total),
            **options,
        )
    if as_json:
        emit_json(summary)
    else:
        console.print(rows_table([summary], "generated"))


@app.command("identity")
def identity(
    ctx: typer.Context,
    out: Path = OutOpt,
    data: str | None = DataOpt,
    batch_size: int = BatchOpt,
    instances: str = InstancesOpt,
    limit: int | None = LimitOpt,
    as_json: bool = JsonOpt,
):
    """Copy every base recipe unchanged (BLEU 100 anchor)."""
    _run("identity", **ctx.params)


@app.command("replace")
def replace(
    ctx: typer.Context,
    out: Path = OutOpt,
    data: str | None = DataOpt,
    batch_size: int = BatchOpt,
    synonyms: str = typer.Option(
        "class",
        "--synonyms",
        help="Which mentions to replace: 'class' (all glossary forms of the "
        "ingredient's class), 'form' (the form and class forms containing "
        "it), 'none' (the exact form).",
    ),
    instances: str = InstancesOpt,
    limit: int | None = LimitOpt,
    as_json: bool = JsonOpt,
):
    """Swap the replaced ingredient's mentions for the new ingredient; "add" pairs are copied."""
    _run("replace", **ctx.params)


@app.command("graph")
def graph(
    ctx: typer.Context,
    out: Path = OutOpt,
    data: str | None = DataOpt,
    batch_size: int = BatchOpt,
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    knowledge: str = typer.Option(
        "pivots",
        "--knowledge",
        help="'composed' (fair, the headline): pivots and order constraints "
        "composed from the dishes sharing the target's name components "
        "(`dishgraph pivots mine --knowledge composed` first; reads no "
        "released pivot or constraint); 'pivots': the pair's pivot edges "
        f"({RELEASE}, then annotated, then mined: with the release loaded "
        "an oracle, an upper bound); 'association' (fair): the base dish's "
        "recipes contrasted with other dishes' handling of the new class.",
    ),
    max_insert_ratio: float = typer.Option(
        0.5, "--max-insert-ratio", help="Inserted clauses may add at most this share of the base recipe's length."
    ),
    abstain: bool = typer.Option(
        False,
        "--abstain-unscored",
        help="Association mode: leave a recipe at the ingredient swap when the "
        "swap changes no action L2 counts (a probe of L2's averaging over "
        "changed recipes only, not a quality rule).",
    ),
    instances: str = InstancesOpt,
    limit: int | None = LimitOpt,
    as_json: bool = JsonOpt,
):
    """Graph-guided editor: substitute the ingredient, drop its specific clauses, insert the new one's
    actions (real example phrases) where the order constraints allow; keep the rest verbatim."""
    _run("graph", **ctx.params)


@app.command("run")
def run(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="Registered generator name (see `dishgraph generate ls`)."),
    out: Path = OutOpt,
    data: str | None = DataOpt,
    batch_size: int = BatchOpt,
    instances: str = InstancesOpt,
    limit: int | None = LimitOpt,
    model: str | None = ModelOpt,
    device: str | None = DeviceOpt,
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """Run any registered generator with its default options (--db / --uri reach those that read the graph)."""
    _run(**ctx.params)


@app.command("ls")
def ls(as_json: bool = JsonOpt):
    """List registered generators (the same as `dishgraph ls generators`)."""
    from dishgraph.commands.ls import show

    show("generators", as_json)


def _sampling(*, greedy: bool, top_p: float, top_k: int, temperature: float, repetition_penalty: float, **rest) -> dict:
    """The sampling flags as the LM generators' keywords (``--greedy`` is ``do_sample=False``); ``rest`` passes."""
    return dict(
        rest,
        do_sample=not greedy,
        top_p=top_p,
        top_k=top_k,
        temperature=temperature,
        repetition_penalty=repetition_penalty,
    )


GreedyOpt = typer.Option(False, "--greedy", help="Greedy decoding instead of sampling.")
TopPOpt = typer.Option(0.9, "--top-p", help="Nucleus sampling mass.")
TopKOpt = typer.Option(0, "--top-k", help="Top-k sampling (0 = off).")
TempOpt = typer.Option(1.0, "--temperature", help="Sampling temperature.")
RepOpt = typer.Option(1.0, "--repetition-penalty", help="Repetition penalty (1 = none).")


def _prompt_lm_command(name: str, doc: str):
    """GPT-2 (D) and (D+R) differ only in their prompt (the generator's), so they share one command body,
    registered under each name."""

    def command(
        ctx: typer.Context,
        out: Path = OutOpt,
        model: str = ModelOpt,
        data: str | None = DataOpt,
        batch_size: int = BatchOpt,
        instances: str = InstancesOpt,
        limit: int | None = LimitOpt,
        device: str | None = DeviceOpt,
        dtype: str = DtypeOpt,
        seed: int = SeedOpt,
        max_new_tokens: int = MaxNewOpt,
        min_new_tokens: int = MinNewOpt,
        greedy: bool = GreedyOpt,
        top_p: float = TopPOpt,
        top_k: int = TopKOpt,
        temperature: float = TempOpt,
        repetition_penalty: float = RepOpt,
        max_minutes: float | None = MaxMinutesOpt,
        as_json: bool = JsonOpt,
    ):
        _run(name, **_sampling(**ctx.params))

    return app.command(name, help=doc)(command)


gpt2_d = _prompt_lm_command("gpt2-d", 'GPT-2 (D): continue "[Target]的做法如下。" with the recipe LM.')
gpt2_dr = _prompt_lm_command(
    "gpt2-dr", 'GPT-2 (D+R): "请根据[Base]的做法改写[Target]的做法。[Base Recipe][Target]的做法如下。" continued.'
)


@app.command("delorean")
def delorean(
    ctx: typer.Context,
    out: Path = OutOpt,
    model: str = ModelOpt,
    data: str | None = DataOpt,
    batch_size: int = BatchOpt,
    instances: str = InstancesOpt,
    limit: int | None = LimitOpt,
    device: str | None = DeviceOpt,
    dtype: str = DtypeOpt,
    seed: int = SeedOpt,
    max_new_tokens: int = typer.Option(512, "--max-new-tokens", help="Most tokens per recipe."),
    mix_rate: float = typer.Option(0.92, "--mix-rate", help="Weight of the LM logits in each forward step."),
    stepsize: float = typer.Option(0.0004, "--stepsize", help="Normalised backward step size."),
    num_passes: int = typer.Option(5, "--num-passes", help="Backward/forward passes per sentence."),
    num_backward_iters: int = typer.Option(5, "--num-backward-iters", help="Gradient steps per backward pass."),
    extra_tokens: int = typer.Option(20, "--extra-tokens", help="Unmixed steps allowed to finish a sentence."),
    max_minutes: float | None = MaxMinutesOpt,
    as_json: bool = JsonOpt,
):
    """DeLorean: backward (toward the base recipe) / forward (LM under the target dish) logit refinement."""
    _run("delorean", **ctx.params)


@app.command("educat")
def educat(
    ctx: typer.Context,
    out: Path = OutOpt,
    model: str = ModelOpt,
    mlm: str | None = typer.Option(
        None,
        "--mlm",
        help="Masked LM sharing the causal LM's vocabulary "
        "(bert-base-chinese for uer/gpt2-chinese-*, `dishgraph train mlm` "
        "for a from-scratch LM).",
    ),
    data: str | None = DataOpt,
    batch_size: int = BatchOpt,
    instances: str = InstancesOpt,
    limit: int | None = LimitOpt,
    device: str | None = DeviceOpt,
    dtype: str = DtypeOpt,
    seed: int = typer.Option(1111, "--seed", help="Random seed (reference default 1111)."),
    sample_time: int = typer.Option(100, "--sample-time", help="MCMC steps per sentence."),
    drop_time: int = typer.Option(60, "--drop-time", help="Burn-in steps whose states are not kept."),
    search_size: int = typer.Option(100, "--search-size", help="MLM top-k proposals."),
    threshold: float = typer.Option(0.1, "--threshold", help="Reject unless π' > threshold · π."),
    max_minutes: float | None = MaxMinutesOpt,
    as_json: bool = JsonOpt,
):
    """EduCat: MCMC token edits of the base recipe (conflict detection + MLM proposals + MH acceptance)."""
    _run("educat", **ctx.params)
