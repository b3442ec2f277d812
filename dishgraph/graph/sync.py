"""Copy a whole dishgraph graph from one store into another (embedded LadybugDB -> Neo4j, or any pair).

Every label and relationship type of the schema whitelist is read page by page from the source and
written to the target with ``UNWIND $rows AS r MERGE …`` on the stable key of each label (and on the
identifying properties of relationships that can run in parallel, e.g. PIVOT {kind, source}), so a sync
is idempotent: running it twice leaves the same counts. Labels cannot be query parameters, so each
label / relationship end pair has its own named query ``sync_*.cypher``; those files are generated from
the schema by ``python -m dishgraph.graph.sync --write-queries`` and checked in (a test compares them).
"""
from __future__ import annotations

import argparse
import json
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from dishgraph.graph import queries, schema
from dishgraph.graph.store import GraphStore, batched


SERVER_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def sync_target(to: str) -> tuple[str, str | Path]:
    """``("uri", to)`` for a valid Bolt/Neo4j URI, ``("dir", path)`` for an explicit directory; anything else
    (empty, ``bolt:/host`` with one slash, an unknown scheme) is a `UsageError`: a sync never writes
    where nobody asked (an empty --to used to fall back to the default database)."""
    from urllib.parse import urlsplit

    from dishgraph.errors import UsageError

    if to is None or not str(to).strip():
        raise UsageError("--to is empty; give a bolt:// or neo4j:// URI or a database directory")
    to = str(to).strip()
    if _SCHEME.match(to) and not re.match(r"^[A-Za-z]:[\\/]", to):  # a scheme (not a Windows drive)
        parts = urlsplit(to)
        if parts.scheme.lower() not in SERVER_SCHEMES or not to.lower().startswith(parts.scheme.lower() + "://"):
            raise UsageError(f"--to {to!r} is not a valid URI; expected {'|'.join(SERVER_SCHEMES[::3])}://host[:port] "
                             "(or a directory path, e.g. ./graph-copy)")
        if not parts.hostname:
            raise UsageError(f"--to {to!r} names no host; expected bolt://host[:port]")
        try:
            parts.port
        except ValueError:
            raise UsageError(f"--to {to!r}: the port is not a number in 0-65535") from None
        return "uri", to
    return "dir", Path(to).expanduser()

DEFAULT_BATCH = 5000
# Properties that, with the two endpoints, identify one relationship (parallel edges differ in them).
REL_IDENTITY: dict[str, tuple[str, ...]] = {
    "PIVOT": ("kind", "source"),
    "MUST_PRECEDE": ("dish", "source", "window"),
    "HAS_COMPONENT": ("pos",),
    "COMPOSED_FROM": ("role", "atom"),  # one edge per role and component of the target name
}
# Identity properties that may be null (reference constraints of the CRG release carry no window).
# MERGE cannot match null, so these relationship types get a null-safe upsert instead of a MERGE.
NULLABLE_IDENTITY: dict[str, tuple[str, ...]] = {"MUST_PRECEDE": ("window",)}

# Example rows for the `// example:` headers use a key no real graph holds, so running an example write on a
# test graph adds one marked node per label and never alters real nodes (relationship examples match nothing).
_EXAMPLE_KEY = "sync-example"
_EXAMPLE_VALUES = {"STRING": "x", "INT64": 1, "DOUBLE": 0.5, "BOOLEAN": True, "STRING[]": ["x"]}


# ------------------------------------------------------------------------------------------ query names

def _end_suffix(rel: schema.RelType, src: str, dst: str) -> str:
    return f"_{src}_{dst}" if len(rel.ends) > 1 else ""


def node_read_name(label: str) -> str:
    return f"sync_read_node_{schema.check_label(label)}"


def node_write_name(label: str) -> str:
    return f"sync_node_{schema.check_label(label)}"


def rel_read_name(rel: str, src: str, dst: str) -> str:
    return f"sync_read_rel_{schema.check_rel(rel)}{_end_suffix(schema.REL_BY_TYPE[rel], src, dst)}"


def rel_write_name(rel: str, src: str, dst: str) -> str:
    return f"sync_rel_{schema.check_rel(rel)}{_end_suffix(schema.REL_BY_TYPE[rel], src, dst)}"


def query_names() -> list[str]:
    """Every sync query the schema needs (one read + one write per label and per relationship end pair)."""
    out = []
    for n in schema.NODES:
        out += [node_read_name(n.label), node_write_name(n.label)]
    for r in schema.RELS:
        for a, b in r.ends:
            out += [rel_read_name(r.type, a, b), rel_write_name(r.type, a, b)]
    return out


# ------------------------------------------------------------------------------------- query generation

_RESERVED = {"start", "end", "order", "from", "to", "limit", "match", "return", "where", "set", "case"}


def _q(prop: str) -> str:
    """A property name as it may appear in Cypher: backticked where it is (or may become) a keyword."""
    return f"`{prop}`" if prop in _RESERVED else prop

def _header(example: dict, lines: list[str], params: str) -> str:
    text = json.dumps(example, ensure_ascii=False).replace("\uffff", "\\uffff")
    return "\n".join([f"// example: {text}", *(f"// {ln}" for ln in lines),
                      f"// params: {params}", ""])


def _node_read(n: schema.NodeType) -> str:
    cols = ", ".join(f"n.{_q(p)} AS {_q(p)}" for p in n.props)
    head = _header({"first": True, "after": "", "limit": 5},
                   [f"Sync (generated by dishgraph.graph.sync): one page of {n.label} nodes after key $after,",
                    "in key order, with every schema property ($first: no lower bound)."], "$first, $after, $limit")
    return (f"{head}MATCH (n:{n.label})\nWHERE $first OR n.{n.key} > $after\n"
            f"RETURN {cols}\nORDER BY {n.key}\nLIMIT $limit\n")


def _value(prop: str, typ: str, ladybug: bool) -> str:
    """``r.prop``; on Ladybug cast to the column type, because a batch whose column is all null binds as STRING."""
    return f"CAST(r.{_q(prop)} AS {typ})" if ladybug and typ != "STRING" else f"r.{_q(prop)}"


def _needs_cast(props: dict[str, str]) -> bool:
    return any(t != "STRING" for t in props.values())


def _node_write(n: schema.NodeType, ladybug: bool = False) -> str:
    example_row = {p: _EXAMPLE_KEY if p == n.key else _EXAMPLE_VALUES[t]
                   for p, t in n.props.items()}
    head = _header({"rows": [example_row]},
                   [f"Sync (generated by dishgraph.graph.sync): upsert {n.label} nodes on their key `{n.key}`",
                    "and set every other schema property."
                    + (" Ladybug variant: values cast to their column type." if ladybug else "")],
                   "$rows [{" + ", ".join(n.props) + "}]")
    sets = [f"n.{_q(p)} = {_value(p, t, ladybug)}" for p, t in n.props.items() if p != n.key]
    body = f"UNWIND $rows AS r\nMERGE (n:{n.label} {{{n.key}: r.{n.key}}})\n"
    if sets:
        body += "SET " + ", ".join(sets) + "\n"
    return head + body


def _rel_read(r: schema.RelType, src: str, dst: str) -> str:
    a, b = schema.NODE_BY_LABEL[src], schema.NODE_BY_LABEL[dst]
    cols = "".join(f", e.{_q(p)} AS {_q(p)}" for p in r.props)
    head = _header({"first": True, "after": "", "upto": "\uffff"},
                   [f"Sync (generated by dishgraph.graph.sync): the {r.type} relationships from {src} to {dst}",
                    f"whose {src} key lies in ($after, $upto] (one page of source nodes; $first: no lower bound)."],
                   "$first, $after, $upto")
    return (f"{head}MATCH (a:{src})-[e:{r.type}]->(b:{dst})\nWHERE ($first OR a.{a.key} > $after) AND a.{a.key} <= $upto\n"
            f"RETURN a.{a.key} AS src, b.{b.key} AS dst{cols}\n")


def _rel_write(r: schema.RelType, src: str, dst: str, ladybug: bool = False) -> str:
    a, b = schema.NODE_BY_LABEL[src], schema.NODE_BY_LABEL[dst]
    ident = REL_IDENTITY.get(r.type, ())
    nullable = NULLABLE_IDENTITY.get(r.type, ())
    example_row = {"src": _EXAMPLE_KEY, "dst": _EXAMPLE_KEY,
                   **{p: _EXAMPLE_VALUES[t] for p, t in r.props.items()}}
    params = "$rows [{" + ", ".join(["src", "dst", *r.props]) + "}]"
    variant = ["Ladybug variant: values cast to their column type."] if ladybug else []
    val = {p: _value(p, t, ladybug) for p, t in r.props.items()}
    match = f"UNWIND $rows AS r\nMATCH (a:{src} {{{a.key}: r.src}})\nMATCH (b:{dst} {{{b.key}: r.dst}})\n"
    rest = [p for p in r.props if p not in ident]
    if nullable:
        lines = [f"Sync (generated by dishgraph.graph.sync): upsert {r.type} from {src} to {dst}, one edge per",
                 f"({', '.join(ident)}); {', '.join(nullable)} may be null, which MERGE cannot match, so the",
                 "edge is found null-safely, updated, and created only where none was found.", *variant]
        conds = [f"(old.{_q(p)} = r.{_q(p)} OR (old.{_q(p)} IS NULL AND r.{_q(p)} IS NULL))" if p in nullable
                 else f"old.{_q(p)} = r.{_q(p)}" for p in ident]
        upd = ", ".join(f"old.{_q(p)} = {val[p]}" for p in rest)
        new = ", ".join(f"e.{_q(p)} = {val[p]}" for p in r.props)
        body = (f"{match}OPTIONAL MATCH (a)-[old:{r.type}]->(b)\nWHERE " + "\n  AND ".join(conds) + "\n"
                f"WITH a, b, r, old\n" + (f"SET {upd}\n" if upd else "") +
                f"WITH a, b, r, count(old) AS found\nWHERE found = 0\n"
                f"CREATE (a)-[e:{r.type}]->(b)\nSET {new}\n")
        return _header({"rows": [example_row]}, lines, params) + body
    key = " {" + ", ".join(f"{_q(p)}: {val[p]}" for p in ident) + "}" if ident else ""
    lines = [f"Sync (generated by dishgraph.graph.sync): upsert {r.type} from {src} to {dst}"
             + (f", one edge per ({', '.join(ident)})." if ident else ", one edge per node pair."), *variant]
    body = f"{match}MERGE (a)-[e:{r.type}{key}]->(b)\n"
    if rest:
        body += "SET " + ", ".join(f"e.{_q(p)} = {val[p]}" for p in rest) + "\n"
    return _header({"rows": [example_row]}, lines, params) + body


def render_queries() -> dict[str, str]:
    """File name -> text of every generated sync query (a write with typed columns gets two engine variants)."""
    out = {}

    def put(name: str, typed: bool, make) -> None:
        if typed:
            out[name + ".neo4j.cypher"] = make(False)
            out[name + ".ladybug.cypher"] = make(True)
        else:
            out[name + ".cypher"] = make(False)

    for n in schema.NODES:
        out[node_read_name(n.label) + ".cypher"] = _node_read(n)
        put(node_write_name(n.label), _needs_cast(n.props), lambda lb, n=n: _node_write(n, lb))
    for r in schema.RELS:
        for a, b in r.ends:
            out[rel_read_name(r.type, a, b) + ".cypher"] = _rel_read(r, a, b)
            put(rel_write_name(r.type, a, b), _needs_cast(r.props), lambda lb, r=r, a=a, b=b: _rel_write(r, a, b, lb))
    return out


def write_queries(directory: Path = queries.CYPHER_DIR) -> list[Path]:
    """(Re)write the generated sync_*.cypher files, removing stale ones; returns the paths written."""
    rendered = render_queries()
    for old in Path(directory).glob("sync_*.cypher"):
        if old.name not in rendered:
            old.unlink()
    paths = []
    for name, text in rendered.items():
        p = Path(directory) / name
        p.write_text(text, encoding="utf-8")
        paths.append(p)
    return paths


# ------------------------------------------------------------------------------------------------ sync
@dataclass
class SyncItem:
    kind: str          # node | rel
    name: str          # label, or TYPE (Src->Dst)
    source: int = 0    # rows read from the source
    written: int = 0   # rows sent to the target (MERGE: re-sending an existing one changes nothing)


@dataclass
class SyncReport:
    items: list[SyncItem] = field(default_factory=list)
    source_counts: dict = field(default_factory=dict)
    target_counts: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def mismatches(self) -> dict[str, tuple[int, int]]:
        """Label / type -> (source count, target count) where they differ after the sync."""
        out = {}
        for part in ("nodes", "relationships"):
            for k, v in self.source_counts.get(part, {}).items():
                t = self.target_counts.get(part, {}).get(k)
                if t != v:
                    out[k] = (v, t)
        return out

    def to_dict(self) -> dict:
        return {"items": [asdict(i) for i in self.items], "source_counts": self.source_counts,
                "target_counts": self.target_counts, "mismatches": self.mismatches, "seconds": self.seconds}


Progress = Callable[[str, int, int], None]  # (item name, rows done, rows total)


def _node_pages(store: GraphStore, label: str, page: int) -> Iterator[list[dict]]:
    """Keyset pagination in key order (``$first`` lets the first page include an empty-string key)."""
    key = schema.NODE_BY_LABEL[label].key
    after, first = "", True
    while True:
        rows = store.query(node_read_name(label), first=first, after=after, limit=page)
        if not rows:
            return
        yield rows
        after, first = rows[-1][key], False
        if len(rows) < page:
            return


def sync_stores(source: GraphStore, target: GraphStore, batch: int = DEFAULT_BATCH,
                progress: Progress | None = None) -> SyncReport:
    """Copy every node and relationship of the schema from source to target; idempotent (MERGE on keys).

    Nodes go first (so relationship endpoints exist), label by label in key order; relationships are read
    per page of their source label's keys and written in batches of ``batch`` rows.
    """
    t0 = time.perf_counter()
    rep = SyncReport(source_counts=source.counts())
    target.init_schema()
    pages: dict[str, list[tuple[str, bool, str]]] = {}  # label -> (after, first, upto] key ranges of its pages
    for n in schema.NODES:
        total = rep.source_counts["nodes"][n.label]
        item = SyncItem("node", n.label, source=0)
        ranges = []
        for rows in _node_pages(source, n.label, batch):
            ranges.append((ranges[-1][2] if ranges else "", not ranges, rows[-1][n.key]))
            item.source += len(rows)
            item.written += target.write(node_write_name(n.label), rows, batch_size=batch)
            if progress:
                progress(n.label, item.source, total)
        pages[n.label] = ranges
        if progress and not ranges:
            progress(n.label, 0, total)
        rep.items.append(item)
    for r in schema.RELS:
        for src, dst in r.ends:
            total = rep.source_counts["relationships"][r.type]
            item = SyncItem("rel", f"{r.type} ({src}->{dst})")
            for after, first, upto in pages[src]:
                rows = source.query(rel_read_name(r.type, src, dst), first=first, after=after, upto=upto)
                _check_identity(r.type, rows)
                item.source += len(rows)
                for chunk in batched(rows, batch):
                    item.written += target.write(rel_write_name(r.type, src, dst), chunk, batch_size=batch)
                if progress:
                    progress(item.name, item.source, total)
            if progress and not pages[src]:
                progress(item.name, 0, total)
            rep.items.append(item)
    rep.target_counts = target.counts()
    rep.seconds = time.perf_counter() - t0
    return rep


def _check_identity(rel: str, rows: list[dict]) -> None:
    strict = [p for p in REL_IDENTITY.get(rel, ()) if p not in NULLABLE_IDENTITY.get(rel, ())]
    for row in rows:
        for p in strict:
            if row.get(p) is None:
                raise ValueError(f"{rel} {row['src']} -> {row['dst']} has no {p!r}, which identifies the edge")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Generate the sync_*.cypher named queries from the schema.")
    ap.add_argument("--write-queries", action="store_true", help="(re)write dishgraph/cypher/sync_*.cypher")
    args = ap.parse_args(argv)
    if args.write_queries:
        for p in write_queries():
            print(p)
    else:
        print("\n".join(sorted(render_queries())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
