"""The index: every run with its headline figures, sorted, in pages of about PAGE_SIZE runs
that end where a model ends (sitegen/site/figures/paging.py, so an added run changes its own page).

``/`` is the first page and ``/page/2/`` … the others (as Hugo paginates), each linking to
its neighbours, so every run is reachable by following links with JavaScript off and the
first page stays the same size however many runs there are. With JavaScript, the filters
fetch SEARCH_INDEX (one compact file of every run's row, made from the same rows as the
pages) on first use and search, filter and sort all runs, not only one page's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from sitegen.config import ServiceLevel
from sitegen.model import Run
from sitegen.site.figures import labels, numbers
from sitegen.site.figures.build_figures import Analysis
from sitegen.site.figures.grouping import (
    Group,
    accelerator_key,
    hardware_groups,
    model_groups,
    model_key,
    site_groups,
)
from sitegen.site.figures.headlines import REFERENCE_CONTEXT
from sitegen.site.figures.labels import distinguishing_labels
from sitegen.site.figures.paging import Paging, listed_models, model_listing_order, paging
from sitegen.site.incremental.fragments import Fragments, Piece
from sitegen.site.page import Page, Site, hardware_name, model_name


@dataclass(frozen=True)
class Cell:
    """A table cell: the text shown, where the figure was measured ('8K context', shown
    beneath it), and the raw value it sorts by ('' sorts last)."""

    text: str
    sort: str = ""
    at: str = ""
    per_device: str = (
        ""  # derived: the figure divided by the run's accelerators, e.g. "617 per GPU"
    )


@dataclass(frozen=True)
class RunRow:
    """One run in a table of runs: formatted headline figures, links, and filter keys."""

    run_id: str
    href: str
    model: str
    model_href: str
    hardware: str
    hardware_href: str
    engine: str
    quantization: str
    date: str
    decode_single: Cell
    decode_peak: Cell
    prefill_first: Cell
    largest_context: Cell
    filters: tuple[tuple[str, str], ...]  # (facet, value) pairs the index filters on
    label: str = ""  # tells the run from others of its model, accelerator and engine


@dataclass(frozen=True)
class Facet:
    """One filter of the index. Its values are site.js's, from the search index (no page
    carries every model's name)."""

    name: str
    label: str


FACETS = (
    Facet("model", "Model"),
    Facet("accelerator", "Accelerator"),
    Facet("engine", "Engine"),
    Facet("quantization", "Quantization"),
)


@dataclass(frozen=True)
class PresetLink:
    """A named operating point: its static view, and the address the picker reads."""

    label: str
    href: str
    query: str  # "context=32768&concurrency=16[&level=server]"


@dataclass(frozen=True)
class PointChoice:
    """What the operating-point picker offers: contexts (raw tokens and as shown), request
    counts and service levels. Rendered in the page; the figures are fetched on demand."""

    contexts: tuple[tuple[int, str], ...]
    concurrencies: tuple[int, ...]
    levels: tuple[ServiceLevel, ...]
    # The accelerators of the runs listed, (price key: the name lower-cased, name): a price
    # field each, never one price for all (docs/capacity.md, "Cost").
    accelerators: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class PageLink:
    """One link of the pager: its text, its address ('' for the page itself, or a gap)."""

    label: str
    href: str
    current: bool = False


@dataclass(frozen=True)
class Pager:
    """Where one page of the index is among all of them."""

    number: int  # from 1
    count: int
    # on this page (not where they stand among all: that moves whenever a run is added before them)
    runs: int
    previous_href: str
    next_href: str
    links: tuple[PageLink, ...]


@dataclass(frozen=True)
class IndexPageContext:
    """A page of the index (templates/pages/index.html): one row of headline figures per run
    of this page (``rows``: the rows as runs_table writes them, each a piece kept between
    builds); ``total`` runs in all. site.js fetches the compact file of every row
    (SEARCH_INDEX) from the site root the page names in ``data-root``."""

    site: Site
    title: str
    rows: Markup
    facets: tuple[Facet, ...]
    reference_context: str
    presets: tuple[PresetLink, ...]
    choice: PointChoice
    total: (
        int | None
    )  # every run, said on the first page only (see paging: later pages keep their runs)
    pager: Pager


def _figure(value: float | None, at: str | None = None, divisor: int = 1, noun: str = "") -> Cell:
    if value is None:
        return Cell(numbers.MISSING)
    per_device = f"{numbers.rate(value / divisor)} per {noun}" if noun and divisor > 1 else ""
    return Cell(numbers.rate(value), repr(float(value)), f"at {at}" if at else "", per_device)


def _off_reference(context: int | None, suffix: str) -> str | None:
    """Where a reference figure was measured, said beneath it only where it is not the column's
    own (a context within 3 % of 8K): the header says 8K for the others."""
    if context is None or numbers.context(context) == numbers.context(REFERENCE_CONTEXT):
        return None
    return f"{numbers.context(context)} {suffix}"


def _prompt_said(prompt: int | None, where: str | None) -> str | None:
    """A prefill figure's prompt size, where the run measured several (llama-bench's pp512)."""
    if prompt is None:
        return where
    return f"{where}, {prompt:,}-token prompt" if where else f"{prompt:,}-token prompt"


def preset_links(site: Site, analysis: Analysis) -> tuple[PresetLink, ...]:
    links = []
    for preset in analysis.settings.presets:
        label = (
            f"{numbers.context(preset.context)} context × "
            f"{numbers.count_noun(preset.concurrency, 'request')}"
        )
        query = f"context={preset.context}&concurrency={preset.concurrency}"
        if preset.service_level and (level := analysis.settings.level(preset.service_level)):
            label += f", {level.name}"
            query += f"&level={level.name}"
        links.append(PresetLink(label, site.url(f"at/{preset.name}/"), query))
    return tuple(links)


def point_choice(runs: list[Run], analysis: Analysis) -> PointChoice:
    contexts = sorted({context for run in runs for context in analysis.outline(run).contexts})
    levels = sorted({n for run in runs for n in analysis.outline(run).levels})
    accelerators = tuple((group.key, group.label) for group in hardware_groups(runs))
    return PointChoice(
        tuple((c, numbers.context(c)) for c in contexts),
        tuple(levels),
        analysis.settings.service_levels,
        accelerators,
    )


def group_content(group: Group, group_digests: Mapping[str, str] | None) -> object:
    """What a piece made from a group's runs alone (their figures, not their labels or links) is
    kept by: the group's digest from the plan (``group_digests``, by path: pages.PlanMemory),
    which names the site, the settings and its runs' content, or else each run's content in id
    order (a caller without a plan). The digest spares listing, sorting and hashing the runs of
    every group in every build (40,000 runs a listing at 20,000 runs)."""
    digest = group_digests.get(group.path) if group_digests is not None else None
    return digest or [Fragments.content(run) for run in sorted(group.runs, key=lambda r: r.id)]


def measured_points(
    group: Group,
    analysis: Analysis,
    group_digests: Mapping[str, str] | None = None,
) -> tuple[list[int], list[int]]:
    """The contexts and request counts the runs of ``group`` measured (their cell grids'),
    kept between builds by the runs' content: the index's picker offers those of every model,
    and without the piece that would mean every run's grid in every build. ``group_digests``:
    see group_content (asked for every model twice a build)."""

    def make() -> str:
        grids = [analysis.grid(run) for run in group.runs]
        return json.dumps(
            [
                sorted({context for grid in grids for context in grid.contexts}),
                sorted({n for grid in grids for n in grid.levels}),
            ]
        )

    inputs = group_content(group, group_digests)
    contexts, levels = json.loads(
        analysis.fragments.get(Fragments.key("measured points", inputs), make)
    )
    return contexts, levels


def site_choice(
    groups: dict[tuple[str, str], Group],
    analysis: Analysis,
    group_digests: Mapping[str, str] | None = None,
) -> PointChoice:
    """point_choice of every run, from each model's measured_points (``group_digests``: theirs)."""
    contexts: set[int] = set()
    levels: set[int] = set()
    for (kind, _), group in groups.items():
        if kind == "models":
            found = measured_points(group, analysis, group_digests)
            contexts.update(found[0])
            levels.update(found[1])
    accelerators = tuple(
        sorted(
            (group.key, group.label) for (kind, _), group in groups.items() if kind == "hardware"
        )
    )
    return PointChoice(
        tuple((c, numbers.context(c)) for c in sorted(contexts)),
        tuple(sorted(levels)),
        analysis.settings.service_levels,
        accelerators,
    )


def run_row(
    site: Site, run: Run, groups: dict[tuple[str, str], Group], analysis: Analysis, label: str = ""
) -> RunRow:
    figures = analysis.headlines(run)
    count, noun = run.hardware.count, labels.DEVICE_NOUN[run.hardware.type]
    engine = " ".join(p for p in (run.engine.name, run.engine.version) if p)
    model_group = groups[("models", model_key(run))]
    hardware_group = groups[("hardware", accelerator_key(run))]
    largest = figures.largest_context
    return RunRow(
        run_id=run.id,
        href=site.url(f"runs/{run.id}/"),
        model=model_name(run),
        model_href=site.url(model_group.path),
        hardware=hardware_name(run, with_memory=False),
        hardware_href=site.url(hardware_group.path),
        engine=engine,
        quantization=run.engine.quantization or numbers.MISSING,
        date=run.info.date or numbers.MISSING,
        decode_single=_figure(
            figures.decode_single, _off_reference(figures.decode_single_context, "× 1"), count, noun
        ),
        decode_peak=_figure(
            figures.decode_peak,
            _peak_at(figures.decode_peak_context, figures.decode_peak_concurrency),
            count,
            noun,
        ),
        prefill_first=_figure(
            figures.prefill_first,
            _prompt_said(
                figures.prefill_first_prompt,
                _off_reference(figures.prefill_first_context, "context"),
            ),
        ),
        largest_context=_largest_context(largest),
        filters=(
            ("model", model_group.label),
            ("accelerator", hardware_group.label),
            ("engine", run.engine.name),
            ("quantization", run.engine.quantization or ""),
        ),
        label=label,
    )


# runs on a page of the index on average, at most twice as many (paging): about 100 KB of HTML, 10
# KB gzipped
PAGE_SIZE = 100
SEARCH_INDEX = "data/index.json"
SEARCH_INDEX_FORMAT = "sitegen-index"
SEARCH_INDEX_VERSION = 2  # 1: one table of texts for every run; 2: a part per model


def page_path(number: int) -> str:
    """The output path of page ``number`` (from 1) of the index."""
    return "index.html" if number == 1 else f"page/{number}/index.html"


def index_paging(groups: dict[tuple[str, str], Group]) -> Paging:
    """Where the index breaks into pages (paging): its models in the index's order."""
    return paging(listed_models(groups), PAGE_SIZE)


@dataclass(frozen=True)
class IndexListing:
    """What every page of the index is made from, worked out once a build: every run in the
    index's order (by model, the fastest peak decode first) with its distinguishing label, and
    the picker's choices."""

    runs: tuple[Run, ...]
    labels: dict[str, str]
    choice: PointChoice


def model_order(
    group: Group, analysis: Analysis, group_digests: Mapping[str, str] | None = None
) -> list[Run]:
    """A model's runs in the index's order (the fastest peak decode first), kept between builds
    by the runs' content: the order of the whole index without every run's headlines.
    ``group_digests``: see group_content."""

    def make() -> str:
        return json.dumps(
            [
                run.id
                for run in sorted(
                    group.runs, key=lambda r: (-(analysis.headlines(r).decode_peak or 0.0), r.id)
                )
            ]
        )

    inputs = group_content(group, group_digests)
    by_id = {run.id: run for run in group.runs}
    return [
        by_id[run_id]
        for run_id in json.loads(analysis.fragments.get(Fragments.key("index order", inputs), make))
    ]


def index_order(
    runs: list[Run],
    analysis: Analysis,
    groups: dict[tuple[str, str], Group] | None = None,
    group_digests: Mapping[str, str] | None = None,
) -> tuple[Run, ...]:
    """Every run in the index's order: by model (model_listing_order), then model_order."""
    models = (
        [g for g in groups.values() if g.kind == "models"]
        if groups is not None
        else model_groups(runs)
    )
    return tuple(
        run
        for group in sorted(models, key=model_listing_order)
        for run in model_order(group, analysis, group_digests)
    )


def index_listing(
    runs: list[Run],
    groups: dict[tuple[str, str], Group],
    analysis: Analysis,
    labels: dict[str, str] | None = None,
    choice: PointChoice | None = None,
    group_digests: Mapping[str, str] | None = None,
) -> IndexListing:
    """What every page of the index is made from; ``group_digests``: see group_content."""
    return IndexListing(
        index_order(runs, analysis, groups, group_digests),
        distinguishing_labels(runs) if labels is None else labels,
        site_choice(groups, analysis, group_digests) if choice is None else choice,
    )


def row_key(
    kind: str, site: Site, run: Run, groups: dict[tuple[str, str], Group], label: str
) -> str:
    """The key of a run's row (or its search-index entry) from ``site``'s page: everything the
    row shows besides sitegen's code and the settings (the cache's scope) is the run's content,
    its groups' paths and labels (its links and filters), its distinguishing label, and the
    page's depth (its links are relative)."""
    model, hardware = groups[("models", model_key(run))], groups[("hardware", accelerator_key(run))]
    return Fragments.key(
        kind,
        site.root,
        Fragments.content(run),
        model.path,
        model.label,
        hardware.path,
        hardware.label,
        label,
    )


def row_html(
    site: Site, run: Run, groups: dict[tuple[str, str], Group], analysis: Analysis, label: str
) -> str:
    """The run's row of the index as runs_table writes it on ``site``'s page, kept between
    builds."""
    fragments = analysis.fragments
    return fragments.get(
        row_key("index row", site, run, groups, label),
        lambda: fragments.render("run_row", run_row(site, run, groups, analysis, label), True),
    )


def pager(site: Site, number: int, paged: Paging, path_of: Callable[[int], str]) -> Pager:
    """Where page ``number`` of ``paged`` is, with links to its neighbours (``path_of`` gives
    a page's output path)."""
    count = paged.count

    def href(n: int) -> str:
        return site.url(path_of(n).removesuffix("index.html"))

    # The first, the last and the pages near this one; a gap is "…". Every page is reached
    # by following "Next" from the first, so the pager need not list them all.
    shown = sorted({1, count, *range(max(1, number - 2), min(count, number + 2) + 1)})
    links: list[PageLink] = []
    previous = 0
    for n in shown:
        if previous and n > previous + 1:
            links.append(PageLink("…", ""))
        links.append(PageLink(str(n), "" if n == number else href(n), n == number))
        previous = n
    start, end = paged.bounds[number - 1]
    return Pager(
        number,
        count,
        end - start,
        href(number - 1) if number > 1 else "",
        href(number + 1) if number < count else "",
        tuple(links),
    )


def index_page(
    site: Site,
    runs: list[Run],
    groups: dict[tuple[str, str], Group],
    analysis: Analysis | None = None,
    number: int = 1,
    listing: Callable[[], IndexListing] | None = None,
    paged: Paging | None = None,
) -> Page:
    """Page ``number`` of the index, its links relative to that page. ``listing`` gives what
    every page is made from (index_listing), shared by the pages of one build so that it is
    worked out once, as ``paged`` (index_paging). Each row is a kept piece (row_html): a page
    whose runs did not change is a join of them, made without a figure of any run."""
    analysis = analysis or Analysis()
    site = site.at(page_path(number))
    shared = listing() if listing is not None else index_listing(runs, groups, analysis)
    paged = paged or index_paging(groups)
    count = paged.count
    start, end = paged.bounds[number - 1]
    rows = Markup(
        "".join(
            row_html(site, run, groups, analysis, shared.labels.get(run.id, ""))
            for run in shared.runs[start:end]
        )
    )
    title = site.title if number == 1 else f"{site.title}: page {number} of {count}"
    context = IndexPageContext(
        site,
        title,
        rows,
        FACETS,
        numbers.context(REFERENCE_CONTEXT),
        preset_links(site, analysis),
        shared.choice,
        len(shared.runs) if number == 1 else None,
        pager(site, number, paged, page_path),
    )
    return Page(page_path(number), "pages/index.html", context)


def _peak_at(context: int | None, concurrency: int | None) -> str | None:
    """Where the peak decode was measured: '8K × 64', and '0 × 4 (no earlier context)'."""
    if context is None:
        return None
    note = f" ({numbers.CONTEXT_ZERO_NOTE})" if context == 0 else ""
    return f"{numbers.context(context)} × {concurrency}{note}"


def _largest_context(tokens: int | None) -> Cell:
    """The longest context a run measured; a 0 (the run measured only requests with no earlier
    context) says so beneath it, as a context of 0 is explained wherever one is shown."""
    if tokens is None:
        return Cell(numbers.MISSING)
    return Cell(
        numbers.context(tokens), str(tokens), numbers.CONTEXT_ZERO_NOTE if tokens == 0 else ""
    )


def search_index_of(
    site: Site, runs: list[Run], analysis: Analysis, model_digests: Mapping[str, str] | None = None
) -> bytes:
    """The search index of a site's runs (see search_part); its links are relative to the site
    root, and site.js puts the page's ``data-root`` before them. Each model's part is a piece
    kept between builds, keyed by everything its rows show: ``model_digests`` (a model group's
    path → its digest from the plan, pages.PlanMemory) names it, or else the runs' row inputs."""
    site = site.at("index.html")
    groups = site_groups(runs)
    labels = distinguishing_labels(runs)

    def part(group: Group) -> Piece:
        digest = model_digests.get(group.path) if model_digests is not None else None
        key = (
            Fragments.key("search part", site.root, digest)
            if digest
            else Fragments.key(
                "search part",
                site.root,
                [
                    row_key("search entry", site, run, groups, labels.get(run.id, ""))
                    for run in group.runs
                ],
            )
        )

        def make() -> str:
            rows = [
                search_entry(run_row(site, run, groups, analysis, labels.get(run.id, "")))
                for run in model_order(group, analysis, model_digests)
            ]
            return json.dumps(search_part(rows), ensure_ascii=False, separators=(",", ":"))

        return analysis.fragments.get_bytes(key, make)

    models = listed_models(groups)
    head = json.dumps(
        {
            "format": SEARCH_INDEX_FORMAT,
            "version": SEARCH_INDEX_VERSION,
            "fields": list(SEARCH_FIELDS),
        },
        separators=(",", ":"),
    )
    # The parts are JSON texts already: joined, not parsed and written again.
    return (head[:-1] + ',"parts":[').encode() + b",".join(part(group) for group in models) + b"]}"


SEARCH_FIELDS = (
    "href",
    "model",
    "model_href",
    "hardware",
    "hardware_href",
    "engine",
    "quantization",
    "date",
    "decode_single",
    "decode_peak",
    "prefill_first",
    "largest_context",
    "filters",
    "label",
)


def search_entry(row: RunRow) -> list[Any]:
    """A row as the search index holds it (SEARCH_FIELDS), texts as they are: a figure is its
    text, sort value, where it was measured and its per-accelerator line."""

    def figure(cell: Cell) -> list[Any]:
        return [cell.text, float(cell.sort) if cell.sort else None, cell.at, cell.per_device]

    return [
        row.href,
        row.model,
        row.model_href,
        row.hardware,
        row.hardware_href,
        row.engine,
        row.quantization,
        row.date,
        figure(row.decode_single),
        figure(row.decode_peak),
        figure(row.prefill_first),
        figure(row.largest_context),
        [[name, value] for name, value in row.filters],
        row.label,
    ]


def search_part(entries: list[list[Any]]) -> dict[str, Any]:
    """Rows of the index (search_entry, in the index's order), compact: each distinct text once
    in ``strings``, each run a list of positions in it (figures: text, sort value, where
    measured, per accelerator). The search index is one part a model, each with its own texts,
    so that a model's part is kept between builds while another model's runs change; site.js
    joins them into one table and builds the same rows as templates/_macros.html's runs_table."""
    strings: dict[str, int] = {}
    # A text's position, a new one when it is new: dict.setdefault inline, without a function
    # of ours per text (29 texts a run).
    at = strings.setdefault

    def figure(cell: list[Any]) -> list[Any]:
        return [
            at(cell[0], len(strings)),
            cell[1],
            at(cell[2], len(strings)),
            at(cell[3], len(strings)),
        ]

    runs = [
        [
            at(href, len(strings)),
            at(model, len(strings)),
            at(model_href, len(strings)),
            at(hardware, len(strings)),
            at(hardware_href, len(strings)),
            at(engine, len(strings)),
            at(quantization, len(strings)),
            at(date, len(strings)),
            figure(single),
            figure(peak),
            figure(prefill),
            figure(largest),
            [[at(name, len(strings)), at(value, len(strings))] for name, value in filters],
            at(label, len(strings)),
        ]
        for (
            href,
            model,
            model_href,
            hardware,
            hardware_href,
            engine,
            quantization,
            date,
            single,
            peak,
            prefill,
            largest,
            filters,
            label,
        ) in entries
    ]
    return {"strings": list(strings), "runs": runs}
