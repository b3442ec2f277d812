"""`dishgraph ingest counterfactual DIR` and `dishgraph ingest corpus FILE`."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import typer

from dishgraph.commands._common import (DbOpt, JsonOpt, ParserOpt, UriOpt, console, emit_json, err_console, print_error, print_warning,
                                        open_store, rows_table)

app = typer.Typer(help="Load recipe corpora into the graph (idempotent, resumable).", no_args_is_help=True)

# Parsing is most of an ingest's time and scales with processes (the loader overlaps it in this one).
WorkersOpt = typer.Option(max(1, os.cpu_count() or 1), "--workers", "-w",
                          help="Parser worker processes (default: one per core).")
SegOpt = typer.Option("auto", "--segmenter", help="auto | lac | jieba", envvar="DISHGRAPH_SEGMENTER")


def _check_parser(parser: str) -> None:
    from dishgraph.ingest.parser import check_parser

    try:
        check_parser(parser)
    except (ValueError, RuntimeError) as e:
        print_error(f"{e}")
        raise typer.Exit(2)


@app.command()
def counterfactual(directory: Optional[Path] = typer.Argument(None, help="CRG release directory "
                                                                "(default: located data/counterfactual)."),
                   db: Optional[str] = DbOpt, uri: Optional[str] = UriOpt, workers: int = WorkersOpt,
                   segmenter: str = SegOpt, parser: str = ParserOpt,
                   no_parse: bool = typer.Option(False, "--no-parse", help="Load records only."),
                   as_json: bool = JsonOpt):
    """Load the CRG release: dishes, pairs, recipes, glossary, reference pivots/constraints; parse recipes."""
    from dishgraph import config
    from dishgraph.ingest.crg import ingest_counterfactual

    directory = directory or config.data_dir() / "counterfactual"
    _check_parser(parser)
    with open_store(db, uri) as store:
        rep = ingest_counterfactual(store, directory, parse=not no_parse, workers=workers,
                                    segmenter=segmenter, parser=parser, show_progress=not as_json)
    if as_json:
        return emit_json(rep.to_dict())
    d = rep.to_dict()
    parsed = d.pop("parsed")
    console.print(rows_table([d], "ingested"))
    if parsed:
        console.print(rows_table([{k: v for k, v in parsed.items() if k != "errors"}], "parsed"))


@app.command()
def corpus(file: Path = typer.Argument(..., help="JSONL / JSON / TSV corpus (.gz accepted)."),
           fmt: str = typer.Option("auto", "--format", help="auto | jsonl | json | tsv"),
           source: Optional[str] = typer.Option(None, help="Source tag for recipe ids (default: file name)."),
           dish_field: str = typer.Option("dish", help="Field holding the dish name."),
           title_field: Optional[str] = typer.Option(None, help="Field holding the recipe title."),
           text_field: str = typer.Option("text", help="Field holding the recipe text."),
           steps_field: Optional[str] = typer.Option(None, help="Field holding a list of steps."),
           id_field: Optional[str] = typer.Option(None, help="Field holding a recipe id."),
           glossary_path: Optional[Path] = typer.Option(None, "--glossary", help="Glossary JSON (default: release)."),
           db: Optional[str] = DbOpt, uri: Optional[str] = UriOpt, workers: int = WorkersOpt,
           segmenter: str = SegOpt, parser: str = ParserOpt,
           chunk_size: int = typer.Option(20_000, help="Recipes read and upserted per chunk."),
           load_batch: Optional[int] = typer.Option(
               None, help="Parsed recipes per load (default 20000 on the embedded database, 2000 on Neo4j)."),
           as_json: bool = JsonOpt):
    """Stream any corpus the readers accept into the graph and parse it into action graphs."""
    from dishgraph import config
    from dishgraph.ingest.corpus import ingest_corpus
    from dishgraph.ingest.glossary import Glossary

    glossary = Glossary.load(glossary_path or config.data_dir() / "counterfactual" / "glossary.json")
    _check_parser(parser)
    with open_store(db, uri) as store:
        rep = ingest_corpus(store, file, glossary, fmt=fmt, source=source, dish_field=dish_field,
                            title_field=title_field, text_field=text_field, steps_field=steps_field,
                            id_field=id_field, segmenter=segmenter, parser=parser, workers=workers,
                            chunk_size=chunk_size, load_batch=load_batch, show_progress=not as_json)
    if as_json:
        return emit_json(rep.to_dict())
    d = rep.to_dict()
    msgs = d.pop("messages")
    console.print(rows_table([d], "ingested"))
    for m in msgs:
        print_warning(f"{m}")
