"""``sitegen serve``: build the site, serve it on 127.0.0.1, rebuild when its inputs change.

The site is served under the path of its ``site_url`` (``/`` without one; ``/`` redirects
there), as it will be published, as ``mkdocs serve`` does: page links are relative and work
at any path, and 404.html, which links from the site's root path, works here too. Only
the loopback address is ever bound: a preview is for the person at the keyboard.

A change to content/, the site's templates/ or sitegen.yaml runs ``sitegen collect`` and
``sitegen build`` again, each as a child process: they print their own progress and
problems exactly as on the command line, take the project lock like any other collect or
build, and fork their worker pools from a process that has no server threads (forking a
threaded process can deadlock the child). A rebuild that fails leaves the previous site in
place (both stages write nothing unless they succeed), so the browser keeps working.

Watching is a small polling loop rather than a library such as watchfiles: a site has a
few hundred files at most, a scan every half second costs microseconds, it behaves the
same on every file system (network mounts, containers, editors that replace files by
renaming), and it adds no compiled dependency to a tool contributors install.
"""

from __future__ import annotations

import os
import signal
import socketserver
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from sitegen.config import Config
from sitegen.errors import Problem, SitegenError
from sitegen.site.build import templates_dir

HOST = "127.0.0.1"
POLL_S = 0.5
SETTLE_S = 0.2  # editors save in several writes; wait until two scans agree
SETTLE_ROUNDS = 10
MAX_WATCHED_FILES = 20_000  # a runaway tree (a venv dropped in content/) cannot stall the loop
SHUTDOWN_WAIT_S = 60.0  # let a running rebuild finish its atomic swap before exiting
STAGE_TIMEOUT_S = 1800.0  # a collect or build that takes longer is stuck, not slow

Snapshot = dict[str, tuple[int, int]]


def watched_paths(config: Config, config_path: Path) -> list[Path]:
    return [config.content_dir, templates_dir(config), config_path]


def snapshot(paths: Sequence[Path], limit: int = MAX_WATCHED_FILES) -> Snapshot:
    """(modification time, size) of every file under ``paths``, at most ``limit`` files."""
    found: Snapshot = {}

    def add(path: str) -> None:
        try:
            status = os.stat(path)
        except OSError:
            return  # removed between listing and stat: the next scan sees it gone
        found[path] = (status.st_mtime_ns, status.st_size)

    for root in paths:
        if root.is_file():
            add(str(root))
            continue
        for folder, _, names in os.walk(root):  # does not follow links to folders
            for name in names:
                if len(found) >= limit:
                    return found
                add(os.path.join(folder, name))
    return found


def watch(
    paths: Sequence[Path],
    on_change: Callable[[], None],
    stop: threading.Event,
    poll_s: float = POLL_S,
    before: Snapshot | None = None,
) -> None:
    """Call ``on_change`` after the files under ``paths`` change from ``before`` (default: now),
    until ``stop`` is set."""
    if before is None:
        before = snapshot(paths)
    while not stop.wait(poll_s):
        now = snapshot(paths)
        if now == before:
            continue
        for _ in range(SETTLE_ROUNDS):
            if stop.wait(SETTLE_S):
                return
            later = snapshot(paths)
            if later == now:
                break
            now = later
        # Taken before the rebuild, so an edit made while it runs triggers another one.
        before = now
        on_change()


def rebuild_commands(config_path: Path, *, offline: bool) -> list[list[str]]:
    """``sitegen collect`` and ``sitegen build`` for this site, as the user would type them."""
    base = [sys.executable, "-m", "sitegen", "--config", str(config_path.resolve())]
    return [[*base, "collect", *(["--offline"] if offline else [])], [*base, "build"]]


def _run_stage(command: list[str]) -> bool:
    """Run one stage to the end; True when it succeeded."""
    # A session of its own: Ctrl-C in the terminal stops the server, not a build half-way.
    child = subprocess.Popen(command, start_new_session=True)
    try:
        return child.wait(STAGE_TIMEOUT_S) == 0
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        return False
    except KeyboardInterrupt:
        # Let it finish: killed during its swap, a build would leave a staging folder behind.
        try:
            child.wait(SHUTDOWN_WAIT_S)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        raise


def rebuild(commands: list[list[str]]) -> bool:
    """Run collect, then build; stop at the first that fails (it has printed its problems)."""
    return all(_run_stage(command) for command in commands)


def same_site(location: str) -> str:
    """A redirect target that stays on this server: one leading slash, never two.

    ``//host/x`` (or ``/\\host``, which browsers read alike) would send the browser to
    another host, and a request such as ``/%2Fevil.example`` would otherwise produce one.
    """
    return "/" + location.lstrip("/\\")


def _handler(output_dir: Path, base_path: str) -> type[SimpleHTTPRequestHandler]:
    class Handler(SimpleHTTPRequestHandler):
        """Files of the output folder under ``base_path``; the site's 404 page for anything else."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(output_dir), **kwargs)

        def do_GET(self) -> None:
            if self._route():
                super().do_GET()

        def do_HEAD(self) -> None:
            if self._route():
                super().do_HEAD()

        def _route(self) -> bool:
            """Strip the base path, or answer here (redirect, 404, 503); True to serve a file."""
            parts = urlsplit(self.path)
            path = unquote(parts.path)
            if not output_dir.is_dir():
                self.send_error(
                    HTTPStatus.SERVICE_UNAVAILABLE, "the site is not built yet; see the terminal"
                )
                return False
            if base_path != "/" and path in ("/", ""):
                self._redirect(base_path)
                return False
            if not path.startswith(base_path):
                self.send_error(HTTPStatus.NOT_FOUND)
                return False
            inner = "/" + path[len(base_path) :]
            if ".." in inner.split("/"):
                self.send_error(HTTPStatus.NOT_FOUND)
                return False
            # Redirect folders to their slash form here: the parent class would drop the base path.
            if not inner.endswith("/") and (output_dir / inner.lstrip("/")).is_dir():
                self._redirect(quote(path) + "/")
                return False
            self.path = quote(inner) + (f"?{parts.query}" if parts.query else "")
            return True

        def _redirect(self, location: str) -> None:
            self.send_response(HTTPStatus.FOUND)
            self.send_header("Location", same_site(location))
            self.send_header("Content-Length", "0")
            self.end_headers()

        def send_error(
            self, code: int, message: str | None = None, explain: str | None = None
        ) -> None:
            page = output_dir / "404.html"
            if code != HTTPStatus.NOT_FOUND or not page.is_file():
                super().send_error(code, message, explain)
                return
            body = page.read_bytes()
            self.send_response(code)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def end_headers(self) -> None:
            self.send_header("Cache-Control", "no-store")  # a rebuilt page must show on reload
            super().end_headers()

        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            if isinstance(code, int) and code >= 400:
                super().log_request(code, size)  # broken links are worth seeing; the rest is noise

    return Handler


class _Server(ThreadingHTTPServer):
    def server_bind(self) -> None:
        # HTTPServer.server_bind asks reverse DNS for the host's name, which can take seconds
        # on a machine without a resolver; nothing here uses that name.
        socketserver.TCPServer.server_bind(self)
        self.server_name = HOST
        self.server_port = self.server_address[1]


def bind(config: Config, port: int) -> ThreadingHTTPServer:
    try:
        return _Server((HOST, port), _handler(config.output_dir, config.base_path))
    except OSError as exc:
        raise SitegenError(
            Problem(
                f"{HOST}:{port}",
                None,
                "",
                f"cannot listen: {exc.strerror}; pass another --port (0 picks a free one)",
            )
        ) from None


def _stop_on_sigterm() -> None:
    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, handler)


def serve(
    config: Config,
    config_path: Path,
    *,
    port: int,
    watch_files: bool,
    offline: bool,
    say: Callable[[str], None],
) -> None:
    """Build, then serve until Ctrl-C (or SIGTERM); rebuild on changes unless ``watch_files`` is
    False.

    The server keeps the path it started with, so a new ``site_url`` in sitegen.yaml needs a
    restart.
    """
    commands = rebuild_commands(config_path, offline=offline)

    def rebuild_and_report(reason: str) -> None:
        say(f"{reason}: collecting and building…")
        if not rebuild(commands):
            say("the rebuild failed (problems above); still serving the previous site")

    paths = watched_paths(config, config_path)
    # Taken before the first build, so an edit saved while it runs is not missed.
    baseline = snapshot(paths)
    server = bind(config, port)  # before building: a port in use fails at once
    stop = threading.Event()
    watcher: threading.Thread | None = None
    _stop_on_sigterm()
    try:
        rebuild_and_report("starting")
        if watch_files:
            watcher = threading.Thread(
                target=watch,
                args=(paths, lambda: rebuild_and_report("change seen"), stop),
                kwargs={"before": baseline},
                name="sitegen-watch",
                daemon=True,
            )
            watcher.start()
        host, bound_port = server.server_address[:2]
        say(f"serving http://{host!s}:{bound_port}{config.base_path} (Ctrl-C to stop)")
        server.serve_forever(poll_interval=0.25)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        server.server_close()
        if watcher is not None:
            watcher.join(SHUTDOWN_WAIT_S)
    say("stopped")
