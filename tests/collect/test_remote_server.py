"""Remote sources against a real HTTP server on 127.0.0.1, and end to end through the CLI.

The server (tests/kit/scripted_server.py) runs in a thread, listens only on 127.0.0.1 (port 0),
answers from a script per path, and every loop it runs is bounded in count and time. Timeouts
and backoff are shortened so the whole module runs in a few seconds.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import re
import shutil
import socketserver
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import Message
from pathlib import Path

import httpx
import pytest
import yaml

from sitegen.collect import check_run
from sitegen.collect import remote as remote_module
from sitegen.collect.remote import Copy, FetchSettings, RemoteCache, gather_remote
from sitegen.config import RemoteSource
from tests.kit.network import no_proxies, running
from tests.kit.project import REPO, SEED_RUN_ID, run_cli
from tests.kit.raw_samples import RUN_META, bench, lil_document
from tests.kit.scripted_server import (
    FAST,
    RUN,
    SEED,
    SERVER_SLEEP_S,
    Reply,
    ScriptedServer,
    Site,
    good,
    replies,
    serve_scripted,
    set_sources,
)


@pytest.fixture
def site(monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    """A scripted server on 127.0.0.1; sitegen's defaults shortened for the CLI tests."""
    no_proxies(monkeypatch)
    monkeypatch.setattr(remote_module, "DEFAULT_SETTINGS", FAST)
    scripted = Site()
    with serve_scripted(scripted):
        yield scripted


def fetch_all(
    tmp_path: Path, *sources: RemoteSource, offline: bool = False, settings: FetchSettings = FAST
) -> remote_module.RemoteReport:
    """gather_remote as collect calls it: the production client, made per call."""
    return gather_remote(sources, tmp_path / "cache", check_run, offline=offline, settings=settings)


def messages(report: remote_module.RemoteReport) -> list[str]:
    return [str(p) for p in report.problems]


# --- fetching ------------------------------------------------------------------------


def test_200(site: Site, tmp_path: Path) -> None:
    site.routes[RUN] = replies(good())
    report = fetch_all(tmp_path, RemoteSource(site.url(RUN)))
    assert report.problems == [] and report.warnings == []
    [run] = report.runs
    assert (run.id, run.origin) == ("remote-seed", site.url(RUN))
    assert run.document.data["hardware"]["accelerator"] == "H200 NVL"


@pytest.mark.parametrize(
    ("validator", "condition"),
    [
        ("ETag", "If-None-Match"),
        ("Last-Modified", "If-Modified-Since"),
    ],
)
def test_304_revalidation_reuses_the_cached_body(
    site: Site, tmp_path: Path, validator: str, condition: str
) -> None:
    value = '"seed-v1"' if validator == "ETag" else "Thu, 09 Jul 2026 10:00:00 GMT"
    bodies_sent = []

    def route(headers: Message) -> Reply:
        if headers.get(condition) == value:
            return Reply(304, headers={validator: value})
        bodies_sent.append(1)
        return good(**{validator: value})

    site.routes[RUN] = route
    source = RemoteSource(site.url(RUN), id="revalidated")
    first = fetch_all(tmp_path, source)
    second = fetch_all(tmp_path, source)
    assert len(bodies_sent) == 1
    assert [headers.get(condition) for _, headers in site.hits] == [None, value]
    assert [run.id for run in second.runs] == ["revalidated"]
    assert second.runs[0].document.data == first.runs[0].document.data
    assert second.warnings == [] and second.problems == []


def test_404_without_a_cached_copy_is_an_error(site: Site, tmp_path: Path) -> None:
    report = fetch_all(tmp_path, RemoteSource(site.url("/gone.yaml")))
    assert report.runs == []
    assert messages(report) == [
        f"{site.url('/gone.yaml')}: cannot fetch: HTTP 404 Not Found; "
        "no cached copy to fall back on"
    ]


def test_404_with_a_cached_copy_falls_back_with_a_warning(site: Site, tmp_path: Path) -> None:
    site.routes[RUN] = replies(good(), Reply(404, b"gone"))
    fetch_all(tmp_path, RemoteSource(site.url(RUN)))
    report = fetch_all(tmp_path, RemoteSource(site.url(RUN)))
    assert report.problems == []
    assert [str(w) for w in report.warnings] == [
        f"{site.url(RUN)}: cannot fetch: HTTP 404 Not Found; using the last good copy from the "
        f"cache"
    ]
    assert [run.id for run in report.runs] == ["remote-seed"]


def test_500_then_200_is_retried(site: Site, tmp_path: Path) -> None:
    site.routes[RUN] = replies(Reply(500, b"oops"), Reply(503, b"busy"), good())
    report = fetch_all(tmp_path, RemoteSource(site.url(RUN)))
    assert report.problems == [] and report.warnings == []
    assert [run.id for run in report.runs] == ["remote-seed"]
    assert site.paths() == [RUN, RUN, RUN]


def test_a_response_slower_than_the_timeout(site: Site, tmp_path: Path) -> None:
    site.routes[RUN] = replies(Reply(body=SEED, delay=SERVER_SLEEP_S))
    started = time.monotonic()
    report = fetch_all(
        tmp_path,
        RemoteSource(site.url(RUN)),
        settings=FetchSettings(timeout_s=0.3, attempts=2, backoff_s=0.01),
    )
    assert (
        time.monotonic() - started < SERVER_SLEEP_S
    )  # gave up on both attempts before the server answered
    assert messages(report) == [
        f"{site.url(RUN)}: cannot fetch: no data from the server for 0.3 s (timed out) "
        "(tried 2 times); no cached copy to fall back on"
    ]
    assert site.paths() == [RUN, RUN]


def test_an_oversized_body_is_refused_by_its_content_length(site: Site, tmp_path: Path) -> None:
    site.routes[RUN] = replies(Reply(body=b"x" * (5 * 1024 * 1024 + 1)))
    report = fetch_all(tmp_path, RemoteSource(site.url(RUN)))
    assert messages(report) == [
        f"{site.url(RUN)}: cannot fetch: the file is 5,242,881 bytes, over the "
        "5,242,880-byte limit; no cached copy to fall back on"
    ]


def test_an_endless_chunked_body_is_cut_off(site: Site, tmp_path: Path) -> None:
    sent = [0]
    ceiling = 64 * 1024 * 1024  # the server's own bound, far past the 5 MiB limit

    def endless() -> Iterator[bytes]:
        started = time.monotonic()
        while sent[0] < ceiling and time.monotonic() - started < 10:
            sent[0] += 64 * 1024
            yield b"x" * (64 * 1024)

    site.routes[RUN] = replies(Reply(chunks=endless()))
    report = fetch_all(tmp_path, RemoteSource(site.url(RUN)))
    assert messages(report) == [
        f"{site.url(RUN)}: cannot fetch: the file is over the 5,242,880-byte limit "
        "(download stopped); no cached copy to fall back on"
    ]
    assert sent[0] < ceiling  # the client hung up; the server did not run out of its bound


def test_content_that_is_not_yaml_is_an_error_with_its_line(site: Site, tmp_path: Path) -> None:
    site.routes[RUN] = replies(Reply(body=b"schema_version: 1\nhardware: [unclosed\n"))
    report = fetch_all(tmp_path, RemoteSource(site.url(RUN)))
    [problem] = report.problems
    assert (problem.source, problem.line) == (site.url(RUN), 3)
    assert problem.message.startswith("invalid YAML")


def test_content_failing_the_schema_is_an_error(site: Site, tmp_path: Path) -> None:
    site.routes[RUN] = replies(Reply(body=b"schema_version: 1\n"))
    report = fetch_all(tmp_path, RemoteSource(site.url(RUN)))
    assert f"{site.url(RUN)}:1: missing required field 'hardware'" in messages(report)


def test_invalid_content_falls_back_to_the_good_copy(site: Site, tmp_path: Path) -> None:
    site.routes[RUN] = replies(
        good(ETag='"good"'), Reply(body=b"schema_version: 1\n", headers={"ETag": '"bad"'})
    )
    fetch_all(tmp_path, RemoteSource(site.url(RUN)))
    report = fetch_all(tmp_path, RemoteSource(site.url(RUN)))
    assert [run.id for run in report.runs] == ["remote-seed"]
    [warning] = report.warnings
    assert warning.message.startswith(
        "the fetched file is not valid (line 1: missing required field"
    )
    assert RemoteCache(tmp_path / "cache").load(site.url(RUN)) == Copy(SEED, '"good"', None)


@pytest.mark.parametrize(
    ("location", "refusal"),
    [
        ("file:///etc/passwd", "the file scheme is refused; only https URLs are fetched"),
        ("ftp://127.0.0.1/x.yaml", "the ftp scheme is refused; only https URLs are fetched"),
        (
            "http://example.org/x.yaml",
            "plain http is refused (use https; http is allowed only to 127.0.0.1, ::1 or "
            "localhost)",
        ),
    ],
)
def test_a_redirect_to_another_scheme_is_refused(
    site: Site, tmp_path: Path, location: str, refusal: str
) -> None:
    site.routes[RUN] = replies(Reply(302, headers={"Location": location}))
    report = fetch_all(tmp_path, RemoteSource(site.url(RUN)))
    target = httpx.URL(site.url(RUN)).join(location)  # as httpx resolves it: file:///x is file:/x
    assert messages(report) == [
        f"{site.url(RUN)}: cannot fetch: redirected to {target}: {refusal}; "
        "no cached copy to fall back on"
    ]
    assert site.paths() == [RUN]


def test_a_redirect_on_the_same_server_is_followed(site: Site, tmp_path: Path) -> None:
    site.routes["/old.yaml"] = replies(Reply(301, headers={"Location": RUN}))
    site.routes[RUN] = replies(good())
    report = fetch_all(tmp_path, RemoteSource(site.url("/old.yaml"), id="moved"))
    assert [run.id for run in report.runs] == ["moved"]
    assert site.paths() == ["/old.yaml", RUN]


def test_a_redirect_loop_is_bounded(site: Site, tmp_path: Path) -> None:
    site.routes["/loop.yaml"] = replies(Reply(302, headers={"Location": "/loop.yaml"}))
    report = fetch_all(tmp_path, RemoteSource(site.url("/loop.yaml")))
    assert messages(report) == [
        f"{site.url('/loop.yaml')}: cannot fetch: more than 5 redirects; "
        "no cached copy to fall back on"
    ]
    assert len(site.paths()) == 6


def test_a_wrong_content_type_is_refused(site: Site, tmp_path: Path) -> None:
    site.routes[RUN] = replies(
        Reply(
            body=b"<html><body>GitHub</body></html>",
            headers={"Content-Type": "text/html; charset=utf-8"},
        )
    )
    report = fetch_all(tmp_path, RemoteSource(site.url(RUN)))
    assert messages(report) == [
        f"{site.url(RUN)}: cannot fetch: the server sent text/html, not a JSON or YAML "
        "result file (a web page? link the raw file, e.g. raw.githubusercontent.com); "
        "no cached copy to fall back on"
    ]


def test_offline_uses_the_cache_and_never_connects(site: Site, tmp_path: Path) -> None:
    site.routes[RUN] = replies(good())
    fetch_all(tmp_path, RemoteSource(site.url(RUN)))
    assert len(site.hits) == 1
    report = fetch_all(tmp_path, RemoteSource(site.url(RUN)), offline=True)
    assert [run.id for run in report.runs] == ["remote-seed"]
    assert len(site.hits) == 1


def _self_signed(folder: Path) -> ssl.SSLContext:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip(
            "no openssl command to make a self-signed certificate (and the cryptography package is "
            "absent)"
        )
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
        timeout=30,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


def test_a_tls_failure_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTPS_PROXY", "ALL_PROXY", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    secure = Site()
    with serve_scripted(secure, tls=_self_signed(tmp_path)):
        secure.routes[RUN] = replies(good())
        report = fetch_all(tmp_path, RemoteSource(secure.url(RUN)))
    [problem] = report.problems
    assert problem.source == secure.url(RUN) and secure.url(RUN).startswith("https://127.0.0.1:")
    assert problem.message.startswith(
        "cannot fetch: TLS failure: the server's certificate is not trusted (self"
    )
    assert problem.message.endswith("; no cached copy to fall back on")
    assert secure.hits == []  # refused during the handshake, before any request


def test_raw_sources_go_through_the_adapter(site: Site, tmp_path: Path) -> None:
    meta = yaml.safe_dump(RUN_META).encode()
    lil = gzip.compress(json.dumps(lil_document(bench())).encode())
    site.routes["/raw/benchmark_results.json"] = replies(
        Reply(
            body=json.dumps(bench(), indent=2).encode(),
            headers={"Content-Type": "application/json"},
        )
    )
    site.routes["/raw/run.yaml"] = replies(Reply(body=meta, headers={"Content-Type": "text/plain"}))
    site.routes["/lil/3f2a.json.gz"] = replies(
        Reply(body=lil, headers={"Content-Type": "application/gzip"})
    )
    report = fetch_all(
        tmp_path,
        RemoteSource(
            site.url("/raw/benchmark_results.json"), meta=site.url("/raw/run.yaml"), id="h100-raw"
        ),
        RemoteSource(site.url("/lil/3f2a.json.gz"), meta=site.url("/raw/run.yaml")),
    )
    assert report.problems == [] and report.warnings == []
    assert [(run.id, run.document.data["run"]["model"]) for run in report.runs] == [
        ("h100-raw", RUN_META["run"]["model"]),
        ("3f2a", RUN_META["run"]["model"]),
    ]


def test_a_remote_json_lines_file_of_another_tool(site: Site, tmp_path: Path) -> None:
    """An SGLang bench_serving file (JSON Lines, a bare Infinity) goes through the same registry."""
    raw = (
        REPO
        / "tests"
        / "data"
        / "samples"
        / "sglang"
        / "scicom-h100x8-gptoss120b-tp8-in1024-c100.jsonl"
    ).read_bytes()
    meta = (
        b"hardware: {type: discrete-gpu, accelerator: H100 SXM, count: 8}\nrun: {model: "
        b"openai/gpt-oss-120b}\n"
    )
    site.routes["/sglang/out.jsonl"] = replies(
        Reply(body=raw, headers={"Content-Type": "application/octet-stream"})
    )
    site.routes["/sglang/run.yaml"] = replies(
        Reply(body=meta, headers={"Content-Type": "text/plain"})
    )
    report = fetch_all(
        tmp_path,
        RemoteSource(
            site.url("/sglang/out.jsonl"), meta=site.url("/sglang/run.yaml"), id="h100-sglang"
        ),
    )
    assert report.problems == []
    [run] = report.runs
    line = json.loads(raw)
    [cell] = run.document.data["measurements"]["decode"]
    assert (cell["context_tokens"], cell["concurrency"]) == (
        round(line["total_input_tokens"] / line["completed"]),
        line["max_concurrency"],
    )
    assert cell["total_tokens_per_s"] == pytest.approx(line["output_throughput"], abs=1e-6)
    assert run.document.data["engine"]["version"] == line["server_info"]["version"]


# --- end to end through the CLI -------------------------------------------------------


@pytest.fixture
def project(project: Path) -> Path:
    """The shipped site with only the seed run, so these tests do not hang on the other runs."""
    for path in (project / "content" / "runs").iterdir():
        if path.name != f"{SEED_RUN_ID}.yaml":
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    return project


def collected(project: Path) -> dict[str, str]:
    document = json.loads((project / ".sitegen" / "collected.json").read_bytes())
    return {run["id"]: run["origin"] for run in document["runs"]}


def test_cli_collects_a_remote_run(
    site: Site, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site.routes[RUN] = replies(good())
    set_sources(project, site.url(RUN), {"url": site.url(RUN), "id": "remote-twin"})
    assert run_cli(project, "collect") == 0
    runs = collected(project)
    assert runs["remote-seed"] == site.url(RUN) and runs["remote-twin"] == site.url(RUN)
    assert runs[SEED_RUN_ID] == f"content/runs/{SEED_RUN_ID}.yaml"
    assert capsys.readouterr().err == ""


def test_cli_warns_of_implausible_remote_figures_at_the_url_and_line(
    site: Site, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fetched file's plausibility warnings name the source URL and the fetched file's line,
    as a local file's name its path: the lines are those of the planted file's '# planted:'
    comments."""
    planted = REPO / "tests" / "data" / "plausibility" / "planted.yaml"
    site.routes["/runs/planted.yaml"] = replies(
        Reply(body=planted.read_bytes(), headers={"Content-Type": "application/yaml"})
    )
    set_sources(project, site.url("/runs/planted.yaml"))
    assert run_cli(project, "collect") == 0  # warned, never refused
    assert "planted" in collected(project)
    expected: dict[int, set[str]] = {}
    for number, line in enumerate(planted.read_text().splitlines(), start=1):
        if "# planted:" in line:
            expected[number] = {check.strip() for check in line.split("# planted:")[1].split(",")}
    found: dict[int, set[str]] = {}
    prefix = re.escape(site.url("/runs/planted.yaml"))
    for line in capsys.readouterr().err.splitlines():
        match = re.match(
            prefix + r":(\d+): /measurements/decode/\d+/\w+: warning: .* \[([a-z-]+)\]", line
        )
        assert match, line
        found.setdefault(int(match[1]), set()).add(match[2])
    assert found == expected and expected


def test_cli_failure_with_a_cache_keeps_the_run(
    site: Site, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site.routes[RUN] = replies(good(), Reply(500, b"down"))
    set_sources(project, site.url(RUN))
    assert run_cli(project, "collect") == 0
    capsys.readouterr()
    assert run_cli(project, "collect") == 0
    err = capsys.readouterr().err
    assert (
        f"{site.url(RUN)}: cannot fetch: HTTP 500 Internal Server Error (tried 3 times); "
        "using the last good copy from the cache"
    ) in err
    assert "remote-seed" in collected(project)


def test_cli_failure_without_a_cache_fails_and_writes_nothing(
    site: Site, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(project, "collect") == 0
    before = (project / ".sitegen" / "collected.json").read_bytes()
    set_sources(project, site.url("/missing.yaml"))
    capsys.readouterr()
    assert run_cli(project, "collect") == 1
    captured = capsys.readouterr()
    assert (
        f"{site.url('/missing.yaml')}: cannot fetch: HTTP 404 Not Found; no cached copy to fall "
        f"back on" in captured.err
    )
    assert "Traceback" not in captured.err + captured.out
    assert (project / ".sitegen" / "collected.json").read_bytes() == before


def test_cli_unreachable_server_is_a_clear_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    closed = ScriptedServer(Site())
    port = closed.server_address[1]
    closed.server_close()  # nothing listens on this port any more
    set_sources(project, f"http://127.0.0.1:{port}/run.yaml")
    assert run_cli(project, "collect") == 1
    err = capsys.readouterr().err
    assert f"http://127.0.0.1:{port}/run.yaml: cannot fetch: cannot connect (" in err
    assert "Traceback" not in err


def test_cli_offline(
    site: Site, project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    site.routes[RUN] = replies(good())
    set_sources(project, site.url(RUN))
    assert run_cli(project, "collect") == 0
    hits = len(site.hits)

    def no_network(*args: object, **kwargs: object) -> httpx.Client:
        raise AssertionError("--offline must not make an HTTP client")

    monkeypatch.setattr(remote_module.httpx, "Client", no_network)
    (project / ".sitegen" / "collected.json").unlink()
    assert run_cli(project, "collect", "--offline") == 0
    assert "remote-seed" in collected(project)
    assert len(site.hits) == hits

    set_sources(project, site.url(RUN), site.url("/never-fetched.yaml"))
    capsys.readouterr()
    assert run_cli(project, "collect", "--offline") == 1
    assert (
        f"{site.url('/never-fetched.yaml')}: not in the cache (--offline); run `sitegen collect` "
        f"without "
        "--offline to fetch it"
    ) in capsys.readouterr().err


class _DripHandler(socketserver.BaseRequestHandler):
    """Answers any request with response headers sent one byte at a time, never finishing them
    (bounded by ``DRIP_FOR_S`` so the test's server always stops); with ``server.body``, sends
    the headers at once and drips the body instead."""

    DRIP_FOR_S = 8.0
    server: _DripServer

    def handle(self) -> None:
        self.request.settimeout(1.0)
        with self.server.lock:
            self.server.connections += 1
        with contextlib.suppress(OSError):
            self.request.recv(65536)
            head = b"HTTP/1.1 200 OK\r\nContent-Type: application/yaml\r\n"
            rest = b"Content-Length: 100000\r\n\r\n" if self.server.body else b"X-Drip: "
            self.request.sendall(head + rest)
            started = time.monotonic()
            while (
                time.monotonic() - started < self.DRIP_FOR_S and not self.server.stopping.is_set()
            ):
                self.request.sendall(b"a")
                time.sleep(self.server.every_s)


class _DripServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, every_s: float, body: bool = False) -> None:
        super().__init__(("127.0.0.1", 0), _DripHandler)
        self.every_s = every_s
        self.body = body
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.connections = 0


@contextmanager
def _dripping(every_s: float, *, body: bool = False) -> Iterator[_DripServer]:
    server = _DripServer(every_s, body)
    with running(server):
        try:
            yield server
        finally:
            server.stopping.set()  # the handlers still dripping stop before the server does


def _drip_url(server: _DripServer, path: str = RUN) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}{path}"


@pytest.mark.parametrize("every_s", [0.05, 0.3])  # far inside the 2 s timeout of each read
def test_a_server_dripping_its_headers_is_cut_off_at_the_deadline(
    tmp_path: Path, every_s: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_proxies(monkeypatch)
    settings = FetchSettings(
        timeout_s=2.0, attempts=2, backoff_s=0.01, max_sleep_s=0.05, deadline_s=1.0
    )
    with _dripping(every_s) as server:
        url = _drip_url(server)
        started = time.monotonic()
        report = fetch_all(tmp_path, RemoteSource(url), settings=settings)
        elapsed = time.monotonic() - started
    # One attempt of one second, not the eight seconds the server would drip, and no retry.
    assert elapsed < settings.deadline_s + 1.5, elapsed
    assert server.connections == 1
    assert messages(report) == [
        f"{url}: cannot fetch: the download took longer than 1 s "
        "(stopped); no cached copy to fall back on"
    ]


def test_sources_dripping_headers_and_body_are_each_cut_off_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Neither download is tried again after its deadline, though three attempts are allowed."""
    no_proxies(monkeypatch)
    settings = FetchSettings(
        timeout_s=2.0, attempts=3, backoff_s=0.01, max_sleep_s=0.05, deadline_s=1.0
    )
    with _dripping(0.1) as headers, _dripping(0.1, body=True) as body:
        urls = [_drip_url(headers), _drip_url(body)]
        started = time.monotonic()
        report = fetch_all(tmp_path, *map(RemoteSource, urls), settings=settings)
        elapsed = time.monotonic() - started
    assert (headers.connections, body.connections) == (1, 1)
    assert elapsed < 2 * settings.deadline_s + 2.0, elapsed
    assert messages(report) == [
        f"{url}: cannot fetch: the download took longer than 1 s "
        "(stopped); no cached copy to fall back on"
        for url in urls
    ]


def test_the_time_budget_of_all_sources_ends_the_collect(
    site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the shared budget is spent, the sources left fall back to the cache or fail, each
    with its message: the dripping headers use it up, the dripping body and the good source
    (cached by an earlier collect) get none of it."""
    site.routes[RUN] = replies(good())
    assert fetch_all(tmp_path, RemoteSource(site.url(RUN))).problems == []
    hits = len(site.hits)
    settings = FetchSettings(
        timeout_s=2.0, attempts=3, backoff_s=0.01, max_sleep_s=0.05, deadline_s=30.0, budget_s=1.5
    )
    with _dripping(0.1) as headers, _dripping(0.1, body=True) as body:
        urls = [_drip_url(headers), _drip_url(body)]
        started = time.monotonic()
        sources = [*map(RemoteSource, urls), RemoteSource(site.url(RUN))]
        report = fetch_all(tmp_path, *sources, settings=settings)
        elapsed = time.monotonic() - started
    assert elapsed < settings.budget_s + 2.0, elapsed
    assert (headers.connections, body.connections, len(site.hits) - hits) == (1, 0, 0)
    budget = "the 1.5-s time budget of all remote sources (sources_budget_s)"
    assert messages(report) == [
        f"{urls[0]}: cannot fetch: stopped when {budget} ran out; no cached copy to fall back on",
        f"{urls[1]}: cannot fetch: not fetched: {budget} ran out before this source's turn; "
        "no cached copy to fall back on",
    ]
    assert [str(w) for w in report.warnings] == [
        f"{site.url(RUN)}: cannot fetch: not fetched: {budget} ran out before this source's turn; "
        "using the last good copy from the cache"
    ]
    assert [run.id for run in report.runs] == ["remote-seed"]


def test_cli_collect_ends_within_the_budget_of_sitegen_yaml(
    site: Site, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two hostile sources together, the budget set in sitegen.yaml: collect fails within the
    budget and a little more, with one line per source."""
    with _dripping(0.1) as headers, _dripping(0.1, body=True) as body:
        urls = [_drip_url(headers), _drip_url(body)]
        set_sources(project, *urls)
        config = project / "sitegen.yaml"
        config.write_text("sources_budget_s: 1\n" + config.read_text())
        started = time.monotonic()
        assert run_cli(project, "collect") == 1
        elapsed = time.monotonic() - started
    assert elapsed < 1 + 3.0, elapsed
    assert (headers.connections, body.connections) == (1, 0)
    err = capsys.readouterr().err
    budget = "the 1-s time budget of all remote sources (sources_budget_s) ran out"
    assert f"{urls[0]}: cannot fetch: stopped when {budget}; no cached copy to fall back on" in err
    assert (
        f"{urls[1]}: cannot fetch: not fetched: {budget} before this source's turn; no cached copy"
    ) in err
    assert "Traceback" not in err


def test_no_secret_reaches_the_cache_or_a_message(site: Site, tmp_path: Path) -> None:
    mark = "Rmt5ecretMark"  # letters and digits only: any byte-for-byte copy of a secret shows it
    body = SEED.replace(b"--api-key <redacted>", f"--api-key sk-proj-{mark}Body0001aaaa".encode())
    assert body != SEED
    query = f"?token={mark}Query0002"
    site.routes[RUN + query] = replies(Reply(body=body), Reply(500, b"down"))
    url = site.url(RUN).replace("http://", f"http://reader:{mark}Password0003@") + query
    first = fetch_all(tmp_path, RemoteSource(url))
    assert first.problems == [] and [run.id for run in first.runs] == ["remote-seed"]
    second = fetch_all(
        tmp_path, RemoteSource(url)
    )  # the server fails: the cached copy serves, with a warning
    assert [run.id for run in second.runs] == ["remote-seed"] and len(second.warnings) == 1
    offline = fetch_all(tmp_path, RemoteSource(url), offline=True)
    assert [run.id for run in offline.runs] == ["remote-seed"]
    for report in (first, second, offline):
        shown = [str(problem) for problem in report.problems + report.warnings] + [
            run.origin for run in report.runs
        ]
        shown += [json.dumps(run.document.data) for run in report.runs]
        assert not any(mark in text for text in shown), shown
    stored = [path for path in (tmp_path / "cache").rglob("*") if path.is_file()]
    assert len(stored) == 2  # the metadata and the body
    for path in stored:
        assert mark not in path.name and mark.encode() not in path.read_bytes(), path
    # The cached body is the fetched one with the secret redacted, and nothing else changed.
    [cached_body] = [path.read_bytes() for path in stored if path.suffix == ".body"]
    assert cached_body == body.replace(f"sk-proj-{mark}Body0001aaaa".encode(), b"<redacted>")
