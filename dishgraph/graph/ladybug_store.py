"""Embedded LadybugDB backend: an on-disk directory, in-process, ACID with a WAL."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Sequence

import ladybug

from dishgraph.graph import schema
from dishgraph.graph.lock import ProcessLock
from dishgraph.graph.store import GraphStore, plain


class LadybugStore(GraphStore):
    backend = "ladybug"

    def __init__(self, path: str | os.PathLike, read_only: bool = False):
        self.path = Path(path).expanduser().resolve()
        self.read_only = read_only
        self.path.parent.mkdir(parents=True, exist_ok=True)  # Ladybug needs the parent to exist
        self._lock = ProcessLock(self.path.with_name(self.path.name + ".lock"), shared=read_only)
        self._lock.acquire()
        try:
            self._db = ladybug.Database(str(self.path), read_only=read_only)
            self._conn = ladybug.Connection(self._db)
            if not read_only:
                self.init_schema()
        except Exception:
            self._lock.release()
            raise

    def execute(self, cypher: str, params: dict | None = None) -> list[dict]:
        result = self._conn.execute(cypher, params or {})
        results = result if isinstance(result, list) else [result]
        rows: list[dict] = []
        for res in results:  # a multi-statement text returns one result per statement
            cols = res.get_column_names()
            rows = []
            while res.has_next():
                rows.append({c: plain(v) for c, v in zip(cols, res.get_next())})
        return rows

    def init_schema(self) -> None:
        for stmt in schema.ladybug_ddl():
            self._conn.execute(stmt)

    def location(self) -> str:
        return str(self.path)

    def version(self) -> str:
        return f"LadybugDB {ladybug.__version__}"

    # --- bulk path: COPY from CSV files written to a temp dir ------------------------------------
    def _copy(self, table: str, header: list[str], rows: Sequence[dict], options: str = "") -> int:
        """COPY rows into a table in one transaction (atomic: a kill leaves all of them or none).

        Strings are always quoted so "" stays an empty string (an unquoted empty cell is NULL, as for
        None); a quoted newline needs Ladybug's serial CSV reader, so PARALLEL=FALSE only then.
        """
        if not rows:
            return 0
        multiline = False
        with tempfile.TemporaryDirectory(prefix="dishgraph-copy-") as tmp:
            path = Path(tmp) / f"{table}.csv"
            with open(path, "w", newline="", encoding="utf-8") as fh:
                fh.write(",".join(header) + "\n")
                for r in rows:
                    line = ",".join([_csv_cell(r.get(h)) for h in header])
                    multiline = multiline or "\n" in line or "\r" in line
                    fh.write(line + "\n")
            # The path is ours (mkdtemp), never user input; table names come from the schema whitelist.
            assert "'" not in str(path)
            parallel = ", PARALLEL=FALSE" if multiline else ""
            self._conn.execute(f"COPY {table} FROM '{path}' (HEADER=true, ESCAPE='\"'{parallel}{options})")
        return len(rows)

    def bulk_load_nodes(self, label: str, rows: Sequence[dict]) -> int:
        node = schema.NODE_BY_LABEL[schema.check_label(label)]
        return self._copy(node.label, list(node.props), rows)

    def bulk_load_rels(self, rel: str, src: str, dst: str, rows: Sequence[dict]) -> int:
        r = schema.REL_BY_TYPE[schema.check_rel(rel)]
        if (src, dst) not in r.ends:
            raise ValueError(f"{rel} does not connect {src} to {dst}")
        opts = f", from='{src}', to='{dst}'" if len(r.ends) > 1 else ""
        return self._copy(r.type, ["from", "to", *r.props], rows, opts)

    def close(self) -> None:
        if getattr(self, "_conn", None) is not None:
            self._conn.close()
            self._conn = None
            self._db.close()
            self._db = None
        self._lock.release()


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _csv_cell(v) -> str:
    if type(v) is str:  # most cells: checked first (bulk loads write millions of them)
        return '"' + v.replace('"', '""') + '"'
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, (list, tuple, set, frozenset)):
        # Ladybug list literal in CSV: [a,b]; our list items are class names without commas/brackets.
        return _quote("[" + ",".join(str(x) for x in sorted(v)) + "]")
    return _quote(str(v))
