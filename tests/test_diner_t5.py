"""DiNeR's T5 baselines end to end with a tiny T5 and a character tokenizer built locally (no hub access),
loaded through the real ``from_pretrained`` path: FT with validation and early stopping, continual
pretraining by span corruption, CP-FT with component models, and the `train diner` command."""

from __future__ import annotations

import json
import random

import pytest
from typer.testing import CliRunner

from dishgraph.diner.dataset import write_jsonl
from dishgraph.diner.t5 import DinerT5Config, component_target, compositional_prompt, span_corrupt, train_diner
from dishgraph.testing.tiny_models import build_tiny_t5


def _ex(i, name, comps, text, form=None):
    d = {
        "id": f"r{i}",
        "name": name,
        "instructions": text,
        "compounds": [],
        "components": [{"surface": s, "type": t, "cluster": s} for t, s in comps],
    }
    if form:
        d["form"] = form
    return d


TRAIN = [
    _ex(0, "番茄炒蛋", [("food", "番茄"), ("action", "炒"), ("food", "蛋")], "番茄切块，鸡蛋打散炒熟。"),
    _ex(1, "红烧牛肉", [("action", "红烧"), ("food", "牛肉")], "牛肉焯水，加酱油红烧。"),
    _ex(2, "香辣蟹", [("flavour", "香辣"), ("food", "蟹")], "螃蟹洗净，香辣酱爆炒。"),
    _ex(3, "清蒸鱼", [("action", "清蒸"), ("food", "鱼")], "鱼洗净，上锅清蒸。"),
    _ex(4, "炒牛肉", [("action", "炒"), ("food", "牛肉")], "牛肉切片，大火快炒。"),
]
TEST = [_ex(5, "红烧鱼", [("action", "红烧"), ("food", "鱼")], "鱼煎好，加酱油红烧。", "CombTwo")]
CORPUS = ["土豆切丝，清水浸泡，大火快炒。", "面粉加水和面，醒发后擀皮。"]


@pytest.fixture(scope="module")
def tiny_t5(tmp_path_factory):
    texts = (
        [e["instructions"] + e["name"] for e in TRAIN + TEST]
        + CORPUS
        + ["这道菜的菜名是什么？", "食材做法口味：；。、无"]
    )
    return build_tiny_t5(tmp_path_factory.mktemp("tiny_t5"), texts)


def test_span_corruption_masks_and_restores():
    rng = random.Random(0)
    ids = list(range(10, 50)) + [1]
    src, tgt = span_corrupt(ids, [900, 901, 902, 903], 1, rng)
    assert src[-1] == 1 and tgt[-1] == 1 and 900 in src and tgt[0] == 900
    # the input with each sentinel replaced by the target's span gives back the sequence
    spans, cur = {}, None
    for t in tgt[:-1]:
        if t >= 900:
            cur = t
            spans[cur] = []
        else:
            spans[cur].append(t)
    rebuilt = [x for t in src[:-1] for x in (spans[t] if t >= 900 else [t])]
    assert rebuilt == ids[:-1]
    assert 3 <= sum(len(v) for v in spans.values()) <= 9  # ~15% of 40


def test_prompts_of_component_models():
    assert component_target(TRAIN[0], "food") == "番茄、蛋" and component_target(TRAIN[0], "flavour") == "无"
    assert compositional_prompt({"food": "鱼", "action": "红烧"}) == "做法：红烧；口味：无；食材：鱼。"


def test_fine_tune_validation_early_stopping_and_predictions(tiny_t5, tmp_path):
    out = tmp_path / "ft"
    cfg = DinerT5Config(
        model=tiny_t5, output_dir=str(out), epochs=6, batch_size=2, lr=3e-3, patience=1, max_new_tokens=6, device="cpu"
    )
    rows, rep = train_diner(TRAIN, TEST, cfg)
    ft = rep["fine_tune"]
    assert (ft["train"], ft["validation"]) == (4, 1)  # 20% of train held out
    assert 1 <= ft["epochs_run"] <= 6 and all("val_loss" in h for h in ft["history"])
    assert ft["best_val_loss"] == min(h["val_loss"] for h in ft["history"])
    assert rows == [{"id": "r5", "pred": rows[0]["pred"], "gold": "红烧鱼", "form": "CombTwo"}]
    assert (out / "model.safetensors").exists() and not list(out.glob("*.bin"))
    from transformers import T5ForConditionalGeneration

    assert T5ForConditionalGeneration.from_pretrained(str(out)).config.d_model == 32


def test_continual_pretraining_then_cp_ft(tiny_t5, tmp_path):
    cfg = DinerT5Config(
        model=tiny_t5,
        output_dir=str(tmp_path / "cpft"),
        mode="cp-ft",
        epochs=1,
        batch_size=4,
        lr=3e-3,
        pretrain_steps=3,
        max_new_tokens=5,
        device="cpu",
        dtype="bfloat16",
    )
    rows, rep = train_diner(TRAIN, TEST, cfg, pretrain_texts=CORPUS)
    assert rep["pretrain"]["steps"] == 3 and rep["pretrain"]["texts"] == 2
    assert (tmp_path / "cpft" / "pretrained" / "model.safetensors").exists()
    assert set(rep["components"]) == {"food", "action", "flavour"}
    assert rows[0]["prompt"].startswith("做法：") and rows[0]["gold"] == "红烧鱼"


def test_train_diner_cli(tiny_t5, tmp_path):
    from dishgraph.cli import app

    ds = tmp_path / "ds"
    (ds / "s").mkdir(parents=True)
    write_jsonl(ds / "s" / "train.jsonl", TRAIN)
    write_jsonl(ds / "s" / "test.jsonl", TEST)
    write_jsonl(ds / "pretrain.jsonl", [{"id": f"p{i}", "instructions": t} for i, t in enumerate(CORPUS)])
    (ds / "manifest.json").write_text(
        json.dumps(
            {
                "splits": [
                    {"name": "s", "divergence": 0.9, "files": {"train": {"1": "s/train.jsonl"}, "test": "s/test.jsonl"}}
                ]
            }
        ),
        encoding="utf-8",
    )
    out = tmp_path / "run"
    r = CliRunner().invoke(
        app,
        [
            "train",
            "diner",
            str(ds),
            "--model",
            tiny_t5,
            "--out",
            str(out),
            "--epochs",
            "1",
            "--batch-size",
            "4",
            "--pretrain-corpus",
            str(ds / "pretrain.jsonl"),
            "--pretrain-steps",
            "2",
            "--device",
            "cpu",
            "--max-new-tokens",
            "4",
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["split"] == "s" and d["test_examples"] == 1 and 0.0 <= d["f1"] <= 1.0
    assert (out / "predictions.jsonl").exists() and json.loads((out / "report.json").read_text())["pretrain"]
    r = CliRunner().invoke(app, ["eval", "diner", str(out / "predictions.jsonl"), "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["n"] == 1
    r = CliRunner().invoke(app, ["train", "diner", str(ds), "--model", tiny_t5, "--out", str(out), "--mode", "x"])
    assert r.exit_code == 2 and "mode must be one of" in r.output and "Traceback" not in r.output
