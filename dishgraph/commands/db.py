"""`dishgraph db info|init|shell|check|recover|reset`."""

from __future__ import annotations

import sys

import typer

from dishgraph.cli_errors import DishgraphGroup
from dishgraph.commands._common import console, emit_json, open_store, rows_table, styled
from dishgraph.commands._options import DbOpt, JsonOpt, UriOpt

MAX_ROWS = 100  # a table longer than this scrolls away; the note says how many more and how to see them
PAGE_ROWS = 1_000  # rows drawn as one table (--max-rows 0 or large): the timeout is checked between pages
SHELL_TIMEOUT = 60.0  # seconds: a statement that runs longer is almost always a mistake in a shell
SHELL_MEMORY_MB = 2048
MAX_TIMEOUT = 7 * 24 * 3600.0  # a week: larger values (inf) overflowed the timer
MAX_MEMORY_MB = 1 << 30  # a pebibyte: larger values overflowed the address-space cap
MAX_STDIN_CHARS = 1_000_000  # stdin read no further: the statement cap (readonly.MAX_STATEMENT_CHARS) refuses it

app = typer.Typer(
    help="The graph database: info, init (the schema), a Cypher shell, check, recover, reset.",
    no_args_is_help=True,
    cls=DishgraphGroup,
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
    statement: str | None = typer.Argument(
        None, help="Cypher statement; read from stdin if omitted (a prompt when stdin is a terminal)."
    ),
    param: list[str] = typer.Option([], "--param", "-p", help="Parameter NAME=JSON_VALUE (repeatable)."),
    db: str | None = DbOpt,
    uri: str | None = UriOpt,
    as_json: bool = JsonOpt,
    write: bool = typer.Option(False, "--write", help="Open the embedded database for writing."),
    max_rows: int = typer.Option(
        MAX_ROWS, "--max-rows", min=0, help="Rows of the table, with a note of the rest (0: all); --json prints all."
    ),
    timeout: float = typer.Option(
        SHELL_TIMEOUT,
        "--timeout",
        min=0,
        max=MAX_TIMEOUT,
        help="Seconds a statement may run before it is stopped (0: no limit).",
    ),
    memory_mb: int = typer.Option(
        SHELL_MEMORY_MB,
        "--memory-mb",
        min=0,
        max=MAX_MEMORY_MB,
        help="Memory the statements of a read-only shell may take, in MiB; past it a statement fails with a "
        "message (0: no cap; --write has none).",
    ),
):
    """Run Cypher statements (values only as --param, never pasted into the text) and print a table each.

    The labels and relationship types: `CALL show_tables() RETURN *` on the embedded database (LadybugDB),
    `CALL db.labels()` and `CALL db.relationshipTypes()` on Neo4j, or `dishgraph db info` on either. A label
    or type the schema lacks is told the closest one ("did you mean Dish?").

    Without a statement on a terminal: an interactive prompt (statements end with ';', :help, :exit,
    history in ~/.local/share/dishgraph/shell_history). Without --write the database opens read-only and only
    reads run: MATCH, WITH, UNWIND, RETURN, UNION, allow-listed functions and CALLs (show_tables, table_info,
    db.labels, ...). Anything else (writes, COPY, LOAD FROM, INSTALL, CHECKPOINT, settings, ...) is refused
    (exit 2); on Neo4j the session is opened with read access too, so the server refuses writes itself.
    Statements too large, chained too long or nested too deeply for the engine's parser are refused (exit 2);
    each one runs under --timeout (also while its rows are read and printed), and Ctrl-C stops it (exit 130)."""
    from dishgraph.errors import UsageError

    params = _params(param)
    limits = (timeout, 0 if write else memory_mb)
    if statement is None and sys.stdin.isatty():
        return _interactive(db, uri, write, params, as_json, max_rows, limits)
    text = statement if statement is not None else _stdin_text()
    if not text.strip():
        raise UsageError("no Cypher statement given (as an argument or on stdin)")
    _checked(text, write)
    from dishgraph.graph.readonly import split_text

    parts = split_text(text) or [text]
    with open_store(db, uri, read_only=not write) as store:
        _bounded(store, *limits)
        if len(parts) == 1:
            return _run(store, text, params, write, as_json, max_rows)
        # several statements: each runs and prints in turn (JSON: one list of rows per statement)
        results = []
        for k, part in enumerate(parts, 1):
            if as_json:
                results.append(_rows(store, part, params, write))
            else:
                console.print(f"statement {k} of {len(parts)}: {_first_line(part)}")
                _run(store, part, params, write, as_json, max_rows)
        if as_json:
            emit_json(results)


def _first_line(text: str, width: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _stdin_text() -> str:
    """The statement piped on stdin, decoded strictly: invalid UTF-8 is a usage error with its offset (the
    engine's binding rejected the surrogates Python's default decoding leaves with a pybind dump)."""
    from dishgraph.errors import UsageError

    raw = sys.stdin.buffer.read(4 * MAX_STDIN_CHARS + 4)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise UsageError(f"stdin: not valid UTF-8 (byte 0x{raw[e.start]:02x} at offset {e.start})") from None


def _bounded(store, timeout: float, memory_mb: int) -> None:
    """The shell's limits on an embedded store (a Neo4j server applies its own)."""
    if getattr(store, "backend", "") != "ladybug":
        return
    store.query_timeout = timeout or None
    store.interruptible = True
    if memory_mb:
        store.limit_memory(memory_mb * 2**20)


def _checked(text: str, write: bool) -> None:
    from dishgraph.graph.readonly import check_read_only, check_shape

    check_shape(text)
    if not write:
        check_read_only(text)  # on Neo4j too: db shell reads unless --write


def _rows(store, text: str, params: dict, write: bool) -> list[dict]:
    """The read-only check, then the statement's rows; an engine error names the closest label or type."""
    from dishgraph.errors import DatabaseError
    from dishgraph.graph.shell_hints import did_you_mean, named_columns

    _checked(text, write)
    from dishgraph.errors import UsageError
    from dishgraph.graph.readonly import parameters

    missing = sorted(parameters(text) - set(params))
    if missing:  # the engine reads an unset parameter as null: a forgotten --param would answer quietly wrong
        given = ", ".join(f"-p {m}=VALUE" for m in missing)
        raise UsageError(f"the statement uses ${', $'.join(missing)} but no value was given ({given})")
    try:
        return named_columns(store.execute(text, params))
    except RuntimeError as e:  # Ladybug: parser / binder / runtime errors of the statement
        message = " ".join(str(e).split())
        raise DatabaseError(f"Cypher: {message.rstrip('.')}{did_you_mean(text, message)}") from None


def _run(store, text: str, params: dict, write: bool, as_json: bool, max_rows: int = 0) -> None:
    """One statement: the read-only check, then execute and print (a table of at most ``max_rows`` rows with a
    note of the rest, or JSON). A label or type the schema lacks is told the closest one."""
    import time

    from dishgraph.graph.shell_hints import did_you_mean

    started = time.monotonic()
    rows = _rows(store, text, params, write)
    if as_json:
        return emit_json(rows)
    if not rows:
        hint = did_you_mean(text)  # Neo4j answers an unknown label with no rows
        return console.print("(no rows)" + (f"{hint.replace('; ', ' — ', 1)}" if hint else ""))
    shown = rows[:max_rows] if max_rows else rows
    more = [f"{len(rows) - len(shown)} more rows not shown; --max-rows 0 for all, or --json"] if shown != rows else []
    # A table is drawn whole, at about 2,000 rows a second: `--max-rows 0` on 5,000,000 rows ran on for
    # an hour past --timeout. So it is printed in pages, and the timeout holds between them.
    timeout = getattr(store, "query_timeout", None)
    for k in range(0, len(shown), PAGE_ROWS):
        if k and timeout and time.monotonic() - started > timeout:
            from dishgraph.errors import DatabaseError

            raise DatabaseError(
                f"the statement ran past its timeout of {timeout:g} s while its rows were printed ({k:,} of "
                f"{len(rows):,} shown) and was stopped (give --timeout SECONDS for longer, 0 for none, or --json)"
            )
        last = k + PAGE_ROWS >= len(shown)
        console.print(rows_table(shown[k : k + PAGE_ROWS], notes=more if last else ()))


def _interactive(
    db: str | None, uri: str | None, write: bool, params: dict, as_json: bool, max_rows: int, limits
) -> None:
    from dishgraph.cli_errors import message_for, report
    from dishgraph.commands._repl import history_file, interactive

    with open_store(db, uri, read_only=not write) as store:
        _bounded(store, *limits)
        interactive(
            lambda text, p: _run(store, text, p, write, as_json, max_rows),
            lambda e: report(message_for(e)),
            console.print,
            params,
            history_file(),
        )


def _params(items: list[str]) -> dict:
    """--param NAME=VALUE: VALUE as JSON when it parses, else the text itself."""
    from dishgraph.commands._repl import parse_param

    return dict(parse_param(p) for p in items)


@app.command()
def check(
    db: str | None = DbOpt,
    quick: bool = typer.Option(False, "--quick", help="Checksum and markers only; no table is read."),
    accept: bool = typer.Option(
        False,
        "--accept",
        help="Record the file's content as good (after restoring or checking it yourself) and forget the "
        "commands marked unfinished.",
    ),
    as_json: bool = JsonOpt,
):
    """Is the database whole? Its file against the checksum its last writer recorded, commands that began
    writing and never finished, and every table read whole (rows counted, a content fingerprint).

    Exit 0 when all is well, 4 when something is wrong (each problem one line). The fingerprint does not depend
    on where the engine keeps rows: two databases with the same one hold the same graph."""
    from dishgraph import config
    from dishgraph.errors import EXIT_VIOLATIONS
    from dishgraph.graph.check import accept_database, check_database

    if accept:
        return console.print(accept_database(config.db_path(db)))
    report = check_database(config.db_path(db), quick=quick)
    if as_json:
        emit_json(report)
    else:
        console.print(styled(report["database"], "bold"))
        console.print(f"checksum: {report['checksum']}")
        if "tables" in report:
            console.print(f"tables: {report['summary']}")

        for p in report["problems"]:
            console.print(styled("problem:", "bold red", p))
        if report["ok"]:
            console.print("ok")
    if not report["ok"]:
        raise typer.Exit(EXIT_VIOLATIONS)


@app.command()
def recover(db: str | None = DbOpt):
    """Finish a checkpoint a kill interrupted (replays <db>.shadow / <db>.wal with one read-write open).

    Read-only commands do this by themselves when no other process holds the database. A WAL the engine
    cannot replay (torn by a full disk) is set aside as <db>.wal.torn-TIME, kept, and the database returns
    to its last checkpoint; the message says what was lost."""
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
