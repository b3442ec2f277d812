"""The controllability study (DiNeR): scores over compound divergence x training fraction p.

Predictions files are named by cell, ``<split>.p<p>.jsonl`` (what ``dishgraph diner recognize --grid``
writes, and what any other model's predictions can be saved as); each is scored with ``eval diner``'s
metric, and the grid is returned as rows (one per divergence) and drawn as a line plot of F1 against p,
one line per divergence.
"""

from __future__ import annotations

import re
from pathlib import Path

from dishgraph.diner.metrics import evaluate_file
from dishgraph.diner.names import DinerGlossary

CELL = re.compile(r"^(?P<split>.+)\.p(?P<p>[0-9.]+)\.jsonl$")


def cell_name(split: str, fraction: float) -> str:
    return f"{split}.p{fraction:g}.jsonl"


def score_grid(preds_dir: str | Path, manifest: dict, glossary: DinerGlossary) -> list[dict]:
    """One row per (split, p) found in ``preds_dir``: divergence reached, p, n, F1, EM."""
    divergence = {s["name"]: s["divergence"] for s in manifest["splits"]}
    rows = []
    for path in sorted(Path(preds_dir).glob("*.p*.jsonl")):
        m = CELL.match(path.name)
        if not m or m["split"] not in divergence:
            continue
        s = evaluate_file(path, glossary)
        rows.append(
            {
                "split": m["split"],
                "divergence": round(divergence[m["split"]], 4),
                "p": float(m["p"]),
                "n": s.n,
                "f1": s.micro.f1,
                "exact_match": s.exact_match,
            }
        )
    if not rows:
        raise ValueError(f"{preds_dir}: no predictions named <split>.p<p>.jsonl for the manifest's splits")
    rows.sort(key=lambda r: (-r["divergence"], r["p"]))
    return rows


def grid_table(rows: list[dict], metric: str = "f1") -> list[dict]:
    """Pivot: one row per split, one column per p (``metric`` x 100)."""
    ps = sorted({r["p"] for r in rows})
    out: dict[str, dict] = {}
    for r in rows:
        row = out.setdefault(r["split"], {"split": r["split"], "divergence": r["divergence"]})
        row[f"p={r['p']:g}"] = round(100 * r[metric], 2)
    for row in out.values():
        for p in ps:
            row.setdefault(f"p={p:g}", None)
    return list(out.values())


def plot_grid(rows: list[dict], path: str | Path, title: str = "DiNeR controllability") -> Path:
    """F1 and EM against p, one line per split (labelled with its divergence)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for split in dict.fromkeys(r["split"] for r in rows):
        mine = sorted((r for r in rows if r["split"] == split), key=lambda r: r["p"])
        label = f"{split} (D={mine[0]['divergence']:.2f})"
        for ax, metric in zip(axes, ("f1", "exact_match")):
            ax.plot([r["p"] for r in mine], [100 * r[metric] for r in mine], marker="o", label=label)
    for ax, name in zip(axes, ("component F1", "exact match")):
        ax.set_xlabel("training fraction p")
        ax.set_ylabel(f"{name} (%)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
