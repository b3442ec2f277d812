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

Loading is idempotent: ids are stable (recipe id = ``pcs:<release id>``), every write is ``MERGE`` in
``UNWIND $rows`` batches, and re-ingesting a recipe first drops its comestibles and any steps beyond its
new length, so an edited table replaces the old one instead of leaving stale edges.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from dishgraph.pcs.tables import PCSFormatError, PCSRow, PCSTable, read_pcs

SOURCE = "pcs"
NAME_SEP = "::"


def recipe_id(table: PCSTable, source: str = SOURCE) -> str:
    return f"{source}:{table.id}"


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


def comestible_flow(recipe: str, rows: list[PCSRow]) -> tuple[list[dict], list[dict], list[dict]]:
    """(comestibles, input edges, output edges) of one recipe with versioned ids (see module doc)."""
    latest: dict[str, int] = {}  # name -> latest version
    nodes: dict[str, dict] = {}
    inputs, outputs = [], []

    def node(name: str, version: int) -> str:
        cid = comestible_id(recipe, name, version)
        nodes.setdefault(cid, {"id": cid, "name": name, "recipe": recipe})
        return cid

    for pos, row in enumerate(rows):
        sid = step_id(recipe, pos)
        for name in row.inputs:
            version = latest.setdefault(name, 1)
            inputs.append({"step": sid, "comestible": node(name, version)})
        if row.output:
            version = latest.get(row.output, 0) + 1
            latest[row.output] = version
            outputs.append({"step": sid, "comestible": node(row.output, version)})
    return list(nodes.values()), inputs, outputs


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
            }
        )
        for pos, r in enumerate(t.rows):
            g.steps.append(
                {"id": step_id(rid, pos), "recipe": rid, "pos": pos, "instruction": r.instruction, "action": r.action}
            )
            if pos:
                g.next.append({"a": step_id(rid, pos - 1), "b": step_id(rid, pos)})
        nodes, ins, outs = comestible_flow(rid, t.rows)
        g.comestibles += nodes
        g.inputs += ins
        g.outputs += outs
    return g


@dataclass
class PCSIngestReport:
    files: str = ""
    tables: int = 0
    rows: int = 0
    comestibles: int = 0
    inputs: int = 0
    outputs: int = 0
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def write_tables(store, tables: list[PCSTable], source: str = SOURCE) -> GraphRows:
    """MERGE the tables into the store (replacing earlier versions of the same recipes)."""
    g = graph_rows(tables, source)
    store.write("pcs_clear_comestibles", [{"id": r["id"]} for r in g.recipes])
    store.write("pcs_clear_stale_steps", [{"id": r["id"], "n": r["n_steps"]} for r in g.recipes])
    store.write("pcs_merge_recipes", g.recipes)
    store.write("pcs_merge_steps", g.steps)
    store.write("pcs_link_next", g.next)
    store.write("pcs_merge_comestibles", g.comestibles)
    store.write("pcs_link_inputs", g.inputs)
    store.write("pcs_link_outputs", g.outputs)
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
    seen: dict[str, PCSTable] = {}
    for t in tables:  # the same id twice would silently merge two recipes: keep the first, report the rest
        if t.id in seen:
            rep.errors.append(
                f"{t.source}:{t.line}: table id {t.id!r} already read from "
                f"{seen[t.id].source}:{seen[t.id].line}; skipped"
            )
        else:
            seen[t.id] = t
    unique = list(seen.values())
    for start in range(0, len(unique), chunk_size):
        chunk = unique[start : start + chunk_size]
        g = write_tables(store, chunk, source)
        rep.tables += len(chunk)
        rep.rows += len(g.steps)
        rep.comestibles += len(g.comestibles)
        rep.inputs += len(g.inputs)
        rep.outputs += len(g.outputs)
        if progress:
            progress(rep.tables, len(unique))
    return rep


def stored_table(store, recipe: str) -> PCSTable:
    """The PCS table of an ingested recipe, read back from the graph (input order within a cell is not kept)."""
    meta = store.query("pcs_recipe_text", id=recipe)
    if not meta:
        raise LookupError(f"no recipe with id {recipe!r} in the graph")
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
    """The comestible flow of a recipe: ``{source, source_name, pos, action, target, target_name}`` edges."""
    return store.query("pcs_comestible_flow", recipe=recipe)
