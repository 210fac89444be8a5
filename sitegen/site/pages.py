"""Plan every page of the site: pure functions from the collected runs to pages.

Nothing here touches the disk; each page's context is a typed object whose fields the
templates use, so a page can be tested by looking at its context. The listing pages' contexts
hold their rows and sections as markup: pieces kept between builds, each rendered by a macro
of the templates on a miss (analysis.fragments).

Each planned page carries a key, a fingerprint of everything its bytes depend on, made
from cheap inputs (run digests, group memberships). Its context is built only when
asked for: an incremental build builds only pages whose key changed.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from sitegen.model import Run
from sitegen.site.analysis import Analysis, Settings
from sitegen.site.capacity_page import (
    capacity_page,
    capacity_page_count,
    capacity_path,
    preset_page,
    preset_page_count,
    preset_path,
)
from sitegen.site.common import Page, Site
from sitegen.site.compare_page import MAX_LINKED, MAX_RUNS, compare_app_page, compare_page, run_comparisons
from sitegen.site.feeds import SitemapContext, feed_context
from sitegen.site.group_pages import group_index_page, group_page
from sitegen.site.groups import (
    Group,
    accelerator_key,
    closest_runs,
    compare_path,
    model_key,
    natural_pairs,
    site_groups,
)
from sitegen.site.index_page import IndexListing, index_listing, index_page, page_count, page_path
from sitegen.site.labels import distinguishing_labels
from sitegen.site.run_page import run_page


@dataclass(frozen=True)
class NotFoundPageContext:
    """The 404 page, served by GitHub Pages for any unknown address."""

    site: Site
    title: str


@dataclass(frozen=True)
class PlannedPage:
    """A page that can be built: its output path, its key, and how to make it."""

    path: str
    key: str
    make: Callable[[], Page]


def _key(*parts: object) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()


class _Verbatim:
    """A value's repr worked out once: ``_key`` of it is ``_key`` of the value, and the site and
    settings (dataclasses, whose repr is slow) are in a thousand keys of a plan."""

    def __init__(self, value: object) -> None:
        self.text = repr(value)

    def __repr__(self) -> str:
        return self.text


def plan(site: Site, runs: list[Run], analysis: Analysis | None = None) -> list[PlannedPage]:
    """Every page of the site, in a stable order. Cost is linear in the number of runs: one
    page per run, group, natural pair and preset, never per operating point or threshold.

    Each page gets ``site`` placed at its own path (Site.at), so its links are relative to it.
    """
    runs = sorted(runs, key=lambda r: r.id)
    analysis = analysis or Analysis()
    settings = analysis.settings
    groups = site_groups(runs)
    pairs = natural_pairs(runs)
    run_labels = distinguishing_labels(runs)

    memberships: dict[str, tuple[object, ...]] = {}

    def membership(run: Run) -> tuple[object, ...]:
        # What a run's page, row or links show of its groups (their paths and labels) and of
        # the runs like it (its distinguishing label). Asked for three times a run: kept.
        if run.id not in memberships:
            model, hardware = groups[("models", model_key(run))], groups[("hardware", accelerator_key(run))]
            memberships[run.id] = (run.id, run.digest, model.path, model.label, hardware.path, hardware.label,
                                   run_labels.get(run.id))
        return memberships[run.id]

    everything = _key(site, settings, [membership(run) for run in runs], [(a.id, b.id) for a, b in pairs])
    # What the index's pages are made from (the runs in order, the picker's choices): worked
    # out once for all of them, and only when one of them is built.
    listings: list[IndexListing] = []

    def listing() -> IndexListing:
        if not listings:
            listings.append(index_listing(runs, groups, analysis, run_labels))
        return listings[0]

    planned = [
        PlannedPage(page_path(number), everything,
                    lambda number=number: index_page(site, runs, groups, analysis, number,  # type: ignore[misc]
                                                     listing))
        for number in range(1, page_count(len(runs)) + 1)
    ]
    paired = {(a.id, b.id) for a, b in pairs}

    partners: dict[str, set[str]] = defaultdict(set)
    for a, b in pairs:
        partners[a.id].add(b.id)
        partners[b.id].add(a.id)

    places = {key: {member.id: index for index, member in enumerate(group.runs)} for key, group in groups.items()}

    def comparable(run: Run) -> list[tuple[str, tuple[Run, ...]]]:
        # The other runs of its model and of its accelerator that its page links to (as many as
        # the links can show after the first group's took theirs), its pair partners first.
        count = MAX_LINKED + MAX_RUNS
        found = []
        for noun, key in (("of", ("models", model_key(run))), ("on", ("hardware", accelerator_key(run)))):
            group = groups[key]
            found.append((f"{noun} {group.label}", closest_runs(group.runs, places[key], run, partners[run.id], count)))
        return found

    def linked(run: Run) -> tuple[object, ...]:
        return tuple((noun, [other.id for other in members]) for noun, members in comparable(run))

    def make_run_page(run: Run, path: str) -> Page:
        at = site.at(path)
        return run_page(at, run, groups, run_labels.get(run.id, ""), run_comparisons(at, run, comparable(run), paired),
                        analysis)

    pairs_of: dict[str, list[tuple[str, str]]] = defaultdict(list)  # each run's pairs, found once
    for pair in paired:
        pairs_of[pair[0]].append(pair)
        pairs_of[pair[1]].append(pair)
    site_text, settings_text = _Verbatim(site), _Verbatim(settings)
    for run in runs:
        path = f"runs/{run.id}/index.html"
        planned.append(PlannedPage(path, _key(site_text, settings_text, path, membership(run), linked(run),
                                              sorted(pairs_of[run.id])),
                                   lambda run=run, path=path: make_run_page(run, path)))  # type: ignore[misc]
    for number in range(1, capacity_page_count(len(runs)) + 1):
        planned.append(PlannedPage(capacity_path(number), everything,
                                   lambda number=number: capacity_page(  # type: ignore[misc]
                                       site, runs, groups, analysis, number)))
    for preset in settings.presets:
        for number in range(1, preset_page_count(len(runs)) + 1):
            path = preset_path(preset, number)
            planned.append(PlannedPage(path, _key(everything, path, preset),
                                       lambda preset=preset, number=number: preset_page(  # type: ignore[misc]
                                           site, runs, groups, preset, analysis, number)))
    # Each group's natural pairs, in the pairs' order: a run is in one model's and one
    # accelerator's group, so a pair is in those of its runs' groups they share. (Asking every
    # group about every pair cost 3.5 s at 20,000 runs: 2,000 groups × 6,000 pairs.)
    pairs_in: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for a, b in pairs:
        of_b = (("models", model_key(b)), ("hardware", accelerator_key(b)))
        for key in (("models", model_key(a)), ("hardware", accelerator_key(a))):
            if key in of_b:
                pairs_in[key].append((a.id, b.id))
    for group in sorted(groups.values(), key=lambda g: g.path):
        group_pairs = pairs_in.get((group.kind, group.key), [])
        path = f"{group.path}index.html"
        planned.append(PlannedPage(
            path,
            _key(site_text, settings_text, path, group.kind, group.key, group.label, [membership(run) for run in group.runs],
                 group_pairs),
            lambda group=group, path=path: group_page(site.at(path), group, groups, pairs, analysis),  # type: ignore[misc]
        ))
    # One page per natural pair (older, newer); its swap to A against B is a link within it.
    for a, b in pairs:
        path = f"{compare_path(a, b)}index.html"
        planned.append(PlannedPage(path, _key(site_text, path, a.id, a.digest, b.id, b.digest, run_labels.get(a.id),
                                              run_labels.get(b.id)),
                                   lambda a=a, b=b, path=path: compare_page(site.at(path), a, b,  # type: ignore[misc]
                                                                            run_labels)))
    for kind in ("models", "hardware"):
        listed = [g for g in groups.values() if g.kind == kind]
        path = f"{kind}/index.html"
        planned.append(PlannedPage(path, everything,
                                   lambda path=path, kind=kind, listed=listed: group_index_page(  # type: ignore[misc]
                                       site.at(path), kind, listed, analysis)))
    planned.append(PlannedPage("compare/index.html", everything,
                               lambda: compare_app_page(site.at("compare/index.html"), runs, pairs, run_labels)))
    not_found = site.served_anywhere("404.html")
    planned.append(PlannedPage("404.html", _key(not_found), lambda: Page("404.html", "pages/404.html",
                                                                        NotFoundPageContext(not_found, "Page not found"))))
    planned.append(PlannedPage("feed.xml", everything,
                               lambda: Page("feed.xml", "feed.xml", feed_context(site.at("feed.xml"), runs))))
    if site.site_url is not None:
        # The sitemap protocol allows only absolute URLs: without site_url there is no sitemap.
        html_urls = tuple(site.absolute(p.path.removesuffix("index.html")) or "" for p in planned
                          if p.path.endswith(".html") and p.path != "404.html")
        planned.append(PlannedPage("sitemap.xml", everything,
                                   lambda: Page("sitemap.xml", "sitemap.xml", SitemapContext(html_urls))))
    return planned


def pages(site: Site, runs: list[Run], analysis: Analysis | None = None) -> list[Page]:
    """Every page, built: for tests and tools that want the contexts."""
    return [planned.make() for planned in plan(site, runs, analysis)]


__all__ = ["Analysis", "Group", "NotFoundPageContext", "Page", "PlannedPage", "Settings", "pages", "plan"]
