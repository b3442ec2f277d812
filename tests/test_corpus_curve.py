"""benchmarks/_corpus_curve.py, the fair editor against corpus size: the sample's subsets are nested, so a
larger fraction only adds recipes, and they are the same for the same seed (the curve is reproducible)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from _corpus_curve import subsample_lines, summarize  # noqa: E402


def test_subsets_of_the_sample_are_nested_seeded_and_of_their_size(data_dir):
    sample = data_dir / "xiachufang" / "recipes.jsonl"
    every = sample.read_text(encoding="utf-8").splitlines(keepends=True)
    assert subsample_lines(sample, 0.0, 1) == []
    assert subsample_lines(sample, 1.0, 1) == every
    quarter, half = subsample_lines(sample, 0.25, 1), subsample_lines(sample, 0.5, 1)
    assert set(quarter) <= set(half) and quarter == [line for line in half if line in set(quarter)]
    assert abs(len(quarter) / len(every) - 0.25) < 0.02 and abs(len(half) / len(every) - 0.5) < 0.02
    assert subsample_lines(sample, 0.5, 1) == half  # the same draw every time
    assert subsample_lines(sample, 0.5, 2) != half  # another seed, another draw


def _point(fraction: float, recipes: int, f1: float) -> dict:
    return {
        "fraction": fraction,
        "sample_recipes": recipes,
        "table3": {s: {"hard_f1": f1} for s in ("all", "even", "odd")},
    }


def test_the_summary_averages_seeds_and_fits_a_slope_per_doubling_of_the_sample():
    points = [_point(0.0, 0, 5.0), _point(0.25, 1000, 10.0), _point(0.25, 1000, 12.0), _point(0.5, 2000, 12.0)]
    points.append(_point(1.0, 4000, 14.0))
    out = summarize(points)
    assert out["by_fraction"]["0.25"]["odd"] == {"mean": 11.0, "min": 10.0, "max": 12.0}
    assert out["by_fraction"]["0.25"]["seeds"] == 2 and out["by_fraction"]["0.0"]["sample_recipes"] == 0
    # least squares over (1k, 10), (1k, 12), (2k, 12), (4k, 14) in log2 recipes: 4 / 2.75; release-only left out
    assert out["per_doubling"]["odd"] == 1.45
