"""Test servers on 127.0.0.1 and a client that reaches them directly: one way to run a server in
a thread for the length of a test, and the proxy settings cleared so that none stands between."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from socketserver import BaseServer
from typing import TypeVar

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
