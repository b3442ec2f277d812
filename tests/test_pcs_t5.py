"""T5 fine-tuning on PCS tables with a tiny random-init T5 and a character-level vocabulary built locally,
loaded through the real ``from_pretrained`` path (no hub access)."""

import json

import pytest

from dishgraph.pcs.serialize import CELL_SEP, ROW_SEP, serialize_table
from dishgraph.pcs.t5 import T5Config, evaluate_tables, load_model, predict_tables, train_pcs, train_t5
from dishgraph.pcs.tables import PCSRow, PCSTable, read_pcs, write_pcs
from dishgraph.testing.tiny_models import build_tiny_t5

PAPER = "tests/fixtures/pcs/paper"


@pytest.fixture(scope="module")
def paper_tables():
    return read_pcs(PAPER)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory, paper_tables):
    texts = [
        r.instruction + r.action + (r.output or "") + "".join(r.inputs) + "NA; " for t in paper_tables for r in t.rows
    ]
    return build_tiny_t5(tmp_path_factory.mktemp("tiny_t5"), texts, d_model=64)


def test_markup_becomes_single_tokens_and_embeddings_grow(tiny_model):
    model, tok = load_model(tiny_model, mask="tokens")
    for t in (CELL_SEP, ROW_SEP, "<in>", "<out>"):
        assert len(tok(t, add_special_tokens=False)["input_ids"]) == 1
    assert model.get_input_embeddings().weight.shape[0] == len(tok)
    ids = tok("brie <s> cut").input_ids
    assert tok.decode(ids, skip_special_tokens=False).replace("</s>", "") == "brie <s> cut"


def test_train_save_reload_generate_and_score(tiny_model, paper_tables, tmp_path):
    out = tmp_path / "ft"
    cfg = T5Config(
        model=tiny_model,
        output_dir=str(out),
        max_rows=3,
        epochs=1,
        max_steps=6,
        batch_size=4,
        lr=3e-3,
        max_new_tokens=40,
        device="cpu",
    )
    rep = train_t5(paper_tables, cfg, dev=paper_tables[:1])
    assert rep["steps"] == 6 and rep["examples"] == 4 + 5  # 11 rows → 4 windows, 14 rows → 5 windows
    assert (out / "config.json").exists() and (out / "tokenizer.json").exists()
    dev = rep["dev"]
    assert dev["n"] == 11
    for field in ("input", "output"):
        assert 0.0 <= dev[field]["exact_match"] <= 100.0 and "rouge_l" in dev[field]
    # the saved checkpoint reloads through from_pretrained and still generates a table of the right shape
    model, tok = load_model(str(out))
    pred = predict_tables(model, tok, paper_tables[:1], T5Config(model=str(out), max_rows=3, max_new_tokens=30))
    assert [r.instruction for r in pred[0].rows] == [r.instruction for r in paper_tables[0].rows]
    assert [r.action for r in pred[0].rows] == [r.action for r in paper_tables[0].rows]


@pytest.mark.parametrize("mask", ["tokens", "sentinel"])
def test_tiny_model_memorises_a_short_table(tiny_model, mask):
    """A learning signal, not quality: 2 rows seen 300 times. The sentinel target is short enough for this
    64-dim model to reproduce largely (seeded init); the longer tokens-style target reliably only loses most
    of its loss."""
    table = PCSTable(
        "t1",
        "toast",
        [PCSRow("cut brie .", "cut", ["brie"], "sliced brie"), PCSRow("bake .", "bake", ["sliced brie"], "baked brie")],
    )
    cfg = T5Config(model=tiny_model, mask=mask, max_steps=300, batch_size=1, lr=3e-3, max_new_tokens=60, device="cpu")
    rep = train_t5([table], cfg, dev=[table])
    assert rep["loss_last"] < rep["loss_first"] / 10
    assert rep["dev"]["n"] == 2
    if mask == "sentinel":  # exact matches depend on the CPU thread count; overlap does not
        assert rep["dev"]["input"]["rouge_l"] >= 40.0
        assert rep["dev"]["output"]["rouge_l"] >= 40.0


def test_train_pcs_reads_files_and_exact_match_is_perfect_for_gold(tiny_model, paper_tables, tmp_path):
    gold = evaluate_tables(paper_tables, paper_tables)
    assert gold["input"]["exact_match"] == 100.0 and gold["output"]["exact_match"] == 100.0
    write_pcs(paper_tables, tmp_path / "train.jsonl")
    rep = train_pcs(
        tmp_path / "train.jsonl", T5Config(model=tiny_model, max_rows=4, max_steps=2, batch_size=8, device="cpu")
    )
    assert rep["train_tables"] == 2 and rep["steps"] == 2 and "dev" not in rep
    json.dumps(rep)  # the CLI prints it as JSON


def test_cli_train_pcs(tiny_model, tmp_path):
    from typer.testing import CliRunner

    from dishgraph.cli import app

    res = CliRunner().invoke(
        app,
        [
            "train",
            "pcs",
            PAPER,
            "--model",
            tiny_model,
            "--max-rows",
            "4",
            "--max-steps",
            "2",
            "--device",
            "cpu",
            "--json",
        ],
    )
    if res.exit_code != 0 and "No such command 'train'" in res.output:  # no train group yet: ours lives under pcs
        res = CliRunner().invoke(
            app,
            [
                "pcs",
                "train",
                PAPER,
                "--model",
                tiny_model,
                "--max-rows",
                "4",
                "--max-steps",
                "2",
                "--device",
                "cpu",
                "--json",
            ],
        )
    assert res.exit_code == 0, res.output
    rep = json.loads(res.stdout[res.stdout.index("{") :])
    assert rep["steps"] == 2 and rep["train_tables"] == 2


def test_examples_fit_the_tiny_tokenizer(tiny_model, paper_tables):
    _, tok = load_model(tiny_model, mask="sentinel")
    ex = serialize_table(paper_tables[1], "sentinel")[0]
    ids = tok(ex.target).input_ids
    assert tok.unk_token_id not in ids


def _last_json(output: str) -> dict:
    return json.loads(output[output.index("{\n") :])  # after any progress bars transformers writes


@pytest.mark.slow  # ~2 min on 2 shared cores: an untrained model generates up to 256 tokens per table
def test_t5_dir_through_pcs_predict_and_eval(tiny_model, tmp_path):
    """The `--model t5:DIR` path end to end on real release excerpts (a pipeline check, not a result)."""
    from typer.testing import CliRunner

    from dishgraph.cli import app

    release = "tests/fixtures/pcs/release"
    out = tmp_path / "ft"
    cfg = T5Config(model=tiny_model, output_dir=str(out), epochs=1, max_steps=2, batch_size=2, device="cpu")
    train_pcs(f"{release}/train", cfg)
    pred = tmp_path / "pred.jsonl"
    args = ["pcs", "predict", f"{release}/test", "--model", f"t5:{out}", "--out", str(pred), "--json"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert _last_json(res.output)["rows"] == 12
    scored = CliRunner().invoke(app, ["eval", "pcs", str(pred), f"{release}/test", "--json"])
    assert scored.exit_code == 0, scored.output
    assert _last_json(scored.output)["rows"] == 12
    oracle = CliRunner().invoke(app, [*args[:-1], "--setting", "oracle"])
    assert oracle.exit_code == 1 and "only --setting chained" in oracle.output
