"""PCS tables in the graph: ``(:Dish)-[:HAS_RECIPE]->(:Recipe)-[:HAS_STEP]->(:Step)``, and per step
``(:Step)-[:INPUT]->(:Comestible)`` / ``(:Step)-[:OUTPUT]->(:Comestible)``.

Comestible identity. A comestible is scoped to its recipe: ``id = "<recipe id>::<name>"``, so an output
that reappears verbatim as a later input is the same node and the comestible flow links up. A name can,
however, be *produced again*: motion steps keep input = output ("remove ham from grill": grilled ham
slices → grilled ham slices), and annotators reuse names ("cooking mixture" twice). Sharing one node there
would put a cycle (or a self-loop) into the flow, so every production of a name that already exists in the
recipe gets a new version, ``"<recipe id>::<name>::v2"`` (v3, …), with the same ``name`` property; an input
always refers to the latest version of its name. Every edge therefore runs from a node created earlier
to one created at this step, i.e. the flow is a DAG by construction, in step order.

Around the flow, for queries that walk it: ``(:Comestible)-[:FEEDS {pos, action}]->(:Comestible)`` from each
input of a step to its output (the flow without the step nodes, so a variable-length path is the history of
a food), ``(:Recipe)-[:HAS_INGREDIENT]->(:IngredientLine)`` for the Recipe1M ingredient lines, and
``(:Comestible)-[:FROM_INGREDIENT]->(:IngredientLine)`` from each *raw* comestible (consumed before any step
produced it) to the line that names it (`dishgraph.pcs.words.match_ingredient`; none when no word is shared).

Loading is idempotent: ids are stable (recipe id = ``pcs:<release id>``, ``pcs:<release id>~2`` for a
second annotator's table of the same recipe), every write is ``MERGE`` in ``UNWIND $rows`` batches, and
re-ingesting a recipe first drops its comestibles, ingredients and any steps beyond its new length, so an
edited table replaces the old one instead of leaving stale edges. It is resumable: a recipe's content digest
is written after everything else of its batch, and tables whose stored digest matches are skipped, so a
killed run picks up where it stopped and a repeated run writes nothing.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from dishgraph.errors import UnknownName, UsageError
from dishgraph.pcs.tables import PCSFormatError, PCSRow, PCSTable, read_pcs
from dishgraph.pcs.words import match_ingredient

SOURCE = "pcs"
RELEASE_SPLITS = ("train", "val", "test")  # `tables.split_of` reads valid/dev directories as val
NAME_SEP = "::"
ANNOTATOR_SEP = "~"


def recipe_id(table: PCSTable, source: str = SOURCE) -> str:
    """``pcs:<id>`` for the first annotator's table, ``pcs:<id>~2`` for a second annotator's."""
    base = f"{source}:{table.id}"
    return base if table.annotator <= 1 else f"{base}{ANNOTATOR_SEP}{table.annotator}"


def ingredient_id(recipe: str, pos: int) -> str:
    return f"{recipe}{NAME_SEP}ingredient{NAME_SEP}{pos}"


def digest(table: PCSTable) -> str:
    """What decides whether a stored recipe is up to date: everything the loader writes for it."""
    data = [table.to_release(), table.split, table.annotator, table.dish, Path(table.source).name, table.line]
    return hashlib.sha1(json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def step_id(recipe: str, pos: int) -> str:
    return f"{recipe}#{pos}"


def comestible_id(recipe: str, name: str, version: int = 1) -> str:
    base = f"{recipe}{NAME_SEP}{name}"
    return base if version <= 1 else f"{base}{NAME_SEP}v{version}"


@dataclass
class GraphRows:
    """Everything one batch of tables writes, as parameter rows for the named queries."""

    recipes: list[dict] = field(default_factory=list)
    steps: list[dict] = field(default_factory=list)
    comestibles: list[dict] = field(default_factory=list)
    inputs: list[dict] = field(default_factory=list)
    outputs: list[dict] = field(default_factory=list)
    next: list[dict] = field(default_factory=list)
    feeds: list[dict] = field(default_factory=list)
    ingredients: list[dict] = field(default_factory=list)
    from_ingredient: list[dict] = field(default_factory=list)
    digests: list[dict] = field(default_factory=list)


def comestible_flow(recipe: str, rows: list[PCSRow]) -> tuple[list[dict], list[dict], list[dict]]:
    """(comestibles, input edges, output edges) of one recipe with versioned ids (see module doc).
    A comestible row carries ``raw``: consumed before any step of the recipe produced it."""
    latest: dict[str, int] = {}  # name -> latest version
    nodes: dict[str, dict] = {}
    inputs, outputs = [], []

    def node(name: str, version: int, raw: bool) -> str:
        cid = comestible_id(recipe, name, version)
        nodes.setdefault(cid, {"id": cid, "name": name, "recipe": recipe, "raw": raw})
        return cid

    for pos, row in enumerate(rows):
        sid = step_id(recipe, pos)
        for name in row.inputs:
            raw = name not in latest
            version = latest.setdefault(name, 1)
            inputs.append({"step": sid, "comestible": node(name, version, raw)})
        if row.output:
            version = latest.get(row.output, 0) + 1
            latest[row.output] = version
            outputs.append({"step": sid, "comestible": node(row.output, version, False)})
    return list(nodes.values()), inputs, outputs


def feeds(rows: list[PCSRow], inputs: list[dict], outputs: list[dict]) -> list[dict]:
    """Comestible → comestible edges: every input of a step feeds that step's output."""
    out_of = {o["step"]: o["comestible"] for o in outputs}
    edges = []
    for e in inputs:
        target = out_of.get(e["step"])
        if target and target != e["comestible"]:
            pos = int(e["step"].rsplit("#", 1)[1])
            edges.append({"a": e["comestible"], "b": target, "pos": pos, "action": rows[pos].action})
    return edges


def graph_rows(tables: Iterable[PCSTable], source: str = SOURCE) -> GraphRows:
    g = GraphRows()
    for t in tables:
        rid = recipe_id(t, source)
        g.recipes.append(
            {
                "id": rid,
                "dish": t.dish,
                "text": t.text,
                "source": f"{source}:{Path(t.source).name}" if t.source else source,
                "line": t.line,
                "parsed": True,
                "n_actions": len(t.rows),
                "n_steps": len(t.rows),
                "split": t.split,
                "annotator": t.annotator,
                "original": "\n".join(t.original),
            }
        )
        g.digests.append({"id": rid, "digest": digest(t)})
        for k, text in enumerate(t.ingredients):
            g.ingredients.append({"id": ingredient_id(rid, k), "recipe": rid, "pos": k, "text": text})
        for pos, r in enumerate(t.rows):
            g.steps.append(
                {"id": step_id(rid, pos), "recipe": rid, "pos": pos, "instruction": r.instruction, "action": r.action}
            )
            if pos:
                g.next.append({"a": step_id(rid, pos - 1), "b": step_id(rid, pos)})
        nodes, ins, outs = comestible_flow(rid, t.rows)
        g.comestibles += [{k: v for k, v in n.items() if k != "raw"} for n in nodes]
        g.inputs += ins
        g.outputs += outs
        g.feeds += feeds(t.rows, ins, outs)
        for n in nodes:
            line = match_ingredient(n["name"], t.ingredients) if n["raw"] else None
            if line is not None:
                g.from_ingredient.append({"comestible": n["id"], "ingredient": ingredient_id(rid, line)})
    return g


@dataclass
class PCSIngestReport:
    files: str = ""
    tables: int = 0
    rows: int = 0
    comestibles: int = 0
    inputs: int = 0
    outputs: int = 0
    ingredients: int = 0
    unchanged: int = 0  # tables already stored with the same content (skipped: resume / re-run)
    splits: dict[str, int] = field(default_factory=dict)  # tables read per split ("" = none)
    errors: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0, or `dishgraph.errors.EXIT_SKIPPED` when a table or file was skipped (as a corpus ingest)."""
        from dishgraph.errors import EXIT_OK, EXIT_SKIPPED

        return EXIT_SKIPPED if self.errors else EXIT_OK

    def to_dict(self) -> dict:
        return asdict(self)


def write_tables(store, tables: list[PCSTable], source: str = SOURCE) -> GraphRows:
    """MERGE the tables into the store (replacing earlier versions of the same recipes)."""
    g = graph_rows(tables, source)
    store.write("pcs_clear_comestibles", [{"id": r["id"]} for r in g.recipes])
    store.write("pcs_clear_ingredients", [{"id": r["id"]} for r in g.recipes])
    store.write("pcs_clear_stale_steps", [{"id": r["id"], "n": r["n_steps"]} for r in g.recipes])
    store.write("pcs_merge_recipes", g.recipes)
    store.write("pcs_merge_steps", g.steps)
    store.write("pcs_link_next", g.next)
    store.write("pcs_merge_comestibles", g.comestibles)
    store.write("pcs_link_inputs", g.inputs)
    store.write("pcs_link_outputs", g.outputs)
    store.write("pcs_link_feeds", g.feeds)
    store.write("pcs_merge_ingredients", g.ingredients)
    store.write("pcs_link_from_ingredient", g.from_ingredient)
    store.write("pcs_set_digests", g.digests)  # last: a recipe counts as loaded only once all of it is
    return g


def ingest_pcs(
    store,
    path: str | Path,
    source: str = SOURCE,
    strict: bool = False,
    chunk_size: int = 200,
    progress: Callable[[int, int], None] | None = None,
) -> PCSIngestReport:
    """Load PCS tables from a file or directory. Bad tables are reported (file:line) and skipped, the good
    ones load; with ``strict`` the first bad table aborts before anything is written."""
    errors: list[PCSFormatError] | None = None if strict else []
    tables = read_pcs(path, errors)
    rep = PCSIngestReport(files=str(path), errors=[str(e) for e in errors or []])
    seen: dict[tuple[str, int], PCSTable] = {}
    for t in tables:  # the same (id, annotator) twice would merge two recipes: keep the first, report the rest
        if t.key in seen:
            first = seen[t.key]
            rep.errors.append(
                f"{t.source}:{t.line}: table id {t.id!r} (annotator {t.annotator}) already read from "
                f"{first.source}:{first.line}; skipped"
            )
        else:
            seen[t.key] = t
            rep.splits[t.split] = rep.splits.get(t.split, 0) + 1
    unique = _changed(store, list(seen.values()), source)
    rep.unchanged = len(seen) - len(unique)
    for start in range(0, len(unique), chunk_size):
        chunk = unique[start : start + chunk_size]
        g = write_tables(store, chunk, source)
        rep.tables += len(chunk)
        rep.rows += len(g.steps)
        rep.comestibles += len(g.comestibles)
        rep.inputs += len(g.inputs)
        rep.outputs += len(g.outputs)
        rep.ingredients += len(g.ingredients)
        if progress:
            progress(rep.tables, len(unique))
    return rep


def _changed(store, tables: list[PCSTable], source: str) -> list[PCSTable]:
    """The tables whose stored digest differs (or that are not stored yet)."""
    ids = [recipe_id(t, source) for t in tables]
    stored = {r["id"]: r["digest"] for r in store.query("pcs_recipe_digests", ids=ids)} if ids else {}
    return [t for t, rid in zip(tables, ids) if stored.get(rid) != digest(t)]


def recipes(store, split: str = "", limit: int = 0) -> list[dict]:
    """The PCS recipes in the graph (``id``, ``split``, ``annotator``, ``title``, ``steps``), of one release
    split ("" = all), sorted by split and id; ``limit`` 0 is all of them."""
    return store.query("pcs_recipes", split=split, limit=limit or 2**62)


def list_recipes(store, split: str = "", limit: int = 0) -> tuple[list[dict], int]:
    """(`recipes`, how many there are in all) for `dishgraph pcs ls`. A split that is not a release split is a
    usage error; a graph (or split) without PCS recipes is an error that says how to load them."""
    if split and split not in RELEASE_SPLITS:
        raise UsageError(f"unknown split {split!r}: the release splits are {', '.join(RELEASE_SPLITS)}")
    per_split: dict[str, int] = {}
    for r in store.query("pcs_splits"):  # one row per split and annotator
        per_split[r["split"] or "no split"] = per_split.get(r["split"] or "no split", 0) + r["recipes"]
    total = sum(n for s, n in per_split.items() if not split or s == split)
    if not total:
        have = ", ".join(f"{s} {n}" for s, n in per_split.items())
        raise UnknownName(
            f"the graph at {store.location()} has no PCS recipes{' in ' + split if split else ''}"
            f"{f' (it has {have})' if have else ''}; load them with `dishgraph ingest pcs DIR` (the release's "
            "pizzacommonsense directory)"
        )
    return recipes(store, split, limit), total


class UnknownRecipe(UnknownName, LookupError):
    """A recipe id the graph does not hold (a `LookupError` as well, as callers caught before)."""


def resolve_recipe(store, recipe: str) -> str:
    """The stored id of a recipe given by its id, or a PCS table id without its source prefix (``70f228d93a``
    for ``pcs:70f228d93a``). Anything else raises `UnknownName` with the closest PCS ids, or, on a graph
    without PCS recipes, the command that loads them: never an empty answer."""
    if store.query("pcs_recipe_text", id=recipe):
        return recipe
    found = [r["id"] for r in store.query("pcs_find_recipe", id=recipe, tail=":" + recipe)]
    if len(found) == 1:
        return found[0]
    if found:
        raise UnknownRecipe(f"recipe id {recipe!r} is ambiguous: {', '.join(found[:5])}; give it with its prefix")
    ids = [r["id"] for r in recipes(store)]
    if not ids:
        raise UnknownRecipe(
            f"no recipe {recipe!r} in the graph at {store.location()}, and no PCS recipes (load them with "
            "`dishgraph ingest pcs DIR`, e.g. the release's pizzacommonsense directory)"
        )
    tails = {i.partition(":")[2]: i for i in ids}
    near = [tails.get(n, n) for n in difflib.get_close_matches(recipe, [*ids, *tails], n=3, cutoff=0.6)]
    hint = f"; did you mean {' or '.join(dict.fromkeys(near))}?" if near else ""
    raise UnknownRecipe(f"no recipe {recipe!r} in the graph{hint} (`dishgraph pcs ls` lists the PCS recipes)")


def stored_table(store, recipe: str) -> PCSTable:
    """The PCS table of an ingested recipe, read back from the graph (input order within a cell is not kept)."""
    recipe = resolve_recipe(store, recipe)
    meta = store.query("pcs_recipe_text", id=recipe)
    rows = store.query("pcs_recipe_steps", recipe=recipe)
    return PCSTable(
        id=recipe,
        title=meta[0]["dish"] or "",
        rows=[
            PCSRow(
                instruction=r["instruction"] or "",
                action=r["action"] or "",
                inputs=sorted(n for n in r["inputs"] if n),
                output=r["output"],
            )
            for r in rows
        ],
    )


def flow_edges(store, recipe: str) -> list[dict]:
    """The comestible flow of a recipe: ``{source, source_name, pos, action, target, target_name}`` edges.
    The recipe may be named without its ``pcs:`` prefix; one without a flow (not a PCS table) is an error."""
    recipe = resolve_recipe(store, recipe)
    edges = store.query("pcs_comestible_flow", recipe=recipe)
    if not edges and not store.query(
        "pcs_find_recipe", id=recipe, tail=":" + recipe
    ):  # (a PCS table of NA rows has no flow)
        raise UnknownName(
            f"recipe {recipe!r} has no comestible flow (it is not an ingested PCS table); "
            f"`dishgraph pcs table {recipe}` derives a table from its text"
        )
    return edges
