"""`fetch_release` against a local HTTP server laid out like raw.githubusercontent.com."""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from typer.testing import CliRunner

from dishgraph.cli import app
from dishgraph.ingest.fetch import (
    DERIVED,
    DOWNLOADED,
    READ_FILES,
    SOURCES_DIR,
    FetchError,
    HashMismatchError,
    ReleaseFile,
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


# What the shared data holds as the upstream repositories serve it (the corpora's source files are not in
# it: their fetch and rebuild are tested on small sources below, and on the real ones by
# benchmarks/check_corpus_sources.py).
SERVED = tuple(s for s in DOWNLOADED if not s.dest.startswith(SOURCES_DIR))
MADE = tuple(s for s in DERIVED if not s.dest.endswith("/recipes.jsonl"))


@pytest.fixture
def server(tmp_path, data_dir):
    """Serve the released files at BASE/OWNER/REPO/COMMIT/PATH from a temp dir; yields (base_url, root)."""
    root = tmp_path / "www"
    for spec in SERVED:
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
    for spec in READ_FILES:
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
        dest,
        base_url=base_url,
        files=SERVED,
        derived=MADE,
        on_progress=lambda s, n: seen.__setitem__(s.dest, seen.get(s.dest, 0) + n),
    )
    status = {r.dest: r.status for r in results}
    assert status == {**{s.dest: "downloaded" for s in SERVED}, **{s.dest: "derived" for s in MADE}}
    assert seen == {s.dest: s.size for s in SERVED}
    for spec in SERVED + MADE:  # derived JSON is byte-identical to the published copies
        assert (dest / spec.dest).read_bytes() == (data_dir / spec.dest).read_bytes(), spec.dest
    assert not list(dest.rglob("*.part"))
    rel = read_crg_release(dest / "counterfactual")
    assert len(rel.pairs) == 50 and sum(len(v) for v in rel.pivots.values()) == 1121

    again = fetch_release(dest, base_url=base_url, files=SERVED, derived=MADE)
    assert {r.status for r in again} == {"present"}

    (dest / "counterfactual" / "dish_pairs.txt").write_text("stale\n", encoding="utf-8")
    third = fetch_release(dest, base_url=base_url, files=SERVED, derived=MADE)
    assert {r.dest: r.status for r in third}["counterfactual/dish_pairs.txt"] == "replaced"
    assert sha256_file(dest / "counterfactual" / "dish_pairs.txt") == DOWNLOADED[1].sha256


def test_corrupted_download_is_a_clear_error_and_writes_nothing(server, tmp_path):
    base_url, root = server
    bad = DOWNLOADED[2]  # changing_ingres.txt
    served = root / bad.repo / bad.commit / bad.path
    served.write_bytes(served.read_bytes().replace("秋葵".encode(), "黄瓜".encode()))
    dest = tmp_path / "data"
    with pytest.raises(HashMismatchError) as e:
        fetch_release(dest, base_url=base_url, files=SERVED, derived=MADE)
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
        fetch_release(tmp_path / "data", base_url=base_url, files=SERVED, derived=MADE)
    assert not (tmp_path / "data" / spec.dest).exists()


def test_unreachable_server(tmp_path):
    with pytest.raises(FetchError, match="download failed"):
        fetch_release(tmp_path / "data", base_url="http://127.0.0.1:9", timeout=5)
    assert not list((tmp_path / "data").rglob("*.part"))


def test_locate(tmp_path, data_dir):
    loc = locate(data_dir)
    assert loc.root == str(data_dir) and loc.error is None
    assert all(f.exists and f.verified for f in loc.files) and len(loc.files) == len(READ_FILES) == 9 + 997 + 1 + 2
    empty = locate(tmp_path / "empty", verify=False)  # an explicit directory is used or refused, never replaced
    assert empty.root is None and "no CRG release there" in empty.error


def test_cli_fetch_and_locate(server, tmp_path, monkeypatch, data_dir):
    base_url, _ = server
    runner = CliRunner()
    dest = tmp_path / "d"
    only = ["--only", "counterfactual", "--only", "diner", "--only", "pizzacommonsense"]
    res = runner.invoke(app, ["data", "fetch", "--data", str(dest), "--base-url", base_url, *only, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["dest"] == str(dest) and len(out["files"]) == len(SERVED + MADE)
    res = runner.invoke(app, ["data", "fetch", "--data", str(dest), "--base-url", base_url, *only])
    assert res.exit_code == 0 and "pizzacommonsense/train/* (744 files)" in res.output.replace("\n", "")
    assert "pizzacommonsense: MIT" in res.output
    assert read_pcs_split(dest / "pizzacommonsense" / "val") == read_pcs_split(data_dir / "pizzacommonsense" / "val")
    res = runner.invoke(app, ["data", "fetch", "--data", str(dest), "--only", "nope"])
    assert res.exit_code == 2 and "unknown data set 'nope'" in res.output
    for corpus in ("xiachufang", "classic"):  # rebuilt from their sources in the test below; here as shared
        shutil.copytree(data_dir / corpus, dest / corpus)
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


def _trace_line(*recipes) -> str:
    return json.dumps({f"dup{k}": r for k, r in enumerate(recipes, 1)}, ensure_ascii=False)


def test_a_corpus_is_downloaded_from_its_sources_and_rebuilt(tmp_path, data_dir, monkeypatch):
    """The mechanics of the corpora, on small sources served from loopback: each source verified, the corpus
    rebuilt and checked against its pinned hash, kept on a re-run, rebuilt when damaged; a source whose bytes
    changed upstream is refused. (The real sources: benchmarks/check_corpus_sources.py.)"""
    from dishgraph.ingest import corpus_build

    trace = "data_cleaning/exp1/trace/duplicate-document_minhash_deduplicator.jsonl"
    step = {"name": "番茄炒蛋的做法", "dish": "番茄炒蛋", "recipeInstructions": ["1. 鸡蛋打散", "番茄切块，", "炒熟"]}
    other = {"name": "凉拌黄瓜", "dish": "Unknown", "recipeInstructions": ["黄瓜拍碎。", "加醋"]}
    body = (_trace_line(step, step) + "\n" + _trace_line(other) + "\n").encode("utf-8")
    source = {"dataset": "xiachufang", "repo": "owner/repo", "commit": "c" * 40, "path": trace}
    source |= {"sha256": hashlib.sha256(body).hexdigest(), "size": len(body)}
    monkeypatch.setattr(corpus_build, "SOURCES", [source])
    monkeypatch.setattr(corpus_build, "XIACHUFANG_PATHS", [trace])
    built = corpus_build.build_xiachufang({trace: body}, (data_dir / "counterfactual/base_recipes.txt").read_bytes())
    assert [json.loads(line)["text"] for line in built.decode().splitlines()] == [
        "鸡蛋打散。番茄切块，。炒熟。",
        "黄瓜拍碎。加醋。",
    ]

    www = tmp_path / "www"
    served = www / "owner/repo" / ("c" * 40) / trace
    served.parent.mkdir(parents=True)
    served.write_bytes(body)
    base = next(s for s in DOWNLOADED if s.dest == "counterfactual/base_recipes.txt")
    (www / base.repo / base.commit / base.path).parent.mkdir(parents=True)
    shutil.copy(data_dir / base.dest, www / base.repo / base.commit / base.path)
    spec = ReleaseFile(f"{SOURCES_DIR}/{trace}", source["sha256"], len(body), "owner/repo", "c" * 40, trace)
    corpus = ReleaseFile("xiachufang/recipes.jsonl", hashlib.sha256(built).hexdigest(), len(built))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(www)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url, dest = f"http://127.0.0.1:{httpd.server_address[1]}", tmp_path / "data"
    try:
        first = fetch_release(dest, base_url=url, files=[base, spec], derived=[corpus])
        assert [r.status for r in first] == ["downloaded", "downloaded", "derived"]
        assert (dest / "xiachufang/recipes.jsonl").read_bytes() == built
        assert {r.status for r in fetch_release(dest, base_url=url, files=[base, spec], derived=[corpus])} == {
            "present"
        }
        (dest / "xiachufang/recipes.jsonl").write_text("damaged\n", encoding="utf-8")
        again = fetch_release(dest, base_url=url, files=[base, spec], derived=[corpus])
        assert [r.status for r in again] == ["present", "present", "derived"]
        (dest / spec.dest).unlink()
        served.write_bytes(body.replace("番茄".encode(), "西红柿".encode()))  # upstream changed the file
        with pytest.raises(HashMismatchError):
            fetch_release(dest, base_url=url, files=[base, spec], derived=[corpus])
        assert not (dest / spec.dest).exists() and (dest / "xiachufang/recipes.jsonl").read_bytes() == built
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_fresh_machine_fetches_what_the_demo_reads_and_says_so(server, tmp_path, data_dir):
    """`dishgraph demo` on a machine without the data: what is missing is fetched from the (loopback) mirror,
    with a line saying so and each data set's licence; a second call fetches nothing and says nothing."""
    from dishgraph.ingest.fetch import ensure

    base_url, _ = server
    root, said = tmp_path / "fresh", []
    assert ensure(("counterfactual", "diner"), root, base_url=base_url, say=said.append) == root.resolve()
    assert said[0].startswith(f"fetching counterfactual, diner into {root}") and "diner: no licence file" in said[-1]
    assert locate(root).error is None
    said.clear()
    ensure(("counterfactual", "diner"), root, base_url=base_url, say=said.append)
    assert said == []
    (root / "diner" / "glossary.json").unlink()
    ensure(("counterfactual", "diner"), root, base_url=base_url, say=said.append)
    assert said[0].startswith("fetching diner into") and (root / "diner" / "glossary.json").exists()
    with pytest.raises(ValueError, match="unknown data set 'nope'"):
        ensure(("nope",), root, base_url=base_url)
