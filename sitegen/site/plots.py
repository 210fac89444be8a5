"""Small line plots drawn in the page as inline SVG: the decode curves at each context and
the throughput/interactivity frontier of the comparison and group pages.

A page can show a plot per context length this way without a chart file per plot, and
nothing has to be drawn by vl-convert (the build's slowest step), so every context gets its
own small multiple. The geometry is computed here; templates/_macros.html draws it and the
stylesheet colours axes and text for either theme. templates/static/compare.js draws the
same markup from the same rules for the comparisons the reader picks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sitegen.site import numbers
from sitegen.site.charts import PALETTE, SHAPES, LegendEntry

WIDTH, HEIGHT = 360, 210
LEFT, RIGHT, TOP, BOTTOM = 52, 14, 10, 38  # room for the y labels and the x title


@dataclass(frozen=True)
class PlotPoint:
    x: float
    y: float
    title: str  # the point's figures, shown on hover (an SVG <title>)


@dataclass(frozen=True)
class PlotLine:
    label: str
    colour: str
    shape: str
    path: str  # SVG path data joining the points that make the line
    points: tuple[PlotPoint, ...]


@dataclass(frozen=True)
class Tick:
    at: float
    label: str


@dataclass(frozen=True)
class Plot:
    """One small chart, its axes, and a legend that lists only the runs it draws."""

    caption: str
    alt: str
    x_title: str
    y_title: str
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    lines: tuple[PlotLine, ...]
    legend: tuple[LegendEntry, ...]
    legend_runs: tuple[str, ...]  # the run id of each legend entry, for the page's data-run
    note: str | None = None  # what the plot leaves out, and why
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    bottom_edge: int = HEIGHT - BOTTOM


@dataclass(frozen=True)
class PlotSeries:
    """One run's points: ``joined`` are the ones its line goes through (all, or its frontier)."""

    label: str
    index: int  # the run's place in the comparison: its colour and shape
    points: tuple[tuple[float, float, str], ...]
    joined: tuple[tuple[float, float], ...] | None = None
    run_id: str = ""


def _nice_step(top: float, count: int = 4) -> float:
    raw = top / count
    power = 10.0 ** math.floor(math.log10(raw))
    return next(step * power for step in (1, 2, 2.5, 5, 10) if step * power >= raw)


def _fmt(value: float) -> str:
    return numbers.rate_short(value) if value >= 1 or value == 0 else f"{value:.2g}"


def plot(caption: str, series: list[PlotSeries], *, x_log: bool, x_title: str, y_title: str,
         note: str | None = None) -> Plot | None:
    """A plot of ``series`` (runs without points are left out of it and of its legend)."""
    drawn = [s for s in series if s.points]
    if not drawn:
        return None
    xs = sorted({x for s in drawn for x, _, _ in s.points})
    y_top = max(y for s in drawn for _, y, _ in s.points) or 1.0
    step = _nice_step(y_top)
    y_max = math.ceil(y_top / step) * step
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    if x_log:
        low, high = math.log2(xs[0]), math.log2(xs[-1])

        def x_at(value: float) -> float:
            return LEFT + (inner_w / 2 if high == low else (math.log2(value) - low) / (high - low) * inner_w)

        shown = xs if len(xs) <= 7 else xs[:: math.ceil(len(xs) / 7)]
        x_ticks = tuple(Tick(round(x_at(x), 1), f"{x:,.0f}") for x in shown)
    else:
        x_step = _nice_step(xs[-1] or 1.0)
        x_max = math.ceil((xs[-1] or 1.0) / x_step) * x_step

        def x_at(value: float) -> float:
            return LEFT + value / x_max * inner_w

        x_ticks = tuple(Tick(round(x_at(i * x_step), 1), _fmt(i * x_step)) for i in range(round(x_max / x_step) + 1))

    def y_at(value: float) -> float:
        return TOP + inner_h - value / y_max * inner_h

    y_ticks = tuple(Tick(round(y_at(i * step), 1), _fmt(i * step)) for i in range(round(y_max / step) + 1))
    lines = []
    for s in drawn:
        colour, shape = PALETTE[s.index % len(PALETTE)], SHAPES[s.index % len(SHAPES)]
        joined = s.joined if s.joined is not None else tuple((x, y) for x, y, _ in sorted(s.points))
        path = "".join(f"{'M' if i == 0 else 'L'}{x_at(x):.1f} {y_at(y):.1f}" for i, (x, y) in enumerate(sorted(joined)))
        points = tuple(PlotPoint(round(x_at(x), 1), round(y_at(y), 1), title) for x, y, title in s.points)
        lines.append(PlotLine(s.label, colour, shape, path, points))
    legend = tuple(LegendEntry(line.label, line.colour, line.shape) for line in lines)
    words = "; ".join(f"{s.label}: " + ", ".join(title for _, _, title in s.points) for s in drawn)
    return Plot(caption, f"{caption}. {words}", x_title, y_title, x_ticks, y_ticks, tuple(lines), legend,
                tuple(s.run_id for s in drawn), note)
