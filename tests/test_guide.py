"""The Neo4j Browser guide: built from the named queries, served on loopback with CORS, read back as Browser does.

Browser splits the page on <slide> and copies each <pre class="runnable">'s trimmed text content into its
editor, so the test parses the served page the same way and compares every block with the named query text.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dishgraph.graph import queries
from dishgraph.guide import build, build_guide, example_params, param_command, serve_in_thread


class BrowserView(HTMLParser):
    """What Neo4j Browser takes from a guide: the <title>, the slides and their runnable blocks."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title, self.slides, self.tags = "", [], []
        self._in_title = False
        self._pre: dict | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "title":
            self._in_title = True
        elif tag == "slide":
            self.slides.append({"attrs": a, "runnable": []})
        elif tag == "pre" and "runnable" in (a.get("class") or "").split():
            self._pre = {"attrs": a, "text": ""}

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False
        elif tag == "pre" and self._pre is not None:
            self.slides[-1]["runnable"].append({**self._pre, "text": self._pre["text"].strip()})
            self._pre = None

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        if self._pre is not None:
            self._pre["text"] += data


def parse_param_block(text: str) -> dict:
    """``:param {a: "x", b: 1}`` -> {"a": "x", "b": 1} (our builder quotes values as JSON)."""
    assert text.startswith(":param {") and text.endswith("}")
    body = text[len(":param ") :]

    return json.loads(re.sub(r"([{,]\s*)([A-Za-z_][A-Za-z0-9_]*)\s*:", r'\1"\2":', body))


@pytest.fixture(scope="module")
def served():
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        guide = build_guide()
    missing = [s["query"] for s in build.load_spec()["slides"] if s["query"] not in queries.names()]
    assert all(any(m in str(w.message) for w in caught) for m in missing)  # each skip is warned about
    server, url = serve_in_thread(guide.html, port=0)
    yield guide, server, url
    server.shutdown()
    server.server_close()


def fetch(url: str, method: str = "GET"):
    req = urllib.request.Request(url, method=method, headers={"Origin": "http://localhost:7474"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.status, dict(resp.headers), resp.read().decode("utf-8")


def test_served_on_loopback_with_cors(served):
    _, server, url = served
    assert server.server_address[0] == "127.0.0.1"
    assert url.startswith("http://localhost:") and url.endswith("/guide.html")
    status, headers, body = fetch(url)
    assert status == 200
    assert headers["Access-Control-Allow-Origin"] == "http://localhost:7474"  # Browser's origin, never *
    assert headers["Content-Type"].startswith("text/html")
    assert body.startswith("<!DOCTYPE html>")
    status, headers, _ = fetch(url, "OPTIONS")
    assert status == 204 and headers["Access-Control-Allow-Origin"] == "http://localhost:7474"
    with pytest.raises(urllib.error.HTTPError) as e:
        fetch(url.replace("guide.html", "nothing.html"))
    assert e.value.code == 404


def test_slides_run_exactly_the_named_queries(served):
    guide, _, url = served
    _, _, body = fetch(url)
    assert body == guide.html
    view = BrowserView()
    view.feed(body)
    assert view.title == "dishgraph: Chinese recipes as action graphs"
    assert ("article", {"class": "guide"}) in view.tags
    assert any(t == "carousel" for t, _ in view.tags)

    query_slides = [s for s in view.slides if "data-query" in s["attrs"]]
    spec_names = [s["query"] for s in build.load_spec()["slides"]]
    present = [n for n in spec_names if n in queries.names()]
    assert [s["attrs"]["data-query"] for s in query_slides] == present
    assert guide.skipped == [n for n in spec_names if n not in queries.names()]
    assert len(view.slides) == len(present) + 1  # plus the intro slide, which runs nothing
    assert view.slides[0]["runnable"] == []

    examples = example_params()
    for slide in query_slides:
        name = slide["attrs"]["data-query"]
        q = queries.get(name, "neo4j")
        param_block, query_block = slide["runnable"]
        assert param_block["attrs"]["mode"] == "cypher" and query_block["attrs"]["mode"] == "cypher"
        assert query_block["text"] == q.text  # exactly what `dishgraph` runs on Neo4j
        assert query_block["attrs"]["data-query"] == name
        params = parse_param_block(param_block["text"])
        assert set(params) == set(q.params)
        assert all(params[p] == examples[p] for p in q.params)


def test_example_parameters_come_from_the_real_data(crg_dir):
    from dishgraph.actions import ProtoAction

    ex = example_params(crg_dir.parent)
    base, target = (crg_dir / "dish_pairs.txt").read_text(encoding="utf-8").split("\n")[0].split()
    assert (ex["base"], ex["target"], ex["dish"], ex["pair"]) == (base, target, target, f"{base}->{target}")
    constraints = json.loads((crg_dir / "order_constraints.json").read_text(encoding="utf-8"))
    assert ex["action"] == ProtoAction.from_release(constraints[target][0]["action"]).key
    assert (base, target, ex["action"]) == ("白灼菜心", "白灼秋葵", "切|洋葱|")


def test_param_command_is_browser_syntax():
    assert param_command({"dish": "白灼秋葵", "limit": 5}) == ':param {dish: "白灼秋葵", limit: 5}'
    assert param_command({"odd key": 'a"b'}) == ':param {"odd key": "a\\"b"}'


def test_missing_query_skips_its_slide_with_a_warning(tmp_path):
    spec = build.load_spec()
    spec["slides"] = [{"query": "no_such_query_yet", "title": "Later"}] + spec["slides"][1:2]
    path = tmp_path / "slides.json"
    path.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    with pytest.warns(UserWarning, match="no_such_query_yet"):
        guide = build_guide(spec_path=path)
    assert guide.skipped == ["no_such_query_yet"]
    assert "no_such_query_yet" not in guide.html
    assert [s.query for s in guide.slides] == [s["query"] for s in spec["slides"][1:] if s["query"] in queries.names()]


def test_bad_spec_names_the_file(tmp_path):
    path = tmp_path / "slides.json"
    path.write_text('{"title": "x",\n "slides": [}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"slides\.json:2"):
        build_guide(spec_path=path)


def test_cli_build_writes_the_guide(tmp_path):
    from dishgraph.cli import app

    out = tmp_path / "guide"
    result = CliRunner().invoke(app, ["guide", "build", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["path"] == str(out / "guide.html")
    html = (out / "guide.html").read_text(encoding="utf-8")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        guide = build_guide()
    assert html == guide.html
    assert [s["query"] for s in report["slides"]] == [s.query for s in guide.slides]
    assert report["skipped"] == guide.skipped


def test_compose_file_runs_neo4j5_with_browser_guide_access():
    """docker-compose.yml parses and wires what docs/neo4j.md promises (no docker needed)."""
    from pathlib import Path

    yaml = pytest.importorskip("yaml")
    compose = yaml.safe_load((Path(__file__).resolve().parents[1] / "docker-compose.yml").read_text("utf-8"))
    neo4j = compose["services"]["neo4j"]
    assert neo4j["image"] == "neo4j:5.26-community"
    assert {p.rsplit(":", 1)[1] for p in neo4j["ports"]} == {"7474", "7687"}
    assert all(p.startswith("127.0.0.1:") for p in neo4j["ports"])
    env = neo4j["environment"]
    assert env["NEO4J_AUTH"].startswith("neo4j/${NEO4J_PASSWORD:-")
    assert "localhost" in env["NEO4J_browser_remote__content__hostname__allowlist"].split(",")
    assert {"NEO4J_server_memory_heap_max__size", "NEO4J_server_memory_pagecache_size"} <= set(env)
    assert "neo4j-data:/data" in neo4j["volumes"] and "neo4j-data" in compose["volumes"]
    assert "cypher-shell" in neo4j["healthcheck"]["test"][1]
    guide = compose["services"]["guide"]
    assert guide["profiles"] == ["guide"] and guide["ports"][0].endswith(":8001")
    compile(guide["command"][2], "docker-compose guide server", "exec")


def test_idle_connections_time_out_and_vanished_clients_are_quiet(capfd):
    """An idle connection is closed after the timeout (its thread ends); a client that goes away mid-answer
    (BrokenPipe, reset) leaves no traceback on the console."""
    import socket
    import threading
    import time

    server, url = serve_in_thread("<!DOCTYPE html><p>guide</p>", port=0, timeout=0.5)
    try:
        host, port = server.server_address[:2]
        baseline = threading.active_count()
        idle = [socket.create_connection((host, port)) for _ in range(20)]
        for s in idle:
            s.settimeout(5)
            assert s.recv(1) == b""  # the server closed the idle connection
            s.close()
        deadline = time.time() + 5
        while threading.active_count() > baseline and time.time() < deadline:
            time.sleep(0.05)
        assert threading.active_count() <= baseline  # no thread left waiting on an idle client
        for _ in range(30):  # ask, then vanish before the answer is read (RST on close with unread data)
            s = socket.create_connection((host, port))
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            s.sendall(b"GET /guide.html HTTP/1.1\r\nHost: localhost\r\n\r\n" * 50)
            s.close()
        for exc in (BrokenPipeError(32, "Broken pipe"), ConnectionResetError(104, "reset")):
            try:
                raise exc
            except OSError:
                server.handle_error(None, ("127.0.0.1", 1))
        assert fetch(url)[0] == 200  # still serving
    finally:
        server.shutdown()
        server.server_close()
    err = capfd.readouterr().err
    assert "Traceback" not in err and "BrokenPipe" not in err and "ConnectionReset" not in err


def test_serve_port_out_of_range_is_a_one_line_usage_error():
    from dishgraph.cli import app

    r = CliRunner().invoke(app, ["guide", "serve", "--port", "70000"])
    assert r.exit_code == 2 and "70000" in r.output and "OverflowError" not in r.output


def test_shipped_slides_all_have_their_query_and_examples():
    """`guide build` warns about nothing: every slide's query exists and every parameter has an example."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        guide = build_guide()
    assert guide.skipped == [] and len(guide.slides) == len(build.load_spec()["slides"])
    first = guide.slides[0]
    assert first.query == "dish_recipes_steps" and first.params["base"] and first.params["limit"]


def test_commands_the_slides_name_exist_with_their_options():
    """Every <code>dishgraph …</code> in the slides is a real command with real options (the first slide told
    users to run `dishgraph --uri …`, an option the root command does not have)."""
    from dishgraph.docs_cli import walk

    commands = {c.name.removeprefix("dishgraph "): c for c in walk()}
    text = (build.GUIDE_DIR / "slides.json").read_text(encoding="utf-8")
    named = re.findall(r"<code>dishgraph ([^<]*)</code>", text)
    assert named
    for line in named:
        words = line.split()
        name = next((" ".join(words[:n]) for n in (2, 1) if " ".join(words[:n]) in commands), None)
        assert name is not None, f"`dishgraph {line}` names no command"
        options = {o for p in commands[name].params if p["option"] for o in p["name"].split(", ")}
        assert all(w in options for w in words if w.startswith("-")), f"`dishgraph {line}`: unknown option"


def test_only_loopback_hosts_are_answered_and_cors_names_only_loopback_origins():
    """DNS rebinding (a page on evil.example resolving to 127.0.0.1) sends its own Host: refused. CORS names
    the requesting origin only when it is on loopback (Neo4j Browser), never `*`."""
    import http.client

    server, url = serve_in_thread("<!DOCTYPE html><p>guide</p>", port=0)
    port = server.server_address[1]
    try:
        for host, origin, status, acao in [
            (f"localhost:{port}", "http://localhost:7474", 200, "http://localhost:7474"),
            (f"127.0.0.1:{port}", "http://127.0.0.1:7474", 200, "http://127.0.0.1:7474"),
            ("[::1]", "https://localhost", 200, "https://localhost"),
            (f"localhost:{port}", "http://evil.example", 200, None),
            ("evil.example", "http://evil.example", 403, None),
            (f"evil.example:{port}", None, 403, None),
            ("localhost.evil.example", None, 403, None),
            ("127.0.0.1.nip.io", None, 403, None),
        ]:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            headers = {"Host": host, **({"Origin": origin} if origin else {})}
            c.request("GET", "/guide.html", headers=headers)
            r = c.getresponse()
            r.read()
            assert (r.status, r.getheader("Access-Control-Allow-Origin")) == (status, acao), (host, origin)
            c.close()
    finally:
        server.shutdown()
        server.server_close()


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_the_host_allow_list_accepts_only_loopback_names(value):
    from dishgraph.guide.serve import LOOPBACK_NAMES, loopback_host

    if loopback_host(value):
        name = value.strip().rsplit(":", 1)[0] if not value.strip().startswith("[") else value.strip()[:5]
        assert name.lower() in LOOPBACK_NAMES
