"""Pages and data made of derived figures (rules in docs/capacity.md): the static
operating-point views /at/<preset>/, /data/capacity.json and the per-context files
/data/points/<context>.json that the index's picker fetches on demand."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass

from markupsafe import Markup

from sitegen.config import Preset, ServiceLevel
from sitegen.measurement_rows import published_figure, without_trailing_nulls
from sitegen.model import Run, Status
from sitegen.site.figures import labels, numbers
from sitegen.site.figures.build_figures import Analysis
from sitegen.site.figures.capacity import (
    CANNOT_TELL,
    CAPACITY_FORMAT,
    CAPACITY_VERSION,
    CONTEXT_TOLERANCE,
    FROM_TIME_BETWEEN_TOKENS,
    MEETS,
    Verdict,
    capacity_records,
    capacity_words,
    judge,
    per_request_speed,
)
from sitegen.site.figures.grouping import Group, model_groups
from sitegen.site.figures.paging import Paging, listed_models, paging
from sitegen.site.incremental.joined import Joined
from sitegen.site.json_rows import RunPieces, dumps, joined_lines, json_rows, row
from sitegen.site.page import Page, Site, engine_summary, hardware_name
from sitegen.site.sections.capacity import (
    DERIVED_NOTE,
    FROM_GAPS,
    TTFT_WORDS,
    CapacityCell,
    LevelNote,
    capacity_cell,
    level_notes,
    priced,
    priced_cost,
    statistic_judged,
)
from sitegen.site.sections.listing import Pager, measured_points, pager

# --- /capacity/ -----------------------------------------------------------------------------


# --- /at/<preset>/ ----------------------------------------------------------------------------

# runs on a page of a preset's view on average, at most twice as many (paging)
AT_PAGE_SIZE = 1000


@dataclass(frozen=True)
class PointRow:
    """One run at an operating point, formatted; ``measured`` is False where it has no cell
    there."""

    href: str
    hardware: str
    engine: str
    measured: bool
    context: str  # the run's own context where it differs from the preset's (within the tolerance)
    status: str
    total: str
    per_device: str
    per_request: str
    ttft: str
    verdict: str
    cost: str
    sort: float  # total tok/s, for the order; -1 where none
    capacity: CapacityCell | None = None  # at the preset's context and level, when it names one


@dataclass(frozen=True)
class PointSection:
    """The runs of one model at an operating point (or the part of them on this page): its
    rows as point_row writes them (templates/_macros.html)."""

    anchor: str
    model: str
    continued: bool
    rows: Markup


@dataclass(frozen=True)
class TocEntry:
    """A model in the first page's list: where its runs are. ``anchor`` is set for the models
    of later pages, so that a model page's link to ``#m-<slug>`` of the first page finds it."""

    label: str
    href: str
    anchor: str


@dataclass(frozen=True)
class PresetPageContext:
    """A static operating-point view (templates/pages/point.html): every run's cell at one
    context × concurrency, readable without JavaScript, about AT_PAGE_SIZE runs a page. ``sections``
    are the models' runs as point_section writes them, each a kept piece."""

    site: Site
    title: str
    heading: str
    level: LevelNote | None
    sections: Markup
    toc: tuple[TocEntry, ...]
    priced: bool
    derived_note: str
    tolerance: str
    dynamic_href: str  # the same view on the index, for readers with JavaScript
    pager: Pager


def _point_row(
    site: Site, run: Run, preset: Preset, level: ServiceLevel | None, analysis: Analysis
) -> PointRow:
    grid = analysis.grid(run)
    found = grid.point_at(preset.context, preset.concurrency)
    base = (site.url(f"runs/{run.id}/"), hardware_name(run), engine_summary(run))
    if found is None:
        return PointRow(*base, False, "", "Not measured", "", "", "", "", "", "", -1.0)
    actual, cell = found
    status = Status(cell["status"])
    total = cell.get("total_tokens_per_s") if status.measured else None
    price = analysis.price(run)
    cost = (
        priced_cost(price, grid.accelerators, total)
        if status == Status.VALID
        else "no valid total here"
    )
    cost = cost if price is not None else f"no price for {run.hardware.accelerator}"
    verdict = ""
    held = None
    if level is not None:
        statistic = statistic_judged(run, level)
        verdict = cell_verdict_words(judge(cell, level, grid.timing), statistic)
        held = capacity_cell(grid.capacity_at(actual, level), "", price, "", statistic)
    return PointRow(
        *base,
        True,
        numbers.context(actual) if actual != preset.context else "",
        labels.STATUSES[status],
        numbers.rate(total),
        numbers.rate(total / grid.accelerators) if total is not None else numbers.MISSING,
        per_request_words(cell),
        numbers.milliseconds(cell.get("ttft_ms")).removesuffix(" ms"),
        verdict,
        cost,
        float(total) if total is not None else -1.0,
        held,
    )


def per_request_words(cell: dict[str, object]) -> str:
    """A cell's per-request tok/s as reported, else from its time between tokens, labelled."""
    speed, source = per_request_speed(cell, None)
    said = " (from time between tokens)" if source == FROM_TIME_BETWEEN_TOKENS else ""
    return numbers.rate(speed) + said


def cell_verdict_words(judged: Verdict, statistic: str) -> str:
    """A cell's verdict in words, with what it judged (statistic_judged, the TTFT, the speed)."""
    gaps = f"; {FROM_GAPS}" if judged.per_request_source == FROM_TIME_BETWEEN_TOKENS else ""
    head = {MEETS: "meets", CANNOT_TELL: "cannot tell"}.get(judged.state, "does not meet")
    why = f": {judged.reason}" if judged.reason else ""
    return f"{head}{why} ({statistic}; {TTFT_WORDS[judged.ttft]}{gaps})"


def preset_path(preset: Preset, number: int) -> str:
    return (
        f"at/{preset.name}/index.html" if number == 1 else f"at/{preset.name}/{number}/index.html"
    )


def preset_paging(groups: dict[tuple[str, str], Group]) -> Paging:
    """Where each preset's view breaks into pages (sitegen/site/figures/paging.py)."""
    return paging(listed_models(groups), AT_PAGE_SIZE)


def point_section(
    site: Site, group: Group, preset: Preset, first: int, last: int, costs: bool, analysis: Analysis
) -> str:
    """``group``'s runs ``first`` to ``last`` at ``preset`` (by total tok/s there, not measured
    last) on ``site``'s page, as point_section writes them. Kept between builds as two pieces,
    as capacity_section's: the model's rows in order (_point_rows) and the section, made from
    them and the part shown (a part after the first is "continued"). The service levels are
    settings, in the cache's scope."""
    fragments = analysis.fragments
    # Asked for even when the section is kept, so that it stays kept for the next build.
    fragments.cached(_point_rows, site, group, preset, costs, build=analysis)
    return fragments.cached(_point_section, site, group, preset, first, last, costs, build=analysis)


def _point_rows(analysis: Analysis, site: Site, group: Group, preset: Preset, costs: bool) -> str:
    """The rows of ``group``'s runs at ``preset`` (the most total tok/s first), as JSON."""
    level = analysis.settings.level(preset.service_level)
    note = level_notes((level,))[0] if level else None
    by_total = sorted(
        group.runs,
        key=lambda run: (
            -(total if (total := _total_at(run, preset, analysis)) is not None else -1.0),
            run.id,
        ),
    )
    return json.dumps(
        [
            analysis.fragments.render(
                "point_row", _point_row(site, run, preset, level, analysis), note, costs
            )
            for run in by_total
        ],
        ensure_ascii=False,
    )


def _point_section(
    analysis: Analysis,
    site: Site,
    group: Group,
    preset: Preset,
    first: int,
    last: int,
    costs: bool,
) -> str:
    """point_section's piece: rows ``first`` to ``last`` of _point_rows in their section."""
    fragments = analysis.fragments
    level = analysis.settings.level(preset.service_level)
    note = level_notes((level,))[0] if level else None
    rows = json.loads(fragments.cached(_point_rows, site, group, preset, costs, build=analysis))
    shown = Markup("".join(rows[first:last]))
    section = PointSection(f"m-{group.slug}", group.label, first > 0, shown)
    return fragments.render("point_section", section, note, costs)


def preset_page(
    site: Site,
    runs: list[Run],
    groups: dict[tuple[str, str], Group],
    preset: Preset,
    analysis: Analysis,
    number: int = 1,
    paged: Paging | None = None,
) -> Page:
    """Page ``number`` of a preset's view (``paged``: preset_paging, worked out once for all
    pages): by model, each model's runs by total tok/s there (not measured last); a model whose
    runs span two pages is on both."""
    site = site.at(preset_path(preset, number))
    level = analysis.settings.level(preset.service_level)
    models = listed_models(groups)
    paged = paged or preset_paging(groups)
    count = paged.count
    costs = priced(runs, analysis)
    parts = paged.slices(models, number)
    sections = Markup(
        "".join(
            point_section(site, group, preset, first, last, costs, analysis)
            for group, first, last in parts
        )
    )
    toc: list[TocEntry] = []
    if number == 1 and count > 1:
        offset = 0
        for group in models:
            page = paged.page_of(offset)  # where the model's first run is
            offset += len(group.runs)
            # From the first page (at/<name>/index.html) to page N: "N/index.html".
            href = ("" if page == 1 else f"{page}/index.html") + f"#m-{group.slug}"
            toc.append(TocEntry(group.label, href, "" if page == 1 else f"m-{group.slug}"))
    heading = (
        f"{numbers.context(preset.context)} context × "
        f"{numbers.count_noun(preset.concurrency, 'request')}"
    )
    query = f"?context={preset.context}&concurrency={preset.concurrency}" + (
        f"&level={level.name}" if level else ""
    )
    title = f"At {heading}" + (f": page {number} of {count}" if number > 1 else "")
    context = PresetPageContext(
        site,
        title,
        heading,
        level_notes((level,))[0] if level else None,
        sections,
        tuple(toc),
        costs,
        DERIVED_NOTE,
        f"±{CONTEXT_TOLERANCE:.0%}",
        site.url() + query,
        pager(site, number, paged, lambda n: preset_path(preset, n)),
    )
    return Page(preset_path(preset, number), "pages/point.html", context)


def _total_at(run: Run, preset: Preset, analysis: Analysis) -> float | None:
    cell = analysis.grid(run).point(preset.context, preset.concurrency)
    if cell is None or not Status(cell["status"]).measured:
        return None
    total = cell.get("total_tokens_per_s")
    return float(total) if total is not None else None


# --- data for scripts and the picker --------------------------------------------------------

# A record's verdict; the figures at its capacity are the run's cells' (data/points/, the run
# JSON), so version 4 leaves them out (docs/capacity.md). Its run and service level are the id
# its line starts with and the level it is listed under.
CAPACITY_FIELDS = (
    "context_tokens",
    "max_concurrency",
    "state",
    "per_request_source",
    "ttft_judged",
    "stopped_at",
    "stopped_state",
    "reason",
)
# The fields whose values are words, each written as its number in the file's "words" (a word
# not there, as itself): the same few words in every record, said once.
_WORD_FIELDS = frozenset({"state", "per_request_source", "ttft_judged", "stopped_state", "reason"})


def capacity_json(runs: list[Run], analysis: Analysis) -> bytes:
    """/data/capacity.json (docs/capacity.md): the field names once, then one record per line."""
    return capacity_joined(runs, analysis).join()[0]


def capacity_joined(runs: list[Run], analysis: Analysis) -> Joined:
    """``capacity_json`` as a file a build splices from its last one (joined.Joined)."""
    head = {
        "format": CAPACITY_FORMAT,
        "version": CAPACITY_VERSION,
        "derived": True,
        "context_tolerance": CONTEXT_TOLERANCE,
        "service_levels": [
            {
                key: value
                for key, value in (
                    ("name", level.name),
                    ("label", level.title),
                    ("min_tokens_per_s_per_request", level.min_tokens_per_s_per_request),
                    ("max_ttft_ms", level.max_ttft_ms),
                    ("max_time_between_tokens_ms", level.max_time_between_tokens_ms),
                    ("percentile", level.percentile),
                    ("ttft", level.ttft),
                )
                if value is not None
            }
            for level in analysis.settings.service_levels
        ],
        "words": list(capacity_words(analysis.settings.service_levels)),
    }
    # A run's records are one piece (json_rows.run_piece): an unchanged run's are read back
    # without making its grid or judging a cell. Sorted by run id, as capacity_records sorts.
    ordered = sorted(runs, key=lambda r: r.id)
    pieces = RunPieces(analysis.fragments, _capacity_lines, ordered, build=analysis)
    return joined_lines(head, CAPACITY_FIELDS, "runs", pieces)


def _capacity_lines(analysis: Analysis, run: Run) -> str:
    """``run``'s line of /data/capacity.json: its id, then its records by service level (in the
    configured order), each an array of the values of CAPACITY_FIELDS that ends at its last
    value (the fields after it are null)."""
    levels = analysis.settings.service_levels
    word_number = _word_numbers(levels)
    by_level: dict[str, list[list[object]]] = {}
    for record in capacity_records([analysis.grid(run)], levels):
        values = without_trailing_nulls(
            [
                word_number.get(record[name], record[name])
                if name in _WORD_FIELDS
                else record[name]
                for name in CAPACITY_FIELDS
            ]
        )
        by_level.setdefault(record["service_level"], []).append(values)
    return row([run.id, by_level]) if by_level else ""


@functools.cache
def _word_numbers(levels: tuple[ServiceLevel, ...]) -> dict[str, int]:
    return {word: number for number, word in enumerate(capacity_words(levels))}


POINT_STATUSES = tuple(status.value for status in Status)  # a cell's status is its index here
# A run's line in a picker file: its cells, and what a verdict needs of the run beside them
# (the accelerator a price is for, how its TTFT was measured, its prefill time at this context).
POINT_FIELDS = (
    "run",
    "accelerators",
    "context_tokens",
    "cells",
    "accelerator",
    "ttft_prompt_cache",
    "prefill_ms",
    "latency_statistic",  # mean or median, where the run's file says (absent at a row's end)
)


def point_columns(levels: tuple[ServiceLevel, ...]) -> tuple[str, ...]:
    """A cell's figures in the picker's files: what it shows and what levels judge (the time
    between tokens, and a configured percentile's statistics)."""
    # The time between tokens always: it stands for the speed where a cell reports none.
    columns = [
        "status",
        "total_tokens_per_s",
        "per_request_tokens_per_s",
        "ttft_ms",
        "time_between_tokens_ms",
    ]
    if any(level.percentile for level in levels):
        columns.append("statistics")
    return tuple(columns)


def _point_cell(cell: dict[str, object], columns: tuple[str, ...]) -> list[object]:
    values = [
        POINT_STATUSES.index(str(cell["status"])),
        *(_published(cell.get(name)) for name in columns[1:]),
    ]
    return without_trailing_nulls(values)  # absent figures at the end are left out


def _published(value: object) -> object:
    """A figure, or a cell's statistics, at the precision the run JSON publishes it."""
    if isinstance(value, dict):
        return {key: _published(item) for key, item in value.items()}
    return published_figure(value)


def model_point_files(group: Group, analysis: Analysis) -> dict[str, bytes]:
    """One model's files of the operating-point picker: ``data/points/<context>/<model>.json``
    for each context any of its runs measured (see point_files)."""
    columns = point_columns(analysis.settings.service_levels)
    files: dict[str, bytes] = {}
    grids = [analysis.grid(run) for run in sorted(group.runs, key=lambda r: r.id)]
    for wanted in sorted({c for grid in grids for c in grid.contexts}):
        found = [(grid, at) for grid in grids if (at := grid.row_for(wanted)) is not None]
        ladder = sorted({n for _, (_, cells) in found for n in cells})
        rows = []
        prices = {}
        for grid, (actual, cells) in found:
            line = without_trailing_nulls(
                [_point_cell(cells[n], columns) if n in cells else None for n in ladder]
            )
            timing = grid.timing
            values: list[object] = [
                grid.run.id,
                grid.accelerators,
                actual,
                line,
                grid.run.hardware.accelerator,
                timing.prompt_cache,
                published_figure(timing.prefill_at(actual)),
                grid.run.info.latency_statistic,
            ]
            rows.append(without_trailing_nulls(values))  # as a cell's figures are
            if (price := analysis.price(grid.run)) is not None:
                prices[grid.run.id] = price.usd_per_hour
        head: dict[str, object] = {
            "context_tokens": wanted,
            "concurrency": ladder,
            "statuses": list(POINT_STATUSES),
            "columns": list(columns),
        }
        if prices:
            head["prices"] = prices
        files[point_file(wanted, group)] = json_rows(head, POINT_FIELDS, rows, "runs")
    return files


def point_file(context: int, group: Group) -> str:
    return f"data/points/{context}/{group.slug}.json"


def point_contexts(
    runs: list[Run], analysis: Analysis, groups: list[Group] | None = None
) -> dict[str, bytes]:
    """``data/points/<context>.json``: which models have a file at each context, so the picker
    asks only for files that exist. ``groups`` are the runs' model groups, when the caller has
    them (the plan's, with their digests: measured_points)."""
    present: dict[int, list[str]] = {}
    for group in model_groups(runs) if groups is None else groups:
        for wanted in measured_points(group, analysis)[0]:  # kept by the model's group
            present.setdefault(wanted, []).append(group.slug)
    return {
        f"data/points/{wanted}.json": (
            dumps({"context_tokens": wanted, "models": sorted(slugs)}) + "\n"
        ).encode()
        for wanted, slugs in present.items()
    }


def point_files(runs: list[Run], analysis: Analysis) -> dict[str, bytes]:
    """The operating-point picker's data, fetched only when a reader asks (the first load of a
    page carries none of it): ``data/points/<context>/<model>.json`` holds every cell at that
    context of each run of that model whose own context matches it (docs/capacity.md).

    A page of runs fetches one file per model it lists, so what a reader loads is bounded by
    the page, not by the site; each cell is in its own context's file (and its neighbours'
    within the tolerance), so the total grows linearly with the cells. Figures are as the run
    JSON publishes them (measurement_rows.published_figure): a limit's own value stays exact,
    so the picker's threshold tests hold at the boundaries. The build writes
    each model's files apart (model_point_files), so an added run rewrites only its model's."""
    files: dict[str, bytes] = {}
    for group in model_groups(runs):
        files.update(model_point_files(group, analysis))
    files.update(point_contexts(runs, analysis))
    return files
