"""Pages and data made of derived figures (rules in docs/capacity.md): the capacity table of a
run page, /capacity/, the static operating-point views /at/<preset>/, /data/capacity.json and
the per-context files /data/points/<context>.json that the index's picker fetches on demand."""

from __future__ import annotations

import json
from dataclasses import dataclass

from sitegen.config import Preset, Price, ServiceLevel
from sitegen.model import Run, Status
from sitegen.site import labels, numbers
from sitegen.site.analysis import Analysis
from sitegen.site.capacity import (
    CAPACITY_FORMAT,
    CAPACITY_VERSION,
    CONTEXT_TOLERANCE,
    Capacity,
    CellGrid,
    capacity,
    capacity_records,
    context_matches,
    cost_per_million_tokens,
    judge,
)
from sitegen.site.common import Page, Site, engine_summary, hardware_name, model_name
from sitegen.site.groups import Group, model_key

DERIVED_NOTE = ("Derived figures: worked out from each cell's reported statistics by the rules linked here, "
                "not measured goodput.")


@dataclass(frozen=True)
class LevelNote:
    """A service level as pages describe it."""

    name: str
    title: str
    rule: str


def level_rule(level: ServiceLevel) -> str:
    parts = [f"at least {level.min_tokens_per_s_per_request:g} tok/s per request",
             f"TTFT at most {numbers.milliseconds(level.max_ttft_ms)}"]
    if level.max_time_between_tokens_ms is not None:
        parts.append(f"at most {numbers.milliseconds_fine(level.max_time_between_tokens_ms)} between tokens")
    rule = ", ".join(parts)
    return rule + (f", at {level.percentile}" if level.percentile else "")


def level_notes(levels: tuple[ServiceLevel, ...]) -> tuple[LevelNote, ...]:
    return tuple(LevelNote(level.name, level.title, level_rule(level)) for level in levels)


@dataclass(frozen=True)
class CapacityFigure:
    """One capacity, formatted: requests held, total and per-accelerator tok/s, users per
    accelerator, and cost where a price is known. ``held`` is "—" when no load meets the level."""

    held: str
    total: str
    per_device: str
    users_per_device: str
    cost: str
    sort: str  # users per accelerator, for sorting ('' sorts last)


def capacity_figure(found: Capacity, price: Price | None) -> CapacityFigure:
    if found.max_concurrency is None:
        return CapacityFigure(numbers.MISSING, "", "", "", "", "")
    users = found.users_per_accelerator or 0.0
    cost = cost_per_million_tokens(price.usd_per_hour, found.accelerators, found.total_tokens_per_s) if price else None
    return CapacityFigure(
        held=numbers.count_noun(found.max_concurrency, "request"),
        total=numbers.rate(found.total_tokens_per_s),
        per_device=numbers.rate(found.tokens_per_s_per_accelerator),
        users_per_device=numbers.decimal(users) if users % 1 else str(int(users)),
        cost=money(cost) if cost is not None else "",
        sort=repr(users),
    )


def money(usd: float) -> str:
    return f"${usd:,.2f}" if usd >= 0.1 else f"${usd:.4f}"


@dataclass(frozen=True)
class CapacityRow:
    """One context of a run: its capacity at each service level."""

    context: str
    figures: tuple[CapacityFigure, ...]


@dataclass(frozen=True)
class RunCapacity:
    """The capacity table under a run page's matrix."""

    levels: tuple[LevelNote, ...]
    rows: tuple[CapacityRow, ...]
    device_noun: str
    accelerators: int  # the run's accelerator count, the divisor of users per accelerator
    price: str  # "" without a configured price
    docs_href: str


def run_capacity(site: Site, run: Run, analysis: Analysis) -> RunCapacity | None:
    levels = analysis.settings.service_levels
    grid = analysis.grid(run)
    if not levels or not grid.rows:
        return None
    price = analysis.price(run)
    rows = tuple(
        CapacityRow(numbers.context(context),
                    tuple(capacity_figure(capacity(context, grid.rows[context], level, grid.accelerators), price)
                          for level in levels))
        for context in grid.contexts
    )
    return RunCapacity(level_notes(levels), rows, labels.DEVICE_NOUN[run.hardware.type], run.hardware.count,
                       price_text(price),
                       docs_href=site.url("capacity/#rules"))


def price_text(price: Price | None) -> str:
    if price is None:
        return ""
    return f"${price.usd_per_hour:g} per accelerator-hour ({price.source}, {price.date})"


# --- /capacity/ -----------------------------------------------------------------------------

@dataclass(frozen=True)
class SetupRow:
    """One run at one context in a model's capacity ranking."""

    context: str  # the context the row is ranked at (the first of its cluster)
    first_of_context: bool  # starts a new context: the table draws a rule above it
    href: str
    name: str
    engine: str
    run_context: str  # the run's own context, which may differ slightly
    figures: tuple[CapacityFigure, ...]
    ranks: tuple[str, ...]  # "#1" … per level among the setups at this context; "" when none meets it


@dataclass(frozen=True)
class ModelCapacity:
    """One model's setups, by context, ranked."""

    anchor: str
    model: str
    href: str
    rows: tuple[SetupRow, ...]


@dataclass(frozen=True)
class CapacityPageContext:
    """/capacity/ (templates/pages/capacity.html): per model and context, every setup ranked."""

    site: Site
    title: str
    levels: tuple[LevelNote, ...]
    models: tuple[ModelCapacity, ...]
    priced: bool
    derived_note: str
    tolerance: str


def context_clusters(contexts: set[int]) -> list[int]:
    """Contexts that stand for the others: ascending, each absorbing the ones within the
    tolerance of it (8,000 and 8,192 share 8,000's rows; the actual context is shown)."""
    leaders: list[int] = []
    for context in sorted(contexts):
        if not leaders or not context_matches(context, leaders[-1]):
            leaders.append(context)
    return leaders


def _ranks(values: list[float | None]) -> list[str]:
    # Competition ranking ("1, 2, 2, 4"); a setup that meets nothing has no rank.
    ordered = sorted((v for v in values if v is not None), reverse=True)
    return [f"#{ordered.index(v) + 1}" if v is not None else "" for v in values]


def capacity_page(site: Site, runs: list[Run], groups: dict[tuple[str, str], Group], analysis: Analysis) -> Page:
    levels = analysis.settings.service_levels
    models = []
    by_model: dict[str, list[Run]] = {}
    for run in runs:
        by_model.setdefault(model_key(run), []).append(run)
    for key in sorted(by_model):
        members = by_model[key]
        group = groups[("models", key)]
        contexts = {c for run in members for c in analysis.grid(run).contexts}
        model_rows: list[SetupRow] = []
        for leader in context_clusters(contexts):
            found_here = []
            for run in members:
                grid = analysis.grid(run)
                found = grid.row_for(leader)
                if found is not None:
                    actual, cells = found
                    found_here.append((run, actual, [capacity(actual, cells, level, grid.accelerators)
                                                     for level in levels]))
            # Ranked by the first level's users per accelerator; not meeting it sorts last.
            found_here.sort(key=lambda item: (-(item[2][0].users_per_accelerator or -1.0) if levels else 0.0,
                                              item[0].id))
            ranks = [_ranks([item[2][i].users_per_accelerator for item in found_here]) for i in range(len(levels))]
            for index, (run, actual, held) in enumerate(found_here):
                price = analysis.price(run)
                model_rows.append(SetupRow(
                    numbers.context(leader), index == 0, site.url(f"runs/{run.id}/"), hardware_name(run),
                    engine_summary(run), numbers.context(actual),
                    tuple(capacity_figure(found, price) for found in held),
                    tuple(ranks[i][index] for i in range(len(levels))),
                ))
        models.append(ModelCapacity(f"m-{group.slug}", group.label, site.url(group.path), tuple(model_rows)))
    priced = any(analysis.price(run) for run in runs)
    context = CapacityPageContext(site, "Capacity at a service level", level_notes(levels), tuple(models), priced,
                                  DERIVED_NOTE, f"±{CONTEXT_TOLERANCE:.0%}")
    return Page("capacity/index.html", "pages/capacity.html", context)


# --- /at/<preset>/ ----------------------------------------------------------------------------

@dataclass(frozen=True)
class PointRow:
    """One run at an operating point, formatted; ``measured`` is False where it has no cell there."""

    href: str
    model: str
    hardware: str
    engine: str
    measured: bool
    context: str
    status: str
    total: str
    per_device: str
    per_request: str
    ttft: str
    verdict: str
    cost: str
    sort: str
    capacity: CapacityFigure | None = None  # at the preset's context and level, when it names one


@dataclass(frozen=True)
class PointSection:
    """The runs of one model at an operating point."""

    anchor: str
    model: str
    rows: tuple[PointRow, ...]


@dataclass(frozen=True)
class PresetPageContext:
    """A static operating-point view (templates/pages/point.html): every run's cell at one
    context × concurrency, readable without JavaScript."""

    site: Site
    title: str
    heading: str
    level: LevelNote | None
    sections: tuple[PointSection, ...]
    priced: bool
    derived_note: str
    tolerance: str
    dynamic_href: str  # the same view on the index, for readers with JavaScript


def _point_row(site: Site, run: Run, preset: Preset, level: ServiceLevel | None, analysis: Analysis) -> PointRow:
    grid = analysis.grid(run)
    found = grid.row_for(preset.context)
    cell = found[1].get(preset.concurrency) if found else None
    base = (site.url(f"runs/{run.id}/"), model_name(run), hardware_name(run), engine_summary(run))
    if cell is None or found is None:
        return PointRow(*base, False, "", "Not measured", "", "", "", "", "", "", "")
    status = Status(cell["status"])
    total = cell.get("total_tokens_per_s") if status.measured else None
    price = analysis.price(run)
    cost = cost_per_million_tokens(price.usd_per_hour, grid.accelerators, total) \
        if price and status == Status.VALID else None
    verdict = ""
    held = None
    if level is not None:
        judged = judge(cell, level)
        verdict = "meets" if judged.met else f"no: {judged.reason}"
        held = capacity_figure(capacity(found[0], found[1], level, grid.accelerators), price)
    return PointRow(
        *base, True, numbers.context(found[0]), labels.STATUSES[status],
        numbers.rate(total), numbers.rate(total / grid.accelerators) if total is not None else numbers.MISSING,
        numbers.rate(cell.get("per_request_tokens_per_s")), numbers.milliseconds(cell.get("ttft_ms")),
        verdict, money(cost) if cost is not None else "", repr(float(total)) if total is not None else "", held,
    )


def preset_page(site: Site, runs: list[Run], groups: dict[tuple[str, str], Group], preset: Preset,
                analysis: Analysis) -> Page:
    level = analysis.settings.level(preset.service_level)
    by_model: dict[str, list[Run]] = {}
    for run in runs:
        by_model.setdefault(model_key(run), []).append(run)
    sections = []
    for key in sorted(by_model):
        group = groups[("models", key)]
        rows = sorted((_point_row(site, run, preset, level, analysis) for run in by_model[key]),
                      key=lambda r: (not r.measured, -(float(r.sort) if r.sort else 0.0), r.href))
        sections.append(PointSection(f"m-{group.slug}", group.label, tuple(rows)))
    heading = f"{numbers.context(preset.context)} context × {numbers.count_noun(preset.concurrency, 'request')}"
    query = f"?context={preset.context}&concurrency={preset.concurrency}" + (f"&level={level.name}" if level else "")
    context = PresetPageContext(
        site, f"At {heading}", heading, level_notes((level,))[0] if level else None, tuple(sections),
        any(analysis.price(run) for run in runs), DERIVED_NOTE, f"±{CONTEXT_TOLERANCE:.0%}",
        site.url() + query,
    )
    return Page(f"at/{preset.name}/index.html", "pages/point.html", context)


# --- data for scripts and the picker --------------------------------------------------------

def capacity_json(runs: list[Run], analysis: Analysis) -> bytes:
    """/data/capacity.json (docs/capacity.md)."""
    document = {
        "format": CAPACITY_FORMAT,
        "version": CAPACITY_VERSION,
        "derived": True,
        "context_tolerance": CONTEXT_TOLERANCE,
        "service_levels": [
            {key: value for key, value in (
                ("name", level.name), ("label", level.title),
                ("min_tokens_per_s_per_request", level.min_tokens_per_s_per_request),
                ("max_ttft_ms", level.max_ttft_ms), ("max_time_between_tokens_ms", level.max_time_between_tokens_ms),
                ("percentile", level.percentile)) if value is not None}
            for level in analysis.settings.service_levels
        ],
        "records": capacity_records((analysis.grid(run) for run in runs), analysis.settings.service_levels),
    }
    return (json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


POINT_COLUMNS = ("concurrency", "status", "total_tokens_per_s", "per_request_tokens_per_s", "ttft_ms",
                 "time_between_tokens_ms", "statistics")


def _compact(document: dict[str, object]) -> bytes:
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def point_files(runs: list[Run], analysis: Analysis) -> dict[str, bytes]:
    """The operating-point picker's data, fetched only when a reader asks (the index's first
    load carries none of it), in two kinds of pieces:

    - ``data/points/<context>/<concurrency>.json``: each run whose own context matches
      ``<context>``, with its cell at ``<concurrency>`` (or null) and its capacity at that
      context for every configured service level. What a named level needs, one small file.
    - ``data/points/<context>.json``: the same runs with every cell at that context, for the
      reader's own thresholds, where capacity is worked out in the browser.

    Every cell lands in the files of its own context (and of neighbours within the
    tolerance), so the total grows linearly with the cells."""
    levels = analysis.settings.service_levels
    grids = [analysis.grid(run) for run in sorted(runs, key=lambda r: r.id)]
    contexts = sorted({c for grid in grids for c in grid.contexts})
    files: dict[str, bytes] = {}
    for wanted in contexts:
        rows: dict[str, tuple[int, dict[int, dict[str, object]], CellGrid]] = {}
        for grid in grids:
            found = grid.row_for(wanted)
            if found is not None:
                rows[grid.run.id] = (found[0], found[1], grid)
        entries = {}
        for run_id, (actual, cells, grid) in rows.items():
            price = analysis.price(grid.run)
            entries[run_id] = {
                "context_tokens": actual, "accelerators": grid.accelerators,
                "price_usd_per_hour": price.usd_per_hour if price else None,
                "cells": [[cell.get(name) for name in POINT_COLUMNS] for _, cell in sorted(cells.items())],
            }
        files[f"data/points/{wanted}.json"] = _compact(
            {"context_tokens": wanted, "columns": list(POINT_COLUMNS), "runs": entries})
        held = {run_id: [capacity(actual, cells, level, grid.accelerators) for level in levels]
                for run_id, (actual, cells, grid) in rows.items()}
        for concurrency in sorted({n for _, cells, _ in rows.values() for n in cells}):
            pair = {
                run_id: {
                    **{key: value for key, value in entries[run_id].items() if key != "cells"},
                    "cell": ([cells[concurrency].get(name) for name in POINT_COLUMNS]
                             if concurrency in cells else None),
                    "capacity": [[found.max_concurrency, found.total_tokens_per_s] if found.max_concurrency else None
                                 for found in held[run_id]],
                }
                for run_id, (_, cells, _) in rows.items()
            }
            files[f"data/points/{wanted}/{concurrency}.json"] = _compact({
                "context_tokens": wanted, "concurrency": concurrency, "columns": list(POINT_COLUMNS),
                "service_levels": [level.name for level in levels], "runs": pair})
    return files
