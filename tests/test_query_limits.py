"""No statement can crash, hang or exhaust the process: size and nesting capped before the engine parses
(hypothesis), a timeout, Ctrl-C, a memory cap in the read-only shell, the guard's cache bounded in bytes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dishgraph.cli import app
from dishgraph.errors import StatementTooComplex
from dishgraph.graph import readonly
from dishgraph.graph.ladybug_store import LadybugStore

run = CliRunner().invoke
LONG = "UNWIND range(1, 100000) AS x UNWIND range(1, 100000) AS y RETURN sum(x * y) AS n"  # 10^10 rows, little memory

NESTERS = {
    "list": ("[", "]"),
    "paren": ("(", ")"),
    "map": ("{a: ", "}"),
    "case": ("CASE WHEN true THEN ", " END"),
    "not": ("NOT ", ""),
}


def _nested(kind: str, depth: int) -> str:
    open_, close = NESTERS[kind]
    inner = "true" if kind == "not" else "1"
    return "RETURN " + open_ * depth + inner + close * depth


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(NESTERS)), st.integers(min_value=1, max_value=3_000))
def test_nesting_is_refused_past_the_cap_and_never_reaches_the_engine(kind, depth):
    text = _nested(kind, depth)
    reason = readonly.shape_reason(text)
    cap = readonly.MAX_CASE_DEPTH if kind == "case" else readonly.MAX_DEPTH
    if len(text) > readonly.MAX_STATEMENT_CHARS:
        assert reason is not None and "characters" in reason
    elif depth > cap:
        assert reason is not None and "deep" in reason
    else:
        assert reason is None


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=0, max_value=3 * readonly.MAX_STATEMENT_CHARS))
def test_size_is_capped_before_lexing(n):
    text = "RETURN 1 // " + "x" * n
    reason = readonly.refused_reason(text)
    assert (reason is not None and "characters" in reason) == (len(text) > readonly.MAX_STATEMENT_CHARS)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["(", ")", "[", "]", "{", "}", "CASE ", " END ", "NOT ", "1", ",", " "]), max_size=80))
def test_the_shape_check_never_raises_on_any_token_soup(parts):
    readonly.shape_reason("RETURN " + "".join(parts))  # a reason or None, never an exception


def test_every_named_query_passes_the_shape_check():
    from pathlib import Path

    import dishgraph

    for path in (Path(dishgraph.__file__).parent / "cypher").glob("*.cypher"):
        assert readonly.shape_reason(path.read_text(encoding="utf-8")) is None, path.name


def test_the_guard_cache_is_bounded_in_characters():
    for i in range(40):
        readonly.refused_reason(f"RETURN {i} // " + "x" * 19_000)
    for i in range(5):
        readonly.refused_reason(f"RETURN {i} // " + "y" * 1_000_000)  # too large to be kept at all
    assert readonly._REASONS.chars <= readonly._TextCache.TOTAL_CHARS


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("qdb") / "db"
    with LadybugStore(path) as s:
        s.execute("CREATE (:Dish {name: 'a'})")
    return path


def test_the_api_refuses_a_crashing_statement_on_any_open(db):
    with LadybugStore(db, read_only=True) as s:
        with pytest.raises(StatementTooComplex):
            s.execute(_nested("list", 1000))
        assert s.execute("MATCH (d:Dish) RETURN d.name AS n") == [{"n": "a"}]


def test_the_shell_refuses_deep_nesting_with_exit_2(db):
    res = run(app, ["db", "shell", _nested("list", 1000), "--db", str(db)])
    assert res.exit_code == 2 and "nested more than" in res.output
    res = run(app, ["db", "shell", "--write", _nested("not", 50_000), "--db", str(db)])
    assert res.exit_code == 2 and "characters" in res.output


def test_a_statement_past_its_timeout_is_stopped(db):
    res = run(app, ["db", "shell", LONG, "--db", str(db), "--timeout", "0.2"])
    assert res.exit_code == 1 and "timeout of 0.2 s" in " ".join(res.output.split()), res.output


def test_the_memory_cap_is_lifted_when_the_store_closes(db):
    import resource

    before = resource.getrlimit(resource.RLIMIT_AS)
    with LadybugStore(db, read_only=True) as s:
        s.limit_memory(256 * 2**20)
        assert resource.getrlimit(resource.RLIMIT_AS)[0] != before[0]
    assert resource.getrlimit(resource.RLIMIT_AS) == before


def test_an_exhausting_read_fails_with_a_message_in_the_shell(db):
    # In a process of its own: the cap (RLIMIT_AS) stays for the rest of the process.
    cmd = [sys.executable, "-m", "dishgraph.cli", "db", "shell", "RETURN size(range(1, 2000000000)) AS n"]
    p = subprocess.run([*cmd, "--db", str(db), "--memory-mb", "512"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "more memory" in p.stderr, p.stderr
    with LadybugStore(db, read_only=True) as s:
        assert s.execute("MATCH (d:Dish) RETURN count(d) AS n") == [{"n": 1}]


def _wait_for_the_reader(p, db, limit: float = 60.0) -> None:
    """Until the process has the engine loaded (its library in the process's memory map): the Ctrl-C must
    reach a running statement, not an interpreter still importing (whose KeyboardInterrupt is another path)."""
    maps = f"/proc/{p.pid}/maps"
    end = time.monotonic() + limit
    while time.monotonic() < end and p.poll() is None:
        try:
            if "ladybug" in open(maps, encoding="utf-8", errors="replace").read():
                return
        except OSError:
            return  # no /proc here: the fixed wait after this is all there is
        time.sleep(0.1)


def test_ctrl_c_stops_a_running_statement_with_exit_130(db):
    cmd = [sys.executable, "-m", "dishgraph.cli", "db", "shell", LONG]
    p = subprocess.Popen(
        [*cmd, "--db", str(db), "--timeout", "0"],
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as a terminal delivers it: a pytest-xdist worker ignores SIGINT, and a child inherits an ignored
        # signal (Python then installs no KeyboardInterrupt handler at all)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    _wait_for_the_reader(p, db)  # on a loaded machine the start alone can take longer than any fixed sleep
    time.sleep(3)  # the database opened and the statement inside the engine
    t = time.monotonic()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 130 and "interrupted" in err
    assert time.monotonic() - t < 10
    assert not os.path.exists(f"{db}.wal") or os.path.getsize(f"{db}.wal") == 0


def test_ctrl_c_while_the_statement_thread_starts_still_stops_it(db, monkeypatch):
    """On a loaded machine a Ctrl-C can land while the statement's thread is being started (start() waits for
    it to run); it once skipped the interrupt, and the 10^10-row statement ran on while the command exited."""
    import threading

    start = threading.Thread.start

    def start_then_ctrl_c(thread):
        start(thread)
        if thread.name == "dishgraph-query":
            raise KeyboardInterrupt

    with LadybugStore(db, read_only=True) as s:
        s.interruptible = True
        monkeypatch.setattr(threading.Thread, "start", start_then_ctrl_c)
        t = time.monotonic()
        with pytest.raises(KeyboardInterrupt) as stopped:
            s.execute(LONG)
        monkeypatch.undo()
        for thread in [x for x in threading.enumerate() if x.name == "dishgraph-query"]:
            thread.join(timeout=3)
            if thread.is_alive():  # still running: fail here, not hang in close() (which would wait for it)
                s._abandon()
                pytest.fail("the statement ran on after Ctrl-C")
        assert type(stopped.value) is KeyboardInterrupt  # stopped, not abandoned still running
        assert time.monotonic() - t < 3
        assert s.execute("MATCH (d:Dish) RETURN count(d) AS n") == [{"n": 1}]


# Chains: the engine (LadybugDB 0.22) crashes (SIGSEGV) on about 8,000 operators in a row, 8,000 subscripts
# or 9,000 property accesses in a row, however flat; the caps stop far below, for read-only and --write alike.
CHAIN_OPS = [
    "+",
    "-",
    "*",
    "/",
    "%",
    "^",
    " AND ",
    " OR ",
    " XOR ",
    "=",
    "<",
    "<>",
    " IN ",
    " CONTAINS ",
    " STARTS WITH ",
]
GAPS = [" ", "", "\r", "\n", "\r\n", "\t", " \u3000 "]  # a lone CR and non-ASCII space: the lexer refuses both
OPERANDS = ["1", "'a'", "'菜'", "菜", "é", "[1]", "x", "true", "$p", "(1)"]
STEPS = [
    *((f"op{o.strip()}", lambda g, a, o=o: f"{g}{o}{g}{a}") for o in CHAIN_OPS),
    ("subscript", lambda g, a: f"{g}[0]"),
    ("property", lambda g, a: f"{g}.p"),
    ("concat", lambda g, a: f"{g}+{g}'菜\r'"),
]


def _chain(step: int, gap: str, operand: str, n: int, depth: int) -> str:
    _, make = STEPS[step]
    return "RETURN " + "[" * depth + operand + make(gap, operand) * n + "]" * depth


@settings(max_examples=80, deadline=None)
@given(
    st.integers(0, len(STEPS) - 1),
    st.sampled_from(GAPS),
    st.sampled_from(OPERANDS),
    st.one_of(st.integers(0, 2 * readonly.MAX_CHAIN), st.integers(0, 12_000)),
    st.integers(0, 4),
)
def test_chains_of_every_operator_are_capped_before_the_engine(step, gap, operand, n, depth):
    """Through the guard only (the engine crashes on the long ones): every chain past the cap is refused,
    whatever the gaps (a lone CR, non-ASCII) or operands (non-ASCII outside a string); one well under it
    passes."""
    text = _chain(step, gap, operand, n, depth)
    reason = readonly.shape_reason(text)
    if n > readonly.MAX_CHAIN:
        assert reason is not None, text[:80]
    elif n <= readonly.MAX_CHAIN // 2 and len(text) <= readonly.MAX_STATEMENT_CHARS:
        assert reason is None, (reason, text[:80])


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(GAPS), st.integers(0, 8_000), st.sampled_from(["1", "'菜'", "[1]", "{a: 1}"]))
def test_list_elements_are_capped(gap, n, item):
    text = "RETURN [" + f",{gap}".join([item] * n) + "]"
    reason = readonly.shape_reason(text)
    small = (
        len(text) <= readonly.MAX_STATEMENT_CHARS and len(readonly.tokens(text, tolerant=True)) <= readonly.MAX_TOKENS
    )
    assert (reason is None) == (n <= readonly.MAX_ITEMS and small), reason


def test_tokens_are_capped_and_counted_only_up_to_the_cap():
    text = "RETURN " + ", ".join(["[" + ",".join(["1"] * 100) + "]"] * 120)  # 24,000 tokens, no other cap
    assert "tokens" in readonly.shape_reason(text)
    t = time.perf_counter()
    assert "tokens" in readonly._shape_reason("RETURN [1]" + "[0]" * 24_999)
    assert time.perf_counter() - t < 2


# The probe's reproductions (each was SIGSEGV, exit -11, with no message).
PROBE = {
    "plus": "RETURN " + "+".join(["1"] * 10_000),
    "subscripts": "RETURN [1]" + "[0]" * 30_000,
    "properties": "WITH {p: 1} AS m RETURN m" + ".p" * 10_000,
    "power": "RETURN " + "^".join(["2"] * 9_000),
    "times": "RETURN " + "*".join(["1"] * 9_000),
    "concat": "RETURN " + "+".join(["'菜'"] * 9_000),
    "cr list": "RETURN \r" + "[" * 1_000 + "1" + "]" * 1_000,
    "non-ascii list": "RETURN " + "[" * 1_000 + "é" + "]" * 1_000,
}


@pytest.mark.parametrize("name", sorted(PROBE))
def test_the_probes_crashing_shapes_are_refused_in_the_shell_and_the_api(db, name):
    text = PROBE[name]
    for extra in ([], ["--write"]):
        res = run(app, ["db", "shell", text, "--db", str(db), *extra])
        assert res.exit_code == 2, (extra, res.output[-300:])
        out = " ".join(res.output.split())
        assert "refused" in out and "Traceback" not in out and len(res.output.strip().splitlines()) <= 3, out
    with LadybugStore(db) as s:
        with pytest.raises(StatementTooComplex):
            s.execute(text)


WORST_AT_THE_CAP = [
    _chain(0, " ", "1", readonly.MAX_CHAIN, 0),  # +
    _chain(5, "\r", "2", readonly.MAX_CHAIN, 0),  # ^ with lone CRs
    _chain(CHAIN_OPS.index(" IN "), " ", "1", readonly.MAX_CHAIN - 1, 0),
    _chain(len(CHAIN_OPS), "", "[1]", readonly.MAX_CHAIN, 0),  # subscripts
    "WITH {p: 1} AS m RETURN m" + ".p" * readonly.MAX_CHAIN,
    _chain(len(CHAIN_OPS) + 2, "\r", "'菜'", readonly.MAX_CHAIN // 2, 0),  # concatenation with lone CRs
    "RETURN [" + ",".join(["'é'"] * readonly.MAX_ITEMS) + "]",
    "RETURN "
    + "[" * (readonly.MAX_DEPTH - 1)
    + "+".join(["1"] * (readonly.MAX_CHAIN - 30))
    + "]" * (readonly.MAX_DEPTH - 1),
]


def test_the_worst_shapes_the_caps_let_through_do_not_crash_the_engine(db, tmp_path):
    """In a subprocess (a crash there is a failing exit code, not a dead test run), on a read-write open."""
    for text in WORST_AT_THE_CAP:
        assert readonly.shape_reason(text) is None, text[:60]
    (tmp_path / "texts.json").write_text(__import__("json").dumps(WORST_AT_THE_CAP), encoding="utf-8")
    script = (
        "import json, sys\n"
        "from dishgraph.graph.ladybug_store import LadybugStore\n"
        "with LadybugStore(sys.argv[1]) as s:\n"
        "    for t in json.load(open(sys.argv[2], encoding='utf-8')):\n"
        "        try:\n"
        "            s.execute(t, {'p': 1})\n"
        "        except RuntimeError:\n"
        "            pass  # an engine error is a message, not a crash\n"
        "print('survived')\n"
    )
    db2 = tmp_path / "db"
    p = subprocess.run(
        [sys.executable, "-c", script, str(db2), str(tmp_path / "texts.json")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    assert p.returncode == 0 and "survived" in p.stdout, (p.returncode, p.stderr[-500:])


def test_the_timeout_holds_while_rows_are_read_and_printed(db):
    """`--max-rows 0` on 5,000,000 rows ran far past --timeout: the engine's timeout ended when it handed over
    the result, and reading the rows (45 s) and drawing the table (about an hour) were never timed."""
    t = time.monotonic()
    res = run(app, ["db", "shell", "UNWIND range(1, 5000000) AS x RETURN x", "--db", str(db), "--timeout", "1.5",
                    "--max-rows", "0"])  # fmt: skip
    out = " ".join(res.output.split())
    assert res.exit_code == 1 and "timeout of 1.5 s while its rows were read" in out, out[-300:]
    assert time.monotonic() - t < 15
    t = time.monotonic()  # few enough rows to read in time, too many to draw in it
    res = run(app, ["db", "shell", "UNWIND range(1, 30000) AS x RETURN x", "--db", str(db), "--timeout", "1",
                    "--max-rows", "0"])  # fmt: skip
    out = " ".join(res.output.split())
    assert res.exit_code == 1 and "while its rows were printed" in out and "of 30,000 shown" in out, out[-300:]
    assert time.monotonic() - t < 15
    res = run(app, ["db", "shell", "UNWIND range(1, 2500) AS x RETURN x", "--db", str(db), "--max-rows", "0"])
    assert res.exit_code == 0 and "│ 2500 │" in res.output  # pages: every row still shown
