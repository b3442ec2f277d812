"""Issue #17: each reproduction of the hostile audit, as a user runs it (the CLI), on real data."""

from __future__ import annotations

import json
import os
import pickle

import pytest
from typer.testing import CliRunner

from dishgraph.cli import app
from dishgraph.graph.ladybug_store import LadybugStore

run = CliRunner().invoke


def _one_line_error(res, code):
    assert res.exit_code == code, res.output
    assert "Traceback" not in res.output and res.exception is None or isinstance(res.exception, SystemExit)
    return " ".join(res.output.split())


@pytest.fixture(scope="module")
def real_jsonl(tmp_path_factory, data_dir):
    lines = (data_dir / "xiachufang" / "recipes.jsonl").read_text(encoding="utf-8").splitlines()[:30]
    path = tmp_path_factory.mktemp("c") / "real.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, lines


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("db") / "db"
    with LadybugStore(path) as s:
        s.execute("CREATE (:Dish {name: $n})", {"n": "[/x] [link=http://e.x]菜"})
    return path


# 1 -------------------------------------------------------------------------------------------------
def test_defect1_malicious_trainer_state_is_refused_not_run(tmp_path):
    import torch

    from dishgraph.errors import InputError
    from dishgraph.models.lm import load_trainer_state

    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    path = tmp_path / "trainer_state.pt"
    torch.save({"optimizer": Evil()}, path)
    with pytest.raises(InputError, match="refused"):
        load_trainer_state(path)
    assert not marker.exists()
    torch.save({"optimizer": {"state": {}}, "step": 2, "torch_rng": torch.get_rng_state()}, path)
    assert load_trainer_state(path)["step"] == 2
    path.write_bytes(pickle.dumps({"x": 1}))
    with pytest.raises(InputError):
        load_trainer_state(path)


# 2 -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("hostile", ["[" * 100_000, '{"dish": "x", "text": ' + "9" * 5000 + "}"])
def test_defect2_one_hostile_line_costs_no_good_record(tmp_path, real_jsonl, hostile):
    path, lines = real_jsonl
    f = tmp_path / "c.jsonl"
    f.write_text("\n".join(lines[:15] + [hostile] + lines[15:]) + "\n", encoding="utf-8")
    res = run(
        app, ["ingest", "corpus", str(f), "--db", str(tmp_path / "db"), "-w", "1", "--segmenter", "jieba", "--json"]
    )
    assert res.exit_code == 3, res.output
    out = json.loads(res.stdout[res.stdout.index("{") :])
    assert out["recipes"] == 30 and out["skipped_by_reason"] == {"json": 1}
    assert any(m.startswith(f"{f}:16: ") for m in out["messages"])


def test_defect2_cr_only_line_ends_and_gzip_damage(tmp_path, real_jsonl):
    import gzip

    from dishgraph.ingest.readers import ReadReport, read_corpus

    _, lines = real_jsonl
    cr = tmp_path / "cr.jsonl"
    cr.write_bytes(("\r".join(lines) + "\r").encode())
    assert len(list(read_corpus(cr))) == 30
    gz = tmp_path / "d.jsonl.gz"
    gz.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode())[:-300])
    rep = ReadReport()
    got = list(read_corpus(gz, report=rep))
    assert 0 < len(got) < 30 and rep.skipped_by_reason == {"corrupt": 1}
    assert f"{gz}:{len(got) + 1}: compressed data damaged after byte" in rep.messages[-1]


# 3 -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("to", ["", "bolt:/127.0.0.1:1", "http://x", "neo4j://"])
def test_defect3_sync_refuses_targets_nobody_asked_for(tmp_path, db, to, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = run(app, ["sync", "--db", str(db), "--to", to])
    assert "--to" in _one_line_error(res, 2)
    assert not any(p.name.startswith("bolt") for p in tmp_path.iterdir())


def test_defect3_explicit_db_beats_the_environment(db, monkeypatch):
    monkeypatch.setenv("DISHGRAPH_URI", "bolt://127.0.0.1:1")
    res = run(app, ["stats", "--db", str(db), "--json"])
    assert res.exit_code == 0, res.output
    res = run(app, ["stats"])
    assert "cannot connect to bolt://127.0.0.1:1" in _one_line_error(res, 1)


# 4 -------------------------------------------------------------------------------------------------
def test_defect4_read_only_shell_refuses_checkpoint_install_and_writes(db):
    for stmt in ("CHECKPOINT", "INSTALL httpfs", "LOAD FROM '/etc/passwd' RETURN *", "MATCH (d:Dish) SET d.x = 1"):
        res = run(app, ["db", "shell", stmt, "--db", str(db)])
        assert "refused" in _one_line_error(res, 2)
    assert not db.with_name(db.name + ".shadow").exists() and not db.with_name(db.name + ".wal").exists()
    res = run(app, ["db", "shell", "RETURN 'CREATE' AS word", "--db", str(db), "--json"])
    assert res.exit_code == 0 and "CREATE" in res.output
    assert "Cypher" in _one_line_error(run(app, ["db", "shell", "MATCH (", "--db", str(db)]), 1)


def test_defect4_reads_recover_an_interrupted_checkpoint(tmp_path, db):
    import shutil

    import ladybug

    copy = tmp_path / "db"
    shutil.copy(db, copy)
    d = ladybug.Database(str(copy), read_only=True)
    with pytest.raises(RuntimeError):
        ladybug.Connection(d).execute("CHECKPOINT")  # what the old code let through: leaves .shadow/.wal
    d.close()
    assert copy.with_name("db.shadow").exists()
    for args in (["stats"], ["db", "info"], ["db", "shell", "MATCH (d:Dish) RETURN count(*) AS n"]):
        res = run(app, [*args, "--db", str(copy), "--json"])
        assert res.exit_code == 0, res.output
    res = run(app, ["db", "recover", "--db", str(copy)])
    assert res.exit_code == 0 and "nothing to recover" in " ".join(res.output.split())


# 5 -------------------------------------------------------------------------------------------------
def test_defect5_data_prints_literally(db, tmp_path):
    res = run(app, ["db", "shell", "MATCH (d:Dish) RETURN d.name AS name", "--db", str(db)])
    assert res.exit_code == 0 and "[/x] [link=http://e.x]菜" in res.output
    res = run(app, ["parse", "[/x]把洋葱切丝。", "--segmenter", "jieba"])
    assert res.exit_code == 0 and "洋葱" in res.output  # used to be a MarkupError
    res = run(app, ["order", "check", "[/x] [link=http://e.x]菜", "[/x]把洋葱切丝。", "--db", str(db)])
    assert res.exit_code == 0 and "no order constraint violated" in res.output


# 6 -------------------------------------------------------------------------------------------------
def test_defect6_missing_paths_and_bad_options_are_one_line(tmp_path, real_jsonl):
    path, _ = real_jsonl
    (tmp_path / "dangling.jsonl").symlink_to(tmp_path / "nowhere")
    (tmp_path / "gbk.txt").write_bytes("切菜".encode("gbk"))
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    cases = [
        (["ingest", "corpus", str(tmp_path / "missing.jsonl")], 1, "no such file"),
        (["ingest", "corpus", str(tmp_path)], 1, "is a directory"),
        (["ingest", "corpus", str(tmp_path / "dangling.jsonl")], 1, "dangling symbolic link"),
        (["ingest", "corpus", str(path), "--format", "bogus"], 2, "--format"),
        (["ingest", "corpus", str(path), "--format", "json"], 1, "top-level array"),
        (["ingest", "corpus", str(path), "--segmenter", "bogus"], 2, "--segmenter"),
        (["ingest", "corpus", str(path), "--glossary", str(tmp_path / "no.json")], 1, "--glossary"),
        (["ingest", "corpus", str(path), "--glossary", str(path)], 1, "--glossary"),
        (["parse", "@" + str(tmp_path / "missing.txt")], 1, "missing.txt"),
        (["parse", "@" + str(tmp_path / "gbk.txt")], 1, "not UTF-8"),
        (["parse", "@" + str(tmp_path / "empty.txt")], 1, "empty"),
        (["sync", "--db", str(tmp_path / "none"), "--to", "/proc/nope"], 1, ""),
        (["stats", "--db", str(tmp_path / "none")], 1, "no database here"),
    ]
    for args, code, text in cases:
        assert text in _one_line_error(
            run(app, [*args, "--db", str(tmp_path / "db")] if args[0] == "ingest" else args), code
        ), args


# 7 -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "opt",
    [["--chunk-size", "0"], ["--chunk-size", "-5"], ["--load-batch", "0"], ["--workers", "0"], ["--workers", "-3"]],
)
def test_defect7_nonsense_numbers_are_usage_errors(real_jsonl, tmp_path, opt):
    path, _ = real_jsonl
    assert run(app, ["ingest", "corpus", str(path), "--db", str(tmp_path / "db"), *opt]).exit_code == 2


@pytest.mark.parametrize("enc", ["utf-16", "gbk", "big5"])
def test_defect7_other_encodings_are_read_or_fail_never_silent(tmp_path, real_jsonl, enc):
    from dishgraph.ingest.readers import read_corpus

    _, lines = real_jsonl
    text = "\n".join(lines[:10]) + "\n"
    f = tmp_path / f"{enc}.jsonl"
    f.write_bytes(text.encode(enc, errors="ignore"))  # (an emoji has no GBK/Big5 code)
    got = list(read_corpus(f))
    assert len(got) == 10
    expected = [json.loads(ln)["text"].encode(enc, errors="ignore").decode(enc).strip() for ln in lines[:10]]
    assert [r.text for r in got] == expected


def test_defect7_bad_types_and_zero_width_texts_are_skipped(tmp_path):
    from dishgraph.ingest.readers import ReadReport, read_corpus

    f = tmp_path / "t.jsonl"
    f.write_text(
        "\n".join(
            [
                json.dumps({"dish": True, "text": "切菜。"}),
                json.dumps({"dish": "拌菜", "text": [1, [["切"]]]}),
                json.dumps({"dish": "空", "text": "\u200b\u200b\ufeff"}),
                json.dumps({"dish": "拌黄瓜", "text": "黄瓜拍碎。"}, ensure_ascii=False),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    rep = ReadReport()
    assert [r.dish for r in read_corpus(f, report=rep)] == ["拌黄瓜"]
    assert rep.skipped_by_reason == {"bad-dish": 1, "bad-text": 1, "empty-recipe": 1} and rep.exit_code == 3


def test_defect7_order_check_of_an_unknown_dish_is_an_error(db):
    res = run(app, ["order", "check", "没有这道菜", "把洋葱切丝。", "--db", str(db)])
    assert "unknown dish" in _one_line_error(res, 1)


@pytest.mark.parametrize("command", ["show", "compare"])
def test_pivots_of_an_unknown_pair_is_an_error(db, command):
    res = run(app, ["pivots", command, "没有这道菜->也没有", "--db", str(db)])
    assert "no DishPair '没有这道菜->也没有'" in _one_line_error(res, 1)  # (this graph has no pairs at all)


def test_defect7_lock_error_names_the_reader_that_holds_the_database(db):
    import subprocess
    import sys
    import textwrap

    from dishgraph.graph.lock import DatabaseInUse

    code = textwrap.dedent(f"""
        import sys
        from dishgraph.graph.ladybug_store import LadybugStore
        s = LadybugStore({str(db)!r}, read_only=True)
        print("ready", flush=True)
        sys.stdin.readline()
    """)
    p = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "ready"
        with pytest.raises(DatabaseInUse, match=f"PID {p.pid} \\(reading"):
            LadybugStore(db, wait=0)
    finally:
        p.communicate("\n", timeout=30)


def test_defect7_tmpdir_with_a_quote_loads(tmp_path, monkeypatch):
    import tempfile

    odd = tmp_path / "it's"
    odd.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(odd))
    with LadybugStore(tmp_path / "db") as s, s.bulk_session():
        s.bulk_load_nodes("Dish", [{"name": "红烧肉"}])
        assert s.execute("MATCH (d:Dish) RETURN count(*) AS n")[0]["n"] == 1


def test_debug_shows_the_traceback(tmp_path):
    res = run(app, ["--debug", "stats", "--db", str(tmp_path / "none")])
    assert res.exit_code == 1 and res.exception is not None and not isinstance(res.exception, SystemExit)
