"""`dishgraph sync`: copy the embedded graph into Neo4j (or another embedded database), idempotently."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import typer

from dishgraph.cli_errors import reported
from dishgraph.commands._common import console, emit_json, open_store, print_note, progress, rows_table
from dishgraph.commands._options import DbOpt, JsonOpt


def _open_source(db: str | None, to: str):
    """The embedded database to copy, read-only; a target that is this very database is a usage error."""
    from dishgraph import config
    from dishgraph.errors import UsageError
    from dishgraph.graph.sync import sync_target

    if sync_target(to)[0] != "uri":
        from dishgraph.graph.ladybug_store import database_file

        source = database_file(config.db_path(db)).resolve()
        target = Path(to).expanduser().resolve()
        if database_file(target).resolve() == source:
            raise UsageError("source and target are the same database")
        # a file beside the source (its WAL, shadow or lock): writing a database there destroyed the source
        if target.parent == source.parent and target.name.startswith(source.name + "."):
            raise UsageError(f"{to}: a file of the source database {source}; give another directory as --to")
    return open_store(db, None, read_only=True)


def _open_target(to: str, user: str | None, password: str | None, database: str | None):
    """A Neo4j store for a valid bolt:// / neo4j:// URI; an explicit directory names an embedded database."""
    from dishgraph.graph.sync import sync_target

    kind, where = sync_target(to)
    if kind == "dir":
        return open_store(str(where), None)
    from dishgraph.graph.neo4j_store import Neo4jStore

    # An unreachable server or bad credentials: a failure (exit 1), not a usage error; the message says how
    # to start the server where none answers.
    return Neo4jStore(to, user=user, password=password, database=database)


@contextmanager
def _bars(disable: bool):
    """A ``progress(name, done, total)`` callback drawing one bar per label / relationship type."""
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with progress(*columns, disable=disable, transient=False) as bar:
        tasks: dict[str, int] = {}

        def advance(name: str, done: int, total: int) -> None:
            if name not in tasks:
                tasks[name] = bar.add_task(name, total=total)
            bar.update(tasks[name], completed=done)

        yield advance


def sync(
    to: str = typer.Option(
        ..., "--to", help="Target: a Neo4j URI (bolt://localhost:7687) or an embedded database directory."
    ),
    db: str | None = DbOpt,
    user: str | None = typer.Option(
        None, "--user", envvar="NEO4J_USERNAME", help="Neo4j user (default $NEO4J_USERNAME, else neo4j)."
    ),
    password: str | None = typer.Option(
        None, "--password", envvar="NEO4J_PASSWORD", help="Neo4j password (default $NEO4J_PASSWORD)."
    ),
    database: str | None = typer.Option(
        None, "--database", envvar="NEO4J_DATABASE", help="Neo4j database name (default: the server's default)."
    ),
    batch: int = typer.Option(5000, "--batch", min=1, help="Rows per UNWIND $rows transaction."),
    as_json: bool = JsonOpt,
):
    """Copy every node and relationship of the embedded database into the target with batched MERGE (idempotent)."""
    from dishgraph.graph.sync import sync_stores

    with (
        _open_source(db, to) as source,
        _open_target(to, user, password, database) as target,
        _bars(as_json) as advance,
    ):
        rep = sync_stores(source, target, batch=batch, progress=advance)
        where = target.location()
    if as_json:
        emit_json({"target": where, **rep.to_dict()})
    else:
        rows = [
            {"label / type": k, "source": v, "target": rep.target_counts[part][k]}
            for part in ("nodes", "relationships")
            for k, v in rep.source_counts[part].items()
            if v
        ]
        console.print(rows_table(rows, f"synced to {where} in {rep.seconds:.1f} s"))
    short = {k: v for k, v in rep.mismatches.items() if (v[1] or 0) < v[0]}
    if short:
        raise reported(f"the target has fewer than the source (source, target): {short}")
    if rep.mismatches:
        print_note(f"the target holds more than the source: {rep.mismatches}")
