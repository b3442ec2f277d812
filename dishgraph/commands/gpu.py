"""`dishgraph gpu`: prepare a GPU run on CPU (`bundle`) and gather what it brought back (`report`).

The GPU machine has no network, no graph database and no segmenters, so the graph is exported here into a
bundle of plain files (see `dishgraph.models.bundle`), the GPU side trains and generates from those files
alone (benchmarks/gpu_table3.sh), and its outputs are scored here with `dishgraph eval crg`. `report` turns
the fetched training logs and generation summaries into benchmarks/results/generators_gpu.json and the
validation-loss PNG; it needs only matplotlib, so the GPU side runs it too for a first look.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from dishgraph.commands._common import print_error, DbOpt, JsonOpt, UriOpt, console, emit_json, err_console, open_store, rows_table

app = typer.Typer(help="GPU runs without the graph: export a file bundle here, gather the results back.",
                  no_args_is_help=True)


def _fail(e: Exception) -> None:
    print_error(str(e))
    raise typer.Exit(2)


@app.command("bundle")
def bundle(out: Path = typer.Argument(..., help="Bundle directory to write (train/val corpus, instances, "
                                      "release files, manifest)."),
           data: Optional[str] = typer.Option(None, "--data", help="Data directory holding counterfactual/ "
                                              "(the release files copied into the bundle); default: auto."),
           val_fraction: float = typer.Option(0.02, "--val-fraction", help="Share of each source's recipes kept "
                                              "for validation (the same split for every model size)."),
           seed: int = typer.Option(0, "--seed", help="Seed of the validation split."),
           db: Optional[str] = DbOpt, uri: Optional[str] = UriOpt, as_json: bool = JsonOpt):
    """Export from the graph everything `train lm/mlm --source bundle` and `generate --data` need on a GPU
    machine: every recipe (target dishes held out, also dish names containing one), a validation split,
    the 2,500 instances with their prompts, and the glossary."""
    from dishgraph.models.bundle import CorpusRecipe, source_of, write_bundle

    store = open_store(db, uri, read_only=True)
    try:
        rows = store.query("lm_training_recipes")
        targets = [r["name"] for r in store.query("lm_heldout_targets")]
    finally:
        store.close()
    if not rows:
        _fail(ValueError("the graph has no recipes: run `dishgraph ingest counterfactual` (and `ingest corpus` "
                         "for more recipes) first"))
    recipes = [CorpusRecipe(r["dish"], r.get("text") or "", source_of(r.get("id"))) for r in rows]
    try:
        manifest = write_bundle(out, recipes, targets, crg_data=data, val_fraction=val_fraction, seed=seed,
                                origin={"db": db, "uri": uri})
    except (ValueError, FileNotFoundError, OSError) as e:
        _fail(e)
    if as_json:
        return emit_json(manifest)
    held = manifest["held_out"]
    summary = [{"key": "recipes read (distinct)", "value": manifest["recipes_read"] - manifest["duplicates_dropped"]},
               {"key": "held out: dish is a target", "value": held["dropped_exact"]},
               {"key": "held out: dish contains a target", "value": held["dropped_contains"]},
               {"key": "train recipes", "value": manifest["train_recipes"]},
               {"key": "validation recipes", "value": manifest["val_recipes"]},
               {"key": "training characters", "value": manifest["train_chars"]},
               {"key": "instances", "value": manifest["instances"]},
               {"key": "bundle bytes", "value": manifest["bytes"]}]
    table = rows_table(summary, f"GPU bundle {out}")
    console.print(table)
    for src, n in sorted(manifest["train_by_source"].items()):
        console.print(f"train recipes from {src}: {n}", markup=False)


# --------------------------------------------------------------------------------------------- report

def _load_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: cannot read JSON ({e})") from None


def gather(dirs: list[Path]) -> dict:
    """Device, training logs and generation summaries found in the fetched stage directories.

    A stage directory holds ``device.json``, ``lm-*.json`` / ``mlm.json`` (train_log.json of each run) and
    ``*-summaries.json`` (lists of `generate --json` outputs, one per chunk of instances).
    """
    device, train, gens = None, {}, {}
    for d in dirs:
        if not d.is_dir():
            raise ValueError(f"{d}: not a directory")
        if (d / "device.json").exists():
            device = device or _load_json(d / "device.json")
        for p in sorted(d.glob("lm-*.json")) + sorted(d.glob("mlm.json")):
            log = _load_json(p)
            if not isinstance(log, dict) or "summary" not in log:
                raise ValueError(f"{p}: not a train_log.json (no 'summary')")
            train[p.stem] = log
        for p in sorted(d.glob("*-summaries.json")):
            chunks = _load_json(p)
            if not isinstance(chunks, list):
                raise ValueError(f"{p}: expected a list of `generate --json` summaries")
            for c in chunks:
                g = gens.setdefault(c["generator"], {"instances": 0, "seconds": 0.0, "chunks": 0,
                                                     "options": c.get("options", {})})
                g["instances"] += int(c["instances"])
                g["seconds"] += float(c["seconds"])
                g["chunks"] += 1
    for g in gens.values():
        g["seconds"] = round(g["seconds"], 2)
        g["recipes_per_s"] = round(g["instances"] / g["seconds"], 3) if g["seconds"] else None
    return {"device": device, "train": train, "generators": gens}


def _train_row(name: str, log: dict) -> dict:
    s, cfg = log["summary"], log.get("config", {})
    return {"run": name, "objective": cfg.get("objective", "causal"),
            "shape": f"{cfg.get('n_layer')}x{cfg.get('n_embd')}, {cfg.get('n_head')} heads",
            "parameters": s.get("parameters"), "steps": s.get("steps"), "epochs": s.get("epochs_done"),
            "minutes": round(s.get("seconds", 0) / 60, 2), "tokens": s.get("tokens"),
            "tokens_per_s": s.get("tokens_per_s"), "train_recipes": s.get("train_recipes"),
            "val_recipes": s.get("val_recipes"), "val_loss": s.get("val_loss"),
            "best_val_loss": s.get("best_val_loss"), "best_step": s.get("best_step"),
            "batch_size": cfg.get("batch_size"), "block": cfg.get("max_length"), "lr": cfg.get("lr"),
            "dtype": cfg.get("dtype"), "device": cfg.get("device")}


def plot_validation(train: dict, path: Path) -> Path:
    """Validation loss of every causal run against training tokens (one line per model size; the masked LM's
    loss is over masked tokens only, so it is not drawn with them)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4))
    for name, log in sorted(train.items()):
        s, hist = log["summary"], log.get("val_history") or []
        if not hist or not s.get("steps") or log.get("config", {}).get("objective", "causal") != "causal":
            continue
        per_step = (s.get("tokens") or 0) / s["steps"]
        xs = [step * per_step / 1e6 for step, _ in hist]
        label = f"{name}: {s.get('parameters', 0) / 1e6:.1f}M params, {s.get('seconds', 0) / 60:.1f} min"
        ax.plot(xs, [v for _, v in hist], "o-", markersize=3, label=label)
    ax.set_xlabel("training tokens (millions)")
    ax.set_ylabel("validation cross-entropy (nats/char)")
    ax.set_title("recipe LM: validation loss")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _score_rows(scores: dict, labels: dict[str, str]) -> list[dict]:
    """`eval crg --json-out` rows with their file stems ("gpt2-d (n=…)") replaced by descriptive labels."""
    out = []
    for row in scores.get("rows", []):
        row = dict(row)
        stem, sep, rest = str(row.get("model", "")).partition(" (")
        if stem in labels:
            row["model"] = labels[stem] + (f" ({rest}" if sep else "")
        out.append(row)
    return out


@app.command("report")
def report(dirs: list[Path] = typer.Argument(..., help="Stage directories fetched from the GPU machine."),
           out: Optional[Path] = typer.Option(None, "--out", help="Write the gathered results JSON here "
                                              "(benchmarks/results/generators_gpu.json)."),
           plot: Optional[Path] = typer.Option(None, "--plot", help="Write the validation-loss PNG here."),
           scores: Optional[Path] = typer.Option(None, "--scores", help="`eval crg --json-out` file to merge, "
                                                 "its rows relabelled with model size, corpus and minutes."),
           chosen: Optional[str] = typer.Option(None, "--chosen", help="Training run the generators used "
                                                "(default: the causal run with the lowest validation loss)."),
           note: Optional[str] = typer.Option(None, "--note", help="Free text stored with the results "
                                              "(e.g. 'TINY CPU dry run: not GPU figures')."),
           bundle_dir: Optional[Path] = typer.Option(None, "--bundle", help="The bundle the run trained on (its "
                                                     "manifest names the corpora in the row labels)."),
           as_json: bool = JsonOpt):
    """Gather a GPU run (device, training tokens/s, recipes/s per generator), plot the validation loss,
    and relabel the CRG scores with the model that produced them."""
    try:
        got = gather(dirs)
        score_data = _load_json(scores) if scores else None
        manifest = _load_json(bundle_dir / "manifest.json") if bundle_dir else {}
    except (ValueError, KeyError, TypeError) as e:
        _fail(e)
    train_rows = [_train_row(k, v) for k, v in sorted(got["train"].items())]
    causal = [r for r in train_rows if r["objective"] == "causal" and r["val_loss"] is not None]
    pick = chosen or (min(causal, key=lambda r: r["best_val_loss"] or r["val_loss"])["run"] if causal else None)
    base = next((r for r in train_rows if r["run"] == pick), None)
    labels = {}
    if base:
        corpora = " + ".join(sorted(manifest.get("train_by_source", {}))) or "bundle"
        where = "GPU" if (got["device"] or {}).get("cuda") else "CPU dry run"
        what = (f"{base['parameters'] / 1e6:.1f}M char GPT-2 ({base['shape']}), {base['train_recipes']} recipes "
                f"of {corpora} (targets held out), {base['minutes']:.1f} min")
        names = {"gpt2-d": "GPT-2 (D)", "gpt2-dr": "GPT-2 (D+R)", "delorean": "DeLorean", "educat": "EduCat"}
        labels = {k: f"{v}, {where}: {what}" for k, v in names.items()}
    result = {"note": note, "device": got["device"], "chosen_lm": pick,
              "bundle": {k: manifest.get(k) for k in ("train_recipes", "val_recipes", "train_by_source",
                                                      "held_out", "bytes")} if manifest else None,
              "training": train_rows,
              "generators": got["generators"]}
    if score_data is not None:
        result["scores"] = _score_rows(score_data, labels)
    if plot:
        try:
            plot_validation(got["train"], plot)
        except OSError as e:
            _fail(e)
        result["loss_plot"] = str(plot)
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        emit_json(result, out)
    if as_json:
        return emit_json(result)
    console.print(rows_table([{k: r[k] for k in ("run", "shape", "parameters", "minutes", "tokens_per_s",
                                                 "val_loss", "best_val_loss")} for r in train_rows], "training"))
    console.print(rows_table([{"generator": k, **{f: v[f] for f in ("instances", "seconds", "recipes_per_s")}}
                              for k, v in sorted(got["generators"].items())], "generation"))
    if got["device"]:
        console.print(f"device: {got['device'].get('name')}", markup=False)


@app.command("device")
def device(out: Optional[Path] = typer.Option(None, "--out", help="Write the JSON here as well as printing it.")):
    """Describe the machine a stage ran on (GPU name and memory, torch/transformers versions), as JSON."""
    import platform

    import torch
    import transformers

    info = {"cuda": torch.cuda.is_available(), "torch": torch.__version__,
            "transformers": transformers.__version__, "python": platform.python_version(),
            "cpu_count": __import__("os").cpu_count()}
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        info.update(name=torch.cuda.get_device_name(0), memory_gib=round(props.total_memory / 2**30, 1),
                    capability=f"{props.major}.{props.minor}", cuda_version=torch.version.cuda,
                    bf16=torch.cuda.is_bf16_supported())
    else:
        info.update(name=f"CPU ({platform.machine()}, no GPU)")
    emit_json(info)
    if out:
        emit_json(info, out)


@app.command("pick")
def pick(runs: list[Path] = typer.Argument(..., help="`train lm` output directories to choose from.")):
    """Print the model directory with the lowest validation loss (its best/ weights when kept)."""
    scored = []
    for run in runs:
        log = run / "train_log.json"
        try:
            s = _load_json(log)["summary"]
        except (ValueError, KeyError, TypeError) as e:
            _fail(ValueError(f"{log}: {e}"))
        loss = s.get("best_val_loss") if s.get("best_val_loss") is not None else s.get("val_loss")
        if loss is not None:
            scored.append((loss, str(run / "best") if (run / "best").is_dir() else str(run)))
    if not scored:
        _fail(ValueError("no run has a validation loss"))
    typer.echo(min(scored)[1])
