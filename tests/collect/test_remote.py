"""Remote sources, unit level: httpx.MockTransport in place of the network, a fake sleep
in place of the clock, so retry and backoff logic is checked exactly and fast."""

from __future__ import annotations

import ssl
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from sitegen.collect import check_run
from sitegen.collect import remote as remote_module
from sitegen.collect.adapters import raw as adapters
from sitegen.collect.remote import (
    Copy,
    Fetcher,
    FetchError,
    FetchSettings,
    RemoteCache,
    gather_remote,
    make_client,
    source_id,
    url_refusal,
)
from sitegen.config import RemoteSource
from sitegen.errors import Problem, SitegenError
from sitegen.parse import Document, parse_yaml
from tests.kit.project import REPO, SEED_RUN_ID

SEED = (REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml").read_bytes()
URL = "https://results.example.org/runs/remote-seed.yaml"
YAML = {"content-type": "application/yaml"}

Handler = Callable[[httpx.Request], httpx.Response]


class Sleeps:
    """A fake time.sleep that records the delays asked for."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def scripted(*responses: httpx.Response | Exception) -> tuple[Handler, list[httpx.Request]]:
    """A handler answering with ``responses`` in order (the last one repeats), and its request
    log."""
    requests: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        answer = responses[min(len(requests), len(responses)) - 1]
        if isinstance(answer, Exception):
            raise answer
        return answer

    return handle, requests


def fetcher(handler: Handler, sleeps: Sleeps | None = None, **settings: float) -> Fetcher:
    client = httpx.Client(transport=httpx.MockTransport(handler))
    return Fetcher(client, FetchSettings(**settings), sleep=sleeps or Sleeps())  # type: ignore[arg-type]


def ok(body: bytes = SEED, **headers: str) -> httpx.Response:
    return httpx.Response(200, content=body, headers={**YAML, **headers})


# --- URL rules -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://example.org/x.yaml",
        "http://127.0.0.1:8000/x.yaml",
        "http://127.9.8.7/x",
        "http://[::1]:9000/x.json",
        "http://localhost/x.yaml",
        "HTTP://LOCALHOST/x.yaml",
    ],
)
def test_allowed_urls(url: str) -> None:
    assert url_refusal(url) is None


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://example.org/x.yaml", "plain http is refused"),
        ("http://10.0.0.1/x.yaml", "plain http is refused"),
        ("http://127.0.0.1.example.org/x.yaml", "plain http is refused"),
        ("ftp://example.org/x.yaml", "the ftp scheme is refused"),
        ("file:///etc/passwd", "the file scheme is refused"),
    ],
)
def test_refused_urls(url: str, reason: str) -> None:
    assert reason in (url_refusal(url) or "")


def test_refused_url_is_never_requested() -> None:
    handle, requests = scripted(ok())
    with pytest.raises(FetchError, match="plain http is refused"):
        fetcher(handle).fetch("http://example.org/x.yaml")
    assert requests == []


# --- retries and backoff -------------------------------------------------------------


def test_retries_5xx_with_exponential_backoff() -> None:
    sleeps = Sleeps()
    handle, requests = scripted(httpx.Response(503), httpx.Response(502), ok())
    fetched = fetcher(handle, sleeps).fetch(URL)
    assert fetched.body == SEED
    assert len(requests) == 3
    assert sleeps.delays == [0.5, 1.0]


def test_gives_up_after_the_attempts_with_the_last_reason() -> None:
    sleeps = Sleeps()
    handle, requests = scripted(httpx.Response(500))
    with pytest.raises(FetchError) as caught:
        fetcher(handle, sleeps).fetch(URL)
    assert caught.value.reason == "HTTP 500 Internal Server Error (tried 4 times)"
    assert len(requests) == 4
    assert sleeps.delays == [0.5, 1.0, 2.0]


def test_backoff_sleep_is_capped() -> None:
    sleeps = Sleeps()
    handle, _ = scripted(httpx.Response(503))
    with pytest.raises(FetchError):
        fetcher(handle, sleeps, attempts=6, backoff_s=0.5, max_sleep_s=2.0).fetch(URL)
    assert sleeps.delays == [0.5, 1.0, 2.0, 2.0, 2.0]


def test_no_retry_when_the_wait_would_outlast_the_budget() -> None:
    """A 30 s budget: waits of 1 to 16 s fit (the fake sleep takes no time), 32 s would not."""
    sleeps = Sleeps()
    handle, requests = scripted(httpx.Response(503))
    with pytest.raises(FetchError) as caught:
        fetcher(handle, sleeps, attempts=9, backoff_s=1.0, max_sleep_s=100.0, budget_s=30.0).fetch(
            URL
        )
    assert sleeps.delays == [1.0, 2.0, 4.0, 8.0, 16.0] and len(requests) == 6
    assert caught.value.reason == (
        "HTTP 503 Service Unavailable; the 30-s time budget of all "
        "remote sources "
        "(sources_budget_s) leaves no time to try again (tried 6 times)"
    )


def test_small_retry_after_is_honoured() -> None:
    sleeps = Sleeps()
    handle, _ = scripted(httpx.Response(429, headers={"Retry-After": "3"}), ok())
    fetcher(handle, sleeps).fetch(URL)
    assert sleeps.delays == [3.0]


def test_long_retry_after_gives_up_at_once() -> None:
    sleeps = Sleeps()
    handle, requests = scripted(httpx.Response(429, headers={"Retry-After": "3600"}), ok())
    with pytest.raises(
        FetchError, match="HTTP 429 Too Many Requests; the server asks to wait 3600 s"
    ):
        fetcher(handle, sleeps).fetch(URL)
    assert len(requests) == 1
    assert sleeps.delays == []


@pytest.mark.parametrize("status", [400, 401, 403, 404, 410])
def test_no_retry_on_client_errors(status: int) -> None:
    sleeps = Sleeps()
    handle, requests = scripted(httpx.Response(status), ok())
    with pytest.raises(FetchError, match=f"HTTP {status}"):
        fetcher(handle, sleeps).fetch(URL)
    assert len(requests) == 1
    assert sleeps.delays == []


@pytest.mark.parametrize(
    "exception",
    [
        httpx.ConnectTimeout("slow"),
        httpx.ReadTimeout("slow"),
        httpx.RemoteProtocolError("server disconnected"),
    ],
)
def test_timeouts_and_broken_connections_are_retried(exception: Exception) -> None:
    sleeps = Sleeps()
    handle, requests = scripted(exception, ok())
    assert fetcher(handle, sleeps).fetch(URL).body == SEED
    assert len(requests) == 2
    assert sleeps.delays == [0.5]


def test_timeout_reason_after_retries() -> None:
    handle, _ = scripted(httpx.ReadTimeout("slow"))
    with pytest.raises(
        FetchError, match=r"no data from the server for 10 s \(timed out\) \(tried 4 times\)"
    ):
        fetcher(handle).fetch(URL)


def test_connect_error_is_not_retried() -> None:
    sleeps = Sleeps()
    handle, requests = scripted(httpx.ConnectError("[Errno 111] Connection refused"), ok())
    with pytest.raises(FetchError, match=r"cannot connect \(\[Errno 111\] Connection refused\)"):
        fetcher(handle, sleeps).fetch(URL)
    assert len(requests) == 1


def test_progress_reports_retries_and_slow_fetches_only() -> None:
    messages: list[str] = []
    shown = threading.Event()

    def show(message: str) -> None:
        messages.append(message)
        shown.set()

    def slow(request: httpx.Request) -> httpx.Response:
        # A fetch slow past progress_after_s: the answer comes once the progress is shown.
        assert shown.wait(30), "no progress from a fetch still under way"
        return ok()

    client = httpx.Client(transport=httpx.MockTransport(slow))
    Fetcher(client, FetchSettings(progress_after_s=0.05), progress=show).fetch(URL)
    assert messages == [f"fetching {URL} …"]

    messages.clear()
    handle, _ = scripted(httpx.Response(503), ok())
    client = httpx.Client(transport=httpx.MockTransport(handle))
    # Quick fetches (a busy machine cannot make these take a minute) show only the retry.
    quick = FetchSettings(progress_after_s=60.0)
    Fetcher(client, quick, progress=messages.append, sleep=Sleeps()).fetch(URL)
    assert messages == [f"{URL}: HTTP 503 Service Unavailable; trying again in 0.5 s"]


# --- redirects, content type, size ---------------------------------------------------


@pytest.mark.parametrize(
    "location", ["file:///etc/passwd", "ftp://example.org/x.yaml", "http://example.org/x.yaml"]
)
def test_redirect_to_a_refused_url(location: str) -> None:
    handle, requests = scripted(httpx.Response(302, headers={"Location": location}), ok())
    with pytest.raises(FetchError, match=f"redirected to {location.split(':')[0]}:.*refused"):
        fetcher(handle).fetch(URL)
    assert len(requests) == 1


def test_relative_and_cross_host_redirects_are_followed() -> None:
    handle, requests = scripted(
        httpx.Response(301, headers={"Location": "/moved/remote-seed.yaml"}),
        httpx.Response(307, headers={"Location": "https://mirror.example.net/remote-seed.yaml"}),
        ok(),
    )
    assert fetcher(handle).fetch(URL).body == SEED
    assert [str(r.url) for r in requests] == [
        URL,
        "https://results.example.org/moved/remote-seed.yaml",
        "https://mirror.example.net/remote-seed.yaml",
    ]


def test_redirect_loop_is_bounded() -> None:
    handle, requests = scripted(httpx.Response(302, headers={"Location": URL}))
    with pytest.raises(FetchError, match="more than 5 redirects"):
        fetcher(handle).fetch(URL)
    assert len(requests) == 6


@pytest.mark.parametrize(
    "content_type",
    [
        "application/json; charset=utf-8",
        "text/plain",
        "application/x-yaml",
        "application/octet-stream",
        "application/vnd.bench+json",
        None,
    ],
)
def test_accepted_content_types(content_type: str | None) -> None:
    headers = {"content-type": content_type} if content_type else {}
    handle, _ = scripted(httpx.Response(200, content=SEED, headers=headers))
    assert fetcher(handle).fetch(URL).body == SEED


def test_html_is_refused_with_a_hint() -> None:
    handle, _ = scripted(
        httpx.Response(200, content=b"<html></html>", headers={"content-type": "text/html"})
    )
    with pytest.raises(
        FetchError,
        match=r"the server sent text/html, not a JSON or YAML result file \(a web page\?",
    ):
        fetcher(handle).fetch(URL)


def test_oversized_content_length_is_refused_before_reading() -> None:
    def endless() -> Iterator[bytes]:
        raise AssertionError("the body must not be read")
        yield b""  # pragma: no cover

    response = httpx.Response(
        200, content=endless(), headers={**YAML, "content-length": str(6 * 1024 * 1024)}
    )
    handle, _ = scripted(response)
    with pytest.raises(
        FetchError, match="the file is 6,291,456 bytes, over the 5,242,880-byte limit"
    ):
        fetcher(handle).fetch(URL)


def test_endless_body_is_cut_off_at_the_limit() -> None:
    produced = [0]

    def endless() -> Iterator[bytes]:
        for _ in range(10_000):  # bounded, far past the limit
            produced[0] += 1
            yield b"x" * 1024

    handle, _ = scripted(httpx.Response(200, content=endless(), headers=YAML))
    with pytest.raises(FetchError, match="over the 65,536-byte limit \\(download stopped\\)"):
        fetcher(handle, max_bytes=64 * 1024).fetch(URL)
    assert produced[0] == 65


# --- revalidation and the cache ------------------------------------------------------


def test_conditional_request_and_304_reuse_the_cached_body() -> None:
    cached = Copy(SEED, etag='"v1"', last_modified="Thu, 09 Jul 2026 10:00:00 GMT")
    handle, requests = scripted(httpx.Response(304, headers={"ETag": '"v1"'}))
    fetched = fetcher(handle).fetch(URL, cached)
    assert fetched == cached
    assert requests[0].headers["if-none-match"] == '"v1"'
    assert requests[0].headers["if-modified-since"] == "Thu, 09 Jul 2026 10:00:00 GMT"


def test_304_without_a_cached_copy_is_an_error() -> None:
    handle, _ = scripted(httpx.Response(304))
    with pytest.raises(FetchError, match="304 Not Modified to a request without validators"):
        fetcher(handle).fetch(URL)


def test_cache_round_trip_and_replacement(tmp_path: Path) -> None:
    cache = RemoteCache(tmp_path)
    assert cache.load(URL) is None
    cache.store(URL, Copy(b"one: 1\n", etag='"a"'))
    cache.store(URL, Copy(b"two: 2\n", last_modified="yesterday"))
    assert cache.load(URL) == Copy(b"two: 2\n", None, "yesterday")
    assert len(list(tmp_path.glob("*.body"))) == 1
    assert cache.load("https://results.example.org/other.yaml") is None


def test_a_damaged_cache_entry_is_no_copy(tmp_path: Path) -> None:
    cache = RemoteCache(tmp_path)
    cache.store(URL, Copy(b"one: 1\n"))
    next(tmp_path.glob("*.body")).write_bytes(b"tampered")
    assert cache.load(URL) is None
    (tmp_path / f"{cache.key(URL)}.json").write_text("{not json")
    assert cache.load(URL) is None


# --- sources to runs -----------------------------------------------------------------


def test_source_ids() -> None:
    assert source_id(RemoteSource(URL)) == ("remote-seed", None)
    assert source_id(RemoteSource("https://x.org/a/My%20Run.JSON?token=abc")) == ("my-run", None)
    assert source_id(RemoteSource(URL, id="chosen")) == ("chosen", None)
    assert source_id(RemoteSource("https://x.org/")) == ("run", None)
    _, problem = source_id(RemoteSource(URL, id="Bad Id"))
    assert problem is not None and problem.source == URL and "cannot be a run id" in problem.message


def gather(
    tmp_path: Path,
    handler: Handler,
    *sources: RemoteSource,
    offline: bool = False,
    sleeps: Sleeps | None = None,
) -> remote_module.RemoteReport:
    client = None if offline else httpx.Client(transport=httpx.MockTransport(handler))
    return gather_remote(
        sources or (RemoteSource(URL),),
        tmp_path / "cache",
        check_run,
        offline=offline,
        client=client,
        sleep=sleeps or Sleeps(),
    )


def test_good_fetch_is_kept_and_cached(tmp_path: Path) -> None:
    handle, _ = scripted(ok(ETag='"v1"'))
    report = gather(tmp_path, handle)
    assert report.problems == [] and report.warnings == []
    [run] = report.runs
    assert (run.id, run.origin, run.document.data["run"]["model"]) == (
        "remote-seed",
        URL,
        "deepseek-ai/DeepSeek-V4-Flash-DSpark",
    )
    assert RemoteCache(tmp_path / "cache").load(URL) == Copy(SEED, '"v1"', None)


def test_failure_with_a_cached_copy_is_a_warning(tmp_path: Path) -> None:
    gather(tmp_path, scripted(ok())[0])
    report = gather(tmp_path, scripted(httpx.Response(404))[0])
    assert report.problems == []
    assert report.warnings == [
        Problem(
            URL,
            None,
            "",
            "cannot fetch: HTTP 404 Not Found; using the last good copy from the cache",
        )
    ]
    assert [run.id for run in report.runs] == ["remote-seed"]


def test_failure_without_a_cached_copy_is_an_error(tmp_path: Path) -> None:
    report = gather(tmp_path, scripted(httpx.Response(404))[0])
    assert report.runs == []
    assert report.problems == [
        Problem(URL, None, "", "cannot fetch: HTTP 404 Not Found; no cached copy to fall back on")
    ]


def test_an_invalid_update_never_replaces_the_good_copy(tmp_path: Path) -> None:
    gather(tmp_path, scripted(ok(ETag='"good"'))[0])
    broken = SEED.replace(b"status: valid", b"status: overcap", 1)
    report = gather(tmp_path, scripted(ok(broken, ETag='"bad"'))[0])
    [warning] = report.warnings
    assert warning.source == URL
    assert warning.message.startswith("the fetched file is not valid (line ")
    assert "'overcap' is not one of" in warning.message
    assert warning.message.endswith("; using the last good copy from the cache")
    assert [run.id for run in report.runs] == ["remote-seed"]
    assert RemoteCache(tmp_path / "cache").load(URL) == Copy(SEED, '"good"', None)


def test_an_invalid_file_without_a_cached_copy_reports_every_problem(tmp_path: Path) -> None:
    report = gather(tmp_path, scripted(ok(b"hardware: [unclosed\n"))[0])
    assert report.runs == []
    [problem] = report.problems
    assert (problem.source, problem.line) == (URL, 2)
    assert problem.message.startswith("invalid YAML")
    assert RemoteCache(tmp_path / "cache").load(URL) is None


def test_offline_uses_only_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gather(tmp_path, scripted(ok())[0])

    def no_client(*args: object, **kwargs: object) -> httpx.Client:
        raise AssertionError("offline must not create an HTTP client")

    monkeypatch.setattr(remote_module, "make_client", no_client)
    report = gather(tmp_path, scripted(ok())[0], offline=True)
    assert report.problems == [] and report.warnings == []
    assert [run.id for run in report.runs] == ["remote-seed"]

    missing = "https://results.example.org/never-fetched.yaml"
    report = gather(tmp_path, scripted(ok())[0], RemoteSource(missing), offline=True)
    assert report.problems == [
        Problem(
            missing,
            None,
            "",
            "not in the cache (--offline); run `sitegen collect` without --offline to fetch it",
        )
    ]


# --- raw sources (adapters.adapt_raw is being written by another engineer) ----------

RESULTS_URL = "https://results.example.org/raw/benchmark_results.json"
META_URL = "https://results.example.org/raw/run.yaml"


@pytest.fixture
def fake_adapter(monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, object, str]]:
    """Replace adapt_raw with one that records its input and returns the seed run."""
    calls: list[tuple[object, object, str]] = []

    def adapt(results: Document, meta: Document | None, source: str) -> Document:
        calls.append((results.data, meta.data if meta else None, source))
        return parse_yaml(source, SEED)

    monkeypatch.setattr(adapters, "adapt_raw", adapt)
    return calls


def raw_handler(request: httpx.Request) -> httpx.Response:
    if request.url.path.endswith(".json"):
        return httpx.Response(200, json={"metadata": {"version": "0.4.29"}, "results": []})
    return httpx.Response(
        200, content=b"hardware: {accelerator: H200 NVL}\n", headers={"content-type": "text/plain"}
    )


def test_raw_source_fetches_results_and_meta(
    tmp_path: Path, fake_adapter: list[tuple[object, object, str]]
) -> None:
    report = gather(tmp_path, raw_handler, RemoteSource(RESULTS_URL, meta=META_URL, id="h200-raw"))
    assert report.problems == []
    assert [run.id for run in report.runs] == ["h200-raw"]
    assert fake_adapter == [
        (
            {"metadata": {"version": "0.4.29"}, "results": []},
            {"hardware": {"accelerator": "H200 NVL"}},
            RESULTS_URL,
        )
    ]


def test_raw_document_without_meta_goes_through_the_adapter(
    tmp_path: Path, fake_adapter: list[tuple[object, object, str]]
) -> None:
    lil_bench = {"schema": "lil-bench-result/1", "results": {}}
    report = gather(
        tmp_path,
        scripted(httpx.Response(200, json=lil_bench))[0],
        RemoteSource(RESULTS_URL, id="lil"),
    )
    assert [run.id for run in report.runs] == ["lil"]
    assert fake_adapter == [(lil_bench, None, RESULTS_URL)]


def test_raw_source_falls_back_when_its_meta_fails(
    tmp_path: Path, fake_adapter: list[tuple[object, object, str]]
) -> None:
    source = RemoteSource(RESULTS_URL, meta=META_URL, id="h200-raw")
    gather(tmp_path, raw_handler, source)

    def meta_gone(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404) if request.url.path.endswith(".yaml") else raw_handler(request)

    report = gather(tmp_path, meta_gone, source)
    assert report.warnings == [
        Problem(
            META_URL,
            None,
            "",
            "cannot fetch: HTTP 404 Not Found; using the last good copy from the cache",
        )
    ]
    assert [run.id for run in report.runs] == ["h200-raw"]


def test_raw_source_adapter_errors_name_the_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(results: Document, meta: Document | None, source: str) -> Document:
        raise SitegenError(Problem(source, None, "/metadata/mode", "not a decode run"))

    monkeypatch.setattr(adapters, "adapt_raw", refuse)
    report = gather(tmp_path, raw_handler, RemoteSource(RESULTS_URL, meta=META_URL, id="h200-raw"))
    assert report.problems == [Problem(RESULTS_URL, None, "/metadata/mode", "not a decode run")]


def test_clients_share_one_context_that_verifies_certificates() -> None:
    # The CA certificates are loaded once a process (remote._tls_context), and the one context
    # still checks each server's chain against them and its host name.
    contexts = [
        make_client(FetchSettings())._transport._pool._ssl_context  # type: ignore[attr-defined]
        for _ in range(2)
    ]
    assert contexts[0] is contexts[1]
    context = contexts[0]
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    assert context.cert_store_stats()["x509_ca"] > 0
