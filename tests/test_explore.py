"""The dish-pair explorer on the real CRG release: the data of a release pair and of two base dishes, the
escaping of hostile names, and the page itself in headless Chromium (no console output, labels drawn by JS)."""

from __future__ import annotations

import html as html_mod
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dishgraph.explore import embed_json, pair_view, render_html

BASE, TARGET = "白灼菜心", "白灼秋葵"  # a release pair: the target has no recipes, only reference knowledge
OTHER_BASE = "清炒小白菜"  # another base dish, for a pair of two dishes with recipes
PER_DISH = 15
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium not installed (apt-get install -y chromium fonts-noto-cjk)"
)


@pytest.fixture(scope="module")
def db(tmp_path_factory, crg_dir, release_unparsed):
    """The release (no parsing) plus PER_DISH parsed recipes of two base dishes."""
    from dishgraph.api import DishGraph
    from dishgraph.ingest.crg import release_records
    from dishgraph.ingest.pipeline import parse_and_load
    from dishgraph.ingest.readers import read_crg_release

    path = release_unparsed(tmp_path_factory.mktemp("explore") / "db")  # the release, unparsed
    release = read_crg_release(crg_dir)
    records = release_records(crg_dir, (BASE, OTHER_BASE), PER_DISH, release=release)
    with DishGraph.open(db=str(path)) as g:
        parse_and_load(g.store, records, release.glossary, show_progress=False)
    return str(path)


@pytest.fixture(scope="module")
def views(db):
    from dishgraph.api import DishGraph

    with DishGraph.open(db=db) as g:
        release = pair_view(g, BASE, TARGET, top=20, compute=True)
        again = pair_view(g, BASE, TARGET, top=20, compute=True)
        bases = pair_view(g, BASE, OTHER_BASE, top=20, compute=True)
    return release, again, bases


def _release_pivots(crg_dir) -> set[tuple[str, str]]:
    from dishgraph.actions import ProtoAction

    data = json.loads((crg_dir / "pivot_actions.json").read_text(encoding="utf-8"))
    return {(ProtoAction.from_release(p).key, p["kind"]) for p in data[TARGET]}


def test_release_pair_view_computes_what_is_missing_once(views, crg_dir):
    release, again, _ = views
    assert release["computed"] == [f"USES {BASE}", f"order {BASE}"]  # the target has no recipes to compute from
    assert again["computed"] == []
    assert any(TARGET in n and "no parsed recipes" in n for n in release["notes"])
    assert release["pair"]["change_from"] == "菜心" and release["pair"]["change_to"] == "秋葵"
    pivots = {(p["action"], p["kind"]) for p in release["pivots"]}
    assert (
        pivots
        == _release_pivots(crg_dir)
        == {("淋|蔬菜|", "remove"), ("煮|叶子+油菜|", "remove"), ("过|叶子+油菜|", "remove"), ("去皮|洋葱|", "insert")}
    )
    assert len(release["actions"]["base"]) == 20 and release["actions"]["target"] == []
    freqs = [a["freq"] for a in release["actions"]["base"]]
    assert freqs == sorted(freqs, reverse=True) and freqs[0] > 0.5
    target_cons = {(c["cause"], c["effect"]) for c in release["constraints"]["target"]}
    assert target_cons == {("去皮|洋葱|", "切|洋葱|"), ("切|洋葱|", "淋|油|"), ("切|洋葱|", "加入|油|")}
    assert {c["source"] for c in release["constraints"]["target"]} == {"crg-release"}
    assert release["constraints"]["base"] and {c["source"] for c in release["constraints"]["base"]} == {"estimated"}
    nodes = {n["id"]: n for n in release["nodes"]}
    assert nodes["去皮|洋葱|"]["pivot"] == "insert" and nodes["淋|蔬菜|"]["pivot"] == "remove"
    # 秋葵 is in the release glossary's class 洋葱: the okra target's own actions show the okra, with its class
    assert nodes["去皮|洋葱|"]["label"] == "去皮(秋葵 (class 洋葱))"
    assert any("shown on 秋葵 (class 洋葱)" in n for n in release["notes"])
    assert all("秋葵" not in n["label"] for n in release["nodes"] if n["fb"] is not None)  # the base's stay as read
    top = release["actions"]["base"][0]["action"]
    assert nodes[top]["examples"] and len(nodes[top]["examples"]) <= 3
    assert again["nodes"] == release["nodes"]


def test_two_base_dishes_get_mined_pivots(views):
    _, _, bases = views
    assert bases["pair"]["change_kind"] == "adhoc"
    assert (bases["pair"]["base_recipes"], bases["pair"]["target_recipes"]) == (PER_DISH, PER_DISH)
    assert "pivots" in bases["computed"] and f"order {OTHER_BASE}" in bases["computed"]
    kinds = {p["kind"] for p in bases["pivots"]}
    assert kinds == {"remove", "insert"} and all(p["source"] == "mined" for p in bases["pivots"])
    assert len(bases["pivots"]) <= 20 < bases["pivots_total"]
    for p in bases["pivots"]:  # the CRG rule holds for every drawn pivot
        assert (p["fb"] > 5 * p["ft"] and p["ft"] < 0.01) if p["kind"] == "remove" else p["ft"] > max(5 * p["fb"], 0.1)
    keys = {n["id"] for n in bases["nodes"]}
    for side in ("base", "target"):
        assert all(c["cause"] in keys and c["effect"] in keys for c in bases["constraints"][side])
        assert all(c["kept"] is not False for c in bases["constraints"][side])  # only kept ones are drawn


HOSTILE = '</script><script>document.title="pwned"</script><!--&amp;\u2028'


def test_embedded_json_cannot_close_the_script_block():
    data = {"base": HOSTILE, "nested": [HOSTILE, {"k": "</SCRIPT >"}]}
    text = embed_json(data)
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == data


def _hostile_view(views) -> dict:
    view = json.loads(json.dumps(views[0]))
    view["base"] = HOSTILE
    view["nodes"][0]["examples"] = [HOSTILE]
    return view


def test_rendered_page_is_self_contained(views):
    page = render_html(views[0])
    assert page.count("<script") == 2 and " src=" not in page and '<link rel="stylesheet' not in page
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", page)
    hostile = render_html(_hostile_view(views))
    assert "<script>document.title" not in hostile
    assert html_mod.escape(HOSTILE) in hostile  # the <title>


# ------------------------------------------------------------------------------------------ Chromium
def chromium_dom(page: Path, tmp_path: Path, fragment: str = "") -> tuple[str, list[str]]:
    """The DOM after scripts ran, and the page's console lines (Chromium logs them as INFO:CONSOLE)."""
    proc = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1400,900",
            "--dump-dom",
            page.as_uri() + fragment,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    console = [ln for ln in proc.stderr.splitlines() if ":CONSOLE" in ln]
    return proc.stdout, console


@needs_chromium
def test_console_check_catches_a_broken_page(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text("<html><body><script>null.x;</script></body></html>", encoding="utf-8")
    _, console = chromium_dom(bad, tmp_path)
    assert any("Uncaught TypeError" in ln for ln in console)


@needs_chromium
def test_page_renders_in_headless_chromium(views, tmp_path):
    release = views[0]
    page = tmp_path / "pair.html"
    page.write_text(render_html(release), encoding="utf-8")
    dom, console = chromium_dom(page, tmp_path)
    assert console == []
    status = re.search(r'<div id="status"[^>]*data-nodes="(\d+)"[^>]*data-edges="(\d+)"', dom)
    n_edges = len(release["constraints"]["base"]) + len(release["constraints"]["target"])
    assert status and (int(status.group(1)), int(status.group(2))) == (len(release["nodes"]), n_edges)
    labels = re.findall(r"<text[^>]*>([^<]*)</text>", dom)
    assert {"去皮(秋葵 (class 洋葱))", "淋(蔬菜)", "切(秋葵 (class 洋葱))"} <= set(labels)
    assert {n["label"] for n in release["nodes"]} <= set(labels)
    assert f'<span id="title-base">{BASE}</span>' in dom
    # The search box (pre-filled from the URL fragment) highlights exactly the matching actions.
    dom, console = chromium_dom(page, tmp_path, "#q=" + "洋葱")
    expected = [
        n for n in release["nodes"] if "洋葱" in (n["label"] + " " + n["id"] + " " + " ".join(n["examples"])).lower()
    ]
    assert console == [] and len(expected) >= 2
    assert f'data-hits="{len(expected)}"' in dom
    assert len(re.findall(r'class="node[^"]*\bhit\b', dom)) == len(expected)


@needs_chromium
def test_hostile_url_fragments_do_not_stop_the_page(views, tmp_path):
    """A malformed escape (#q=%) is searched literally and an inherited name (#select=__proto__) selects
    nothing: the page still renders, with no console error (both threw before)."""
    page = tmp_path / "pair.html"
    page.write_text(render_html(views[0]), encoding="utf-8")
    for fragment in ("#q=%", "#q=%E6%B4%8B%", "#select=__proto__", "#select=constructor&q=%zz", "#select=toString"):
        dom, console = chromium_dom(page, tmp_path, fragment)
        assert console == [], (fragment, console)
        assert 'id="status"' in dom and "data-nodes=" in dom, fragment
    dom, console = chromium_dom(page, tmp_path, "#select=" + "去皮|洋葱|")
    assert console == [] and "去皮(秋葵 (class 洋葱))" in dom.split('id="details"', 1)[1][:3000]


@needs_chromium
def test_hostile_names_stay_text_in_chromium(views, tmp_path):
    page = tmp_path / "hostile.html"
    page.write_text(render_html(_hostile_view(views)), encoding="utf-8")
    dom, console = chromium_dom(page, tmp_path)
    assert console == []
    assert re.search(r"<title>(.*?)</title>", dom, re.S).group(1).startswith("dishgraph explorer: ")
    assert html_mod.escape(HOSTILE, quote=False).replace("\u2028", "") in dom.replace("\u2028", "")
    assert 'data-nodes="' in dom


# The page measured inside a phone-sized iframe: headless Chromium will not make its own window narrower
# than 500 px, but an iframe is a viewport of exactly the size asked for (media queries included). After the
# first measurement the iframe can be resized to other widths (a phone turned sideways), measured after each;
# the harness sends the resize event itself (when a browser sends its own is not something to wait for).
_MEASURE = """<!DOCTYPE html><html><body style="margin:0">
<iframe id="phone" style="border:0;width:%dpx;height:%dpx" srcdoc="%s"></iframe>
<pre id="measured"></pre>
<script>
var THEN = %s, frame = document.getElementById("phone"), got = [];
function measure() {
  var w = frame.contentWindow, d = w.document;
  function box(id) { var r = d.getElementById(id).getBoundingClientRect();
                     return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, height: r.height}; }
  var graph = box("graph"), labels = [].slice.call(d.querySelectorAll(".node text"));
  // A label's size on screen in CSS px: its font size times the drawing's scale.
  var px = labels.map(function (t) { return t.getScreenCTM().a * parseFloat(w.getComputedStyle(t).fontSize); });
  got.push({width: w.innerWidth, height: w.innerHeight, scroll_width: d.documentElement.scrollWidth,
    graph: graph, drawing: box("viewport"), fit: box("zoom-reset"), search: box("search"),
    label_px: Math.min.apply(null, px.concat([1000])), labels: labels.length,
    labels_outside: labels.filter(function (t) { var r = t.getBoundingClientRect();
      return r.left < graph.left - 1 || r.right > graph.right + 1 ||
             r.top < graph.top - 1 || r.bottom > graph.bottom + 1;
    }).length});
}
window.addEventListener("load", function () {
  measure();
  THEN.forEach(function (width) {
    frame.style.width = width + "px";
    frame.contentWindow.dispatchEvent(new Event("resize"));
    measure();
  });
  document.getElementById("measured").textContent = JSON.stringify(got);
});
</script></body></html>"""


def measure_pages(page_html: str, tmp_path: Path, width: int, height: int, then: tuple[int, ...] = ()) -> list[dict]:
    """Boxes (CSS px) of the graph, its drawing, the fit button and the search box, the smallest node label's
    size and the labels outside the graph, in a width × height viewport, then after resizing to each of ``then``."""
    wrapper = tmp_path / f"measure-{width}.html"
    script = _MEASURE % (width, height, html_mod.escape(page_html, quote=True), json.dumps(list(then)))
    wrapper.write_text(script, encoding="utf-8")
    dom, console = chromium_dom(wrapper, tmp_path)
    assert console == []
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
    assert found and found.group(1), dom[-2000:]
    got = json.loads(html_mod.unescape(found.group(1)))
    assert len(got) == 1 + len(then)
    return got


def measure_page(page_html: str, tmp_path: Path, width: int, height: int) -> dict:
    return measure_pages(page_html, tmp_path, width, height)[0]


@needs_chromium
def test_page_works_on_a_phone(views, tmp_path):
    """At 390×844 the details column stacks under the graph (side by side it left the graph a 50 px strip),
    the controls wrap inside the width (the fit button was cut off) and nothing overflows sideways."""
    m = measure_page(render_html(views[0]), tmp_path, 390, 844)
    assert (m["width"], m["height"]) == (390, 844)
    assert m["scroll_width"] <= 390
    assert m["graph"]["height"] >= 300 and m["graph"]["right"] - m["graph"]["left"] >= 360  # less a scrollbar
    fit, search = m["fit"], m["search"]
    assert 0 <= fit["left"] and fit["right"] <= 390 and 0 <= fit["top"] and fit["bottom"] <= 844
    assert 0 <= search["left"] and search["right"] <= 390
    # The fitted drawing lies inside the graph's box (the fit used the phone's width, not a desktop one).
    assert m["drawing"]["left"] >= m["graph"]["left"] - 1 and m["drawing"]["right"] <= m["graph"]["right"] + 1
    # The desktop keeps its side-by-side layout: the graph beside a details column, filling the height.
    d = measure_page(render_html(views[0]), tmp_path, 1280, 900)
    assert d["scroll_width"] <= 1280 and d["graph"]["right"] <= 1280 - 300 and d["graph"]["bottom"] == 900


@needs_chromium
@pytest.mark.parametrize("pair", [0, 2], ids=["release-pair", "two-bases"])
def test_phone_labels_are_readable_and_the_graph_has_no_blank(views, tmp_path, pair):
    """At 390 px the desktop layout (at least 700 px wide) was scaled down to fit: labels 5 px tall in a
    60vh graph mostly left blank. The phone's bands are drawn at scale 1 in a graph as tall as the drawing;
    turned sideways (844 px) the page gets the columns back, and at 390 again the bands."""
    phone, wide, back = measure_pages(render_html(views[pair]), tmp_path, 390, 844, then=(844, 390))
    for m in (phone, back):
        assert m["labels"] == len(views[pair]["nodes"]) and m["label_px"] >= 11, m
        assert m["graph"]["height"] - m["drawing"]["height"] <= 60, m  # no blank band under the drawing
        assert m["labels_outside"] == 0 and m["scroll_width"] <= 390, m
        assert m["drawing"]["left"] >= m["graph"]["left"] - 1 and m["drawing"]["right"] <= m["graph"]["right"] + 1
    assert back == phone
    # Sideways the graph sits beside the details column again, filling the height, its drawing fitted inside.
    assert wide["graph"]["right"] <= 844 - 300 and wide["graph"]["bottom"] == 844 and wide["labels_outside"] == 0
    # The desktop is as it was: the columns scaled to fit its box, labels about 11 px.
    desk = measure_page(render_html(views[pair]), tmp_path, 1280, 900)
    assert desk["label_px"] >= 10 and desk["labels_outside"] == 0 and desk["graph"]["bottom"] == 900, desk


def test_cli_writes_the_page(db, tmp_path):
    from dishgraph.cli import app

    out = tmp_path / "page" / "pair.html"
    r = CliRunner().invoke(app, ["explore", BASE, TARGET, "-o", str(out), "--db", db, "--top", "10", "--json"])
    assert r.exit_code == 0, r.output
    summary = json.loads(r.output[r.output.index("{") :])
    assert summary["pivots"] == 4 and summary["constraints"]["target"] == 3
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    r = CliRunner().invoke(app, ["explore", "没有这道菜", "也没有", "--html", str(out), "--db", db])  # the old name
    assert r.exit_code == 1 and "unknown dish '没有这道菜'" in r.output
