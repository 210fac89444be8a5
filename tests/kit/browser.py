"""What the browser tests share: the built site served on 127.0.0.1, and pages opened in
Debian's chromium through Playwright with every request, console error and CSP violation
recorded, so a test can say "this page loaded cleanly" in one line.

Chromium is launched by its path: Playwright's own browser downloads are not available
where the tests run (see .ci/run, which installs Debian's package). Its headless shell
(Debian's chromium-headless-shell, the build Playwright itself runs for headless tests) is
preferred: the same Blink and V8 without the browser's user interface, it takes far less of
the processor for these tests (docs/performance-log.md); the full ``chromium`` is the
fallback.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import urlsplit

import pytest

from tests.kit.network import running

if TYPE_CHECKING:
    from playwright.sync_api import (
        Browser,
        BrowserContext,
        ConsoleMessage,
        Page,
        Request,
        Response,
        Route,
    )

DESKTOP = 1280
PHONE = 390
TIMEOUT_MS = 10_000  # every wait is bounded: a local page that takes longer than this is broken
CHROMIUM_ARGS = [
    "--no-sandbox",  # CI runs as root in a container, where chromium's sandbox cannot start
    "--disable-gpu",
    # Nothing but the page under test may touch the network.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Records CSP violations in the page: the upgrade to interactive charts must run under the
# site's strict policy, and a violation is otherwise only a console line.
_CSP_PROBE = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(event.violatedDirective
      + " blocked " + (event.blockedURI || "inline code"));
});
"""


def require(what: str, hint: str) -> NoReturn:
    """Skip when a browser-test tool is missing on a developer machine, but fail in CI,
    where a skipped browser test would hide exactly what these tests exist to catch."""
    message = f"{what} is not available; {hint}"
    if os.environ.get("CI", "").lower() in ("true", "1"):
        pytest.fail(message)
    pytest.skip(message)


# The headless shell's binary itself: /usr/bin/chromium-headless-shell is a shell script that
# runs it without exec, so closing the browser would end only the script.
HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"


def chromium_path() -> str | None:
    """The browser to launch: SITEGEN_CHROMIUM, else the headless shell, else chromium."""
    candidates = [
        os.environ.get("SITEGEN_CHROMIUM"),
        HEADLESS_SHELL,
        shutil.which("chromium"),
        "/usr/bin/chromium",
    ]
    return next((c for c in candidates if c and Path(c).is_file()), None)


class _SiteHandler(SimpleHTTPRequestHandler):
    """Static files, with the site's own 404 page for a missing address, as GitHub Pages does."""

    def log_message(self, format: str, *args: Any) -> None:
        pass  # one line per request would bury the test report

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


class _SiteServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # a browser closing a page mid-download is not the site's problem
        super().handle_error(request, client_address)


@contextmanager
def serve(folder: Path) -> Iterator[str]:
    """Serve ``folder`` on 127.0.0.1 at a free port; yields the origin, e.g.
    http://127.0.0.1:41234."""
    server = _SiteServer(("127.0.0.1", 0), functools.partial(_SiteHandler, directory=str(folder)))
    with running(server):
        yield f"http://127.0.0.1:{server.server_port}"


PAGE_KINDS = (
    "index",
    "run",
    "model",
    "hardware",
    "models",
    "compare-app",
    "setup",
    "404",
)


def page_addresses(site: Path, run_id: str) -> dict[str, str]:
    """One address of every kind of page of a built site: of several, the fullest one, so
    the checks see as much of the site as one page can show."""

    def fullest(folder: str) -> str:
        def size(page: Path) -> tuple[bool, int, int]:
            # Pages with a chart first: a group of runs of load points only has none.
            html = page.read_text(encoding="utf-8")
            charts = html.count('<figure class="chart"')
            return charts > 0, len(re.findall(r'<tr[^>]*><th><a href="[./]*runs/', html)), charts

        best = max(sorted(site.glob(f"{folder}/*/index.html")), key=size)
        return "/" + best.parent.relative_to(site).as_posix() + "/"

    # The ready-made comparison with the most cells both runs measured as valid: the fullest
    # ratio matrix (each cell a change).
    def valid_cells(run_id: str) -> set[tuple[int, int]]:
        decode = json.loads((site / "runs" / f"{run_id}.json").read_text(encoding="utf-8"))[
            "measurements"
        ]["decode"]
        at = {name: decode["fields"].index(name) for name in ("context_tokens", "concurrency")}
        status = decode["fields"].index("status")
        return {
            (row[at["context_tokens"]], row[at["concurrency"]])
            for row in decode["rows"]
            if row[status] == "valid"
        }

    ready_made = re.findall(
        r'href="[^"]*\?runs=([^",]+),([^",]+)"', (site / "compare" / "index.html").read_text()
    )
    a, b = max(
        sorted(ready_made), key=lambda pair: len(valid_cells(pair[0]) & valid_cells(pair[1]))
    )
    return {
        "index": "/",
        "run": f"/runs/{run_id}/",
        "model": fullest("models"),
        "hardware": fullest("hardware"),
        "models": "/models/",
        "compare-app": f"/compare/?a={a}&b={b}",
        "setup": fullest("setups"),
        "404": "/no-such-page/",
    }


@dataclass
class Visit:
    """One page in its own browser context, and everything it did on the network."""

    page: Page
    origin: str
    requests: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def requested(self, path_part: str) -> bool:
        return any(path_part in urlsplit(url).path for url in self.requests)

    def csp_violations(self) -> list[str]:
        violations: list[str] = self.page.evaluate("() => window.__cspViolations || []")
        return violations

    def assert_clean(self) -> None:
        """No console error, no failed or refused request, no request to another host, no CSP
        violation."""
        problems = self.problems + [f"CSP violation: {v}" for v in self.csp_violations()]
        assert not problems, f"{self.page.url}:\n  " + "\n  ".join(problems)

    def js(self, expression: str, arg: Any = None) -> Any:
        return self.page.evaluate(expression, arg)


class Browsing:
    """Opens pages of the served site, each in a fresh context, and closes them afterwards."""

    def __init__(self, browser: Browser, origin: str) -> None:
        self.browser = browser
        self.origin = origin
        self._contexts: list[BrowserContext] = []

    def context(
        self,
        *,
        javascript: bool = True,
        width: int = DESKTOP,
        scheme: str = "light",
        bypass_csp: bool = False,
    ) -> BrowserContext:
        context = self.browser.new_context(
            viewport={"width": width, "height": 900 if width >= 600 else 844},
            color_scheme=scheme,  # type: ignore[arg-type]
            java_script_enabled=javascript,
            bypass_csp=bypass_csp,
            reduced_motion="reduce",
            service_workers="block",  # so routing sees every request
        )
        context.set_default_timeout(TIMEOUT_MS)
        context.set_default_navigation_timeout(TIMEOUT_MS)
        context.add_init_script(_CSP_PROBE)
        self._contexts.append(context)
        return context

    def open(
        self, path: str, *, status: int = 200, context: BrowserContext | None = None, **options: Any
    ) -> Visit:
        """Load ``path`` and wait until it and everything it references have loaded."""
        context = context or self.context(**options)
        page = context.new_page()
        visit = Visit(page, self.origin)
        url = self.origin + path
        self.watch(visit, document_url=url, document_status=status)
        response = page.goto(url, wait_until="load")
        assert response is not None and response.status == status, (
            f"{url}: HTTP {response and response.status}"
        )
        return visit

    def open_kind(self, pages: dict[str, str], kind: str, **options: Any) -> Visit:
        """Open the page of one kind (see PAGE_KINDS), ready to be looked at."""
        visit = self.open(pages[kind], status=404 if kind == "404" else 200, **options)
        if kind == "compare-app" and options.get("javascript", True):
            # The app fetches both runs' JSON after load, then draws the matrix.
            visit.page.locator("#compare-result table.rt").wait_for()
        if kind in ("model", "hardware") and options.get("javascript", True):
            # group.js draws the decode charts at the other contexts after load, then drops its
            # note.
            visit.page.wait_for_function("() => !document.getElementById('decode-more')")
        return visit

    def watch(self, visit: Visit, document_url: str, document_status: int) -> None:
        page, problems = visit.page, visit.problems
        # Main-frame navigations started so far, and how many had started when each request did:
        # a request that a later navigation aborted (the browser's own favicon fetch, late after
        # a load, when the test clicks a link) was the test's doing, not the site's.
        navigations = [0]
        started: dict[Request, int] = {}

        def on_request(request: Request) -> None:
            visit.requests.append(request.url)
            if request.is_navigation_request() and request.frame == page.main_frame:
                navigations[0] += 1
            started[request] = navigations[0]

        def refuse(route: Route) -> None:
            problems.append(f"request to another host: {route.request.url}")
            route.abort("blockedbyclient")

        def on_console(message: ConsoleMessage) -> None:
            if message.type != "error":
                return
            if (
                document_status != 200
                and message.location.get("url") == document_url
                and str(document_status) in message.text
            ):
                return  # Chrome logs the expected status of the 404 page itself as an error
            if document_status == 404 and _root_search(message.location.get("url", "")):
                return
            problems.append(f"console error: {message.text} ({message.location.get('url')})")

        def on_response(response: Response) -> None:
            expected = document_status if response.url == document_url else 200
            if document_status == 404 and _root_search(response.url):
                return
            if response.status >= 400 and response.status != expected:
                problems.append(f"HTTP {response.status}: {response.url}")

        def on_failed(request: Request) -> None:
            if document_status == 404 and _root_search(request.url):
                return
            if request.failure == "net::ERR_ABORTED" and started.get(request, 0) < navigations[0]:
                return  # left behind by a navigation since (see above)
            if request.url.startswith(self.origin + "/"):  # other hosts are reported by refuse
                problems.append(f"failed request: {request.url} ({request.failure})")

        page.on("request", on_request)
        # Only what is not the site's own is routed (matched in the browser, so the site's own
        # requests do not each make a round trip through Python) and refused.
        page.route(re.compile("^(?!" + re.escape(self.origin + "/") + ")"), refuse)
        page.on("console", on_console)
        page.on("pageerror", lambda error: problems.append(f"uncaught error: {error}"))
        page.on("response", on_response)
        page.on("requestfailed", on_failed)

    def close(self) -> None:
        for context in self._contexts:
            context.close()
        self._contexts.clear()


def _root_search(url: str) -> bool:
    """A copy of not-found.js that the 404 page asks each folder above its address for: all
    but the site root's answer 404, by design (templates/pages/404.html)."""
    return urlsplit(url).path.endswith("/assets/not-found.js")


# In the page: every chart's <img> and how it is drawn. One SVG serves both colour schemes
# (its own style sheet recolours it), so the page has no <picture> and no second file.
CHARTS_JS = """
() => Array.from(document.querySelectorAll("figure.chart")).map((figure) => {
  const img = figure.querySelector("img");
  const box = img ? img.getBoundingClientRect() : null;
  return {
    caption: (figure.querySelector("figcaption") || {}).textContent,
    src: img ? img.currentSrc : null,
    expected: img ? new URL(img.getAttribute("src"), location.href).href : null,
    sources: figure.querySelectorAll("picture, source").length,
    naturalWidth: img ? img.naturalWidth : 0,
    width: box ? box.width : 0,
    height: box ? box.height : 0,
    visible: img ? img.checkVisibility({ visibilityProperty: true, opacityProperty: true }) : false,
    folded: !!figure.closest("details:not([open])"),
  };
})
"""

# The colours of a chart as the page shows it: the <img> drawn onto a canvas (same origin, so
# it can be read back), counting pixels near the light theme's and the dark theme's text colours.
CHART_INK_JS = """
([src, light, dark]) => new Promise((resolve, reject) => {
  const img = new Image();
  img.onload = () => {
    const canvas = document.createElement("canvas");
    canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
    const context = canvas.getContext("2d");
    context.drawImage(img, 0, 0);
    const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
    const near = (i, [r, g, b]) => Math.abs(data[i] - r)
        + Math.abs(data[i + 1] - g) + Math.abs(data[i + 2] - b) < 40;
    let lightInk = 0, darkInk = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3] < 200) continue;
      if (near(i, light)) lightInk++;
      if (near(i, dark)) darkInk++;
    }
    resolve({ light: lightInk, dark: darkInk });
  };
  img.onerror = () => reject(new Error("could not load " + src));
  img.src = src;
})
"""


def chart_problems(charts: list[dict[str, Any]]) -> list[str]:
    """What is wrong with the charts CHARTS_JS found: not loaded, a second file, or not drawn."""
    problems = []
    for chart in charts:
        name = f"chart '{chart['caption']}' ({chart['src']})"
        if not chart["src"]:
            problems.append(f"{name}: no image")
        elif chart["naturalWidth"] <= 0:
            problems.append(f"{name}: the SVG did not load (naturalWidth 0)")
        elif chart["src"] != chart["expected"] or chart["sources"]:
            problems.append(
                f"{name}: shows {chart['src']} of {chart['sources']} <picture>/<source>, not its "
                f"one file"
            )
        elif not chart["folded"] and not (
            chart["visible"] and chart["width"] > 0 and chart["height"] > 0
        ):
            problems.append(f"{name}: not visible ({chart['width']}×{chart['height']})")
    return problems
