"""Recipe LM training and the LM generators (GPT-2 D / D+R, DeLorean, EduCat) with tiny local models.

Everything runs on CPU with random-init GPT-2/BERT models over a character vocabulary of the real recipes,
saved to a tmp dir and loaded back through ``from_pretrained`` (the path a hub checkpoint takes).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dishgraph.eval.outputs import load_instances
from dishgraph.models import prompts, registry
from dishgraph.models.lm import (
    TrainConfig,
    held_out_from_store,
    recipes_from_release,
    recipes_from_store,
    split_held_out,
    train_lm,
)
from dishgraph.models.tokenizer import build_char_tokenizer
from dishgraph.testing.tiny_models import build_tiny_models


@pytest.fixture(scope="module")
def instances():
    return load_instances()


@pytest.fixture(scope="module")
def sample(instances):
    # three real instances from different pairs, one of them an "add" pair
    picks = [instances[0], instances[1234]]
    picks.append(next(i for i in instances if i.change_kind == "add"))
    return picks


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory, instances):
    texts = [i.base_recipe for i in instances] + [prompts.rewrite_prompt(i.base, i.target, "") for i in instances]
    return build_tiny_models(tmp_path_factory.mktemp("tiny"), texts, n_layer=1, n_embd=32, n_head=2)


# ------------------------------------------------------------------------------------ formats, tokenizer


def test_prompts_match_the_paper():
    assert prompts.training_text("白灼菜心", "菜心洗净。") == "白灼菜心的做法如下。菜心洗净。"
    assert prompts.dish_prompt("白灼秋葵") == "白灼秋葵的做法如下。"
    assert (
        prompts.rewrite_prompt("白灼菜心", "白灼秋葵", "菜心洗净。")
        == "请根据白灼菜心的做法改写白灼秋葵的做法。菜心洗净。白灼秋葵的做法如下。"
    )
    assert prompts.split_sentences("洗净，切段。大火！！30秒出锅") == ["洗净，切段。", "大火！！", "30秒出锅"]
    assert prompts.clean_generated("菜 心 洗 净 ok go\n好") == "菜心洗净ok go好"


def test_char_tokenizer_roundtrip_and_reload(tmp_path, instances):
    from transformers import AutoTokenizer

    tok = build_char_tokenizer(i.base_recipe for i in instances[:50])
    tok.save_pretrained(tmp_path)
    tok = AutoTokenizer.from_pretrained(tmp_path)
    text = instances[0].base_recipe
    ids = tok(text)["input_ids"]
    assert ids[0] == tok.cls_token_id and ids[-1] == tok.sep_token_id
    assert len(ids) == len(text.replace(" ", "")) + 2  # one id per character
    assert tok.decode(ids, skip_special_tokens=True) == text.replace(" ", "")
    assert tok.mask_token_id is not None and tok.pad_token_id == 0


# ------------------------------------------------------------------------------------------ hold-out


def test_store_queries_and_holdout(store, crg_dir, tmp_path):
    from dishgraph.ingest import loader
    from dishgraph.ingest.crg import ingest_counterfactual

    ingest_counterfactual(store, crg_dir, parse=False, show_progress=False)
    recipes, held_out = recipes_from_store(store), held_out_from_store(store)
    assert len(held_out) == 50 and "白灼秋葵" in held_out
    assert len(recipes) == 2496  # 2,500 lines, 4 exact duplicates share a content-hash id
    assert not {d for d, _ in recipes} & held_out  # the release has no target recipes…

    # …so plant one for a target dish: it is in the graph but must never reach training
    leak = "秋葵洗净切段，焯水一分钟，淋上酱汁。"
    loader.load_recipes(
        store, [loader.RecipeRecord(loader.recipe_id("test", "白灼秋葵", leak), "白灼秋葵", leak, source="test")]
    )
    recipes = recipes_from_store(store)
    assert ("白灼秋葵", leak) in recipes
    kept, dropped = split_held_out(recipes, held_out)
    assert dropped == 1 and all(d not in held_out for d, _ in kept)

    res = train_lm(
        recipes[:40] + [("白灼秋葵", leak)],
        held_out,
        TrainConfig(
            out=str(tmp_path / "lm"),
            max_steps=2,
            batch_size=8,
            max_length=64,
            n_layer=1,
            n_embd=32,
            val_fraction=0.0,
            save_every=0,
            eval_every=0,
        ),
    )
    assert res.dropped_held_out == 1 and res.train_recipes == 40
    log = json.loads((tmp_path / "lm" / "train_log.json").read_text(encoding="utf-8"))
    assert "白灼秋葵" in log["held_out_dishes"]
    assert not set(log["trained_dishes"]) & held_out


def test_release_source_holds_out_targets():
    recipes, held_out = recipes_from_release()
    assert len(recipes) == 2500 and len(held_out) == 50
    assert not {d for d, _ in recipes} & held_out


# ------------------------------------------------------------------------------------------ training


def test_train_from_scratch_resume_and_reload(tmp_path, instances):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    recipes = [(i.base, i.base_recipe) for i in instances[:60]]
    held = {instances[0].target}
    common = dict(batch_size=4, max_length=64, n_layer=1, n_embd=32, n_head=2, eval_every=2, save_every=2, seed=3)
    straight = train_lm(recipes, held, TrainConfig(out=str(tmp_path / "a"), max_steps=4, **common))

    def crash_at_step_3(step, total, loss):
        if step == 3:
            raise KeyboardInterrupt  # killed after the step-2 checkpoint

    with pytest.raises(KeyboardInterrupt):
        train_lm(recipes, held, TrainConfig(out=str(tmp_path / "b"), max_steps=4, **common), crash_at_step_3)
    resumed = train_lm(recipes, held, TrainConfig(out=str(tmp_path / "b"), max_steps=4, resume=True, **common))
    assert straight.steps == resumed.steps == 4
    assert resumed.losses == pytest.approx(straight.losses, abs=1e-5)  # resume continues exactly
    assert straight.val_recipes == 3 and straight.val_loss is not None
    assert (tmp_path / "a" / "loss.png").stat().st_size > 1000
    model = AutoModelForCausalLM.from_pretrained(tmp_path / "a")
    tok = AutoTokenizer.from_pretrained(tmp_path / "a")
    assert model.config.vocab_size == len(tok) and all(ch in tok.get_vocab() for ch in "的做法如下请根据改写")


def test_train_lm_cli(tmp_path):
    from dishgraph.cli import app

    res = CliRunner().invoke(
        app,
        [
            "train",
            "lm",
            "--out",
            str(tmp_path / "lm"),
            "--source",
            "release",
            "--max-steps",
            "2",
            "--batch-size",
            "4",
            "--max-length",
            "48",
            "--n-layer",
            "1",
            "--n-embd",
            "32",
            "--device",
            "cpu",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout[res.stdout.index("{") :])
    assert summary["steps"] == 2 and summary["train_recipes"] + summary["val_recipes"] == 2500
    assert summary["dropped_held_out"] == 0


# ---------------------------------------------------------------------------------------- generators


def test_generators_registered():
    assert {"gpt2-d", "gpt2-dr", "delorean", "educat"} <= set(registry.names())


@pytest.mark.parametrize(
    "name,options",
    [
        ("gpt2-d", dict(max_new_tokens=24)),
        ("gpt2-dr", dict(max_new_tokens=24)),
        ("delorean", dict(num_passes=2, num_backward_iters=2, max_sentence_chars=24, extra_tokens=4)),
        ("educat", dict(sample_time=6, drop_time=2, search_size=20, max_sentence_chars=24)),
    ],
)
def test_generator_end_to_end(name, options, tiny_models, sample):
    gpt_dir, bert_dir = tiny_models
    gen = registry.create(name, model=str(gpt_dir), mlm=str(bert_dir), device="cpu", seed=7, **options)
    out = registry.generate_all(gen, sample, batch_size=2)
    assert len(out) == len(sample)
    assert all(isinstance(t, str) and t and "\n" not in t and "[SEP]" not in t for t in out)
    if name in ("delorean", "educat"):
        # lockstep batching must not change any instance's result
        assert gen.generate(sample[1:2]) == [out[1]]


def test_gpt2_dr_prompt_keeps_frame_when_truncating(tiny_models, instances):
    gen = registry.create("gpt2-dr", model=str(tiny_models[0]), device="cpu", max_new_tokens=8)
    inst = instances[0]
    ids = gen.prompt_ids(inst, budget=40)
    text = gen.lm.tokenizer.decode(ids, skip_special_tokens=True)
    assert len(ids) == 40
    assert text.startswith(f"请根据{inst.base}的做法改写{inst.target}的做法。")
    assert text.endswith(f"{inst.target}的做法如下。")


def test_delorean_stays_on_base_when_backward_dominates(tiny_models, instances):
    """mix_rate 0 and large steps: the logits are pulled onto the base sentence, so it comes back verbatim."""
    gen = registry.create(
        "delorean",
        model=str(tiny_models[0]),
        device="cpu",
        mix_rate=0.0,
        stepsize=5.0,
        num_passes=3,
        num_backward_iters=3,
        extra_tokens=0,
        max_sentence_chars=30,
    )
    inst = instances[0]
    first = prompts.split_sentences(inst.base_recipe, 30)[0]
    out = gen.generate([inst])[0]
    assert out.startswith(first)


def test_educat_rejects_mismatched_vocab(tmp_path, tiny_models, instances):
    _, other_bert = build_tiny_models(tmp_path, ["完全不同的字表"], n_layer=1, n_embd=16, n_head=1)
    with pytest.raises(ValueError, match="different vocabularies"):
        registry.create("educat", model=str(tiny_models[0]), mlm=str(other_bert), device="cpu")


# --------------------------------------------------------------------- packing, time budget, masked LM


def test_packed_training_stops_on_time_budget(tmp_path, instances):
    recipes = [(i.base, i.base_recipe) for i in instances[:40]]
    res = train_lm(
        recipes,
        set(),
        TrainConfig(
            out=str(tmp_path / "p"),
            max_steps=50,
            batch_size=2,
            max_length=64,
            pack=True,
            n_layer=1,
            n_embd=32,
            val_fraction=0.0,
            save_every=0,
            eval_every=0,
            max_seconds=0.0,
        ),
    )
    tokens = sum(len(i.base_recipe.replace(" ", "")) + len(i.base) + 7 for i in instances[:40])  # + frame
    assert res.train_rows == -(-tokens // 64)  # packed rows: ceil(tokens / 64)
    assert res.steps == 1  # the budget is checked after each step
    assert (tmp_path / "p" / "config.json").exists()


def test_train_mlm_shares_the_lm_vocabulary(tmp_path, tiny_models, sample):
    from dishgraph.cli import app

    gpt_dir, _ = tiny_models
    res = CliRunner().invoke(
        app,
        [
            "train",
            "mlm",
            "--out",
            str(tmp_path / "mlm"),
            "--source",
            "release",
            "--tokenizer-from",
            str(gpt_dir),
            "--max-steps",
            "2",
            "--batch-size",
            "2",
            "--max-length",
            "48",
            "--n-layer",
            "1",
            "--n-embd",
            "32",
            "--device",
            "cpu",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout[res.stdout.index("{") :])
    assert summary["steps"] == 2 and summary["val_loss"] is not None
    gen = registry.create(
        "educat",
        model=str(gpt_dir),
        mlm=str(tmp_path / "mlm"),
        device="cpu",
        sample_time=3,
        drop_time=1,
        search_size=10,
        max_sentence_chars=16,
    )
    assert len(gen.generate(sample[:1])) == 1


# ------------------------------------------------------------------ generate CLI, subsets, partial outputs


def test_select_instances(instances):
    from dishgraph.models.run import select_instances

    per_pair = select_instances(instances, "first-per-pair")
    assert len(per_pair) == 50 and len({(i.base, i.target) for i in per_pair}) == 50
    assert per_pair[0].index == 0 and per_pair[1].index == 50  # 50 base recipes per pair, in file order
    assert [i.index for i in select_instances(instances, "3,7-9,3")] == [3, 7, 8, 9]
    assert [i.index for i in select_instances(instances, "every:1000")] == [0, 1000, 2000]
    assert len(select_instances(instances, "all", limit=5)) == 5
    spread = select_instances(instances, "spread")
    later = select_instances(instances, "spread:250", limit=250)  # a second lease's slice: the next 5 per pair
    assert later == spread[250:500] and not {i.index for i in later} & {i.index for i in spread[:250]}
    assert len({(i.base, i.target) for i in later}) == 50
    with pytest.raises(ValueError, match="spread:N"):
        select_instances(instances, "spread:x")
    with pytest.raises(ValueError, match="cannot read"):  # passes str.isdigit(), not int()
        select_instances(instances, "²")
    with pytest.raises(ValueError, match="out of range"):
        select_instances(instances, "2500")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rest=st.one_of(st.text(max_size=12), st.sampled_from(["²", "٣", " 7", "12-", "-1"])))
def test_spread_start_is_a_number_or_a_clear_error(instances, rest):
    """'spread:N' as a user may type it: N a number gives that slice, anything else one clear ValueError
    (also indices: '²' passes str.isdigit() but not int())."""
    from dishgraph.models.run import select_instances

    try:
        chosen = select_instances(instances, f"spread:{rest}")
    except ValueError as e:
        assert "spread:N" in str(e) and "\n" not in str(e)
    else:
        start = int(rest.strip() or 0)
        assert chosen == select_instances(instances, "spread")[start:]


def test_generate_cli_subset_is_scorable(tmp_path, tiny_models, instances):
    from dishgraph.cli import app
    from dishgraph.eval.outputs import read_outputs, read_present

    out = tmp_path / "d.jsonl"
    res = CliRunner().invoke(
        app,
        [
            "generate",
            "gpt2-d",
            "--model",
            str(tiny_models[0]),
            "--out",
            str(out),
            "--instances",
            "first-per-pair",
            "--limit",
            "3",
            "--max-new-tokens",
            "8",
            "--device",
            "cpu",
            "--batch-size",
            "2",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout[res.stdout.index("{") :])
    assert summary["instances"] == 3 and summary["recipes_per_s"] > 0
    chosen, texts = read_present(out, instances)
    assert [i.index for i in chosen] == [0, 50, 100] and len(texts) == 3
    with pytest.raises(ValueError, match="no record for 2497"):
        read_outputs(out, instances)  # the full reader still refuses a partial file

    plain = CliRunner().invoke(
        app,
        [
            "generate",
            "gpt2-d",
            "--model",
            str(tiny_models[0]),
            "--out",
            str(tmp_path / "d.txt"),
            "--limit",
            "2",
            "--device",
            "cpu",
        ],
    )
    assert plain.exit_code == 2 and "JSONL" in plain.output
    nomodel = CliRunner().invoke(app, ["generate", "delorean", "--out", str(tmp_path / "x.jsonl"), "--limit", "1"])
    assert nomodel.exit_code == 2 and "--model" in nomodel.output


def test_train_lm_cli_init_from_checkpoint(tmp_path, tiny_models):
    """--init takes a local dir exactly as it takes a hub id (from_pretrained): vocabulary and sizes kept."""
    from transformers import AutoModelForCausalLM

    from dishgraph.cli import app

    gpt_dir, _ = tiny_models
    res = CliRunner().invoke(
        app,
        [
            "train",
            "lm",
            "--out",
            str(tmp_path / "ft"),
            "--init",
            str(gpt_dir),
            "--source",
            "release",
            "--max-steps",
            "1",
            "--batch-size",
            "2",
            "--max-length",
            "32",
            "--device",
            "cpu",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    before = AutoModelForCausalLM.from_pretrained(gpt_dir)
    after = AutoModelForCausalLM.from_pretrained(tmp_path / "ft")
    assert after.config.n_embd == before.config.n_embd == 32 and after.config.vocab_size == before.config.vocab_size
    assert (tmp_path / "ft" / "loss.png").exists() and (tmp_path / "ft" / "checkpoint" / "trainer_state.pt").exists()


def _always_predicts_end(gen):
    """Make the generator's LM put [SEP] first at every position (as a small trained LM does after "。")."""
    import torch

    model = gen.lm.model
    sep = gen.lm.tokenizer.sep_token_id
    with torch.no_grad():
        model.transformer.ln_f.weight.zero_()
        model.transformer.ln_f.bias.copy_(model.transformer.wte.weight[sep] * 50)
    logits = model(torch.tensor([[sep, sep]])).logits[0, -1]
    assert int(logits.argmax()) == sep


def test_end_of_text_first_does_not_empty_the_recipe(tiny_models, instances):
    inst = instances[0]
    d = registry.create("gpt2-d", model=str(tiny_models[0]), device="cpu", max_new_tokens=12, do_sample=False)
    _always_predicts_end(d)
    assert len(d.generate([inst])[0]) == 8  # [SEP] blocked for min_new_tokens, then taken

    dl = registry.create(
        "delorean",
        model=str(tiny_models[0]),
        device="cpu",
        num_passes=2,
        num_backward_iters=2,
        max_sentence_chars=12,
        extra_tokens=2,
    )
    _always_predicts_end(dl)
    out = dl.generate([inst])[0]
    assert out and "[" not in out  # special tokens banned inside a sentence: no empty/NaN rewrite


def test_delorean_batch_never_runs_past_the_context(tmp_path, instances):
    """Rows with short sentences still decode for the batch's longest one: their context must leave room."""
    texts = [i.base_recipe for i in instances] + [prompts.dish_prompt(i.target) for i in instances]
    gpt_dir, _ = build_tiny_models(tmp_path, texts, n_layer=1, n_embd=16, n_head=1, n_positions=48)
    gen = registry.create(
        "delorean",
        model=str(gpt_dir),
        device="cpu",
        num_passes=1,
        num_backward_iters=1,
        max_sentence_chars=20,
        extra_tokens=4,
    )
    long_first = max(instances[:200], key=lambda i: len(i.base_recipe))
    out = gen.generate([long_first, instances[1]])  # would raise IndexError on position embeddings
    assert len(out) == 2 and all(out)
