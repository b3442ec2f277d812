"""Embedded LadybugDB backend: an on-disk directory, in-process, ACID with a WAL."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import ladybug

from dishgraph import outputs
from dishgraph.errors import DatabaseError, DishgraphError
from dishgraph.graph import checksum, diskspace, queries, schema, walscan
from dishgraph.graph.arrow_copy import is_table, temp_file_error, write_table_parquet
from dishgraph.graph.base import BulkRows, GraphStore
from dishgraph.graph.lock import DatabaseInUse, ProcessLock
from dishgraph.graph.readonly import check_read_only, check_shape
from dishgraph.graph.values import check_statement, param, plain

BULK_SOURCES = ("csv", "frame")


def _refuse_in_starting_worker(path: Path) -> None:
    """A parse worker starting from a script re-runs the script's top level (spawn and forkserver import the
    main module) unless its main code sits under ``if __name__ == "__main__":``. The worker then opened the
    database its parent holds and waited a minute for the lock, and the parent failed with a broken pipe.
    Refuse at once, saying what to change."""
    import multiprocessing

    if getattr(multiprocessing.current_process(), "_inheriting", False):
        raise DatabaseError(
            f"{path}: opened by a worker process while it starts: the script that started it runs its main "
            'code at import time; put that code under `if __name__ == "__main__":`'
        )


@lru_cache(maxsize=1)
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library is another (musl, macOS) or cannot be loaded."""
    import ctypes
    import platform

    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    try:
        trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


def _return_freed_heap() -> None:
    """Give the heap the engine freed at a checkpoint back to the system (glibc keeps it otherwise).

    A bulk load's transaction state lives on the C++ heap until the checkpoint frees it: on a 300k-recipe
    ingest each checkpoint freed 90-600 MB that glibc kept mapped, so the loader's resident memory only ever
    rose (3.2 GB at 280k recipes of a 1M corpus; benchmarks/bench_memory.py). What stays in use after a
    checkpoint still grows with the steps loaded: the engine keeps about 135 bytes of heap per relationship
    row and 38 per unique long string (benchmarks/bench_pk_memory.py). Returning the freed heap costs a few
    milliseconds per checkpoint.
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


class LadybugStore(GraphStore):
    backend = "ladybug"

    def __init__(
        self,
        path: str | os.PathLike[str],
        read_only: bool = False,
        bulk_source: str = "csv",
        buffer_pool_bytes: int | None = None,
        wait: float | None = None,
        query_timeout: float | None = None,
        verify_checksum: bool = True,
    ):
        """``path``: the database file, or a directory to hold one (``DIR/db``). ``wait``: seconds to wait
        for another process that holds the database (None: $DISHGRAPH_WAIT, else 60; see `graph.lock`).
        ``verify_checksum``: refuse a file that differs from its recorded checksum (`graph.checksum`); off only
        for `db check`, which reads a damaged file to say what is wrong."""
        if bulk_source not in BULK_SOURCES:
            raise ValueError(f"bulk_source must be one of {BULK_SOURCES}, not {bulk_source!r}")
        self.path = database_file(path)
        self.read_only = read_only
        self.bulk_source = bulk_source  # how COPY gets its rows; see _copy
        if read_only and not self.path.exists():
            raise DatabaseError(
                f"{self.path}: no database here; create one with an ingest or `dishgraph db init --db {self.path}`"
            )
        check_database_file(self.path)  # before the lock: a path that is no database gets no DIR.lock either
        _refuse_in_starting_worker(self.path)
        outputs.protect_open_database(self.path)  # no output of this process may replace it while open
        self.path.parent.mkdir(parents=True, exist_ok=True)  # Ladybug needs the parent to exist
        self._lock = ProcessLock(self.path.with_name(self.path.name + ".lock"), shared=read_only)
        self._lock.acquire(wait)
        self._bulk_depth = 0  # open bulk_session() scopes
        self._unsaved_copy = False  # a COPY since the last checkpoint (only inside a bulk session)
        self._unsaved_log = False  # a logged write inside a bulk session (auto-checkpoint is off there)
        self._unsaved_bytes = 0  # CSV size of the COPYs since the last checkpoint (what it will write)
        self.query_timeout = query_timeout  # seconds per `execute` (None: no limit)
        self.memory_cap: int | None = None  # set by limit_memory
        self._memory_restore: int | None = None  # the address-space limit before limit_memory
        self.interruptible = False  # every statement stoppable by Ctrl-C (a shell), also without a timeout
        self._abandoned = False  # a statement still runs after Ctrl-C (see _execute_bounded)
        self._failed = False  # closed by an unexpected error: this writer's work may be half done
        try:
            if not read_only:  # the whole command's room first: a full disk refuses it before any write
                diskspace.reserve(self.path)
            # damage refused; a killed writer reported; this one marked
            checksum.on_open(self.path, read_only, verify_checksum)
            # The buffer pool caches every page read (default: most of the RAM); a one-pass reader such as
            # the exporter caps it so that its memory stays flat however large the database is.
            extra: dict[str, Any] = {"buffer_pool_size": int(buffer_pool_bytes)} if buffer_pool_bytes else {}
            dmg = walscan.damage(self.path.with_name(self.path.name + ".wal"))
            if dmg is not None:
                raise DatabaseError(
                    f"{self.path}: its WAL is damaged at byte {dmg[0]:,} of {dmg[2]:,} (a record's checksum "
                    f"fails); run `dishgraph db recover --db {self.path}`: it replays the {dmg[1] - 1:,} records "
                    f"before the damage and sets the WAL aside, kept"
                )
            try:
                self._db = ladybug.Database(str(self.path), read_only=read_only, **extra)
            except RuntimeError as e:
                if not (read_only and "recovery is pending" in str(e)):
                    raise
                self._recover_then_reopen()
            self._conn = ladybug.Connection(self._db)
            if not read_only:
                self.init_schema()
        except (RuntimeError, ValueError) as e:  # ValueError: a WAL record the engine's reader rejects
            self._forget_open()
            if "Could not set lock" in str(e):  # another process has it open: our lock file was deleted
                raise DatabaseInUse(
                    f"{self.path}: in use by another process ({' '.join(str(e).split())[:200]}); its lock file "
                    f"{self.path.name}.lock was deleted, so waiting could not see it"
                ) from None
            hint = (
                f"; run `dishgraph db recover --db {self.path}` (a damaged WAL's valid records are replayed, the "
                "WAL set aside, kept)"
                if pending_files(self.path)
                else ""
            )
            raise DatabaseError(f"{self.path}: cannot open the database ({' '.join(str(e).split())}){hint}") from None
        except BaseException:
            self._forget_open()
            raise

    def _forget_open(self) -> None:
        if not self.read_only:
            checksum.forget_writing(self.path)
        self._lock.release(remove_if_created=True)

    def _recover_then_reopen(self) -> None:
        """A checkpoint was interrupted (a kill, or a CHECKPOINT tried on a read-only open by older code):
        Ladybug opens the database read-only only after a read-write open has replayed it. Do that here
        when no other process holds the database, so reads recover by themselves; else say what to run."""
        self._lock.release()
        writer = ProcessLock(self._lock.path, shared=False)
        try:
            writer.acquire()
        except DatabaseInUse as e:
            self._lock.acquire()
            raise DatabaseError(f"{self.path}: an interrupted checkpoint needs recovery, and {e}") from None
        try:
            recover(self.path, _locked=True)
        except DatabaseError:
            writer.release()
            self._lock.acquire()
            raise
        writer.release()
        self._lock.acquire()
        self._db = ladybug.Database(str(self.path), read_only=True)

    def execute(
        self, cypher: str, params: dict[str, Any] | None = None, *, timeout: float | None = None
    ) -> list[dict[str, Any]]:
        """Rows of ``cypher``. ``timeout`` (seconds; else the store's ``query_timeout``): the engine stops the
        statement after that long (`QueryTimeout`); with a timeout, Ctrl-C interrupts it too (see
        `_interruptible`)."""
        check_statement(cypher, params)  # a wrong type is a UsageError naming it, not the binding's dump
        import time

        started = time.monotonic()
        limit = self.query_timeout if timeout is None else timeout
        rows: list[dict[str, Any]] = []
        for res in self._results(cypher, params, timeout):  # a multi-statement text: one result per statement
            cols = res.get_column_names()
            rows = []
            while res.has_next():
                rows.append({c: plain(v) for c, v in zip(cols, res.get_next())})
                # The engine's timeout ends when it hands over the result; reading 5,000,000 rows took 45 s
                # more. So the timeout holds until the last row is read too.
                if limit and len(rows) % 1024 == 0 and time.monotonic() - started > limit:
                    raise QueryTimeout(
                        f"{self.path}: the statement ran past its timeout of {limit:g} s while its rows were "
                        f"read ({len(rows):,} rows so far) and was stopped (give --timeout SECONDS for longer, "
                        "0 for none, or fewer rows: LIMIT)"
                    )
        return rows

    def query_columns(self, name: str, **params: Any) -> dict[str, list[Any]]:
        """The named query's result by column, read through Arrow (about twice as fast as rows for ~100k
        rows of plain values: ``loader.mark_culinary`` reads every proto-action's step readings)."""
        q = self._named(name, params)
        res = self._results(q.text, {k: param(v) for k, v in params.items() if k in q.params}, None)[-1]
        table = res.get_as_arrow()
        return {c: [plain(v) for v in table[c].to_pylist()] for c in res.get_column_names()}

    def _results(self, cypher: str, params: dict[str, Any] | None, timeout: float | None) -> list[Any]:
        """The engine's result of each statement of ``cypher``, after the checks every statement passes."""
        if self._conn is None:
            raise DatabaseError(f"{self.path}: the store is closed")
        check_shape(cypher)  # a statement the engine's parser would crash or hang on never reaches it
        if self.read_only:
            check_read_only(cypher)  # CHECKPOINT / INSTALL / LOAD FROM / writes never reach a read-only open
        if not self.read_only and _is_write(cypher):
            diskspace.check_write_space(self.path)  # a full disk mid-WAL aborts the engine and tears the WAL
        if not self.read_only and (copied := _copy_source_bytes(cypher)):
            diskspace.check_space(self.path, copied)  # a COPY typed by hand: its file's rows and checkpoint
        if (self._unsaved_copy or self._bulk_depth) and _is_write(cypher):
            if self._unsaved_copy:
                self._checkpoint()  # a logged write must never refer to rows a crash could still take back
            self._unsaved_log = self._bulk_depth > 0
        timeout = self.query_timeout if timeout is None else timeout
        if timeout or self.interruptible:
            result = self._execute_bounded(cypher, params or {}, timeout)
        else:
            result = self._conn.execute(cypher, params or {})
        return result if isinstance(result, list) else [result]

    def _execute_bounded(self, cypher: str, params: dict[str, Any], timeout: float | None) -> Any:
        """One statement under the engine's query timeout, in a worker thread so that Ctrl-C reaches us:
        the engine holds the main thread in C++ and a SIGINT waited until the statement ended (12 s+)."""
        conn = self._conn
        conn.set_query_timeout(max(1, int(timeout * 1000)) if timeout else 0)
        try:
            return _interruptible(lambda: conn.execute(cypher, params), conn.interrupt, self._abandon, timeout)
        except _Overran:
            err = QueryTimeout(
                f"{self.path}: the statement ran past its timeout of {timeout or 0:g} s and did not stop when "
                "asked (the engine builds a large list without checking); it was abandoned"
            )
            err.abandoned = True  # the CLI leaves at once: the engine still runs it
            raise err from None
        except RuntimeError as e:
            text = " ".join(str(e).split())
            if text.rstrip(".") == "Interrupted":
                raise QueryTimeout(
                    f"{self.path}: the statement ran past its timeout of {timeout or 0:g} s and was stopped "
                    "(give --timeout SECONDS for longer, 0 for none)"
                ) from None
            if "bad_alloc" in text:
                raise QueryMemoryExceeded(
                    f"{self.path}: the statement needs more memory than this process may use "
                    f"({_mib(self.memory_cap or 0)} for queries; --memory-mb); nothing was changed"
                ) from None
            raise
        finally:
            if not self._abandoned:
                conn.set_query_timeout(0)

    def _abandon(self) -> None:
        """A statement did not stop after Ctrl-C: its connection stays busy, so close() must not touch it."""
        self._abandoned = True

    def limit_memory(self, cap_bytes: int) -> None:
        """Let this process grow by at most ``cap_bytes`` of address space from now on (RLIMIT_AS, soft):
        an exhausting read (``RETURN size(range(1, 2000000000))`` took 3.5 GB in seconds) then fails inside
        the engine with a memory error instead of taking the machine. The engine reserved its address
        space when the database opened, so the cap counts from here; close() puts the old limit back."""
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        new = _vm_bytes() + cap_bytes
        if hard != resource.RLIM_INFINITY:
            new = min(new, hard)
        if soft == resource.RLIM_INFINITY or new < soft:
            resource.setrlimit(resource.RLIMIT_AS, (new, hard))
            if self._memory_restore is None:
                self._memory_restore = soft
        self.memory_cap = cap_bytes

    def _restore_memory(self) -> None:
        if self._memory_restore is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (self._memory_restore, resource.getrlimit(resource.RLIMIT_AS)[1]))
            self._memory_restore = None

    def copy_query_to(self, query: str, path: str) -> None:
        """``COPY (query) TO 'path'``: the exporter's streaming sink, allowed on a read-only open. The read-only
        guard refuses every COPY a user types (``db shell``); this one is built by the exporter from a schema
        query and its own scratch path, checked to read only, and writes a file, never the database."""
        check_read_only(query)
        if "'" in path or "\\" in path:
            raise ValueError(f"cannot COPY to a path containing quotes or backslashes: {path}")
        self._conn.execute(f"COPY ({query}) TO '{path}'")

    def init_schema(self) -> None:
        """Create missing tables, then add the columns the schema gained since this database was created.

        ``CREATE ... IF NOT EXISTS`` leaves an existing table as it was, so a property added to the schema
        later (Step.ingredient_forms, say) would be missing from an older database and every query naming
        it would fail. It is added here, on any read-write open, with ``ALTER TABLE ... ADD`` (null on the
        rows already there; readers treat null as "not recorded"). A read-only open cannot alter: readers
        ask ``missing_properties`` and fall back (see ``eval/graph_cache.py``).
        """
        for stmt in schema.ladybug_ddl():
            self._conn.execute(stmt)
        for table, props in _schema_tables():
            for prop in self._missing_columns(table, props):
                # Table and property names come from the schema whitelist, never from input.
                self._conn.execute(f"ALTER TABLE {table} ADD `{prop}` {props[prop]}")

    def _missing_columns(self, table: str, props: dict[str, str]) -> list[str]:
        result = self._conn.execute(f"CALL table_info('{table}') RETURN name")
        have = set()
        for res in result if isinstance(result, list) else [result]:
            while res.has_next():
                row = res.get_next()
                have.add(row[0] if isinstance(row, list) else row["name"])
        return [p for p in props if p not in have]

    def missing_properties(self, label: str) -> list[str]:
        node = schema.NODE_BY_LABEL[schema.check_label(label)]
        return self._missing_columns(node.label, node.props)

    def location(self) -> str:
        return str(self.path)

    def version(self) -> str:
        return f"LadybugDB {ladybug.__version__}"

    # --- bulk sessions: one checkpoint for many COPYs ---------------------------------------------
    @contextmanager
    def bulk_session(self) -> Iterator[None]:
        """COPYs inside share one checkpoint, taken when the outermost session ends (also on error).

        Ladybug checkpoints after every COPY, and a checkpoint costs time in proportion to the database
        (measured: a 400k-row COPY took 0.14 s into an empty table, 1.2 s at 8M rows, 0.06-0.12 s
        throughout with checkpoints deferred), which made large loads slow down with size. A COPY is not
        logged in the WAL, so until the checkpoint a crash takes back every COPY of the session, as one
        unit; logged writes inside a session checkpoint first (``execute``), so nothing durable ever
        refers to rows a crash could take back. Callers mark work done only after the session.
        """
        if self._bulk_depth == 0:
            self._conn.execute("CALL auto_checkpoint=false")
        self._bulk_depth += 1
        try:
            yield
        finally:
            self._bulk_depth -= 1
            if self._bulk_depth == 0:
                try:
                    if self._unsaved_copy:
                        self._checkpoint()
                finally:
                    self._conn.execute("CALL auto_checkpoint=true")

    @property
    def bulk_pending(self) -> bool:
        return self._unsaved_copy

    def make_durable(self) -> None:
        """Checkpoint the session's COPYs now (the session stays open; later COPYs wait for the next one).

        Logged writes are durable already, but a session turns auto-checkpoint off: checkpointing them
        here too keeps the WAL of a long session (MERGE or CREATE loads) from growing without bound.
        """
        if self._unsaved_copy or self._unsaved_log:
            self._checkpoint()

    def _checkpoint(self) -> None:
        self._conn.execute("CHECKPOINT")
        self._unsaved_copy = self._unsaved_log = False
        self._unsaved_bytes = 0
        _return_freed_heap()

    def _reserve(self, csv_bytes: int) -> None:
        """Before a COPY of ``csv_bytes``: refuse it (`diskspace.DiskFull`) unless the disk can take it and
        every COPY waiting for the same checkpoint; the engine segfaults on a full disk, we cannot catch it."""
        diskspace.check_space(self.path, self._unsaved_bytes + csv_bytes)
        if self._bulk_depth:
            self._unsaved_bytes += csv_bytes

    # --- bulk path: COPY from a temp CSV file (dict rows), a Parquet file (Arrow tables) or a data frame ---
    def _copy(self, table: str, types: dict[str, str], rows: BulkRows, options: str = "") -> int:
        """COPY rows (dicts, or an Arrow table) into a table in one transaction (atomic: a kill leaves all of
        them or none).

        ``bulk_source="frame"`` passes a pandas data frame as a query parameter: no CSV to format and parse
        again, about 2.5x faster per COPY, but Ladybug 0.22 keeps memory for every row scanned from a frame
        (measured: +225 bytes per row that does not come back, so a 1M-recipe load would need ~28 GB).
        The CSV file is the default for that reason; both sources give identical values (tested). An Arrow
        table goes through a Parquet file instead (``_copy_table``).
        """
        if is_table(rows):
            return self._copy_table(table, types, rows, options)
        if not rows:
            return 0
        n = len(rows)
        exact: Sequence[dict[str, Any]] = ()
        if self.bulk_source == "csv":
            # A list cell is a literal [a,b] that Ladybug splits itself: an item holding a comma, bracket,
            # quote or edge whitespace would not come back as written (surface forms are arbitrary text), so
            # such rows go through a data frame, which carries every value exactly.
            lists = [name for name, typ in types.items() if typ.endswith("[]")]
            if lists:
                safe = [all(_csv_list_safe(r.get(c)) for c in lists) for r in rows]
                if not all(safe):
                    exact = [r for r, ok in zip(rows, safe) if not ok]
                    rows = [r for r, ok in zip(rows, safe) if ok]
            if rows:
                self._copy_csv(table, lambda path: _write_csv(path, list(types), rows), options)
        else:
            exact = rows
        if exact:
            self._copy_frame(table, types, exact, options)
        self._unsaved_copy = self._bulk_depth > 0
        return n

    def _copy_frame(self, table: str, types: dict[str, str], rows: Sequence[dict[str, Any]], options: str) -> None:
        self._reserve(sum(len(str(v)) + 3 for r in rows for v in r.values()))  # about its CSV size
        frame = _frame(types, rows)
        # The table name comes from the schema whitelist; the rows are a parameter, never query text.
        opts = f" ({options})" if options else ""
        self._conn.execute(f"COPY {table} FROM $rows{opts}", {"rows": frame})

    def _copy_table(self, table: str, types: dict[str, str], rows: Any, options: str) -> int:  # a pyarrow.Table
        """COPY an Arrow table (the loader's Step tables) from a temporary Parquet file: every value exactly as
        it is, no Python per row. ``bulk_source="frame"`` sends the rows through a data frame instead."""
        n: int = rows.num_rows
        if not n:
            return 0
        if self.bulk_source == "frame":
            self._copy_frame(table, types, rows.to_pylist(), options)
        else:
            with tempfile.TemporaryDirectory(prefix="dishgraph-copy-") as tmp:
                path = Path(tmp) / f"{table}.parquet"
                write_table_parquet(path, types, rows)
                # What the checkpoint will write is closer to the rows' size in memory than to the compact
                # Parquet file (the CSV the reservation was measured with was about as large as the table).
                self._reserve(max(path.stat().st_size, rows.nbytes))
                opts = f" ({options})" if options else ""
                self._conn.execute(f"COPY {table} FROM '{_path_literal(path)}'{opts}")
        self._unsaved_copy = self._bulk_depth > 0
        return n

    def _copy_csv(self, table: str, write: Callable[[Path], bool], options: str) -> None:
        """COPY from a temp CSV file (the issue's reference bulk path).

        Strings are always quoted so "" stays an empty string (an unquoted empty cell is NULL, as for
        None); a quoted newline needs Ladybug's serial CSV reader, so PARALLEL=FALSE only then.
        """
        with tempfile.TemporaryDirectory(prefix="dishgraph-copy-") as tmp:
            path = Path(tmp) / f"{table}.csv"
            multiline = write(path)  # True when a value holds a line break
            self._reserve(path.stat().st_size)
            # The path is ours (mkdtemp under TMPDIR), never user input, but TMPDIR may hold a quote or a
            # backslash: escaped as a Cypher string literal. Table names come from the schema whitelist.
            literal = _path_literal(path)
            extra = (", PARALLEL=FALSE" if multiline else "") + (f", {options}" if options else "")
            self._conn.execute(f"COPY {table} FROM '{literal}' (HEADER=true, ESCAPE='\"'{extra})")

    def bulk_load_nodes(self, label: str, rows: BulkRows) -> int:
        node = schema.NODE_BY_LABEL[schema.check_label(label)]
        return self._copy(node.label, node.props, rows)

    def bulk_load_rels(self, rel: str, src: str, dst: str, rows: BulkRows) -> int:
        r, opts = _rel_copy(rel, src, dst)
        return self._copy(r.type, {"from": "STRING", "to": "STRING", **r.props}, rows, opts)

    def bulk_load_rels_from_query(
        self, rel: str, src: str, dst: str, name: str, *, probe: str, reserve_bytes: int = 0, **params: Any
    ) -> None:
        r, opts = _rel_copy(rel, src, dst)
        q = queries.get(name, self.backend)
        check_read_only(q.text)  # a named read query: the COPY below is the only write
        if self.read_only:
            raise DatabaseError(f"{self.path}: opened read-only; {rel} edges cannot be written")
        if not self.query(probe, **params):
            return  # an empty subquery: its COPY into a non-empty table segfaults the engine (0.22)
        self._reserve(reserve_bytes)
        copy_opts = f" ({opts})" if opts else ""
        self._conn.execute(f"COPY {r.type} FROM ({q.text}){copy_opts}", {k: param(v) for k, v in params.items()})
        self._unsaved_copy = self._bulk_depth > 0

    def __exit__(self, *exc: object) -> None:
        # An error the library raised on purpose says what happened (and came before or instead of a write);
        # anything else (Ctrl-C, a bug, an I/O error) may have stopped a write half-way: keep it marked.
        self._failed = exc[0] is not None and not (isinstance(exc[0], type) and issubclass(exc[0], DishgraphError))
        self.close()

    def close(self) -> None:
        if self._abandoned:  # a statement still runs on the connection: leave it to the process's exit
            self._conn = None  # type: ignore[assignment]
        if getattr(self, "_conn", None) is not None:
            self._conn.close()
            self._conn = None  # type: ignore[assignment]  # closed: a second close() finds nothing to do
            self._db.close()
            self._db = None  # type: ignore[assignment]
            if not self.read_only:
                checksum.on_close(self.path, finished=not self._failed, pending=bool(pending_files(self.path)))
        self._lock.release()
        outputs.forget_open_database(self.path)
        self._restore_memory()


class QueryTimeout(DatabaseError):
    """A statement ran past its timeout and the engine stopped it."""


class QueryMemoryExceeded(DatabaseError):
    """A statement needed more memory than the process's cap (`LadybugStore.limit_memory`)."""


class _Overran(Exception):
    """Internal: a statement ran past its timeout and did not stop when interrupted; abandoned."""


class QueryAbandoned(KeyboardInterrupt):
    """Ctrl-C: the statement did not stop when asked; the process should exit without closing the store."""


INTERRUPT_GRACE = 3.0  # seconds a statement gets to stop after Ctrl-C before it is abandoned


def _interruptible(
    run: Callable[[], Any], interrupt: Callable[[], None], abandon: Callable[[], None], timeout: float | None = None
) -> Any:
    """``run()`` in a worker thread while the main thread waits, so that a Ctrl-C is seen at once: it calls
    ``interrupt()`` (the engine stops at its next check) and re-raises KeyboardInterrupt; a statement that
    does not stop within `INTERRUPT_GRACE` seconds is abandoned (`QueryAbandoned`). The engine checks its
    own timeout only between steps (building ``range(1, 300000000)`` ran 30 s past a 3 s timeout), so past
    ``timeout`` plus the grace the main thread interrupts it too, and abandons it (`_Overran`) if that fails.
    Off the main thread signals never arrive, so ``run()`` is simply called."""
    import threading
    import time

    if threading.current_thread() is not threading.main_thread():
        return run()
    box: dict[str, Any] = {}
    # An Event, not Thread.join/is_alive: a Ctrl-C landing inside join() can leave is_alive() False while the
    # thread still runs (CPython 3.11), and the store was then closed under the running statement.
    done = threading.Event()
    cancelled = threading.Event()  # a Ctrl-C came before the statement began: it is not begun at all

    def work() -> None:
        try:
            if cancelled.is_set():
                raise KeyboardInterrupt
            box["result"] = run()
        except BaseException as e:  # noqa: BLE001 - handed to the main thread
            box["error"] = e
        finally:
            done.set()

    deadline = time.monotonic() + timeout + INTERRUPT_GRACE if timeout else None
    try:
        # Started inside the try: a Ctrl-C landing in start() (it waits for the new thread to run, which can
        # take seconds on a loaded machine) used to skip the interrupt, and the statement ran on unstopped
        # while the command exited and waited for it.
        threading.Thread(target=work, name="dishgraph-query", daemon=True).start()
        while not done.wait(0.1):
            if deadline is not None and time.monotonic() > deadline:
                if not _stopped(done, interrupt):
                    abandon()
                    raise _Overran()
    except KeyboardInterrupt:
        cancelled.set()
        if not _stopped(done, interrupt):
            abandon()
            raise QueryAbandoned() from None
        raise
    if "error" in box:
        raise box["error"]
    return box["result"]


def _stopped(done: Any, interrupt: Callable[[], None]) -> bool:
    """Interrupt until the statement's thread says it is ``done``, for at most `INTERRUPT_GRACE` seconds;
    whether it stopped. Asked again and again, not once: an interrupt that comes before the engine has begun
    the statement is lost (the engine clears it as the statement begins)."""
    import time

    ends = time.monotonic() + INTERRUPT_GRACE
    while True:
        interrupt()
        if done.wait(0.05):
            return True
        if time.monotonic() > ends:
            return False


def _vm_bytes() -> int:
    """This process's address space now (VmSize), in bytes."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def _mib(n: int) -> str:
    return f"{n / 2**20:,.0f} MiB"


DB_FILE = "db"  # the database file inside a directory given as --db (as in ~/.local/share/dishgraph/db)
MAGIC = b"LBUG"  # the first bytes of every LadybugDB database file


def database_file(path: str | os.PathLike[str]) -> Path:
    """The database file ``--db`` names: the path itself, or ``DIR/db`` when it is a directory (Ladybug
    keeps a database in one file with ``.wal`` / ``.shadow`` / ``.lock`` beside it, never in a directory)."""
    p = Path(path).expanduser().resolve()
    return p / DB_FILE if p.is_dir() else p


def check_database_file(path: Path) -> None:
    """A path that exists must be a LadybugDB file (an empty file is a new database): else a
    `DatabaseError` naming it, instead of the engine's "not a valid Lbug database file" without a path.
    Only a regular file is a database: ``--db /dev/null`` was accepted, made ``/dev/null.lock`` and failed
    later with "Table Dish does not exist"; a FIFO would hang the read below."""
    if not path.exists():
        return
    import stat

    if not stat.S_ISREG(path.stat().st_mode):
        raise DatabaseError(
            f"{path}: not a regular file (a device, FIFO or socket); --db names a database file, or a directory "
            f"to hold one (DIR/{DB_FILE})"
        )
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(MAGIC))
    except OSError as e:
        raise DatabaseError(f"{path}: cannot read the database ({e.strerror or e})") from None
    if head and head != MAGIC:
        raise DatabaseError(
            f"{path}: not a LadybugDB database file; --db names a database file, or a directory to hold one "
            f"(DIR/{DB_FILE})"
        )


# What an interrupted checkpoint leaves beside the database file (seen after a kill and after a full disk).
PENDING_SUFFIXES = (".shadow", ".wal", ".wal.checkpoint", ".checkpoint.apply.lock", ".checkpoint.intent.lock")


def pending_files(path: Path) -> list[str]:
    """Names of the files beside ``path`` that a finished checkpoint would have removed."""
    return [path.name + sfx for sfx in PENDING_SUFFIXES if path.with_name(path.name + sfx).exists()]


def recover(path: str | os.PathLike[str], *, _locked: bool = False) -> str:
    """Finish an interrupted checkpoint (``<db>.shadow`` / ``<db>.wal`` left by a kill or a full disk) with
    one read-write open; what `dishgraph db recover` runs. Says "recovered" only after checking that the
    leftovers are gone and the database opens read-only and answers a query; else a `DatabaseError` that
    says what remains. Returns what was done, in words."""
    path = database_file(path)
    if not path.exists():
        raise DatabaseError(f"{path}: no database here")
    check_database_file(path)
    pending = pending_files(path)
    lock = None
    if not _locked:
        lock = ProcessLock(path.with_name(path.name + ".lock"), shared=False)
        lock.acquire(None)
    try:
        try:
            dmg = walscan.damage(path.with_name(path.name + ".wal"))
            if dmg is not None:  # never handed to the engine: a damaged length made it allocate without end
                raise RuntimeError(f"the WAL is damaged at byte {dmg[0]:,} of {dmg[2]:,}")
            ladybug.Database(str(path), read_only=False).close()
        except (RuntimeError, ValueError, MemoryError) as e:  # ValueError, MemoryError: a record it rejects
            torn = _recover_torn_wal(path, " ".join(str(e).split()))
            if torn is not None:
                checksum.on_close(path, finished=False, pending=False)  # the file at rest again: recorded
                return torn
            raise DatabaseError(
                f"{path}: recovery failed ({' '.join(str(e).split())}); {_remains(path)}; is the disk full or "
                f"the directory read-only? fix that and run `dishgraph db recover --db {path}` again"
            ) from None
        _verify(path)
        if pending or (checksum.read(path) or {}).get("writing"):
            checksum.on_close(path, finished=False, pending=False)  # replayed: the file at rest, recorded
    finally:
        if lock is not None:
            lock.release()
    return f"recovered {path} (replayed {', '.join(pending)})" if pending else f"{path}: nothing to recover"


def _recover_torn_wal(path: Path, error: str) -> str | None:
    """A WAL the engine cannot replay (torn by a full disk, damaged, or overwritten): set it aside, kept,
    beside the database as ``db.wal.torn-TIME``, replay its valid prefix up to its last COMMIT (every
    transaction committed before the first record whose checksum fails: `graph.walscan`), else open the
    database at its last checkpoint. Kept aside only if the database then opens and answers a read; else it is
    put back and None returned (the caller reports the original error). A prefix needs room to be written:
    while the disk is too full for that, only a WAL with nothing committed (a write a full disk cut short:
    the database's last checkpoint is all it committed) is recovered."""
    wal = path.with_name(path.name + ".wal")
    if not wal.is_file() or path.with_name(path.name + ".shadow").exists():
        return None
    import time

    size = wal.stat().st_size
    saved = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(path.stat().st_mtime))  # before the open touches it
    data = wal.read_bytes() if size <= walscan.MAX_SCAN else b""
    keep, entries, committed = walscan.scan(data) if data else (0, 0, 0)
    nothing_committed = entries > 0 and committed == 0
    if not nothing_committed and diskspace.FREE_SPACE(path.parent) < diskspace.MARGIN + committed:
        return None  # a full disk, and committed writes to replay: free space first
    aside = wal.with_name(f"{wal.name}.torn-{time.strftime('%Y%m%d-%H%M%S')}")
    os.rename(wal, aside)
    if committed:
        try:
            with open(wal, "xb") as fh:
                fh.write(data[:committed])
                fh.flush()
                os.fsync(fh.fileno())
            ladybug.Database(str(path), read_only=False).close()
            _verify(path)
            return (
                f"recovered {path}: its WAL could not be replayed whole ({error}); every transaction it committed "
                f"before the first damaged record (the first {committed:,} of {size:,} bytes) was replayed and "
                f"is kept; the WAL is set aside as {aside.name} (kept). Lost: what was logged after that, i.e. "
                f"what the interrupted command was writing: run it again"
            )
        except (RuntimeError, ValueError, DatabaseError, OSError):
            wal.unlink(missing_ok=True)  # the prefix did not replay either: back to the last checkpoint
    try:
        if not nothing_committed:  # a read-write open checkpoints; with nothing committed there is nothing to
            ladybug.Database(str(path), read_only=False).close()  # write, and a full disk has no room for it
        _verify(path)
    except (RuntimeError, ValueError, DatabaseError):
        shadow = path.with_name(path.name + ".shadow")
        if shadow.is_file() and shadow.stat().st_size == 0:
            shadow.unlink()  # an empty shadow a failed open left (no room to write it): holds nothing
        if not wal.exists():
            os.rename(aside, wal)
        return None
    if nothing_committed:
        return (
            f"recovered {path}: its WAL held no committed transaction, only a write cut short ({error}); the "
            f"database is as that write found it (its last checkpoint, {saved}). The WAL is set aside as "
            f"{aside.name} ({size:,} bytes, nothing in it was committed: delete it to free the space)"
        )
    return (
        f"recovered {path}: its WAL could not be replayed ({error}); it is set aside as {aside.name} (kept) and "
        f"the database is back at its last checkpoint ({saved}). Lost: the writes logged after that checkpoint "
        f"({size:,} bytes of WAL), i.e. what the interrupted command was writing: run it again"
    )


def _remains(path: Path) -> str:
    left = pending_files(path)
    return f"still there: {', '.join(left)}" if left else "no checkpoint files left"


def _verify(path: Path) -> None:
    """After a recovery: no checkpoint file left, and a read-only open answers a query."""
    left = pending_files(path)
    try:
        db = ladybug.Database(str(path), read_only=True)
        try:
            ladybug.Connection(db).execute("MATCH (n) RETURN count(n) AS n LIMIT 1")
        finally:
            db.close()
        reads = ""
    except RuntimeError as e:
        reads = f"; a read-only open fails ({' '.join(str(e).split())})"
    if left or reads:
        raise DatabaseError(
            f"{path}: not recovered: {_remains(path)}{reads}; is the disk full? free space and run "
            f"`dishgraph db recover --db {path}` again"
        )


def _rel_copy(rel: str, src: str, dst: str) -> tuple[schema.RelType, str]:
    """The relationship type (whitelisted) and the COPY options naming its ends when it has several."""
    r = schema.REL_BY_TYPE[schema.check_rel(rel)]
    if (src, dst) not in r.ends:
        raise ValueError(f"{rel} does not connect {src} to {dst}")
    return r, (f"from='{src}', to='{dst}'" if len(r.ends) > 1 else "")  # labels checked above


def _path_literal(path: Path) -> str:
    """A temp file path as the body of a Cypher string literal: the path is ours (mkdtemp under TMPDIR), never
    user input, but TMPDIR may hold a quote or a backslash."""
    return str(path).replace("\\", "\\\\").replace("'", "\\'")


def _write_csv(path: Path, header: list[str], rows: Sequence[dict[str, Any]]) -> bool:
    """Write the COPY file; returns whether a value holds a line break. A full TMPDIR names the file (the
    OSError of a failed write carries no file name of its own)."""
    multiline = False
    try:
        with open(path, "w", newline="", encoding="utf-8") as fh:
            fh.write(",".join(header) + "\n")
            for r in rows:
                line = ",".join([_csv_cell(r.get(h)) for h in header])
                multiline = multiline or "\n" in line or "\r" in line
                fh.write(line + "\n")
    except OSError as e:
        if e.filename is not None:
            raise
        raise temp_file_error(e, path) from e
    return multiline


def _schema_tables() -> list[tuple[str, dict[str, str]]]:
    """(table, declared properties) of every node and relationship table of the schema."""
    return [(n.label, n.props) for n in schema.NODES] + [(r.type, r.props) for r in schema.RELS]


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _csv_cell(v: Any) -> str:
    if type(v) is str:  # most cells: checked first (bulk loads write millions of them)
        return '"' + v.replace('"', '""') + '"'
    if v is None:
        return ""
    if type(v) is list:  # Step forms, ProtoAction classes: items passed _csv_list_safe, so hold no quote
        return '"[' + ",".join(map(str, v)) + ']"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, (list, tuple, set, frozenset)):
        # Ladybug list literal in CSV: [a,b]. A list keeps its order (surface forms as written), a set is
        # sorted; items that would not survive the literal never get here (``_csv_list_safe``).
        items = sorted(v) if isinstance(v, (set, frozenset)) else v
        return _quote("[" + ",".join(str(x) for x in items) + "]")
    return _quote(str(v))


# Items a CSV list literal cannot carry as written: separators, brackets, quotes, escapes, line ends, edge
# whitespace (trimmed), the empty string and NULL (read as null).
_CSV_LIST_UNSAFE = re.compile(r"""[,\[\]{}'"\\\r\n]|^\s|\s$|^$|^null$""", re.IGNORECASE)


def _csv_list_safe(v: Any) -> bool:
    """Whether a list value survives the CSV list literal exactly (non-lists always do)."""
    if not isinstance(v, (list, tuple, set, frozenset)):
        return True
    return not any(_CSV_LIST_UNSAFE.search(str(x)) for x in v)


_WRITE_CLAUSE = re.compile(r"\b(CREATE|MERGE|SET|DELETE|REMOVE|DROP|ALTER)\b", re.IGNORECASE)


_COPY_FROM = re.compile(r"\bCOPY\s+`?\w+`?\s+FROM\s+(['\"])(.+?)\1", re.IGNORECASE)


def _copy_source_bytes(cypher: str) -> int:
    """Bytes of the files a ``COPY … FROM 'file'`` statement names (0: none, or none on disk). The engine
    segfaults on a full disk inside a COPY's checkpoint; this is what a typed COPY is checked against."""
    total = 0
    for m in _COPY_FROM.finditer(cypher):
        try:
            total += Path(m.group(2)).expanduser().stat().st_size
        except (OSError, ValueError):
            continue
    return total


@lru_cache(maxsize=1024)
def _is_write(cypher: str) -> bool:
    """Whether a statement may write (a false positive only costs an early checkpoint)."""
    return bool(_WRITE_CLAUSE.search(cypher))


def _frame(types: dict[str, str], rows: Sequence[dict[str, Any]]) -> Any:  # a pandas.DataFrame
    """A data frame with one column per schema property, in the dtypes Ladybug's scanner reads exactly.

    Object columns carry NULLs as None (pandas' nullable dtypes are not scannable); INT64 with a NULL stays
    object (exact, unlike float64); DOUBLE is float64 with NaN for NULL (an object column of Python ints
    would be misread); lists keep their order and sets are sorted, as in the CSV path.
    """
    import numpy as np
    import pandas as pd

    cols: dict[str, Any] = {}
    for name, typ in types.items():
        vals = [r.get(name) for r in rows]
        if typ == "DOUBLE":
            col = np.array([np.nan if v is None else float(v) for v in vals], dtype=np.float64)
        elif typ == "INT64":
            has_null = any(v is None for v in vals)
            col = np.array([None if v is None else int(v) for v in vals], dtype=object if has_null else np.int64)
        elif typ == "BOOLEAN":
            col = np.array([None if v is None else bool(v) for v in vals], dtype=object)
        elif typ.endswith("[]"):
            col = np.empty(len(vals), dtype=object)
            col[:] = [
                None if v is None else [str(x) for x in (sorted(v) if isinstance(v, (set, frozenset)) else v)]
                for v in vals
            ]
        else:
            col = np.array([v if v is None or type(v) is str else str(v) for v in vals], dtype=object)
        cols[name] = col
    return pd.DataFrame(cols, copy=False)
