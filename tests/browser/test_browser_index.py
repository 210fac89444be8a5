"""The paginated index in a real browser: the search box and the filters find runs of every
page, not only the one shown, and clearing them brings the page's own rows and pager back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.kit.browser import PHONE, Browsing, serve
from tests.kit.paging_rule import site_pages
from tests.kit.project import PAGED_INDEX_SIZE

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def paged_origin(shipped_paged: Path) -> Iterator[tuple[str, list[list[tuple[str, int]]]]]:
    """The paged site (built once a session, conftest) served, with its pages as the paging
    rule gives them (tests/kit/paging_rule.py)."""
    with serve(shipped_paged / "_site") as origin:
        yield origin, site_pages(shipped_paged / "_site", PAGED_INDEX_SIZE)


def row_links(browsing_page: object) -> list[str]:
    return browsing_page.evaluate(  # type: ignore[attr-defined, no-any-return]
        """() => Array.from(document.querySelectorAll("table.runs tbody tr th a:first-child"))
            .map((a) => new URL(a.href).pathname)"""
    )


def test_search_finds_runs_on_other_pages(
    paged_origin: tuple[str, list[list[tuple[str, int]]]], browser: Browser
) -> None:
    origin, expected = paged_origin
    browsing = Browsing(browser, origin)
    try:
        visit = browsing.open("/")
        page = visit.page
        first_page = row_links(page)
        assert len(first_page) == sum(count for _, count in expected[0]) and len(expected) > 1
        assert page.locator("nav.pager").is_visible()
        # A run that only the last page lists (the static pages, read without JavaScript).
        last = browsing.open(f"/page/{len(expected)}/", javascript=False)
        target = row_links(last.page)[0]
        model = last.page.locator("table.runs tbody tr th a").first.inner_text()
        assert target not in first_page

        page.locator("#filters input[name=q]").fill(model)
        page.wait_for_function(
            "() => document.getElementById('shown-count').innerText.includes('shown')"
        )
        found = row_links(page)
        assert target in found and all(link.startswith("/runs/") for link in found)
        assert page.locator("nav.pager").is_hidden(), "the pager belongs to the page's own rows"
        assert "q=" in page.url

        page.locator("#filters button[type=reset]").click()
        page.wait_for_function("() => location.search === ''")
        assert row_links(page) == first_page and page.locator("nav.pager").is_visible()
        visit.assert_clean()
        last.assert_clean()
    finally:
        browsing.close()


@pytest.mark.parametrize("path", ["/", "/models/"])
def test_on_a_phone_every_card_value_is_named_as_its_column_heading(
    browse: Browsing, path: str
) -> None:
    """The page's rows carry no per-cell labels: the stylesheet names each column on a phone.
    Each card value's label must read as the column's heading (and on a model page too)."""
    if path == "/models/":  # the model page with the most runs
        visit = browse.open("/models/", width=PHONE)
        path = visit.js(
            "() => new URL(document.querySelector('main a[href*=\"models/\"]').href).pathname"
        )
    visit = browse.open(path, width=PHONE)
    found = visit.js("""() => {
        const table = document.querySelector("table.runs");
        const headings = Array.from(table.tHead.rows[0].cells).map((th) => th.textContent.trim());
        return Array.from(table.tBodies[0].rows)
            .flatMap((row) => Array.from(row.cells).slice(1).map((td) => [
            headings[td.cellIndex],
            getComputedStyle(td, "::before").content.replace(/^"|"$/g, ""),
            getComputedStyle(td).textAlign]));
    }""")
    assert found and len(found) % 8 == 0
    for heading, label, align in found:
        assert label == heading and align in ("left", "start"), (heading, label, align)
    visit.assert_clean()


def test_on_a_desktop_the_headline_figures_align_right(browse: Browsing) -> None:
    visit = browse.open("/")
    aligns = visit.js("""() => Array.from(document.querySelector("table.runs tbody tr").cells)
        .map((cell) => getComputedStyle(cell).textAlign)""")
    assert aligns[5:] == ["right"] * 4 and "right" not in aligns[:5], aligns
    visit.assert_clean()
