"""Which torch device a model runs on: one answer for every generator, trainer and scorer of the package.

Kept free of package imports so that every layer (models, diner, pcs) can ask it without importing upward.
"""

from __future__ import annotations


def resolve_device(device: str | None) -> str:
    """``None``, ``""`` or ``"auto"``: cuda when torch sees a GPU, else cpu; anything else as given.

    Asking for cuda on a machine without one is a ValueError here, a one-line error at the command line,
    rather than torch's failure deep inside the first ``.to(device)``."""
    import torch

    if device in (None, "", "auto"):
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} requested but CUDA is not available")
    return device
