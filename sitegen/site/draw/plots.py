"""Small line plots drawn in the page as inline SVG: the decode curves at each context and
the throughput/interactivity frontier of the comparison and group pages.

A page can show a plot per context length this way without a chart file per plot, and
nothing has to be drawn by vl-convert (the build's slowest step), so every context gets its
own small multiple. The geometry is computed here; templates/_macros.html draws it and the
stylesheet colours it for either theme. templates/static/compare.js draws the same markup from
the same rules for the comparisons the reader picks.

What repeats is drawn once per page (issue 18): a page's hidden sprite (``sheet``) defines
each run's point symbol as an SVG marker and each distinct frame (grid, axis titles, x ticks
and the y axis's "0", which every plot has) once; a plot is a ``<use>`` of its frame, its
other four y tick labels (placed by the stylesheet: a y axis is always four steps, so the
labels' heights are the same in every plot) and one path per run, whose vertices carry the
markers. Each run's figures are one ``<title>`` on its path (shown on
hover), which the plot's text alternative also reads (aria-labelledby), so they are written
once.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from sitegen.site.draw.chart_specs import PALETTE, SHAPES
from sitegen.site.figures import numbers

WIDTH, HEIGHT = 360, 210
LEFT, RIGHT, TOP, BOTTOM = 52, 14, 10, 38  # room for the y labels and the x title
# The frame's text sits at fixed places, written out in templates/_macros.html and style.css
# (.xl) and computed by plots.js from these: x ticks at y 187, the x title at (199, 206), the
# y title rotated about (12, 91); y tick labels 6 left of the plot, each at its grid line
# (style.css .y0 and .yl :nth-child(n): the grid lines' heights, 131.5 up to 10).

# Each run's point symbol at the plot's scale, as path data around (0, 0): the marker a run's
# path carries at every vertex (its place in the page: colour PALETTE[i], shape SHAPES[i]).
MARKERS = {
    "circle": "M3.4 0a3.4 3.4 0 1 1-6.8 0a3.4 3.4 0 1 1 6.8 0z",
    "square": "M-3.15-3.15h6.3v6.3h-6.3z",
    "triangle-up": "M0-3.6l3.8 6.75h-7.6z",
    "diamond": "M0-4.05l4.05 4.05-4.05 4.05-4.05-4.05z",
    "cross": "M-1.35-4.05h2.7v2.7h2.7v2.7h-2.7v2.7h-2.7v-2.7h-2.7v-2.7h2.7z",
    "triangle-down": "M0 3.6l3.8-6.75h-7.6z",
    "triangle-right": "M3.6 0l-6.75 3.8v-7.6z",
    "triangle-left": "M-3.6 0l6.75 3.8v-7.6z",
}


@dataclass(frozen=True)
class Tick:
    at: float
    label: str


@dataclass(frozen=True)
class PlotLine:
    """One run: a single path (its line, then a moveto for each point off the line) whose
    vertices carry the run's marker, and a title holding its figures."""

    label: str
    index: int  # the run's place: the page's marker ``pm{index}`` and class ``s{index}``
    path: str
    title: str
    points: tuple[tuple[float, float], ...]  # each point's pixel position, as the path visits them

    @property
    def css_class(self) -> str:
        return f"s{self.index % len(PALETTE)}"


@dataclass(frozen=True)
class Key:
    """A legend entry: a run's name beside its line and symbol (a CSS key, class ``k{index}``)."""

    label: str
    index: int
    run_id: str = ""

    @property
    def css_class(self) -> str:
        return f"k{self.index % len(PALETTE)}"


@dataclass(frozen=True)
class Frame:
    """What every plot with the same axes shares: the grid (always four steps, so one grid
    serves every plot), the titles of both axes, the x ticks and the y axis's "0"."""

    x_title: str
    y_title: str
    x_ticks: tuple[Tick, ...]


GRID = "".join(
    f"M{LEFT} {TOP + (HEIGHT - TOP - BOTTOM) * i / 4:g}H{WIDTH - RIGHT}" for i in range(5)
)


@dataclass(frozen=True)
class Plot:
    """One small chart, its axes, and a legend that lists only the runs it draws."""

    caption: str
    frame: Frame
    y_ticks: tuple[Tick, ...]  # from 0 up; the page writes the four above 0 (the frame has 0)
    lines: tuple[PlotLine, ...]
    legend: tuple[Key, ...]
    note: str | None = None  # what the plot leaves out, and why

    @property
    def x_ticks(self) -> tuple[Tick, ...]:
        return self.frame.x_ticks

    @property
    def legend_runs(self) -> tuple[str, ...]:
        return tuple(key.run_id for key in self.legend)


@dataclass(frozen=True)
class PlotSheet:
    """A page's shared definitions: the markers its plots use and each frame once (ids
    ``pf<n>``)."""

    markers: tuple[
        tuple[int, str], ...
    ]  # (place, symbol path data); the stylesheet colours #pm<place>
    frames: tuple[Frame, ...]
    grid: str = GRID

    def frame_id(self, frame: Frame) -> str:
        return f"pf{self.frames.index(frame) + 1}"

    @staticmethod
    def shared_legend(plots: Iterable[Plot]) -> tuple[Key, ...] | None:
        """The one legend of a grid of plots that all draw the same runs (None if any differs)."""
        legends = {p.legend for p in plots}
        return next(iter(legends)) if len(legends) == 1 else None


def sheet(*groups: Iterable[Plot] | Plot | None) -> PlotSheet:
    """The sprite of a page that shows these plots or lists of plots (None, a plot the page has
    not, is skipped)."""
    drawn = [p for g in groups if g is not None for p in ((g,) if isinstance(g, Plot) else g)]
    places = sorted({line.index % len(PALETTE) for p in drawn for line in p.lines})
    return PlotSheet(
        tuple((i, MARKERS[SHAPES[i]]) for i in places), tuple(dict.fromkeys(p.frame for p in drawn))
    )


@dataclass(frozen=True)
class PlotSeries:
    """One run's points (x, y, the point's figures in words). ``joined`` are the ones its line
    goes through (all, or its frontier); ``title`` is what its hover title says (default: its
    label, then every point's words)."""

    label: str
    index: int  # the run's place in the comparison: its colour and shape
    points: tuple[tuple[float, float, str], ...]
    joined: tuple[tuple[float, float], ...] | None = None
    run_id: str = ""
    title: str | None = None


def _px(value: float) -> float | int:
    """A coordinate to a tenth of a pixel, whole ones without ".0" (the page prints it as is)."""
    tenth = round(value, 1)
    return int(tenth) if tenth == int(tenth) else tenth


# Steps of a y axis: four of them always reach the top value (so every plot has the same grid)
# and fill at least two thirds of the height.
_STEPS = (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10)


def _nice_step(top: float, count: int = 4, steps: tuple[float, ...] = (1, 2, 2.5, 5, 10)) -> float:
    raw = top / count
    power = 10.0 ** math.floor(math.log10(raw))
    return next(step * power for step in steps if step * power >= raw * (1 - 1e-9))


def _fmt(value: float) -> str:
    return numbers.rate_short(value) if value >= 1 or value == 0 else f"{value:.2g}"


def _tenths(value: int) -> str:
    """A number of tenths as path data writes it: 1226 → "122.6", -70 → "-7"."""
    whole, tenth = divmod(abs(value), 10)
    return ("-" if value < 0 else "") + str(whole) + (f".{tenth}" if tenth else "")


def _path(line: list[tuple[int, int]], alone: list[tuple[int, int]]) -> str:
    """One path in tenths of a pixel: the line through ``line``'s points (a moveto, then
    relative lineto's), then a relative moveto to each point drawn alone. Every point is a
    vertex, so it carries a marker. Numbers are separated by a space only where the next one
    has no minus sign of its own, as SVG path data allows."""
    text = ""
    at: tuple[int, int] | None = None

    def pair(x: int, y: int) -> str:
        first, second = _tenths(x), _tenths(y)
        return first + ("" if second.startswith("-") else " ") + second

    for i, (x, y) in enumerate(line):
        if at is None:
            text += "M" + pair(x, y)
        else:
            step = pair(x - at[0], y - at[1])
            text += ("l" if i == 1 else "" if step.startswith("-") else " ") + step
        at = (x, y)
    for x, y in alone:
        text += "M" + pair(x, y) if at is None else "m" + pair(x - at[0], y - at[1])
        at = (x, y)
    return text


def plot(
    caption: str,
    series: list[PlotSeries],
    *,
    x_log: bool,
    x_title: str,
    y_title: str,
    note: str | None = None,
    x_domain: Iterable[float] = (),
) -> Plot | None:
    """A plot of ``series`` (runs without points are left out of it and of its legend).
    ``x_domain``: x values the axis spans even where this plot has no point, so that small
    multiples share one x axis (and one set of x ticks on the page)."""
    drawn = [s for s in series if s.points]
    if not drawn:
        return None
    xs = sorted({x for s in drawn for x, _, _ in s.points} | set(x_domain))
    y_top = max(y for s in drawn for _, y, _ in s.points) or 1.0
    step = _nice_step(y_top, steps=_STEPS)
    y_max = 4 * step
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    if x_log:
        low, high = math.log2(xs[0]), math.log2(xs[-1])

        def x_at(value: float) -> float:
            return LEFT + (
                inner_w / 2 if high == low else (math.log2(value) - low) / (high - low) * inner_w
            )

        shown = xs if len(xs) <= 7 else xs[:: math.ceil(len(xs) / 7)]
        x_ticks = tuple(Tick(_px(x_at(x)), f"{x:,.0f}") for x in shown)
    else:
        x_step = _nice_step(xs[-1] or 1.0)
        x_max = math.ceil((xs[-1] or 1.0) / x_step) * x_step

        def x_at(value: float) -> float:
            return LEFT + value / x_max * inner_w

        x_ticks = tuple(
            Tick(_px(x_at(i * x_step)), _fmt(i * x_step)) for i in range(round(x_max / x_step) + 1)
        )

    def y_at(value: float) -> float:
        return TOP + inner_h - value / y_max * inner_h

    def tenths(x: float, y: float) -> tuple[int, int]:
        # A point at the viewBox's whole unit (about a pixel at the plot's size, well inside its
        # marker), rounded half up as compare.js does; the path data counts in tenths.
        return math.floor(x_at(x) + 0.5) * 10, math.floor(y_at(y) + 0.5) * 10

    y_ticks = tuple(Tick(_px(y_at(i * step)), _fmt(i * step)) for i in range(5))
    lines = []
    for s in drawn:
        joined = sorted(s.joined if s.joined is not None else [(x, y) for x, y, _ in s.points])
        on_it = Counter(joined)
        alone = []
        for x, y, _ in s.points:  # every point the line does not go through
            if on_it[(x, y)]:
                on_it[(x, y)] -= 1
            else:
                alone.append(tenths(x, y))
        on_line = [tenths(x, y) for x, y in joined]
        # The points off the line from left to right, so that each moveto is a short step, and
        # none at a pixel that already has this run's marker (it would be drawn over itself).
        alone = sorted(set(alone) - set(on_line))
        title = (
            s.title
            if s.title is not None
            else f"{s.label}: {', '.join(words for _, _, words in s.points)}"
        )
        lines.append(
            PlotLine(
                s.label,
                s.index,
                _path(on_line, alone),
                title,
                tuple((x / 10, y / 10) for x, y in on_line + alone),
            )
        )
    legend = tuple(Key(s.label, s.index, s.run_id) for s in drawn)
    return Plot(caption, Frame(x_title, y_title, x_ticks), y_ticks, tuple(lines), legend, note)
