"""The CRG release's pivot actions and order constraints, from the original pickle or the JSON files.

Both are oracle knowledge of the target dishes (source ``crg-release``): read for comparison, never a result.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dishgraph.actions import ProtoAction
from dishgraph.ingest.readers.lines import clean_name
from dishgraph.ingest.readers.report import ReadContext, ReadError, ReadReport

PIVOT_KINDS = {0: "remove", 1: "insert"}
Pivots = dict[str, list[tuple[ProtoAction, str]]]
Constraints = dict[str, list[dict]]


def _proto_from_tuple(obj) -> ProtoAction:
    """The pickle shape ``(verb, (ingredients, tools))`` (list or tuple) → ProtoAction."""
    verb, (ingr, tools) = obj
    if not isinstance(verb, str) or not all(isinstance(x, str) for x in (*ingr, *tools)):
        raise TypeError("verb, ingredients and tools must be strings")
    return ProtoAction(verb, frozenset(ingr), frozenset(tools))


def _proto_from_json(obj) -> ProtoAction:
    if not isinstance(obj, dict) or not isinstance(obj.get("verb"), str):
        raise TypeError("expected {verb, ingredients, tools}")
    p = ProtoAction.from_release(obj)
    if not all(isinstance(x, str) for x in (*p.ingredients, *p.tools)):
        raise TypeError("ingredients and tools must be strings")
    return p


def _load_json(path: Path):
    try:
        with open(path, encoding="utf-8-sig") as fh:
            return json.load(fh)
    except json.JSONDecodeError as e:
        raise ReadError(str(path), e.lineno, "json", f"not valid JSON ({e.msg}, column {e.colno})") from None
    except UnicodeDecodeError as e:
        raise ReadError(str(path), None, "encoding", f"not UTF-8 (byte offset {e.start})") from None


def _per_dish(
    data, ctx: ReadContext, shape: str, reason: str, what: str, parse_item: Callable[[Any], Any]
) -> dict[str, list]:
    """``{target dish: [item]}`` with each item parsed by ``parse_item``; a malformed item is one skip
    (``reason``, naming ``[dish][index]``), the rest of the dish's items are kept."""
    if not isinstance(data, dict):
        raise ReadError(ctx.file, None, "shape", shape)
    out: dict[str, list] = {}
    for dish, items in data.items():
        kept = out.setdefault(clean_name(dish, ctx, f"[{dish!r}]"), [])
        for i, it in enumerate(items if isinstance(items, list) else [items]):
            try:
                parsed = parse_item(it)
            except (TypeError, ValueError, KeyError) as e:
                ctx.skip(f"[{dish!r}][{i}]", reason, f"{what} {str(it)[:80]} ({type(e).__name__}: {e})")
                continue
            kept.append(parsed)
            ctx.ok()
    return out


def _pivot_from_pickle(it) -> tuple[ProtoAction, str]:
    proto_obj, kind_code = it
    return _proto_from_tuple(proto_obj), PIVOT_KINDS[kind_code]


def _pivot_from_json(it) -> tuple[ProtoAction, str]:
    proto, kind = _proto_from_json(it), it["kind"]
    if kind not in PIVOT_KINDS.values():
        raise KeyError(kind)
    return proto, kind


def _constraint_from_pickle(it) -> dict:
    action_obj, pair_objs = it
    return {
        "action": _proto_from_tuple(action_obj),
        "pairs": [(_proto_from_tuple(c), _proto_from_tuple(e)) for c, e in pair_objs],
    }


def _constraint_from_json(it) -> dict:
    return {
        "action": _proto_from_json(it["action"]),
        "pairs": [(_proto_from_json(c), _proto_from_json(e)) for c, e in it["pairs"]],
    }


def _parse_pivots(data, ctx: ReadContext, from_pickle: bool) -> Pivots:
    return _per_dish(
        data,
        ctx,
        "pivots must map target dish -> list of pivot actions",
        "pivot",
        "malformed pivot action",
        _pivot_from_pickle if from_pickle else _pivot_from_json,
    )


def _parse_constraints(data, ctx: ReadContext, from_pickle: bool) -> Constraints:
    return _per_dish(
        data,
        ctx,
        "constraints must map target dish -> list of actions",
        "constraint",
        "malformed order constraint",
        _constraint_from_pickle if from_pickle else _constraint_from_json,
    )


def read_pivots(
    path: str | Path, *, report: ReadReport | None = None, strict: bool = False
) -> tuple[Pivots, Constraints]:
    """Pivots ``{target: [(ProtoAction, "remove"|"insert")]}`` and constraints ``{target: [{"action":
    ProtoAction, "pairs": [(cause, effect)]}]}`` from the original ``pivot_actions.pkl`` (a list
    ``[pivots, constraints]``; kind 0 = remove, 1 = insert), or from ``pivot_actions.json`` together with
    the ``order_constraints.json`` beside it."""
    path = Path(path)
    if path.suffix == ".pkl":
        from dishgraph.ingest.safe_pickle import safe_load

        data = safe_load(path)
        if not (isinstance(data, (list, tuple)) and len(data) == 2):
            raise ReadError(str(path), None, "shape", "expected a list of two dicts [pivots, constraints]")
        ctx = ReadContext(path, report, strict)
        return _parse_pivots(data[0], ctx, True), _parse_constraints(data[1], ctx, True)
    ctx = ReadContext(path, report, strict)
    pivots = _parse_pivots(_load_json(path), ctx, False)
    cpath = path.with_name("order_constraints.json")
    constraints: Constraints = {}
    if cpath.exists():
        constraints = _parse_constraints(_load_json(cpath), ReadContext(cpath, ctx.report, strict), False)
    return pivots, constraints
