"""`dishgraph pcs …`: PCS tables of recipes (`ingest pcs` and `train pcs` live in their groups)."""

from __future__ import annotations

from pathlib import Path

import typer

from dishgraph.cli_errors import DishgraphGroup, exit_on
from dishgraph.commands._common import console, emit_json, open_store, rows_table
from dishgraph.commands._options import DbOpt, GlossaryOpt, JsonOpt, JsonOutOpt, SegmenterOpt, UriOpt
from dishgraph.commands.ingest import capped_workers

app = typer.Typer(
    help="PizzaCommonSense view: per step the comestibles going in and coming out.",
    no_args_is_help=True,
    cls=DishgraphGroup,
)


def _print_table(table, as_json: bool, json_out: Path | None) -> None:
    data = {"id": table.id, "title": table.title, "rows": table.to_rows()}
    if as_json or json_out:
        emit_json(data, json_out)
        if as_json:
            return
    console.print(
        rows_table(
            [{"#": i, **r} for i, r in enumerate(data["rows"])],
            f"{table.id}  {table.title}",
            ["#", "instruction", "input", "action", "output"],
        )
    )


@app.command("table")
def table(
    recipe_id: str = typer.Argument(..., help="Recipe id in the graph (e.g. crg:1a2b… or pcs:6c4c735810)."),
    stored: bool = typer.Option(
        False, "--stored", help="Print the ingested PCS table instead of the parser-derived baseline."
    ),
    raw_inputs: bool = typer.Option(
        False,
        "--raw-inputs",
        help="Baseline inputs as raw ingredient forms (no tracking of the comestible each ingredient is in).",
    ),
    glossary_path: Path | None = GlossaryOpt,
    segmenter: str = SegmenterOpt,
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
    json_out: Path | None = JsonOutOpt,
):
    """A PCS-style table for any recipe: parse its text from the graph and derive inputs/outputs per action."""
    from dishgraph.pcs.baseline import recipe_table
    from dishgraph.pcs.graph import stored_table

    with open_store(db, uri, read_only=True) as store, exit_on(LookupError, code=1):
        if stored:
            t = stored_table(store, recipe_id)
        else:
            t = recipe_table(
                store, recipe_id, glossary=_glossary(glossary_path), segmenter=segmenter, track_state=not raw_inputs
            )
    _print_table(t, as_json, json_out)


def _glossary(path: Path | None):
    """The --glossary given, else None: the baseline then loads the release's."""
    from dishgraph.ingest.glossary import Glossary

    return Glossary.load(path) if path else None


@app.command("flow")
def flow(
    recipe_id: str = typer.Argument(
        ..., help="Recipe id in the graph (pcs:70f228d93a, or 70f228d93a; `dishgraph pcs ls` lists them)."
    ),
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """The comestible flow (input → step → output edges, a DAG) of an ingested PCS recipe."""
    from dishgraph.pcs.graph import flow_edges

    with open_store(db, uri, read_only=True) as store:
        edges = flow_edges(store, recipe_id)
    if as_json:
        return emit_json(edges)
    console.print(
        rows_table(edges, f"comestible flow of {recipe_id}", ["pos", "source_name", "action", "target_name", "target"])
    )


@app.command("ls")
def ls(
    split: str = typer.Option("", "--split", help="Only this release split: train, val or test."),
    limit: int = typer.Option(50, "--limit", min=0, help="Rows of the table (0: all); --json lists all."),
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """The PCS recipes in the graph: the ids `pcs flow` and `pcs table` take, with split, annotator and title."""
    from dishgraph.pcs.graph import list_recipes

    with open_store(db, uri, read_only=True) as store:
        rows, total = list_recipes(store, split, 0 if as_json else limit)
    if as_json:
        return emit_json(rows)
    more = [f"{total - len(rows)} more; --limit 0 for all, --split to narrow"] if total > len(rows) else []
    title = f"{total} PCS recipes" + (f" in {split}" if split else "")
    console.print(rows_table(rows, title, ["id", "split", "annotator", "title", "steps"], notes=more))


@app.command("serialize")
def serialize(
    file: Path = typer.Argument(..., help="PCS table file or directory."),
    mask: str = typer.Option("tokens", "--mask", help="tokens (<in>/<out>) | sentinel (<extra_id_k>)"),
    max_rows: int | None = typer.Option(None, "--max-rows", help="Rows per example (default: whole table)."),
    as_json: bool = JsonOpt,
):
    """Show the text-to-text examples (source/target) a table becomes for T5."""
    from dishgraph.pcs.serialize import serialize_table
    from dishgraph.pcs.tables import PCSFormatError, read_pcs

    with exit_on(PCSFormatError, ValueError, code=1):
        examples = [e for t in read_pcs(file) for e in serialize_table(t, mask, max_rows=max_rows)]
    rows = [
        {"recipe": e.recipe, "rows": f"{e.start}-{e.end}", "source": e.source, "target": e.target} for e in examples
    ]
    if as_json:
        return emit_json(rows)
    console.print(rows_table(rows, "examples"))


@app.command("predict")
def predict(
    split: Path = typer.Argument(
        ...,
        help="Tables to predict: a split name (train, val, test: the release in the data directory), or a "
        "directory or file of tables.",
    ),
    train: Path | None = typer.Option(None, "--train", help="Train tables (the tracker learns from them)."),
    out: Path = typer.Option(..., "--out", help="Predictions, JSONL: recipe, annotator, row, input, output."),
    setting: str = typer.Option(
        "chained", "--setting", help="chained (own earlier outputs) | oracle (gold earlier outputs: a bound)."
    ),
    model: str = typer.Option("tracker", "--model", help="tracker | prev-output | mentions | t5:DIR"),
    as_json: bool = JsonOpt,
):
    """Fill every row's input set and output from the instructions (docs/pcs.md); score with `eval pcs`."""
    from dishgraph.pcs.predict import predict_files
    from dishgraph.pcs.tables import PCSFormatError

    with exit_on(PCSFormatError, ValueError, FileNotFoundError, code=1):
        rep = predict_files(split, train, out, model, setting)
    if as_json:
        return emit_json(rep)
    console.print(rows_table([rep], "predicted"))


@app.command("agreement")
def agreement(
    data: Path = typer.Argument(..., help="The release (or any tables): recipes with two annotators are scored."),
    as_json: bool = JsonOpt,
):
    """People as the ceiling: annotator 2 scored against annotator 1 and back, the paper's columns."""
    from dishgraph.eval.pcs_paper import people_agreement
    from dishgraph.pcs.tables import PCSFormatError, read_pcs

    with exit_on(PCSFormatError, ValueError, FileNotFoundError, code=1):
        res = people_agreement(read_pcs(data))
    if as_json:
        return emit_json(res)
    rows = [
        {"direction": k, **{m: round(v, 2) if isinstance(v, float) else v for m, v in res[k].items()}}
        for k in ("a2_vs_a1", "a1_vs_a2")
    ]
    console.print(rows_table(rows, f"annotator agreement on {len(res['recipes'])} recipes"))


@app.command("benchmark")
def benchmark(
    data: Path = typer.Argument(..., help="The release directory (train/, val/, test/)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the random split."),
    workers: int = typer.Option(
        2,
        "--workers",
        min=1,
        callback=capped_workers,
        help="Processes: the two splits at once (1: in turn; capped by cores and free memory).",
    ),
    as_json: bool = JsonOpt,
    json_out: Path | None = JsonOutOpt,
):
    """The PCS results table: floors and tracker on test (chained / oracle), a random split, people, the paper."""
    from dishgraph.pcs.benchmark import benchmark as run
    from dishgraph.pcs.tables import PCSFormatError

    with exit_on(PCSFormatError, ValueError, FileNotFoundError, code=1):
        res = run(data, seed, workers)
    if as_json or json_out:
        emit_json(res, json_out)
        if as_json:
            return
    rows = [
        {k: round(v, 1) if isinstance(v, float) else ("" if v is None else v) for k, v in r.items()}
        for r in res["rows"]
    ]
    console.print(rows_table(rows, f"PizzaCommonSense test split ({res['test_rows']} rows), percent"))
