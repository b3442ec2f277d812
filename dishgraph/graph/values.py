"""Values across the engine boundary: engine results to plain Python, Python values to query parameters.

Both backends and every loader use these, so they live apart from the store interface (``graph.base``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import Any, TypeVar

R = TypeVar("R")


def plain(value: Any) -> Any:
    """Engine values to plain Python (Ladybug returns Decimal for integer sums)."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def param(value: Any) -> Any:
    """Python values to parameter values both engines accept (sets become sorted lists)."""
    if isinstance(value, (set, frozenset)):
        return sorted(param(v) for v in value)
    if isinstance(value, (list, tuple)):
        return [param(v) for v in value]
    if isinstance(value, dict):
        return {k: param(v) for k, v in value.items()}
    return value


def batched(rows: Iterable[R], size: int) -> Iterator[list[R]]:
    """Rows in lists of ``size`` (the last one shorter): one ``UNWIND $rows`` transaction each."""
    batch: list[R] = []
    for r in rows:
        batch.append(r)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
