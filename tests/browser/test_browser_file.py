"""The built site opened from disk (file://) in headless chromium, as README says to open it:
the stylesheet applies, the page shows what it shows when served, and every internal link
(pages, assets, charts, downloads) resolves to a file of the site, not a folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

import pytest

from tests.kit.browser import TIMEOUT_MS
from tests.kit.paging_rule import site_pages
from tests.kit.project import PAGED_INDEX_SIZE, SEED_RUN_ID

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

pytestmark = pytest.mark.browser

# Every address the page's markup refers to, resolved by the browser against the page's own address.
_REFERENCES = """() => {
  const urls = [];
  const referring = "[href], [src], [data-spec], [data-result], [data-setups], source[srcset]";
  for (const el of document.querySelectorAll(referring)) {
    for (const name of ["href", "src", "data-spec", "data-result", "data-setups"]) {
      const value = el.getAttribute(name);
      if (value !== null && !(el.tagName === "A" && name === "href" && value.startsWith("#"))) {
        urls.push(new URL(value, document.baseURI).href);
      }
    }
    if (el.hasAttribute("srcset")) {
      for (const part of el.getAttribute("srcset").split(",")) {
        urls.push(new URL(part.trim().split(" ")[0], document.baseURI).href);
      }
    }
  }
  return urls;
}"""


class Disk:
    """Pages opened from disk in one browser context, with every failed request and console
    error."""

    def __init__(self, context: BrowserContext) -> None:
        self.context = context
        self.failures: list[str] = []
        context.on(
            "requestfailed",
            lambda request: self.failures.append(f"{request.url}: {request.failure}"),
        )

    def open(self, file: Path) -> Page:
        page = self.context.new_page()
        page.on(
            "console",
            lambda message: (
                self.failures.append(f"console: {message.text}")
                if message.type == "error"
                else None
            ),
        )
        page.on("pageerror", lambda error: self.failures.append(f"script error: {error}"))
        page.goto(file.as_uri(), wait_until="load")
        return page


@pytest.fixture
def disk(browser: Browser) -> Iterator[Disk]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    try:
        yield Disk(context)
    finally:
        context.close()


@pytest.fixture(scope="module")
def paged_site(shipped_paged: Path) -> Path:
    """The shipped site with pages of 3 runs on average, so its index has page/2/ and page/3/
    (tests/kit/paging_rule.py: 3, 6 and 1 runs), built once a session (conftest)."""
    return shipped_paged / "_site"


@pytest.mark.parametrize(
    "relative",
    [
        "index.html",
        f"runs/{SEED_RUN_ID}/index.html",
        "compare/index.html",
        "capacity/index.html",
        "at/32k-16/index.html",
        "models/index.html",
    ],
)
def test_opened_from_disk_the_page_is_styled_and_every_link_is_a_file(
    disk: Disk, built_site: Path, relative: str
) -> None:
    _styled_and_every_link_a_file(disk, built_site, relative)


@pytest.mark.parametrize("relative", ["index.html", "page/2/index.html", "page/3/index.html"])
def test_the_index_pages_from_disk_are_styled_and_every_link_is_a_file(
    disk: Disk, paged_site: Path, relative: str
) -> None:
    _styled_and_every_link_a_file(disk, paged_site, relative)


def _styled_and_every_link_a_file(disk: Disk, built_site: Path, relative: str) -> None:
    page = disk.open(built_site / relative)
    # style.css sets the header's surface and the page's layout; unstyled, the header is
    # transparent.
    header = page.evaluate(
        "() => getComputedStyle(document.querySelector('.site-header')).backgroundColor"
    )
    assert header not in ("rgba(0, 0, 0, 0)", "transparent"), "the stylesheet did not apply"
    assert (
        page.evaluate(
            "() => getComputedStyle(document.querySelector('.site-header .wrap')).display"
        )
        == "flex"
    )
    urls = page.evaluate(_REFERENCES)
    internal = [url for url in urls if urlsplit(url).scheme == "file"]
    assert len(internal) > 5, urls
    site = built_site.resolve()
    for url in internal:
        target = Path(unquote(urlsplit(url).path))
        assert target.resolve().is_relative_to(site), f"{relative}: {url} leaves the site"
        assert target.is_file(), f"{relative}: {url} is not a file of the site"
    assert not [
        url for url in urls if urlsplit(url).scheme not in ("file", "http", "https", "mailto")
    ], urls
    assert not disk.failures, disk.failures  # the stylesheet, script and images all loaded


def test_links_followed_from_disk_reach_the_pages(disk: Disk, built_site: Path) -> None:
    page = disk.open(built_site / "index.html")
    page.locator(f"a[href='runs/{SEED_RUN_ID}/index.html']").first.click()
    page.wait_for_load_state("load")
    assert page.url == (built_site / "runs" / SEED_RUN_ID / "index.html").as_uri()
    assert page.locator("h1").inner_text().strip()
    page.locator("header.site-header a.brand").click()  # and back home through the header
    page.wait_for_load_state("load")
    assert page.url == (built_site / "index.html").as_uri()
    assert not disk.failures, disk.failures


def test_the_compare_picker_from_disk_says_it_needs_a_server(disk: Disk, built_site: Path) -> None:
    page = disk.open(built_site / "compare" / "index.html")
    options = page.locator("#compare-form select[name=add] option:not([value=''])")
    first, second = options.nth(0).get_attribute("value"), options.nth(1).get_attribute("value")
    assert first and second
    page.select_option("#compare-form select[name=add]", first)
    page.select_option("#compare-form select[name=add]", second)
    page.wait_for_function(
        "() => document.getElementById('compare-result').textContent.includes('HTTP')"
    )
    assert "needs the site served over HTTP" in page.locator("#compare-result").inner_text()


def test_the_index_filters_work_from_disk(disk: Disk, built_site: Path) -> None:
    page = disk.open(built_site / "index.html")
    rows = page.locator("table[data-filterable='true'] tbody tr")
    total = rows.count()
    engine = page.locator("#filters select[name=engine]")
    engine.select_option(index=1)
    wanted = engine.locator("option").nth(1).get_attribute("value")
    assert wanted and page.url.endswith(
        f"index.html?engine={wanted}"
    )  # kept in the address, from disk too
    shown = [row for row in rows.all() if row.is_visible()]
    assert 0 < len(shown) < total
    assert all(engine_of(row) == wanted for row in shown)
    assert not disk.failures, disk.failures


def engine_of(row: Any) -> str:
    """The engine a row shows (its Engine cell, without the version), as the filter spells it;
    the row's data-f (model|accelerator|engine|quantization) must say the same."""
    shown = row.locator("td").nth(1).inner_text().strip().lower()
    engine = (row.get_attribute("data-f") or "").split("|")[2]
    assert shown == engine or shown.startswith(engine + " "), (shown, engine)
    return engine


def test_the_second_index_page_from_disk_links_and_filters(disk: Disk, paged_site: Path) -> None:
    page = disk.open(paged_site / "page" / "2" / "index.html")
    rows = page.locator("table[data-filterable='true'] tbody tr")
    on_page = sum(
        count for _, count in site_pages(paged_site, PAGED_INDEX_SIZE)[1]
    )  # tests/kit/paging_rule.py
    assert rows.count() == on_page > 1
    # Its own runs, filtered in the page (fetch is blocked from disk), saying what it searched.
    engine = page.locator("#filters select[name=engine]")
    values = {engine_of(rows.nth(i)) for i in range(rows.count())}
    engine.select_option(index=1)
    wanted = engine.locator("option").nth(1).get_attribute("value")
    assert wanted in values
    shown = [row for row in rows.all() if row.is_visible()]
    assert shown and all(engine_of(row) == wanted for row in shown)
    assert "on this page" in page.locator("#shown-count").inner_text()
    page.locator("#filters button[type=reset]").click()
    page.wait_for_function(
        f"() => document.querySelectorAll('table[data-filterable] tbody tr').length === {on_page}"
    )
    # A run of this page, then back and on through the pager.
    first = rows.first.locator("th a").first
    run_id = first.get_attribute("href")
    assert run_id and run_id.startswith("../../runs/")
    first.click()
    page.wait_for_load_state("load")
    assert page.url == (paged_site / "page" / "2" / run_id).resolve().as_uri()
    page.go_back(wait_until="load")
    page.locator("nav.pager a[rel=next]").click()
    page.wait_for_load_state("load")
    assert page.url == (paged_site / "page" / "3" / "index.html").as_uri()
    page.locator("nav.pager a[rel=prev]").click()
    page.wait_for_load_state("load")
    page.locator("nav.pager a[rel=prev]").click()
    page.wait_for_load_state("load")
    assert page.url == (paged_site / "index.html").as_uri()
    # Clicking on before a page has loaded its icon aborts that request; a missing file would
    # fail otherwise (ERR_FILE_NOT_FOUND).
    assert not [f for f in disk.failures if not f.endswith("net::ERR_ABORTED")], disk.failures


def test_the_operating_point_presets_work_from_disk(disk: Disk, built_site: Path) -> None:
    # Without JavaScript the presets are links to static views; from disk they must reach them.
    page = disk.open(built_site / "index.html")
    presets = page.locator("nav.presets a[data-point]")
    names = sorted(p.name for p in (built_site / "at").iterdir())
    assert presets.count() == len(names) > 0
    hrefs = [presets.nth(i).get_attribute("href") for i in range(presets.count())]
    assert sorted(href.split("/")[1] for href in hrefs if href) == names
    page.close()
    # The static view (what a reader without JavaScript opens), and from it the run pages.
    view = disk.open(built_site / "at" / "32k-16" / "index.html")
    assert "32K" in view.locator("h1").inner_text()
    run_link = view.locator("table a[href^='../../runs/']").first
    run_link.click()
    view.wait_for_load_state("load")
    assert urlsplit(view.url).path.endswith("/index.html") and "/runs/" in view.url
    view.locator(
        "header.site-header nav a", has_text="Capacity"
    ).click()  # the nav reaches /capacity/
    view.wait_for_load_state("load")
    assert view.url == (built_site / "capacity" / "index.html").as_uri()
    assert not disk.failures, disk.failures


def test_the_point_picker_from_disk_says_it_needs_a_server(disk: Disk, built_site: Path) -> None:
    # Browsers block fetch() on file://: the picker says so, and points at the static presets.
    page = disk.open(built_site / "index.html")
    page.goto(
        (built_site / "index.html").as_uri() + "?context=32768&concurrency=16", wait_until="load"
    )
    page.wait_for_function(
        "() => document.getElementById('point-status').textContent.includes('HTTP')"
    )
    assert "needs the site served over HTTP" in page.locator("#point-status").inner_text()


def test_a_model_page_from_disk_keeps_its_one_decode_chart_and_says_where_the_others_are(
    disk: Disk, built_site: Path
) -> None:
    # group.js cannot fetch /data/points/ from disk: the page shows what it shows without
    # JavaScript.
    page = next(
        p
        for p in sorted((built_site / "models").glob("*/index.html"))
        if "data-plots" in p.read_text()
    )
    opened = disk.open(page)
    opened.wait_for_function(
        "() => document.getElementById('decode-more').textContent.includes('from disk')"
    )
    assert opened.locator("#decode figure.plot").count() == 1
    note = opened.locator("#decode-more").inner_text()
    assert (
        "drawn by your browser" in note
        and "every run's page has a chart at each of its contexts" in note
    )
    assert "serve the site" in note
