"""What the listing pages share (the index, model and hardware pages, /capacity/, the preset
views): a run's row, the links to the preset views and to a point's figures, and the pager.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from sitegen.config import ServiceLevel
from sitegen.model import Run
from sitegen.site.figures import labels, numbers
from sitegen.site.figures.build_figures import Analysis
from sitegen.site.figures.grouping import (
    Group,
    accelerator_key,
    hardware_groups,
    model_key,
)
from sitegen.site.figures.headlines import REFERENCE_CONTEXT
from sitegen.site.figures.paging import Paging
from sitegen.site.page import Site, hardware_name, model_name


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


def measured_points(group: Group, analysis: Analysis) -> tuple[list[int], list[int]]:
    """The contexts and request counts the runs of ``group`` measured (their cell grids'),
    kept between builds by the group (its digest, or its runs' content): the index's picker
    offers those of every model, and without the piece that would mean every run's grid in
    every build."""
    contexts, levels = json.loads(
        analysis.fragments.cached(_measured_points_text, group, build=analysis)
    )
    return contexts, levels


def _measured_points_text(analysis: Analysis, group: Group) -> str:
    """measured_points as JSON: the contexts and the request counts, each sorted."""
    grids = [analysis.grid(run) for run in group.runs]
    return json.dumps(
        [
            sorted({context for grid in grids for context in grid.contexts}),
            sorted({n for grid in grids for n in grid.levels}),
        ]
    )


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


@dataclass(frozen=True)
class RunGroups:
    """What a run's row shows of its model's and its accelerator's groups: their paths (its
    links) and labels (its filters)."""

    model_path: str
    model_label: str
    hardware_path: str
    hardware_label: str

    @classmethod
    def of(cls, run: Run, groups: Mapping[tuple[str, str], Group]) -> RunGroups:
        model = groups[("models", model_key(run))]
        hardware = groups[("hardware", accelerator_key(run))]
        return cls(model.path, model.label, hardware.path, hardware.label)


def run_row(
    site: Site, run: Run, groups: dict[tuple[str, str], Group], analysis: Analysis, label: str = ""
) -> RunRow:
    return row_of(site, run, RunGroups.of(run, groups), analysis, label)


def row_of(site: Site, run: Run, shown: RunGroups, analysis: Analysis, label: str = "") -> RunRow:
    """``run``'s row on ``site``'s page, its groups as ``shown``."""
    figures = analysis.headlines(run)
    count, noun = run.hardware.count, labels.DEVICE_NOUN[run.hardware.type]
    engine = " ".join(p for p in (run.engine.name, run.engine.version) if p)
    largest = figures.largest_context
    return RunRow(
        run_id=run.id,
        href=site.url(f"runs/{run.id}/"),
        model=model_name(run),
        model_href=site.url(shown.model_path),
        hardware=hardware_name(run, with_memory=False),
        hardware_href=site.url(shown.hardware_path),
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
            ("model", shown.model_label),
            ("accelerator", shown.hardware_label),
            ("engine", run.engine.name),
            ("quantization", run.engine.quantization or ""),
        ),
        label=label,
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
