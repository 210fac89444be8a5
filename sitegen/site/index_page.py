"""The index, at /: every run with its headline figures, sorted, filterable with JavaScript."""

from __future__ import annotations

from dataclasses import dataclass

from sitegen.config import ServiceLevel
from sitegen.model import Run
from sitegen.site import labels, numbers
from sitegen.site.analysis import Analysis
from sitegen.site.common import Page, Site, hardware_name, model_name
from sitegen.site.groups import Group, accelerator_key, model_key
from sitegen.site.headlines import REFERENCE_CONTEXT
from sitegen.site.labels import distinguishing_labels


@dataclass(frozen=True)
class Cell:
    """A table cell: the text shown, where the figure was measured ('8K context', shown
    beneath it), and the raw value it sorts by ('' sorts last)."""

    text: str
    sort: str = ""
    at: str = ""
    per_device: str = ""  # derived: the figure divided by the run's accelerators, e.g. "617 per GPU"


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
    """One filter of the index: its name and the values runs have."""

    name: str
    label: str
    values: tuple[str, ...]


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


@dataclass(frozen=True)
class IndexPageContext:
    """The index (templates/pages/index.html): one row of headline figures per run."""

    site: Site
    title: str
    rows: tuple[RunRow, ...]
    facets: tuple[Facet, ...]
    reference_context: str
    presets: tuple[PresetLink, ...]
    choice: PointChoice


def _figure(value: float | None, at: str | None = None, divisor: int = 1, noun: str = "") -> Cell:
    if value is None:
        return Cell(numbers.MISSING)
    per_device = f"{numbers.rate(value / divisor)} per {noun}" if noun and divisor > 1 else ""
    return Cell(numbers.rate(value), repr(float(value)), f"at {at}" if at else "", per_device)


def preset_links(site: Site, analysis: Analysis) -> tuple[PresetLink, ...]:
    links = []
    for preset in analysis.settings.presets:
        label = f"{numbers.context(preset.context)} context × {numbers.count_noun(preset.concurrency, 'request')}"
        query = f"context={preset.context}&concurrency={preset.concurrency}"
        if preset.service_level and (level := analysis.settings.level(preset.service_level)):
            label += f", {level.name}"
            query += f"&level={level.name}"
        links.append(PresetLink(label, site.url(f"at/{preset.name}/"), query))
    return tuple(links)


def point_choice(site: Site, runs: list[Run], analysis: Analysis) -> PointChoice:
    contexts = sorted({context for run in runs for context in analysis.grid(run).contexts})
    levels = sorted({c for run in runs for row in analysis.grid(run).rows.values() for c in row})
    return PointChoice(tuple((c, numbers.context(c)) for c in contexts), tuple(levels),
                       analysis.settings.service_levels)


def run_row(site: Site, run: Run, groups: dict[tuple[str, str], Group], analysis: Analysis,
            label: str = "") -> RunRow:
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
        decode_single=_figure(figures.decode_single, f"{numbers.context(figures.decode_single_context)} × 1"
                              if figures.decode_single_context is not None else None, count, noun),
        decode_peak=_figure(figures.decode_peak, f"{numbers.context(figures.decode_peak_context)} × "
                            f"{figures.decode_peak_concurrency}" if figures.decode_peak_context is not None else None,
                            count, noun),
        prefill_first=_figure(figures.prefill_first, f"{numbers.context(figures.prefill_first_context)} context"
                              if figures.prefill_first_context is not None else None),
        largest_context=Cell(numbers.context(largest), str(largest)) if largest is not None else Cell(numbers.MISSING),
        filters=(("model", model_group.label), ("accelerator", hardware_group.label),
                 ("engine", run.engine.name), ("quantization", run.engine.quantization or "")),
        label=label,
    )


def _facets(rows: tuple[RunRow, ...]) -> tuple[Facet, ...]:
    labels = {"model": "Model", "accelerator": "Accelerator", "engine": "Engine", "quantization": "Quantization"}
    # Filters match case-insensitively ('sglang' and 'SGLang' are one engine); the first spelling is shown.
    values: dict[str, dict[str, str]] = {name: {} for name in labels}
    for row in rows:
        for name, value in row.filters:
            if value:
                values[name].setdefault(value.lower(), value)
    return tuple(Facet(name, label, tuple(sorted(values[name].values(), key=str.lower))) for name, label in labels.items())


def index_page(site: Site, runs: list[Run], groups: dict[tuple[str, str], Group],
               analysis: Analysis | None = None) -> Page:
    analysis = analysis or Analysis()
    ordered = sorted(runs, key=lambda r: (model_key(r), -(analysis.headlines(r).decode_peak or 0.0), r.id))
    run_labels = distinguishing_labels(runs)
    rows = tuple(run_row(site, run, groups, analysis, run_labels.get(run.id, "")) for run in ordered)
    context = IndexPageContext(site, site.title, rows, _facets(rows), numbers.context(REFERENCE_CONTEXT),
                               preset_links(site, analysis), point_choice(site, runs, analysis))
    return Page("index.html", "pages/index.html", context)
