"""DiNeR end to end on real XiaChuFang recipes in a real embedded graph: datasets from the graph (TMCD
splits stored as Split nodes, forms, fractions, leakage rule), the graph recognizer and its baselines, the
controllability grid, and LLM prompts with selective demonstrations."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from dishgraph.diner.dataset import DatasetConfig, build_dataset, leaks, read_jsonl, split_files
from dishgraph.diner.names import DinerGlossary, parse_name

N_RECIPES = 420  # real recipes of parsable dishes (and a share of unparsable ones for the pretraining corpus)


@pytest.fixture(scope="module")
def diner_glossary():
    return DinerGlossary.load()


@pytest.fixture(scope="module")
def graph_db(tmp_path_factory, data_dir, diner_glossary):
    """A graph of real XiaChuFang recipes, ingested through the CLI (jieba, one worker)."""
    from dishgraph.cli import app

    tmp = tmp_path_factory.mktemp("diner_e2e")
    rows, other = [], []
    with (data_dir / "xiachufang" / "recipes.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            if len(r["text"]) > 600:
                continue
            (rows if parse_name(r["dish"], diner_glossary).ok else other).append(r)
            if len(rows) >= N_RECIPES and len(other) >= 60:
                break
    corpus = tmp / "sample.jsonl"
    corpus.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows[:N_RECIPES] + other[:60]), encoding="utf-8"
    )
    db = str(tmp / "db")
    res = CliRunner().invoke(
        app, ["ingest", "corpus", str(corpus), "--db", db, "--workers", "1", "--segmenter", "jieba", "--json"]
    )
    assert res.exit_code == 0, res.output
    return db


@pytest.fixture(scope="module")
def dataset(graph_db, tmp_path_factory):
    from dishgraph.cli import app

    out = tmp_path_factory.mktemp("ds") / "ds"
    res = CliRunner().invoke(
        app,
        [
            "diner",
            "dataset",
            "--out",
            str(out),
            "--db",
            graph_db,
            "--divergence",
            "0.8",
            "--divergence",
            "0.6",
            "--train-fraction",
            "0.5",
            "--train-fraction",
            "1.0",
            "--restarts",
            "5",
            "--pretrain-corpus",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    return out


def test_dataset_splits_manifest_and_graph(dataset, graph_db):
    from dishgraph.diner.graph import export_split, list_splits
    from dishgraph.graph.factory import open_store

    m = json.loads((dataset / "manifest.json").read_text(encoding="utf-8"))
    names = [s["name"] for s in m["splits"]]
    assert names == ["diner-tmcd-0.8", "diner-tmcd-0.6", "diner-random"]
    assert m["examples"] > 300 and m["dishes"] > 100 and m["seed"] == 1
    with open_store(db=graph_db, read_only=True) as store:
        stored = {s["name"] for s in list_splits(store)}
        assert set(names) <= stored
        parts = export_split(store, "diner-tmcd-0.8")
    for s in m["splits"]:
        train = read_jsonl(dataset / s["files"]["train"]["1"])
        half = read_jsonl(dataset / s["files"]["train"]["0.5"])
        test = read_jsonl(dataset / s["files"]["test"])
        assert len(train) == s["train_examples"] and len(test) == s["test_examples"]
        assert len(half) == round(len(train) * 0.5) and {e["id"] for e in half} <= {e["id"] for e in train}
        assert not {e["name"] for e in train} & {e["name"] for e in test}  # split over dish names
        assert all(e.get("form") for e in test) and "form" not in train[0]
        assert set(train[0]) == {"id", "instructions", "name", "components", "compounds"}
        assert sum(s["forms_examples"].values()) == len(test)
        if s["kind"] == "tmcd":
            assert s["atoms_covered"] and s["atom_coverage"] == 1.0
            assert s["divergence"] >= s["target_divergence"] - 0.02
    assert set(parts["test"]) == {e["name"] for e in read_jsonl(dataset / "diner-tmcd-0.8" / "test.jsonl")}


def test_pretrain_corpus_leaves_out_dataset_titles(dataset):
    m = json.loads((dataset / "manifest.json").read_text(encoding="utf-8"))
    names = {
        e["name"]
        for s in m["splits"][:1]
        for f in (s["files"]["train"]["1"], s["files"]["test"])
        for e in read_jsonl(dataset / f)
    }
    pre = read_jsonl(dataset / "pretrain.jsonl")
    assert m["pretrain"]["recipes"] == len(pre) > 0 and m["pretrain"]["excluded_by_title"] > 0
    ids = {
        e["id"]
        for s in m["splits"]
        for f in (s["files"]["train"]["1"], s["files"]["test"])
        for e in read_jsonl(dataset / f)
    }
    assert not ids & {p["id"] for p in pre}
    assert leaks("正宗麻婆豆腐（简易版）", {"麻婆豆腐"}, 4) and not leaks("豆腐", {"麻婆豆腐"}, 4)
    assert names


def test_dataset_errors_are_one_line(tmp_path, store, diner_glossary):
    with pytest.raises(ValueError, match="no recipe of the graph"):
        build_dataset(store, diner_glossary, DatasetConfig(out=str(tmp_path / "x")))
    with pytest.raises(ValueError, match="train fraction"):
        build_dataset(store, diner_glossary, DatasetConfig(out=str(tmp_path / "x"), fractions=(1.5,)))
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "manifest.json").write_text("{bad", encoding="utf-8")
    with pytest.raises(ValueError, match=r"manifest.json: line 1"):
        split_files(tmp_path / "m")


def test_recognizer_beats_the_majority_baselines(dataset, graph_db, diner_glossary, tmp_path):
    from dishgraph.diner.metrics import diner_f1, evaluate_file
    from dishgraph.diner.recognizer import graph_features, recognize, run_recognizer
    from dishgraph.graph.factory import open_store

    with open_store(db=graph_db, read_only=True) as store:
        res = run_recognizer(store, dataset, tmp_path / "p.jsonl", split="diner-tmcd-0.6", glossary=diner_glossary)
        train = read_jsonl(split_files(dataset, "diner-tmcd-0.6")[0])
        fitted, rep = recognize(store, train, train, glossary=diner_glossary)  # the training side itself
        base, _ = recognize(store, train, train, baseline="components", glossary=diner_glossary)
    run = res["runs"][0]
    assert run["recipes_without_actions"]["test"] < run["test_examples"] / 4
    scores = evaluate_file(tmp_path / "p.jsonl", diner_glossary)  # the file eval diner reads
    assert scores.n == run["test_examples"] and abs(scores.micro.f1 - run["f1"]) < 1e-9
    assert set(scores.by_form) <= {"Seen", "Subset", "Single", "CombTwo", "AddOne", "RecoTwo", "RecoThree", "Other"}

    def f1(rows):
        return diner_f1([r["pred"] for r in rows], [r["gold"] for r in rows], diner_glossary).micro.f1

    assert f1(fitted) > f1(base) + 0.2  # the action graph carries signal the majority guess lacks
    f = graph_features(
        [
            {"verb": "切", "ingredients": ["土豆"], "tools": []},
            {"verb": "炒", "ingredients": ["土豆", "辣椒"], "tools": ["锅"]},
        ]
    )
    assert {"v=炒", "i=辣椒", "vi=炒|土豆", "t=锅", "vv=切>炒", "last_i=辣椒", "first_v=切"} <= set(f)


def test_recognize_grid_and_plot_cli(dataset, graph_db, tmp_path):
    from dishgraph.cli import app

    preds = tmp_path / "grid"
    run = CliRunner().invoke
    r = run(
        app,
        [
            "diner",
            "recognize",
            str(dataset),
            "--grid",
            "--out",
            str(preds),
            "--db",
            graph_db,
            "--baseline",
            "components",
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    assert len(json.loads(r.output)["runs"]) == 6
    assert sorted(p.name for p in preds.iterdir())[:2] == ["diner-random.p0.5.jsonl", "diner-random.p1.jsonl"]
    png = tmp_path / "grid.png"
    r = run(app, ["diner", "grid", str(dataset), str(preds), "--png", str(png), "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert len(out["cells"]) == 6 and {"p=0.5", "p=1"} <= set(out["f1"][0])
    assert png.stat().st_size > 10_000 and png.read_bytes()[:4] == b"\x89PNG"
    r = run(app, ["diner", "recognize", str(dataset), "--split", "nope", "--db", graph_db])
    assert r.exit_code == 1 and "no split 'nope'" in r.output and "Traceback" not in r.output


def test_sparse_bm25_equals_rank_bm25():
    from rank_bm25 import BM25Okapi

    from dishgraph.diner.prompts import SparseBM25, bm25_tokens

    docs = [bm25_tokens(t) for t in ["土豆切丝，下锅翻炒", "鸡蛋打散，锅中炒熟", "牛肉切块炖煮两小时", "土豆炖牛肉"]]
    q = list(dict.fromkeys(bm25_tokens("土豆丝炒鸡蛋")))
    assert BM25Okapi(docs).get_scores(q) == pytest.approx(SparseBM25(docs).get_scores(q))


def test_selective_demonstrations():
    from dishgraph.diner.prompts import DemoSelector, clean_answer, render_prompt

    def ex(i, name, comps, text):
        return {
            "id": str(i),
            "name": name,
            "instructions": text,
            "components": [{"surface": s, "type": t, "cluster": s} for t, s in comps],
        }

    train = [
        ex(0, "番茄炒蛋", [("food", "番茄"), ("action", "炒"), ("food", "蛋")], "番茄切块，鸡蛋炒好"),
        ex(1, "红烧牛肉", [("action", "红烧"), ("food", "牛肉")], "牛肉焯水后红烧"),
        ex(2, "番茄牛肉", [("food", "番茄"), ("food", "牛肉")], "番茄和牛肉一起炖"),
        ex(3, "香辣蟹", [("flavour", "香辣"), ("food", "蟹")], "螃蟹洗净，香辣酱爆炒"),
    ]
    sel = DemoSelector(train)
    # guide {番茄, 炒, 牛肉}: 番茄炒蛋 and 番茄牛肉 tie on F1 (0.67); BM25 decides; the second covers the rest
    first, second = sel.select("番茄炒牛肉", frozenset({"food:番茄", "action:炒", "food:牛肉"}))
    assert train[first]["name"] in {"番茄炒蛋", "番茄牛肉"}
    left = {"food:番茄", "action:炒", "food:牛肉"} - {f"{c['type']}:{c['cluster']}" for c in train[first]["components"]}
    assert left & {f"{c['type']}:{c['cluster']}" for c in train[second]["components"]}
    assert all(train[i]["name"] != "番茄牛肉" for i in sel.select("番茄牛肉", None, exclude="番茄牛肉"))
    assert sel.select("螃蟹香辣", None)[0] == 3  # no guide: BM25 alone
    p = render_prompt("测试做法", [train[0], train[1]])
    assert p.endswith("菜谱：测试做法\n这道菜的菜名是什么？\n菜名：") and "菜名：番茄炒蛋" in p
    assert clean_answer("菜名：「鱼香肉丝」。\n解释……") == "鱼香肉丝"


def test_prompts_cli_roundtrip(dataset, tmp_path, diner_glossary):
    from dishgraph.cli import app

    run = CliRunner().invoke
    guide = tmp_path / "guide.jsonl"
    test = read_jsonl(dataset / "diner-tmcd-0.8" / "test.jsonl")
    guide.write_text(
        "".join(json.dumps({"id": e["id"], "pred": e["name"]}, ensure_ascii=False) + "\n" for e in test),
        encoding="utf-8",
    )
    prompts = tmp_path / "prompts.jsonl"
    r = run(app, ["diner", "prompts", str(dataset), "--guide", str(guide), "--out", str(prompts)])
    assert r.exit_code == 0, r.output
    rows = read_jsonl(prompts)
    assert len(rows) == len(test) and all(len(x["exemplars"]) == 2 for x in rows)
    assert all(x["gold"] not in {d["name"] for d in x["exemplars"]} for x in rows)
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "".join(
            json.dumps({"id": x["id"], "answer": f"菜名：{x['gold']}。"}, ensure_ascii=False) + "\n" for x in rows[:-1]
        ),
        encoding="utf-8",
    )
    preds = tmp_path / "preds.jsonl"
    r = run(
        app,
        [
            "diner",
            "prompts",
            str(dataset),
            "--prompts-file",
            str(prompts),
            "--answers",
            str(answers),
            "--out",
            str(preds),
        ],
    )
    assert r.exit_code == 0, r.output
    r = run(app, ["eval", "diner", str(preds), "--json"])
    d = json.loads(r.output)
    assert d["n"] == len(test) and d["exact_match"] == pytest.approx((len(test) - 1) / len(test))
    assert set(d["by_form"]) == {e["form"] for e in test}
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n', encoding="utf-8")
    r = run(
        app,
        ["diner", "prompts", str(dataset), "--prompts-file", str(prompts), "--answers", str(bad), "--out", str(preds)],
    )
    assert r.exit_code == 1 and "record 1 needs string fields" in r.output


def test_bad_input_is_one_line_error_never_a_crash(tmp_path):
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from dishgraph.diner.prompts import answers_to_predictions, clean_answer

    @settings(max_examples=60, deadline=None)
    @given(st.lists(st.text(max_size=30), max_size=5))
    def check(lines):
        path = tmp_path / "x.jsonl"
        path.write_text("\n".join(lines), encoding="utf-8")
        try:
            rows = read_jsonl(path)
        except ValueError as e:
            assert str(e).startswith(f"{path}:") and "\n" not in str(e)
            return
        try:
            preds = answers_to_predictions([{"id": "a", "gold": "鱼香肉丝"}], rows, str(path))
        except ValueError as e:
            assert str(e).startswith(f"{path}: record ")
            return
        assert isinstance(preds[0]["pred"], str) and "\n" not in preds[0]["pred"]

    check()

    @settings(max_examples=100, deadline=None)
    @given(st.text(max_size=60))
    def answers(text):
        out = clean_answer(text)
        assert isinstance(out, str) and "\n" not in out

    answers()
