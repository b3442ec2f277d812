"""`dishgraph guide build|serve`: the Neo4j Browser guide that runs dishgraph's named queries."""

from __future__ import annotations

import warnings
from pathlib import Path

import typer

from dishgraph.cli_errors import DishgraphGroup, reported
from dishgraph.commands._common import console, emit_json, print_warning, rows_table
from dishgraph.commands._options import JsonOpt

app = typer.Typer(
    help="Neo4j Browser guide (:play) built from the named queries: build it, serve it.",
    no_args_is_help=True,
    cls=DishgraphGroup,
)

DataOpt = typer.Option(
    None, "--data", help="Data directory for the example parameters (default: located automatically, $DISHGRAPH_DATA)."
)


def _report(guide, as_json: bool, path: Path | None = None, url: str | None = None) -> None:
    rows = [{"slide": s.title, "query": s.query, "params": s.params} for s in guide.slides]
    if as_json:
        return emit_json({"path": str(path) if path else None, "url": url, "slides": rows, "skipped": guide.skipped})
    console.print(rows_table(rows, f"{guide.title}: {len(rows)} query slides"))
    for name in guide.skipped:
        print_warning(f"no named query {name!r} yet; its slide is skipped")


def _quietly(fn, *args, **kwargs):
    """Run a build with its missing-query warnings collected (the table reports them once)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@app.command()
def build(
    out: Path = typer.Option(..., "--out", "-o", help="Directory to write guide.html into (created)."),
    data: Path | None = DataOpt,
    as_json: bool = JsonOpt,
):
    """Write the guide: one slide per named query, each a :param block then the query's exact Neo4j text."""
    from dishgraph.guide import write_guide

    path, guide = _quietly(write_guide, out, data)
    _report(guide, as_json, path=path)
    if not as_json:
        console.print(f"wrote {path}; serve it with `dishgraph guide serve` or any server that sends CORS headers")


@app.command()
def serve(
    port: int = typer.Option(8001, "--port", help="TCP port on 127.0.0.1, 0..65535 (0 picks a free one)."),
    data: Path | None = DataOpt,
    as_json: bool = JsonOpt,
):
    """Serve a freshly built guide on 127.0.0.1; in Neo4j Browser run the printed :play.

    Only requests for 127.0.0.1 / localhost are answered (any other Host header: 403), and CORS allows only
    pages on loopback (Neo4j Browser), so no other web site can read it."""
    from dishgraph.guide import build_guide, guide_url, make_server

    if not 0 <= port <= 65535:
        raise reported(f"--port {port} is not a TCP port (0..65535; 0 picks a free one)", 2)
    guide = _quietly(build_guide, data)
    try:
        server = make_server(guide.html, port)
    except OSError as e:
        raise reported(f"cannot listen on 127.0.0.1:{port}: {e}", 2) from None
    url = guide_url(server)
    _report(guide, as_json, url=url)
    if not as_json:
        console.print(f"serving the guide; in Neo4j Browser run  :play {url}   (Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
