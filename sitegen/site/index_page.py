"""The index, at /: every run with its headline figures, sorted, filterable with JavaScript."""

from __future__ import annotations

from dataclasses import dataclass

from sitegen.model import Run
from sitegen.site import numbers
from sitegen.site.common import Page, Site, hardware_name, model_name
from sitegen.site.groups import Group, accelerator_key, model_key
from sitegen.site.headlines import headlines
from sitegen.site.labels import distinguishing_labels


@dataclass(frozen=True)
class Cell:
    """A table cell: the text shown, where the figure was measured ('8K context', shown
    beneath it), and the raw value it sorts by ('' sorts last)."""

    text: str
    sort: str = ""
    at: str = ""


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
class IndexPageContext:
    """The index (templates/pages/index.html): one row of headline figures per run."""

    site: Site
    title: str
    rows: tuple[RunRow, ...]
    facets: tuple[Facet, ...]


def _figure(value: float | None, at: str | None = None) -> Cell:
    if value is None:
        return Cell(numbers.MISSING)
    return Cell(numbers.rate(value), repr(float(value)), f"at {at}" if at else "")


def run_row(site: Site, run: Run, groups: dict[tuple[str, str], Group], label: str = "") -> RunRow:
    figures = headlines(run)
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
        decode_single=_figure(figures.decode_single, f"{numbers.context(figures.decode_single_context)} context"
                              if figures.decode_single_context is not None else None),
        decode_peak=_figure(figures.decode_peak, numbers.count_noun(figures.decode_peak_concurrency, "request")
                            if figures.decode_peak_concurrency else None),
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


def index_page(site: Site, runs: list[Run], groups: dict[tuple[str, str], Group]) -> Page:
    ordered = sorted(runs, key=lambda r: (model_key(r), -(headlines(r).decode_peak or 0.0), r.id))
    run_labels = distinguishing_labels(runs)
    rows = tuple(run_row(site, run, groups, run_labels.get(run.id, "")) for run in ordered)
    return Page("index.html", "pages/index.html", IndexPageContext(site, site.title, rows, _facets(rows)))
