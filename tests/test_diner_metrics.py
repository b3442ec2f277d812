"""DiNeR metrics (component F1 with the unparsable-prediction approximation, EM) and the diner commands."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from dishgraph.diner.metrics import diner_f1, evaluate_file, read_predictions
from dishgraph.diner.names import DinerGlossary

PREDS = ["辣炒年糕", "炒年糕", "辣炒年糕片", "宫保年糕", "凤爪", ""]
GOLDS = ["辣炒年糕", "辣炒年糕", "辣炒年糕", "辣炒年糕", "鸡爪", "炒牛肉"]


@pytest.fixture(scope="module")
def diner_glossary():
    return DinerGlossary.load()


def test_micro_f1_by_hand(diner_glossary):
    s = diner_f1(PREDS, GOLDS, diner_glossary)
    # TP: 3 + 2 + 3 (辣, 炒, 年糕 all inside "辣炒年糕片") + 1 (年糕 in "宫保年糕") + 1 (凤爪 = 鸡爪) + 0
    # n_p: 3 + 2 + 3*5/4 + 3*4/4 + 1 + 0 ; n_g: 3 + 3 + 3 + 3 + 1 + 2
    assert s.micro.tp == 10 and s.micro.n_pred == pytest.approx(12.75) and s.micro.n_gold == 15
    assert s.micro.precision == pytest.approx(10 / 12.75) and s.micro.recall == pytest.approx(10 / 15)
    assert s.micro.f1 == pytest.approx(2 * (10 / 12.75) * (10 / 15) / (10 / 12.75 + 10 / 15))
    assert s.exact_match == pytest.approx(1 / 6)
    assert s.unparsable_predictions == 2  # 辣炒年糕片, 宫保年糕
    f1s = [1.0, 2 * 1 * (2 / 3) / (1 + 2 / 3), 2 * 0.8 * 1 / 1.8, 2 * (1 / 3) * (1 / 3) / (2 / 3), 1.0, 0.0]
    assert s.macro["f1"] == pytest.approx(sum(f1s) / 6)
    assert s.by_type["action"].tp == 3 and s.by_type["action"].n_gold == 5
    assert s.by_type["flavour"].tp == 2 and s.by_type["flavour"].n_pred == pytest.approx(1 + 1.25 + 1)
    assert s.by_type["food"].tp == 5 and s.by_type["food"].n_gold == 6


def test_forms_breakdown_and_unparsable_gold(diner_glossary):
    s = diner_f1(
        ["炒牛肉", "炒肉", "宫保鸡丁"], ["炒牛肉", "炒牛肉", "宫保鸡丁"], diner_glossary, forms={"炒牛肉": "CombTwo"}
    )
    assert s.n == 2 and s.by_form["CombTwo"]["n"] == 2 and s.by_form["CombTwo"]["exact_match"] == 0.5
    assert s.skipped == [{"index": 2, "gold": "宫保鸡丁", "remainder": "宫保鸡丁"}]


def test_read_predictions_errors(tmp_path):
    f = tmp_path / "p.jsonl"
    f.write_text(
        '{"pred": "炒牛肉", "gold": "炒牛肉"}\n\n{"name": "炒肉", "pred": "炒肉", "form": "Seen"}\n{"pred": "x"}\n',
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match=r"p\.jsonl:4: needs string fields"):
        read_predictions(f)
    f.write_text('{"pred": "炒牛肉", "gold": "炒牛肉"}\nnot json\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"p\.jsonl:2: invalid JSON"):
        read_predictions(f)
    f.write_text(
        '{"pred": "炒牛肉", "gold": "炒牛肉"}\n{"name": "炒肉", "pred": "炒肉", "form": "Seen"}\n', encoding="utf-8"
    )
    s = evaluate_file(f)
    assert s.n == 2 and s.exact_match == 1.0 and set(s.by_form) == {"n/a", "Seen"}


def test_cli_parse_split_forms_export_eval(tmp_path, crg_dir):
    from dishgraph.cli import app as cli
    from dishgraph.commands.diner import app

    runner = CliRunner()
    r = runner.invoke(app, ["parse", "韭菜炒鸡蛋", "宫保鸡丁", "--extra-glossary", "none", "--json"])  # DiNeR's alone
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["parsed"] == 1 and d["unparsed"] == [{"name": "宫保鸡丁", "remainder": "宫保鸡丁", "unknown": ["宫保"]}]
    r = runner.invoke(
        app, ["parse", "--names-file", str(crg_dir / "dish_pairs.txt"), "--extra-glossary", "shipped", "--json"]
    )
    assert json.loads(r.stdout)["parsed"] == 100

    db = str(tmp_path / "db")
    from dishgraph.diner.graph import merge_dishes
    from dishgraph.diner.names import read_names
    from dishgraph.graph.ladybug_store import LadybugStore

    with LadybugStore(db) as s:
        merge_dishes(s, read_names(crg_dir / "dish_pairs.txt"))
    r = runner.invoke(
        app,
        [
            "split",
            "--db",
            db,
            "--seed",
            "1",
            "--restarts",
            "10",
            "--extra-glossary",
            "shipped",
            "--name",
            "crg",
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["n_train"] + d["n_test"] == 100 and d["divergence"] >= 0.98 and d["atoms_covered"]
    r = runner.invoke(app, ["forms", "crg", "--db", db, "--json"])
    forms = json.loads(r.stdout)
    assert sum(forms["counts"].values()) == d["n_test"]
    out = tmp_path / "split.json"
    r = runner.invoke(app, ["export", "crg", "--db", db, "--out", str(out)])
    assert r.exit_code == 0 and len(json.loads(out.read_text())["test"]) == d["n_test"]

    preds = tmp_path / "preds.jsonl"
    test_dishes = list(forms["forms"])
    preds.write_text(
        "".join(
            json.dumps({"gold": g, "pred": g if i % 2 else "炒"}, ensure_ascii=False) + "\n"
            for i, g in enumerate(test_dishes)
        ),
        encoding="utf-8",
    )
    r = runner.invoke(
        cli, ["eval", "diner", str(preds), "--split", "crg", "--db", db, "--extra-glossary", "shipped", "--json"]
    )
    assert r.exit_code == 0, r.output
    e = json.loads(r.stdout)
    assert e["n"] == len(test_dishes) and e["exact_match"] == pytest.approx((len(test_dishes) // 2) / len(test_dishes))
    assert sum(v["n"] for v in e["by_form"].values()) == len(test_dishes) and "n/a" not in e["by_form"]

    r = runner.invoke(app, ["split", "--names-file", str(tmp_path / "missing.txt")])
    assert r.exit_code == 1 and "missing.txt" in r.output
