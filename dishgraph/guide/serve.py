"""Serve the guide to Neo4j Browser on the loopback interface.

Browser fetches a ``:play`` URL with an XHR from its own origin (http://localhost:7474), so the answer needs
``Access-Control-Allow-Origin: *`` (and an answer to the CORS preflight). The host must also be on the
server's ``browser.remote_content_hostname_allowlist`` (localhost is by default, and in docker-compose.yml).
"""

from __future__ import annotations

import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from dishgraph.guide.build import GUIDE_FILE

CORS_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
    "Access-Control-Allow-Headers": "*",
}


CONNECTION_TIMEOUT = 10.0  # seconds a connection may sit idle: idle clients must not hold a thread each forever


class QuietServer(ThreadingHTTPServer):
    """A client that goes away (closed tab, reset, timed out) is normal for a local guide server: no traceback
    for it; anything else is one line on stderr, and the server keeps serving."""

    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        err = sys.exc_info()[1]
        if isinstance(err, (ConnectionError, TimeoutError)):
            return
        print(f"guide server: {type(err).__name__}: {err} (client {client_address[0]})", file=sys.stderr)


def make_server(
    html: str, port: int = 8001, host: str = "127.0.0.1", *, timeout: float = CONNECTION_TIMEOUT
) -> ThreadingHTTPServer:
    """A server (not yet serving) for the guide at ``/guide.html`` (and ``/``); port 0 picks a free one.
    A connection idle for ``timeout`` seconds is closed (its thread ends)."""
    if not 0 <= port <= 65535:
        raise ValueError(f"port {port} is not in 0..65535")
    body = html.encode("utf-8")

    class GuideHandler(BaseHTTPRequestHandler):
        server_version = "dishgraph-guide"

        def _headers(self, status: HTTPStatus, length: int, content_type: str) -> None:
            self.send_response(status)
            for k, v in CORS_HEADERS.items():
                self.send_header(k, v)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(length))
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()

        def _answer(self, with_body: bool) -> None:
            if self.path.split("?", 1)[0] in ("/", "/" + GUIDE_FILE):
                self._headers(HTTPStatus.OK, len(body), "text/html; charset=utf-8")
                if with_body:
                    self.wfile.write(body)
            else:
                msg = f"not found; the guide is at /{GUIDE_FILE}\n".encode()
                self._headers(HTTPStatus.NOT_FOUND, len(msg), "text/plain; charset=utf-8")
                if with_body:
                    self.wfile.write(msg)

        def do_GET(self) -> None:  # noqa: N802 (http.server naming)
            self._answer(True)

        def do_HEAD(self) -> None:  # noqa: N802
            self._answer(False)

        def do_OPTIONS(self) -> None:  # noqa: N802
            self._headers(HTTPStatus.NO_CONTENT, 0, "text/plain")

        def log_message(self, fmt: str, *args) -> None:  # quiet by default; the CLI prints the URL
            pass

    GuideHandler.timeout = timeout  # socketserver sets it on each accepted socket
    return QuietServer((host, port), GuideHandler)


def guide_url(server: ThreadingHTTPServer) -> str:
    host, port = server.server_address[:2]
    return f"http://{'localhost' if host in ('127.0.0.1', '::1') else host}:{port}/{GUIDE_FILE}"


def serve_in_thread(
    html: str, port: int = 0, host: str = "127.0.0.1", *, timeout: float = CONNECTION_TIMEOUT
) -> tuple[ThreadingHTTPServer, str]:
    """Start serving in a daemon thread (tests, notebooks); stop with ``server.shutdown()``."""
    server = make_server(html, port, host, timeout=timeout)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, guide_url(server)
