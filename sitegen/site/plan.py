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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial

from sitegen.model import Run
from sitegen.record_decorator import record
from sitegen.site.figures.build_figures import Analysis, Settings
from sitegen.site.figures.grouping import (
    Group,
    closest_runs,
    compare_path,
    natural_pairs,
    site_groups,
)
from sitegen.site.figures.labels import distinguishing_labels
from sitegen.site.figures.paging import Paging, listed_models
from sitegen.site.figures.run_colours import model_places
from sitegen.site.page import Page, Site
from sitegen.site.pages.capacity import capacity_page, level_model_page
from sitegen.site.pages.compare import (
    MAX_LINKED,
    MAX_RUNS,
    compare_app_page,
    compare_page,
    run_comparisons,
)
from sitegen.site.pages.feeds import SitemapContext, feed_context
from sitegen.site.pages.group import group_index_page, group_page
from sitegen.site.pages.index import (
    IndexListing,
    index_listing,
    index_page,
    index_paging,
    page_path,
    site_choice,
)
from sitegen.site.pages.presets import preset_page, preset_paging, preset_path
from sitegen.site.pages.run import run_links, run_page, with_links
from sitegen.site.pages.setups import history_pages
from sitegen.site.sections.capacity import capacity_paging, capacity_path, level_model_path, priced
from sitegen.site.sections.setups import SiteHistory, run_history, setup_path, with_setups


@dataclass(frozen=True)
class NotFoundPageContext:
    """The 404 page, served by GitHub Pages for any unknown address."""

    site: Site
    title: str
    # How many folders above its address the page looks for the site's root in: a host may
    # serve it at any depth, and each folder looked in is one request.
    script_depths: int = 8


@record
class PlannedPage:
    """A page that can be built: its output path, its key, and how to make it; ``patch``: for a
    page whose key is two halves (run pages: everything but its links, then its links; each
    KEY_HALF characters), how to make it from the page the last build wrote when only the
    second half changed (None when that page is not one it can patch)."""

    path: str
    key: str
    make: Callable[[], Page]
    patch: Callable[[bytes], bytes | None] | None = field(default=None, compare=False)


# Each half of a two-part key: the first 128 bits of a sha256 (the two halves as long as one key).
KEY_HALF = 32


def _key(*parts: object) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()


class _Verbatim:
    """A value's repr worked out once: ``_key`` of it is ``_key`` of the value, and the site and
    settings (dataclasses, whose repr is slow) are in a thousand keys of a plan."""

    def __init__(self, value: object) -> None:
        self.text = repr(value)

    @classmethod
    def of_text(cls, text: str) -> _Verbatim:
        """The one whose repr is ``text`` (the repr of a value, worked out by the caller)."""
        made = cls.__new__(cls)
        made.text = text
        return made

    def __repr__(self) -> str:
        return self.text


@dataclass
class PlanMemory:
    """What a plan is told of the last build's (``last_groups``: each group's digest by its path;
    ``last_key``: a page's key by its path, None for a page it did not plan) and leaves for the
    next (``groups``, filled in by plan).

    Why: a run page's key names its model's and accelerator's runs (its links go to the nearest
    of them) and working it out for every run was a second of a build that adds one run at
    20,000 runs. A group's digest names everything of its runs that any run page of the group
    shows, so a run whose two groups have the digests they had has the key it had."""

    last_groups: Mapping[str, str] = field(default_factory=dict)
    last_key: Callable[[str], str | None] = lambda path: None
    groups: dict[str, str] = field(default_factory=dict)
    history: SiteHistory | None = None  # the plan's setups and their changes (setup_pages)


def plan(
    site: Site, runs: list[Run], analysis: Analysis | None = None, memory: PlanMemory | None = None
) -> list[PlannedPage]:
    """Every page of the site, in a stable order. Cost is linear in the number of runs: one
    page per run, group, natural pair and preset, never per operating point or threshold.

    Each page gets ``site`` placed at its own path (Site.at), so its links are relative to it.
    ``memory``: the last build's group digests and page keys, and where this plan leaves its own.
    """
    memory = memory if memory is not None else PlanMemory()
    runs = sorted(runs, key=lambda r: r.id)
    analysis = analysis or Analysis()
    settings = analysis.settings
    groups = site_groups(runs)
    pairs = natural_pairs(runs)
    run_labels = distinguishing_labels(runs)
    site_history = SiteHistory.of(runs, settings.change_threshold, analysis.fragments)
    memory.history = site_history
    setup_of = site_history.setup_of
    setup_keys = {setup: site_history.key(setup) for setup in site_history.setups}
    # A setup's key is kept with the groups' digests: a run whose setup is as it was keeps its key.
    memory.groups.update((setup_path(setup), key) for setup, key in setup_keys.items())
    setups_as_before = {
        setup
        for setup, key in setup_keys.items()
        if memory.last_groups.get(setup_path(setup)) == key
    }

    # Each run's model and accelerator group keys, read off the groups (20,000 runs are asked
    # for them several times a plan: model_key and accelerator_key each time cost a tenth of it).
    model_of = {
        member.id: key
        for key, group in groups.items()
        if group.kind == "models"
        for member in group.runs
    }
    hardware_of = {
        member.id: key
        for key, group in groups.items()
        if group.kind == "hardware"
        for member in group.runs
    }
    in_groups = {run.id: (model_of[run.id], hardware_of[run.id]) for run in runs}
    paths = {key: group.path for key, group in groups.items()}
    # What a run's page, row or links show of its groups (their paths and labels) and of the
    # runs like it (its distinguishing label): the repr of the tuple (id, digest, model path,
    # model label, accelerator path, accelerator label, label), as UTF-8, worked out once for the
    # digests of its two groups below and for its page's key. Joined from the reprs of its
    # parts, each group's worked out once: a tuple and its repr a run were a tenth of the plan.
    group_text = {key: f"{paths[key]!r}, {group.label!r}" for key, group in groups.items()}
    membership_text: dict[str, bytes] = {}
    for run in runs:
        model_group, hardware_group = in_groups[run.id]
        membership_text[run.id] = (
            f"({run.id!r}, {run.digest!r}, {group_text[model_group]}, "
            f"{group_text[hardware_group]}, {run_labels.get(run.id)!r})"
        ).encode()

    site_text, settings_text = _Verbatim(site), _Verbatim(settings)
    # Each group's digest: the site, the settings and its runs' memberships, in its order. A
    # run is in one model's group and one accelerator's, so the models' digests name every run.
    # It is _key(site, settings, kind, key, memberships), its text joined from each run's bytes:
    # as one string, a single character beyond Latin-1 in one label ("…") made all of a group's
    # text two bytes a character, and encoding the accelerators' groups (1,700 runs each at
    # 20,000 runs) a tenth of the plan.
    common = f"({site_text.text}, {settings_text.text}, "
    digests = {
        key: hashlib.sha256(
            f"{common}{group.kind!r}, {group.key!r}, [".encode()
            + b", ".join([membership_text[run.id] for run in group.runs])
            + b"])"
        ).hexdigest()
        for key, group in groups.items()
    }
    memory.groups.update((paths[key], digests[key]) for key in groups)
    # The groups whose digest is the one the last build's plan left (PlanMemory).
    as_before = {key for key in groups if memory.last_groups.get(paths[key]) == digests[key]}
    everything = _key(
        site_text,
        settings_text,
        [digest for (kind, _), digest in digests.items() if kind == "models"],
        [(a.id, b.id) for a, b in pairs],
    )
    # The listings (the index, /capacity/, the preset views) show the runs model by model, in
    # pages that end where a model ends (paging): a page's key names its models' parts, so a
    # run added to one model builds that model's page again and keeps the others.
    models = listed_models(groups)
    of_model = {group.key: digests[("models", group.key)] for group in models}

    def listing_keys(
        paged: Paging, path_of: Callable[[int], str], *shown: object
    ) -> list[tuple[int, str, str]]:
        # Each page's number, path and key: its models' parts, the pages' count (its pager) and
        # what every page of the listing shows (``shown``).
        return [
            (
                number,
                path_of(number),
                _key(
                    site_text,
                    settings_text,
                    path_of(number),
                    paged.count,
                    shown,
                    [(group.key, first, last, of_model[group.key]) for group, first, last in parts],
                ),
            )
            for number, parts in enumerate(paged.parts(models), start=1)
        ]

    # What the index's pages are made from (the runs in order, the picker's choices): worked
    # out once for all of them, and only when one of them is built.
    choice = site_choice(groups, analysis, memory.groups)
    listings: list[IndexListing] = []

    def listing() -> IndexListing:
        if not listings:
            listings.append(
                index_listing(runs, groups, analysis, run_labels, choice, memory.groups)
            )
        return listings[0]

    # Only the first page of the index says how many runs there are.
    index_paged = index_paging(groups)
    planned = [
        PlannedPage(
            path,
            _key(page_key, len(runs)) if number == 1 else page_key,
            lambda number=number: index_page(
                site,
                runs,
                groups,
                analysis,
                number,  # type: ignore[misc]
                listing,
                index_paged,
            ),
        )
        for number, path, page_key in listing_keys(index_paged, page_path, choice)
    ]
    paired = {(a.id, b.id) for a, b in pairs}

    partners: dict[str, set[str]] = defaultdict(set)
    for a, b in pairs:
        partners[a.id].add(b.id)
        partners[b.id].add(a.id)

    # Each group's runs by their place in it, worked out for a group when one of its runs first
    # asks (only the changed groups' runs do, in a build that adds a run).
    places: dict[tuple[str, str], dict[str, int]] = {}

    def place_in(key: tuple[str, str]) -> dict[str, int]:
        found = places.get(key)
        if found is None:
            found = places[key] = {
                member.id: index for index, member in enumerate(groups[key].runs)
            }
        return found

    def comparable(run: Run) -> list[tuple[str, tuple[Run, ...]]]:
        # The other runs of its model and of its accelerator that its page links to (as many as
        # the links can show after the first group's took theirs), its pair partners first.
        count = MAX_LINKED + MAX_RUNS
        found = []
        for noun, key in zip(("of", "on"), in_groups[run.id], strict=True):
            group = groups[key]
            found.append(
                (
                    f"{noun} {group.label}",
                    closest_runs(group.runs, place_in(key), run, partners[run.id], count),
                )
            )
        return found

    def linked(run: Run) -> tuple[object, ...]:
        return tuple((noun, [other.id for other in members]) for noun, members in comparable(run))

    def make_run_page(run: Run, path: str) -> Page:
        at = site.at(path)
        return run_page(
            at,
            run,
            groups,
            run_labels.get(run.id, ""),
            run_comparisons(at, run, comparable(run), paired),
            analysis,
            run_history(at, run, site_history),
        )

    def patch_run_page(run: Run, path: str, page: bytes) -> bytes | None:
        # The page as the last build left it, with its last section (its links) made anew:
        # what run_page would show there (run_links), rendered by the macro its template calls.
        at = site.at(path)
        shown = run_links(at, run, groups, run_comparisons(at, run, comparable(run), paired))
        return with_links(page, analysis.fragments.render("run_links", *shown))

    pairs_of: dict[str, list[tuple[str, str]]] = defaultdict(list)  # each run's pairs, found once
    for pair in paired:
        pairs_of[pair[0]].append(pair)
        pairs_of[pair[1]].append(pair)
    for run in runs:
        path = f"runs/{run.id}/index.html"
        # Its model's and accelerator's runs as they were: its key as it was (PlanMemory).
        model_group, hardware_group = in_groups[run.id]
        groups_as_before = (
            model_group in as_before
            and hardware_group in as_before
            and (run.id not in setup_of or setup_of[run.id] in setups_as_before)
        )
        page_key = memory.last_key(path) if groups_as_before else None
        if page_key is None:
            # Two halves (PlannedPage.patch): all the page shows but its last section, which holds
            # the links to the runs beside it (they change when a run is added next to it, while
            # the rest of its page does not); then those links.
            membership = _Verbatim.of_text(membership_text[run.id].decode())
            in_setup = (setup_keys[setup_of[run.id]],) if run.id in setup_of else ()
            page_key = (
                _key(site_text, settings_text, path, membership, *in_setup)[:KEY_HALF]
                + _key(linked(run), sorted(pairs_of[run.id]))[:KEY_HALF]
            )
        planned.append(
            PlannedPage(
                path,
                page_key,
                lambda run=run, path=path: make_run_page(run, path),  # type: ignore[misc]
                lambda page, run=run, path=path: patch_run_page(run, path, page),  # type: ignore[misc]
            )
        )
    costs = priced(runs, analysis)
    capacity_paged = capacity_paging(groups)
    for number, path, page_key in listing_keys(capacity_paged, capacity_path, costs):
        planned.append(
            PlannedPage(
                path,
                page_key,
                lambda number=number: capacity_page(  # type: ignore[misc]
                    site, runs, groups, analysis, number, capacity_paged
                ),
            )
        )
    # Each model's setups ranked at each shipped level (capacity_views): a page per model and level.
    for level in settings.service_levels:
        for group in models:
            path = level_model_path(level, group)
            page_key = _key(
                site_text, settings_text, path, group.label, group.path, of_model[group.key], costs
            )
            planned.append(
                PlannedPage(
                    path, page_key, partial(level_model_page, site, group, level, analysis, costs)
                )
            )
    preset_paged = preset_paging(groups)
    # The first page of a preset's view lists every model with the page it is on.
    contents = _key([(group.slug, group.label) for group in models], preset_paged.bounds)
    for preset in settings.presets:
        for number, path, page_key in listing_keys(
            preset_paged,
            lambda n, preset=preset: preset_path(preset, n),  # type: ignore[misc]
            costs,
            preset,
        ):
            planned.append(
                PlannedPage(
                    path,
                    _key(page_key, contents) if number == 1 else page_key,
                    lambda preset=preset, number=number: preset_page(  # type: ignore[misc]
                        site, runs, groups, preset, analysis, number, preset_paged
                    ),
                )
            )
    # Each group's natural pairs, in the pairs' order: a run is in one model's and one
    # accelerator's group, so a pair is in those of its runs' groups they share. (Asking every
    # group about every pair cost 3.5 s at 20,000 runs: 2,000 groups × 6,000 pairs.)
    pairs_in: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for a, b in pairs:
        of_b = in_groups[b.id]
        for key in in_groups[a.id]:
            if key in of_b:
                pairs_in[key].append((a.id, b.id))
    for group in sorted(groups.values(), key=lambda g: g.path):
        group_pairs = pairs_in.get((group.kind, group.key), [])
        path = f"{group.path}index.html"
        linked_setups = site_history.in_group(group.kind, group.key)
        planned.append(
            PlannedPage(
                path,
                _key(
                    path,
                    group.label,
                    digests[(group.kind, group.key)],
                    group_pairs,
                    *([setup_keys[setup] for setup in linked_setups] if linked_setups else []),
                ),
                lambda group=group, path=path, linked=linked_setups: with_setups(  # type: ignore[misc]
                    group_page(site.at(path), group, groups, pairs, analysis),
                    site.at(path),
                    linked,
                    site_history,
                ),
            )
        )
    # One page per natural pair (older, newer); its swap to A against B is a link within it.
    # Each run in its colour on its model's page (run_colours): a place is the page key's too.
    colour_places = model_places(groups.values())
    for a, b in pairs:
        path = f"{compare_path(a, b)}index.html"
        # A pair's runs share their model: its group as before holds them, and their labels, as
        # before.
        page_key = memory.last_key(path) if in_groups[a.id][0] in as_before else None
        if page_key is None:
            page_key = _key(
                site_text,
                path,
                a.id,
                a.digest,
                b.id,
                b.digest,
                run_labels.get(a.id),
                run_labels.get(b.id),
                colour_places.get(a.id),
                colour_places.get(b.id),
            )
        planned.append(
            PlannedPage(
                path,
                page_key,
                lambda a=a, b=b, path=path: compare_page(  # type: ignore[misc]
                    site.at(path), a, b, run_labels, colour_places
                ),
            )
        )
    for kind in ("models", "hardware"):
        listed = [g for g in groups.values() if g.kind == kind]
        path = f"{kind}/index.html"
        planned.append(
            PlannedPage(
                path,
                everything,
                lambda path=path, kind=kind, listed=listed: group_index_page(  # type: ignore[misc]
                    site.at(path), kind, listed, analysis, memory.groups
                ),
            )
        )
    planned.append(
        PlannedPage(
            "compare/index.html",
            everything,
            lambda: compare_app_page(
                site.at("compare/index.html"),
                runs,
                pairs,
                run_labels,
                analysis.fragments,
                memory.groups,
            ),
        )
    )
    planned += [
        PlannedPage(path, _key(site_text, path, key), make)
        for path, key, make in history_pages(site, site_history, setup_keys)
    ]
    not_found = site.served_anywhere("404.html")
    planned.append(
        PlannedPage(
            "404.html",
            _key(not_found),
            lambda: Page(
                "404.html", "pages/404.html", NotFoundPageContext(not_found, "Page not found")
            ),
        )
    )
    planned.append(
        PlannedPage(
            "feed.xml",
            everything,
            lambda: Page("feed.xml", "feed.xml", feed_context(site.at("feed.xml"), runs)),
        )
    )
    if site.site_url is not None:
        # The sitemap protocol allows only absolute URLs: without site_url there is no sitemap.
        html_urls = tuple(
            site.absolute(p.path.removesuffix("index.html")) or ""
            for p in planned
            if p.path.endswith(".html") and p.path != "404.html"
        )
        planned.append(
            PlannedPage(
                "sitemap.xml",
                everything,
                lambda: Page("sitemap.xml", "sitemap.xml", SitemapContext(html_urls)),
            )
        )
    return planned


def pages(site: Site, runs: list[Run], analysis: Analysis | None = None) -> list[Page]:
    """Every page, built: for tests and tools that want the contexts."""
    return [planned.make() for planned in plan(site, runs, analysis)]


__all__ = [
    "Analysis",
    "Group",
    "NotFoundPageContext",
    "Page",
    "PlanMemory",
    "PlannedPage",
    "Settings",
    "pages",
    "plan",
]
