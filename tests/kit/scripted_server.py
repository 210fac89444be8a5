"""A scripted HTTP server on 127.0.0.1 for the tests of remote sources: it answers from a script
per path (replies in order, delays, chunked bodies) and records every request, in a thread, on
port 0, every sleep bounded. Shared by tests/collect/test_remote_server.py and the progress tests
of a collect that fetches (tests/cli/test_progress.py)."""

from __future__ import annotations

import json
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from sitegen.collect.remote import FetchSettings
from tests.kit.network import running
from tests.kit.project import REPO, SEED_RUN_ID

SEED = (REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml").read_bytes()
# Quick retries, and a timeout and deadline far beyond a local round trip even on a busy
# machine (the server answers from a thread of the test's own process): a test of timeouts or
# deadlines sets its own, shorter than the replies it scripts.
FAST = FetchSettings(timeout_s=5.0, attempts=3, backoff_s=0.01, max_sleep_s=0.05, deadline_s=30.0)
SERVER_SLEEP_S = 1.5  # longest a scripted reply waits, bounded for a clean shutdown


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "application/yaml"})
    delay: float = 0.0
    chunks: Iterable[bytes] | None = None  # sent chunked instead of ``body``


Route = Callable[[Message], Reply]


def replies(*answers: Reply) -> Route:
    """A route answering with ``answers`` in order; the last one repeats."""
    queue = list(answers)

    def route(headers: Message) -> Reply:
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return route


class Site:
    """The scripted server's state: routes by path, and every request it saw."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.hits: list[tuple[str, Message]] = []
        self.base = ""
        self.lock = threading.Lock()

    def url(self, path: str) -> str:
        return self.base + path

    def paths(self) -> list[str]:
        with self.lock:
            return [path for path, _ in self.hits]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ScriptedServer

    def do_GET(self) -> None:
        site = self.server.site
        with site.lock:
            site.hits.append((self.path, self.headers))
        route = site.routes.get(self.path)
        reply = (
            route(self.headers)
            if route
            else Reply(404, b"no such file\n", {"Content-Type": "text/plain"})
        )
        time.sleep(min(reply.delay, SERVER_SLEEP_S))
        try:
            self._send(reply)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            self.close_connection = True  # the client hung up, as it should on refused bodies

    def _send(self, reply: Reply) -> None:
        self.send_response(reply.status)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if reply.chunks is not None:
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for chunk in reply.chunks:
                self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
            return
        if "Content-Length" not in reply.headers:
            self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        self.wfile.write(reply.body)

    def log_message(self, format: str, *args: object) -> None:
        pass  # keep the test output clean


class ScriptedServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a handler still sleeping must not hold up the test

    def __init__(self, site: Site) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.site = site

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # TLS handshakes the client refuses end up here


@contextmanager
def serve_scripted(site: Site, tls: ssl.SSLContext | None = None) -> Iterator[ScriptedServer]:
    server = ScriptedServer(site)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    site.base = f"{'https' if tls else 'http'}://127.0.0.1:{server.server_address[1]}"
    with running(server):
        yield server


RUN = "/runs/remote-seed.yaml"


def good(**headers: str) -> Reply:
    return Reply(body=SEED, headers={"Content-Type": "application/yaml", **headers})


def set_sources(project: Path, *sources: str | dict[str, str]) -> None:
    """Replace the ``sources:`` list of the site's sitegen.yaml."""
    config = project / "sitegen.yaml"
    settings = config.read_text().split("\nsources:\n")[0].rstrip("\n")
    config.write_text(
        settings + "\nsources:\n" + "".join(f"  - {json.dumps(s)}\n" for s in sources)
    )
