"""Named sizes for a from-scratch recipe LM (`train lm --preset NAME`, `train mlm --preset NAME`).

Why presets: the GPU run compares a GPT-2 in the CRG paper's size class (uer/gpt2-chinese-cluecorpussmall
has 102M parameters, 12 layers × 768) with a smaller one in the same minutes, and the CPU dry run needs a
tiny one; naming them keeps the script, the docs and the results table in agreement. Parameter counts
depend on the character vocabulary built from the corpus, so `approx_parameters` is only an estimate; the
training log records the exact number.
"""

from __future__ import annotations

PRESETS: dict[str, dict[str, int]] = {
    # the paper's size class: GPT-2 small's shape (~85M in the blocks + vocabulary × 768)
    "base": {"n_layer": 12, "n_embd": 768, "n_head": 12, "n_positions": 1024},
    # a smaller model for the same time budget (~19M in the blocks)
    "mini": {"n_layer": 6, "n_embd": 512, "n_head": 8, "n_positions": 1024},
    # the CPU model of docs/generators.md section 4
    "small-cpu": {"n_layer": 3, "n_embd": 192, "n_head": 4, "n_positions": 512},
    # dry runs and tests
    "tiny": {"n_layer": 2, "n_embd": 64, "n_head": 2, "n_positions": 512},
}
DEFAULT_SIZES = {"n_layer": 2, "n_embd": 128, "n_head": 2, "n_positions": 1024}


def resolve_sizes(preset: str | None, **explicit: int | None) -> dict[str, int]:
    """The preset's sizes (or the defaults) with every explicitly given size on top."""
    if preset is not None and preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; known: {', '.join(PRESETS)}")
    sizes = dict(PRESETS[preset] if preset else DEFAULT_SIZES)
    sizes.update({k: v for k, v in explicit.items() if v is not None})
    if sizes["n_embd"] % sizes["n_head"]:
        raise ValueError(f"n_embd {sizes['n_embd']} is not a multiple of n_head {sizes['n_head']}")
    return sizes


def approx_parameters(n_layer: int, n_embd: int, vocab: int, n_positions: int, **_) -> int:
    """GPT-2 parameter count: 12·L·d² in the blocks (plus biases and norms) and the tied embeddings."""
    block = 12 * n_embd * n_embd + 13 * n_embd
    return n_layer * block + (vocab + n_positions) * n_embd + 2 * n_embd
