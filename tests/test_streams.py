"""Streams read once, line ends that cannot split a JSON line, bounded memory on the progress path, and inputs
no reader should open (a device, a link loop)."""

from __future__ import annotations

import json
import os
import threading
import tracemalloc
from pathlib import Path

import pytest

from dishgraph.ingest.readers import ReadReport, estimate_records, read_corpus


def _records(n: int) -> list[str]:
    return [json.dumps({"dish": f"菜{i}", "text": f"将鸡蛋打散{i}。下锅炒熟。"}, ensure_ascii=False) for i in range(n)]


def _feed(path: str, data: bytes) -> threading.Thread:
    def write() -> None:
        with open(path, "wb") as fh:
            fh.write(data)

    t = threading.Thread(target=write, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("name", ["corpus.jsonl", "corpus"])  # a FIFO without a suffix used to hang
def test_a_fifo_is_read_once_every_record_counted(tmp_path, name):
    fifo = tmp_path / name
    os.mkfifo(fifo)
    lines = _records(300)  # far more than the sniffed head
    writer = _feed(str(fifo), ("\n".join(lines) + "\n").encode("utf-8"))
    rep = ReadReport()
    got = [r.dish for r in read_corpus(fifo, report=rep)]
    writer.join(5)
    assert got == [f"菜{i}" for i in range(300)] and rep.read == 300
    assert estimate_records(fifo) is None  # never a second read of a stream


def test_a_pipe_as_dev_fd_is_read_once(tmp_path):
    r, w = os.pipe()
    lines = _records(200)
    data = ("\n".join(lines) + "\n").encode("utf-8")

    def write() -> None:
        with os.fdopen(w, "wb") as fh:
            fh.write(data)

    t = threading.Thread(target=write, daemon=True)
    t.start()
    try:
        got = list(read_corpus(Path(f"/dev/fd/{r}")))
    finally:
        t.join(5)
        os.close(r)
    assert len(got) == 200


def test_a_raw_cr_in_a_long_first_line_does_not_split_it(tmp_path):
    recs = _records(6)
    first = recs[0][:-1] + ',\r"pad": ' + json.dumps("x" * 140_000) + "}"
    path = tmp_path / "cr.jsonl"
    path.write_bytes(("\n".join([first, *recs[1:]]) + "\n").encode("utf-8"))
    assert [r.dish for r in read_corpus(path)] == [f"菜{i}" for i in range(6)]


@pytest.mark.parametrize("pad", [0, 200_000])
def test_cr_only_line_ends_are_still_read(tmp_path, pad):
    recs = _records(5)
    if pad:
        recs = [r[:-1] + ', "pad": ' + json.dumps("y" * pad) + "}" for r in recs]
    path = tmp_path / "mac.jsonl"
    path.write_bytes("\r".join(recs).encode("utf-8"))
    assert len(list(read_corpus(path))) == 5


def test_the_progress_estimate_never_holds_a_long_line(tmp_path):
    path = tmp_path / "one.txt"
    path.write_bytes("将鸡蛋打散。".encode() * 2_000_000)  # 36 MB, one line, no line end
    tracemalloc.start()
    try:
        n = estimate_records(path, "tsv")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert n == 1 and peak < 2_000_000


def test_a_device_and_a_link_loop_are_refused_naming_the_path(tmp_path):
    with pytest.raises(OSError, match="a device"):
        list(read_corpus(Path("/dev/zero"), format="jsonl"))
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(OSError, match="symbolic link loop"):
        list(read_corpus(loop, format="jsonl"))
