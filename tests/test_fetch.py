"""`fetch_release` against a local HTTP server laid out like raw.githubusercontent.com."""

from __future__ import annotations

import functools
import json
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from typer.testing import CliRunner

from dishgraph.cli import app
from dishgraph.ingest.fetch import (
    ALL_FILES,
    DERIVED,
    DOWNLOADED,
    FetchError,
    HashMismatchError,
    fetch_release,
    locate,
    sha256_file,
)
from dishgraph.ingest.readers import read_crg_release
from dishgraph.pcs.tables import read_pcs


def read_pcs_split(folder):
    return [(t.id, t.annotator, len(t.rows)) for t in read_pcs(folder)]


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def server(tmp_path, data_dir):
    """Serve the released files at BASE/OWNER/REPO/COMMIT/PATH from a temp dir; yields (base_url, root)."""
    root = tmp_path / "www"
    for spec in DOWNLOADED:
        target = root / spec.repo / spec.commit / spec.path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(data_dir / spec.dest, target)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", root
    httpd.shutdown()
    httpd.server_close()


def test_pinned_hashes_are_those_of_the_shared_data(data_dir):
    for spec in ALL_FILES:
        assert sha256_file(data_dir / spec.dest) == spec.sha256, spec.dest
        assert (data_dir / spec.dest).stat().st_size == spec.size
    assert DOWNLOADED[0].url() == (
        "https://raw.githubusercontent.com/xxxiaol/counterfactual-recipe-generation/"
        "4757de1a63be13f57e15b4dc35fed15fd813d98f/data/base_recipes.txt"
    )


def test_fetch_downloads_verifies_derives_and_skips(server, tmp_path, data_dir):
    base_url, _ = server
    dest = tmp_path / "data"
    seen: dict[str, int] = {}
    results = fetch_release(
        dest, base_url=base_url, on_progress=lambda s, n: seen.__setitem__(s.dest, seen.get(s.dest, 0) + n)
    )
    status = {r.dest: r.status for r in results}
    assert status == {**{s.dest: "downloaded" for s in DOWNLOADED}, **{s.dest: "derived" for s in DERIVED}}
    assert seen == {s.dest: s.size for s in DOWNLOADED}
    for spec in ALL_FILES:  # derived JSON is byte-identical to the published copies
        assert (dest / spec.dest).read_bytes() == (data_dir / spec.dest).read_bytes(), spec.dest
    assert not list(dest.rglob("*.part"))
    rel = read_crg_release(dest / "counterfactual")
    assert len(rel.pairs) == 50 and sum(len(v) for v in rel.pivots.values()) == 1121

    again = fetch_release(dest, base_url=base_url)
    assert {r.status for r in again} == {"present"}

    (dest / "counterfactual" / "dish_pairs.txt").write_text("stale\n", encoding="utf-8")
    third = fetch_release(dest, base_url=base_url)
    assert {r.dest: r.status for r in third}["counterfactual/dish_pairs.txt"] == "replaced"
    assert sha256_file(dest / "counterfactual" / "dish_pairs.txt") == DOWNLOADED[1].sha256


def test_corrupted_download_is_a_clear_error_and_writes_nothing(server, tmp_path):
    base_url, root = server
    bad = DOWNLOADED[2]  # changing_ingres.txt
    served = root / bad.repo / bad.commit / bad.path
    served.write_bytes(served.read_bytes().replace("秋葵".encode(), "黄瓜".encode()))
    dest = tmp_path / "data"
    with pytest.raises(HashMismatchError) as e:
        fetch_release(dest, base_url=base_url)
    msg = str(e.value)
    assert bad.url(base_url) in msg and f"expected {bad.sha256}" in msg and "nothing written" in msg
    assert not (dest / bad.dest).exists()
    assert not list(dest.rglob("*.part")) and not list(dest.rglob(".*"))
    assert (dest / DOWNLOADED[0].dest).exists()  # files before it were completed and kept


def test_missing_file_on_server(server, tmp_path):
    base_url, root = server
    spec = next(s for s in DOWNLOADED if s.dest == "diner/glossary.json")
    (root / spec.repo / spec.commit / spec.path).unlink()
    with pytest.raises(FetchError, match=r"data/glossary.json: HTTP 404"):
        fetch_release(tmp_path / "data", base_url=base_url)
    assert not (tmp_path / "data" / spec.dest).exists()


def test_unreachable_server(tmp_path):
    with pytest.raises(FetchError, match="download failed"):
        fetch_release(tmp_path / "data", base_url="http://127.0.0.1:9", timeout=5)
    assert not list((tmp_path / "data").rglob("*.part"))


def test_locate(tmp_path, data_dir):
    loc = locate(data_dir)
    assert loc.root == str(data_dir) and loc.error is None
    assert all(f.exists and f.verified for f in loc.files) and len(loc.files) == len(ALL_FILES) == 9 + 997 + 1
    empty = locate(tmp_path / "empty", verify=False)  # an explicit directory is used or refused, never replaced
    assert empty.root is None and "no CRG release there" in empty.error


def test_cli_fetch_and_locate(server, tmp_path, monkeypatch, data_dir):
    base_url, _ = server
    runner = CliRunner()
    dest = tmp_path / "d"
    res = runner.invoke(app, ["data", "fetch", "--data", str(dest), "--base-url", base_url, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["dest"] == str(dest) and len(out["files"]) == len(ALL_FILES)
    res = runner.invoke(app, ["data", "fetch", "--data", str(dest), "--base-url", base_url])
    assert res.exit_code == 0 and "pizzacommonsense/train/* (744 files)" in res.output.replace("\n", "")
    assert "pizzacommonsense: MIT" in res.output
    assert read_pcs_split(dest / "pizzacommonsense" / "val") == read_pcs_split(data_dir / "pizzacommonsense" / "val")
    monkeypatch.setenv("DISHGRAPH_DATA", str(dest))
    res = runner.invoke(app, ["data", "locate", "--json"])
    assert res.exit_code == 0, res.output
    loc = json.loads(res.stdout)
    assert loc["root"] == str(dest.resolve()) and all(f["verified"] for f in loc["files"])
    res = runner.invoke(app, ["data", "locate"])
    assert res.exit_code == 0 and str(dest.resolve()) in res.output.replace("\n", "")
    (dest / "diner" / "glossary.json").unlink()
    res = runner.invoke(app, ["data", "locate"])
    assert res.exit_code == 1 and "NO" in res.output
