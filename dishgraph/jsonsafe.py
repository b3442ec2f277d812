"""Results as valid JSON: NaN (metrics with nothing to average) becomes null, Decimal (Ladybug's sum())
becomes float."""

from __future__ import annotations

from decimal import Decimal
from typing import Any


def json_safe(obj: Any) -> Any:
    if isinstance(obj, float) and obj != obj:
        return None
    if isinstance(obj, Decimal):
        return float(obj)
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    return obj
