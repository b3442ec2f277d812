"""`dishgraph export`: neo4j-admin import CSVs and plain tables, proved without a Neo4j server.

1. The headers and value encodings are read back by an independent parser of neo4j-admin's documented CSV
   format (header grammar ``<name>:<type>``, ``:ID(space)``, ``:START_ID(space)``, ``:END_ID(space)``, ``:LABEL``,
   ``:TYPE``; RFC 4180 quotes with ``""`` for a quote; an unquoted empty field is no property, a quoted one
   an empty string; arrays split on the array delimiter; ``true`` is the only true boolean), with hostile
   values for every property type of the schema.
2. A round trip: the exported files of the real release (plus parsed recipes, mined pivots and order
   constraints) and of a XiaChuFang sample, parsed with that reader and COPYed into a fresh embedded
   database, give the same counts per label and type and the same answers to named queries.
"""

from __future__ import annotations

import gzip
import itertools
import json
import math
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dishgraph.csvcells import restore
from dishgraph.graph import export_neo4j, export_tables, schema, sync
from dishgraph.graph.export_scan import table_specs
from dishgraph.graph.ladybug_store import LadybugStore

DISHES = ("焖牛腩", "烧牛腩")
PER_DISH = 12
XCF_RECIPES = 1500

# ------------------------------------------------------------------ neo4j-admin's format, read independently
_TYPES = (
    "int",
    "long",
    "float",
    "double",
    "boolean",
    "byte",
    "short",
    "char",
    "string",
    "point",
    "date",
    "localtime",
    "time",
    "localdatetime",
    "datetime",
    "duration",
)
_FIELD = re.compile(
    r"^(?P<name>[^:]*)(?::(?:(?P<kind>ID|START_ID|END_ID|LABEL|TYPE|IGNORE)"
    r"(?:\((?P<space>[^()]*)\))?|(?P<type>" + "|".join(_TYPES) + r")(?P<array>\[\])?))?$"
)


def parse_header(line: str) -> list[dict]:
    """neo4j-admin's header grammar: each field ``<name>:<field_type>``; a missing type means string."""
    fields = []
    for raw in line.split(","):
        m = _FIELD.match(raw)
        assert m, f"not a neo4j-admin header field: {raw!r}"
        d = m.groupdict()
        if d["kind"] is None and d["type"] is None:
            d["type"] = "string"
        if d["kind"] in ("ID", "START_ID", "END_ID"):
            assert d["space"], f"{raw!r}: every id must name its ID space"
        if d["kind"] in ("START_ID", "END_ID", "LABEL", "TYPE"):
            assert d["name"] == "", f"{raw!r}: this field takes no name"
        fields.append(d)
    return fields


_CELL = re.compile(r'"((?:[^"]|"")*)"|([^,"\r\n]*)')


def read_cells(text: str):
    """RFC 4180 rows as lists of (value, quoted); a quoted field may hold commas, quotes and line breaks."""
    pos, row = 0, []
    while pos < len(text):
        m = _CELL.match(text, pos)
        quoted = m.group(1) is not None
        row.append((m.group(1).replace('""', '"') if quoted else m.group(2), quoted))
        pos = m.end()
        if pos >= len(text) or text[pos] == "\n":
            yield row
            row, pos = [], pos + 1
        elif text.startswith("\r\n", pos):
            yield row
            row, pos = [], pos + 2
        else:
            assert text[pos] == ",", f"garbage after a field at offset {pos}: {text[pos : pos + 20]!r}"
            pos += 1


def _value(cell: tuple[str, bool], typ: str, array: bool, delimiter: str):
    text, quoted = cell
    if text == "" and not quoted:
        return None  # no property
    if array:
        return [_value((t, True), typ, False, delimiter) for t in text.split(delimiter)]
    if typ in ("long", "int"):
        return int(text)
    if typ in ("double", "float"):
        return float({"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}.get(text, text))
    if typ == "boolean":
        return text == "true"
    return text


def read_import_file(path: Path, delimiter: str = ";") -> tuple[list[dict], list[dict]]:
    """(parsed header, rows as {field: value}); ids under their kind (ID / START_ID / END_ID)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as fh:
        text = fh.read()
    head, _, body = text.partition("\n")
    fields = parse_header(head)
    rows = []
    for cells in read_cells(body):
        assert len(cells) == len(fields), f"{path.name}: {len(cells)} fields for {len(fields)} header fields"
        row = {}
        for f, cell in zip(fields, cells):
            key = f["name"] if f["kind"] in (None, "ID") and f["name"] else ":" + f["kind"]
            typ = "string" if f["kind"] else f["type"]
            row[key] = _value(cell, typ, bool(f["array"]) and not f["kind"], delimiter)
        rows.append(row)
    return fields, rows


def load_export(directory: Path, target: LadybugStore, delimiter: str = ";") -> None:
    """COPY every exported file into target (what neo4j-admin does, with Ladybug's COPY), then the fix-ups.

    As neo4j-admin does, relationship ends are resolved through the ids of their ID space (one per label),
    and a relationship whose end id is missing from that space fails the load."""
    manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    specs = {s.name: s for s in table_specs()}
    spaces: dict[str, dict[str, str]] = {}  # ID space -> import id -> node key
    for f in manifest["files"]:  # nodes come first in the manifest
        spec = specs[f["table"]]
        fields, rows = read_import_file(directory / f["name"], delimiter)
        assert [x for x in fields if x["kind"] in ("LABEL", "TYPE")], "label / type column"
        assert all(r.get(":LABEL", r.get(":TYPE")) == spec.label_or_type for r in rows)
        if spec.kind == "node":
            (space,) = [x["space"] for x in fields if x["kind"] == "ID"]
            ids = spaces.setdefault(space, {})
            for r in rows:
                assert r[":ID"] not in ids, f"{f['name']}: id {r[':ID']} twice in ID space {space}"
                ids[r[":ID"]] = r[spec.key]
            target.bulk_load_nodes(spec.label_or_type, [{p: r.get(p) for p in spec.props} for r in rows])
        else:
            start = spaces[next(x["space"] for x in fields if x["kind"] == "START_ID")]
            end = spaces[next(x["space"] for x in fields if x["kind"] == "END_ID")]
            target.bulk_load_rels(
                spec.label_or_type,
                spec.src,
                spec.dst,
                [
                    {"from": start[r[":START_ID"]], "to": end[r[":END_ID"]], **{p: r.get(p) for p in spec.props}}
                    for r in rows
                ],
            )
    for stmt in manifest["post_import"]:
        if stmt.startswith("MATCH"):  # the empty-array fix-ups (the rest is Neo4j DDL)
            target.execute(stmt)


def table_rows(store, spec) -> list[tuple]:
    """Every row of one table, sorted, as comparable tuples (NaN-safe; list items sorted, as the store's
    bulk loader used by load_export sorts them: dishgraph's lists are sets of class names)."""
    from dishgraph.graph.export_scan import scan_query

    def cell(v):
        if isinstance(v, list):
            return json.dumps(sorted(v), ensure_ascii=False)
        return json.dumps(v) if isinstance(v, float) else v

    out = [tuple(cell(v) for v in r.values()) for r in store.execute(scan_query(spec))]
    return sorted(out, key=repr)


# ------------------------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def source_db(tmp_path_factory, crg_dir, data_dir, release_unparsed):
    """The release (records, glossary, reference pivots / constraints), PER_DISH parsed recipes of two dishes
    with mined pivots, USES and estimated order constraints, and XCF_RECIPES parsed XiaChuFang recipes."""
    from dishgraph.api import DishGraph
    from dishgraph.ingest.corpus import ingest_corpus
    from dishgraph.ingest.crg import release_records
    from dishgraph.ingest.pipeline import parse_and_load
    from dishgraph.ingest.readers import read_crg_release
    from dishgraph.knowledge.pivots import mine_pivots

    work = tmp_path_factory.mktemp("export")
    path = release_unparsed(work / "source")  # the release, unparsed
    sample = work / "xiachufang.jsonl"
    with open(data_dir / "xiachufang" / "recipes.jsonl", encoding="utf-8") as src:
        sample.write_text("".join(itertools.islice(src, XCF_RECIPES)), encoding="utf-8")
    release = read_crg_release(crg_dir)
    with DishGraph.open(db=str(path)) as g:
        records = release_records(crg_dir, DISHES, PER_DISH, release=release)
        parse_and_load(g.store, records, release.glossary, show_progress=False)
        mine_pivots(g.store, *DISHES, create=True)
        g.mine_pivots("白灼菜心", "白灼秋葵")
        g.estimate_order([DISHES[0]])
        ingest_corpus(g.store, sample, release.glossary, show_progress=False)
    return path


@pytest.fixture(scope="module")
def neo4j_export(source_db, tmp_path_factory):
    out = tmp_path_factory.mktemp("neo4j-import")
    with LadybugStore(source_db, read_only=True) as s:
        rep = export_neo4j.export_neo4j_import(s, out, compress=False)
    return out, rep


# ------------------------------------------------------------------------------------ 1. format
def test_headers_follow_the_documented_grammar_for_every_schema_type():
    seen_types = set()
    for spec in table_specs(by_offset=True):
        fields = parse_header(",".join(export_neo4j.header(spec)))
        if spec.kind == "node":
            ids = [f for f in fields if f["kind"] == "ID"]
            # one id per node in its label's ID space, not stored as a property (the key is one already)
            assert len(ids) == 1 and ids[0]["name"] == "" and ids[0]["space"] == spec.label_or_type
            assert [f["kind"] for f in fields].count("LABEL") == 1
            props = {f["name"]: f for f in fields if f["kind"] is None}
            assert set(props) == set(spec.props)
        else:
            kinds = {f["kind"]: f for f in fields if f["kind"]}
            assert kinds["START_ID"]["space"] == spec.src and kinds["END_ID"]["space"] == spec.dst
            assert "TYPE" in kinds
            props = {f["name"]: f for f in fields if f["kind"] is None}
            assert set(props) == set(spec.props)
        for name, f in props.items():
            typ = spec.props[name]
            seen_types.add(typ)
            want = {"STRING": "string", "INT64": "long", "DOUBLE": "double", "BOOLEAN": "boolean"}[typ.rstrip("[]")]
            assert (f["type"], bool(f["array"])) == (want, typ.endswith("[]")), (spec.name, name)
    every = {t for n in schema.NODES for t in n.props.values()} | {t for r in schema.RELS for t in r.props.values()}
    assert seen_types == every == {"STRING", "INT64", "DOUBLE", "BOOLEAN", "STRING[]"}
    # FORM_OF connects three label pairs: one file per pair, each with its own END_ID space.
    assert {s.name for s in table_specs() if s.label_or_type == "FORM_OF"} == {
        "FORM_OF.SurfaceForm-VerbClass",
        "FORM_OF.SurfaceForm-IngredientClass",
        "FORM_OF.SurfaceForm-ToolClass",
    }


HOSTILE = [
    "a,b",
    'say "hi"',
    "two\nlines",
    "crlf\r\nend",
    '\\"escaped\\"',
    "  padded  ",
    "",
    "it's",
    "semi;colon",
    '"',
    '""',
    ",",
    "\\",
    "白灼菜心",
    "tab\there",
    "MATCH (n) DETACH DELETE n //",
]


def _hostile_graph(store) -> None:
    """One node per label and one edge per typed relationship, with awkward values of every schema type."""
    strings = itertools.cycle(HOSTILE)
    ints = itertools.cycle([0, -1, 2**62, 7, None])
    doubles = itertools.cycle([0.1, -1e-300, 1e300, 2 / 3, None, -0.0, 5.0])
    bools = itertools.cycle([True, False, None])
    lists = itertools.cycle([["a,b", 'q"uote', "new\nline", "白灼"], [], None, [""], ["x"]])
    value = {
        "STRING": lambda: next(strings),
        "INT64": lambda: next(ints),
        "DOUBLE": lambda: next(doubles),
        "BOOLEAN": lambda: next(bools),
        "STRING[]": lambda: next(lists),
    }
    for n in schema.NODES:
        rows = []
        for key in ["k,1", 'k"2', "k\n3", "键4", "k5;x"]:
            rows.append({p: key if p == n.key else value[t]() for p, t in n.props.items()})
        store.write(sync.node_write_name(n.label), rows)
    keys = {n.label: ["k,1", 'k"2', "k\n3", "键4", "k5;x"] for n in schema.NODES}
    for r in schema.RELS:
        for a, b in r.ends:
            rows = [
                {"src": s, "dst": d, **{p: value[t]() for p, t in r.props.items()}}
                for s, d in zip(keys[a], keys[b][1:] + keys[b][:1])
            ]
            for p in sync.REL_IDENTITY.get(r.type, ()):
                if p not in sync.NULLABLE_IDENTITY.get(r.type, ()):
                    for i, row in enumerate(rows):
                        row[p] = row[p] if row[p] is not None else (i if r.props[p] == "INT64" else f"id{i}")
            store.write(sync.rel_write_name(r.type, a, b), rows)


@pytest.mark.parametrize("compress", [False, True])
def test_hostile_values_of_every_type_survive_the_import_format(store, tmp_path, compress):
    _hostile_graph(store)
    rep = export_neo4j.export_neo4j_import(store, tmp_path / "out", compress=compress, array_delimiter="|")
    assert rep.multiline and "--multiline-fields=true" in rep.admin_command()
    assert "--array-delimiter=U+007C" in rep.admin_command()
    assert all(f.name.endswith(".csv.gz" if compress else ".csv") for f in rep.files)
    copy = LadybugStore(tmp_path / "copy", bulk_source="frame")
    try:
        load_export(tmp_path / "out", copy, delimiter="|")
        for spec in table_specs():
            want = table_rows(store, spec)
            assert want, spec.name  # every table has rows in this graph
            got = table_rows(copy, spec)
            if any(t.endswith("[]") for t in spec.props.values()):
                # the source holds both NULL and [] lists here, so no fix-up is written: [] arrives as NULL
                assert {f"{spec.label_or_type}.{p}" for p, t in spec.props.items() if t.endswith("[]")} <= set(
                    rep.null_lists
                )
                want = [tuple(None if v == "[]" else v for v in row) for row in want]
            assert got == want, spec.name
    finally:
        copy.close()


def test_an_array_item_holding_the_delimiter_is_refused(store, tmp_path):
    store.write(
        sync.node_write_name("ProtoAction"),
        [{"key": "p", "verb": "切", "ingredients": ["盐;糖"], "tools": [], "culinary": True}],
    )
    with pytest.raises(export_neo4j.ExportError, match="array delimiter"):
        export_neo4j.export_neo4j_import(store, tmp_path / "out")
    rep = export_neo4j.export_neo4j_import(store, tmp_path / "out2", array_delimiter="|")
    assert rep.fixups() == ["MATCH (n:ProtoAction) WHERE n.`tools` IS NULL SET n.`tools` = []"]


def test_java_spellings_of_non_finite_doubles():
    import pyarrow as pa

    col = export_neo4j._java_doubles(pa.array([1.5, math.nan, math.inf, -math.inf, None]))
    assert col.to_pylist() == ["1.5", "NaN", "Infinity", "-Infinity", None]
    assert _value(("NaN", False), "double", False, ";") != _value(("NaN", False), "double", False, ";")


# ------------------------------------------------------------------------------------ 2. round trip
def _named(store) -> list:
    """Named queries over every part of the graph: pivots, order constraints, USES, steps, proto-actions."""
    results = [
        store.query("pivot_edges", pair="白灼菜心->白灼秋葵"),
        store.query("order_dish_constraints", dish=DISHES[0]),
        store.query("order_dish_constraints", dish="白灼秋葵"),
        store.query("uses_dish_actions", dish=DISHES[1], min_freq=0.0, top=1000),
        store.query("pair_pivots", base="白灼菜心", target="白灼秋葵"),
        store.query("stats_top_actions_per_dish"),
        store.query("order_dish_sequences", dish=DISHES[0]),
    ]
    assert all(results), "every named query has rows on the source graph"
    return [sorted(map(repr, r)) for r in results]


def test_round_trip_release_and_xiachufang_sample(source_db, neo4j_export, tmp_path):
    out, rep = neo4j_export
    with LadybugStore(source_db, read_only=True) as source:
        counts = source.counts()
        n = counts["nodes"]
        assert n["Dish"] > 100 and n["Recipe"] > 2496 + XCF_RECIPES // 2 and n["Step"] > 10_000
        assert rep.rows == sum(counts["nodes"].values()) + sum(counts["relationships"].values())
        assert rep.empty_lists.get("ProtoAction.tools") and not rep.null_lists
        with LadybugStore(tmp_path / "copy", bulk_source="frame") as copy:
            load_export(out, copy)
            assert copy.counts() == counts
            assert _named(copy) == _named(source)
            for label in ("Recipe", "ProtoAction", "DishPair"):
                spec = next(s for s in table_specs() if s.name == label)
                assert table_rows(copy, spec) == table_rows(source, spec), label
    text = (out / "IMPORT.txt").read_text(encoding="utf-8")
    assert "neo4j-admin database import full neo4j" in text and "--nodes=/import/Dish.csv" in text
    assert "--id-type=integer" in text
    assert "docker compose run --rm neo4j neo4j-admin database import full neo4j" in text
    assert "dishgraph db init" in text
    post = (out / "post-import.cypher").read_text(encoding="utf-8")
    assert all(stmt + ";" in post for stmt in schema.neo4j_ddl())


def test_tables_round_trip_parquet_and_csv(source_db, tmp_path):
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    with LadybugStore(source_db, read_only=True) as source:
        counts = source.counts()
        pq_rep = export_tables.export_tables(source, tmp_path / "pq", "parquet")
        csv_rep = export_tables.export_tables(source, tmp_path / "csv", "csv", compress=False)
        recipes = table_rows(source, next(s for s in table_specs() if s.name == "Recipe"))
    assert len(pq_rep.tables) == len(table_specs()) == len(csv_rep.tables)
    # Parquet, read by Ladybug's own COPY (another reader than pyarrow): the same graph.
    with LadybugStore(tmp_path / "copy") as copy:
        for t in pq_rep.tables:
            if not t.rows:
                continue
            path = str(tmp_path / "pq" / t.file)
            if t.kind == "node":
                copy.execute(f"COPY {schema.check_label(t.label_or_type)} FROM '{path}'")
            else:
                opts = f" (from='{t.src}', to='{t.dst}')" if t.name != t.label_or_type else ""
                copy.execute(f"COPY {schema.check_rel(t.label_or_type)} FROM '{path}'{opts}")
        assert copy.counts() == counts
        assert table_rows(copy, next(s for s in table_specs() if s.name == "Recipe")) == recipes
    # CSV: the same rows as the Parquet tables, lists as JSON arrays.
    for p, c in zip(pq_rep.tables, csv_rep.tables):
        a = pq.read_table(tmp_path / "pq" / p.file)
        spec = next(s for s in table_specs() if s.name == c.name)
        opts = pcsv.ConvertOptions(
            column_types=export_tables._csv_schema(spec), strings_can_be_null=True, quoted_strings_can_be_null=False
        )
        b = pcsv.read_csv(tmp_path / "csv" / c.file, convert_options=opts) if c.rows else None
        assert a.num_rows == c.rows == p.rows
        if b is not None:
            assert b.column_names == a.column_names
            lists = [name for name, typ in c.columns.items() if typ.endswith("[]")]
            texts = [name for name, typ in c.columns.items() if typ == "STRING"]  # formula-quoted: restored
            got = [
                {
                    k: json.loads(v) if k in lists and v is not None else restore(v) if k in texts and v else v
                    for k, v in r.items()
                }
                for r in b.to_pylist()
            ]
            # two COPY TO scans may return rows in different orders (the engine scans in parallel)
            assert sorted(map(repr, got)) == sorted(map(repr, a.to_pylist())), c.name
    meta = json.loads((tmp_path / "pq" / "tables.json").read_text(encoding="utf-8"))
    assert {t["name"] for t in meta["tables"]} == {s.name for s in table_specs()}


def test_csv_tables_never_hold_a_formula_a_spreadsheet_would_run(store, tmp_path):
    """Text a corpus brought in (=HYPERLINK, @SUM, +1, =cmd|…) is written with the leading quote of the
    annotation CSV (OWASP's rule) and reads back unchanged through `csvcells.restore`."""
    import csv

    hostile = ['=HYPERLINK("http://x","y")', "@SUM(A1:A2)", "+1", "-1+2", "=cmd|' /C calc'!A0", "'quoted", "菜"]
    store.bulk_load_nodes("Dish", [{"name": n} for n in hostile])
    export_tables.export_tables(store, tmp_path / "csv", "csv", compress=False)
    with open(tmp_path / "csv" / "Dish.csv", encoding="utf-8", newline="") as fh:
        cells = [row[0] for row in csv.reader(fh)][1:]
    assert all(not c or c[0] not in "=+-@" for c in cells)
    assert sorted(restore(c) for c in cells) == sorted(hostile)


# ------------------------------------------------------------------------------------ CLI
def test_cli_export_commands(source_db, tmp_path):
    from dishgraph.cli import app

    run = CliRunner().invoke
    r = run(app, ["export", "neo4j-import", str(tmp_path / "imp"), "--db", str(source_db), "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["rows"] > 0 and out["files"][0]["name"] == "Dish.csv.gz"
    r = run(app, ["export", "neo4j-import", str(tmp_path / "imp2"), "--db", str(source_db)])
    assert r.exit_code == 0 and "neo4j-admin database import full neo4j" in r.output
    r = run(app, ["export", "tables", str(tmp_path / "tab"), "--db", str(source_db), "--format", "csv", "--json"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "tab" / "Recipe.csv.gz").exists()
    r = run(app, ["export", "tables", str(tmp_path / "tab"), "--db", str(source_db), "--format", "xlsx"])
    assert r.exit_code == 2 and "parquet, csv" in r.output and "Traceback" not in r.output
    r = run(app, ["export", "neo4j-import", str(tmp_path / "x"), "--db", str(tmp_path / "nowhere")])
    assert r.exit_code == 2 and "no embedded database" in r.output
    r = run(app, ["export", "neo4j-import", str(tmp_path / "x"), "--db", str(source_db), "--array-delimiter", ","])
    assert r.exit_code == 2 and "array delimiter" in r.output


def test_post_import_fixups_pass_neos_own_cypher_linter():
    from dishgraph.graph import lint

    problem = lint.linter_problem()
    if problem:
        pytest.skip(f"Cypher linter unavailable: {problem}")
    lists = {f"{n.label}.{p}": 1 for n in schema.NODES for p, t in n.props.items() if t.endswith("[]")}
    rep = export_neo4j.Neo4jExport("/import", [], 1.0, empty_lists=lists)
    stmts = [lint.Statement(f"fixup_{i}", text) for i, text in enumerate(rep.fixups())]
    assert len(stmts) == len(lists) == 5  # ProtoAction ingredients/tools, Step ingredient_forms/tool_forms/foods
    report = lint.lint_statements(stmts)
    assert not [(r.statement.text, d.message) for r in report.results for d in r.errors]


def test_fixups_cover_relationship_arrays_and_skip_ambiguous_ones():
    rep = export_neo4j.Neo4jExport(
        "/import",
        [],
        1.0,
        empty_lists={"FORM_OF.SurfaceForm-VerbClass.tags": 2, "ProtoAction.tools": 3, "ProtoAction.ingredients": 1},
        null_lists={"ProtoAction.ingredients": 4},
    )
    assert rep.fixups() == [
        "MATCH ()-[e:FORM_OF]->() WHERE e.`tags` IS NULL SET e.`tags` = []",
        "MATCH (n:ProtoAction) WHERE n.`tools` IS NULL SET n.`tools` = []",
    ]
