"""Every file input has a size cap, and a ``.gz`` a ratio cap: a 2 MB gzip of 2 GB of newlines (or 1 GB of
brackets) ran `ingest corpus` past 120 s; a whole-file input is refused with its size before it is read.
Bombs and big inputs are made here, in tmp dirs (sparse files where only the size matters)."""

from __future__ import annotations

import json
import time
import zlib

import pytest
import typer
from click.testing import CliRunner

from dishgraph.cli import app
from dishgraph.cli_outputs import WHOLE_FILE_CAPS
from dishgraph.ingest.readers import lines
from dishgraph.pcs.tables import MAX_TABLE_FILE_BYTES

ROOT = typer.main.get_command(app)


def run(args):
    return CliRunner().invoke(ROOT, [str(a) for a in args])


def _out(res) -> str:
    assert "Traceback" not in res.output
    return " ".join(res.output.split())


@pytest.fixture(scope="module")
def real_lines(data_dir):
    with open(data_dir / "xiachufang" / "recipes.jsonl", encoding="utf-8") as fh:
        return [next(fh).rstrip("\n") for _ in range(16)]


def _gz(path, parts, level=9):
    c = zlib.compressobj(level, zlib.DEFLATED, 31)
    with open(path, "wb") as fh:
        for part in parts:
            fh.write(c.compress(part))
        fh.write(c.flush())
    return path


@pytest.mark.parametrize("filler", [b"\n", b"["])
def test_a_gzip_bomb_stops_at_the_ratio_cap_after_the_good_records_before_it(tmp_path, real_lines, filler):
    head = ("\n".join(real_lines[:10]) + "\n").encode()
    tail = ("\n" + "\n".join(real_lines[10:]) + "\n").encode()
    block = filler * (1 << 20)
    bomb = _gz(tmp_path / "bomb.jsonl.gz", [head, *([block] * 48), tail])  # 48 MiB in about 50 KB
    assert bomb.stat().st_size * lines.MAX_GZIP_RATIO < 48 << 20
    t = time.monotonic()
    res = run(["ingest", "corpus", bomb, "--db", tmp_path / "db", "-w", "1", "--segmenter", "jieba", "--json"])
    assert time.monotonic() - t < 20
    out = json.loads(res.stdout[res.stdout.index("{") :])
    assert res.exit_code == 3, _out(res)
    assert out["recipes"] == 10  # every record before the bomb is stored
    stop = [m for m in out["messages"] if "decompression bomb" in m]
    assert len(stop) == 1 and stop[0].startswith(f"{bomb}:") and "at most 100x" in stop[0], out["messages"]
    assert out["skipped_by_reason"].get("too-large") == 1


def test_a_real_gzip_corpus_is_read_whole(tmp_path, real_lines):
    good = _gz(tmp_path / "good.jsonl.gz", [("\n".join(real_lines) + "\n").encode() * 40])  # about 3x
    res = run(["ingest", "corpus", good, "--db", tmp_path / "db", "-w", "1", "--segmenter", "jieba", "--json"])
    out = json.loads(res.stdout[res.stdout.index("{") :])
    assert "too-large" not in out["skipped_by_reason"], out["messages"]


def test_the_ratio_and_size_caps_name_the_figures(monkeypatch):
    class Src:
        def tell(self):
            return 10_000

    assert lines._past_cap(lines.RATIO_FLOOR, Src()) is None  # a small file is never judged by its ratio
    why = lines._past_cap(200 * 10_000 + lines.RATIO_FLOOR, Src())
    assert "decompresses past 304x" in why and "at most 100x" in why
    monkeypatch.setattr(lines, "MAX_STREAM_BYTES", 1 << 30)
    assert "yields past 1.0 GiB" in lines._past_cap((1 << 30) + 1, None)


def test_every_whole_file_cap_names_a_real_option():
    from tests.test_outputs import LEAVES

    params = {(name, p.name) for name, cmd in LEAVES.items() for p in cmd.params}
    for key in WHOLE_FILE_CAPS:
        command, name = key.split(":")
        assert any(n == name and (command == "*" or c == command) for c, n in params), key


def _sparse(path, size):
    with open(path, "wb") as fh:
        fh.truncate(size)
    return path


@pytest.mark.parametrize(
    "args, cap",
    [
        (["eval", "l2", "{big}"], "eval l2:out"),
        (["eval", "l2", "{small}", "--pivots", "{big}"], "*:pivots"),
        (["eval", "l2", "{small}", "--constraints", "{big}"], "*:constraints"),
        (["pivots", "import-annotation", "{big}"], "pivots import-annotation:files"),
        (["diner", "parse", "--names-file", "{big}"], "*:names_file"),
        (["parse", "切菜", "--glossary", "{big}"], "*:glossary"),
        (["glossary", "build", "{big}", "-o", "{tmp}/g.json"], "glossary build:corpus"),
        (["ingest", "pcs", "{big}"], "ingest pcs:file"),
        (["pcs", "serialize", "{big}"], "pcs serialize:file"),
        (["eval", "diner", "{big}"], "eval diner:predictions"),
    ],
)
def test_a_whole_file_input_past_its_cap_is_refused_with_its_size(tmp_path, args, cap):
    big = _sparse(tmp_path / "big.json", WHOLE_FILE_CAPS[cap] + 1)
    small = tmp_path / "small.txt"
    small.write_text("x\n", encoding="utf-8")
    filled = [a.format(big=big, small=small, tmp=tmp_path) for a in args]
    res = run([*filled, "--db", tmp_path / "db"] if args[0] in ("eval", "pivots", "ingest") else filled)
    out = _out(res)
    assert res.exit_code == 1, out
    assert f"{big}: " in out and "is read whole, at most" in out and "MiB" in out, out


def test_a_pcs_directory_skips_an_oversized_table_file_by_name(tmp_path, data_dir):
    src = sorted((data_dir / "pizzacommonsense" / "train").glob("*.txt"))[0]
    d = tmp_path / "pcs"
    d.mkdir()
    (d / src.name).write_bytes(src.read_bytes())
    big = _sparse(d / "zz_big.json", MAX_TABLE_FILE_BYTES + 1)
    res = run(["ingest", "pcs", d, "--db", tmp_path / "db"])
    out = _out(res)
    assert res.exit_code == 3, out
    assert str(big) in out and "read whole, at most 1,048,576 bytes" in out, out


def test_every_workers_option_is_capped_by_cores_and_memory():
    """`--workers 200` started 200 interpreters; ingest capped it, demo, eval crg, pcs benchmark and order
    estimate did not. Every command's --workers passes the same cap at the CLI edge, so a new one does too."""
    import os

    import dishgraph.cli_errors as ce
    from tests.test_outputs import LEAVES

    with_workers = {name for name, cmd in LEAVES.items() if any(p.name == "workers" for p in cmd.params)}
    assert {"demo", "eval crg", "pcs benchmark", "order estimate", "ingest corpus"} <= with_workers, with_workers
    got: dict = {}
    for name in sorted(with_workers):
        got.clear()
        ce._guarded(lambda **kw: got.update(kw), name)(workers=10_000)
        assert 1 <= got["workers"] <= 2 * (os.cpu_count() or 1), (name, got)
    assert run(["demo", "--workers", "0"]).exit_code == 2


def test_a_lone_surrogate_in_a_corpus_record_skips_it_by_name(tmp_path, real_lines):
    """A JSON ``\\ud83d`` without its partner decodes to no character; it was dropped quietly and the record
    stored changed. Now the record is skipped and named with its line; the others are stored."""
    good = json.loads(real_lines[0])
    bad = [
        '{"dish": "菜\\ud83d", "text": "1、切菜。2、炒菜。"}',
        '{"dish": "炒菜", "text": "1、切菜\\udc00。2、炒菜。"}',
        '{"dish": "炒菜", "title": "x\\ud800", "steps": ["切菜", "炒菜"]}',
    ]
    f = tmp_path / "s.jsonl"
    f.write_text("\n".join([json.dumps(good, ensure_ascii=False), *bad, real_lines[1]]) + "\n", encoding="utf-8")
    res = run(["ingest", "corpus", f, "--db", tmp_path / "db", "-w", "1", "--segmenter", "jieba", "--json"])
    out = json.loads(res.stdout[res.stdout.index("{") :])
    assert res.exit_code == 3 and out["recipes"] == 2, _out(res)
    assert out["skipped_by_reason"] == {"surrogate": 3}
    named = sorted(m.split(": ", 1)[0] for m in out["messages"] if "lone surrogate" in m)
    assert named == [f"{f}:2", f"{f}:3", f"{f}:4"], out["messages"]
