"""`dishgraph gpu`: prepare a GPU run on CPU (`bundle`) and gather what it brought back (`report`); the work
is in `dishgraph.models.gpu`."""

from __future__ import annotations

from pathlib import Path

import typer

from dishgraph.cli_errors import DishgraphGroup, exit_on
from dishgraph.commands._common import console, emit_json, open_store, rows_table
from dishgraph.commands._options import DbOpt, JsonOpt, UriOpt

app = typer.Typer(
    help="GPU runs without the graph: export a file bundle here, gather the results back.",
    no_args_is_help=True,
    cls=DishgraphGroup,
)


@app.command("bundle")
def bundle(
    out: Path = typer.Argument(
        ..., help="Bundle directory to write (train/val corpus, instances, release files, manifest)."
    ),
    data: str | None = typer.Option(
        None,
        "--data",
        help="Data directory holding counterfactual/ (the release files copied into the bundle); default: auto.",
    ),
    val_fraction: float = typer.Option(
        0.02,
        "--val-fraction",
        help="Share of each source's recipes kept for validation (the same split for every model size).",
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the validation split."),
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """Export from the graph everything `train lm/mlm --source bundle` and `generate --data` need on a GPU
    machine: every recipe (target dishes held out, also dish names containing one), a validation split,
    the 2,500 instances with their prompts, and the glossary."""
    from dishgraph.models.gpu import bundle_from_store

    with exit_on(ValueError, OSError, code=2), open_store(db, uri, read_only=True) as store:
        manifest = bundle_from_store(
            store, out, crg_data=data, val_fraction=val_fraction, seed=seed, origin={"db": db, "uri": uri}
        )
    if as_json:
        return emit_json(manifest)
    _print_bundle(manifest, out)


def _print_bundle(manifest: dict, out: Path) -> None:
    held = manifest["held_out"]
    summary = [
        {"key": "recipes read (distinct)", "value": manifest["recipes_read"] - manifest["duplicates_dropped"]},
        {"key": "held out: dish is a target", "value": held["dropped_exact"]},
        {"key": "held out: dish contains a target", "value": held["dropped_contains"]},
        {"key": "train recipes", "value": manifest["train_recipes"]},
        {"key": "validation recipes", "value": manifest["val_recipes"]},
        {"key": "training characters", "value": manifest["train_chars"]},
        {"key": "instances", "value": manifest["instances"]},
        {"key": "bundle bytes", "value": manifest["bytes"]},
    ]
    console.print(rows_table(summary, f"GPU bundle {out}"))
    for src, n in sorted(manifest["train_by_source"].items()):
        console.print(f"train recipes from {src}: {n}", markup=False)


@app.command("report")
def report(
    dirs: list[Path] = typer.Argument(..., help="Stage directories fetched from the GPU machine."),
    out: Path | None = typer.Option(
        None, "--out", "-o", help="Write the gathered results JSON here (benchmarks/results/generators_gpu.json)."
    ),
    plot: Path | None = typer.Option(None, "--plot", help="Write the validation-loss PNG here."),
    scores: Path | None = typer.Option(
        None,
        "--scores",
        help="`eval crg --json-out` file to merge, its rows relabelled with model size, corpus and minutes.",
    ),
    chosen: str | None = typer.Option(
        None,
        "--chosen",
        help="Training run the generators used (default: the causal run with the lowest validation loss).",
    ),
    note: str | None = typer.Option(
        None, "--note", help="Free text stored with the results (e.g. 'TINY CPU dry run: not GPU figures')."
    ),
    bundle_dir: Path | None = typer.Option(
        None, "--bundle", help="The bundle the run trained on (its manifest names the corpora in the row labels)."
    ),
    as_json: bool = JsonOpt,
):
    """Gather a GPU run (device, training tokens/s, recipes/s per generator), plot the validation loss,
    and relabel the CRG scores with the model that produced them."""
    from dishgraph.models.gpu import gpu_report

    with exit_on(ValueError, KeyError, TypeError, OSError, code=2):
        result = gpu_report(dirs, scores=scores, chosen=chosen, note=note, bundle_dir=bundle_dir, plot=plot, out=out)
    if as_json:
        return emit_json(result)
    console.print(
        rows_table(
            [
                {
                    k: r[k]
                    for k in ("run", "shape", "parameters", "minutes", "tokens_per_s", "val_loss", "best_val_loss")
                }
                for r in result["training"]
            ],
            "training",
        )
    )
    console.print(
        rows_table(
            [
                {"generator": k, **{f: v[f] for f in ("instances", "seconds", "recipes_per_s")}}
                for k, v in sorted(result["generators"].items())
            ],
            "generation",
        )
    )
    if result["device"]:
        console.print(f"device: {result['device'].get('name')}", markup=False)


@app.command("device")
def device(out: Path | None = typer.Option(None, "--out", "-o", help="Write the JSON here as well as printing it.")):
    """Describe the machine a stage ran on (GPU name and memory, torch/transformers versions), as JSON."""
    from dishgraph.models.gpu import device_info

    info = device_info()
    emit_json(info)
    if out:
        emit_json(info, out)


@app.command("pick")
def pick(runs: list[Path] = typer.Argument(..., help="`train lm` output directories to choose from.")):
    """Print the model directory with the lowest validation loss (its best/ weights when kept)."""
    from dishgraph.models.gpu import pick_run

    with exit_on(ValueError, code=2):
        typer.echo(pick_run(runs))
