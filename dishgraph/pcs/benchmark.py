"""The README's PCS table in one call: floors and the tracker on the test split (chained and oracle), the same
on a random split of the same sizes, people (annotator 2 vs 1 and back), beside the paper's rows.

Train on train, report test; the tracker's and its output namer's knobs were set on val beforehand (`Tracker`
and `Namer` defaults, docs/pcs.md §3), so this reads test once per row and tunes nothing. Saved with
``--json-out benchmarks/results/pcs.json``, the result renders as docs/pcs.md's table (`markdown_table`) and
its ``headline`` is the README's row, so both can be checked against the run. The random split keeps the two
annotations of a recipe together (they share an id) so that no recipe is in train and test at once.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from pathlib import Path

from dishgraph.eval.pcs_paper import gold_rows, people_agreement, score
from dishgraph.pcs.predict import learn, predict
from dishgraph.pcs.tables import PCSTable, read_pcs

COLUMNS = ("input_ema", "input_rouge_l", "output_bleu", "output_rouge_l", "output_meteor", "output_ema")
# The paper's figures (data README; Diallo et al.): system -> columns (None: not reported).
PAPER = {
    "paper: fine-tuned T5-base, random split": (16.2, 58.5, 24.67, 54.5, 45.8, None),
    "paper: fine-tuned Flan-T5-base, random split": (16.7, 53.5, 21.3, 54.6, 45.9, None),
    "paper: GPT-3.5 + fine-tuning": (32.6, 55.9, None, 53.6, None, None),
    "paper: GPT-4 + chain of thought": (26.7, 51.4, None, 52.3, None, None),
    "paper: people (25 tables)": (48.6, 85.5, None, 58.2, None, None),
}
RUNS = (
    ("prev-output", "chained"),
    ("mentions", "chained"),
    ("tracker", "chained"),
    ("prev-output", "oracle"),
    ("tracker", "oracle"),
)


def random_split(tables: Sequence[PCSTable], sizes: dict[str, int], seed: int = 0) -> dict[str, list[PCSTable]]:
    """Tables shuffled into parts of the given sizes (in tables), a recipe's annotations together: each
    recipe, in shuffled order, goes to the first part after the first one that it fits in; the first part
    (train) takes the rest, so the other parts have exactly their sizes whenever single tables remain."""
    groups: dict[str, list[PCSTable]] = {}
    for t in tables:
        groups.setdefault(t.id, []).append(t)
    ids = sorted(groups)
    random.Random(seed).shuffle(ids)
    names = list(sizes)
    out: dict[str, list[PCSTable]] = {name: [] for name in names}
    for i in ids:
        part = next((n for n in names[1:] if len(out[n]) + len(groups[i]) <= sizes[n]), names[0])
        out[part] += groups[i]
    return out


def _row(system: str, split: str, setting: str, scores: dict) -> dict:
    return {"system": system, "split": split, "setting": setting, **{c: scores.get(c) for c in COLUMNS}}


def split_rows(split_name: str, parts: dict[str, list[PCSTable]]) -> list[dict]:
    """The floors' and the tracker's rows of one split (learned on its train part, scored on its test part)."""
    gold = gold_rows(parts["test"])
    learned = learn(parts["train"])
    rows = []
    for model, setting in RUNS:
        pred = predict(parts["test"], model, setting, parts["train"], learned if model == "tracker" else None)
        rows.append(_row(model, split_name, setting, score(pred, gold)))
    return rows


def benchmark(data: str | Path, seed: int = 0, workers: int = 2) -> dict:
    """Every row of the README table (see module doc). The two splits are independent and run in ``workers``
    processes (the 2 cores the benchmark is timed on; 1: one after another, the same figures)."""
    started = time.perf_counter()
    tables = read_pcs(data)
    released = {s: [t for t in tables if t.split == s] for s in ("train", "val", "test")}
    if not released["train"] or not released["test"]:
        raise ValueError(f"{data}: expected train/ and test/ split directories")
    splits = {
        "released": released,
        "random": random_split(tables, {s: len(v) for s, v in released.items()}, seed),
    }
    rows = []
    if workers > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
        with ProcessPoolExecutor(max_workers=min(workers, len(splits)), mp_context=context) as pool:
            for found in pool.map(split_rows, splits, splits.values()):
                rows += found
    else:
        for split_name, parts in splits.items():
            rows += split_rows(split_name, parts)
    people = people_agreement(tables)
    for direction, label in (("a2_vs_a1", "people: annotator 2 vs 1"), ("a1_vs_a2", "people: annotator 1 vs 2")):
        rows.append(_row(f"{label} ({len(people['recipes'])} recipes)", "all", "-", people[direction]))
    for system, values in PAPER.items():
        rows.append({"system": system, "split": "paper", "setting": "-", **dict(zip(COLUMNS, values))})
    return {
        "rows": rows,
        "test_rows": len(gold_rows(released["test"])),
        "seed": seed,
        "headline": markdown_row(
            next(r for r in rows if r["system"] == "tracker" and r["split"] == "released" and r["setting"] == "chained")
        ),
        "seconds": round(time.perf_counter() - started, 1),
    }


HEADER = (
    "| system | split | setting | input EMA | input ROUGE-L | output BLEU | output ROUGE-L | output METEOR "
    "| output exact |\n|---|---|---|---:|---:|---:|---:|---:|---:|"
)


def markdown_row(row: dict) -> str:
    """One row of the README/docs table, figures to one decimal (blank where the paper gives none)."""
    cells = [row["system"], row["split"], row["setting"], *("" if row[c] is None else f"{row[c]:.1f}" for c in COLUMNS)]
    return "| " + " | ".join(cells) + " |"


def markdown_table(result: dict) -> str:
    """The whole table as docs/pcs.md and the README print it, from `benchmark`'s result (or the results
    file `benchmarks/results/pcs.json` it was saved to), so that the prose can be checked against the run."""
    return "\n".join([HEADER, *(markdown_row(r) for r in result["rows"])])
