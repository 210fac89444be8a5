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

from sitegen.model import Run
from sitegen.site.figures import numbers
from sitegen.site.figures.build_figures import Analysis
from sitegen.site.figures.grouping import (
    Group,
    accelerator_key,
    model_groups,
    site_groups,
)
from sitegen.site.figures.headlines import REFERENCE_CONTEXT
from sitegen.site.figures.labels import distinguishing_labels
from sitegen.site.figures.paging import Paging, listed_models, model_listing_order, paging
from sitegen.site.incremental.fragments import Piece, key_of
from sitegen.site.incremental.joined import Joined
from sitegen.site.page import Page, Site
from sitegen.site.sections.listing import (
    Cell,
    Pager,
    PointChoice,
    PresetLink,
    RunGroups,
    RunRow,
    measured_points,
    pager,
    preset_links,
    row_of,
)


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


def site_choice(groups: dict[tuple[str, str], Group], analysis: Analysis) -> PointChoice:
    """point_choice of every run, from each model's measured_points."""
    contexts: set[int] = set()
    levels: set[int] = set()
    for (kind, _), group in groups.items():
        if kind == "models":
            found = measured_points(group, analysis)
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


# runs on a page of the index on average, at most twice as many (paging)
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


def model_order(group: Group, analysis: Analysis) -> list[Run]:
    """A model's runs in the index's order (the fastest peak decode first), kept between builds
    by the group (its digest, or its runs' content): the order of the whole index without every
    run's headlines."""
    by_id = {run.id: run for run in group.runs}
    text = analysis.fragments.cached(_model_order_text, group, build=analysis)
    return [by_id[run_id] for run_id in json.loads(text)]


def _model_order_text(analysis: Analysis, group: Group) -> str:
    """model_order as JSON: the runs' ids."""
    ordered = sorted(group.runs, key=lambda r: (-(analysis.headlines(r).decode_peak or 0.0), r.id))
    return json.dumps([run.id for run in ordered])


def index_order(
    runs: list[Run], analysis: Analysis, groups: dict[tuple[str, str], Group] | None = None
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
        for run in model_order(group, analysis)
    )


def index_listing(
    runs: list[Run],
    groups: dict[tuple[str, str], Group],
    analysis: Analysis,
    labels: dict[str, str] | None = None,
    choice: PointChoice | None = None,
) -> IndexListing:
    """What every page of the index is made from."""
    return IndexListing(
        index_order(runs, analysis, groups),
        distinguishing_labels(runs) if labels is None else labels,
        site_choice(groups, analysis) if choice is None else choice,
    )


def row_html(
    site: Site, run: Run, groups: dict[tuple[str, str], Group], analysis: Analysis, label: str
) -> str:
    """The run's row of the index as runs_table writes it on ``site``'s page, kept between
    builds."""
    shown = RunGroups.of(run, groups)
    return analysis.fragments.cached(_index_row, site, run, shown, label, build=analysis)


def _index_row(analysis: Analysis, site: Site, run: Run, shown: RunGroups, label: str) -> str:
    row = row_of(site, run, shown, analysis, label)
    return analysis.fragments.render("run_row", row, True)


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


def search_index_of(
    site: Site,
    runs: list[Run],
    analysis: Analysis,
    groups: Mapping[tuple[str, str], Group] | None = None,
    labels: Mapping[str, str] | None = None,
) -> bytes:
    """The search index of a site's runs (see search_part); its links are relative to the site
    root, and site.js puts the page's ``data-root`` before them. Each model's part is a piece
    kept between builds (_search_part), made from the model's group (the plan's ``groups``
    carry their digests), its runs' accelerators' paths and labels and its runs'
    distinguishing labels. ``labels``: distinguishing_labels of ``runs``, when the caller has
    them (the plan's)."""
    return search_index_joined(site, runs, analysis, groups, labels).join()[0]


def search_index_joined(
    site: Site,
    runs: list[Run],
    analysis: Analysis,
    groups: Mapping[tuple[str, str], Group] | None = None,
    labels: Mapping[str, str] | None = None,
) -> Joined:
    """``search_index_of`` as a file a build splices from its last one (joined.Joined)."""
    site = site.at("index.html")
    groups = dict(groups) if groups is not None else site_groups(runs)
    if labels is None:
        labels = distinguishing_labels(runs)

    def arguments(group: Group) -> tuple[object, ...]:
        """What the model's part is made from, besides what every part shares."""
        accelerators = tuple(
            (key, groups["hardware", key].path, groups["hardware", key].label)
            for key in sorted({accelerator_key(run) for run in group.runs})
        )
        shown = tuple(labels.get(run.id, "") for run in group.runs)
        return site, group, accelerators, shown

    models = listed_models(groups)
    made = [arguments(group) for group in models]

    def part(at: int) -> Piece:
        return analysis.fragments.cached_bytes(_search_part, *made[at], build=analysis)

    head = json.dumps(
        {
            "format": SEARCH_INDEX_FORMAT,
            "version": SEARCH_INDEX_VERSION,
            "fields": list(SEARCH_FIELDS),
        },
        separators=(",", ":"),
    )
    # The parts are JSON texts already: joined, not parsed and written again.
    return Joined(
        (head[:-1] + ',"parts":[').encode(),
        b",",
        b"]}",
        [key_of(_search_part, *shown) for shown in made],
        part,
        analysis.fragments.scope,
    )


def _search_part(
    analysis: Analysis,
    site: Site,
    group: Group,
    accelerators: tuple[tuple[str, str, str], ...],
    labels: tuple[str, ...],
) -> str:
    """A model's part of the search index: its runs' rows (in the index's order) on ``site``'s
    page, each run's accelerator found among ``accelerators`` (key, path, label) and its
    distinguishing label in ``labels`` (the group's runs' order)."""
    hardware = {key: (path, name) for key, path, name in accelerators}
    label_of = dict(zip((run.id for run in group.runs), labels, strict=True))
    rows = []
    for run in model_order(group, analysis):
        hardware_path, hardware_label = hardware[accelerator_key(run)]
        shown = RunGroups(group.path, group.label, hardware_path, hardware_label)
        rows.append(search_entry(row_of(site, run, shown, analysis, label_of[run.id])))
    return json.dumps(search_part(rows), ensure_ascii=False, separators=(",", ":"))


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
