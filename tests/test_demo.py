"""The main job end to end on a fresh embedded database (what `make demo` runs), then a quick re-run."""

import json

import pytest

pytestmark = pytest.mark.slow


def test_demo_end_to_end_and_rerun_skips_every_step(tmp_path, data_dir):
    from dishgraph.demo import run_demo
    from dishgraph.graph.ladybug_store import LadybugStore

    out = tmp_path / "report"
    with LadybugStore(tmp_path / "db") as store:
        rep = run_demo(
            store, data_dir, out, workers=2, generators=("identity", "replace"), say=lambda m: None, show_progress=False
        )
    skipped = {s.name: s.skipped for s in rep.steps}
    # no target has 10+ recipes, so corpus pivots are skipped with the reason; every other step ran
    assert skipped.pop("corpus pivots (targets with recipes)") and not any(skipped.values()) and len(skipped) == 7
    nodes = rep.counts["nodes"]
    # the release (2,496 distinct recipes) + the XiaChuFang sample less its 29 junk texts; 277,353 steps before
    # the section-label rule (labels and ingredient lists are no steps)
    assert (nodes["DishPair"], nodes["Recipe"], nodes["Step"]) == (50, 13345, 277164)
    assert nodes["Dish"] == 7776
    rels = rep.counts["relationships"]
    assert rels["MUST_PRECEDE"] > 435  # estimated and composed edges on top of the release's
    assert rels["COMPOSED_USES"] > 0 and rels["COMPOSED_FROM"] > 0
    assert all(p["source"] == "composed" for p in rep.example_pair["pivots"])  # never the released ones
    assert rep.split["name"] == "tmcd" and rep.split["divergence"] >= 0.9  # 2,696 parsed names
    assert int(rep.split["n_train"]) + int(rep.split["n_test"]) == 2696
    rows = {r["model"]: r for r in rep.results}
    assert rows["identity"]["bleu4"] == 100.0 and rows["identity"]["coi_added"] == 3.36
    assert rows["replace"]["coi_added"] == 85.24 and rows["replace"]["hard_f1"] > 10
    html = (out / "index.html").read_text(encoding="utf-8")
    assert rep.example_pair["base"] in html and "Proto-actions per recipe" in html
    assert json.loads((out / "report.json").read_text(encoding="utf-8"))["results"] == rep.results

    with LadybugStore(tmp_path / "db") as store:
        again = run_demo(
            store, data_dir, out, workers=2, generators=("identity", "replace"), say=lambda m: None, show_progress=False
        )
    assert all(s.skipped for s in again.steps)
    assert again.counts == rep.counts
