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
WorkersOpt = typer.Option(max(1, os.cpu_count() or 1), "--workers", "-w", min=1,
                          help="Parser worker processes (default: one per core).")
SegOpt = typer.Option("auto", "--segmenter", help="auto | lac | jieba", envvar="DISHGRAPH_SEGMENTER")
SEGMENTER_NAMES = ("auto", "lac", "jieba")


def refresh_derived(store):
    """After an ingest: USES of the dishes that gained recipes, and stale composed knowledge, re-derived."""
    from dishgraph.knowledge.derived import refresh_derived as refresh

    return refresh(store)


def _check_parser(parser: str, segmenter: str = "auto") -> None:
    """Refuse a bad --parser / --segmenter before the database opens (usage error, exit 2)."""
    from dishgraph.errors import UsageError
    from dishgraph.ingest.parser import check_parser

    if segmenter not in SEGMENTER_NAMES:
        raise UsageError(f"unknown --segmenter {segmenter!r}; expected one of {', '.join(SEGMENTER_NAMES)}")
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
    _check_parser(parser, segmenter)
    with open_store(db, uri) as store:
        rep = ingest_counterfactual(store, directory, parse=not no_parse, workers=workers,
                                    segmenter=segmenter, parser=parser, show_progress=not as_json)
        derived = refresh_derived(store)
    if as_json:
        return emit_json({**rep.to_dict(), "derived": derived.to_dict()})
    d = rep.to_dict()
    parsed = d.pop("parsed")
    console.print(rows_table([d], "ingested"))
    if parsed:
        console.print(rows_table([{k: v for k, v in parsed.items() if k != "errors"}], "parsed"))


@app.command()
def corpus(file: Path = typer.Argument(..., help="JSONL / JSON / TSV corpus (.gz accepted)."),
           fmt: str = typer.Option("auto", "--format", help="auto | jsonl | json | tsv"),
           encoding: str = typer.Option("auto", "--encoding", help="auto (a BOM, else UTF-8, else a detected "
                                        "GB18030 / Big5 / UTF-16) or a codec name: utf-8, gb18030, big5, ..."),
           source: Optional[str] = typer.Option(None, help="Source tag for recipe ids (default: file name)."),
           dish_field: str = typer.Option("dish", help="Field holding the dish name."),
           title_field: Optional[str] = typer.Option(None, help="Field holding the recipe title."),
           text_field: str = typer.Option("text", help="Field holding the recipe text."),
           steps_field: Optional[str] = typer.Option(None, help="Field holding a list of steps."),
           id_field: Optional[str] = typer.Option(None, help="Field holding a recipe id."),
           glossary_path: Optional[Path] = typer.Option(None, "--glossary", help="Glossary JSON (default: release)."),
           db: Optional[str] = DbOpt, uri: Optional[str] = UriOpt, workers: int = WorkersOpt,
           segmenter: str = SegOpt, parser: str = ParserOpt,
           chunk_size: int = typer.Option(20_000, min=1, help="Recipes read and upserted per chunk."),
           load_batch: Optional[int] = typer.Option(
               None, min=1, help="Parsed recipes per load (default 20000 on the embedded database, 2000 on Neo4j)."),
           as_json: bool = JsonOpt):
    """Stream any corpus the readers accept into the graph and parse it into action graphs.

    Bad records are skipped and reported with file and line; every good one is stored. Exit code 3 when
    anything was skipped, 1 when the file yielded no recipe at all.
    """
    from dishgraph import config
    from dishgraph.errors import InputError, UsageError
    from dishgraph.ingest.corpus import ingest_corpus
    from dishgraph.ingest.glossary import Glossary
    from dishgraph.ingest.readers import CORPUS_FORMATS, check_encoding

    if fmt not in CORPUS_FORMATS:
        raise UsageError(f"unknown --format {fmt!r}; expected one of {', '.join(CORPUS_FORMATS)}")
    try:
        check_encoding(encoding)
    except ValueError as e:
        raise UsageError(str(e)) from None
    _check_parser(parser, segmenter)
    if not file.exists() or file.is_dir():
        raise InputError(f"{file}: " + ("is a directory; give a corpus file" if file.is_dir() else
                                        "dangling symbolic link" if file.is_symlink() else "no such file"))
    gpath = glossary_path or config.data_dir() / "counterfactual" / "glossary.json"
    try:
        glossary = Glossary.load(gpath)
    except (OSError, ValueError) as e:
        raise InputError(f"--glossary {gpath}: cannot be used ({e})") from None
    with open_store(db, uri) as store:
        rep = ingest_corpus(store, file, glossary, fmt=fmt, source=source, dish_field=dish_field,
                            title_field=title_field, text_field=text_field, steps_field=steps_field,
                            id_field=id_field, segmenter=segmenter, parser=parser, workers=workers,
                            chunk_size=chunk_size, load_batch=load_batch, show_progress=not as_json,
                            encoding=encoding)
        derived = refresh_derived(store)
    if as_json:
        emit_json({**rep.to_dict(), "derived": derived.to_dict()})
    else:
        d = rep.to_dict()
        msgs = d.pop("messages")
        junk = d.pop("junk")
        d["skipped_by_reason"] = ", ".join(f"{k} {v}" for k, v in d["skipped_by_reason"].items())
        console.print(rows_table([d], "ingested"))
        if junk:
            console.print(rows_table([{"junk kind": k, "recipes": v} for k, v in sorted(junk.items())],
                                     "junk (no_action: loaded, no action found; the others skipped)"))
        console.print(derived.summary())
        for m in msgs:
            print_warning(m)
        if rep.skipped_lines:
            print_warning(f"{rep.skipped_lines} record(s) skipped (exit code {rep.exit_code}); "
                          f"every good record was stored", label="skipped:")
    if rep.exit_code:
        raise typer.Exit(rep.exit_code)
