"""Serve the guide to Neo4j Browser on the loopback interface.

Browser fetches a ``:play`` URL with an XHR from its own origin (http://localhost:7474), so the answer needs
``Access-Control-Allow-Origin`` for that origin (and an answer to the CORS preflight). The host must also be
on the server's ``browser.remote_content_hostname_allowlist`` (localhost is by default, and in
docker-compose.yml).

Only loopback is served, and only to loopback: a request whose ``Host`` is not ``127.0.0.1``, ``localhost``
or ``[::1]`` (with any port) is refused (403), which stops DNS rebinding (a page on evil.example whose name
resolves to 127.0.0.1 sends ``Host: evil.example``); and the CORS header names the requesting origin only
when that origin is itself on loopback (Neo4j Browser at localhost:7474), never ``*``, so no other web page
can read the guide.
"""

from __future__ import annotations

import re
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from dishgraph.guide.build import GUIDE_FILE

CORS_HEADERS = {
    "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type",
    "Vary": "Origin",
}
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})
_HOST = re.compile(r"^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$")
_ORIGIN = re.compile(r"^https?://(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$")


def loopback_host(value: str | None) -> bool:
    """Whether a ``Host`` header names this machine's loopback (an allow-list; a missing Host is refused)."""
    m = _HOST.match((value or "").strip())
    return bool(m) and m.group(1).lower() in LOOPBACK_NAMES


def allowed_origin(value: str | None) -> str | None:
    """The ``Origin`` to allow in CORS: itself when it is a loopback page (Neo4j Browser), else None."""
    m = _ORIGIN.match((value or "").strip())
    return value.strip() if m and value and m.group(1).lower() in LOOPBACK_NAMES else None


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
            origin = allowed_origin(self.headers.get("Origin"))
            if origin:
                self.send_header("Access-Control-Allow-Origin", origin)
            for k, v in CORS_HEADERS.items():
                self.send_header(k, v)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(length))
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()

        def _refused_host(self, with_body: bool) -> bool:
            if loopback_host(self.headers.get("Host")):
                return False
            msg = b"forbidden: this guide answers only requests for 127.0.0.1 / localhost\n"
            self._headers(HTTPStatus.FORBIDDEN, len(msg), "text/plain; charset=utf-8")
            if with_body:
                self.wfile.write(msg)
            return True

        def _answer(self, with_body: bool) -> None:
            if self._refused_host(with_body):
                return
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
            if not self._refused_host(False):
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
