"""`sitegen serve`, driven over HTTP on 127.0.0.1: it serves under the path of site_url,
picks up an edited result file without a restart, keeps the previous site when a rebuild
fails, and stops cleanly on Ctrl-C. Every wait is a bounded poll."""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from sitegen.commands.serve import HOST, bind, snapshot, watch
from sitegen.config import load_config
from tests.kit.html_tables import fields
from tests.kit.project import REPO, SEED_RUN_ID

STARTUP_S = 180.0  # a first build with a cold chart cache renders every chart
CHANGE_S = 20.0
STOP_S = 20.0
POLL_S = 0.2


# `sitegen ...` as started at a terminal, where Ctrl-C stops it: a test run started in the
# background by a script (`pytest ... &`) has SIGINT ignored, every child inherits that, and
# Python then leaves it ignored, so the server would never see the test's Ctrl-C.
AT_A_TERMINAL = (
    "import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "runpy.run_module('sitegen', run_name='__main__', alter_sys=True)"
)


@dataclass
class Served:
    process: subprocess.Popen[str]
    url: str
    stdout: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)

    def stop(self) -> int:
        """Ctrl-C, and the exit code. A server that has not ended within STOP_S is made to print
        where each of its threads is (faulthandler, on SIGABRT) and the test fails with that."""
        self.process.send_signal(signal.SIGINT)
        try:
            return self.process.wait(STOP_S)
        except subprocess.TimeoutExpired:
            self.process.send_signal(signal.SIGABRT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(STOP_S)
            time.sleep(POLL_S)  # (the readers take the last lines)
            pytest.fail(
                f"serve did not stop within {STOP_S:.0f} s of Ctrl-C; stdout: "
                f"{''.join(self.stdout)}\n"
                f"stderr: {''.join(self.stderr)}"
            )

    def get(self, path: str) -> httpx.Response:
        """GET an absolute path on the server, without following redirects."""
        return httpx.get(
            f"http://{urlsplit(self.url).netloc}{path}", follow_redirects=False, timeout=5.0
        )


def _until(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(POLL_S)
    pytest.fail(f"not within {seconds:.0f} s: {what}")


def _drain(stream: object, into: list[str], lines: queue.Queue[str] | None) -> None:
    for line in stream:  # type: ignore[attr-defined]  # ends when the process closes the pipe
        into.append(line)
        if lines is not None:
            lines.put(line)


@pytest.fixture
def served(project: Path) -> Iterator[Served]:
    config = project / "sitegen.yaml"
    config.write_text(config.read_text() + "site_url: https://example.org/bench/\n")
    process = subprocess.Popen(
        # -X faulthandler: a server that will not stop says where it is (Served.stop).
        [
            sys.executable,
            "-X",
            "faulthandler",
            "-c",
            AT_A_TERMINAL,
            "--config",
            str(config),
            "serve",
            "--port",
            "0",
        ],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    stdout: list[str] = []
    stderr: list[str] = []
    lines: queue.Queue[str] = queue.Queue()
    readers = [
        threading.Thread(target=_drain, args=(process.stdout, stdout, lines), daemon=True),
        threading.Thread(target=_drain, args=(process.stderr, stderr, None), daemon=True),
    ]
    for reader in readers:
        reader.start()
    try:
        deadline = time.monotonic() + STARTUP_S
        url = ""
        while not url and time.monotonic() < deadline and process.poll() is None:
            try:
                line = lines.get(timeout=POLL_S)
            except queue.Empty:
                continue
            if line.startswith("serving "):
                url = line.split()[1]
        assert url, f"no 'serving' line; stdout: {stdout}, stderr: {stderr}"
        yield Served(process, url, stdout, stderr)
    finally:
        if process.poll() is None:
            process.kill()  # only when a test failed before stopping it
            process.wait(STOP_S)
        for reader in readers:
            reader.join(STOP_S)


def test_serves_under_the_site_path_and_picks_up_edits(served: Served, project: Path) -> None:
    assert served.url.startswith(f"http://{HOST}:") and served.url.endswith("/bench/")
    root = served.get("/")
    assert root.status_code == 302 and root.headers["location"] == "/bench/"
    index = served.get("/bench/")
    assert index.status_code == 200 and f'href="runs/{SEED_RUN_ID}/index.html"' in index.text
    missing = served.get("/bench/no-such-page/")  # the 404 page links from the site's path
    assert missing.status_code == 404 and 'href="/bench/assets/style.css?' in missing.text
    folder = served.get(f"/bench/runs/{SEED_RUN_ID}")
    assert folder.status_code == 302 and folder.headers["location"] == f"/bench/runs/{SEED_RUN_ID}/"
    outside = served.get(f"/runs/{SEED_RUN_ID}/")
    assert outside.status_code == 404
    page = served.get(f"/bench/runs/{SEED_RUN_ID}/")
    assert page.status_code == 200 and fields(page.text)["Revision"] == "main"
    assert page.headers["cache-control"] == "no-store"

    run_file = project / "content" / "runs" / f"{SEED_RUN_ID}.yaml"
    original = run_file.read_text()
    run_file.write_text(
        original.replace("  revision: main\n", "  revision: edited-while-serving\n")
    )
    _until(
        lambda: (
            fields(served.get(f"/bench/runs/{SEED_RUN_ID}/").text).get("Revision")
            == "edited-while-serving"
        ),
        CHANGE_S,
        "the edited revision on the run page",
    )

    # A broken edit: the problem is printed and the last good site stays up.
    run_file.write_text(
        original.replace("  revision: main\n", "  revision: edited-while-serving\n  bogus: 1\n")
    )
    _until(
        lambda: any("/run/bogus: unknown field 'bogus'" in line for line in served.stderr),
        CHANGE_S,
        "the problem of the broken edit",
    )
    _until(
        lambda: any("the rebuild failed" in line for line in served.stdout),
        CHANGE_S,
        "the failure notice",
    )
    still = served.get(f"/bench/runs/{SEED_RUN_ID}/")
    assert still.status_code == 200 and "edited-while-serving" in still.text

    assert served.stop() == 0
    _until(
        lambda: bool(served.stdout) and served.stdout[-1] == "stopped\n",
        STOP_S,
        "the 'stopped' line",
    )
    assert not any("Traceback" in line for line in served.stderr), "".join(served.stderr)


def test_binds_only_the_loopback_address(project: Path) -> None:
    server = bind(load_config(project / "sitegen.yaml"), 0)
    try:
        assert server.server_address[0] == "127.0.0.1"
    finally:
        server.server_close()


class CountedStop(threading.Event):
    """A stop event that counts how often the watcher has waited on it: one wait a look."""

    def __init__(self) -> None:
        super().__init__()
        self.waits = 0

    def wait(self, timeout: float | None = None) -> bool:
        self.waits += 1
        return super().wait(timeout)


def test_watch_calls_back_once_per_change_and_stops(tmp_path: Path) -> None:
    watched = tmp_path / "content"
    watched.mkdir()
    (watched / "a.yaml").write_text("a: 1\n")
    calls: list[float] = []
    stop = CountedStop()
    thread = threading.Thread(
        target=watch,
        args=([watched], lambda: calls.append(time.monotonic()), stop, 0.05),
        daemon=True,
    )
    thread.start()
    try:
        # Several looks at unchanged files (the first after its snapshot of them) call nothing.
        _until(lambda: stop.waits >= 4, 10.0, "the watcher looking four times")
        assert calls == []
        (watched / "a.yaml").write_text("a: 22\n")
        _until(lambda: len(calls) == 1, 10.0, "one call after one change")
        (watched / "sub").mkdir()
        (watched / "sub" / "b.yaml").write_text("b: 1\n")
        _until(lambda: len(calls) == 2, 10.0, "a call for a new file in a new folder")
    finally:
        stop.set()
        thread.join(10.0)
    assert not thread.is_alive()


def test_snapshot_is_bounded(tmp_path: Path) -> None:
    for index in range(30):
        (tmp_path / f"{index}.yaml").write_text("x")
    assert len(snapshot([tmp_path], limit=10)) == 10
    assert len(snapshot([tmp_path])) == 30


@pytest.mark.parametrize(
    "request_path", ["/%2Fruns", "/%2F%2Fruns", "/%5Cruns", "/%2F%5Cruns", "//runs", "/%2F/runs"]
)
def test_a_redirect_never_leaves_the_server(tmp_path: Path, request_path: str) -> None:
    # A Location of //runs/ (or /\runs/) is read by browsers as the host "runs": an open redirect.
    (tmp_path / "sitegen.yaml").write_text("title: T\nbase_url: /\n")
    (tmp_path / "_site" / "runs").mkdir(parents=True)
    (tmp_path / "_site" / "\\runs").mkdir()
    server = bind(load_config(tmp_path / "sitegen.yaml"), 0)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        response = httpx.get(
            f"http://{HOST}:{server.server_address[1]}{request_path}",
            follow_redirects=False,
            timeout=5.0,
        )
    finally:
        server.shutdown()
        server.server_close()
        thread.join(STOP_S)
    location = response.headers.get("location", "/")
    assert response.status_code in (302, 404)
    assert location.startswith("/") and location[1:2] not in ("/", "\\"), location
    # Resolved as a browser would, the target is still this server.
    assert urlsplit(str(httpx.URL("http://127.0.0.1:1/x").join(location))).netloc == "127.0.0.1:1"
