"""A real HTTP server on 127.0.0.1 for the link checker's tests, recording every request it gets."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from properties.scorers.net import link_checker

SLOW_SECONDS = 2.0


@dataclass
class LinkServer:
    host: str
    port: int
    requests: list[tuple[str, str, str]] = field(default_factory=list)  # (method, path, Host header)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def url(self, path: str) -> str:
        return f"http://{self.host}:{self.port}{path}"

    def seen(self, path: str | None = None) -> list[tuple[str, str, str]]:
        with self.lock:
            return [request for request in self.requests if path is None or request[1] == path]


def _redirect_target(path: str) -> str | None:
    """Where a path redirects: /redirect/N counts down to /ok, /loop-a and /loop-b chase each other."""
    if path.startswith("/redirect/"):
        hops = int(path.rsplit("/", 1)[1])
        return "/ok" if hops <= 1 else f"/redirect/{hops - 1}"
    return {"/loop-a": "/loop-b", "/loop-b": "/loop-a", "/self": "/self"}.get(path)


def make_handler(server: LinkServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _answer(self, method: str) -> None:
            path = self.path.split("?", 1)[0]
            with server.lock:
                server.requests.append((method, path, self.headers.get("Host", "")))
            target = _redirect_target(path)
            if path.startswith("/goto/"):  # absolute redirect to another URL, for the re-check test
                target = "http://" + path.removeprefix("/goto/")
            if target is not None:
                self.send_response(302)
                self.send_header("Location", target)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if path == "/slow":
                time.sleep(SLOW_SECONDS)
            status = {"/missing": 404, "/error": 500}.get(path, 200)
            if path in ("/head-405", "/head-501") and method == "HEAD":
                status = int(path[-3:])
            body = b"x" * 100_000 if method == "GET" else b""
            self.send_response(status)
            self.send_header("Content-Length", str(len(body) if method == "GET" else 0))
            self.end_headers()
            # The checker closes the connection without reading a GET body, as it should.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(body)

        def do_HEAD(self) -> None:
            self._answer("HEAD")

        def do_GET(self) -> None:
            self._answer("GET")

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


def start_server(host: str = "127.0.0.1") -> tuple[LinkServer, ThreadingHTTPServer]:
    server = LinkServer(host=host, port=0)
    httpd = ThreadingHTTPServer((host, 0), make_handler(server))
    httpd.daemon_threads = True
    server.port = httpd.server_address[1]
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return server, httpd


@pytest.fixture
def link_server() -> Iterator[LinkServer]:
    server, httpd = start_server()
    link_checker.clear_cache()
    yield server
    httpd.shutdown()
    httpd.server_close()
    link_checker.clear_cache()
