"""Generated hostile input (issue #17): no bad line costs a good one, no traceback reaches a user.

Seeded and reproducible (``derandomize=True``, fixed ``max_examples``, no example database): the same cases
run on every machine. Good records are real XiaChuFang recipes; the hostile lines are what a scraped corpus
or an attacker gives: deep nesting, 5,000-digit integers, bytes that are not UTF-8, JSON ``true`` as a
dish, nested step lists, zero-width-only texts, random text and bytes; whole files re-encoded (UTF-16,
GB18030), with CR-only line ends, gzipped, or gzipped and cut short; writes, file, network and settings
statements disguised for a read-only ``db shell`` (the generator of ``test_readonly.py``). The counters at
the bottom are the figures of the closing note (cases tried, tracebacks, good records lost).
"""

from __future__ import annotations

import gzip
import json
import os
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_readonly import run as run_cli
from test_readonly import wrapped
from typer.testing import CliRunner

from dishgraph.errors import EXIT_CODES
from dishgraph.ingest.readers import ReadReport, read_corpus

STATS: Counter = Counter()
# HOSTILE_SEED=N explores other cases (pytest --hypothesis-seed=N with derandomize off); the default suite is fixed.
EXPLORE = os.environ.get("HOSTILE_SEED")
SETTINGS = dict(
    derandomize=EXPLORE is None,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)
READER_CASES = 1000
CLI_ARG_CASES = 150
CLI_INGEST_CASES = 10
READ_ONLY_CASES = 25  # disguised writes through `db shell` (the generator of test_readonly.py, issue #25)
MAX_LINE = 4096


@pytest.fixture(scope="module", autouse=True)
def _no_local_constants():
    """Reproducible cases: Hypothesis (6.13x+) draws some values from literals found in the *loaded local
    modules*, so the cases of a derandomized test would depend on what else the run imported (measured: the
    same test gave other cases alone than after test_hardening). No local constants here, whatever the run."""
    from hypothesis.internal.conjecture import providers

    fixed = providers.Constants(
        integers=providers.SortedSet(),
        floats=providers.SortedSet(key=providers.float_to_int),
        bytes=providers.SortedSet(),
        strings=providers.SortedSet(),
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(providers, "_get_local_constants", lambda: fixed)
        mp.setattr(
            providers,
            "CONSTANTS_CACHE",
            type(providers.CONSTANTS_CACHE)(providers.CONSTANTS_CACHE.max_size)
            if hasattr(providers.CONSTANTS_CACHE, "max_size")
            else {},
        )
        yield


def _pool() -> list[dict]:
    """Real recipes the reader takes without any remark: the good records of every generated file."""
    from dishgraph import config

    path = config.data_dir() / "xiachufang" / "recipes.jsonl"
    out = []
    with open(path, encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if i >= 400 or len(out) >= 60:
                break
            rec = json.loads(line)
            line_json = json.dumps({"dish": rec["dish"], "text": rec["text"]}, ensure_ascii=False)
            if len(line_json.encode()) > MAX_LINE:
                continue
            rep = ReadReport()
            tmp = Path(__file__).parent / ".." / "__never_written__"
            del tmp
            from dishgraph.ingest.readers.corpus import _Fields
            from dishgraph.ingest.readers.report import ReadContext

            r = _Fields("dish", None, "text", None, None).extract(
                json.loads(line_json), ReadContext(path, rep, False), 1, 100
            )
            if r is not None and rep.warned == 0 and rep.skipped == 0 and r.dish == rec["dish"]:
                out.append({"dish": rec["dish"], "text": r.text, "line": line_json})
    return out


POOL = None


def pool() -> list[dict]:
    global POOL
    if POOL is None:
        POOL = _pool()
    return POOL


_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40)
HOSTILE_TEXT = st.one_of(
    st.integers(1_000, 50_000).map(lambda n: "[" * n),  # deep nesting
    st.integers(1_000, 30_000).map(lambda n: '{"a":' * n),
    st.integers(4_400, 6_000).map(lambda n: '{"dish": "x", "text": ' + "9" * n + "}"),  # huge int
    st.sampled_from(
        [
            '{"dish": true, "text": "切菜。"}',
            '{"dish": 5, "text": "切菜。"}',
            '{"dish": "拌菜", "text": [1, [["切"]]]}',
            '{"dish": "拌菜", "text": [[["切"]]]}',
            '{"dish": "空", "text": "\u200b\u200b\ufeff"}',
            '{"dish": "空", "text": "\u200d \u3000"}',
            '{"dish": null, "text": "切。"}',
            '{"dish": ["a"], "text": "切。"}',
            "[1, 2]",
            "true",
            '{"dish": "x", "text": {"a": 1}}',
            '{"dish": "\u200b", "text": "切菜。"}',
            "{",
            "}{",
            '{"dish": "x", "text": "切"',
            "null",
        ]
    ),
    _text.filter(lambda s: s.strip() and not s.lstrip().startswith("{") and "\n" not in s and "\r" not in s),
    st.integers(MAX_LINE + 1, 3 * MAX_LINE).map(lambda n: "长" * (n // 3 + 1)),  # too long
)
HOSTILE_BYTES = st.one_of(
    # (no line break, no "{" that could make a valid record, no BOM that would re-encode the whole file)
    st.binary(min_size=1, max_size=60).filter(
        lambda b: (
            b"\n" not in b
            and b"\r" not in b
            and b"{" not in b
            and b.strip()
            and not b.startswith((b"\xfe\xff", b"\xff\xfe", b"\xef\xbb\xbf", b"\x00\x00\xfe\xff"))
        )
    ),
    st.sampled_from([b"a\xff\xfe\x00", b'{"dish": "\xe7\xba", "text": "x"}', b"\xc3\x28", b"\xed\xa0\x80"]),
)


@st.composite
def corpora(draw):
    good = pool()
    n = draw(st.integers(0, 12))
    items: list[tuple[str, object]] = []
    for _ in range(n):
        if draw(st.booleans()):
            items.append(("good", good[draw(st.integers(0, len(good) - 1))]))
        else:
            kind = draw(st.sampled_from(["text", "text", "bytes"]))
            items.append(("bad", draw(HOSTILE_TEXT if kind == "text" else HOSTILE_BYTES)))
    wrap = draw(st.sampled_from(["plain", "plain", "crlf", "cr", "utf-16", "gb18030", "gz", "gz-cut", "gz-crc"]))
    if wrap in ("utf-16", "gb18030"):
        items = [it for it in items if not isinstance(it[1], bytes)]
    return items, wrap


def _write(path: Path, items, wrap: str) -> None:
    sep = {"crlf": b"\r\n", "cr": b"\r"}.get(wrap, b"\n")
    lines = []
    for kind, v in items:
        if kind == "good":
            lines.append(v["line"].encode())
        elif isinstance(v, bytes):
            lines.append(v)
        else:
            lines.append(v.encode("utf-8"))
    data = b"".join(ln + sep for ln in lines)
    if wrap in ("utf-16", "gb18030"):
        data = data.decode("utf-8").encode(wrap)
    if wrap.startswith("gz"):
        data = gzip.compress(data, mtime=0)
        if wrap == "gz-cut" and len(data) > 40:
            data = data[: len(data) * 2 // 3]
        elif wrap == "gz-crc":
            b = bytearray(data)
            b[-8] ^= 0xFF
            data = bytes(b)
    path.write_bytes(data)


@settings(max_examples=READER_CASES, **SETTINGS)
@given(corpora())
# Found by this suite (a full-suite run): 64 KiB of ASCII junk with one bad byte before the first good record
# made the encoding guess GB18030 and cost that record. Pinned here whatever the generator explores.
@example(
    (
        [
            ("bad", b"\x00\x00\x81@"),
            ("bad", "[" * 1000),
            ("bad", '{"a":' * 1000),
            ("bad", '{"a":' * 11902),
            ("good", None),
        ],
        "plain",
    )
)
# Found by this suite: in a CR-only file whose first line is longer than a read chunk, the line end was
# guessed from a chunk holding no line end at all (\n), and every later record was lost.
@example(([("bad", '{"a":' * 13108), ("bad", "[" * 1000), ("good", None), ("bad", "[" * 1000)], "cr"))
def test_readers_keep_every_good_record_and_report_every_bad_one(tmp_path_factory, case):
    items, wrap = case
    items = [(k, pool()[0] if (k, v) == ("good", None) else v) for k, v in items]
    d = tmp_path_factory.mktemp("h")
    path = d / ("c.jsonl.gz" if wrap.startswith("gz") else "c.jsonl")
    _write(path, items, wrap)
    rep = ReadReport(max_messages=10_000)
    STATS["reader cases"] += 1
    try:
        got = list(
            read_corpus(path, report=rep, max_line_bytes=MAX_LINE, encoding="gb18030" if wrap == "gb18030" else "auto")
        )
    except BaseException:
        STATS["tracebacks"] += 1
        raise
    expected = [(i + 1, v["dish"], v["text"]) for i, (k, v) in enumerate(items) if k == "good"]
    seen = [(r.line, r.dish, r.text) for r in got]
    if wrap == "gz-cut":  # records before the damage: a prefix, and the damage is reported
        assert seen == expected[: len(seen)]
        STATS["good records (cut gzip, after the damage)"] += len(expected) - len(seen)
        if len(seen) < len(expected):
            assert rep.skipped_by_reason["corrupt"] == 1
    elif not expected:
        return  # only hostile lines: an encoding guess may read them as another encoding; no traceback is the test
    else:
        lost = len([e for e in expected if e not in seen])
        STATS["good records"] += len(expected)
        STATS["good records lost"] += lost
        assert seen == expected, rep.messages
    bad_lines = {i + 1 for i, (k, _) in enumerate(items) if k == "bad"}
    for m in rep.messages:
        assert m.startswith(f"{path}:"), m  # every message names the file and line
    skipped_lines = {int(m[len(str(path)) + 1 :].split(":", 1)[0]) for m in rep.messages if not m.endswith("(kept)")}
    damage_line = {len(items) + 1} if wrap.startswith("gz") else set()
    if wrap in ("gz-cut", "gz-crc"):
        damage_line = set(range(1, len(items) + 2))
    assert skipped_lines <= bad_lines | damage_line, (skipped_lines, bad_lines)
    if not wrap.startswith("gz"):
        assert rep.skipped + rep.blank >= len(bad_lines)  # every bad line reported (or blank once decoded)
    assert rep.exit_code == (3 if rep.skipped else 0)


# ---------------------------------------------------------------------------------------- the CLI


@pytest.fixture(scope="module")
def small_db(tmp_path_factory):
    from dishgraph.graph.ladybug_store import LadybugStore

    path = tmp_path_factory.mktemp("cli") / "db"
    with LadybugStore(path) as s:
        s.execute("CREATE (:Dish {name: $n})", {"n": "[/x] [link=http://e.x]菜"})
    return path


def _assert_clean(res, codes=frozenset(EXIT_CODES)):
    STATS["cli cases"] += 1
    ok_exc = res.exception is None or isinstance(res.exception, SystemExit)
    if not ok_exc or "Traceback" in res.output:
        STATS["tracebacks"] += 1
    assert ok_exc, repr(res.exception)
    assert "Traceback" not in res.output, res.output
    assert res.exit_code in codes, (res.exit_code, res.output)
    if res.exit_code in (1, 2):
        assert "error" in res.output.lower() or "usage" in res.output.lower(), res.output


CYPHER = st.one_of(
    st.sampled_from(
        [
            "CHECKPOINT",
            "INSTALL httpfs",
            "LOAD FROM '/etc/passwd' RETURN *",
            "CALL threads=4",
            "MATCH (d:Dish) RETURN d.name",
            "MATCH (d:Dish) SET d.name = 'x'",
            "RETURN '[/x]'",
            "RETURN '[link=http://x]y[/link]'",
            "MATCH (n) DETACH DELETE n",
            "COPY Dish FROM 'x.csv'",
            "RETURN 1/0",
            "MATCH (",
            "RETURN $p",
            "EXPORT DATABASE '/tmp/x'",
            "",
            "   ",
            "MATCH (d:Nope) RETURN d",
            "RETURN 'CREATE'",
        ]
    ),
    _text,
)
ARGS = st.one_of(
    CYPHER.map(lambda q: ["db", "shell", q]),
    st.sampled_from(
        [
            [],
            ["--to", ""],
            ["--to", "bolt:/127.0.0.1:1"],
            ["--to", "http://x"],
            ["--to", "neo4j://"],
            ["--to", "bolt://h:99999"],
        ]
    ).map(lambda a: ["sync", *a]),
    _text.map(lambda t: ["order", "check", t, "切菜。"]),
    st.sampled_from([["stats"], ["db", "info"], ["db", "recover"]]),
    _text.map(lambda t: ["ingest", "corpus", t]),
    st.sampled_from(["0", "-5", "abc", "1e9"]).flatmap(
        lambda v: st.sampled_from(
            [
                ["ingest", "corpus", "x.jsonl", "--chunk-size", v],
                ["ingest", "corpus", "x.jsonl", "--load-batch", v],
                ["ingest", "corpus", "x.jsonl", "--workers", v],
            ]
        )
    ),
    st.sampled_from(
        [
            ["ingest", "corpus", "x.jsonl", "--format", "bogus"],
            ["ingest", "corpus", "x.jsonl", "--segmenter", "bogus"],
            ["ingest", "corpus", "x.jsonl", "--encoding", "bogus"],
            ["parse", "@/nonexistent"],
            ["parse", "@/"],
        ]
    ),
)


@settings(max_examples=CLI_ARG_CASES, **SETTINGS)
@given(ARGS)
def test_cli_hostile_arguments_give_a_one_line_error_or_a_result(small_db, args):
    from dishgraph.cli import app

    if args[0] in ("db", "stats", "order", "sync"):
        args = [*args, "--db", str(small_db)]
    res = CliRunner().invoke(app, args)
    _assert_clean(res)
    if args[:2] == ["db", "shell"] and res.exit_code == 0:
        assert "[/x]" not in args[2] or "[/x]" in res.output  # data prints literally


@settings(max_examples=READ_ONLY_CASES, **SETTINGS)
@given(wrapped())
def test_read_only_shell_refuses_every_disguised_write(small_db, stmt):
    """Each forbidden statement of test_readonly.py in comments, quotes, other case, ``;``-chains, lookalikes:
    one line, exit 2, the database untouched (test_readonly.py also checks the file system and the network)."""
    before = small_db.read_bytes()
    res = run_cli(["db", "shell", stmt, "--db", str(small_db)])
    _assert_clean(res)
    STATS["read-only cases"] += 1
    assert res.exit_code == 2 and "refused" in res.output, (stmt, res.output)
    STATS["read-only refused"] += 1
    assert small_db.read_bytes() == before and not small_db.with_name(small_db.name + ".wal").exists()


@settings(max_examples=CLI_INGEST_CASES, **SETTINGS)
@given(corpora())
def test_cli_ingest_stores_every_good_record_and_exits_with_the_documented_code(tmp_path_factory, case):
    from dishgraph.cli import app
    from dishgraph.graph.ladybug_store import LadybugStore

    items, wrap = case
    d = tmp_path_factory.mktemp("hc")
    path = d / ("c.jsonl.gz" if wrap.startswith("gz") else "c.jsonl")
    _write(path, items, wrap)
    args = ["ingest", "corpus", str(path), "--db", str(d / "db"), "-w", "1", "--segmenter", "jieba", "--json"]
    if wrap == "gb18030":
        args += ["--encoding", "gb18030"]
    res = CliRunner().invoke(app, args)
    _assert_clean(res)
    good = {(v["dish"], v["text"]) for k, v in items if k == "good"}
    if wrap == "gz-cut":
        return
    if not good:
        assert res.exit_code == 1 and "no recipe could be read" in " ".join(res.output.split())
        return
    bad = any(k == "bad" for k, _ in items) or wrap == "gz-crc"
    with LadybugStore(d / "db", read_only=True) as s:
        stored = {
            (r["dish"], r["text"])
            for r in s.execute("MATCH (d:Dish)-[:HAS_RECIPE]->(r:Recipe) RETURN d.name AS dish, r.text AS text")
        }
    STATS["cli good records"] += len(good)
    STATS["cli good records lost"] += len(good - stored)
    assert good <= stored
    if bad:
        assert res.exit_code in (0, 3)  # a bad line that is blank after decoding is not skipped input
    else:
        assert res.exit_code == 0


def test_zz_hostile_suite_figures():
    """The closing note's figures (printed with -s; asserted: no traceback, no good record lost)."""
    print("\nhostile suite:", dict(STATS))
    assert STATS["tracebacks"] == 0 and STATS["good records lost"] == 0 and STATS["cli good records lost"] == 0
    assert STATS["read-only refused"] == STATS["read-only cases"]
    if STATS["reader cases"]:
        assert STATS["reader cases"] + STATS["cli cases"] >= 1000
