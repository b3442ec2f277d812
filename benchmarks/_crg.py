"""The CRG release as the composed-knowledge benchmarks read it: one place for the even / odd pair split."""

from __future__ import annotations

from pathlib import Path


def release_with_parity():
    """(release dir, glossary, the 2,500 instances, {(base, target): 0 for an even pair, 1 for an odd one});
    pairs are numbered in `dish_pairs.txt` order, the thresholds are tuned on the even ones."""
    from dishgraph.eval.outputs import crg_dir, load_instances
    from dishgraph.ingest.glossary import Glossary

    d = crg_dir()
    return d, Glossary.load(d / "glossary.json"), load_instances(), pair_parity(d)


def pair_parity(crg: Path) -> dict[tuple[str, ...], int]:
    """{(base, target): 0 for an even pair, 1 for an odd one}, in `dish_pairs.txt` order (dicts keep it)."""
    lines = (crg / "dish_pairs.txt").read_text(encoding="utf-8").splitlines()
    return {tuple(line.split()): i % 2 for i, line in enumerate(lines)}


def rows_by_parity(scorer, texts, instances, parity, label: str) -> dict:
    """Table-3 rows of ``texts`` (one per instance) on all, even and odd pairs, each scored by ``scorer``
    (a `CrgScorer`) and labelled ``"{label} [all|even|odd]"``."""
    from dishgraph.eval.crg import table_row

    out = {}
    for name, keep in (("all", lambda p: True), ("even", lambda p: p == 0), ("odd", lambda p: p == 1)):
        idx = [k for k, i in enumerate(instances) if keep(parity[(i.base, i.target)])]
        out[name] = table_row(scorer.score([texts[k] for k in idx], [instances[k] for k in idx]), f"{label} [{name}]")
    return out
