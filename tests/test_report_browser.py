"""The report in a real browser (headless Chromium; skipped where it is not installed): the CRG results
come first, and at a phone's width (390 px) nothing makes the page scroll sideways (wide tables scroll
inside their own box)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from dishgraph.demo import DemoReport, StepLog
from dishgraph.eval.crg import COLUMNS
from dishgraph.report import render_html

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium installed")

# Written into the page's title once laid out: the widths that show sideways scrolling, and what comes first.
PROBE = """<script>
const d = document.documentElement, h2 = document.querySelector('h2');
const wide = [...document.querySelectorAll('body *')].filter(e => {
  const r = e.getBoundingClientRect(); return r.right > d.clientWidth + 1 && !e.closest('.scroll');
}).map(e => e.tagName + '.' + e.className).slice(0, 5);
const results = document.querySelector('table.results'), box = results && results.closest('.scroll');
document.title = 'PROBE' + JSON.stringify({scroll: d.scrollWidth, client: d.clientWidth,
  results: results && results.scrollWidth, resultsBox: box && box.clientWidth,
  first: h2 && h2.textContent, firstTable: document.querySelector('table').textContent.slice(0, 1000), wide});
</script>"""


def _report() -> DemoReport:
    row = {k: 12.3456 for k, _ in COLUMNS} | {"bertscore_f1": None, "n_scored": 2492}
    return DemoReport(
        database="/tmp/a/rather/long/path/to/the/database/that/does/not/wrap/well/db",
        seconds=143.2,
        steps=[
            StepLog("ingest + parse the XiaChuFang sample", 378.6, False, "10850 recipes of 7722 dishes, " * 6),
            StepLog("corpus pivots (targets with recipes)", 0.0, True, "no target has 10+ parsed recipes " * 4),
        ],
        counts={"nodes": {"Dish": 7822, "Recipe": 13346}, "relationships": {"MUST_PRECEDE": 12000}},
        graph={"recipes": 13346, "steps_per_recipe": 19.6},
        example_pair={
            "base": "白灼菜心",
            "target": "白灼秋葵",
            "pivots": [{"action": "切|洋葱|", "kind": "insert", "source": "composed", "fb": 0.0, "ft": 0.4}],
        },
        top_actions={"红烧肉": [{"action": "加入|冰糖+生抽+老抽|锅", "freq": 0.58, "n": 29, "total": 50}]},
        steps_per_recipe=[3, 5, 5, 8, 21, 40],
        results=[
            {**row, "model": "identity", "hard_f1": None},
            {**row, "model": "replace"},
            {**row, "model": "graph editor (composed, fair)", "hard_f1": 16.24},
        ],
    )


def _probe(tmp_path, width: int, height: int) -> dict:
    page = tmp_path / f"report-{width}.html"
    page.write_text(render_html(_report()).replace("</body>", PROBE + "</body>"), encoding="utf-8")
    dom = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            f"--window-size={width},{height}",
            "--virtual-time-budget=2000",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    m = re.search(r"<title>PROBE(.*?)</title>", dom, re.S)
    assert m, dom[:500]
    import html

    return json.loads(html.unescape(m.group(1)))


@pytest.mark.parametrize("width,height", [(390, 844), (1280, 900)])
def test_report_leads_with_results_and_never_scrolls_sideways(tmp_path, width, height):
    got = _probe(tmp_path, width, height)
    assert got["first"].startswith("CRG results"), got
    assert "graph editor (composed, fair)" in got["firstTable"] and "Hard F1" in got["firstTable"]
    assert got["scroll"] <= got["client"], got  # no horizontal page overflow
    assert not got["wide"], got
    # the headline table itself reads without sideways scrolling: one card per generator on a phone
    assert got["results"] is not None and got["results"] <= got["resultsBox"], got
