"""The main job end to end on a fresh embedded database (what `make demo` runs), then a quick re-run."""
import json

import pytest

pytestmark = pytest.mark.slow


def test_demo_end_to_end_and_rerun_skips_every_step(tmp_path, data_dir):
    from dishgraph.demo import run_demo
    from dishgraph.graph.ladybug_store import LadybugStore

    out = tmp_path / "report"
    with LadybugStore(tmp_path / "db") as store:
        rep = run_demo(store, data_dir, out, workers=2, generators=("identity", "replace"), say=lambda m: None,
                       show_progress=False)
    assert [s.skipped for s in rep.steps] == [False] * 6
    nodes = rep.counts["nodes"]
    assert (nodes["Dish"], nodes["DishPair"], nodes["Recipe"], nodes["Step"]) == (100, 50, 2496, 48943)
    assert rep.counts["relationships"]["MUST_PRECEDE"] > 435  # estimated edges on top of the release's
    assert rep.split["name"] == "tmcd" and rep.split["divergence"] >= 0.98  # all 100 names, extra glossary
    assert int(rep.split["n_train"]) + int(rep.split["n_test"]) == 100
    rows = {r["model"]: r for r in rep.results}
    assert rows["identity"]["bleu4"] == 100.0 and rows["identity"]["coi_added"] == 3.36
    assert rows["replace"]["coi_added"] == 85.24 and rows["replace"]["hard_f1"] > 10
    html = (out / "index.html").read_text(encoding="utf-8")
    assert rep.example_pair["base"] in html and "Proto-actions per recipe" in html
    assert json.loads((out / "report.json").read_text(encoding="utf-8"))["results"] == rep.results

    with LadybugStore(tmp_path / "db") as store:
        again = run_demo(store, data_dir, out, workers=2, generators=("identity", "replace"),
                         say=lambda m: None, show_progress=False)
    assert all(s.skipped for s in again.steps)
    assert again.counts == rep.counts
