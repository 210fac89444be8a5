"""Plan every page of the site: pure functions from the collected runs to Page objects.

Nothing here touches the disk or Jinja; each page's context is a typed object whose
fields the templates use, so a page can be tested by looking at its context.
"""

from __future__ import annotations

from dataclasses import dataclass

from sitegen.model import Run
from sitegen.site.common import Page, Site
from sitegen.site.compare_page import compare_app_page, compare_page
from sitegen.site.feeds import SitemapContext, absolute, feed_context
from sitegen.site.group_pages import group_page
from sitegen.site.groups import hardware_groups, model_groups, natural_pairs
from sitegen.site.index_page import index_page
from sitegen.site.run_page import run_page


@dataclass(frozen=True)
class NotFoundPageContext:
    """The 404 page, served by GitHub Pages for any unknown address."""

    site: Site
    title: str


def plan(site: Site, runs: list[Run], base_url: str = "/") -> list[Page]:
    """Every page of the site, in a stable order. Cost is linear in the number of runs."""
    groups = {(g.kind, g.key): g for g in model_groups(runs) + hardware_groups(runs)}
    pairs = natural_pairs(runs)
    pages = [index_page(site, runs, groups)]
    pages += [run_page(site, run, groups) for run in sorted(runs, key=lambda r: r.id)]
    pages += [group_page(site, group, groups, pairs) for group in sorted(groups.values(), key=lambda g: g.path)]
    pages += [compare_page(site, a, b) for a, b in pairs]
    pages.append(compare_app_page(site, runs, pairs))
    pages.append(Page("404.html", "pages/404.html", NotFoundPageContext(site, "Page not found")))
    html_urls = tuple(absolute(base_url, site.url(p.path.removesuffix("index.html")))
                      for p in pages if p.path != "404.html")
    pages.append(Page("feed.xml", "feed.xml", feed_context(site, base_url, runs)))
    pages.append(Page("sitemap.xml", "sitemap.xml", SitemapContext(site, html_urls)))
    return pages
