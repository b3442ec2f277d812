"""GPU runs without the graph, as library calls: export the bundle a GPU machine trains and generates from
(`bundle_from_store`), and gather what it brought back (`gpu_report`, `pick_run`, `device_info`).

The GPU machine has no network, no graph database and no segmenters, so the graph is exported here into a
bundle of plain files (see `dishgraph.models.bundle`), the GPU side trains and generates from those files
alone (benchmarks/gpu_table3.sh), and its outputs are scored here with `dishgraph eval crg`. `gpu_report`
turns the fetched training logs and generation summaries into benchmarks/results/generators_gpu.json and
the validation-loss PNG; it needs only matplotlib, so the GPU side runs it too for a first look.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from dishgraph.graph.base import GraphStore

GENERATOR_LABELS = {"gpt2-d": "GPT-2 (D)", "gpt2-dr": "GPT-2 (D+R)", "delorean": "DeLorean", "educat": "EduCat"}


def bundle_from_store(
    store: GraphStore,
    out: Path,
    *,
    crg_data: str | None = None,
    val_fraction: float = 0.02,
    seed: int = 0,
    origin: dict | None = None,
) -> dict:
    """Write the bundle of every recipe of the graph (targets held out) to ``out``; returns its manifest.
    A graph without recipes is a ValueError saying what to ingest."""
    from dishgraph.models.bundle import CorpusRecipe, source_of, write_bundle

    rows = store.query("lm_training_recipes")
    targets = [r["name"] for r in store.query("lm_heldout_targets")]
    if not rows:
        raise ValueError(
            "the graph has no recipes: run `dishgraph ingest counterfactual` (and `ingest corpus` "
            "for more recipes) first"
        )
    recipes = [CorpusRecipe(r["dish"], r.get("text") or "", source_of(r.get("id"))) for r in rows]
    return write_bundle(
        out, recipes, targets, crg_data=crg_data, val_fraction=val_fraction, seed=seed, origin=origin or {}
    )


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
    device = None
    train: dict[str, dict] = {}
    gens: dict[str, dict] = {}
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
                g = gens.setdefault(
                    c["generator"], {"instances": 0, "seconds": 0.0, "chunks": 0, "options": c.get("options", {})}
                )
                g["instances"] += int(c["instances"])
                g["seconds"] += float(c["seconds"])
                g["chunks"] += 1
    for g in gens.values():
        g["seconds"] = round(g["seconds"], 2)
        g["recipes_per_s"] = round(g["instances"] / g["seconds"], 3) if g["seconds"] else None
    return {"device": device, "train": train, "generators": gens}


def train_row(name: str, log: dict) -> dict:
    s, cfg = log["summary"], log.get("config", {})
    return {
        "run": name,
        "objective": cfg.get("objective", "causal"),
        "shape": f"{cfg.get('n_layer')}x{cfg.get('n_embd')}, {cfg.get('n_head')} heads",
        "parameters": s.get("parameters"),
        "steps": s.get("steps"),
        "epochs": s.get("epochs_done"),
        "minutes": round(s.get("seconds", 0) / 60, 2),
        "tokens": s.get("tokens"),
        "tokens_per_s": s.get("tokens_per_s"),
        "train_recipes": s.get("train_recipes"),
        "val_recipes": s.get("val_recipes"),
        "val_loss": s.get("val_loss"),
        "best_val_loss": s.get("best_val_loss"),
        "best_step": s.get("best_step"),
        "batch_size": cfg.get("batch_size"),
        "block": cfg.get("max_length"),
        "lr": cfg.get("lr"),
        "dtype": cfg.get("dtype"),
        "device": cfg.get("device"),
    }


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


def score_rows(scores: dict, labels: dict[str, str]) -> list[dict]:
    """`eval crg --json-out` rows with their file stems ("gpt2-d (n=…)") replaced by descriptive labels."""
    out = []
    for row in scores.get("rows", []):
        row = dict(row)
        stem, sep, rest = str(row.get("model", "")).partition(" (")
        if stem in labels:
            row["model"] = labels[stem] + (f" ({rest}" if sep else "")
        out.append(row)
    return out


def gpu_report(
    dirs: Sequence[Path],
    *,
    scores: Path | None = None,
    chosen: str | None = None,
    note: str | None = None,
    bundle_dir: Path | None = None,
    plot: Path | None = None,
    out: Path | None = None,
) -> dict:
    """Gather a GPU run (device, training runs, recipes/s per generator), relabel the CRG ``scores`` with the
    model that produced them (``chosen`` run, default: the causal run with the lowest validation loss), plot
    the validation loss to ``plot`` and write the result JSON to ``out``; returns the result."""
    got = gather(list(dirs))
    score_data = _load_json(scores) if scores else None
    manifest = _load_json(bundle_dir / "manifest.json") if bundle_dir else {}
    train_rows = [train_row(k, v) for k, v in sorted(got["train"].items())]
    causal = [r for r in train_rows if r["objective"] == "causal" and r["val_loss"] is not None]
    pick = chosen or (min(causal, key=lambda r: r["best_val_loss"] or r["val_loss"])["run"] if causal else None)
    base = next((r for r in train_rows if r["run"] == pick), None)
    labels = {}
    if base:
        corpora = " + ".join(sorted(manifest.get("train_by_source", {}))) or "bundle"
        where = "GPU" if (got["device"] or {}).get("cuda") else "CPU dry run"
        what = (
            f"{base['parameters'] / 1e6:.1f}M char GPT-2 ({base['shape']}), {base['train_recipes']} recipes "
            f"of {corpora} (targets held out), {base['minutes']:.1f} min"
        )
        labels = {k: f"{v}, {where}: {what}" for k, v in GENERATOR_LABELS.items()}
    result = {
        "note": note,
        "device": got["device"],
        "chosen_lm": pick,
        "bundle": {k: manifest.get(k) for k in ("train_recipes", "val_recipes", "train_by_source", "held_out", "bytes")}
        if manifest
        else None,
        "training": train_rows,
        "generators": got["generators"],
    }
    if score_data is not None:
        result["scores"] = score_rows(score_data, labels)
    if plot:
        plot_validation(got["train"], plot)
        result["loss_plot"] = str(plot)
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        from dishgraph.outputs import write_text

        write_text(out, json.dumps(result, ensure_ascii=False, indent=2, default=str) + "\n")
    return result


def pick_run(runs: Sequence[Path]) -> str:
    """The model directory with the lowest validation loss among `train lm` outputs (its best/ when kept)."""
    scored = []
    for run in runs:
        log = run / "train_log.json"
        try:
            s = _load_json(log)["summary"]
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"{log}: {e}") from None
        loss = s.get("best_val_loss") if s.get("best_val_loss") is not None else s.get("val_loss")
        if loss is not None:
            scored.append((loss, str(run / "best") if (run / "best").is_dir() else str(run)))
    if not scored:
        raise ValueError("no run has a validation loss")
    return min(scored)[1]


def device_info() -> dict:
    """The machine a stage ran on (GPU name and memory, torch/transformers versions)."""
    import os
    import platform

    import torch
    import transformers

    info = {
        "cuda": torch.cuda.is_available(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
    }
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        info.update(
            name=torch.cuda.get_device_name(0),
            memory_gib=round(props.total_memory / 2**30, 1),
            capability=f"{props.major}.{props.minor}",
            cuda_version=torch.version.cuda,
            bf16=torch.cuda.is_bf16_supported(),
        )
    else:
        info.update(name=f"CPU ({platform.machine()}, no GPU)")
    return info
