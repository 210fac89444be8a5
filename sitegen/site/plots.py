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
    marker: str = ""  # relative path data of the point symbol, drawn after each point's "M x y"


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


# The legend's point symbols (templates/_macros.html, a 4 × 2 box) at the plot's scale of 4.5, as
# relative path data: each point is drawn as "M x y" and this, not as a transformed copy of the
# symbol, which keeps a point's markup to its position and its title.
MARKERS = {
    "circle": "m3.4 0a3.4 3.4 0 1 1-6.8 0a3.4 3.4 0 1 1 6.8 0z",
    "square": "m-3.15-3.15h6.3v6.3h-6.3z",
    "triangle-up": "m0-3.6l3.8 6.75h-7.6z",
    "diamond": "m0-4.05l4.05 4.05-4.05 4.05-4.05-4.05z",
    "cross": "m-1.35-4.05h2.7v2.7h2.7v2.7h-2.7v2.7h-2.7v-2.7h-2.7v-2.7h2.7z",
    "triangle-down": "m0 3.6l3.8-6.75h-7.6z",
    "triangle-right": "m3.6 0l-6.75 3.8v-7.6z",
    "triangle-left": "m-3.6 0l6.75 3.8v-7.6z",
}


def _px(value: float) -> float | int:
    """A coordinate to a tenth of a pixel, whole ones without ".0" (the page prints it as is)."""
    tenth = round(value, 1)
    return int(tenth) if tenth == int(tenth) else tenth


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
        x_ticks = tuple(Tick(_px(x_at(x)), f"{x:,.0f}") for x in shown)
    else:
        x_step = _nice_step(xs[-1] or 1.0)
        x_max = math.ceil((xs[-1] or 1.0) / x_step) * x_step

        def x_at(value: float) -> float:
            return LEFT + value / x_max * inner_w

        x_ticks = tuple(Tick(_px(x_at(i * x_step)), _fmt(i * x_step)) for i in range(round(x_max / x_step) + 1))

    def y_at(value: float) -> float:
        return TOP + inner_h - value / y_max * inner_h

    y_ticks = tuple(Tick(_px(y_at(i * step)), _fmt(i * step)) for i in range(round(y_max / step) + 1))
    lines = []
    for s in drawn:
        colour, shape = PALETTE[s.index % len(PALETTE)], SHAPES[s.index % len(SHAPES)]
        joined = s.joined if s.joined is not None else tuple((x, y) for x, y, _ in sorted(s.points))
        path = "M" + "L".join(f"{_px(x_at(x))} {_px(y_at(y))}" for x, y in sorted(joined)) if joined else ""
        points = tuple(PlotPoint(_px(x_at(x)), _px(y_at(y)), title) for x, y, title in s.points)
        lines.append(PlotLine(s.label, colour, shape, path, points, MARKERS[shape]))
    legend = tuple(LegendEntry(line.label, line.colour, line.shape) for line in lines)
    # Each point's title already names its run.
    words = "; ".join(", ".join(title for _, _, title in s.points) for s in drawn)
    return Plot(caption, f"{caption}. {words}", x_title, y_title, x_ticks, y_ticks, tuple(lines), legend,
                tuple(s.run_id for s in drawn), note)
