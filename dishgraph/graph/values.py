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


def _scalar_types() -> tuple[type, ...]:
    import datetime
    import numbers
    import uuid

    # numbers.Integral / Real take numpy's scalars too (a loader may pass them); dates, durations, decimals and
    # UUIDs are Cypher values in both engines
    return (
        type(None),
        bool,
        str,
        numbers.Integral,
        numbers.Real,
        datetime.date,
        datetime.timedelta,
        Decimal,
        uuid.UUID,
    )


def check_statement(cypher: Any, params: Any) -> None:
    """What `GraphStore.execute` takes, checked before the engine sees it: the statement a str, the parameters a
    dict of str names to Cypher values (None, bool, a 64-bit int, a float, valid Unicode text, dates, durations,
    decimals, UUIDs, and lists and maps of them). A set, tuple or complex used to surface as the engine's "Unknown
    parameter type", ``None`` as a TypeError from inside; now a `UsageError` names the parameter."""
    from dishgraph.errors import UsageError

    if not isinstance(cypher, str):
        raise UsageError(f"execute(): the statement must be a str, got {type(cypher).__name__}")
    if params is None:
        return
    if not isinstance(params, dict):
        raise UsageError(f"execute(): parameters must be a dict of name -> value, got {type(params).__name__}")
    for name, value in params.items():
        if not isinstance(name, str):
            raise UsageError(f"execute(): parameter names are str, got {type(name).__name__} {name!r:.40}")
        problem = _value_problem(value, 0)
        if problem:
            raise UsageError(f"execute(): parameter ${name}: {problem}")


def _value_problem(v: Any, depth: int) -> str | None:
    if depth > 32:
        return "nested more than 32 deep"
    if isinstance(v, str):
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            return "text with a lone surrogate (not valid Unicode)"
        return None
    if isinstance(v, int) and not isinstance(v, bool) and not -(2**63) <= v < 2**63:
        return f"{v} does not fit 64 bits"
    if isinstance(v, _scalar_types()):
        return None
    if isinstance(v, list):
        return next((p for x in v if (p := _value_problem(x, depth + 1))), None)
    if isinstance(v, dict):
        if not all(isinstance(k, str) for k in v):
            return "a map with keys that are not str"
        return next((p for x in v.values() if (p := _value_problem(x, depth + 1))), None)
    return f"a {type(v).__name__} is no Cypher value (give a list, a map or a scalar)"
