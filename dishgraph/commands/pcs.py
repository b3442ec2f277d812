"""`dishgraph pcs …` (PCS tables of recipes), `dishgraph ingest pcs FILE` and `dishgraph train pcs`."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Optional

import typer

from dishgraph.commands._common import (DbOpt, JsonOpt, JsonOutOpt, UriOpt, console, emit_json, err_console, print_error, print_warning,
                                        open_store, rows_table)

app = typer.Typer(help="PizzaCommonSense view: per step the comestibles going in and coming out.",
                  no_args_is_help=True)


def _print_table(table, as_json: bool, json_out: Optional[Path]) -> None:
    data = {"id": table.id, "title": table.title, "rows": table.to_rows()}
    if as_json or json_out:
        emit_json(data, json_out)
        if as_json:
            return
    console.print(rows_table([{"#": i, **r} for i, r in enumerate(data["rows"])], f"{table.id}  {table.title}",
                             ["#", "instruction", "input", "action", "output"]))


@app.command("table")
def table(recipe_id: str = typer.Argument(..., help="Recipe id in the graph (e.g. crg:1a2b… or pcs:6c4c735810)."),
          stored: bool = typer.Option(False, "--stored", help="Print the ingested PCS table instead of the "
                                      "parser-derived baseline."),
          raw_inputs: bool = typer.Option(False, "--raw-inputs", help="Baseline inputs as raw ingredient forms "
                                          "(no tracking of the comestible each ingredient is in)."),
          glossary_path: Optional[Path] = typer.Option(None, "--glossary", help="Glossary JSON (default: release)."),
          segmenter: str = typer.Option("auto", "--segmenter", help="auto | lac | jieba",
                                        envvar="DISHGRAPH_SEGMENTER"),
          db: Optional[str] = DbOpt, uri: Optional[str] = UriOpt, as_json: bool = JsonOpt,
          json_out: Optional[Path] = JsonOutOpt):
    """A PCS-style table for any recipe: parse its text from the graph and derive inputs/outputs per action."""
    from dishgraph.pcs.baseline import recipe_table
    from dishgraph.pcs.graph import stored_table

    with open_store(db, uri, read_only=True) as store:
        try:
            if stored:
                t = stored_table(store, recipe_id)
            else:
                glossary = None
                if glossary_path:
                    from dishgraph.ingest.glossary import Glossary

                    glossary = Glossary.load(glossary_path)
                t = recipe_table(store, recipe_id, glossary=glossary, segmenter=segmenter,
                                 track_state=not raw_inputs)
        except LookupError as e:
            print_error(f"{e}")
            raise typer.Exit(1)
    _print_table(t, as_json, json_out)


@app.command("flow")
def flow(recipe_id: str = typer.Argument(..., help="Recipe id in the graph."),
         db: Optional[str] = DbOpt, uri: Optional[str] = UriOpt, as_json: bool = JsonOpt):
    """The comestible flow (input → step → output edges, a DAG) of an ingested PCS recipe."""
    from dishgraph.pcs.graph import flow_edges

    with open_store(db, uri, read_only=True) as store:
        edges = flow_edges(store, recipe_id)
    if as_json:
        return emit_json(edges)
    console.print(rows_table(edges, f"comestible flow of {recipe_id}",
                             ["pos", "source_name", "action", "target_name", "target"]))


@app.command("serialize")
def serialize(file: Path = typer.Argument(..., help="PCS table file or directory."),
              mask: str = typer.Option("tokens", "--mask", help="tokens (<in>/<out>) | sentinel (<extra_id_k>)"),
              max_rows: Optional[int] = typer.Option(None, "--max-rows",
                                                      help="Rows per example (default: whole table)."),
              as_json: bool = JsonOpt):
    """Show the text-to-text examples (source/target) a table becomes for T5."""
    from dishgraph.pcs.serialize import serialize_table
    from dishgraph.pcs.tables import PCSFormatError, read_pcs

    try:
        examples = [e for t in read_pcs(file) for e in serialize_table(t, mask, max_rows=max_rows)]
    except (PCSFormatError, ValueError) as e:
        print_error(f"{e}")
        raise typer.Exit(1)
    rows = [{"recipe": e.recipe, "rows": f"{e.start}-{e.end}", "source": e.source, "target": e.target}
            for e in examples]
    if as_json:
        return emit_json(rows)
    console.print(rows_table(rows, "examples"))


def ingest_pcs(file: Path = typer.Argument(..., help="PCS tables: release JSON files (.txt/.json), JSON list, "
                                           "JSONL, CSV or TSV, or a directory of them."),
               source: str = typer.Option("pcs", "--source", help="Source tag; recipe ids are SOURCE:<table id>."),
               strict: bool = typer.Option(False, "--strict", help="Abort on the first bad table instead of "
                                           "reporting and skipping it."),
               db: Optional[str] = DbOpt, uri: Optional[str] = UriOpt, as_json: bool = JsonOpt):
    """Load PCS tables: Recipe -> Step -> INPUT/OUTPUT Comestible (a DAG per recipe); idempotent."""
    from rich.progress import Progress

    from dishgraph.pcs.graph import ingest_pcs as run
    from dishgraph.pcs.tables import PCSFormatError

    try:
        with open_store(db, uri) as store, Progress(console=err_console, disable=as_json) as bar:
            task = bar.add_task("ingest pcs", total=None)
            rep = run(store, file, source=source, strict=strict,
                      progress=lambda done, total: bar.update(task, completed=done, total=total))
    except (PCSFormatError, FileNotFoundError) as e:
        print_error(f"{e}")
        raise typer.Exit(1)
    if as_json:
        return emit_json(rep.to_dict())
    d = rep.to_dict()
    errors = d.pop("errors")
    console.print(rows_table([d], "ingested"))
    for m in errors:
        print_warning(f"{m}")


ingest_pcs.__name__ = "pcs"  # typer names the command after the function: `dishgraph ingest pcs`


def train_pcs(train: Path = typer.Argument(..., help="Training PCS tables (file or directory)."),
              model: str = typer.Option("t5-small", "--model", help="T5 checkpoint: local directory or hub id."),
              output_dir: Optional[Path] = typer.Option(None, "--output-dir", "-o",
                                                        help="Save the fine-tuned model and tokenizer here."),
              dev: Optional[Path] = typer.Option(None, "--dev", help="Tables to score with the PCS metrics."),
              mask: str = typer.Option("tokens", "--mask", help="tokens (<in>/<out>) | sentinel (<extra_id_k>)"),
              max_rows: Optional[int] = typer.Option(None, "--max-rows",
                                                      help="Rows per example (default: whole table)."),
              epochs: int = typer.Option(3, "--epochs", help="Passes over the training examples."),
              max_steps: Optional[int] = typer.Option(None, "--max-steps", help="Stop after this many steps."),
              batch_size: int = typer.Option(8, "--batch-size", help="Examples per step."),
              lr: float = typer.Option(3e-4, "--lr", help="AdamW learning rate."),
              max_source_len: int = typer.Option(512, "--max-source-len", help="Source tokens kept."),
              max_target_len: int = typer.Option(256, "--max-target-len", help="Target tokens kept."),
              max_new_tokens: int = typer.Option(256, "--max-new-tokens", help="Generation length for --dev."),
              seed: int = typer.Option(0, "--seed", help="Random seed."),
              device: str = typer.Option("auto", "--device", help="auto | cpu | cuda"),
              as_json: bool = JsonOpt, json_out: Optional[Path] = JsonOutOpt):
    """Fine-tune T5ForConditionalGeneration to fill PCS input/output cells; score --dev with the PCS metrics."""
    from rich.progress import Progress

    from dishgraph.pcs.t5 import T5Config, train_pcs as run

    cfg = T5Config(model=model, output_dir=str(output_dir) if output_dir else None, mask=mask, max_rows=max_rows,
                   epochs=epochs, max_steps=max_steps, batch_size=batch_size, lr=lr, max_source_len=max_source_len,
                   max_target_len=max_target_len, max_new_tokens=max_new_tokens, seed=seed, device=device)
    with Progress(console=err_console, disable=as_json) as bar:
        task = bar.add_task("train pcs", total=None)
        rep = run(train, cfg, dev, progress=lambda s, n, loss: bar.update(
            task, completed=s, total=n, description=f"train pcs loss={loss:.3f}"))
    if as_json or json_out:
        emit_json(rep, json_out)
        if as_json:
            return
    console.print(rows_table([{k: rep[k] for k in ("train_tables", "examples", "steps", "loss_first", "loss_last",
                                                   "device")}], "trained"))
    for field in ("input", "output"):
        if "dev" in rep:
            console.print(rows_table([{k: v for k, v in rep["dev"][field].items()}], f"dev {field}"))


train_pcs.__name__ = "pcs"  # `dishgraph train pcs`


def _group_exists(name: str) -> bool:
    return importlib.util.find_spec(f"dishgraph.commands.{name}") is not None


# `ingest` and `train` belong to other modules; where one does not exist (yet), the command lives here.
EXTRA = {}
for _group, _fn, _local in (("ingest", ingest_pcs, "ingest"), ("train", train_pcs, "train")):
    if _group_exists(_group):
        EXTRA[_group] = [_fn]
    else:
        app.command(_local)(_fn)
