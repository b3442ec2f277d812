"""`dishgraph train`: train the recipe language model behind the GPT-2 / DeLorean / EduCat generators."""

from __future__ import annotations

from pathlib import Path

import typer

from dishgraph.cli_errors import DishgraphGroup, exit_on
from dishgraph.commands._common import console, emit_json, open_store, progress, rows_table
from dishgraph.commands._options import DbOpt, DeviceOpt, JsonOpt, JsonOutOpt, SeedOpt, UriOpt, renamed

app = typer.Typer(help="Train models on the recipes in the graph.", no_args_is_help=True, cls=DishgraphGroup)

PresetOpt = typer.Option(
    None,
    "--preset",
    help="Size of a from-scratch model: base (12x768, the paper's ~100M "
    "class), mini (6x512), small-cpu (3x192), tiny (2x64); --n-* flags override it.",
)
NLayerOpt = typer.Option(None, "--n-layer", help="Layers of a from-scratch model (default: preset, else 2).")
NEmbdOpt = typer.Option(None, "--n-embd", help="Hidden size of a from-scratch model (default: preset, else 128).")
NHeadOpt = typer.Option(None, "--n-head", help="Attention heads of a from-scratch model (default: preset, else 2).")
SourceDataOpt = typer.Option(
    None, "--data", help="Data directory for --source release, the bundle directory for --source bundle."
)
TrainDtypeOpt = typer.Option("float32", "--dtype", help="float32, bfloat16 or float16 (mixed precision).")
SaveEveryOpt = typer.Option(200, "--save-every", help="Checkpoint every N steps (and at the end).")
EvalEveryOpt = typer.Option(200, "--eval-every", help="Validation loss every N steps.")
ResumeOpt = typer.Option(False, "--resume", help="Continue from OUT/checkpoint if present.")
KeepBestOpt = typer.Option(
    False,
    "--keep-best",
    help="Also save the weights with the lowest validation loss to OUT/best (for runs long enough to overfit).",
)


def _progress_bar(label: str):
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    return progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("loss {task.fields[loss]}"),
        TimeElapsedColumn(),
    )


@app.command("lm")
def lm(
    out: str = typer.Option(
        ..., "--out", "-o", help="Output directory: model, tokenizer, train_log.json, loss.png, checkpoint/."
    ),
    init: str | None = typer.Option(
        None,
        "--init",
        help="Start from this checkpoint (local dir or hub id, "
        "e.g. uer/gpt2-chinese-cluecorpussmall); default: a new small GPT-2 "
        "with a character vocabulary built from the training recipes.",
    ),
    source: str = typer.Option(
        "db",
        "--source",
        help="Where recipes come from: 'db' (the graph: every "
        "Dish-HAS_RECIPE->Recipe, holding out DishPair targets), 'release' "
        "(base_recipes.txt directly, holding out the pairs' target dishes) or "
        "'bundle' (a `dishgraph gpu bundle` directory: its train/val files; no "
        "database or segmenter is imported).",
    ),
    data: str | None = SourceDataOpt,
    epochs: float = typer.Option(3.0, "--epochs", help="Passes over the training recipes."),
    max_steps: int | None = typer.Option(None, "--max-steps", help="Stop after this many optimizer steps."),
    max_minutes: float | None = typer.Option(
        None,
        "--max-minutes",
        help="Wall-time budget: checkpoint "
        "and stop after this many minutes (the schedule still "
        "follows --max-steps/--epochs).",
    ),
    lr: float = typer.Option(
        5e-5,
        "--lr",
        help="AdamW learning rate (linear decay to 0); the paper "
        "fine-tunes with 5e-5, a from-scratch model wants ~1e-3.",
    ),
    warmup_steps: int = typer.Option(0, "--warmup-steps", help="Linear learning-rate warmup steps."),
    pack: bool = typer.Option(
        False,
        "--pack",
        help="Concatenate recipes into full --max-length blocks instead of padding each batch to its longest recipe.",
    ),
    batch_size: int = typer.Option(8, "--batch-size", help="Recipes per optimizer step."),
    max_length: int = typer.Option(512, "--max-length", help="Tokens per recipe (longer ones are cut)."),
    device: str | None = DeviceOpt,
    dtype: str = TrainDtypeOpt,
    save_every: int = SaveEveryOpt,
    eval_every: int = EvalEveryOpt,
    val_fraction: float = typer.Option(0.05, "--val-fraction", help="Share of recipes kept for validation."),
    resume: bool = ResumeOpt,
    seed: int = SeedOpt,
    preset: str | None = PresetOpt,
    n_layer: int | None = NLayerOpt,
    n_embd: int | None = NEmbdOpt,
    n_head: int | None = NHeadOpt,
    n_positions: int | None = typer.Option(
        None, "--n-positions", help="Context length of a from-scratch GPT-2 (default: the preset's, else 1024)."
    ),
    keep_best: bool = KeepBestOpt,
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """Fine-tune (or train from scratch) a causal LM on "[Dish]的做法如下。[Recipe]", never on target dishes."""
    from dishgraph.models.lm import TrainConfig

    sizes = _sizes(preset, n_layer=n_layer, n_embd=n_embd, n_head=n_head, n_positions=n_positions)
    cfg = TrainConfig(
        out=out,
        init=init,
        epochs=epochs,
        max_steps=max_steps,
        lr=lr,
        batch_size=batch_size,
        warmup_steps=warmup_steps,
        pack=pack,
        max_seconds=max_minutes * 60 if max_minutes is not None else None,
        max_length=max_length,
        device=device,
        dtype=dtype,
        save_every=save_every,
        eval_every=eval_every,
        val_fraction=val_fraction,
        resume=resume,
        seed=seed,
        keep_best=keep_best,
        **sizes,
    )
    _train(cfg, source, data, db, uri, as_json, "recipe LM")


def _sizes(preset: str | None, **explicit) -> dict:
    from dishgraph.models.lm_sizes import resolve_sizes

    with exit_on(ValueError, code=2):
        return resolve_sizes(preset, **explicit)


def _recipes(source: str, data: str | None, db: str | None, uri: str | None):
    """(dish, recipe) pairs, held-out target dishes and a fixed validation set (bundle only, else None)
    from the graph, the release file or a GPU bundle."""
    from dishgraph.errors import UsageError
    from dishgraph.models.lm import held_out_from_store, recipes_from_release, recipes_from_store

    if source == "bundle":  # the GPU path: plain files, nothing that needs the database or a segmenter
        from dishgraph.models.bundle import read_corpus

        if not data:
            raise UsageError("--source bundle needs --data BUNDLE_DIR (`dishgraph gpu bundle`)")
        with exit_on(ValueError, OSError, code=2):
            train, val, held_out = read_corpus(data)
        return train, held_out, val
    if source == "db":
        store = open_store(db, uri, read_only=True)
        try:
            recipes, held_out = recipes_from_store(store), held_out_from_store(store)
        finally:
            store.close()
    elif source == "release":
        recipes, held_out = recipes_from_release(data)
    else:
        raise UsageError(f"--source must be 'db', 'release' or 'bundle', got {source!r}")
    if not recipes:
        raise UsageError("no recipes found (ingest a corpus first, or use --source release)")
    return recipes, held_out, None


def _train(cfg, source: str, data: str | None, db: str | None, uri: str | None, as_json: bool, label: str) -> None:
    from transformers.utils import logging as hf_logging

    from dishgraph.models.lm import train_lm

    hf_logging.disable_progress_bar()
    recipes, held_out, val = _recipes(source, data, db, uri)
    with exit_on(ValueError, code=2), _progress_bar(label) as prog:
        task = prog.add_task("train", total=None, loss="-")
        result = train_lm(
            recipes,
            held_out,
            cfg,
            lambda s, total, loss: prog.update(task, completed=s, total=total, loss=f"{loss:.3f}"),
            val_recipes=val,
        )
    summary = result.summary()
    if as_json:
        emit_json(summary)
    else:
        console.print(rows_table([{"key": k, "value": v} for k, v in summary.items()], label))


@app.command("mlm")
def mlm(
    out: str = typer.Option(..., "--out", "-o", help="Output directory: model, tokenizer, train_log.json, loss.png."),
    tokenizer_from: str | None = typer.Option(
        None,
        "--tokenizer-from",
        help="Reuse this causal LM's vocabulary (a `train lm` output), so EduCat can pair them.",
    ),
    init: str | None = typer.Option(
        None,
        "--init",
        help="Start from this masked LM (dir or hub id, e.g. bert-base-chinese); default: a new small BERT.",
    ),
    source: str = typer.Option(
        "db",
        "--source",
        help="'db' (the graph), 'release' (base_recipes.txt) or "
        "'bundle' (a `dishgraph gpu bundle` directory; no database needed).",
    ),
    data: str | None = SourceDataOpt,
    epochs: float = typer.Option(3.0, "--epochs", help="Passes over the training recipes."),
    max_steps: int | None = typer.Option(None, "--max-steps", help="Stop after this many optimizer steps."),
    max_minutes: float | None = typer.Option(None, "--max-minutes", help="Wall-time budget in minutes."),
    lr: float = typer.Option(1e-3, "--lr", help="AdamW learning rate (linear decay to 0)."),
    warmup_steps: int = typer.Option(0, "--warmup-steps", help="Linear learning-rate warmup steps."),
    batch_size: int = typer.Option(8, "--batch-size", help="Rows per optimizer step."),
    max_length: int = typer.Option(256, "--max-length", help="Tokens per row."),
    pack: bool = typer.Option(True, "--pack/--no-pack", help="Concatenate recipes into full rows."),
    device: str | None = DeviceOpt,
    dtype: str = TrainDtypeOpt,
    save_every: int = SaveEveryOpt,
    eval_every: int = EvalEveryOpt,
    val_fraction: float = typer.Option(0.02, "--val-fraction", help="Share of recipes kept for validation."),
    resume: bool = ResumeOpt,
    seed: int = SeedOpt,
    preset: str | None = PresetOpt,
    n_layer: int | None = NLayerOpt,
    n_embd: int | None = NEmbdOpt,
    n_head: int | None = NHeadOpt,
    keep_best: bool = KeepBestOpt,
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """Train a masked LM (BERT) on the same recipes and held-out rule: EduCat's proposal model."""
    from dishgraph.models.lm import TrainConfig

    sizes = _sizes(preset, n_layer=n_layer, n_embd=n_embd, n_head=n_head)
    sizes["n_positions"] = min(sizes["n_positions"], 512)
    cfg = TrainConfig(
        out=out,
        init=init,
        objective="masked",
        tokenizer_from=tokenizer_from,
        epochs=epochs,
        max_steps=max_steps,
        lr=lr,
        warmup_steps=warmup_steps,
        batch_size=batch_size,
        max_length=max_length,
        pack=pack,
        device=device,
        dtype=dtype,
        save_every=save_every,
        eval_every=eval_every,
        val_fraction=val_fraction,
        resume=resume,
        seed=seed,
        max_seconds=max_minutes * 60 if max_minutes is not None else None,
        keep_best=keep_best,
        **sizes,
    )
    _train(cfg, source, data, db, uri, as_json, "masked LM")


@app.command("diner")
def diner(
    dataset_dir: str = typer.Argument(..., help="A `dishgraph diner dataset` output directory."),
    model: str = typer.Option(
        ..., "--model", help="T5ForConditionalGeneration checkpoint: local directory or hub id (e.g. a Chinese T5)."
    ),
    out: str = typer.Option(
        ...,
        "--out",
        "-o",
        help="Output directory: the fine-tuned model (safetensors), predictions.jsonl for `eval diner`, report.json.",
    ),
    split: str | None = typer.Option(None, "--split", help="Split of the manifest (default: its first)."),
    train_fraction: float = typer.Option(1.0, "--train-fraction", help="Train on this fraction's file."),
    mode: str = typer.Option(
        "ft",
        "--mode",
        help="ft (T5 fine-tuning) | cp-ft (component models' predictions as a compositional prompt, then FT).",
    ),
    pretrain_corpus: str | None = typer.Option(
        None,
        "--pretrain-corpus",
        help="JSONL with 'instructions' (the dataset's pretrain.jsonl) for continual pretraining by span corruption.",
    ),
    pretrain_steps: int = typer.Option(1000, "--pretrain-steps", help="Span-corruption steps with --pretrain-corpus."),
    epochs: int = typer.Option(
        10, "--epochs", help="Most epochs per model (early stopping on the 20% validation share)."
    ),
    max_steps: int | None = typer.Option(None, "--max-steps", help="Cap on optimizer steps per model."),
    patience: int = typer.Option(2, "--patience", help="Epochs without validation improvement before stopping."),
    val_fraction: float = typer.Option(0.2, "--val-fraction", help="Share of train held out (paper: 0.2)."),
    batch_size: int = typer.Option(16, "--batch-size", help="Examples per step (and per generation batch)."),
    lr: float = typer.Option(3e-4, "--lr", help="AdamW learning rate."),
    max_source_len: int = typer.Option(512, "--max-source-len", help="Input tokens."),
    max_new_tokens: int = typer.Option(24, "--max-new-tokens", help="Longest generated name (tokens)."),
    num_beams: int = typer.Option(1, "--num-beams", help="Beam size at generation."),
    device: str | None = DeviceOpt,
    dtype: str = TrainDtypeOpt,
    seed: int = SeedOpt,
    as_json: bool = JsonOpt,
):
    """DiNeR's T5 baselines on a recognition dataset: fine-tuning, continual pretraining, CP-FT."""
    from transformers.utils import logging as hf_logging

    from dishgraph.diner.t5 import DinerT5Config, run_baseline

    cfg = DinerT5Config(
        model=model,
        output_dir=out,
        mode=mode,
        epochs=epochs,
        max_steps=max_steps,
        batch_size=batch_size,
        lr=lr,
        val_fraction=val_fraction,
        patience=patience,
        max_source_len=max_source_len,
        max_new_tokens=max_new_tokens,
        num_beams=num_beams,
        pretrain_steps=pretrain_steps if pretrain_corpus else 0,
        device=device,
        dtype=dtype,
        seed=seed,
    )
    hf_logging.disable_progress_bar()
    with exit_on(OSError, ValueError, code=2), _progress_bar("DiNeR T5") as prog:
        task = prog.add_task("train", total=None, loss="-")
        report = run_baseline(
            dataset_dir,
            cfg,
            split=split,
            fraction=train_fraction,
            pretrain_corpus=pretrain_corpus,
            progress=lambda label, s, total, loss: prog.update(
                task, description=label, completed=s, total=total, loss=f"{loss:.3f}"
            ),
        )
    summary = {
        k: report[k]
        for k in (
            "split",
            "mode",
            "device",
            "train_examples",
            "test_examples",
            "f1",
            "exact_match",
            "seconds",
            "predictions",
        )
    }
    if as_json:
        emit_json(summary)
    else:
        console.print(rows_table([{"key": k, "value": v} for k, v in summary.items()], "DiNeR T5"))


@app.command("pcs", cls=renamed({"--output-dir": "--out"}))
def pcs(
    train: Path = typer.Argument(..., help="Training PCS tables (file or directory)."),
    model: str = typer.Option(
        ..., "--model", help="T5 checkpoint: a local directory (or a hub id such as t5-small, which may download it)."
    ),
    output_dir: Path | None = typer.Option(None, "--out", "-o", help="Save the fine-tuned model and tokenizer here."),
    dev: Path | None = typer.Option(None, "--dev", help="Tables to score with the PCS metrics."),
    mask: str = typer.Option("tokens", "--mask", help="tokens (<in>/<out>) | sentinel (<extra_id_k>)"),
    max_rows: int | None = typer.Option(None, "--max-rows", help="Rows per example (default: whole table)."),
    epochs: int = typer.Option(3, "--epochs", help="Passes over the training examples."),
    max_steps: int | None = typer.Option(None, "--max-steps", help="Stop after this many steps."),
    batch_size: int = typer.Option(8, "--batch-size", help="Examples per step."),
    lr: float = typer.Option(3e-4, "--lr", help="AdamW learning rate."),
    max_source_len: int = typer.Option(512, "--max-source-len", help="Source tokens kept."),
    max_target_len: int = typer.Option(256, "--max-target-len", help="Target tokens kept."),
    max_new_tokens: int = typer.Option(256, "--max-new-tokens", help="Generation length for --dev."),
    seed: int = SeedOpt,
    device: str | None = DeviceOpt,
    as_json: bool = JsonOpt,
    json_out: Path | None = JsonOutOpt,
):
    """Fine-tune T5ForConditionalGeneration to fill PCS input/output cells; score --dev with the PCS metrics."""
    from dishgraph.pcs.t5 import T5Config, train_pcs

    cfg = T5Config(
        model=model,
        output_dir=str(output_dir) if output_dir else None,
        mask=mask,
        max_rows=max_rows,
        epochs=epochs,
        max_steps=max_steps,
        batch_size=batch_size,
        lr=lr,
        max_source_len=max_source_len,
        max_target_len=max_target_len,
        max_new_tokens=max_new_tokens,
        seed=seed,
        device=device,
    )
    with progress(disable=as_json, transient=False) as bar:
        task = bar.add_task("train pcs", total=None)
        rep = train_pcs(
            train,
            cfg,
            dev,
            progress=lambda s, n, loss: bar.update(
                task, completed=s, total=n, description=f"train pcs loss={loss:.3f}"
            ),
        )
    if as_json or json_out:
        emit_json(rep, json_out)
        if as_json:
            return
    console.print(
        rows_table(
            [{k: rep[k] for k in ("train_tables", "examples", "steps", "loss_first", "loss_last", "device")}], "trained"
        )
    )
    for field in ("input", "output"):
        if "dev" in rep:
            console.print(rows_table([{k: v for k, v in rep["dev"][field].items()}], f"dev {field}"))
