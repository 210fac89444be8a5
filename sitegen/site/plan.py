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
from dataclasses import dataclass, field, replace
from functools import partial

from sitegen.model import Run
from sitegen.record_decorator import record
from sitegen.site.figures import history
from sitegen.site.figures.build_figures import Analysis, Settings
from sitegen.site.figures.grouping import (
    Group,
    closest_runs,
    natural_pairs,
    site_groups,
)
from sitegen.site.figures.labels import distinguishing_labels
from sitegen.site.figures.paging import Paging, listed_models
from sitegen.site.incremental.previous import KEY_HALF
from sitegen.site.page import Page, Site
from sitegen.site.pages.capacity import capacity_page, level_model_page
from sitegen.site.pages.compare import (
    MAX_LINKED,
    MAX_RUNS,
    compare_app_page,
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
from sitegen.site.sections.listing import PointChoice
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
    of them), and working it out again for every run of a large site is most of a plan that
    adds one run. A group's digest names everything of its runs that any run page of the group
    shows, so a run whose two groups have the digests they had has the key it had."""

    last_groups: Mapping[str, str] = field(default_factory=dict)
    last_key: Callable[[str], str | None] = lambda path: None
    groups: dict[str, str] = field(default_factory=dict)
    history: SiteHistory | None = None  # the plan's setups and their changes (setup_pages)
    labels: dict[str, str] | None = None  # the plan's distinguishing labels (data files)
    # The plan's groups, each with its digest (data files).
    site_groups: dict[tuple[str, str], Group] | None = None


def plan(
    site: Site, runs: list[Run], analysis: Analysis | None = None, memory: PlanMemory | None = None
) -> list[PlannedPage]:
    """Every page of the site, in a stable order. Cost is linear in the number of runs: one
    page per run, group and preset, never per operating point or threshold.

    Each page gets ``site`` placed at its own path (Site.at), so its links are relative to it.
    ``memory``: the last build's group digests and page keys, and where this plan leaves its own.
    """
    basis = _PlanBasis.of(site, runs, analysis or Analysis(), memory or PlanMemory())
    costs = priced(basis.runs, basis.analysis)
    planned = [
        *_index_pages(basis),
        *_RunPages(basis).planned(),
        *_capacity_pages(basis, costs),
        *_level_pages(basis, costs),
        *_preset_pages(basis, costs),
        *_group_pages(basis),
        *_site_pages(basis),
    ]
    return planned + _sitemap(site, planned, basis.everything)


@dataclass
class _PlanBasis:
    """What every step of a plan is made from: the runs and their groups, pairs and labels, the
    setups with their keys, and each group's digest, worked out once a plan."""

    site: Site
    runs: list[Run]
    analysis: Analysis
    memory: PlanMemory
    groups: dict[tuple[str, str], Group]
    pairs: list[tuple[Run, Run]]
    run_labels: dict[str, str]
    site_history: SiteHistory
    setup_keys: dict[str, str]
    setups_as_before: set[str]
    # Each run's model and accelerator group keys, read off the groups once.
    in_groups: dict[str, tuple[tuple[str, str], tuple[str, str]]]
    membership_text: dict[str, bytes]  # see _memberships
    site_text: _Verbatim
    settings_text: _Verbatim
    digests: dict[tuple[str, str], str]  # see _group_digests
    as_before: set[tuple[str, str]]  # the groups whose digest is the one the last plan left
    everything: str  # the key of pages made from every run (the models' digests and the pairs)
    models: list[Group]  # as the listings show them (paging.listed_models)
    of_model: dict[str, str]  # each listed model's digest, by its key

    @classmethod
    def of(cls, site: Site, runs: list[Run], analysis: Analysis, memory: PlanMemory) -> _PlanBasis:
        runs = sorted(runs, key=lambda r: r.id)
        settings = analysis.settings
        groups = site_groups(runs)
        run_labels = distinguishing_labels(runs)
        memory.labels = run_labels
        site_history = SiteHistory.of(runs, settings.change_threshold, analysis.fragments)
        memory.history = site_history
        pairs = natural_pairs(runs, site_history.compares)
        setup_keys = {setup: site_history.key(setup) for setup in site_history.setups}
        setups_as_before = _setups_as_before(memory, setup_keys)
        in_groups = _groups_of_runs(runs, groups)
        membership_text = _memberships(runs, groups, in_groups, run_labels)
        site_text, settings_text = _Verbatim(site), _Verbatim(settings)
        digests = _group_digests(groups, membership_text, site_text, settings_text)
        # Each group carries its digest: a piece made from it is kept by it (fragments._identity).
        groups = {key: replace(group, digest=digests[key]) for key, group in groups.items()}
        memory.site_groups = groups
        paths = {key: group.path for key, group in groups.items()}
        memory.groups.update((paths[key], digests[key]) for key in groups)
        as_before = {key for key in groups if memory.last_groups.get(paths[key]) == digests[key]}
        everything = _key(
            site_text,
            settings_text,
            [digest for (kind, _), digest in digests.items() if kind == "models"],
            [(a.id, b.id) for a, b in pairs],
        )
        models = listed_models(groups)
        of_model = {group.key: digests[("models", group.key)] for group in models}
        return cls(
            site,
            runs,
            analysis,
            memory,
            groups,
            pairs,
            run_labels,
            site_history,
            setup_keys,
            setups_as_before,
            in_groups,
            membership_text,
            site_text,
            settings_text,
            digests,
            as_before,
            everything,
            models,
            of_model,
        )


def _setups_as_before(memory: PlanMemory, setup_keys: dict[str, str]) -> set[str]:
    """The setups whose key is the one the last plan left. A setup's key is kept with the
    groups' digests: a run whose setup is as it was keeps its key."""
    memory.groups.update((setup_path(setup), key) for setup, key in setup_keys.items())
    return {
        setup
        for setup, key in setup_keys.items()
        if memory.last_groups.get(setup_path(setup)) == key
    }


def _groups_of_runs(
    runs: list[Run], groups: dict[tuple[str, str], Group]
) -> dict[str, tuple[tuple[str, str], tuple[str, str]]]:
    """Each run's model and accelerator group keys, read off the groups: asked for several
    times a plan, model_key and accelerator_key each time would cost more than the lookup."""
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
    return {run.id: (model_of[run.id], hardware_of[run.id]) for run in runs}


def _memberships(
    runs: list[Run],
    groups: dict[tuple[str, str], Group],
    in_groups: dict[str, tuple[tuple[str, str], tuple[str, str]]],
    run_labels: dict[str, str],
) -> dict[str, bytes]:
    """What a run's page, row or links show of its groups (their paths and labels) and of the
    runs like it (its distinguishing label): the repr of the tuple (id, digest, model path,
    model label, accelerator path, accelerator label, label), as UTF-8, worked out once for
    the digests of its two groups and for its page's key. Joined from the reprs of its parts,
    each group's worked out once: a tuple and its repr a run cost more."""
    group_text = {key: f"{group.path!r}, {group.label!r}" for key, group in groups.items()}
    membership_text: dict[str, bytes] = {}
    for run in runs:
        model_group, hardware_group = in_groups[run.id]
        membership_text[run.id] = (
            f"({run.id!r}, {run.digest!r}, {group_text[model_group]}, "
            f"{group_text[hardware_group]}, {run_labels.get(run.id)!r})"
        ).encode()
    return membership_text


def _group_digests(
    groups: dict[tuple[str, str], Group],
    membership_text: dict[str, bytes],
    site_text: _Verbatim,
    settings_text: _Verbatim,
) -> dict[tuple[str, str], str]:
    """Each group's digest: the site, the settings and its runs' memberships, in its order. A
    run is in one model's group and one accelerator's, so the models' digests name every run.

    It is _key(site, settings, kind, key, memberships), its text joined from each run's bytes:
    as one string, a single character beyond Latin-1 in one label ("…") would make all of a
    group's text two bytes a character, and encoding it slow."""
    common = f"({site_text.text}, {settings_text.text}, "
    return {
        key: hashlib.sha256(
            f"{common}{group.kind!r}, {group.key!r}, [".encode()
            + b", ".join([membership_text[run.id] for run in group.runs])
            + b"])"
        ).hexdigest()
        for key, group in groups.items()
    }


def _listing_keys(
    basis: _PlanBasis, paged: Paging, path_of: Callable[[int], str], *shown: object
) -> list[tuple[int, str, str]]:
    """Each page of a listing (the index, /capacity/, the preset views): its number, path and
    key. The listings show the runs model by model, in pages that end where a model ends
    (paging): a page's key names its models' parts, the pages' count (its pager) and what every
    page of the listing shows (``shown``), so a run added to one model builds that model's page
    again and keeps the others."""
    return [
        (
            number,
            path_of(number),
            _key(
                basis.site_text,
                basis.settings_text,
                path_of(number),
                paged.count,
                shown,
                [
                    (group.key, first, last, basis.of_model[group.key])
                    for group, first, last in parts
                ],
            ),
        )
        for number, parts in enumerate(paged.parts(basis.models), start=1)
    ]


class _IndexListing:
    """What the index's pages are made from (the runs in order, the picker's choices): worked
    out once for all of them, and only when one of them is built."""

    def __init__(self, basis: _PlanBasis, choice: PointChoice) -> None:
        self.basis = basis
        self.choice = choice
        self._listing: IndexListing | None = None

    def __call__(self) -> IndexListing:
        if self._listing is None:
            basis = self.basis
            self._listing = index_listing(
                basis.runs,
                basis.groups,
                basis.analysis,
                basis.run_labels,
                self.choice,
            )
        return self._listing


def _index_pages(basis: _PlanBasis) -> list[PlannedPage]:
    """The index's pages; only the first says how many runs there are."""
    choice = site_choice(basis.groups, basis.analysis)
    listing = _IndexListing(basis, choice)
    paged = index_paging(basis.groups)
    make = partial(index_page, basis.site, basis.runs, basis.groups, basis.analysis)
    return [
        PlannedPage(
            path,
            _key(page_key, len(basis.runs)) if number == 1 else page_key,
            partial(make, number, listing, paged),
        )
        for number, path, page_key in _listing_keys(basis, paged, page_path, choice)
    ]


class _RunPages:
    """A page per run, keyed in two halves (PlannedPage.patch): all the page shows but its
    last section, then its links to the runs beside it (the other runs of its model and of its
    accelerator, its pair partners first)."""

    def __init__(self, basis: _PlanBasis) -> None:
        self.basis = basis
        self.paired = {(a.id, b.id) for a, b in basis.pairs}
        self.partners: dict[str, set[str]] = defaultdict(set)
        for a, b in basis.pairs:
            self.partners[a.id].add(b.id)
            self.partners[b.id].add(a.id)
        self.pairs_of: dict[str, list[tuple[str, str]]] = defaultdict(list)  # each run's pairs
        for pair in self.paired:
            self.pairs_of[pair[0]].append(pair)
            self.pairs_of[pair[1]].append(pair)
        # Each group's runs by their place in it, worked out for a group when one of its runs
        # first asks (only the changed groups' runs do, in a build that adds a run).
        self.places: dict[tuple[str, str], dict[str, int]] = {}

    def planned(self) -> list[PlannedPage]:
        return [self.page(run, f"runs/{run.id}/index.html") for run in self.basis.runs]

    def page(self, run: Run, path: str) -> PlannedPage:
        """The run's page; its key as it was when its groups and setup are (PlanMemory)."""
        basis = self.basis
        model_group, hardware_group = basis.in_groups[run.id]
        setup_of = basis.site_history.setup_of
        groups_as_before = (
            model_group in basis.as_before
            and hardware_group in basis.as_before
            and (run.id not in setup_of or setup_of[run.id] in basis.setups_as_before)
        )
        page_key = basis.memory.last_key(path) if groups_as_before else None
        if page_key is None:
            page_key = self.key(run, path)
        return PlannedPage(
            path, page_key, partial(self.make, run, path), partial(self.patch, run, path)
        )

    def key(self, run: Run, path: str) -> str:
        """Two halves: all the page shows but its last section, which holds the links to the
        runs beside it (they change when a run is added next to it, while the rest of its page
        does not); then those links."""
        basis = self.basis
        setup_of = basis.site_history.setup_of
        membership = _Verbatim.of_text(basis.membership_text[run.id].decode())
        in_setup = (basis.setup_keys[setup_of[run.id]],) if run.id in setup_of else ()
        linked = tuple(
            (noun, [other.id for other in members]) for noun, members in self.comparable(run)
        )
        return (
            _key(basis.site_text, basis.settings_text, path, membership, *in_setup)[:KEY_HALF]
            + _key(linked, sorted(self.pairs_of[run.id]))[:KEY_HALF]
        )

    def place_in(self, key: tuple[str, str]) -> dict[str, int]:
        found = self.places.get(key)
        if found is None:
            found = self.places[key] = {
                member.id: index for index, member in enumerate(self.basis.groups[key].runs)
            }
        return found

    def comparable(self, run: Run) -> list[tuple[str, tuple[Run, ...]]]:
        """The other runs of its model and of its accelerator that its page links to (as many
        as the links can show after the first group's took theirs), its pair partners first;
        only runs whose figures the comparison shows beside the run's (decode cells or prefill
        rows beside those, load points at a load the run measured too: SiteHistory.compared_beside);
        none for a run with neither."""
        site_history = self.basis.site_history
        if site_history.shown_in_comparisons(run) == history.NOTHING:
            return []
        count = MAX_LINKED + MAX_RUNS
        found = []
        for noun, key in zip(("of", "on"), self.basis.in_groups[run.id], strict=True):
            group = self.basis.groups[key]
            runs = closest_runs(group.runs, self.place_in(key), run, self.partners[run.id], count)
            found.append(
                (
                    f"{noun} {group.label}",
                    tuple(other for other in runs if site_history.compared_beside(run, other)),
                )
            )
        return found

    def make(self, run: Run, path: str) -> Page:
        basis = self.basis
        at = basis.site.at(path)
        return run_page(
            at,
            run,
            basis.groups,
            basis.run_labels.get(run.id, ""),
            run_comparisons(at, run, self.comparable(run), self.paired),
            basis.analysis,
            run_history(at, run, basis.site_history),
        )

    def patch(self, run: Run, path: str, page: bytes) -> bytes | None:
        """The page as the last build left it, with its last section (its links) made anew:
        what run_page would show there (run_links), rendered by the macro its template calls."""
        basis = self.basis
        at = basis.site.at(path)
        comparisons = run_comparisons(at, run, self.comparable(run), self.paired)
        shown = run_links(at, run, basis.groups, comparisons)
        return with_links(page, basis.analysis.fragments.render("run_links", *shown))


def _capacity_pages(basis: _PlanBasis, costs: bool) -> list[PlannedPage]:
    """/capacity/ and its following pages."""
    paged = capacity_paging(basis.groups)
    make = partial(capacity_page, basis.site, basis.runs, basis.groups, basis.analysis)
    return [
        PlannedPage(path, page_key, partial(make, number, paged))
        for number, path, page_key in _listing_keys(basis, paged, capacity_path, costs)
    ]


def _level_pages(basis: _PlanBasis, costs: bool) -> list[PlannedPage]:
    """Each model's setups ranked at each shipped level (capacity_views): a page per model and
    level."""
    planned = []
    for level in basis.analysis.settings.service_levels:
        for group in basis.models:
            path = level_model_path(level, group)
            page_key = _key(
                basis.site_text,
                basis.settings_text,
                path,
                group.label,
                group.path,
                basis.of_model[group.key],
                costs,
            )
            make = partial(level_model_page, basis.site, group, level, basis.analysis, costs)
            planned.append(PlannedPage(path, page_key, make))
    return planned


def _preset_pages(basis: _PlanBasis, costs: bool) -> list[PlannedPage]:
    """Each preset's view, paged as the index is; its first page lists every model with the
    page it is on."""
    paged = preset_paging(basis.groups)
    contents = _key([(group.slug, group.label) for group in basis.models], paged.bounds)
    planned = []
    for preset in basis.analysis.settings.presets:
        make = partial(preset_page, basis.site, basis.runs, basis.groups, preset, basis.analysis)
        path_of = partial(preset_path, preset)
        for number, path, page_key in _listing_keys(basis, paged, path_of, costs, preset):
            planned.append(
                PlannedPage(
                    path,
                    _key(page_key, contents) if number == 1 else page_key,
                    partial(make, number, paged),
                )
            )
    return planned


def _group_pages(basis: _PlanBasis) -> list[PlannedPage]:
    """A page per model and per accelerator, with its natural pairs and the setups it links."""
    pairs_in = _pairs_in_groups(basis)
    planned = []
    for group in sorted(basis.groups.values(), key=lambda g: g.path):
        group_pairs = pairs_in.get((group.kind, group.key), [])
        path = f"{group.path}index.html"
        linked_setups = basis.site_history.in_group(group.kind, group.key)
        setup_keys = [basis.setup_keys[setup] for setup in linked_setups] if linked_setups else []
        page_key = _key(
            path, group.label, basis.digests[(group.kind, group.key)], group_pairs, *setup_keys
        )
        planned.append(
            PlannedPage(path, page_key, partial(_group_page, basis, group, path, linked_setups))
        )
    return planned


def _pairs_in_groups(basis: _PlanBasis) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """Each group's natural pairs, in the pairs' order: a run is in one model's and one
    accelerator's group, so a pair is in those of its runs' groups they share (asking every
    group about every pair would cost groups × pairs)."""
    pairs_in: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for a, b in basis.pairs:
        of_b = basis.in_groups[b.id]
        for key in basis.in_groups[a.id]:
            if key in of_b:
                pairs_in[key].append((a.id, b.id))
    return pairs_in


def _group_page(basis: _PlanBasis, group: Group, path: str, linked: list[str]) -> Page:
    at = basis.site.at(path)
    page = group_page(at, group, basis.groups, basis.pairs, basis.analysis)
    return with_setups(page, at, linked, basis.site_history)


def _site_pages(basis: _PlanBasis) -> list[PlannedPage]:
    """The lists of models and accelerators, the compare app, the setups' history pages, the
    404 page and the feed."""
    site, everything = basis.site, basis.everything
    planned = []
    for kind in ("models", "hardware"):
        listed = [g for g in basis.groups.values() if g.kind == kind]
        path = f"{kind}/index.html"
        make = partial(group_index_page, site.at(path), kind, listed, basis.analysis)
        planned.append(PlannedPage(path, everything, make))
    compare_app = partial(
        compare_app_page,
        site.at("compare/index.html"),
        basis.runs,
        basis.pairs,
        basis.run_labels,
        basis.analysis.fragments,
        basis.groups,
    )
    planned.append(PlannedPage("compare/index.html", everything, compare_app))
    planned += [
        PlannedPage(path, _key(basis.site_text, path, key), make)
        for path, key, make in history_pages(site, basis.site_history, basis.setup_keys)
    ]
    not_found = site.served_anywhere("404.html")
    context = NotFoundPageContext(not_found, "Page not found")
    planned.append(
        PlannedPage(
            "404.html", _key(not_found), partial(Page, "404.html", "pages/404.html", context)
        )
    )
    planned.append(
        PlannedPage("feed.xml", everything, partial(_feed_page, site, basis.runs, basis.run_labels))
    )
    return planned


def _feed_page(site: Site, runs: list[Run], run_labels: dict[str, str]) -> Page:
    return Page("feed.xml", "feed.xml", feed_context(site.at("feed.xml"), runs, run_labels))


def _sitemap(site: Site, planned: list[PlannedPage], everything: str) -> list[PlannedPage]:
    """The sitemap of ``planned``'s pages; none without site_url (the sitemap protocol allows
    only absolute URLs)."""
    if site.site_url is None:
        return []
    html_urls = tuple(
        site.absolute(p.path.removesuffix("index.html")) or ""
        for p in planned
        if p.path.endswith(".html") and p.path != "404.html"
    )
    context = SitemapContext(html_urls)
    return [
        PlannedPage("sitemap.xml", everything, partial(Page, "sitemap.xml", "sitemap.xml", context))
    ]


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
