"""The combined CRG table (evaluate_crg) and the `dishgraph eval` commands on real release data."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from dishgraph.eval.crg import COLUMNS, evaluate_crg, table_row
from dishgraph.eval.embeddings import WordVectors
from dishgraph.eval.outputs import load_instances, write_outputs
from dishgraph.models.baselines import ReplaceGenerator


@pytest.fixture(scope="module")
def first_pairs(crg_dir):
    return load_instances(crg_dir)[:100]  # two dish pairs


def test_evaluate_crg_identity_and_replace(first_pairs, glossary, crg_dir):
    import numpy as np

    vectors = WordVectors(["切"], np.ones((1, 4)))  # soft matching is not under test here
    ident = evaluate_crg(
        [i.base_recipe for i in first_pairs],
        first_pairs,
        glossary=glossary,
        vectors=vectors,
        with_bertscore=False,
        data_dir=crg_dir.parent,
    )
    assert ident["l1"]["bleu4"] == pytest.approx(100.0)
    share = sum(i.new in i.base_recipe for i in first_pairs) / len(first_pairs)
    assert ident["l1"]["coi_added"] == pytest.approx(100 * share)
    assert math.isnan(ident["l2"]["hard_p"]) and ident["l2"]["hard_r"] == 0
    assert set(ident["timing"]) == {"l1", "vectors", "l2"}

    texts = ReplaceGenerator(glossary).generate(first_pairs)
    phases: list[str] = []
    rep = evaluate_crg(
        texts,
        first_pairs,
        glossary=glossary,
        vectors=vectors,
        with_bertscore=False,
        data_dir=crg_dir.parent,
        phase=phases.append,
    )
    assert [p.split(":")[0] for p in phases] == ["L1", "L2"]  # a progress display names what runs
    assert rep["l1"]["coi_added"] > ident["l1"]["coi_added"]
    assert rep["l1"]["coi_replaced"] < ident["l1"]["coi_replaced"]
    assert rep["l1"]["bleu4"] < 100
    row = table_row(rep, "replace")
    assert row["model"] == "replace" and set(row) == {"model", *(k for k, _ in COLUMNS)}
    assert row["bertscore_f1"] is None and row["hard_r"] is not None


def test_eval_crg_cli_prints_table_and_json(tmp_path, crg_dir, glossary):
    from dishgraph.cli import app

    insts = load_instances(crg_dir)
    ident = write_outputs(tmp_path / "identity.txt", [i.base_recipe for i in insts], insts)
    rep = write_outputs(tmp_path / "replace.jsonl", ReplaceGenerator(glossary).generate(insts), insts)
    runner = CliRunner()
    res = runner.invoke(app, ["eval", "crg", str(ident), str(rep), "--limit", "100", "--no-bertscore"])
    assert res.exit_code == 0, res.output
    for header in ("CoI add↑", "BLEU-4", "Soft F1", "Order acc", "identity", "replace"):
        assert header in res.output
    res = runner.invoke(app, ["eval", "crg", str(ident), "--limit", "50", "--no-bertscore", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)  # valid JSON: NaN written as null
    assert data["rows"][0]["bleu4"] == 100.0 and data["rows"][0]["hard_p"] is None
    res = runner.invoke(app, ["eval", "l1", str(rep), "--limit", "50", "--no-bertscore", "--json"])
    assert res.exit_code == 0 and json.loads(res.output)["coi_added"] > 90
    res = runner.invoke(app, ["eval", "l2", str(rep), "--limit", "50", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["n"] == 50


def test_eval_cli_reports_bad_files(tmp_path):
    from dishgraph.cli import app

    bad = tmp_path / "short.txt"
    bad.write_text("x\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["eval", "l1", str(bad), "--no-bertscore"])
    assert res.exit_code == 2 and "1 lines but there are 2500 instances" in " ".join(res.output.split())


def test_score_crg_names_each_phase_before_the_first_instance(tmp_path, crg_dir):
    """`eval crg` spent most of a run at 0/2500 with no word of what it did: each stage is named."""
    from dishgraph.eval.jobs import score_crg

    insts = load_instances(crg_dir)
    out = write_outputs(tmp_path / "identity.txt", [i.base_recipe for i in insts], insts)
    phases: list[str] = []
    steps: list[tuple[int, int]] = []
    score_crg([out], None, limit=20, no_graph=True, phase=phases.append, progress=lambda k, n: steps.append((k, n)))
    assert phases == [
        "reading the reference and the base recipes' parses",
        "segmenting base recipes, word vectors",
        "parsing generated texts",
        "L1: segmenting texts (BLEU, ingredient coverage)",
        "L2: scoring actions",
    ]
    assert steps[0] == (0, 20) and sum(k for k, _ in steps) == 20
