"""`dishgraph db info|init|shell|reset`."""

from __future__ import annotations

import sys

import typer

from dishgraph.cli_errors import DishgraphGroup
from dishgraph.commands._common import console, emit_json, open_store, rows_table, styled
from dishgraph.commands._options import DbOpt, JsonOpt, UriOpt

app = typer.Typer(
    help="The graph database: info, schema, a Cypher shell, reset.", no_args_is_help=True, cls=DishgraphGroup
)


@app.command()
def info(db: str | None = DbOpt, uri: str | None = UriOpt, as_json: bool = JsonOpt):
    """Backend, location, version and counts per label and relationship type."""
    from dishgraph.graph.info import database_info

    with open_store(db, uri, read_only=True) as store:
        data = database_info(store)
    if as_json:
        return emit_json(data)
    console.print(styled(data["backend"], "bold", f" {data['location']}  ({data['version']})"))
    console.print(rows_table([{"label": k, "count": v} for k, v in data["counts"]["nodes"].items()], "nodes"))
    console.print(
        rows_table([{"type": k, "count": v} for k, v in data["counts"]["relationships"].items()], "relationships")
    )


@app.command()
def init(db: str | None = DbOpt, uri: str | None = UriOpt):
    """Create the schema (Ladybug node/rel tables; Neo4j uniqueness constraints and indexes)."""
    with open_store(db, uri) as store:
        store.init_schema()
        console.print(f"schema ready on {store.backend} at {store.location()}")


@app.command()
def shell(
    statement: str | None = typer.Argument(None, help="Cypher statement; read from stdin if omitted."),
    param: list[str] = typer.Option([], "--param", "-p", help="Parameter NAME=JSON_VALUE (repeatable)."),
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
    write: bool = typer.Option(False, "--write", help="Open the embedded database for writing."),
):
    """Run one Cypher statement (values only as --param, never pasted into the text) and print a table.

    Without --write the database opens read-only and only reads run: MATCH, WITH, UNWIND, RETURN, UNION,
    allow-listed functions and CALLs (show_tables, table_info, db.labels, ...). Anything else (writes,
    COPY, LOAD FROM, INSTALL, CHECKPOINT, settings, ...) is refused (exit 2); on Neo4j the session is
    opened with read access too, so the server refuses writes itself."""
    from dishgraph.errors import DatabaseError, UsageError
    from dishgraph.graph.readonly import check_read_only

    text, params = statement if statement is not None else sys.stdin.read(), _params(param)
    if not text.strip():
        raise UsageError("no Cypher statement given (as an argument or on stdin)")
    if not write:
        check_read_only(text)  # on Neo4j too: db shell reads unless --write
    with open_store(db, uri, read_only=not write) as store:
        try:
            rows = store.execute(text, params)
        except RuntimeError as e:  # Ladybug: parser / binder / runtime errors of the statement
            raise DatabaseError(f"Cypher: {' '.join(str(e).split())}") from None
    if as_json:
        return emit_json(rows)
    console.print(rows_table(rows))


def _params(items: list[str]) -> dict:
    """--param NAME=VALUE: VALUE as JSON when it parses, else the text itself."""
    import json

    params = {}
    for p in items:
        name, _, value = p.partition("=")
        try:
            params[name] = json.loads(value)
        except json.JSONDecodeError:
            params[name] = value
    return params


@app.command()
def recover(db: str | None = DbOpt):
    """Finish a checkpoint a kill interrupted (replays <db>.shadow / <db>.wal with one read-write open).

    Read-only commands do this by themselves when no other process holds the database."""
    from dishgraph import config
    from dishgraph.graph.ladybug_store import recover as _recover

    console.print(_recover(config.db_path(db)))


@app.command()
def reset(
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
):
    """Delete every node and relationship (asks first)."""
    with open_store(db, uri) as store:
        if not yes:
            typer.confirm(f"Delete ALL data in {store.backend} at {store.location()}?", abort=True)
        store.reset()
        console.print("database emptied")
