"""Remote sources: result files listed under ``sources:`` in sitegen.yaml, fetched with httpx.

The outside world is untrusted and unreliable, so every fetch is bounded and every
failure is a value:

::

    gather_remote(sources, cache_dir, check, …) -> RemoteReport(runs, warnings, problems)
      └─ per source: fetch (Fetcher) → parse / adapt → check (redact + validate)
           ├─ good  → keep the run; store the bodies in the cache as the last good copy
           └─ bad   → the last good cached copy, with a warning; none → a problem (error)

Security and resource rules (see docs/remote-sources.md): https only, except plain http
to loopback; every redirect hop is checked again and the hops are bounded; explicit
timeouts, and one deadline per download that every socket operation (connect, TLS,
sending, each read of headers and body) is held to, so a server dripping bytes cannot
stretch it; one time budget that all sources of a collect share, so that many slow sources
cannot either; a size limit enforced while streaming; a content-type allow-list. Retries
(429, 5xx, timeouts, broken connections) back off exponentially with a capped sleep; a
download cut off at its deadline is not retried (the server would only drip again).

The cache (``.sitegen/cache/remote/``) holds, per URL, the last body that parsed and
validated plus its ETag / Last-Modified, so a bad update never replaces a good copy.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import ipaddress
import json
import math
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

import httpcore
import httpx

from sitegen import __version__
from sitegen import progress as stages
from sitegen.collect.adapters import raw as adapters
from sitegen.collect.adapters import registry
from sitegen.collect.local import check_id, suggest_id
from sitegen.collect.redact import redact_text
from sitegen.config import BUDGET_SETTING, DEFAULT_BUDGET_S, RemoteSource
from sitegen.errors import Problem, SitegenError
from sitegen.files import read_bounded
from sitegen.parse import MAX_FILE_BYTES, Document, parse_json, parse_yaml
from sitegen.store import write_atomic

Check = Callable[[Document], tuple[Document, list[Problem]]]
"""Redact and validate a document: what every run goes through before it is kept."""
Progress = Callable[[str], None]

# Media types a result file may be served as. Raw GitHub serves text/plain, object stores
# often application/octet-stream; text/html means the URL is a web page, not the file.
_ALLOWED_TYPES = frozenset(
    {
        "application/json",
        "text/json",
        "application/yaml",
        "application/x-yaml",
        "text/yaml",
        "text/x-yaml",
        "application/yml",
        "text/plain",
        "application/octet-stream",
        "application/gzip",
        "application/x-gzip",  # lil-bench documents are saved as .json.gz
    }
)
_GZIP_MAGIC = b"\x1f\x8b"
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_LOOPBACK_NAMES = frozenset({"localhost", "localhost."})


@dataclass(frozen=True)
class FetchSettings:
    """Limits for one collect's fetches; tests shorten the timeouts and sleeps."""

    timeout_s: float = 10.0
    attempts: int = 4
    backoff_s: float = 0.5
    max_sleep_s: float = 8.0
    max_bytes: int = MAX_FILE_BYTES
    # Raw tool output keeps request samples and telemetry; the adapter sets its own bound.
    raw_max_bytes: int = adapters.RAW_MAX_BYTES
    max_redirects: int = 5
    # A server may drip bytes just inside the read timeout forever; bound the whole download.
    deadline_s: float = 60.0
    # All downloads of one collect together, retries and their sleeps included.
    budget_s: float = DEFAULT_BUDGET_S
    progress_after_s: float = 1.0

    def timeout(self) -> httpx.Timeout:
        t = self.timeout_s
        return httpx.Timeout(connect=t, read=t, write=t, pool=t)


DEFAULT_SETTINGS = FetchSettings()


# --- the cache ---------------------------------------------------------------------


@dataclass(frozen=True)
class Copy:
    """A body and the validators the server sent with it."""

    body: bytes
    etag: str | None = None
    last_modified: str | None = None


class RemoteCache:
    """Last good copies, one per URL, keyed by a hash of the URL.

    ``<key>.json`` names the body file ``<key>-<hash of body>.body``: the body is written
    first and the metadata, written atomically, is the commit point, so a crash leaves the
    old copy or the new one, never a body paired with the wrong validators.

    Nothing secret is stored: the key and the recorded URL are made from the URL with its
    credentials and secret query values redacted, and a body is stored redacted (gzip
    bodies unpacked first), exactly as collect would publish it.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @staticmethod
    def key(url: str) -> str:
        return hashlib.sha256(redact_text(url).encode()).hexdigest()[:32]

    def load(self, url: str) -> Copy | None:
        """The cached copy of ``url``; a missing, foreign or damaged entry is no copy at all."""
        key = self.key(url)
        try:
            meta = json.loads(read_bounded(self.folder / f"{key}.json", MAX_FILE_BYTES))
            if not isinstance(meta, dict) or meta.get("url") != redact_text(url):
                return None
            body_name = str(meta["body"])
            if not body_name.startswith(f"{key}-") or "/" in body_name:
                return None
            body = read_bounded(self.folder / body_name, adapters.RAW_MAX_BYTES)
        except (OSError, ValueError, KeyError, SitegenError):
            return None
        if hashlib.sha256(body).hexdigest() != meta.get("sha256"):
            return None
        return Copy(body, _text_or_none(meta.get("etag")), _text_or_none(meta.get("last_modified")))

    def store(self, url: str, copy: Copy) -> None:
        """Keep ``copy`` as the last good copy of ``url``; raises OSError."""
        key = self.key(url)
        body = storable(copy.body)
        digest = hashlib.sha256(body).hexdigest()
        body_name = f"{key}-{digest[:16]}.body"
        body_path = self.folder / body_name
        if not body_path.exists():
            write_atomic(body_path, body)
        meta = {
            "url": redact_text(url),
            "body": body_name,
            "sha256": digest,
            "etag": copy.etag,
            "last_modified": copy.last_modified,
        }
        write_atomic(
            self.folder / f"{key}.json",
            (json.dumps(meta, sort_keys=True, indent=1) + "\n").encode(),
        )
        for old in self.folder.glob(f"{key}-*.body"):
            if old.name != body_name:
                old.unlink(missing_ok=True)


def storable(body: bytes) -> bytes:
    """A body as the cache may keep it: with every secret redacted, as text (gzip bodies
    unpacked, redacted and packed again, so they are read back as what they were).

    Only bodies that parsed and passed the checks are stored, so they are UTF-8 (or gzip of
    it); redaction keeps YAML and JSON valid, since it replaces values by a plain word.
    Raises SitegenError for a gzip body that does not unpack.
    """
    if body.startswith(_GZIP_MAGIC):
        text = adapters.parse_raw_bytes("cache", body)
        return gzip.compress(redact_text(text.decode("utf-8", errors="replace")).encode(), mtime=0)
    return redact_text(body.decode("utf-8", errors="replace")).encode()


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


# --- fetching ----------------------------------------------------------------------


class FetchError(Exception):
    """A fetch that failed; ``reason`` is written for the user."""

    def __init__(
        self, url: str, reason: str, *, retry: bool = False, retry_after: float | None = None
    ) -> None:
        super().__init__(reason)
        self.url = url
        self.reason = reason
        self.retry = retry
        self.retry_after = retry_after

    def __str__(self) -> str:
        return self.reason  # the reason grows ("tried 4 times") after the exception is made


def url_refusal(url: str) -> str | None:
    """Why sitegen will not fetch ``url``, or None when it may."""
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        return f"not a valid URL ({exc})"
    scheme = parsed.scheme.lower()
    if scheme == "https" and parsed.host:
        return None
    if scheme == "http" and _is_loopback(parsed.host):
        return None
    if scheme == "http":
        return (
            "plain http is refused (use https; http is allowed only to 127.0.0.1, ::1 or localhost)"
        )
    return f"the {scheme or 'empty'!s} scheme is refused; only https URLs are fetched"


def _is_loopback(host: str) -> bool:
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Fetcher:
    """GETs one URL at a time through ``client`` under the limits of ``settings``.

    The time budget starts when the fetcher is made: each download's deadline is cut to
    what is left of it, and once it is spent every fetch fails at once (the cache may serve).
    """

    def __init__(
        self,
        client: httpx.Client,
        settings: FetchSettings,
        *,
        progress: Progress | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.client = client
        self.settings = settings
        self.progress = progress
        self.sleep = sleep
        self.budget_ends = time.monotonic() + settings.budget_s
        self._download_s = settings.deadline_s  # the deadline of the download in progress
        self._cut_by_budget = False

    def fetch(self, url: str, cached: Copy | None = None, *, max_bytes: int | None = None) -> Copy:
        """The body of ``url`` (revalidating ``cached``), retried when worth it; raises
        FetchError."""
        limit = max_bytes or self.settings.max_bytes
        with self._announce(url):
            attempts = max(1, self.settings.attempts)
            for attempt in range(1, attempts + 1):
                try:
                    return self._attempt(url, cached, limit, attempt)
                except FetchError as error:
                    delay = self._delay(attempt, error) if attempt < attempts else None
                    if delay is None:
                        if error.retry and attempt > 1:
                            error.reason += f" (tried {attempt} times)"
                        raise
                    if self.progress:
                        self.progress(f"{url}: {error.reason}; trying again in {delay:.1f} s")
                    self.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _attempt(self, url: str, cached: Copy | None, limit: int, attempt: int) -> Copy:
        left = self.budget_ends - time.monotonic()
        if left <= 0:
            spent = "before this source's turn" if attempt == 1 else "before the next attempt"
            raise FetchError(url, f"not fetched: {self._budget_text()} ran out {spent}")
        self._download_s = min(self.settings.deadline_s, left)
        self._cut_by_budget = left < self.settings.deadline_s
        return self._follow(url, cached, limit)

    def _budget_text(self) -> str:
        budget = self.settings.budget_s
        return f"the {budget:g}-s time budget of all remote sources ({BUDGET_SETTING})"

    def _delay(self, attempt: int, error: FetchError) -> float | None:
        """Seconds to wait before the next attempt, or None to give up now."""
        if not error.retry:
            return None
        cap = self.settings.max_sleep_s
        if error.retry_after is not None and error.retry_after > cap:
            # The server asked for a long pause: waiting that long would stall the whole
            # collect, and retrying sooner would ignore it. Give up; the cache may serve.
            error.reason += f"; the server asks to wait {error.retry_after:g} s"
            return None
        delay = self.settings.backoff_s * 2.0 ** (attempt - 1)
        if error.retry_after is not None:
            delay = max(delay, error.retry_after)
        delay = min(delay, cap)
        if delay >= self.budget_ends - time.monotonic():
            error.reason += f"; {self._budget_text()} leaves no time to try again"
            return None
        return delay

    @contextmanager
    def _announce(self, url: str) -> Iterator[None]:
        # Fast fetches stay quiet; a slow one says what it is waiting for.
        if self.progress is None:
            yield
            return
        timer = threading.Timer(
            self.settings.progress_after_s, self.progress, args=(f"fetching {url} …",)
        )
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            timer.cancel()

    def _follow(self, url: str, cached: Copy | None, limit: int) -> Copy:
        # One deadline for the download, every hop included; the socket operations are held to it.
        with download_deadline(self._download_s):
            return self._follow_hops(url, cached, limit)

    def _follow_hops(self, url: str, cached: Copy | None, limit: int) -> Copy:
        # Redirects are followed here, not by httpx, so that every hop passes url_refusal.
        current = url
        for _ in range(self.settings.max_redirects + 1):
            refusal = url_refusal(current)
            if refusal:
                where = "" if current == url else f"redirected to {current}: "
                raise FetchError(url, where + refusal)
            copy_or_next = self._request(url, current, cached, limit)
            if isinstance(copy_or_next, Copy):
                return copy_or_next
            current = copy_or_next
        raise FetchError(url, f"more than {self.settings.max_redirects} redirects")

    def _request(self, url: str, current: str, cached: Copy | None, limit: int) -> Copy | str:
        """One GET: the result, or the URL a redirect points to."""
        headers = _conditional_headers(cached)
        started = time.monotonic()
        try:
            request = self.client.build_request("GET", current, headers=headers)
            response = self.client.send(request, stream=True, follow_redirects=False)
            try:
                return self._answer(url, response, cached, started, limit)
            finally:
                response.close()
        except httpx.TimeoutException as exc:
            if _past_deadline():
                # Not retried: a server that held a download this long would only do it again.
                raise FetchError(url, self._too_long()) from None
            raise FetchError(
                url, _timeout_reason(exc, self.settings.timeout_s), retry=True
            ) from None
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
            raise FetchError(
                url, f"the connection broke ({_exception_text(exc)})", retry=True
            ) from None
        except httpx.ConnectError as exc:
            raise FetchError(url, _connect_reason(exc)) from None
        except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError) as exc:
            raise FetchError(url, _exception_text(exc)) from None

    def _answer(
        self, url: str, response: httpx.Response, cached: Copy | None, started: float, limit: int
    ) -> Copy | str:
        status = response.status_code
        if status in _REDIRECTS:
            location = response.headers.get("location")
            if not location:
                raise FetchError(url, f"HTTP {status} redirect without a Location header")
            return str(response.url.join(location))
        if status == 304:
            if cached is None:
                raise FetchError(
                    url, "the server answered 304 Not Modified to a request without validators"
                )
            return _with_validators(cached, response)
        if status == 429 or status >= 500:
            raise FetchError(
                url, _status_text(response), retry=True, retry_after=_retry_after(response)
            )
        if status != 200:
            raise FetchError(url, _status_text(response))
        _check_content_type(url, response)
        body = self._read_body(url, response, started, limit)
        return _with_validators(Copy(body), response)

    def _read_body(self, url: str, response: httpx.Response, started: float, limit: int) -> bytes:
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise FetchError(
                url, f"the file is {int(declared):,} bytes, over the {limit:,}-byte limit"
            )
        chunks: list[bytes] = []
        size = 0
        # iter_bytes decodes gzip/deflate, so the limit applies to what would be parsed.
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > limit:
                raise FetchError(
                    url, f"the file is over the {limit:,}-byte limit (download stopped)"
                )
            if time.monotonic() - started > self._download_s or _past_deadline():
                raise FetchError(url, self._too_long())
            chunks.append(chunk)
        return b"".join(chunks)

    def _too_long(self) -> str:
        if self._cut_by_budget:
            return f"stopped when {self._budget_text()} ran out"
        return f"the download took longer than {self._download_s:g} s (stopped)"


# --- one deadline per download ---------------------------------------------------------------
# httpx's timeouts bound each socket operation, so a server that sends a byte just before
# each one runs out keeps a download going forever. The client's network backend therefore
# holds every operation to the deadline of the download in progress on its thread.

_deadline = threading.local()


@contextmanager
def download_deadline(seconds: float) -> Iterator[None]:
    """Hold every socket operation on this thread to ``seconds`` from now, together."""
    _deadline.at = time.monotonic() + seconds
    try:
        yield
    finally:
        _deadline.at = None


def _past_deadline() -> bool:
    at = getattr(_deadline, "at", None)
    return at is not None and time.monotonic() >= at


def _bounded(timeout: float | None, error: type[Exception]) -> float | None:
    """``timeout`` shortened to what is left of the download's deadline; raise ``error`` when none
    is."""
    at = getattr(_deadline, "at", None)
    if at is None:
        return timeout
    left = float(at) - time.monotonic()
    if left <= 0:
        raise error("the download's deadline has passed")
    return min(timeout if timeout is not None else math.inf, left)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _bounded(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _bounded(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._stream.start_tls(ssl_context, server_hostname, bounded))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self, backend: httpcore.NetworkBackend) -> None:
        self._backend = backend

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(
            self._backend.connect_tcp(host, port, bounded, local_address, socket_options)
        )

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._backend.connect_unix_socket(path, bounded, socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


def _conditional_headers(cached: Copy | None) -> dict[str, str]:
    headers: dict[str, str] = {}
    if cached and cached.etag:
        headers["If-None-Match"] = cached.etag
    if cached and cached.last_modified:
        headers["If-Modified-Since"] = cached.last_modified
    return headers


def _with_validators(copy: Copy, response: httpx.Response) -> Copy:
    # A 304 may carry fresh validators; keep the old ones when it does not.
    etag = response.headers.get("etag") or copy.etag
    last_modified = response.headers.get("last-modified") or copy.last_modified
    return Copy(copy.body, etag, last_modified)


def _check_content_type(url: str, response: httpx.Response) -> None:
    header = response.headers.get("content-type")
    if not header:
        return
    media = header.split(";", 1)[0].strip().lower()
    if media in _ALLOWED_TYPES or media.endswith(("+json", "+yaml")):
        return
    hint = (
        " (a web page? link the raw file, e.g. raw.githubusercontent.com)"
        if "html" in media
        else ""
    )
    raise FetchError(url, f"the server sent {media}, not a JSON or YAML result file{hint}")


def _status_text(response: httpx.Response) -> str:
    phrase = response.reason_phrase
    return f"HTTP {response.status_code} {phrase}".rstrip()


def _retry_after(response: httpx.Response) -> float | None:
    # Only the delta-seconds form; an HTTP date falls back to the normal backoff.
    value = response.headers.get("retry-after", "").strip()
    return float(value) if value.isdigit() else None


def _timeout_reason(exc: httpx.TimeoutException, timeout_s: float) -> str:
    if isinstance(exc, httpx.ConnectTimeout):
        return f"could not connect within {timeout_s:g} s"
    if isinstance(exc, httpx.ReadTimeout):
        return f"no data from the server for {timeout_s:g} s (timed out)"
    return f"timed out after {timeout_s:g} s"


def _connect_reason(exc: httpx.ConnectError) -> str:
    tls = _find_cause(exc, ssl.SSLError)
    if isinstance(tls, ssl.SSLCertVerificationError) and tls.verify_message:
        return f"TLS failure: the server's certificate is not trusted ({tls.verify_message})"
    if tls is not None or "SSL" in str(exc):
        return f"TLS failure: {_exception_text(tls or exc)}"
    return f"cannot connect ({_exception_text(exc)})"


def _find_cause(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    seen = 0
    current: BaseException | None = exc
    while current is not None and seen < 10:
        if isinstance(current, kind):
            return current
        current = current.__cause__ or current.__context__
        seen += 1
    return None


def _exception_text(exc: BaseException) -> str:
    text = str(exc).strip()
    # ssl messages end in "(_ssl.c:1006)", which tells a user nothing.
    if text.endswith(")") and "(_ssl.c:" in text:
        text = text[: text.rfind("(_ssl.c:")].strip()
    return text or type(exc).__name__


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """The certificates httpx trusts by default (SSL_CERT_FILE or SSL_CERT_DIR, else certifi's),
    loaded once a process: a client of its own loads them again, the same each time (a process
    that collects more than once, as the tests do, paid for it at every collect)."""
    return httpx.create_ssl_context()


def make_client(settings: FetchSettings) -> httpx.Client:
    """The production client: one per collect, so connections to one host are reused, its
    sockets held to each download's deadline."""
    transport = httpx.HTTPTransport(verify=_tls_context())
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    # httpx offers no public way to choose the network backend; a test fails if this ever stops
    # working.
    if isinstance(backend, httpcore.NetworkBackend):
        pool._network_backend = _DeadlineBackend(backend)  # type: ignore[union-attr]
    return httpx.Client(
        transport=transport,
        timeout=settings.timeout(),
        follow_redirects=False,
        headers={
            "User-Agent": f"sitegen/{__version__}",
            "Accept": "application/json, application/yaml, text/yaml, text/plain;q=0.9, */*;q=0.1",
        },
    )


# --- sources to runs ---------------------------------------------------------------


@dataclass(frozen=True)
class RemoteRun:
    id: str
    origin: str
    document: Document


@dataclass
class RemoteReport:
    runs: list[RemoteRun] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def gather_remote(
    sources: Sequence[RemoteSource],
    cache_dir: Path,
    check: Check,
    *,
    offline: bool = False,
    client: httpx.Client | None = None,
    settings: FetchSettings | None = None,
    progress: Progress | None = None,
    sleep: Callable[[float], None] = time.sleep,
    budget_s: float | None = None,
) -> RemoteReport:
    """Fetch (or, offline, load from the cache) and check every source; never raises for a source.

    ``budget_s`` (sitegen.yaml's setting) replaces the settings' time budget of all fetches.
    """
    settings = settings or DEFAULT_SETTINGS
    if budget_s is not None:
        settings = replace(settings, budget_s=budget_s)
    report = RemoteReport()
    with ExitStack() as stack:
        fetcher = None
        if not offline:
            if client is None:
                client = stack.enter_context(make_client(settings))
            fetcher = Fetcher(client, settings, progress=progress, sleep=sleep)
        collector = _Collector(RemoteCache(cache_dir), fetcher, check, report)
        for source in sources:
            collector.collect(source)
            stages.advance()  # the collect's "fetching sources" stage (progress.py)
    return report


def source_id(source: RemoteSource) -> tuple[str, Problem | None]:
    """The run id: the source's ``id``, else a slug of the URL's file name."""
    if source.id:
        return source.id, check_id(source.id, source.url)
    name = PurePosixPath(httpx.URL(source.url).path).name.lower()
    for suffix in (".gz", ".json", ".yaml", ".yml"):
        name = name.removesuffix(suffix)
    run_id = suggest_id(name)
    return run_id, check_id(run_id, source.url)


class _Collector:
    """One source at a time: fresh copy if good, else the last good copy, else a problem."""

    def __init__(
        self, cache: RemoteCache, fetcher: Fetcher | None, check: Check, report: RemoteReport
    ) -> None:
        self.cache = cache
        self.fetcher = fetcher
        self.check = check
        self.report = report

    def collect(self, source: RemoteSource) -> None:
        try:
            run_id, problem = source_id(source)
        except httpx.InvalidURL as exc:
            self.report.problems.append(Problem(source.url, None, "", f"not a valid URL ({exc})"))
            return
        if problem:
            self.report.problems.append(problem)
            return
        urls = [source.url] + ([source.meta] if source.meta else [])
        cached = {url: self.cache.load(url) for url in urls}
        if self.fetcher is None:
            self._offline(source, run_id, urls, cached)
            return
        try:
            fetched = [
                self.fetcher.fetch(
                    url, cached[url], max_bytes=_limit(source, url, self.fetcher.settings)
                )
                for url in urls
            ]
        except FetchError as error:
            self._fall_back(
                source, run_id, urls, cached, error.url, f"cannot fetch: {error.reason}"
            )
            return
        document, problems = _build(source, [copy.body for copy in fetched], self.check)
        if document is None:
            reason = f"the fetched file is not valid ({_summary(problems)})"
            self._fall_back(source, run_id, urls, cached, source.url, reason, problems)
            return
        self._remember(urls, fetched, cached)
        self.report.runs.append(RemoteRun(run_id, redact_text(source.url), document))

    def _offline(
        self, source: RemoteSource, run_id: str, urls: list[str], cached: dict[str, Copy | None]
    ) -> None:
        missing = [url for url in urls if cached[url] is None]
        if missing:
            advice = (
                "not in the cache (--offline); run `sitegen collect` without --offline to fetch it"
            )
            self.report.problems.extend(Problem(url, None, "", advice) for url in missing)
            return
        document, problems = _build(source, [_body(cached[url]) for url in urls], self.check)
        if document is None:
            self.report.problems.extend(problems)
            return
        self.report.runs.append(RemoteRun(run_id, redact_text(source.url), document))

    def _fall_back(
        self,
        source: RemoteSource,
        run_id: str,
        urls: list[str],
        cached: dict[str, Copy | None],
        url: str,
        reason: str,
        problems: list[Problem] | None = None,
    ) -> None:
        if any(cached[u] is None for u in urls):
            # Without a good copy the source's own problems say most; a fetch failure needs saying.
            fallback = Problem(url, None, "", f"{reason}; no cached copy to fall back on")
            self.report.problems.extend(problems or [fallback])
            return
        document, cached_problems = _build(source, [_body(cached[u]) for u in urls], self.check)
        if document is None:
            stale = f"{reason}, and the cached copy no longer passes the checks"
            self.report.problems.append(Problem(url, None, "", stale))
            self.report.problems.extend(cached_problems)
            return
        self.report.warnings.append(
            Problem(url, None, "", f"{reason}; using the last good copy from the cache")
        )
        self.report.runs.append(RemoteRun(run_id, redact_text(source.url), document))

    def _remember(
        self, urls: list[str], fetched: list[Copy], cached: dict[str, Copy | None]
    ) -> None:
        # Called only once the bodies parsed and validated: the cache holds good copies only.
        for url, copy in zip(urls, fetched, strict=True):
            if copy == cached[url]:
                continue
            try:
                self.cache.store(url, copy)
            except (OSError, SitegenError) as exc:
                self.report.warnings.append(
                    Problem(
                        url,
                        None,
                        "",
                        f"could not update the cache in "
                        f"{self.cache.folder}: {getattr(exc, 'strerror', None) or exc}",
                    )
                )


def _limit(source: RemoteSource, url: str, settings: FetchSettings) -> int:
    # The results file of a {url, meta} source is raw tool output; the rest are result files or
    # run.yaml.
    return settings.raw_max_bytes if source.meta and url == source.url else settings.max_bytes


def _body(copy: Copy | None) -> bytes:
    assert copy is not None  # callers check that every URL has a copy
    return copy.body


def _build(
    source: RemoteSource, bodies: list[bytes], check: Check
) -> tuple[Document | None, list[Problem]]:
    """Parse (and adapt raw output), then check; a document only when there are no problems."""
    try:
        if source.meta or bodies[0].startswith(_GZIP_MAGIC):
            # Raw tool output: larger limits and gzip (lil-bench saves .json.gz) are the adapter's.
            records = adapters.parse_records(source.url, bodies[0])
            meta = _parse(source.meta, bodies[1]) if source.meta else None
            # JSON Lines (SGLang, llama-bench) hold several records; a JSON file one.
            document = (
                adapters.adapt_raw(records[0], meta, source.url)
                if len(records) == 1
                else adapters.adapt_records(records, meta, source.url)
            )
        else:
            document = _parse(source.url, bodies[0])
            if _looks_raw(document.data):
                document = adapters.adapt_raw(document, None, source.url)
        document, problems = check(document)
    except SitegenError as error:
        return None, error.problems
    return (None, problems) if problems else (document, [])


def _parse(url: str, body: bytes) -> Document:
    # By the URL's path, not the whole string, so that a query string does not hide ".json".
    path = urlsplit(url).path.lower()
    return parse_json(url, body) if path.endswith(".json") else parse_yaml(url, body)


def _looks_raw(data: object) -> bool:
    """Raw output of a tool sitegen reads, not a result file (the registry decides which)."""
    return registry.recognise(data) is not None


def _summary(problems: list[Problem]) -> str:
    first = problems[0]
    where = f"line {first.line}: " if first.line is not None else ""
    pointer = f"{first.pointer}: " if first.pointer else ""
    more = f"; {len(problems) - 1} more" if len(problems) > 1 else ""
    return f"{where}{pointer}{first.message}{more}"
