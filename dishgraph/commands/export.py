"""`dishgraph export neo4j-import DIR` and `dishgraph export tables DIR` (thin: the work is in dishgraph.graph)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.text import Text

from dishgraph.cli_errors import DishgraphGroup, exit_on
from dishgraph.commands._common import console, emit_json, progress, rows_table
from dishgraph.commands._options import DbOpt, JsonOpt
from dishgraph.errors import UsageError

app = typer.Typer(
    help="Export the embedded graph: CSVs for neo4j-admin's bulk import, or one table per "
    "label and relationship type (Parquet / CSV).",
    no_args_is_help=True,
    cls=DishgraphGroup,
)

DirArg = typer.Argument(
    ...,
    help="Output directory: created if missing, or an earlier export there replaced whole (built beside it, "
    "swapped in at the end: a killed export leaves the old one). A directory holding other files is refused.",
)


def _progress(disable: bool):
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    return progress(*columns, disable=disable, transient=False)


def _open(db: str | None, buffer_pool_mb: int):
    from dishgraph import config
    from dishgraph.graph.ladybug_store import LadybugStore

    path = config.db_path(db)
    if not path.exists():
        raise UsageError(f"no embedded database at {path} (--db or $DISHGRAPH_DB)")
    try:
        return LadybugStore(path, read_only=True, buffer_pool_bytes=buffer_pool_mb * 2**20 if buffer_pool_mb else None)
    except RuntimeError as e:  # not a database (in use: DatabaseInUse, exit 5, passes through)
        raise UsageError(f"cannot open {path}: {e}") from None


def _run(export, as_json: bool, db: str | None, buffer_pool_mb: int, **kwargs):
    """Open the embedded database read-only and run one exporter under a progress bar; errors as one line."""
    from dishgraph.graph.export_neo4j import ExportError

    with _open(db, buffer_pool_mb) as store, _progress(as_json) as bar:
        tasks: dict[str, int] = {}

        def advance(name: str, done: int, total: int) -> None:
            if name not in tasks:
                tasks[name] = bar.add_task(name, total=total or 1)
            bar.update(tasks[name], completed=done if total else 1)

        with exit_on(ExportError, ValueError, OSError, RuntimeError, code=2):
            return export(store, progress=advance, **kwargs)


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f}"


@app.command("neo4j-import")
def neo4j_import(
    directory: Path = DirArg,
    db: str | None = DbOpt,
    compress: bool = typer.Option(
        True, "--compress/--no-compress", help="gzip each CSV (neo4j-admin reads .csv.gz as is)."
    ),
    array_delimiter: str = typer.Option(
        ";", "--array-delimiter", help="Character between array items (neo4j-admin's default ;)."
    ),
    database: str = typer.Option("neo4j", "--database", help="Neo4j database name written into the import command."),
    buffer_pool_mb: int = typer.Option(
        512,
        "--buffer-pool-mb",
        min=0,
        help=(
            "Cap on the embedded engine's page cache while exporting (0: its default, most of the "
            "RAM). The export reads each page once and needs no joins, so a small cache keeps memory "
            "flat at any corpus size."
        ),
    ),
    as_json: bool = JsonOpt,
):
    """CSVs for `neo4j-admin database import full`: one per label and relationship type, headers from the schema.

    Also writes IMPORT.txt (the neo4j-admin and docker compose command lines), post-import.cypher (the
    constraints of `dishgraph db init` and the empty arrays CSV cannot carry) and manifest.json.
    """
    from dishgraph.graph.export_neo4j import export_neo4j_import

    rep = _run(
        export_neo4j_import,
        as_json,
        db,
        buffer_pool_mb,
        directory=directory,
        compress=compress,
        array_delimiter=array_delimiter,
        database=database,
    )
    if as_json:
        return emit_json(rep.to_dict())
    rows = [{"file": f.name, "rows": f.rows, "MB": _mb(f.bytes)} for f in rep.files]
    console.print(
        rows_table(
            rows,
            f"{rep.rows:,} rows, {_mb(rep.bytes)} MB in {rep.seconds:.1f} s "
            f"({rep.rows / max(rep.seconds, 1e-9):,.0f} rows/s)",
        )
    )
    console.print(Text(rep.instructions()), soft_wrap=True)  # command lines must stay copy-pasteable


@app.command()
def tables(
    directory: Path = DirArg,
    db: str | None = DbOpt,
    fmt: str = typer.Option("parquet", "--format", help="parquet | csv"),
    compress: bool = typer.Option(
        True, "--compress/--no-compress", help="zstd inside Parquet files; gzip around CSV files."
    ),
    buffer_pool_mb: int = typer.Option(
        0,
        "--buffer-pool-mb",
        min=0,
        help=(
            "Cap on the embedded engine's page cache (0: its default). Relationship tables join each edge "
            "to its end nodes' keys, which needs memory in proportion to the corpus: cap with care."
        ),
    ),
    as_json: bool = JsonOpt,
):
    """One table per label and relationship type (src, dst, properties) for pandas / DuckDB / Spark."""
    from dishgraph.graph.export_tables import FORMATS, export_tables

    if fmt not in FORMATS:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    rep = _run(export_tables, as_json, db, buffer_pool_mb, directory=directory, fmt=fmt, compress=compress)
    if as_json:
        return emit_json(rep.to_dict())
    rows = [{"table": t.file, "rows": t.rows, "MB": _mb(t.bytes)} for t in rep.tables if t.rows]
    console.print(
        rows_table(
            rows,
            f"{rep.rows:,} rows, {_mb(rep.bytes)} MB in {rep.seconds:.1f} s "
            f"(empty tables written too; columns in tables.json)",
        )
    )
