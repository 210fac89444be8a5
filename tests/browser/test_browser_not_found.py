"""The 404 page under a project path, as GitHub Pages serves a site at ``owner.github.io/repo/``
with no site_url set: the host answers any missing address under ``/a/b/`` with the site's
404.html (status 404), and addresses outside it with a 404 page of its own. In chromium, the
page is styled at any depth, and its links lead to the site's root, ``/a/b/``."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

import pytest

from tests.kit.browser import Browsing, _SiteHandler
from tests.kit.network import running
from tests.kit.project import REPO

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

PREFIX = "/a/b/"


class _ProjectSite(_SiteHandler):
    """The built site under PREFIX only; the host's own plain 404 anywhere else."""

    def translate_path(self, path: str) -> str:
        if not urlsplit(path).path.startswith(PREFIX):
            return str(Path(str(self.directory)) / "no such file")
        return super().translate_path("/" + path[len(PREFIX) :])

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        if urlsplit(self.path).path.startswith(PREFIX):
            super().send_error(code, message, explain)
        else:
            SimpleHTTPRequestHandler.send_error(self, code, message, explain)


@contextmanager
def _served_under_prefix(folder: Path) -> Iterator[str]:
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_ProjectSite, directory=str(folder))
    )
    server.daemon_threads = True
    with running(server):
        yield f"http://127.0.0.1:{server.server_port}"


@pytest.fixture
def project_browse(built_site: Path, browser: Browser) -> Iterator[Browsing]:
    with _served_under_prefix(built_site) as origin:
        browsing = Browsing(browser, origin)
        yield browsing
        browsing.close()


def _background(scheme: str) -> str:
    """The page background style.css gives the scheme, read from the stylesheet itself."""
    css = (REPO / "templates" / "static" / "style.css").read_text(encoding="utf-8")
    blocks = css.split("@media screen and (prefers-color-scheme: dark)")
    block = blocks[0] if scheme == "light" else blocks[1]
    found = re.search(r"--bg:\s*#([0-9a-f]{6})", block)
    assert found, "style.css sets --bg"
    red, green, blue = (int(found[1][i : i + 2], 16) for i in (0, 2, 4))
    return f"rgb({red}, {green}, {blue})"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_404_page_under_a_project_path_is_styled_and_leads_home(
    project_browse: Browsing, scheme: str
) -> None:
    visit = project_browse.open(PREFIX + "x/y/", status=404, scheme=scheme)
    page = visit.page
    assert page.evaluate("() => getComputedStyle(document.body).backgroundColor") == _background(
        scheme
    )
    page.wait_for_function("() => document.documentElement.hasAttribute('data-root-found')")
    links = page.evaluate(
        "() => Array.from(document.querySelectorAll('a[href]:not([href^=\"#\"])'))"
        ".map((a) => a.getAttribute('href'))"
    )
    assert links and all(link.startswith(PREFIX) for link in links), links
    assert page.evaluate(
        "() => document.querySelector('link[rel=icon]').getAttribute('href')"
    ).startswith(PREFIX + "assets/favicon.svg")
    assert visit.csp_violations() == []
    home = page.get_by_role("link", name="See all runs")
    assert home.get_attribute("href") == PREFIX
    with page.expect_navigation():
        home.click()
    assert urlsplit(page.url).path == PREFIX
    assert page.locator("h1").first.inner_text().strip() != "Page not found"
    # not-found.js was asked for from every folder above the address; only the root's copy is
    # there, and nothing else of the page failed.
    address = project_browse.origin + PREFIX + "x/y/"
    looked_in = {urljoin(address, "../" * depth + "assets/not-found.js") for depth in range(8)}
    found = project_browse.origin + PREFIX + "assets/not-found.js"
    assert found in looked_in and len(looked_in) == 5  # /a/b/x/y/, /a/b/x/, /a/b/, /a/, /
    assert {url.split("?")[0] for url in visit.requests if "not-found.js" in url} == looked_in
    assert [
        problem
        for problem in visit.problems
        if not any(url in problem for url in looked_in - {found})
    ] == []


def test_without_javascript_the_404_page_is_styled_and_links_from_the_host_root(
    project_browse: Browsing,
) -> None:
    visit = project_browse.open(PREFIX + "runs/no-such-run/deeper/", status=404, javascript=False)
    assert visit.js("() => getComputedStyle(document.body).backgroundColor") == _background("light")
    assert visit.page.get_by_role("link", name="See all runs").get_attribute("href") == "/"
    assert visit.requests == [
        visit.origin + PREFIX + "runs/no-such-run/deeper/"
    ]  # nothing else to fetch
    visit.assert_clean()


def test_at_the_host_root_the_404_page_finds_the_root_at_once(
    browse: Browsing, site_pages: dict[str, Any]
) -> None:
    visit = browse.open(site_pages["404"], status=404)
    visit.page.wait_for_function("() => document.documentElement.hasAttribute('data-root-found')")
    assert visit.page.get_by_role("link", name="See all runs").get_attribute("href") == "/"
    # Its own folder, then the root: the seven copies there are one request. (The full browser
    # also fetches the favicon, the headless shell does not: the browser's doing, not the page's.)
    assert sorted(
        path
        for path in (urlsplit(url).path for url in visit.requests)
        if path != "/assets/favicon.svg"
    ) == sorted(
        [
            site_pages["404"],
            site_pages["404"] + "assets/not-found.js",
            "/assets/not-found.js",
        ]
    )
    visit.assert_clean()
