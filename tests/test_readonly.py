"""Issue #25 §1: a read-only open runs reads only (``graph/readonly.py``), whatever the spelling.

The reproductions of the issue run as a user runs them (``dishgraph db shell``) on a real embedded database
of real dish names, and must each give a one-line refusal (exit 2) that writes, reads and fetches nothing.
The generator (hypothesis, part of the hostile suite: ``tests/test_hostile.py`` imports it) wraps every
forbidden statement in comments, quotes, case changes, ``;``-chains and unicode lookalikes: every case must be
refused, and the cases are also executed through ``db shell`` and through the store of a read-only open, with
the database directory and a victim directory compared byte for byte and a loopback listener watching for an
extension download. Allowed reads (the project's named queries, the shell's documented CALLs) still run.
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
from functools import cache
from pathlib import Path

import pytest
import typer
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dishgraph.cli import app
from dishgraph.errors import ReadOnlyViolation
from dishgraph.graph import queries
from dishgraph.graph.ladybug_store import LadybugStore
from dishgraph.graph.readonly import refused_reason

GENERATED_CASES = 200  # all checked; the first EXECUTED_CASES also run on the database (~0.2 s each)
EXECUTED_CASES = 12
STATS = {"cases": 0, "refused": 0, "executed": 0}
SETTINGS = dict(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@cache
def _command():
    """The CLI as a click command, built once (typer's runner rebuilds it per call: ~0.4 s each)."""
    return typer.main.get_command(app)


def run(args: list[str]):
    return CliRunner().invoke(_command(), args)


# The issue's five reproductions: @1@ is a directory that must stay empty, @2@ a loopback listener.
REPRODUCTIONS = [
    "/* ' */ COPY (RETURN \"x\" AS x) TO '@1@/victim.csv' (header=false) /* ' */",
    "// '\nLOAD FROM '/etc/passwd' (file_format='csv', header=false, delim=':') RETURN * LIMIT 3 // '",
    "// '\nINSTALL json FROM 'http://127.0.0.1:@2@/' // '",
    "// '\nCHECKPOINT // '",
    "CALL `threads` = 1",
]

# Every kind of statement a read-only open must refuse (Ladybug's and Neo4j's spellings).
FORBIDDEN = [
    "COPY (RETURN 'x' AS x) TO '@1@/v.csv'",
    "COPY (MATCH (d:Dish) RETURN d.name) TO '@1@/d.parquet'",
    "COPY Dish FROM '@1@/in.csv'",
    "LOAD FROM '/etc/passwd' (file_format='csv', header=false, delim=':') RETURN *",
    "LOAD WITH HEADERS (a STRING) FROM '/etc/hostname' RETURN *",
    "LOAD EXTENSION json",
    "INSTALL json FROM 'http://127.0.0.1:@2@/'",
    "UNINSTALL json",
    "ATTACH '@1@/other' AS other (dbtype lbug)",
    "DETACH other",
    "USE other",
    "EXPORT DATABASE '@1@/exp'",
    "IMPORT DATABASE '@1@/exp'",
    "CHECKPOINT",
    "CALL threads = 1",
    "CALL `threads` = 1",
    "CALL auto_checkpoint=false",
    "CALL timeout = 1",
    "CREATE (:Dish {name: 'x'})",
    "MERGE (d:Dish {name: 'x'}) RETURN d",
    "MATCH (d:Dish) SET d.name = 'x'",
    "MATCH (d:Dish) DELETE d",
    "MATCH (d:Dish) DETACH DELETE d",
    "MATCH (d:Dish) REMOVE d.name",
    "DROP TABLE Dish",
    "ALTER TABLE Dish ADD x INT64",
    "CREATE NODE TABLE T(id INT64, PRIMARY KEY(id))",
    "CREATE SEQUENCE s",
    "CREATE MACRO m(x) AS x + 1",
    "COMMENT ON TABLE Dish IS 'x'",
    "BEGIN TRANSACTION",
    "COMMIT",
    "ROLLBACK",
    "RETURN nextval('s')",
    "UNWIND [1] AS x CREATE (:Dish {name: 'y'})",
    "MATCH (create:Dish) CREATE (:Dish {name: 'z'})",
    "MATCH (d:Dish) WITH d MERGE (:Dish {name: 'w'})",
    "CALL { CREATE (:Dish {name: 'v'}) } RETURN 1",
    "CALL show_tables = 1",
    "FOREACH (x IN [1] | CREATE (:Dish {name: 'u'}))",
    "LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l",
    "CALL dbms.setConfigValue('x', 'y')",
]

# Lookalikes: full-width and Cyrillic letters, zero-width and unicode spaces the engine's grammar accepts.
_LOOKALIKE = {"A": "\uff21", "C": "\u0421", "E": "\u0415", "O": "\u041e", "P": "\u0420", "T": "\u0422"}
_INVISIBLE = ["\u200b", "\u200d", "\ufeff", "\u00a0", "\u3000", "\u2028", "\u180e", "\x0b", "\x0c"]
_COMMENTS = ["/* ' */", '/* " */', "/* ` */", "// '\n", '// "\n', "// `\n", "/* // */", "/**/", "/* '\n*/"]
_READS = ["MATCH (d:Dish) RETURN count(d) AS n", "RETURN 'a;b' AS s", 'RETURN "x\\"" AS q', "RETURN 1"]


def _case(text: str, mode: str) -> str:
    return {"upper": text.upper(), "lower": text.lower(), "swap": text.swapcase()}.get(mode, text)


@st.composite
def wrapped(draw, base=st.sampled_from(FORBIDDEN + REPRODUCTIONS)) -> str:
    """One forbidden statement, disguised."""
    stmt = _case(draw(base), draw(st.sampled_from(["keep", "upper", "lower", "swap"])))
    kind = draw(st.sampled_from(["comments", "chain", "quotes", "lookalike", "invisible", "all"]))
    if kind in ("lookalike", "all"):  # disguises inside the statement first, then around it
        letters = [i for i, c in enumerate(stmt) if c.upper() in _LOOKALIKE]
        for i in draw(st.lists(st.sampled_from(letters), max_size=3)) if letters else []:
            stmt = stmt[:i] + _LOOKALIKE.get(stmt[i].upper(), stmt[i]) + stmt[i + 1 :]
    if kind in ("invisible", "all"):
        i = draw(st.integers(0, len(stmt)))
        stmt = stmt[:i] + draw(st.sampled_from(_INVISIBLE)) + stmt[i:]
    if kind in ("comments", "all"):
        stmt = draw(st.sampled_from(_COMMENTS)) + stmt + " " + draw(st.sampled_from(_COMMENTS))
    if kind in ("quotes", "all"):  # a read holding a quote that the comment or string before it opens
        stmt = draw(st.sampled_from(["RETURN '\\'' AS q; ", 'RETURN "\'" AS q; ', "RETURN '/*' AS q; "])) + stmt
    if kind in ("chain", "all"):
        read = draw(st.sampled_from(_READS))
        stmt = draw(st.sampled_from([f"{read}; {stmt}", f"{stmt}; {read}", f"{read};\n{stmt};"]))
    return stmt


# --- fixtures ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def real_db(tmp_path_factory, crg_dir):
    """A small real database: the dishes of the CRG release's first pairs."""
    lines = (crg_dir / "dish_pairs.txt").read_text(encoding="utf-8").splitlines()[:10]
    names = sorted({name for line in lines for name in line.split()})
    path = tmp_path_factory.mktemp("ro") / "db"
    with LadybugStore(path) as s:
        s.write("load_dishes", [{"name": n, "source": "crg"} for n in names])
    return path


@pytest.fixture(scope="module")
def victim(tmp_path_factory):
    return tmp_path_factory.mktemp("victim")


@pytest.fixture(scope="module")
def listener():
    """A loopback port that records whether anything connected (an extension download would)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.setblocking(False)
    yield sock
    sock.close()


def _snapshot(*dirs: Path) -> dict[str, str]:
    """Every file under the directories (the database, its .lock/.wal/.shadow siblings, the victim dir)."""
    out = {}
    for d in dirs:
        for p in sorted(d.rglob("*")):
            out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
    return out


def _connected(sock: socket.socket) -> bool:
    try:
        sock.accept()[0].close()
    except BlockingIOError:
        return False
    return True


def _fill(stmt: str, victim: Path, listener: socket.socket) -> str:
    return stmt.replace("@1@", str(victim)).replace("@2@", str(listener.getsockname()[1]))


def _one_line_refusal(res) -> str:
    assert res.exit_code == 2, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    text = res.output.strip()
    assert "\n" not in text and "Traceback" not in text and "refused" in text, text
    return text


# --- the issue's reproductions -----------------------------------------------------------------------
@pytest.mark.parametrize("stmt", REPRODUCTIONS)
def test_issue_reproductions_are_refused_in_one_line_and_change_nothing(real_db, victim, listener, stmt):
    before = _snapshot(real_db.parent, victim)
    res = run(["db", "shell", _fill(stmt, victim, listener), "--db", str(real_db)])
    _one_line_refusal(res)
    assert _snapshot(real_db.parent, victim) == before
    assert not any(victim.iterdir()) and not _connected(listener)
    assert not real_db.with_name("db.wal").exists() and not real_db.with_name("db.shadow").exists()


def test_the_store_of_a_read_only_open_refuses_too(real_db, victim, listener):
    """``DishGraph.open(read_only=True).store.execute`` is the same path: no way round the check."""
    from dishgraph.api import DishGraph

    before = _snapshot(real_db.parent, victim)
    with DishGraph.open(db=str(real_db), read_only=True) as g:
        for stmt in REPRODUCTIONS:
            with pytest.raises(ReadOnlyViolation, match="refused"):
                g.store.execute(_fill(stmt, victim, listener))
        assert g.store.execute("MATCH (d:Dish) RETURN count(d) AS n")[0]["n"] > 0
    assert _snapshot(real_db.parent, victim) == before and not _connected(listener)


# --- the generator -----------------------------------------------------------------------------------
@settings(max_examples=GENERATED_CASES, **SETTINGS)
@given(stmt=wrapped())
def test_generated_disguises_are_refused_and_change_nothing(real_db, victim, listener, stmt):
    stmt = _fill(stmt, victim, listener)
    STATS["cases"] += 1
    reason = refused_reason(stmt)
    assert reason is not None, f"got through: {stmt!r}"
    STATS["refused"] += 1
    if STATS["executed"] >= EXECUTED_CASES:
        return
    STATS["executed"] += 1
    before = _snapshot(real_db.parent, victim)
    _one_line_refusal(run(["db", "shell", stmt, "--db", str(real_db)]))
    with LadybugStore(real_db, read_only=True) as s, pytest.raises(ReadOnlyViolation):
        s.execute(stmt)
    assert _snapshot(real_db.parent, victim) == before
    assert not any(victim.iterdir()) and not _connected(listener)


def test_lexer_reads_strings_comments_and_names_together():
    # words inside strings, comments and backtick names are data
    for ok in [
        "RETURN 'CREATE' AS w",
        "RETURN '// CHECKPOINT' AS w",
        'RETURN "/* COPY */" AS w',
        "RETURN 'it\\'s; DROP TABLE Dish' AS w",
        "MATCH (d:Dish) /* a ' quote */ RETURN d.name AS `CREATE`",
        "MATCH (d:Dish) RETURN d.name AS `名字` // 中文注释 '\n",
        "RETURN 'x' AS a;; RETURN 'y' AS b",
    ]:
        assert refused_reason(ok) is None, ok
    # where the engine could read the text otherwise, refuse
    for bad, why in [
        ("RETURN 1 /* **/ ' */ CHECKPOINT //'", "comment"),  # for Ladybug `**/` does not close the comment
        ("RETURN 1 // x\rCHECKPOINT", "carriage return"),
        ("RETURN 'a\\q' AS x", "escape"),
        ("RETURN 'open", "unterminated"),
        ("RETURN 1 /* open", "comment"),
        ("RETURN `open", "unterminated"),
        ("RETURN 1 @ 2", "U+0040"),
        ("ＲＥＴＵＲＮ 1", "U+FF32"),
        ("RETURN\u00a01", "U+00A0"),
    ]:
        assert why in (refused_reason(bad) or ""), (bad, refused_reason(bad))


def test_forbidden_words_are_refused_even_as_variable_names_and_procedures_only_from_the_list():
    assert refused_reason("MATCH (copy:Dish) RETURN copy.name") == "COPY"
    assert "CALL threads" in (refused_reason("CALL threads=1") or "")
    assert "CALL db.createLabel" in (refused_reason("CALL db.createLabel('X')") or "")
    assert "nextval" in (refused_reason("RETURN nextval('s')") or "")
    assert "vacuum" in (refused_reason("MATCH (d:Dish) RETURN d vacuum") or "")  # unknown words: refused


# --- reads still run ---------------------------------------------------------------------------------
_WRITE = re.compile(r"\b(CREATE|MERGE|SET|DELETE|REMOVE)\b", re.IGNORECASE)


def test_every_named_read_query_passes_and_every_named_write_is_refused():
    """The project's own reads (also what the Browser-guide slides run) are all allowed."""
    for q in queries.all_queries():
        bare = re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`", "''", q.text)
        assert (refused_reason(q.text) is None) == (not _WRITE.search(bare)), (q.path.name, refused_reason(q.text))


READS = [
    "MATCH (d:Dish) RETURN d.name AS name ORDER BY name LIMIT 3",
    "MATCH (d:Dish) WHERE d.name STARTS WITH $p OR d.name CONTAINS 'x' RETURN count(*) AS n",
    "OPTIONAL MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe) RETURN d.name AS dish, count(r) AS recipes SKIP 1 LIMIT 2",
    "UNWIND [3, 1, 2] AS x WITH x WHERE x > 1 RETURN collect(x) AS xs",
    "MATCH (d:Dish) RETURN d.name AS name UNION ALL MATCH (d:Dish) RETURN d.name AS name",
    "RETURN list_filter(range(1, 5), x -> x % 2 = 1) AS odd, list_transform([1, 2], y -> y + 1) AS l",
    "MATCH (d:Dish) RETURN CASE WHEN size(d.name) > 2 THEN 'long' ELSE 'short' END AS k, CAST(1 AS STRING) AS s",
    "MATCH p = (d:Dish)-[:HAS_RECIPE*1..2]->() RETURN length(p) AS n",
    "MATCH (d:Dish) WHERE NOT EXISTS { MATCH (d)-[:HAS_RECIPE]->(:Recipe) } RETURN count(d) AS n",
    "CALL show_tables() RETURN name, type",
    "CALL table_info('Dish') RETURN name",
    "CALL db_version() RETURN *",
    "EXPLAIN MATCH (d:Dish) RETURN d.name",
    "PROFILE MATCH (d:Dish) RETURN count(d) AS n",
    "match (d:Dish) return d.name as n limit 1; RETURN 'a;b' AS s",
]


def test_allowed_reads_still_run_and_change_nothing(real_db, victim):
    before = _snapshot(real_db.parent, victim)
    with LadybugStore(real_db, read_only=True) as s:
        for stmt in READS:
            s.execute(stmt, {"p": "白"} if "$p" in stmt else None)
    for stmt in (READS[0], READS[-1], "CALL show_tables() RETURN *"):
        res = run(["db", "shell", stmt, "--db", str(real_db), "--json"])
        assert res.exit_code == 0, (stmt, res.output)
    res = run(["db", "shell", "MATCH (d:Dish) RETURN count(d) AS n", "--db", str(real_db), "--json"])
    assert json.loads(res.output)[0]["n"] > 0
    assert _snapshot(real_db.parent, victim) == before


def test_write_opens_still_write(tmp_path):
    db = tmp_path / "db"
    res = run(["db", "shell", "CREATE (:Dish {name: 'x'})", "--db", str(db), "--write"])
    assert res.exit_code == 0, res.output


# --- Neo4j: read access mode (no server runs here: the driver is replaced to record what the store asks) ---
class _Recorder:
    """Stands in for ``neo4j.GraphDatabase.driver``'s result: records sessions, modes and statements."""

    def __init__(self):
        self.sessions: list[dict] = []
        self.reads: list[str] = []
        self.queries: list[str] = []

    def __call__(self, uri, auth=None, **kwargs):
        return self

    def verify_connectivity(self):
        return None

    def session(self, **kwargs):
        self.sessions.append(kwargs)
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def execute_read(self, work, *args):
        return work(self, *args)

    def run(self, cypher, params):
        self.reads.append(cypher)
        return [{"name": "白灼菜心"}]

    def execute_query(self, cypher, parameters_=None, database_=None):
        self.queries.append(cypher)
        return [], None, None

    def close(self):
        return None


@pytest.fixture
def neo4j_driver(monkeypatch):
    import neo4j

    recorder = _Recorder()
    monkeypatch.setattr(neo4j.GraphDatabase, "driver", recorder)
    return recorder


def test_neo4j_read_only_opens_read_sessions_and_checks_first(neo4j_driver):
    import neo4j

    from dishgraph.graph.factory import open_store

    store = open_store(uri="bolt://127.0.0.1:7687", read_only=True)
    assert store.execute("MATCH (d:Dish) RETURN d.name AS name") == [{"name": "白灼菜心"}]
    assert neo4j_driver.sessions == [{"database": None, "default_access_mode": neo4j.READ_ACCESS}]
    assert neo4j_driver.reads == ["MATCH (d:Dish) RETURN d.name AS name"] and neo4j_driver.queries == []
    for stmt in [
        "MATCH (d:Dish) SET d.x = 1",
        "/* ' */ CREATE (:Dish {name: 'x'}) /* ' */",
        "CALL db.createLabel('X')",
    ]:
        with pytest.raises(ReadOnlyViolation):
            store.execute(stmt)
    assert len(neo4j_driver.sessions) == 1 and len(neo4j_driver.reads) == 1  # refused before the driver


def test_neo4j_read_write_opens_still_write_and_db_shell_reads_in_read_mode(neo4j_driver):
    import neo4j

    from dishgraph.graph.factory import open_store

    open_store(uri="bolt://127.0.0.1:7687").execute("CREATE (:Dish {name: $n})", {"n": "x"})
    assert neo4j_driver.queries == ["CREATE (:Dish {name: $n})"] and neo4j_driver.sessions == []
    res = run(["db", "shell", "MATCH (d:Dish) RETURN d.name AS name", "--uri", "bolt://127.0.0.1:7687", "--json"])
    assert res.exit_code == 0 and "白灼菜心" in res.output, res.output
    assert neo4j_driver.sessions[-1]["default_access_mode"] == neo4j.READ_ACCESS
    res = run(["db", "shell", "// '\nCHECKPOINT // '", "--uri", "bolt://127.0.0.1:7687"])
    _one_line_refusal(res)


def test_zz_readonly_figures():
    """The closing note's figures (printed with -s)."""
    print("\nread-only generator:", STATS)
    if STATS["cases"]:
        assert STATS["refused"] == STATS["cases"]


@pytest.mark.parametrize(
    "stmt",
    [
        "MATCH (d:Dish|DishPair) RETURN count(d)",
        "MATCH ()-[r:HAS_RECIPE|HAS_STEP]->() RETURN count(r)",
        "MATCH (a)-[:NEXT|INSTANCE_OF|`USES`*1..2]->(b) RETURN count(b)",
    ],
)
def test_label_and_type_alternation_are_reads(stmt):
    assert refused_reason(stmt) is None


@pytest.mark.parametrize(
    "stmt",
    [
        "MATCH (d:Dish) RETURN [x IN [1, 2] | DELETE] AS y",  # a comprehension's | is no label chain
        "MATCH (d:Dish|DishPair) DELETE d",
        "MATCH (d:Dish|DishPair) SET d.name = 'x'",
    ],
)
def test_alternation_opens_no_door_to_writes(stmt):
    assert refused_reason(stmt) is not None
