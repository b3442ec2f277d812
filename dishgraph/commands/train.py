"""`dishgraph train`: train the recipe language model behind the GPT-2 / DeLorean / EduCat generators."""
from __future__ import annotations

from typing import Optional

import typer

from dishgraph.commands._common import (DbOpt, JsonOpt, UriOpt, console, emit_json, err_console, open_store, print_error, rows_table)

app = typer.Typer(help="Train models on the recipes in the graph.", no_args_is_help=True)


def _progress_bar(label: str):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TextColumn("loss {task.fields[loss]}"),
                    TimeElapsedColumn(), console=err_console, transient=True)


@app.command("lm")
def lm(out: str = typer.Option(..., "--out", help="Output directory: model, tokenizer, train_log.json, loss.png, "
                                                  "checkpoint/."),
       init: Optional[str] = typer.Option(None, "--init", help="Start from this checkpoint (local dir or hub id, "
                                          "e.g. uer/gpt2-chinese-cluecorpussmall); default: a new small GPT-2 "
                                          "with a character vocabulary built from the training recipes."),
       source: str = typer.Option("db", "--source", help="Where recipes come from: 'db' (the graph: every "
                                  "Dish-HAS_RECIPE->Recipe, holding out DishPair targets) or 'release' "
                                  "(base_recipes.txt directly, holding out the pairs' target dishes)."),
       data: Optional[str] = typer.Option(None, "--data", help="Data directory for --source release."),
       epochs: float = typer.Option(3.0, "--epochs", help="Passes over the training recipes."),
       max_steps: Optional[int] = typer.Option(None, "--max-steps", help="Stop after this many optimizer steps."),
       max_minutes: Optional[float] = typer.Option(None, "--max-minutes", help="Wall-time budget: checkpoint "
                                                   "and stop after this many minutes (the schedule still "
                                                   "follows --max-steps/--epochs)."),
       lr: float = typer.Option(5e-5, "--lr", help="AdamW learning rate (linear decay to 0); the paper "
                                "fine-tunes with 5e-5, a from-scratch model wants ~1e-3."),
       warmup_steps: int = typer.Option(0, "--warmup-steps", help="Linear learning-rate warmup steps."),
       pack: bool = typer.Option(False, "--pack", help="Concatenate recipes into full --max-length blocks "
                                 "instead of padding each batch to its longest recipe."),
       batch_size: int = typer.Option(8, "--batch-size", help="Recipes per optimizer step."),
       max_length: int = typer.Option(512, "--max-length", help="Tokens per recipe (longer ones are cut)."),
       device: Optional[str] = typer.Option(None, "--device", help="cpu, cuda, cuda:N (default: cuda if available)."),
       dtype: str = typer.Option("float32", "--dtype", help="float32, bfloat16 or float16 (mixed precision)."),
       save_every: int = typer.Option(200, "--save-every", help="Checkpoint every N steps (and at the end)."),
       eval_every: int = typer.Option(200, "--eval-every", help="Validation loss every N steps."),
       val_fraction: float = typer.Option(0.05, "--val-fraction", help="Share of recipes kept for validation."),
       resume: bool = typer.Option(False, "--resume", help="Continue from OUT/checkpoint if present."),
       seed: int = typer.Option(0, "--seed", help="Random seed (shuffling, initialisation)."),
       n_layer: int = typer.Option(2, "--n-layer", help="Layers of a from-scratch GPT-2."),
       n_embd: int = typer.Option(128, "--n-embd", help="Hidden size of a from-scratch GPT-2."),
       n_head: int = typer.Option(2, "--n-head", help="Attention heads of a from-scratch GPT-2."),
       n_positions: int = typer.Option(1024, "--n-positions", help="Context length of a from-scratch GPT-2."),
       db: Optional[str] = DbOpt, uri: Optional[str] = UriOpt, as_json: bool = JsonOpt):
    """Fine-tune (or train from scratch) a causal LM on "[Dish]的做法如下。[Recipe]", never on target dishes."""
    from dishgraph.models.lm import TrainConfig

    cfg = TrainConfig(out=out, init=init, epochs=epochs, max_steps=max_steps, lr=lr, batch_size=batch_size,
                      warmup_steps=warmup_steps, pack=pack,
                      max_seconds=max_minutes * 60 if max_minutes is not None else None, n_positions=n_positions,
                      max_length=max_length, device=device, dtype=dtype, save_every=save_every,
                      eval_every=eval_every, val_fraction=val_fraction, resume=resume, seed=seed,
                      n_layer=n_layer, n_embd=n_embd, n_head=n_head)
    _train(cfg, source, data, db, uri, as_json, "recipe LM")


def _recipes(source: str, data: Optional[str], db: Optional[str], uri: Optional[str]):
    """(dish, recipe) pairs and held-out target dishes from the graph or the release file."""
    from dishgraph.models.lm import held_out_from_store, recipes_from_release, recipes_from_store

    if source == "db":
        store = open_store(db, uri, read_only=True)
        try:
            recipes, held_out = recipes_from_store(store), held_out_from_store(store)
        finally:
            store.close()
    elif source == "release":
        recipes, held_out = recipes_from_release(data)
    else:
        print_error(f"--source must be 'db' or 'release', got {source!r}")
        raise typer.Exit(2)
    if not recipes:
        print_error("no recipes found (ingest a corpus first, or use --source release)")
        raise typer.Exit(2)
    return recipes, held_out


def _train(cfg, source: str, data: Optional[str], db: Optional[str], uri: Optional[str], as_json: bool,
           label: str) -> None:
    from transformers.utils import logging as hf_logging

    from dishgraph.models.lm import train_lm

    hf_logging.disable_progress_bar()
    recipes, held_out = _recipes(source, data, db, uri)
    try:
        with _progress_bar(label) as prog:
            task = prog.add_task("train", total=None, loss="-")
            result = train_lm(recipes, held_out, cfg,
                              lambda s, total, loss: prog.update(task, completed=s, total=total, loss=f"{loss:.3f}"))
    except ValueError as e:
        print_error(f"{e}")
        raise typer.Exit(2)
    summary = result.summary()
    if as_json:
        emit_json(summary)
    else:
        console.print(rows_table([{"key": k, "value": v} for k, v in summary.items()], label))


@app.command("mlm")
def mlm(out: str = typer.Option(..., "--out", help="Output directory: model, tokenizer, train_log.json, loss.png."),
        tokenizer_from: Optional[str] = typer.Option(None, "--tokenizer-from", help="Reuse this causal LM's "
                                                     "vocabulary (a `train lm` output), so EduCat can pair them."),
        init: Optional[str] = typer.Option(None, "--init", help="Start from this masked LM (dir or hub id, e.g. "
                                           "bert-base-chinese); default: a new small BERT."),
        source: str = typer.Option("db", "--source", help="'db' (the graph) or 'release' (base_recipes.txt)."),
        data: Optional[str] = typer.Option(None, "--data", help="Data directory for --source release."),
        epochs: float = typer.Option(3.0, "--epochs", help="Passes over the training recipes."),
        max_steps: Optional[int] = typer.Option(None, "--max-steps", help="Stop after this many optimizer steps."),
        max_minutes: Optional[float] = typer.Option(None, "--max-minutes", help="Wall-time budget in minutes."),
        lr: float = typer.Option(1e-3, "--lr", help="AdamW learning rate (linear decay to 0)."),
        warmup_steps: int = typer.Option(0, "--warmup-steps", help="Linear learning-rate warmup steps."),
        batch_size: int = typer.Option(8, "--batch-size", help="Rows per optimizer step."),
        max_length: int = typer.Option(256, "--max-length", help="Tokens per row."),
        pack: bool = typer.Option(True, "--pack/--no-pack", help="Concatenate recipes into full rows."),
        device: Optional[str] = typer.Option(None, "--device", help="cpu, cuda, cuda:N (default: cuda if available)."),
        save_every: int = typer.Option(200, "--save-every", help="Checkpoint every N steps (and at the end)."),
        eval_every: int = typer.Option(200, "--eval-every", help="Validation loss every N steps."),
        val_fraction: float = typer.Option(0.02, "--val-fraction", help="Share of recipes kept for validation."),
        resume: bool = typer.Option(False, "--resume", help="Continue from OUT/checkpoint if present."),
        seed: int = typer.Option(0, "--seed", help="Random seed."),
        n_layer: int = typer.Option(2, "--n-layer", help="Layers of a from-scratch BERT."),
        n_embd: int = typer.Option(128, "--n-embd", help="Hidden size of a from-scratch BERT."),
        n_head: int = typer.Option(2, "--n-head", help="Attention heads of a from-scratch BERT."),
        db: Optional[str] = DbOpt, uri: Optional[str] = UriOpt, as_json: bool = JsonOpt):
    """Train a masked LM (BERT) on the same recipes and held-out rule: EduCat's proposal model."""
    from dishgraph.models.lm import TrainConfig

    cfg = TrainConfig(out=out, init=init, objective="masked", tokenizer_from=tokenizer_from, epochs=epochs,
                      max_steps=max_steps, lr=lr, warmup_steps=warmup_steps, batch_size=batch_size,
                      max_length=max_length, pack=pack, device=device, save_every=save_every,
                      eval_every=eval_every, val_fraction=val_fraction, resume=resume, seed=seed,
                      max_seconds=max_minutes * 60 if max_minutes is not None else None,
                      n_layer=n_layer, n_embd=n_embd, n_head=n_head, n_positions=512)
    _train(cfg, source, data, db, uri, as_json, "masked LM")
