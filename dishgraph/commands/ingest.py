"""`dishgraph ingest counterfactual DIR`, `dishgraph ingest corpus FILE` and `dishgraph ingest pcs FILE`."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from dishgraph.cli_errors import DishgraphGroup, exit_on
from dishgraph.cli_workers import WORKER_MIB, capped_workers  # noqa: F401 (other commands import them here)
from dishgraph.commands._common import console, emit_json, open_store, print_note, print_warning, progress, rows_table
from dishgraph.commands._options import (
    DbOpt,
    GlossaryOpt,
    IngestBufferPoolOpt,
    JsonOpt,
    ParserOpt,
    SegmenterOpt,
    UriOpt,
)

app = typer.Typer(
    help="Load recipe corpora into the graph (idempotent, resumable).", no_args_is_help=True, cls=DishgraphGroup
)

NoRefreshOpt = typer.Option(
    False,
    "--no-refresh",
    help="Do not re-derive what the new recipes change (dish frequencies, composed target knowledge); commands "
    "that read it then say what to run.",
)

WorkersOpt = typer.Option(
    max(1, os.cpu_count() or 1),
    "--workers",
    "-w",
    min=1,
    callback=capped_workers,
    help="Parser worker processes (default: one per core; at most twice the cores and what free memory takes).",
)


@app.command("counterfactual")
def counterfactual(
    directory: Path | None = typer.Argument(None, help="CRG release directory (default: located data/counterfactual)."),
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    workers: int = WorkersOpt,
    segmenter: str = SegmenterOpt,
    parser: str = ParserOpt,
    no_parse: bool = typer.Option(False, "--no-parse", help="Load records only."),
    no_refresh: bool = NoRefreshOpt,
    buffer_pool_mb: int = IngestBufferPoolOpt,
    as_json: bool = JsonOpt,
):
    """Load the CRG release: dishes, pairs, recipes, glossary, reference pivots/constraints; parse recipes."""
    from dishgraph.ingest.jobs import ingest_release

    rep, derived = ingest_release(
        lambda: open_store(db, uri, buffer_pool_mb=buffer_pool_mb),
        directory,
        parse=not no_parse,
        workers=workers,
        segmenter=segmenter,
        parser=parser,
        show_progress=not as_json,
        refresh=not no_refresh,
        progress=None if as_json else print_note,
    )
    if as_json:
        return emit_json({**rep.to_dict(), "derived": derived.to_dict()})
    d = rep.to_dict()
    parsed = d.pop("parsed")
    console.print(rows_table([d], "ingested"))
    if parsed:
        console.print(rows_table([{k: v for k, v in parsed.items() if k != "errors"}], "parsed"))
    console.print(derived.summary())


@app.command("corpus")
def corpus(
    file: Path = typer.Argument(..., help="JSONL / JSON / TSV / CSV corpus (.gz accepted)."),
    fmt: str = typer.Option(
        "auto",
        "--format",
        help="auto (by suffix, then content) | jsonl | json | tsv | csv (quoted fields, spreadsheet style)",
    ),
    encoding: str = typer.Option(
        "auto",
        "--encoding",
        help="auto (a BOM, else UTF-8, else a detected "
        "GB18030 / Big5 / UTF-16) or a codec name: utf-8, gb18030, big5, ...",
    ),
    source: str | None = typer.Option(None, help="Source tag for recipe ids (default: file name)."),
    dish_field: str = typer.Option("dish", help="Field holding the dish name."),
    title_field: str | None = typer.Option(None, help="Field holding the recipe title."),
    text_field: str = typer.Option("text", help="Field holding the recipe text."),
    steps_field: str | None = typer.Option(None, help="Field holding a list of steps."),
    id_field: str | None = typer.Option(None, help="Field holding a recipe id."),
    glossary_path: Path | None = GlossaryOpt,
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    workers: int = WorkersOpt,
    segmenter: str = SegmenterOpt,
    parser: str = ParserOpt,
    chunk_size: int = typer.Option(20_000, min=1, help="Recipes read and upserted per chunk."),
    load_batch: int | None = typer.Option(
        None, min=1, help="Parsed recipes per load (default 20000 on the embedded database, 2000 on Neo4j)."
    ),
    no_refresh: bool = NoRefreshOpt,
    buffer_pool_mb: int = IngestBufferPoolOpt,
    as_json: bool = JsonOpt,
):
    """Stream any corpus the readers accept into the graph and parse it into action graphs.

    Bad records are skipped and reported with file and line; every good one is stored. Exit code 3 when
    anything was skipped, 1 when the file yielded no recipe at all.
    """
    from dishgraph.ingest.jobs import ingest_corpus_file

    rep, derived = ingest_corpus_file(
        lambda: open_store(db, uri, buffer_pool_mb=buffer_pool_mb),
        file,
        glossary_path,
        fmt=fmt,
        encoding=encoding,
        parser=parser,
        segmenter=segmenter,
        source=source,
        dish_field=dish_field,
        title_field=title_field,
        text_field=text_field,
        steps_field=steps_field,
        id_field=id_field,
        workers=workers,
        chunk_size=chunk_size,
        load_batch=load_batch,
        show_progress=not as_json,
        refresh=not no_refresh,
        progress=None if as_json else print_note,
    )
    if as_json:
        emit_json({**rep.to_dict(), "derived": derived.to_dict()})
    else:
        _print_corpus_report(rep, derived)
    if rep.exit_code:
        raise typer.Exit(rep.exit_code)


def _print_corpus_report(rep, derived) -> None:
    d = rep.to_dict()
    msgs = d.pop("messages")
    junk = d.pop("junk")
    d["skipped_by_reason"] = ", ".join(f"{k} {v}" for k, v in d["skipped_by_reason"].items())
    console.print(rows_table([d], "ingested"))
    if junk:
        console.print(
            rows_table(
                [{"junk kind": k, "recipes": v} for k, v in sorted(junk.items())],
                "junk (no_action: loaded, no action found; the others skipped)",
            )
        )
    console.print(derived.summary())
    for m in msgs:
        print_warning(m)
    if rep.skipped_lines:
        print_warning(
            f"{rep.skipped_lines} record(s) skipped (exit code {rep.exit_code}); every good record was stored",
            label="skipped:",
        )


@app.command("pcs")
def pcs(
    file: Path = typer.Argument(
        ..., help="PCS tables: release JSON files (.txt/.json), JSON list, JSONL, CSV or TSV, or a directory of them."
    ),
    source: str = typer.Option("pcs", "--source", help="Source tag; recipe ids are SOURCE:<table id>."),
    strict: bool = typer.Option(
        False, "--strict", help="Abort on the first bad table instead of reporting and skipping it."
    ),
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
):
    """Load PCS tables: Recipe -> Step -> INPUT/OUTPUT Comestible (a DAG per recipe); idempotent.

    A bad table or file (malformed, nested too deeply, more than 1,000 rows) is skipped and named with its
    file and line, and every good table is stored: exit code 3 when anything was skipped."""
    from dishgraph.pcs.graph import ingest_pcs
    from dishgraph.pcs.tables import PCSFormatError

    with (
        exit_on(PCSFormatError, FileNotFoundError, code=1),
        open_store(db, uri) as store,
        progress(disable=as_json, transient=False) as bar,
    ):
        task = bar.add_task("ingest pcs", total=None)
        rep = ingest_pcs(
            store,
            file,
            source=source,
            strict=strict,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
    _print_pcs_report(rep, as_json)
    if rep.exit_code:
        raise typer.Exit(rep.exit_code)


def _print_pcs_report(rep, as_json: bool) -> None:
    if as_json:
        return emit_json(rep.to_dict())
    d = rep.to_dict()
    errors = d.pop("errors")
    console.print(rows_table([d], "ingested"))
    for m in errors:
        print_warning(f"{m}")
    if errors:
        print_warning(f"{len(errors)} table(s) or file(s) skipped (exit code 3); every good table was stored")
