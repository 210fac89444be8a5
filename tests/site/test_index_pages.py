"""The index in pages: every run reachable from / by following links with JavaScript off,
each page the size the paging rule gives (tests/kit/paging_rule.py) whatever the number of runs, and
the search index holding the very rows the pages show. The pages are made small (3 runs on
average, at most 6) so the 10 shipped runs need three."""

from __future__ import annotations

import gzip
import itertools
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from tests.kit.html_tables import tables
from tests.kit.paging_rule import model_runs, site_pages
from tests.kit.project import PAGED_INDEX_SIZE, REPO
from tests.kit.search_index import search_runs

PAGE_SIZE = PAGED_INDEX_SIZE


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.links.append(href)


def links(html: str) -> list[str]:
    parser = _Links()
    parser.feed(html)
    return parser.links


@pytest.fixture
def paged_site(shipped_paged: Path) -> Path:
    """The shipped site with short index pages, built once a session (conftest): read only."""
    return shipped_paged / "_site"


def shipped_runs() -> set[str]:
    return {p.stem for p in (REPO / "content" / "runs").glob("*.yaml")} | {
        p.name for p in (REPO / "content" / "runs").iterdir() if p.is_dir()
    }


def test_every_run_is_reachable_from_the_front_page_without_javascript(paged_site: Path) -> None:
    """A crawler that follows <a href> from / (no script) reaches every run's page. Links are
    relative and name files, so each is resolved against the file it is in."""
    seen: set[str] = set()
    queue = ["/index.html"]
    for _ in range(2000):  # bounded: the site has a few dozen pages
        if not queue:
            break
        path = queue.pop()
        if path in seen:
            continue
        seen.add(path)
        file = paged_site / path.lstrip("/")
        if file.suffix != ".html" or not file.is_file():
            continue
        for href in links(file.read_text(encoding="utf-8")):
            url = urlsplit(urljoin("http://site" + path, href))
            if url.netloc == "site" and url.path not in seen:
                queue.append(url.path)
    else:
        pytest.fail("the crawl did not end")
    reached = {
        m.group(1) for path in seen if (m := re.fullmatch(r"/runs/([^/]+)/index.html", path))
    }
    assert reached == shipped_runs()
    count = len(site_pages(paged_site, PAGE_SIZE))
    assert count > 1  # the shipped runs, pages of 3 on average ended where a model ends
    assert {f"/page/{number}/index.html" for number in range(2, count + 1)} <= seen
    assert f"/page/{count + 1}/index.html" not in seen


def test_each_page_of_the_index_holds_its_share_of_the_runs(paged_site: Path) -> None:
    runs = shipped_runs()
    expected = site_pages(paged_site, PAGE_SIZE)
    model_of = {run_id: key for key, ids in model_runs(paged_site).items() for run_id in ids}
    pages = [
        paged_site / "index.html",
        *(paged_site / "page" / str(n) / "index.html" for n in range(2, len(expected) + 1)),
    ]
    listed: list[str] = []
    for number, (page, parts) in enumerate(zip(pages, expected, strict=True), start=1):
        html = page.read_text(encoding="utf-8")
        root = "" if number == 1 else "../../"  # each page's links are relative to it
        ids = re.findall(rf'<th><a href="{root}runs/([^/"]+)/index.html"', html)
        # The page's models, in order, each with as many runs as the rule gives it.
        assert [
            (key, len(list(same))) for key, same in itertools.groupby(model_of[i] for i in ids)
        ] == parts, page
        assert f"{len(ids)} on this page</span>" in html
        listed += ids
        # Only the first page counts every run: a later page says which it is, so that it stays
        # as it was when a run of another page's model is added.
        heading = (
            f"{len(runs)} runs</h2>" if number == 1 else f"Runs, page {number} of {len(pages)}</h2>"
        )
        assert heading in html and (number == 1 or f"{len(runs)} runs" not in html)
        # No page carries every facet value (thousands of models at scale): site.js fills them in.
        form = html[html.index('<form class="filters" id="filters"') :]
        form = form[: form.index("</form>")]
        assert form.count("<option") == form.count('<option value="">All</option>') == 4
        if number > 1:
            assert 'rel="prev"' in html
        if number < len(pages):
            assert f'rel="next" href="{root}page/{number + 1}/index.html"' in html
    assert sorted(listed) == sorted(runs) and len(listed) == len(set(listed))
    assert not (paged_site / "page" / "1").exists(), "page 1 is / only"


def test_first_load_of_the_index_is_small(paged_site: Path) -> None:
    """What a visitor's browser fetches for / before touching anything, gzipped as servers
    send it: the page, its style sheet, script and icon (not the search index)."""
    html = (paged_site / "index.html").read_text(encoding="utf-8")
    fetched = re.findall(
        r'<(?:link[^>]*rel="(?:stylesheet|icon)"[^>]*href|script[^>]*src|img[^>]*src)="([^"]+)"',
        html,
    )
    assert not any("index.json" in url for url in fetched)
    total = len(gzip.compress(html.encode()))
    for url in fetched:
        total += len(gzip.compress((paged_site / url.split("?")[0]).read_bytes()))
    assert total <= 100_000, total


def _squeeze(text: str | None) -> str:
    return re.sub(r"\s+", "", text or "")  # html_tables joins a cell's pieces without their spaces


def test_search_index_holds_the_rows_the_pages_show(paged_site: Path) -> None:
    from_index = {}
    order = []
    for run in search_runs(paged_site):
        text = run[:8]
        # A figure, then its derived per-accelerator value, then where it was measured.
        figures = [" ".join((cell[0], cell[3], cell[2])) for cell in run[8:12]]
        # the run's distinguishing label, if any, beside its model
        model = f"{text[1]} {run[13]} all runs"
        from_index[text[0]] = [
            _squeeze(t) for t in (model, text[3], text[5], text[6], text[7], *figures)
        ]
        order.append(text[0])
    shown = {}
    for page in [paged_site / "index.html", *sorted((paged_site / "page").glob("*/index.html"))]:
        html = page.read_text(encoding="utf-8")
        # The pages' links are relative to each page, the search index's to the site root.
        hrefs = [
            urljoin(page.relative_to(paged_site).as_posix(), href)
            for href in re.findall(r'<tr data-f="[^"]*"><th><a href="([^"]+)"', html)
        ]
        rows = tables(html)["data runs sortable"][1:]
        shown.update(
            (href, [_squeeze(cell) for cell in row]) for href, row in zip(hrefs, rows, strict=True)
        )
    assert from_index == shown
    assert order == list(shown)  # the index's order, page after page
