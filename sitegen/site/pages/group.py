"""Comparison pages for a group of runs: /models/<model>/ and /hardware/<accelerator>/."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from markupsafe import Markup

from sitegen.model import DecodeCell, Run
from sitegen.site.draw.chart_specs import (
    MAX_SERIES,
    PALETTE,
    SHAPES,
    ChartSpec,
    Series,
    _canonical,
    _frontier,
    prefill_overlay,
)
from sitegen.site.draw.plots import Plot
from sitegen.site.figures import numbers
from sitegen.site.figures.build_figures import Analysis
from sitegen.site.figures.grouping import Group, compare_path, model_key
from sitegen.site.figures.headlines import REFERENCE_CONTEXT
from sitegen.site.figures.labels import distinguishing_labels, with_label
from sitegen.site.figures.run_colours import chart_places, model_places
from sitegen.site.json_rows import dumps
from sitegen.site.page import Field, Page, Site, hardware_name, model_name
from sitegen.site.sections.capacity import ModelLevelLinks, model_level_links
from sitegen.site.sections.curves import (
    decode_plot,
    frontier_cells,
    measured_contexts,
    pareto_plot,
    shared_contexts,
)
from sitegen.site.sections.listing import (
    PointChoice,
    PresetLink,
    RunGroups,
    RunRow,
    point_choice,
    preset_links,
    row_of,
)
from sitegen.site.sections.setups import SetupLink


@dataclass(frozen=True)
class GroupPageContext:
    """A model page or an accelerator page (templates/pages/group.html)."""

    site: Site
    title: str
    eyebrow: str
    heading: str
    summary: str
    rows: Markup  # each run's row as runs_table writes it, a piece kept between builds
    all_runs_links: (
        bool  # whether the rows link to all runs of their model (not on a model's own page)
    )
    decode_plots: tuple[
        Plot, ...
    ]  # the chart at the default context (default_context), drawn in the page
    decode_others: (
        str  # the other shared contexts, in words ("16K, 32K and 64K"), drawn by group.js
    )
    decode_data: Markup  # what group.js needs to draw them (an attribute's JSON, see decode_charts)
    prefill_chart: ChartSpec | None
    prefill_note: str | None
    charted_note: str | None
    comparisons: tuple[Field, ...]
    pareto: tuple[ParetoAt, ...]  # model pages: the frontier at each context (pareto_by_context)
    pareto_data: Markup  # what pareto.js draws the other contexts' frontiers from
    presets: tuple[PresetLink, ...]
    presets_anchor: str  # where this group's runs are on the static views
    choice: PointChoice
    reference_context: str
    setups: tuple[SetupLink, ...] = ()  # its setups over time (setup_pages.with_setups)
    capacity_links: tuple[ModelLevelLinks, ...] = ()  # model pages: its answers, a level each
    peak_at_zero: bool = False  # a run's peak decode is at context 0, which the legend explains


@dataclass(frozen=True)
class FrontierFigure:
    """One point of a frontier chart in words, for its text equivalent."""

    run: str
    requests: str
    per_request: str  # with its statistic where the chart's runs do not share one
    per_accelerator: str
    frontier: bool
    run_rows: int = 1  # on a run's first row, its rows (the name heads them once); 0 after it


@dataclass(frozen=True)
class ParetoAt:
    """A model page's frontier chart at one context: shown by default (``default``) or when the
    address names its anchor (style.css :target), so every shared context is a link away
    without JavaScript."""

    context: str  # as the site writes contexts: "32K"
    tokens: int
    anchor: str
    plot: Plot
    figures: tuple[FrontierFigure, ...]
    statistic: str  # of the per-request figures: "mean", "median", or "each run's statistic"
    default: bool
    # Drawn by pareto.js from /data/points/ (frontier_data), with its figures table: the page
    # has its place, and a note for a reader without JavaScript.
    in_browser: bool = False


@dataclass(frozen=True)
class GroupListing:
    """One group on /models/ or /hardware/: its run count and best figures."""

    label: str
    href: str
    runs: str
    decode_single: str
    decode_peak: str
    prefill: str
    models: str = ""  # /hardware/: each model's best peak decode, never one best across models


@dataclass(frozen=True)
class GroupIndexContext:
    """/models/ or /hardware/ (templates/pages/groups.html)."""

    site: Site
    title: str
    heading: str
    summary: str
    rows: tuple[Markup, ...]  # each group's row (the group_row macro)
    by_model: bool = False  # /hardware/: figures per model (GroupListing.models), none across them


def series_labels(runs: list[Run], kind: str) -> dict[str, str]:
    """What legends call each run, by id: what most often differs within the group first, then
    the run's distinguishing label (labels.distinguishing_labels) where runs like it share the
    group. Never cut (legends are page text that wraps); a name two runs still share gets the
    run id."""
    run_labels = distinguishing_labels(runs)
    parts: dict[str, list[str]] = {}
    for run in runs:
        engine = " ".join(p for p in (run.engine.name, run.engine.version) if p)
        if kind == "models":
            parts[run.id] = [
                engine,
                run.engine.quantization or "",
                hardware_name(run, with_memory=False),
            ]
        else:
            parts[run.id] = [
                f"{model_name(run)} ×{run.hardware.count}",
                engine,
                run.engine.quantization or "",
            ]
    # What every run of the group shares (the hardware on most model pages) tells no line apart.
    varied = [
        i for i in range(3) if len(runs) < 2 or len({parts[run.id][i] for run in runs}) > 1
    ] or [0]
    names = {}
    for run in runs:
        name = " · ".join(part for i in varied if (part := parts[run.id][i]))
        # A label part the name already spells out in full (a quantization, clipped in the label) is
        # left out.
        extra = [
            part
            for part in (run_labels.get(run.id) or "").split(" · ")
            if part and part.rstrip("…") not in name
        ]
        names[run.id] = with_label(name, " · ".join(extra)) or run.id
    taken = Counter(names.values())  # (counted once: an accelerator's page names many runs)
    return {
        run_id: name if taken[name] == 1 else f"{name} ({run_id})" for run_id, name in names.items()
    }


def group_page(
    site: Site,
    group: Group,
    groups: dict[tuple[str, str], Group],
    pairs: list[tuple[Run, Run]],
    analysis: Analysis | None = None,
) -> Page:
    analysis = analysis or Analysis()
    runs = list(group.runs)
    charted = runs[:MAX_SERIES]
    preferred = preferred_places(group, groups)
    # Each charted run's colour place: its place among its model's runs where free (run_colours).
    charted_places = dict(
        zip(
            [run.id for run in charted],
            chart_places([run.id for run in charted], preferred),
            strict=True,
        )
    )
    names = series_labels(runs, group.kind)
    # A group holds every run like each of its runs (same model, or same accelerator), so its
    # own runs label them as the whole site does.
    run_labels = distinguishing_labels(runs)
    decode_plots, decode_others, decode_data = decode_charts(
        runs, names, groups, analysis, preferred
    )
    with_prefill = [
        run for run in charted if any(p.prompt_tokens_per_s is not None for p in run.prefill)
    ]
    prefill = prefill_overlay([Series(names[run.id], run) for run in with_prefill])
    if (
        prefill is not None
    ):  # the prefill chart's colours follow the decode charts' (a run's place in the group)
        prefill = _recoloured(prefill, [charted_places[run.id] for run in with_prefill])
    without = [names[run.id] for run in charted if run not in with_prefill]
    # Per accelerator, so setups of different sizes compare (derived: total ÷ accelerators).
    frontier = pareto_by_context(charted, names, charted_places) if group.kind == "models" else ()
    pareto_data = frontier_data(frontier, charted, names, charted_places, groups)
    members = {run.id for run in runs}
    comparisons = tuple(
        Field(f"{a.id} → {b.id}", f"{names[a.id]} → {names[b.id]}", site.url(compare_path(a, b)))
        for a, b in pairs
        if a.id in members and b.id in members
    )
    noun = "model" if group.kind == "models" else "accelerator"
    count = numbers.count_noun(len(runs), "run")
    configurations = len(
        {(r.hardware.accelerator.lower(), r.hardware.count, r.engine.name.lower()) for r in runs}
    )
    context = GroupPageContext(
        site=site,
        title=f"{group.label} · all runs",
        eyebrow="Model" if group.kind == "models" else "Accelerator",
        heading=group.label,
        # Not "setups": a setup is a history (/setups/), of one workload too.
        summary=f"{count} on this {noun}, "
        f"{numbers.count_noun(configurations, 'hardware and engine combination')}",
        rows=Markup(
            "".join(
                _row_html(site, run, group, groups, analysis, run_labels.get(run.id, ""))
                for run in runs
            )
        ),
        all_runs_links=bool(runs) and group.kind != "models",
        decode_plots=decode_plots,
        decode_others=decode_others,
        decode_data=decode_data,
        prefill_chart=prefill,
        prefill_note=(
            f"No prefill figures: {', '.join(without)}." if without and with_prefill else None
        ),
        charted_note=(
            f"Each chart shows the {MAX_SERIES} newest runs measured at its context (the prefill "
            f"chart, "
            f"the {MAX_SERIES} newest runs); the table lists all {len(runs)}."
            if len(runs) > MAX_SERIES
            else None
        ),
        comparisons=comparisons,
        pareto=frontier,
        pareto_data=pareto_data,
        presets=preset_links(site, analysis),
        presets_anchor=f"#m-{group.slug}" if group.kind == "models" else "",
        choice=point_choice(runs, analysis),
        reference_context=numbers.context(REFERENCE_CONTEXT),
        capacity_links=model_level_links(site, group, analysis.settings.service_levels)
        if group.kind == "models"
        else (),
        peak_at_zero=any(analysis.headlines(run).decode_peak_context == 0 for run in runs),
    )
    return Page(
        f"{group.path}index.html", "pages/group.html", context, (prefill,) if prefill else ()
    )


def _row_html(
    site: Site,
    run: Run,
    group: Group,
    groups: dict[tuple[str, str], Group],
    analysis: Analysis,
    label: str,
) -> str:
    """The run's row on its group's page (an accelerator page's rows do not link to it), kept
    between builds, as the index's rows are: an accelerator of many runs would otherwise work
    out and write every row of its page again for each run added to it."""
    shown = RunGroups.of(run, groups)
    return analysis.fragments.cached(
        _group_row, site, run, group.kind, shown, label, build=analysis
    )


def _group_row(
    analysis: Analysis, site: Site, run: Run, kind: str, shown: RunGroups, label: str
) -> str:
    row = _without_self_link(row_of(site, run, shown, analysis, label), kind)
    return analysis.fragments.render("run_row", row, False)


def _without_self_link(row: RunRow, kind: str) -> RunRow:
    """A row without its link to this page: on an accelerator page its hardware link (runs_table in
    templates/_macros.html shows the hardware as text), on a model page its "all runs" link (the
    operating-point picker, point.js, then reads the model from the page's address)."""
    return (
        dataclasses.replace(row, model_href="")
        if kind == "models"
        else dataclasses.replace(row, hardware_href="")
    )


def default_context(
    runs: list[Run], shared: list[int], measured: Callable[[Run], Iterable[int]] = measured_contexts
) -> int:
    """The context whose decode chart a group page draws itself: the shared context the most
    runs measured, of equals the smallest (the others are drawn by the reader's browser)."""
    counts = Counter(c for run in runs for c in set(measured(run)))
    return min(shared, key=lambda context: (-counts[context], context))


STATISTIC_WORDS = {"mean": "mean", "median": "median"}


def statistic_of(run: Run) -> str:
    """What a run's latency figures are (result format: run.latency_statistic), in words."""
    return STATISTIC_WORDS.get(run.info.latency_statistic or "", "as reported")


def frontier_contexts(runs: list[Run]) -> list[tuple[int, list[Run]]]:
    """The contexts a model page draws a frontier at, each with its runs that have one there
    (per-request figures at two or more request counts): every context two or more runs have
    one at (for a lone run, each of its own), the default first: the one most runs have, of
    equals the one nearest 8K, a context of 0 last."""
    at: dict[int, list[Run]] = {}
    for run in runs:
        levels: dict[int, set[int]] = {}
        for cell in frontier_cells(run):
            levels.setdefault(cell.context_tokens, set()).add(cell.concurrency)
        for context, counts in levels.items():
            if len(counts) >= 2:
                at.setdefault(context, []).append(run)
    needed = 2 if len(runs) > 1 else 1
    shared = sorted(context for context, there in at.items() if len(there) >= needed)
    if not shared:
        return []

    def rank(context: int) -> tuple[int, bool, float, int]:
        distance = abs(math.log2(context / REFERENCE_CONTEXT)) if context else math.inf
        return -len(at[context]), context == 0, distance, context

    default = min(shared, key=rank)
    return [(context, at[context]) for context in [default, *(c for c in shared if c != default)]]


def pareto_by_context(
    runs: list[Run], names: dict[str, str], places: Mapping[str, int] | None = None
) -> tuple[ParetoAt, ...]:
    """A model page's frontier charts, one a context (frontier_contexts), each run in its
    colour place (``places``; by default its index among ``runs``), as on the decode charts."""
    place = dict(places) if places is not None else {run.id: i for i, run in enumerate(runs)}
    charts = []
    for number, (context, there) in enumerate(frontier_contexts(runs)):
        kinds = {statistic_of(run) for run in there}
        statistic = next(iter(kinds)) if len(kinds) == 1 else "each run's statistic"
        chart = pareto_plot(
            [(names[run.id], place[run.id], run) for run in there],
            context=context,
            x_title=f"per-request tok/s ({statistic})",
        )
        if chart is None:
            continue
        absent = [names[run.id] for run in runs if run not in there]
        if absent:
            missing = (
                f"No frontier at {numbers.context(context)} (per-request figures at two or "
                f"more request counts): {'; '.join(absent)}."
            )
            chart = dataclasses.replace(chart, note=missing)
        in_browser = number > 0 and _browser_draws(there, context)
        figures = () if in_browser else _frontier_figures(there, names, context, len(kinds) > 1)
        charts.append(
            ParetoAt(
                numbers.context(context),
                context,
                f"pareto-{context}",
                chart,
                figures,
                statistic,
                number == 0,
                in_browser,
            )
        )
    return tuple(charts)


def _browser_draws(runs: list[Run], context: int) -> bool:
    """Whether pareto.js can draw the frontier at ``context`` from /data/points/ as this module
    would: those files keep one cell a request count, so each run's frontier cells there must be
    one a request count, in that order (a source that varied the output length has several).
    A context of 0 keeps the words only numbers.py has for it."""
    if context == 0:
        return False
    for run in runs:
        levels = [cell.concurrency for cell in frontier_cells(run, context)]
        if levels != sorted(set(levels)):
            return False
    return True


def frontier_data(
    charts: tuple[ParetoAt, ...],
    runs: list[Run],
    names: dict[str, str],
    places: Mapping[str, int],
    groups: dict[tuple[str, str], Group],
) -> Markup:
    """What pareto.js draws the frontiers ``in_browser`` from, as a JSON attribute: ``models``
    (the slugs of their /data/points/<context>/<model>.json), ``runs`` ([id, index in
    ``models``, name, colour place, accelerators, statistic in words]), ``at`` (per context, the
    indices in ``runs`` of the runs it draws, in order), ``statistic`` (per context, the x
    axis's), ``notes`` (per context, the runs without a frontier there) and ``shared`` (one
    legend above every chart, as the page's own charts have it)."""
    left = [chart for chart in charts if chart.in_browser]
    if not left:
        return Markup("")
    by_id = {run.id: run for run in runs}
    drawn = {
        chart.tokens: [run_id for run_id in chart.plot.legend_runs if run_id in by_id]
        for chart in left
    }
    listed = [run for run in runs if any(run.id in ids for ids in drawn.values())]
    slugs = list(dict.fromkeys(groups[("models", model_key(run))].slug for run in listed))
    index = {run.id: i for i, run in enumerate(listed)}
    data = {
        "models": slugs,
        "runs": [
            [
                run.id,
                slugs.index(groups[("models", model_key(run))].slug),
                names[run.id],
                places[run.id],
                run.hardware.count,
                statistic_of(run),
            ]
            for run in listed
        ],
        "at": {str(tokens): [index[i] for i in ids] for tokens, ids in drawn.items()},
        "statistic": {str(chart.tokens): chart.statistic for chart in left},
        "notes": {str(chart.tokens): chart.plot.note for chart in left if chart.plot.note},
        "shared": len({chart.plot.legend for chart in charts}) == 1,
    }
    return Markup(_attribute_json(data))


def _frontier_figures(
    runs: list[Run], names: dict[str, str], context: int, each_says: bool
) -> tuple[FrontierFigure, ...]:
    """Every point of a frontier chart in words; ``each_says``: the runs' statistics differ, so
    each per-request figure names its own."""
    figures = []
    for run in runs:
        cells = frontier_cells(run, context)
        count = run.hardware.count
        points = [
            (c.per_request_tokens_per_s or 0.0, (c.total_tokens_per_s or 0.0) / count)
            for c in cells
        ]
        best = _frontier(points)
        for index, (cell, point) in enumerate(zip(cells, points, strict=True)):
            speed = numbers.rate(point[0]) + (f" ({statistic_of(run)})" if each_says else "")
            figures.append(
                FrontierFigure(
                    names[run.id],
                    str(cell.concurrency),
                    speed,
                    numbers.rate(point[1]),
                    point in best,
                    0 if index else len(cells),
                )
            )
    return tuple(figures)


def _one_per_position(analysis: Analysis, run: Run) -> list[DecodeCell]:
    """The run's cells as its page and /data/points/ show them (capacity.CellGrid): one per
    context and request count, in that order; so the chart drawn here and the ones group.js
    draws from the points files read the same cells."""
    chosen = {
        (context, concurrency): cell.get("output_tokens_per_request")
        for context, row in analysis.grid(run).rows.items()
        for concurrency, cell in row.items()
    }
    cells = {}
    for cell in run.decode:
        key = (cell.context_tokens, cell.concurrency)
        if key in chosen and key not in cells and cell.output_tokens_per_request == chosen[key]:
            cells[key] = cell
    return [cells[key] for key in sorted(cells)]


def decode_charts(
    runs: list[Run],
    names: dict[str, str],
    groups: dict[tuple[str, str], Group],
    analysis: Analysis,
    preferred: Mapping[str, int] | None = None,
) -> tuple[tuple[Plot, ...], str, Markup]:
    """A group page's decode charts (issue 15: one per context two or more runs measured): the
    one at ``default_context`` drawn here as inline SVG, and, for templates/static/group.js to
    draw the others from /data/points/<context>/<model>.json on load, a JSON attribute:
    ``contexts`` (every shared context, ascending, the default among them), ``levels`` (the
    request counts of the x axis, shared by every chart of the page), ``models`` (model slugs),
    ``runs`` ([id, index in ``models``, legend label unless the page's own chart's legend has
    it], each run that any chart drawn by group.js draws) and ``at`` (per other
    context, the indices in ``runs`` of the runs measured there, newest first). With ``each``
    (a group of up to MAX_SERIES runs) every chart draws every run in its colour place (its index),
    and names those not measured there; otherwise the runs of ``at`` are the chart's, placed
    in that order."""
    known: dict[str, list[DecodeCell]] = {}

    def cells(run: Run) -> list[DecodeCell]:
        if run.id not in known:
            known[run.id] = _one_per_position(analysis, run)
        return known[run.id]

    # Where each run measured, from its outline: a group of many runs draws few of them, and
    # only those are decoded. Looked up once a run: the charts ask many times a run.
    where = {run.id: analysis.outline(run).measured for run in runs}

    def measured(run: Run) -> tuple[int, ...]:
        return where[run.id]

    shared = shared_contexts(runs, measured)
    if not shared:
        return (), "", Markup("")
    default = default_context(runs, shared, measured)
    drawn = {context: _drawn_at(runs, context, names, measured, preferred) for context in shared}
    # One x axis for every chart: the request counts measured by any run any chart draws.
    on_charts = {run.id: run for named in drawn.values() for _, _, run in named}
    levels = sorted(
        {
            c.concurrency
            for run in on_charts.values()
            for c in cells(run)
            if c.status.measured and c.total_tokens_per_s is not None
        }
    )
    plot = decode_plot(drawn[default], default, cells=cells, levels=[float(n) for n in levels])
    others = [context for context in shared if context != default]
    text = _attribute_json(_charts_data(runs, names, groups, drawn, default, levels, plot, cells))
    words = [numbers.context(context) for context in others]
    return (
        ((plot,) if plot else ()),
        (" and ".join([", ".join(words[:-1]), words[-1]]) if len(words) > 1 else "".join(words)),
        Markup(text) if others else Markup(""),
    )


def _charts_data(
    runs: list[Run],
    names: dict[str, str],
    groups: dict[tuple[str, str], Group],
    drawn: dict[int, list[tuple[str, int, Run]]],
    default: int,
    levels: list[int],
    plot: Plot | None,
    cells: Callable[[Run], list[DecodeCell]],
) -> dict[str, object]:
    """What group.js draws the charts of the other contexts from (decode_charts says its keys)."""
    each = len(runs) <= MAX_SERIES
    others = [context for context in drawn if context != default]
    # The runs some other context's chart draws, by id (not by comparing runs field by field).
    on_others = {run.id for context in others for _, _, run in drawn[context]}
    listed = runs if each else [run for run in runs if run.id in on_others]
    place = {run.id: i for i, run in enumerate(listed)}
    slugs = list(dict.fromkeys(groups[("models", model_key(run))].slug for run in listed))
    # A run the page's own chart draws has its label in that chart's legend, where group.js reads
    # it.
    in_legend = set(plot.legend_runs) if plot else set()
    data: dict[str, object] = {
        "contexts": list(drawn),  # every shared context, ascending (as drawn is made)
        "default": default,
        "levels": levels,
        "each": each,
        "models": slugs,
        "runs": [
            [
                run.id,
                slugs.index(groups[("models", model_key(run))].slug),
                *([] if run.id in in_legend else [names[run.id]]),
            ]
            for run in listed
        ],
        "at": {
            str(context): [
                place[run.id]
                for _, _, run in drawn[context]
                if any(
                    c.context_tokens == context
                    and c.status.measured
                    and c.total_tokens_per_s is not None
                    for c in cells(run)
                )
            ]
            for context in others
        },
    }
    # Each chart's colour places (run_colours), in the order group.js names its runs: every
    # run of a small group, else the runs of ``at``.
    colour_of = {context: {run.id: index for _, index, run in drawn[context]} for context in others}
    data["colours"] = {
        str(context): [colour_of[context][run.id] for run in listed]
        if each
        else [colour_of[context][listed[i].id] for i in at]
        for context in others
        for at in [data["at"][str(context)]]  # type: ignore[index]
    }
    return data


def _attribute_json(data: dict[str, object]) -> str:
    """``data`` as JSON for a single-quoted attribute."""
    # In a single-quoted attribute: what could end it or start markup is a JSON escape.
    return (
        dumps(data)
        .replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("'", "\\u0027")
    )


def _drawn_at(
    runs: list[Run],
    context: int,
    names: dict[str, str],
    measured: Callable[[Run], Iterable[int]],
    preferred: Mapping[str, int] | None = None,
) -> list[tuple[str, int, Run]]:
    """The runs a decode chart at ``context`` draws, with their colour places (run_colours,
    from ``preferred``). Up to MAX_SERIES runs keep one place on every chart (a run has one
    colour on the page); a bigger group draws, at each context, the newest MAX_SERIES runs
    measured there."""
    drawn = (
        runs
        if len(runs) <= MAX_SERIES
        else [run for run in runs if context in measured(run)][:MAX_SERIES]
    )
    places = chart_places([run.id for run in drawn], preferred)
    return [(names[run.id], place, run) for place, run in zip(places, drawn, strict=True)]


def preferred_places(group: Group, groups: Mapping[tuple[str, str], Group]) -> dict[str, int]:
    """Each run of ``group``'s preferred colour place: its place among its model's runs."""
    if group.kind == "models":
        return model_places([group])
    keys = dict.fromkeys(model_key(run) for run in group.runs)
    return model_places(groups[("models", key)] for key in keys)


def _recoloured(chart: ChartSpec, places: list[int]) -> ChartSpec:
    """``chart`` with each run in the colour and shape of its place among the group's runs."""
    if places == list(range(len(places))):
        return chart
    colours = [PALETTE[i] for i in places]
    shapes = [SHAPES[i] for i in places]
    fills = dict(
        chart.fills
    )  # the chart's spec and file name are made from these (charts.ChartSpec)
    fills["@colors"], fills["@shapes"] = _canonical(colours), _canonical(shapes)
    legend = tuple(
        dataclasses.replace(entry, colour=colour, shape=shape)
        for entry, colour, shape in zip(chart.legend, colours, shapes, strict=True)
    )
    return dataclasses.replace(chart, legend=legend, fills=tuple(sorted(fills.items())))


def group_index_page(
    site: Site, kind: str, groups: list[Group], analysis: Analysis | None = None
) -> Page:
    """/models/ or /hardware/: every group, its run count and its best figures, each group's row
    kept between builds by the group (its digest, or its runs' content) and its link."""
    analysis = analysis or Analysis()
    rows = []
    # By a model's own name, its organisation prefix aside ("openai/gpt-oss-120b" as gpt-oss).
    for group in sorted(
        groups, key=lambda g: (g.label.lower().rsplit("/", 1)[-1], g.label.lower())
    ):
        # A group's row, kept between builds: the page without every run's headlines, nor every
        # row rendered again.
        href = site.url(group.path)
        row = analysis.fragments.cached(_group_listing_row, group, href, build=analysis)
        rows.append(Markup(row))
    noun = "model" if kind == "models" else "accelerator"
    heading = "Models" if kind == "models" else "Hardware"
    context = GroupIndexContext(
        site=site,
        title=heading,
        heading=heading,
        by_model=kind != "models",
        summary=f"{numbers.count_noun(len(rows), noun)}; each links to its runs side by side.",
        rows=tuple(rows),
    )
    return Page(f"{kind}/index.html", "pages/groups.html", context)


def _group_listing_row(analysis: Analysis, group: Group, href: str) -> str:
    """``group``'s row of /models/ or /hardware/, linking to ``href``: its run count and its
    best figures (an accelerator's by model, like with like)."""
    if group.kind != "models":
        by_model = _best_by_model(group.runs, analysis)
        return analysis.fragments.render(
            "group_row",
            GroupListing(group.label, href, str(len(group.runs)), "", "", "", by_model),
        )
    found = [analysis.headlines(run) for run in group.runs]
    return analysis.fragments.render(
        "group_row",
        GroupListing(
            group.label,
            href,
            str(len(group.runs)),
            _best([f.decode_single for f in found]),
            _best([f.decode_peak for f in found]),
            _best([f.prefill_first for f in found]),
        ),
    )


def _best(values: list[float | None]) -> str:
    present = [v for v in values if v is not None]
    return numbers.rate(max(present)) if present else numbers.MISSING


BY_MODEL_SHOWN = 4  # models a /hardware/ row names with their figure; the rest are counted


def _best_by_model(runs: Iterable[Run], analysis: Analysis) -> str:
    """'Qwen3-4B 1,160.0; gpt-oss-120b 95.1 and 2 more models': each model's (or base model's)
    best peak decode (total tok/s) on the accelerator, the models by their own name."""
    best: dict[str, tuple[str, float | None]] = {}
    for run in runs:
        key = model_key(run)
        peak = analysis.headlines(run).decode_peak
        own = (run.info.base_model or run.info.model).rsplit("/", 1)[-1]
        name, known = best.get(key, (own, None))
        if peak is not None and (known is None or peak > known):
            known = peak
        best[key] = (name, known)
    ordered = sorted(best.items(), key=lambda item: (item[0].rsplit("/", 1)[-1], item[0]))
    words = [
        f"{name} {numbers.rate(peak) if peak is not None else numbers.MISSING}"
        for _, (name, peak) in ordered[:BY_MODEL_SHOWN]
    ]
    more = len(ordered) - BY_MODEL_SHOWN
    return "; ".join(words) + (f" and {numbers.count_noun(more, 'more model')}" if more > 0 else "")
