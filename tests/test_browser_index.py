"""The paginated index in a real browser: the search box and the filters find runs of every
page, not only the one shown, and clearing them brings the page's own rows and pager back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser_kit import Browsing, serve
from tests.conftest import copy_site, run_cli

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

PAGE_SIZE = 3


@pytest.fixture(scope="module")
def paged_origin(built_site: Path, shared_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # After built_site: its charts are in the shared cache, so this build forks no workers
    # once the browser's threads run.
    site = copy_site(tmp_path_factory.mktemp("paged") / "site", shared_cache)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sitegen.site.index_page.PAGE_SIZE", PAGE_SIZE)
        assert run_cli(site, "collect") == 0
        assert run_cli(site, "build") == 0
    with serve(site / "_site") as origin:
        yield origin


def row_links(browsing_page: object) -> list[str]:
    return browsing_page.evaluate(  # type: ignore[attr-defined, no-any-return]
        """() => Array.from(document.querySelectorAll("table.runs tbody tr th a:first-child"))
            .map((a) => new URL(a.href).pathname)""")


def test_search_finds_runs_on_other_pages(paged_origin: str, browser: Browser) -> None:
    browsing = Browsing(browser, paged_origin)
    try:
        visit = browsing.open("/")
        page = visit.page
        first_page = row_links(page)
        assert len(first_page) == PAGE_SIZE
        assert page.locator("nav.pager").is_visible()
        # A run that only the last page lists (the static pages, read without JavaScript).
        last = browsing.open("/page/4/", javascript=False)
        target = row_links(last.page)[0]
        model = last.page.locator("table.runs tbody tr th a").first.inner_text()
        assert target not in first_page

        page.locator("#filters input[name=q]").fill(model)
        page.wait_for_function("() => document.getElementById('shown-count').innerText.includes('shown')")
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
