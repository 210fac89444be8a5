"""``sitegen serve``: build the site, serve it on 127.0.0.1, rebuild when its inputs change.

The site is served under its configured base path (``/`` redirects there), exactly as it
will be published, so a project site's links can be checked before a pull request. Only
the loopback address is ever bound: a preview is for the person at the keyboard.

A change to content/, the site's templates/ or sitegen.yaml runs ``collect`` and
``build`` again. A rebuild that fails prints its problems and leaves the previous site in
place (both stages write nothing unless they succeed), so the browser keeps working.

Watching is a small polling loop rather than a library such as watchfiles: a site has a
few hundred files at most, a scan every half second costs microseconds, it behaves the
same on every file system (network mounts, containers, editors that replace files by
renaming), and it adds no compiled dependency to a tool contributors install.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Sequence
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from sitegen.collect import collect
from sitegen.config import CONFIG_NAME, Config
from sitegen.errors import Problem, SitegenError
from sitegen.site.build import build, templates_dir

HOST = "127.0.0.1"
POLL_S = 0.5
SETTLE_S = 0.2  # editors save in several writes; wait until two scans agree
SETTLE_ROUNDS = 10
MAX_WATCHED_FILES = 20_000  # a runaway tree (a venv dropped in content/) cannot stall the loop
SHUTDOWN_WAIT_S = 60.0  # let a running rebuild finish its atomic swap before exiting

Snapshot = dict[str, tuple[int, int]]


def watched_paths(config: Config) -> list[Path]:
    return [config.content_dir, templates_dir(config), config.root / CONFIG_NAME]


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


def watch(paths: Sequence[Path], on_change: Callable[[], None], stop: threading.Event, poll_s: float = POLL_S) -> None:
    """Call ``on_change`` after the files under ``paths`` change, until ``stop`` is set."""
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


def rebuild(config: Config, offline: bool) -> tuple[int, list[Problem]]:
    """collect + build; (pages built, []) or (0, the problems). Never raises for bad input."""
    try:
        collect(config, offline=offline)
        return build(config).pages, []
    except SitegenError as error:
        return 0, error.problems


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
                self.send_error(HTTPStatus.SERVICE_UNAVAILABLE, "the site is not built yet; see the terminal")
                return False
            if base_path != "/" and path in ("/", ""):
                self._redirect(base_path)
                return False
            if not path.startswith(base_path):
                self.send_error(HTTPStatus.NOT_FOUND)
                return False
            inner = "/" + path[len(base_path):]
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
            self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
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


def bind(config: Config, port: int) -> ThreadingHTTPServer:
    try:
        return ThreadingHTTPServer((HOST, port), _handler(config.output_dir, config.base_path))
    except OSError as exc:
        raise SitegenError(Problem(f"{HOST}:{port}", None, "", f"cannot listen: {exc.strerror}; "
                                   "pass another --port (0 picks a free one)")) from None


def _stop_on_sigterm() -> None:
    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, handler)


def serve(config: Config, *, port: int, watch_files: bool, offline: bool,
          say: Callable[[str], None], show_problems: Callable[[Sequence[Problem]], None]) -> None:
    """Build, then serve until Ctrl-C (or SIGTERM); rebuild on changes unless ``watch_files`` is False."""
    lock = threading.Lock()  # one rebuild at a time

    def rebuild_and_report(reason: str) -> None:
        with lock:
            say(f"{reason}: collecting and building…")
            pages, problems = rebuild(config, offline)
            if problems:
                show_problems(problems)
                count = len(problems)
                say(f"build failed with {count} problem{'s' if count != 1 else ''}; still serving the previous site")
            else:
                say(f"built {pages} pages")

    try:
        rebuild_and_report("starting")
    except KeyboardInterrupt:
        say("stopped")
        return
    server = bind(config, port)
    stop = threading.Event()
    watcher: threading.Thread | None = None
    if watch_files:
        paths = watched_paths(config)
        watcher = threading.Thread(target=watch, args=(paths, lambda: rebuild_and_report("change seen"), stop),
                                   name="sitegen-watch", daemon=True)
        watcher.start()
    host, bound_port = server.server_address[:2]
    say(f"serving http://{host!s}:{bound_port}{config.base_path} (Ctrl-C to stop)")
    _stop_on_sigterm()
    try:
        server.serve_forever(poll_interval=0.25)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        server.server_close()
        if watcher is not None:
            watcher.join(SHUTDOWN_WAIT_S)
    say("stopped")
