"""`dishgraph sync`: copy the embedded graph into Neo4j (or another embedded database), idempotently."""
from __future__ import annotations

from typing import Optional

import typer

from dishgraph.commands._common import (DbOpt, JsonOpt, console, emit_json, err_console, open_store, print_error, print_note, rows_table)


def _is_server_uri(to: str) -> bool:
    from dishgraph.graph.sync import sync_target

    return sync_target(to)[0] == "uri"


def _open_target(to: str, user: Optional[str], password: Optional[str], database: Optional[str]):
    """A Neo4j store for a valid bolt:// / neo4j:// URI; an explicit directory names an embedded database."""
    from dishgraph.errors import DatabaseError
    from dishgraph.graph.sync import sync_target

    kind, where = sync_target(to)
    if kind == "dir":
        return open_store(str(where), None)
    from dishgraph.graph.neo4j_store import Neo4jStore

    try:
        return Neo4jStore(to, user=user, password=password, database=database)
    except DatabaseError as e:  # unreachable server, bad credentials
        print_error(str(e))
        raise typer.Exit(2)


def sync(to: str = typer.Option(..., "--to", help="Target: a Neo4j URI (bolt://localhost:7687) or an embedded "
                                                  "database directory."),
         db: Optional[str] = DbOpt,
         user: Optional[str] = typer.Option(None, "--user", envvar="NEO4J_USERNAME",
                                            help="Neo4j user (default $NEO4J_USERNAME, else neo4j)."),
         password: Optional[str] = typer.Option(None, "--password", envvar="NEO4J_PASSWORD",
                                                help="Neo4j password (default $NEO4J_PASSWORD)."),
         database: Optional[str] = typer.Option(None, "--database", envvar="NEO4J_DATABASE",
                                                help="Neo4j database name (default: the server's default)."),
         batch: int = typer.Option(5000, "--batch", min=1, help="Rows per UNWIND $rows transaction."),
         as_json: bool = JsonOpt):
    """Copy every node and relationship of the embedded database into the target with batched MERGE (idempotent)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from dishgraph import config
    from dishgraph.graph.sync import sync_stores

    if not _is_server_uri(to) and config.db_path(to).resolve() == config.db_path(db).resolve():
        print_error("source and target are the same database")
        raise typer.Exit(2)
    with open_store(db, None, read_only=True) as source, _open_target(to, user, password, database) as target:
        columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=err_console, disable=as_json) as bar:
            tasks: dict[str, int] = {}

            def advance(name: str, done: int, total: int) -> None:
                if name not in tasks:
                    tasks[name] = bar.add_task(name, total=total)
                bar.update(tasks[name], completed=done)

            rep = sync_stores(source, target, batch=batch, progress=advance)
        where = target.location()
    if as_json:
        emit_json({"target": where, **rep.to_dict()})
    else:
        rows = [{"label / type": k, "source": v, "target": rep.target_counts[part][k]}
                for part in ("nodes", "relationships") for k, v in rep.source_counts[part].items() if v]
        console.print(rows_table(rows, f"synced to {where} in {rep.seconds:.1f} s"))
    short = {k: v for k, v in rep.mismatches.items() if (v[1] or 0) < v[0]}
    if short:
        print_error(f"the target has fewer than the source (source, target): {short}")
        raise typer.Exit(1)
    if rep.mismatches:
        print_note(f"the target holds more than the source: {rep.mismatches}")


TOP_LEVEL = [sync]
