"""The PCS paper's columns (dishgraph.eval.pcs_paper) checked against the reference implementations they
stand for (rouge-score, sacrebleu, nltk) on hand-made cases, and `pcs predict` → `eval pcs` on real tables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dishgraph.eval import pcs_paper
from dishgraph.eval.pcs_paper import bleu4, gold_rows, input_set, people_agreement, rouge_l, score, tokens
from dishgraph.pcs.benchmark import markdown_table
from dishgraph.pcs.tables import read_pcs

RELEASE = Path(__file__).parent / "fixtures" / "pcs" / "release"
HYP = ["sliced brie", "pizza_crust topped with olives and brie", "baked pizza", "NA", "dough mixture"]
REF = ["Sliced Brie", "pizza crust with olives and sliced brie", "baked olive and brie pizza", "NA", "dough"]


def test_tokens_are_rouge_scores_tokenizer():
    from rouge_score import tokenize

    for text in [*HYP, *REF, "Mixed_(garlic; oil)", "14-1/2 oz. can"]:
        assert tokens(text) == tokenize.tokenize(text, None)


def test_rouge_l_is_rouge_score_default():
    from rouge_score import rouge_scorer

    ref = rouge_scorer.RougeScorer(["rougeL"])
    assert rouge_l(HYP, REF) == [pytest.approx(ref.score(r, h)["rougeL"].fmeasure) for h, r in zip(HYP, REF)]
    # by hand: LCS("baked pizza", "baked olive and brie pizza") = 2; P = 2/2, R = 2/5 -> F = 2·0.4/1.4
    assert rouge_l(["baked pizza"], ["baked olive and brie pizza"])[0] == pytest.approx(0.8 / 1.4)


def _compute_bleu(hyps: list[list[str]], refs: list[list[str]]) -> float:
    """The TensorFlow-NMT / Hugging Face ``compute_bleu`` (smooth=False, one reference), written out."""
    import math
    from collections import Counter

    matches, possible, hyp_len, ref_len = [0] * 4, [0] * 4, 0, 0
    for h, r in zip(hyps, refs):
        hyp_len, ref_len = hyp_len + len(h), ref_len + len(r)
        for n in range(1, 5):
            hc = Counter(tuple(h[i : i + n]) for i in range(len(h) - n + 1))
            rc = Counter(tuple(r[i : i + n]) for i in range(len(r) - n + 1))
            matches[n - 1] += sum((hc & rc).values())
            possible[n - 1] += sum(hc.values())
    precisions = [m / p if p else 0.0 for m, p in zip(matches, possible)]
    if min(precisions) == 0:
        return 0.0
    bp = 1.0 if hyp_len > ref_len else math.exp(1 - ref_len / hyp_len)
    return 100 * bp * math.exp(sum(math.log(p) for p in precisions) / 4)


def test_bleu_is_corpus_bleu_without_smoothing():
    hyp = [*HYP, "pizza crust with olives and brie"]
    ref = [*REF, "pizza crust with olives and sliced brie"]
    ours = bleu4(hyp, ref)
    assert ours == pytest.approx(_compute_bleu([tokens(h) for h in hyp], [tokens(r) for r in ref]))
    assert 0 < ours < 100
    assert bleu4(["a b c d"], ["a b c d"]) == pytest.approx(100.0)
    assert bleu4(["a b c"], ["a b c"]) == 0.0  # no 4-gram at all: unsmoothed BLEU-4 is 0
    # short cells count only the n-grams they have (nltk's corpus_bleu would give 82.8 on this identity)
    assert bleu4(["brie", "sliced brie", "a b c d e"], ["brie", "sliced brie", "a b c d e"]) == pytest.approx(100.0)
    # by hand: 1-gram 3/4, 2-gram 2/3, 3-gram 1/2, 4-gram 0/1 -> 0; with one more 4-gram matched:
    hand = (4 / 5 * 3 / 4 * 2 / 3 * 1 / 2) ** 0.25 * 1.0  # "a b c d x" vs "a b c d y": no brevity penalty
    assert bleu4(["a b c d x"], ["a b c d y"]) == pytest.approx(100 * hand)


def test_meteor_is_nltks_and_says_whether_synonyms_ran():
    from nltk.translate.meteor_score import meteor_score

    from dishgraph.eval.pcs_metrics import _wordnet

    wn, synonyms = _wordnet()
    got, used = pcs_paper.meteor(HYP, REF)
    expected = [meteor_score([tokens(r)], tokens(h), wordnet=wn) for h, r in zip(HYP, REF)]
    assert got == pytest.approx(100 * sum(expected) / len(expected)) and used == synonyms
    # by hand: two tokens matched in one chunk: Fmean = 1, penalty 0.5·(1/2)^3 -> 0.9375
    assert pcs_paper.meteor(["sliced brie"], ["Sliced Brie"])[0] == pytest.approx(93.75)


def test_input_ema_is_set_match_over_tokens():
    assert input_set("(pizza_crust; olive_oil)") == input_set("olive oil; Pizza crust")
    assert input_set("NA") == input_set("na") == input_set("") == frozenset()
    gold = [{"recipe": "r", "annotator": 1, "row": k, "input": i, "output": "x"} for k, i in enumerate(["a; b", "NA"])]
    pred = [dict(gold[0], input="(b; a)"), dict(gold[1], input="a")]
    res = score(pred, gold)
    assert res["input_ema"] == 50.0 and res["rows"] == 2 and res["output_rouge_l"] == 100.0
    with pytest.raises(ValueError, match="no prediction for 1 of 2 gold rows"):
        score(pred[:1], gold)


def test_gold_scored_against_itself_is_perfect():
    gold = gold_rows(read_pcs(RELEASE))
    res = score([dict(r) for r in gold], gold)
    assert res["rows"] == 46
    for k in ("input_ema", "input_rouge_l", "output_bleu", "output_rouge_l", "output_ema"):
        assert res[k] == pytest.approx(100.0), k


def test_people_agreement_pairs_the_second_annotators_tables():
    res = people_agreement(read_pcs(RELEASE))
    assert res["recipes"] == ["70f228d93a", "f2751f86b7"]  # the meatloaf pair straddles val and test
    assert res["a2_vs_a1"]["rows"] == 5 + 7 and res["a1_vs_a2"]["rows"] == 5 + 7
    assert 0 < res["a2_vs_a1"]["input_ema"] < 100


@pytest.mark.parametrize("model", ["tracker", "prev-output", "mentions"])
def test_predict_then_eval_cli(tmp_path, model):
    from dishgraph.cli import app

    out = tmp_path / "pred.jsonl"
    run = CliRunner().invoke(
        app,
        ["pcs", "predict", str(RELEASE / "test"), "--train", str(RELEASE / "train"), "--out", str(out)]
        + ["--model", model, "--json"],
    )
    assert run.exit_code == 0, run.output
    assert json.loads(run.output)["rows"] == 12
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert {(r["recipe"], r["annotator"]) for r in rows} == {("f2751f86b7", 2), ("463f1b3ade", 1)}
    assert all({"recipe", "annotator", "row", "input", "output"} <= set(r) for r in rows)
    res = CliRunner().invoke(app, ["eval", "pcs", str(out), str(RELEASE / "test"), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["rows"] == 12
    assert all(0 <= data[k] <= 100 for k in pcs_paper_columns())


def pcs_paper_columns():
    return ("input_ema", "input_rouge_l", "output_bleu", "output_rouge_l", "output_meteor")


def test_oracle_setting_sees_gold_earlier_outputs():
    tables = read_pcs(RELEASE / "train")
    from dishgraph.pcs.predict import predict

    gold = gold_rows(tables)
    chained = score(predict(tables, "prev-output", "chained"), gold)
    oracle = score(predict(tables, "prev-output", "oracle"), gold)
    assert oracle["input_ema"] > chained["input_ema"]


def test_missing_predictions_are_one_line_errors(tmp_path):
    from dishgraph.cli import app

    bad = tmp_path / "pred.jsonl"
    bad.write_text('{"recipe": "f2751f86b7", "annotator": 2, "row": 0, "input": "NA", "output": "NA"}\n{"row": 1}\n')
    res = CliRunner().invoke(app, ["eval", "pcs", str(bad), str(RELEASE / "test"), "--json"])
    assert res.exit_code == 2 and "pred.jsonl:2: prediction row lacks ['recipe']" in " ".join(res.output.split())


def test_random_split_keeps_sizes_and_annotations_together():
    from dishgraph.pcs.benchmark import random_split

    tables = read_pcs(RELEASE)
    parts = random_split(tables, {"train": 4, "val": 1, "test": 2}, seed=3)
    assert {k: len(v) for k, v in parts.items()} == {"train": 4, "val": 1, "test": 2}
    where = {}
    for name, ts in parts.items():
        for t in ts:
            where.setdefault(t.id, set()).add(name)
    assert all(len(v) == 1 for v in where.values())  # both annotations of a recipe in one part
    assert sum(map(len, parts.values())) == len(tables)
    assert random_split(tables, {"train": 4, "val": 1, "test": 2}, seed=3) == parts


def test_docs_print_the_results_files_table():
    """docs/pcs.md's table is the saved `pcs benchmark` run, row for row (the README's row comes from it)."""
    root = Path(__file__).parent.parent
    saved = json.loads((root / "benchmarks" / "results" / "pcs.json").read_text(encoding="utf-8"))
    assert saved["test_rows"] == 2236 and saved["seconds"] < 120
    assert markdown_table(saved) in (root / "docs" / "pcs.md").read_text(encoding="utf-8")


def test_benchmark_and_agreement_cli_on_release_excerpts():
    from dishgraph.cli import app

    res = CliRunner().invoke(app, ["pcs", "benchmark", str(RELEASE), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["test_rows"] == 12
    systems = {(r["system"], r["split"], r["setting"]) for r in data["rows"]}
    assert ("tracker", "released", "chained") in systems and ("tracker", "random", "oracle") in systems
    assert any(s.startswith("people: annotator 2 vs 1 (2 recipes)") for s, _, _ in systems)
    assert any(s.startswith("paper: GPT-3.5") for s, _, _ in systems)
    assert data["headline"].startswith("| tracker | released | chained | ") and data["headline"] in markdown_table(data)
    agree = CliRunner().invoke(app, ["pcs", "agreement", str(RELEASE / "train"), "--json"])
    assert agree.exit_code == 0 and json.loads(agree.output)["recipes"] == ["70f228d93a"]
    none = CliRunner().invoke(app, ["pcs", "agreement", str(RELEASE / "val")])
    assert none.exit_code == 1 and "no recipe with two annotators" in none.output


def test_a_split_name_reads_the_release_in_the_data_directory(tmp_path, monkeypatch, data_dir):
    """`pcs predict val` and `eval pcs PRED val` take the same split name (it used to be "unknown table
    format ''" in eval): the split of the release in the located data directory, not a path in the cwd."""
    from dishgraph.cli import app
    from dishgraph.pcs.tables import locate

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISHGRAPH_DATA", str(data_dir))  # the fixture's root, wherever the package was imported from
    assert locate("val") == data_dir / "pizzacommonsense" / "val" and locate("nope") == Path("nope")
    run = CliRunner().invoke(app, ["pcs", "predict", "val", "--model", "prev-output", "--out", "p.jsonl", "--json"])
    assert run.exit_code == 0, run.output
    res = CliRunner().invoke(app, ["eval", "pcs", "p.jsonl", "val", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["rows"] == json.loads(run.output)["rows"] > 0
    res = CliRunner().invoke(app, ["eval", "pcs", "p.jsonl", "tset"])
    assert res.exit_code == 1 and "tset: no such file or directory" in res.output
