"""PizzaCommonSense step metrics: set exact match, ROUGE-L, BLEU, METEOR, table reading and the CLI."""

from __future__ import annotations

import csv
import json

import pytest
from typer.testing import CliRunner

from dishgraph.eval.pcs_metrics import align, evaluate_pcs, item_set, meteor, read_pcs_table, rouge_l
from dishgraph.eval.text_metrics import auto_tokenizer

GOLD = [
    {"instruction": "Mix flour and water.", "input": "flour; water", "action": "mix", "output": "dough"},
    {"instruction": "Add the yeast.", "input": "dough; yeast", "action": "add", "output": "yeasted dough"},
    {"instruction": "Bake it.", "input": "pizza", "action": "bake", "output": "baked pizza"},
]
PRED = [
    {"instruction": "Mix flour and water.", "input": "Water ;flour", "action": "mix", "output": "dough"},
    {"instruction": "Add the yeast.", "input": "dough", "action": "add", "output": "dough with yeast"},
    {"instruction": "Bake it.", "input": "pizza; oven", "action": "bake", "output": "baked pizza"},
]


def test_item_sets_are_normalised():
    assert item_set(" Water ;flour;; ") == {"water", "flour"}
    assert item_set("") == frozenset()


def test_rouge_l_hand_computed():
    tok = auto_tokenizer()
    # LCS("dough with yeast", "yeasted dough") = 1 token: P = 1/3, R = 1/2 → F = 0.4
    assert rouge_l(["dough with yeast"], ["yeasted dough"], tok) == [pytest.approx(0.4)]
    assert rouge_l([""], [""], tok) == [1.0]
    # Chinese goes through the segmenter instead of rouge-score's ASCII tokenizer
    assert rouge_l(["切洋葱"], ["切洋葱"], tok) == [pytest.approx(1.0)]


def test_meteor_runs_offline():
    scores, synonyms = meteor([["baked", "pizza"], []], [["baked", "pizza"], []])
    assert scores[0] == pytest.approx(0.9375)  # exact match, one chunk: 1 - 0.5·(1/2)^3
    assert scores[1] == 1.0
    assert isinstance(synonyms, bool)


def test_evaluate_pcs_hand_computed():
    res = evaluate_pcs(PRED, GOLD)
    inp, out = res["input"], res["output"]
    assert inp["exact_match"] == pytest.approx(100 / 3)  # only row 1 matches as a set
    assert inp["set_p"] == pytest.approx(100 * 4 / 5)  # 4 correct of 5 predicted items
    assert inp["set_r"] == pytest.approx(100 * 4 / 5)  # of 5 gold items
    assert out["exact_match"] == pytest.approx(200 / 3)
    assert out["rouge_l"] == pytest.approx(100 * (1 + 0.4 + 1) / 3)
    assert 0 < out["bleu4"] < 100 and 0 < out["meteor"] < 100
    assert res["n"] == 3


def test_tables_read_and_align(tmp_path):
    j = tmp_path / "p.json"
    j.write_text(json.dumps(PRED), encoding="utf-8")
    t = tmp_path / "g.tsv"
    with open(t, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["Instruction", "Input", "Action", "Output"], delimiter="\t")
        w.writeheader()
        w.writerows({k.capitalize(): v for k, v in r.items()} for r in GOLD)
    assert read_pcs_table(t) == GOLD
    assert read_pcs_table(j) == PRED
    with pytest.raises(ValueError, match="PRED has 2 rows but GOLD has 3"):
        align(PRED[:2], GOLD)
    with pytest.raises(ValueError, match="row 1 instruction differs"):
        align([dict(PRED[0], instruction="Other.")] + PRED[1:], GOLD)
    ided = [dict(r, id=str(i)) for i, r in enumerate(GOLD)]
    assert align(list(reversed(ided)), ided) == ided
    bad = tmp_path / "bad.json"
    bad.write_text("[{", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.json:1: not valid JSON"):
        read_pcs_table(bad)


def test_pcs_cli(tmp_path):
    from dishgraph.cli import app

    p, g = tmp_path / "p.json", tmp_path / "g.json"
    p.write_text(json.dumps(PRED), encoding="utf-8")
    g.write_text(json.dumps(GOLD), encoding="utf-8")
    res = CliRunner().invoke(app, ["eval", "pcs", str(p), str(g), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["input"]["exact_match"] == pytest.approx(100 / 3)
    res = CliRunner().invoke(app, ["eval", "pcs", str(p), str(g), "--fields", "nope"])
    assert res.exit_code == 2 and "column 'nope' missing" in " ".join(res.output.split())  # rich wraps long paths
