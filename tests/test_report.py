"""The main job's HTML report: self-contained, escaped, with the sections a reader looks for."""

from dishgraph.demo import DemoReport, StepLog
from dishgraph.report import render_html


def test_report_is_self_contained_and_escapes_names():
    rep = DemoReport(
        database="/tmp/db",
        seconds=1.5,
        steps=[StepLog("ingest", 2.0, False, "100 dishes"), StepLog("USES", 0.0, True, "done")],
        counts={"nodes": {"Dish": 100, "Recipe": 2496}, "relationships": {"USES": 10}},
        graph={"recipes": 2496, "steps_per_recipe": 19.6},
        example_pair={
            "base": "白灼菜心",
            "target": "<script>x</script>",
            "pivots": [{"action": "切|洋葱|", "kind": "insert", "source": "crg-release", "fb": 0.0, "ft": 0.4}],
        },
        top_actions={"白灼菜心": [{"action": "洗净|菜心|", "freq": 0.58}]},
        steps_per_recipe=[3, 5, 5, 8],
        results=[{"model": "identity", "hard_f1": None, "bleu4": 100.0, "coi_added": 3.36}],
    )
    html = render_html(rep)
    assert "<script>x</script>" not in html and "&lt;script&gt;x&lt;/script&gt;" in html
    assert "http://" not in html and "https://" not in html  # nothing fetched at view time
    assert "data:image/png;base64," in html  # the histogram is inline
    for text in ("白灼菜心", "洗净|菜心|", "切|洋葱|", "identity", "100.0", "skipped"):
        assert text in html
