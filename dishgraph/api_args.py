"""Argument checks at the Python API's edge: a wrong type or an unknown name is a `UsageError` naming the
method and the argument, never a raw ``TypeError`` from deep inside or a silently empty answer.

Why: ``g.actions(None)`` reached a query and then tried to write on a read-only open ("DELETE refused"),
``g.actions(123)`` failed in the engine's binder, ``g.pivots(..., source="bogus")`` returned ``[]`` as if the
pair had no pivots of that source, and ``g.check_order(dish, 600_000 characters)`` parsed for 30 s. The
checks read each public method's own annotations (an allow-list of the simple types the API takes), so a
new method is covered as soon as it is annotated.
"""

from __future__ import annotations

import functools
import inspect
import math
import os
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from dishgraph.errors import UsageError

INT_LIMIT = 2**63  # the engines take 64-bit integers: a larger one failed in pybind's casts


def _encodable(v: str) -> bool:
    """Text the engines can take: a lone surrogate (``"\\ud800"``) cannot be UTF-8 and failed in the binding."""
    try:
        v.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _is_str(v: Any) -> bool:
    return isinstance(v, str) and _encodable(v)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and -INT_LIMIT < v < INT_LIMIT


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and abs(v) < INT_LIMIT


def _is_path(v: Any) -> bool:
    return isinstance(v, os.PathLike) or (isinstance(v, str) and _encodable(v))


# Parameters that count things: never negative (``top=-1`` reached the engine's LIMIT and broke later calls).
COUNTS = frozenset({"top", "limit", "n", "k", "workers", "batch", "min_recipes", "min_annotators"})


def _value_problem(v: Any) -> str | None:
    """What a value of the right type lacks (None: its type is what is wrong)."""
    if isinstance(v, str) and not _encodable(v):
        return "valid Unicode text (a lone surrogate cannot be stored)"
    if isinstance(v, int) and not isinstance(v, bool) and not -INT_LIMIT < v < INT_LIMIT:
        return "an int of at most 64 bits"
    if isinstance(v, float) and not math.isfinite(v):
        return "a finite number"
    return None


def _seq_of(item: Callable[[Any], bool]) -> Callable[[Any], bool]:
    """A collection of items (a list, tuple, set, dict keys, ...), never a str (a str is a sequence of
    characters: ``frequencies("白灼菜心")`` would ask for four one-character dishes) nor a mapping."""
    return lambda v: isinstance(v, Collection) and not isinstance(v, (str, bytes, Mapping)) and all(item(x) for x in v)


# Annotation text -> (check, what it means in a message). Anything else is not checked here.
CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "str": (_is_str, "a str"),
    "int": (_is_int, "an int"),
    "float": (_is_number, "a number"),
    "bool": (lambda v: isinstance(v, bool), "True or False"),
    "str | Path": (_is_path, "a str or a path"),
    "Sequence[str]": (_seq_of(_is_str), "a list of str"),
    "Sequence[str | Path]": (_seq_of(_is_path), "a list of paths"),
}


def _check(annotation: str) -> tuple[Callable[[Any], bool], str, bool] | None:
    """(check, meaning, None allowed) for an annotation string, or None when it is not an allow-listed type."""
    text = annotation.replace(" ", "")
    optional = text.endswith("|None")
    base = text[: -len("|None")] if optional else text
    for key, (fn, what) in CHECKS.items():
        if key.replace(" ", "") == base:
            return fn, what, optional
    return None


def checked(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` with its arguments checked against its annotations before it runs."""
    sig = inspect.signature(method)
    checks = {
        name: c
        for name, p in sig.parameters.items()
        if isinstance(p.annotation, str) and (c := _check(p.annotation)) is not None
    }
    if not checks:
        return method

    @functools.wraps(method)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise UsageError(f"{method.__qualname__}(): {e}") from None
        for name, value in bound.arguments.items():
            if name not in checks:
                continue
            fn, what, optional = checks[name]
            if (value is None and optional) or (fn(value) and not (name in COUNTS and value < 0)):
                continue
            what = _value_problem(value) or ("not negative" if name in COUNTS and fn(value) else what)
            shown = repr(value)
            shown = shown if len(shown) <= 60 else shown[:59] + "…"
            raise UsageError(
                f"{method.__qualname__}(): {name} must be {what}{' or None' if optional else ''}, "
                f"got {type(value).__name__} {shown}"
            )
        return method(*args, **kwargs)

    return run


def check_all(cls: type) -> type:
    """Every public method of ``cls`` behind `checked` (a class decorator)."""
    for name, value in list(vars(cls).items()):
        if not name.startswith("_") and inspect.isfunction(value):
            setattr(cls, name, checked(value))
    return cls


def one_of(value: str | None, allowed: Iterable[str], what: str) -> None:
    """An optional name that must be one of ``allowed``: else a `UsageError` listing them (a filter on an
    unknown name answered ``[]``, which reads as "none of that kind")."""
    allowed = sorted(allowed)
    if value is not None and value not in allowed:
        raise UsageError(f"unknown {what} {value!r}; one of: {', '.join(allowed)}")
