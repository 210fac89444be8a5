"""Decode curves and frontiers of several runs, as the comparison and group pages show them
(drawn inline by draw/plots).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from sitegen.model import DecodeCell, Run, Status
from sitegen.site.draw.chart_specs import _frontier
from sitegen.site.draw.plots import Plot, PlotSeries, plot
from sitegen.site.figures import labels, numbers


def measured_contexts(run: Run) -> Iterable[int]:
    """The contexts at which some decode cell of ``run`` measured a total (capacity.Outline)."""
    return {
        c.context_tokens
        for c in run.decode
        if c.status.measured and c.total_tokens_per_s is not None
    }


def shared_contexts(
    runs: list[Run], measured: Callable[[Run], Iterable[int]] = measured_contexts
) -> list[int]:
    """Contexts measured by at least two of ``runs`` (every context for a single run);
    ``measured``: where a run measured (a group page reads it from kept outlines)."""
    counts: dict[int, int] = {}
    for run in runs:
        for context in set(measured(run)):
            counts[context] = counts.get(context, 0) + 1
    needed = 2 if len(runs) > 1 else 1
    return sorted(c for c, n in counts.items() if n >= needed)


def decode_plot(
    named: list[tuple[str, int, Run]],
    context: int,
    *,
    cells: Callable[[Run], Iterable[DecodeCell]] | None = None,
    levels: Iterable[float] | None = None,
) -> Plot | None:
    """Decode total tok/s against simultaneous requests at one context, one line per run measured
    there.
    ``cells``: the cells of a run to draw (default: all of them); ``levels``: the x axis's request
    counts (default: those the runs measured at any context)."""
    series = []
    for label, index, run in named:
        points = tuple(
            (
                float(c.concurrency),
                c.total_tokens_per_s,
                f"{c.concurrency} → {numbers.rate(c.total_tokens_per_s)}"
                + ("" if c.status is Status.VALID else f" ({labels.STATUSES[c.status].lower()})"),
            )
            for c in (cells(run) if cells else run.decode)
            if c.context_tokens == context
            and c.status.measured
            and c.total_tokens_per_s is not None
        )
        # One hover title per run (plots.py): requests → tok/s at each point, as the axes read.
        series.append(
            PlotSeries(
                label,
                index,
                points,
                run_id=run.id,
                title=f"{label}: {', '.join(words for _, _, words in points)}",
            )
        )
    missing = [s.label for s in series if not s.points]
    # A single point has no curve and may hide behind another run's point: say where it is.
    single = [
        f"{s.label} (at {numbers.count_noun(int(s.points[0][0]), 'request')})"
        for s in series
        if len(s.points) == 1
    ]
    notes = ([f"Not measured at this context: {', '.join(missing)}."] if missing else []) + (
        [f"One point only: {', '.join(single)}."] if single else []
    )
    note = " ".join(notes) or None
    # Every context's plot spans the request counts the runs measured at any context: one x axis for
    # the grid.
    if levels is None:
        levels = {
            float(c.concurrency)
            for _, _, run in named
            for c in run.decode
            if c.status.measured and c.total_tokens_per_s is not None
        }
    return plot(
        f"{numbers.context(context)} context",
        series,
        x_log=True,
        x_title="simultaneous requests",
        y_title="total tok/s",
        note=note,
        x_domain=levels,
    )


def frontier_cells(run: Run, context: int | None = None) -> list[DecodeCell]:
    """The cells a frontier is drawn from: valid, with a total and a per-request figure; with
    ``context``, only those at it."""
    return [
        c
        for c in run.decode
        if c.status is Status.VALID
        and c.total_tokens_per_s is not None
        and c.per_request_tokens_per_s is not None
        and (context is None or c.context_tokens == context)
    ]


def pareto_plot(named: list[tuple[str, int, Run]], *, context: int, x_title: str) -> Plot | None:
    """Throughput per accelerator (as frontiers are usually read) against per-request speed at
    ``context``, each run's frontier joined. The caller names runs with per-request figures at
    two or more request counts there (a run with fewer has no trade-off to draw: it would read
    as a slow run). The page lists every point in a table next to the chart, so a line's title
    names its run and counts its frontier instead of saying each figure a second time."""
    series = []
    for label, index, run in named:
        cells = frontier_cells(run, context)
        points = [
            (
                c.per_request_tokens_per_s or 0.0,
                (c.total_tokens_per_s or 0.0) / run.hardware.count,
                c,
            )
            for c in cells
        ]
        frontier = _frontier([(x, y) for x, y, _ in points])
        # Each point's own hover words; the line's title names the run and counts its frontier.
        words = {
            (x, y): f"{numbers.context(c.context_tokens)} × {c.concurrency} → "
            f"{numbers.rate(x)} per request, {numbers.rate(y)}"
            for x, y, c in points
        }
        title = f"{label}, frontier: {len(frontier)} of {numbers.count_noun(len(points), 'cell')}"
        series.append(
            PlotSeries(
                label,
                index,
                tuple((x, y, words[(x, y)]) for x, y, _ in points),
                tuple(sorted(frontier)),
                run.id,
                title,
            )
        )
    where = (
        f"context {numbers.CONTEXT_ZERO}" if context == 0 else f"{numbers.context(context)} context"
    )
    return plot(
        f"Throughput against interactivity at {where}",
        series,
        x_log=False,
        x_title=x_title,
        y_title="tok/s per accelerator",
    )
