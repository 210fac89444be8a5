"""Test servers on 127.0.0.1 and a client that reaches them directly: one way to run a server in
a thread for the length of a test, a folder served under a path prefix, and the proxy settings
cleared so that none stands between."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from socketserver import BaseServer
from typing import Any, TypeVar
from urllib.parse import urlsplit

import pytest

PROXY_VARIABLES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)
# How often serve_forever looks for shutdown(): a test's server stops within this.
POLL_S = 0.05
# How long the server's thread may take to end once shut down.
JOIN_S = 5.0

Server = TypeVar("Server", bound=BaseServer)


def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    """Clear the proxy settings for the test: a proxy must not stand between client and server."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@contextmanager
def running(server: Server) -> Iterator[Server]:
    """``server`` answering in a thread of its own until the block ends; then shut down and
    closed, its thread joined."""
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": POLL_S}, daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=JOIN_S)


class _UnderPrefix(SimpleHTTPRequestHandler):
    """The site's files under one path prefix only, as a host serving it in a sub-folder."""

    prefix = "/"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def translate_path(self, path: str) -> str:
        if not urlsplit(path).path.startswith(self.prefix):
            return str(Path(self.directory) / "no such file")
        return super().translate_path("/" + path[len(self.prefix) :])


@contextmanager
def served_under(folder: Path, prefix: str) -> Iterator[str]:
    """``folder`` over HTTP on 127.0.0.1 under ``prefix``; yields the site's address."""
    handler = type("Handler", (_UnderPrefix,), {"prefix": prefix})
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(folder))
    )
    server.daemon_threads = True
    with running(server):
        yield f"http://127.0.0.1:{server.server_port}{prefix}"
