"""Plan every page of the site: pure functions from the collected runs to Page objects.

Nothing here touches the disk or Jinja; each page's context is a typed object whose
fields the templates use, so a page can be tested by looking at its context.
"""

from __future__ import annotations

from dataclasses import dataclass

from sitegen.model import Run
from sitegen.site.common import Page, Site
from sitegen.site.index_page import index_page
from sitegen.site.run_page import run_page


@dataclass(frozen=True)
class NotFoundPageContext:
    """The 404 page, served by GitHub Pages for any unknown address."""

    site: Site
    title: str


def plan(site: Site, runs: list[Run]) -> list[Page]:
    """Every page of the site, in a stable order."""
    pages = [index_page(site, runs)]
    pages += [run_page(site, run) for run in sorted(runs, key=lambda r: r.id)]
    pages.append(Page("404.html", "pages/404.html", NotFoundPageContext(site, "Page not found")))
    return pages
