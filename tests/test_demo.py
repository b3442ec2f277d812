"""The main job end to end on a fresh embedded database (what `make demo` runs), then a quick re-run."""

import json

import pytest

pytestmark = pytest.mark.slow


DEMO_PAIRS = 10  # the release's first dish pairs (白灼菜心 → 白灼秋葵 …), with their base recipes
DEMO_SAMPLE = 1000  # XiaChuFang recipes: the first of the 10,879


@pytest.fixture(scope="module")
def demo_data(tmp_path_factory, data_dir, release_subset):
    """The demo's data folder with real data cut down: the release's first ``DEMO_PAIRS`` pairs with their
    500 base recipes (the glossary, reference pivots and constraints as released), DiNeR as it is, and the
    first ``DEMO_SAMPLE`` recipes of the XiaChuFang sample. Every step of the demo runs on real recipes in
    half a minute instead of five; the full run's figures are `make demo`'s (benchmarks/results/demo.json)."""
    folder = tmp_path_factory.mktemp("demo-data")
    (folder / "diner").symlink_to(data_dir / "diner", target_is_directory=True)
    release_subset(folder / "counterfactual", slice(DEMO_PAIRS))
    (folder / "xiachufang").mkdir()
    with open(data_dir / "xiachufang" / "recipes.jsonl", encoding="utf-8") as fh:
        head = [next(fh) for _ in range(DEMO_SAMPLE)]
    (folder / "xiachufang" / "recipes.jsonl").write_text("".join(head), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def demo(tmp_path_factory, demo_data):
    """One demo run (the slowest fixture of the suite: built once, read by every test here)."""
    from dishgraph.demo import run_demo
    from dishgraph.graph.ladybug_store import LadybugStore

    tmp_path = tmp_path_factory.mktemp("demo")
    with LadybugStore(tmp_path / "db") as store:
        rep = run_demo(
            store,
            demo_data,
            tmp_path / "report",
            workers=2,
            generators=("identity", "replace"),
            say=lambda m: None,
            show_progress=False,
        )
    return tmp_path, rep


def test_demo_end_to_end_and_rerun_skips_every_step(demo, demo_data):
    from dishgraph.demo import run_demo
    from dishgraph.graph.ladybug_store import LadybugStore

    tmp_path, rep = demo
    out = tmp_path / "report"
    skipped = {s.name: s.skipped for s in rep.steps}
    # no target has 10+ recipes, so corpus pivots are skipped with the reason; every other step ran
    assert skipped.pop("corpus pivots (targets with recipes)") and not any(skipped.values()) and len(skipped) == 8
    nodes = rep.counts["nodes"]
    # 499 distinct base recipes of the 10 pairs + 996 of the sample's first 1,000 (the whole release and sample
    # give 13,345 recipes, 277,399 steps and 7,776 dishes: benchmarks/results/demo.json)
    assert (nodes["DishPair"], nodes["Recipe"], nodes["Step"]) == (10, 1495, 29048)
    assert nodes["Dish"] == 626
    rels = rep.counts["relationships"]
    assert rels["MUST_PRECEDE"] > 120  # estimated, composed and tested edges on top of the release's 120
    assert rels["COMPOSED_USES"] > 0 and rels["COMPOSED_FROM"] > 0
    # composed in the typed reading, foods by their own names: never the released ones
    assert all(p["source"] == "composed, typed" for p in rep.example_pair["pivots"])
    assert rep.split["name"] == "tmcd" and rep.split["divergence"] >= 0.9  # 243 parsed names (2,696 in all)
    assert int(rep.split["n_train"]) + int(rep.split["n_test"]) == 243
    rows = {r["model"]: r for r in rep.results}
    # string matching, the same on any machine (all 2,500 instances: 3.36 and 85.24)
    assert rows["identity"]["bleu4"] == 100.0 and rows["identity"]["coi_added"] == 0.0
    assert rows["replace"]["coi_added"] == 92.2 and rows["replace"]["hard_f1"] > 5
    html = (out / "index.html").read_text(encoding="utf-8")
    assert rep.example_pair["base"] in html and "Proto-actions per recipe" in html
    assert json.loads((out / "report.json").read_text(encoding="utf-8"))["results"] == rep.results

    with LadybugStore(tmp_path / "db") as store:
        again = run_demo(
            store,
            demo_data,
            out,
            workers=2,
            generators=("identity", "replace"),
            say=lambda m: None,
            show_progress=False,
        )
    assert all(s.skipped for s in again.steps)
    assert again.counts == rep.counts


def readme_commands() -> list[str]:
    """Every `dishgraph …` line of the README's ```bash blocks (the quickstart a newcomer copies)."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", readme, flags=re.S)
    return [line.strip() for b in blocks for line in b.splitlines() if line.strip().startswith("dishgraph ")]


def test_readme_commands_run_as_written_on_the_demo_database(demo, demo_data, monkeypatch):
    """The README's quickstart, line by line, on the demo database, from the folder `make demo` ran in."""
    import shlex

    from typer.testing import CliRunner

    from dishgraph.cli import app
    from dishgraph.errors import EXIT_VIOLATIONS

    tmp_path, _ = demo
    commands = readme_commands()
    assert len(commands) >= 8
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISHGRAPH_DB", str(tmp_path / "db"))
    monkeypatch.setenv("DISHGRAPH_DATA", str(demo_data))
    for line in commands:
        res = CliRunner().invoke(app, shlex.split(line)[1:])
        ok = (0, EXIT_VIOLATIONS) if " order check " in f" {line} " else (0,)
        assert res.exit_code in ok, (line, res.output)
        assert res.output.strip(), line


def test_readme_python_snippet_runs_on_the_demo_database(demo, monkeypatch):
    import re
    from pathlib import Path

    tmp_path, _ = demo
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    (snippet,) = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    monkeypatch.setenv("DISHGRAPH_DB", str(tmp_path / "db"))
    exec(compile(snippet, "README.md", "exec"), {})


def test_the_reports_top_actions_are_what_stats_shows(demo):
    """The report and `dishgraph stats` read the same keys and counts (they disagreed: the report counted the
    CRG keys, 宝宝辅食 加入|水| 18, where stats counted the typed reading's, 14)."""
    from dishgraph.graph.info import graph_stats
    from dishgraph.graph.ladybug_store import LadybugStore

    tmp_path, rep = demo
    with LadybugStore(tmp_path / "db", read_only=True) as store:
        shown = graph_stats(store, top=8)["top_actions_per_dish"]
    assert rep.top_actions
    for dish, actions in rep.top_actions.items():
        counts = {a["action"]: a["recipes"] for a in shown[dish]}
        assert all(counts.get(a["action"]) == a["n"] for a in actions[:3]), dish
