"""Page weight: a run page is light enough for a slow phone connection and readable with no
JavaScript. That scripts load only where they are used (site.js, never the chart library up
front) is checked on every kind of page by test_browser.py, and that vega.js waits for a click
on "Interactive" by its interactive-upgrade test."""

from __future__ import annotations

import gzip
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.kit.browser import Browsing

BUDGET = 60 * 1024  # bytes over the wire (gzip) for a run page's HTML, CSS and any chart images


class _References(HTMLParser):
    """What a page makes the browser fetch before it can be read."""

    def __init__(self) -> None:
        super().__init__()
        self.stylesheets: list[str] = []
        self.scripts: list[tuple[str, bool]] = []  # (src, deferred)
        self.images: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "link" and values.get("rel") == "stylesheet" and values.get("href"):
            self.stylesheets.append(values["href"] or "")
        elif tag == "script" and values.get("src"):
            self.scripts.append((values["src"] or "", "defer" in values or "async" in values))
        elif tag == "img" and values.get("src"):
            self.images.append(
                values["src"] or ""
            )  # the default (light) chart; <source>s are alternatives


def gzipped(path: Path) -> int:
    return len(
        gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)
    )  # a web server's usual level


def test_every_run_page_fits_the_weight_budget(built_site: Path) -> None:
    weights = {}
    charted = 0
    for page in sorted(built_site.glob("runs/*/index.html")):
        refs = _References()
        html = page.read_text(encoding="utf-8")
        refs.feed(html)
        assert refs.stylesheets, f"{page}: no stylesheet"
        files = [page] + [
            page.parent / urlsplit(url).path for url in refs.stylesheets + refs.images
        ]  # relative links
        weights[page.parent.name] = sum(gzipped(file) for file in files)
        charted += html.count("<div class=bar-row>")  # the prefill bars are part of the page itself
        # Scripts are not part of reading the page: the site's enhancement script and the run
        # page's own (its tables from the run JSON), deferred.
        assert [urlsplit(src).path for src, _ in refs.scripts] == [
            "../../assets/site.js",
            "../../assets/run.js",
        ], refs.scripts
        assert all(deferred for _, deferred in refs.scripts)
    assert charted, "no run page shows its prefill bars, so the budget checks too little"
    heaviest = max(weights, key=lambda run: weights[run])
    assert weights[heaviest] <= BUDGET, (
        f"{heaviest}: {weights[heaviest] / 1024:.1f} KB gzip, over {BUDGET // 1024} KB"
    )


@pytest.mark.browser
def test_run_page_reads_without_javascript(browse: Browsing, site_pages: dict[str, str]) -> None:
    visit = browse.open_kind(site_pages, "run", javascript=False)
    shown = visit.js("""() => Object.fromEntries(["h1", "table.matrix", "table.data",
        "figure.bars .bar-row i", "pre.command"]
        .map((selector) => { const el = document.querySelector(selector);
                             return [selector, !!el && el.checkVisibility()
                                 && el.getBoundingClientRect().height > 0]; }))""")
    assert all(shown.values()), shown
    assert not visit.requested(".js"), "with JavaScript off the browser fetches no script"
    visit.assert_clean()
