"""Typed records into the graph, idempotent and resumable whichever write path runs.

Readers and the parser never touch the database; this module is the only place that turns their records
into rows. Two write paths, same resulting graph:

* ``merge``: batched ``UNWIND $rows`` MERGE on stable keys (``dishgraph/cypher/load_*.cypher``).
* ``create``: the incremental path's fast form. Ask which keys exist (the same delta check as ``copy``),
  ``UNWIND $rows`` CREATE the absent ones (``load_*_create``; 2.4x MERGE's rate on Ladybug) and MERGE what
  a killed run left half-written. What ``auto`` runs on Neo4j and for small batches.
* ``copy`` (embedded Ladybug, batches of at least ``BULK_MIN_ROWS``): a *delta COPY*. Ask which keys of
  the batch exist (primary-key lookups), COPY only the absent ones (each COPY is one atomic transaction),
  and send rows left half-written by a killed run (node there, an edge missing) through the MERGE path.
  The edge that marks an item complete is copied last, so a re-run always sees what is missing. The COPYs
  of one batch share one checkpoint (``GraphStore.bulk_session``): a crash keeps all of them or none.

``mode="auto"`` picks ``copy`` where it applies, else ``create``; the others force one (benchmarks, tests).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dishgraph.actions import KEY_SEP, SET_SEP, Action, ProtoAction
from dishgraph.graph import schema
from dishgraph.graph.arrow_copy import arrow_type
from dishgraph.graph.base import GraphStore
from dishgraph.graph.values import batched
from dishgraph.ingest.culinary import CulinaryTally, culinary_by_classes
from dishgraph.ingest.glossary import KINDS, Glossary
from dishgraph.ingest.roles import object_roles, role_of

BULK_MIN_ROWS = 200  # below this a COPY's fixed cost (frame, transaction, checkpoint) beats per-row writes
LOOKUP_BATCH = 5000  # ids per delta-check query
MODES = ("auto", "merge", "create", "copy")


def recipe_id(source: str, dish: str, text: str) -> str:
    """Stable id: source tag + content hash, so re-ingesting the same corpus never duplicates a recipe."""
    h = hashlib.sha1(f"{dish}\x00{text}".encode()).hexdigest()[:16]
    return f"{source}:{h}"


def pair_key(base: str, target: str) -> str:
    return f"{base}->{target}"


@dataclass
class RecipeRecord:
    id: str
    dish: str
    text: str
    source: str
    line: int = 0


@dataclass
class ParsedRecipe:
    id: str
    actions: list[Action] = field(default_factory=list)


def use_copy(store: GraphStore, n_rows: int, mode: str = "auto") -> bool:
    """Whether a batch of n_rows goes through the bulk COPY path.

    Small batches too while COPYs wait for their checkpoint: a logged write would force it early, and
    a checkpoint costs far more than a small COPY (it grows with the database).
    """
    if mode not in MODES:
        raise ValueError(f"load mode must be one of {MODES}, not {mode!r}")
    if mode in ("merge", "create") or store.backend != "ladybug":
        return False
    return mode == "copy" or n_rows >= BULK_MIN_ROWS or store.bulk_pending


def _lookup(store: GraphStore, query: str, param: str, keys: Sequence[str]) -> list[dict]:
    rows: list[dict] = []
    for part in batched(keys, LOOKUP_BATCH):
        rows.extend(store.query(query, **{param: part}))
    return rows


def _unique(rows: Iterable, key) -> list:
    """First row per key: a COPY batch must not repeat a primary key (a corpus may repeat a recipe)."""
    seen: dict = {}
    for r in rows:
        seen.setdefault(key(r), r)
    return list(seen.values())


def existing_recipe_lines(store: GraphStore, ids: Sequence[str]) -> dict[str, int | None]:
    """id -> the line it was first loaded from, for the ids that are in the graph (primary-key lookups)."""
    return {r["id"]: r["line"] for r in _lookup(store, "load_existing_recipes", "ids", list(dict.fromkeys(ids)))}


def load_glossary(store: GraphStore, glossary: Glossary) -> None:
    """Surface forms and their FORM_OF class edges; only the (form, class) links not there yet are written
    (the same graph as MERGEing every row, which re-ran on every ingest).

    Logged MERGEs even into a fresh database: a COPY of the ~10k forms saves ~1.2 s once, but its checkpoint
    is a fresh database's first, larger than the free-space check reserves (it broke the small-disk test)."""
    linked = {(r["key"], r["cls"]) for r in store.query("load_existing_glossary_links")}
    for kind in KINDS:
        rows = [
            {"key": f"{kind}:{f}", "form": f, "kind": kind, "cls": c}
            for f, c in glossary.table(kind).items()
            if (f"{kind}:{f}", c) not in linked
        ]
        store.write("load_glossary_forms", rows)
        store.write(f"load_glossary_{kind}_classes", rows)


def load_dishes(store: GraphStore, names: Iterable[str], source: str, mode: str = "auto") -> int:
    """Dishes by name; a dish already there keeps its source. Returns how many distinct names were given."""
    rows = [{"name": n, "source": source} for n in dict.fromkeys(names)]
    if mode == "merge" or not use_copy(store, len(rows), mode):
        return store.write("load_dishes", rows)
    found = {r["name"] for r in _lookup(store, "load_existing_dishes", "names", [r["name"] for r in rows])}
    store.bulk_load_nodes("Dish", [r for r in rows if r["name"] not in found])
    return len(rows)


def load_recipes(store: GraphStore, recipes: Iterable[RecipeRecord], batch_size: int = 2000, mode: str = "auto") -> int:
    """Recipes and their HAS_RECIPE edge (dishes must exist); a recipe already there keeps its properties."""
    n = 0
    for batch in batched(recipes, batch_size):
        with store.bulk_session():
            n += _load_recipe_batch(store, batch, batch_size, mode)
    return n


def _load_recipe_batch(store: GraphStore, batch: list[RecipeRecord], batch_size: int, mode: str) -> int:
    rows = [
        {"id": r.id, "dish": r.dish, "text": r.text, "source": r.source, "line": r.line}
        for r in _unique(batch, lambda r: r.id)
    ]
    if mode == "merge":
        store.write("load_recipes", rows, batch_size=batch_size)
        return len(batch)  # records given (a corpus may repeat a recipe: one node, same id)
    found = {r["id"]: r["linked"] for r in _lookup(store, "load_existing_recipes", "ids", [r["id"] for r in rows])}
    new = [{**r, "parsed": False, "n_actions": 0} for r in rows if r["id"] not in found]
    if use_copy(store, len(new), mode):
        copy_recipes(store, new)
    else:
        store.write("load_recipes_create", new, batch_size=batch_size)
    store.write("load_recipes", [r for r in rows if r["id"] in found and not found[r["id"]]])  # half-written
    return len(batch)


def _proto_rows(protos: Sequence[ProtoAction]) -> tuple[list[dict], list[dict], list[dict]]:
    nodes = [
        {"key": p.key, "verb": p.verb, "ingredients": sorted(p.ingredients), "tools": sorted(p.tools)} for p in protos
    ]
    ingr = [{"key": p.key, "name": c} for p in protos for c in sorted(p.ingredients)]
    tools = [{"key": p.key, "name": c} for p in protos for c in sorted(p.tools)]
    return nodes, ingr, tools


def _merge_protos(store: GraphStore, protos: Sequence[ProtoAction]) -> None:
    nodes, ingr, tools = _proto_rows(protos)
    store.write("load_proto_actions", nodes)
    store.write("load_proto_ingredients", ingr)
    store.write("load_proto_tools", tools)


def load_proto_actions(store: GraphStore, protos: Iterable[ProtoAction], mode: str = "auto") -> int:
    """Proto-actions with their VERB, INGREDIENT and TOOL edges; returns how many distinct ones were given."""
    return load_proto_keys(store, [p.key for p in protos], mode=mode)


def load_proto_keys(store: GraphStore, keys: Any, mode: str = "auto", culinary: dict[str, bool] | None = None) -> int:
    """Proto-actions given by their keys (a key spells out its proto-action, ``ProtoAction.key``), with their
    VERB, INGREDIENT and TOOL edges; returns how many distinct keys were given.

    Keys, not objects: the loader's proto-actions are the distinct ``action`` keys of its step table, so parse
    workers send none, and the rows are split from the keys by Arrow (``proto_table``), not built per row in
    the one process that loads. ``culinary`` (key -> flag) gives new proto-actions a flag as they are
    written (see ``write_parsed``), so that ``mark_culinary`` finds little to change."""
    import pyarrow as pa
    import pyarrow.compute as pc

    keys = pc.unique(_string_array(keys))
    if not len(keys):
        return 0
    if mode == "merge":
        _merge_protos(store, [ProtoAction.from_key(k) for k in keys.to_pylist()])
        return len(keys)
    key_list = keys.to_pylist()
    found = {r["key"]: r["verbs"] for r in _lookup(store, "load_existing_proto_actions", "keys", key_list)}
    _merge_protos(store, [ProtoAction.from_key(k) for k in key_list if k in found and not found[k]])  # half-written
    if found:
        keys = keys.filter(pc.invert(pc.is_in(keys, value_set=pa.array(list(found), pa.string()))))
    if not len(keys):
        return len(key_list)
    table = proto_table(keys, culinary)
    _ensure_classes(
        store,
        {
            "verb": set(pc.unique(table["verb"]).to_pylist()),
            "ingredient": set(pc.unique(pc.list_flatten(table["ingredients"])).to_pylist()),
            "tool": set(pc.unique(pc.list_flatten(table["tools"])).to_pylist()),
        },
    )
    # VERB last: its presence is what marks a proto-action complete for the delta check.
    if use_copy(store, table.num_rows, mode):
        copy_proto_actions(store, table)
    else:
        new = [ProtoAction.from_key(k) for k in table["key"].to_pylist()]
        nodes, ingr, tools = _proto_rows(new)
        verbs = [{"key": p.key, "name": p.verb} for p in new]
        store.write("load_proto_actions_create", [{**n, "culinary": (culinary or {}).get(n["key"])} for n in nodes])
        store.write("load_proto_ingredients_create", ingr)
        store.write("load_proto_tools_create", tools)
        store.write("load_proto_verbs_create", verbs)
    return len(key_list)


def _string_array(values: Any) -> Any:
    """``values`` as one Arrow string array (a list, an array or a chunked column)."""
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    return values if isinstance(values, pa.Array) else pa.array(list(values), pa.string())


def proto_table(keys: Any, culinary: dict[str, bool] | None = None) -> Any:
    """ProtoAction rows (``key``, ``verb``, ``ingredients``, ``tools`` and, given flags, ``culinary``) of
    distinct keys, split from the keys by Arrow: ``verb|a+b|t`` gives verb, [a, b], [t]."""
    import pyarrow as pa
    import pyarrow.compute as pc

    keys = _string_array(keys)
    parts = pc.split_pattern(keys, KEY_SEP)
    cols = {
        "key": keys,
        "verb": pc.list_element(parts, 0),
        "ingredients": _class_lists(pc.list_element(parts, 1)),
        "tools": _class_lists(pc.list_element(parts, 2)),
    }
    if culinary is not None:
        cols["culinary"] = pa.array([culinary.get(k) for k in keys.to_pylist()], pa.bool_())
    return pa.table(cols)


def _class_lists(joined: Any) -> Any:
    """``a+b`` -> [a, b] and ``""`` -> [] (a key's class sets, joined by ``SET_SEP`` in sorted order)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    split = pc.split_pattern(joined, SET_SEP)
    flat, parents = pc.list_flatten(split), pc.list_parent_indices(split)
    keep = pc.not_equal(flat, "")
    counts = np.bincount(parents.filter(keep).to_numpy(), minlength=len(joined))
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), flat.filter(keep))


def _ensure_classes(store: GraphStore, named: dict[str, set[str]]) -> None:
    """COPY and CREATE need both endpoints: MERGE the classes named that are missing (usually none, so a
    bulk session is not forced into an early checkpoint by a logged write)."""
    there: dict[str, set[str]] = {kind: set() for kind in named}
    for row in store.query("load_existing_class_names"):
        there.setdefault(row["kind"], set()).add(row["name"])
    for kind, names in named.items():
        store.write(f"load_{kind}_class_names", [{"name": n} for n in sorted(names - there[kind])])


def _step_recipe(step_id: str) -> str:
    """The recipe id inside a step id (``step_tables`` writes ``{recipe}#{pos}``)."""
    return step_id.rsplit("#", 1)[0]


STEP_COLUMNS = (
    "id", "recipe", "pos", "phrase", "verb", "start", "end", "inherited", "clause", "action", "ingredient_forms",
    "tool_forms", "sentence", "culinary", "foods", "heat", "duration", "shape", "typed_action", "typed_classes",
)  # fmt: skip


def step_tables(parsed: Sequence[ParsedRecipe]) -> tuple[Any, Any]:
    """Step rows and NEXT rows (``src``, ``dst``, ``recipe``) of recipes as Arrow tables; only actions with a
    proto-action become steps, ``{recipe}#{pos}`` in position order.

    Columns, not dicts: built where the recipes were parsed, they pickle as a few buffers and go into the COPY
    file without a Python loop in the loading process (``graph.arrow_copy``)."""
    import pyarrow as pa

    cols: dict[str, list] = {c: [] for c in STEP_COLUMNS}
    src: list[str] = []
    for pr in parsed:
        pos = 0
        for a in pr.actions:
            if a.proto is None:
                continue
            sid = f"{pr.id}#{pos}"
            if pos:
                src.append(f"{pr.id}#{pos - 1}")
            for name, value in zip(
                STEP_COLUMNS,
                (sid, pr.id, pos, a.phrase, a.verb, a.start, a.end, bool(a.inherited), a.clause, a.proto.key,
                 a.ingredients, a.tools, a.step, a.culinary, a.foods, a.heat, a.duration, a.shape, a.typed_key,
                 a.typed_class_key),
            ):  # fmt: skip
                cols[name].append(value)
            pos += 1
    types = schema.NODE_BY_LABEL["Step"].props
    steps = pa.table({c: pa.array(v, arrow_type(types[c])) for c, v in cols.items()})
    firsts = pa.array([p != 0 for p in cols["pos"]], pa.bool_())
    nexts = pa.table(
        {
            "src": pa.array(src, pa.string()),
            "dst": steps["id"].filter(firsts),
            "recipe": steps["recipe"].filter(firsts),
        }
    )
    return steps, nexts


def _rows(table: Any) -> list[dict]:
    return table.to_pylist()


def of_recipes(table: Any, recipes: Iterable[str]) -> Any:  # a pyarrow boolean array
    """Which rows of a step or NEXT table belong to ``recipes`` (by the table's ``recipe`` column)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.is_in(table["recipe"], value_set=pa.array(sorted(recipes), pa.string()))


def load_steps(store: GraphStore, steps: Any, nexts: Any, batch_size: int = 5000, mode: str = "auto") -> int:
    """Steps with HAS_STEP, INSTANCE_OF and NEXT edges (recipes and proto-actions must exist); ``steps`` and
    ``nexts`` are the tables of ``step_tables``.

    Except in ``merge`` mode, a delta check comes first: recipes with some step already there (the batch a
    killed run was writing, or a recipe repeated in the corpus and loaded by an earlier batch) are MERGEd,
    which completes whatever is missing and duplicates nothing; the others are COPYed (bulk) or CREATEd. The
    check asks for each recipe's first step only: every write path writes a recipe's steps in position
    order (one COPY, or MERGE/CREATE batches in row order), so a recipe with any step has its ``#0``.
    """
    import pyarrow.compute as pc

    total = steps.num_rows
    if not total:
        return 0
    if mode == "merge":
        _merge_steps(store, _rows(steps), _rows(nexts), batch_size)
        return total
    bulk = use_copy(store, total, mode)
    firsts = steps["id"].filter(pc.equal(steps["pos"], 0)).to_pylist()
    started = sorted({_step_recipe(r["id"]) for r in _lookup(store, "load_existing_steps", "ids", firsts)})
    if started:
        in_steps, in_nexts = of_recipes(steps, started), of_recipes(nexts, started)
        _merge_steps(store, _rows(steps.filter(in_steps)), _rows(nexts.filter(in_nexts)), batch_size)
        steps, nexts = steps.filter(pc.invert(in_steps)), nexts.filter(pc.invert(in_nexts))
    if steps.num_rows and bulk:
        copy_steps(store, steps, nexts)
    elif steps.num_rows:
        store.write("load_steps_create", _rows(steps), batch_size=batch_size)
        store.write("load_next_create", _rows(nexts), batch_size=batch_size)
    return total


# --- COPY of rows known to be absent (after the delta check, or into a fresh database) ---------------
def copy_recipes(store: GraphStore, rows: list[dict]) -> None:
    """Recipe nodes, then their HAS_RECIPE edges (the dishes must exist)."""
    store.bulk_load_nodes("Recipe", rows)
    store.bulk_load_rels("HAS_RECIPE", "Dish", "Recipe", [{"from": r["dish"], "to": r["id"]} for r in rows])


def copy_proto_actions(store: GraphStore, protos: Any) -> None:
    """Proto-actions (a ``proto_table``, or ProtoAction objects) and their class edges (the classes must
    exist); VERB last: it marks one complete."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = protos if hasattr(protos, "num_rows") else proto_table([p.key for p in dict.fromkeys(protos)])
    store.bulk_load_nodes("ProtoAction", table)
    for rel, col, dst in (("INGREDIENT", "ingredients", "IngredientClass"), ("TOOL", "tools", "ToolClass")):
        lists = table[col].combine_chunks()
        edges = pa.table({"from": pc.take(table["key"], pc.list_parent_indices(lists)), "to": pc.list_flatten(lists)})
        store.bulk_load_rels(rel, "ProtoAction", dst, edges)
    store.bulk_load_rels("VERB", "ProtoAction", "VerbClass", pa.table({"from": table["key"], "to": table["verb"]}))


def copy_steps(store: GraphStore, steps: Any, nexts: Any) -> None:
    """Steps with HAS_STEP and INSTANCE_OF edges, then NEXT (recipes and proto-actions must exist); the
    tables of ``step_tables``, whose columns the edge tables reuse without a copy."""
    import pyarrow as pa

    store.bulk_load_nodes("Step", steps)
    store.bulk_load_rels("HAS_STEP", "Recipe", "Step", pa.table({"from": steps["recipe"], "to": steps["id"]}))
    store.bulk_load_rels("INSTANCE_OF", "Step", "ProtoAction", pa.table({"from": steps["id"], "to": steps["action"]}))
    store.bulk_load_rels("NEXT", "Step", "Step", pa.table({"from": nexts["src"], "to": nexts["dst"]}))


def _merge_steps(store: GraphStore, steps: list[dict], nexts: list[dict], batch_size: int) -> None:
    store.write("load_steps", steps, batch_size=batch_size)
    store.write("load_next", nexts, batch_size=batch_size)


@dataclass
class ParsedRows:
    """Parsed recipes as the rows the loader writes, built where they were parsed.

    Parse workers send these back instead of ``Action`` objects. Steps and their order edges are Arrow
    tables (``step_tables``): they pickle as a few buffers and are written to the COPY file by Arrow, so the
    one process that loads does no per-row Python work for them (measured on the XiaChuFang sample: the
    dict rows cost 4.8 s of unpickling and 4.2 s of CSV formatting in that process).
    """

    steps: Any = None  # pyarrow.Table of STEP_COLUMNS
    nexts: Any = None  # pyarrow.Table: src, dst, recipe
    marks: list[dict] = field(default_factory=list)  # {"id", "n"}: n actions became steps
    truncated: list[tuple[str, int]] = field(default_factory=list)  # (id, actions parsed) cut to a cap

    def __post_init__(self) -> None:
        if self.steps is None:
            self.steps, self.nexts = step_tables([])

    @classmethod
    def of(cls, parsed: Sequence[ParsedRecipe]) -> ParsedRows:
        parsed = _unique(parsed, lambda p: p.id)
        steps, nexts = step_tables(parsed)
        marks = [{"id": pr.id, "n": sum(a.proto is not None for a in pr.actions)} for pr in parsed]
        return cls(steps, nexts, marks)

    @classmethod
    def concat(cls, parts: Iterable[ParsedRows]) -> ParsedRows:
        """One batch of several; a recipe given twice keeps its first rows (a COPY must not repeat a key)."""
        import pyarrow as pa

        out, seen = cls(), set()
        steps, nexts = [out.steps], [out.nexts]
        for part in parts:
            kept = part.without(seen.intersection(part.ids))
            seen.update(part.ids)
            steps.append(kept.steps)
            nexts.append(kept.nexts)
            out.marks.extend(kept.marks)
            out.truncated.extend(kept.truncated)
        out.steps, out.nexts = pa.concat_tables(steps), pa.concat_tables(nexts)
        return out

    def without(self, recipes: set[str]) -> ParsedRows:
        """These rows less every row of ``recipes`` (itself when there is none to drop)."""
        if not recipes:
            return self
        import pyarrow.compute as pc

        return ParsedRows(
            steps=self.steps.filter(pc.invert(of_recipes(self.steps, recipes))),
            nexts=self.nexts.filter(pc.invert(of_recipes(self.nexts, recipes))),
            marks=[m for m in self.marks if m["id"] not in recipes],
            truncated=[t for t in self.truncated if t[0] not in recipes],
        )

    @property
    def protos(self) -> dict[str, ProtoAction]:
        """key -> proto-action of the steps, once each (their ``action`` column: a key spells out its
        proto-action, so none travel from the workers)."""
        return {k: ProtoAction.from_key(k) for k in self.action_keys()}

    def action_keys(self) -> list[str]:
        """The distinct proto-action keys of the steps."""
        import pyarrow.compute as pc

        return pc.unique(self.steps["action"]).to_pylist()

    @property
    def ids(self) -> list[str]:
        return [m["id"] for m in self.marks]

    @property
    def with_actions(self) -> int:
        return sum(1 for m in self.marks if m["n"])


def load_parsed(
    store: GraphStore, parsed: Sequence[ParsedRecipe] | ParsedRows, batch_size: int = 5000, mode: str = "auto"
) -> int:
    """Steps, order edges and proto-actions of parsed recipes; marks each recipe parsed last (checkpoint)."""
    rows = parsed if isinstance(parsed, ParsedRows) else ParsedRows.of(parsed)
    with store.bulk_session():  # embedded: the COPYs below become durable together, before the marks
        n = write_parsed(store, rows, batch_size=batch_size, mode=mode)
        store.make_durable()
        mark_parsed(store, rows.marks)
    return n


def write_parsed(
    store: GraphStore,
    rows: ParsedRows,
    batch_size: int = 5000,
    mode: str = "auto",
    culinary: dict[str, bool] | None = None,
) -> int:
    """Steps, order edges and proto-actions of parsed recipes, not yet marked parsed (``mark_parsed``
    after ``store.make_durable()``: a recipe marked parsed must never lose its steps to a crash).
    ``culinary`` (key -> flag, from a ``CulinaryTally``) flags new proto-actions as they are written;
    ``mark_culinary`` settles the flags over the whole graph."""
    with store.bulk_session():
        load_proto_keys(store, rows.steps["action"], mode=mode, culinary=culinary)
        load_steps(store, rows.steps, rows.nexts, batch_size=batch_size, mode=mode)
    return rows.steps.num_rows


def mark_parsed(store: GraphStore, rows: Iterable[dict]) -> int:
    """The checkpoint of resumable parsing: recipes marked here are skipped by the next run."""
    return store.write("mark_parsed", rows)


def mark_culinary(store: GraphStore, glossary: Glossary) -> int:
    """Set ``ProtoAction.culinary``, what the commands show by default: true when, for most of its steps, the
    typed reading is a cooking step whose foods include every ingredient class of the key (the key names no
    object that is no food there). 切|丝| (切丝 after 洋葱洗净: the typed reading cuts the onion, 丝 is a shape),
    捞出|颜色| and 用||刀 are not; 捞出||锅 is (its key names no food, but nothing wrong). A proto-action with no
    step read (the release's reference pivots, a dependency parser's steps) is judged by its classes: a culinary
    verb class and food classes only (``food_classes``), unless a cooking step is read as it (a typed key with a
    node of its own, ``frequencies.materialize_typed_uses``). Returns how many flags changed."""
    read = store.query_columns("proto_typed_agreement")
    agreement = zip(*(read.get(c, []) for c in ("key", "typed", "typed_key", "culinary", "n")))
    keys = store.query_columns("proto_all_keys")
    flags = dict(zip(keys.get("key", []), keys.get("culinary", [])))
    verdicts = CulinaryTally().count(agreement).verdicts(flags, food_classes(glossary))
    rows = [{"key": k, "culinary": v} for k, v in verdicts.items() if flags[k] is not v]
    return store.write("proto_set_culinary", rows) if rows else 0


def judge_unjudged(store: GraphStore, keys: Iterable[str], foods: set[str]) -> int:
    """Flag the proto-actions among ``keys`` that have no culinary flag (composition creates class-swapped
    ones no recipe has done: 准备|油菜| becomes 准备|洋葱|) by their classes (``culinary_by_classes``)."""
    new = store.query("proto_unjudged", keys=sorted(keys))
    rows = [{"key": r["key"], "culinary": culinary_by_classes(r["key"], foods)} for r in new]
    return store.write("proto_set_culinary", rows) if rows else 0


def food_classes(glossary: Glossary) -> set[str]:
    """Ingredient classes most of whose surface forms are foods (水 is, though it holds 火; 个人, 颜色 are not)."""
    table = object_roles()
    share: dict[str, list[int]] = {}
    for form, cls in glossary.ingredient.items():
        n = share.setdefault(cls, [0, 0])
        n[0] += role_of(form, "ingredient", table) == "food"
        n[1] += 1
    return {c for c, (f, n) in share.items() if 2 * f > n}
