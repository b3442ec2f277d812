"""The typed reading as the commands show it: which proto-actions are hidden by default, and how a surface form
is shown beside its glossary class.

What a user reads (pivots, order constraints, the explorer, ``stats``, composed knowledge) is, by default, the
culinary actions on foods: proto-actions whose ``culinary`` flag is false (set at load, ``loader.mark_culinary``)
are left out unless ``--all-actions`` is given. Keys are unchanged (the CRG conventions): only what is shown
changes. See ``docs/typed-reading.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from dishgraph.graph.base import GraphStore


def hidden_actions(store: GraphStore) -> set[str]:
    """Keys of the proto-actions the typed reading judged not a cooking step on foods (null: not judged, shown)."""
    return {r["key"] for r in store.query("proto_all_keys") if r["culinary"] is False}


def shown(rows: Iterable[Mapping], hidden: set[str], *fields: str) -> list:
    """The rows none of whose ``fields`` (proto-action keys) is hidden."""
    return [r for r in rows if not any(r.get(f) in hidden for f in fields)]


def form_with_class(form: str, cls: str | None) -> str:
    """``秋葵 (class 洋葱)`` where a surface form's glossary class differs from it, else the form."""
    return f"{form} (class {cls})" if cls and cls != form else form
