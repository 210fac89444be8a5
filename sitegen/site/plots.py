"""Small line plots drawn in the page as inline SVG: the decode curves at each context and
the throughput/interactivity frontier of the comparison and group pages.

A page can show a plot per context length this way without a chart file per plot, and
nothing has to be drawn by vl-convert (the build's slowest step), so every context gets its
own small multiple. The geometry is computed here; templates/_macros.html draws it and the
stylesheet colours it for either theme. templates/static/compare.js draws the same markup from
the same rules for the comparisons the reader picks.

What repeats is drawn once per page (issue 18): a page's hidden sprite (``sheet``) defines
each run's point symbol as an SVG marker and each distinct frame (grid, x ticks, axis titles)
once; a plot is its y tick labels, a ``<use>`` of its frame and one path per run, whose
vertices carry the markers. Each run's figures are one ``<title>`` on its path (shown on
hover), which the plot's text alternative also reads (aria-labelledby), so they are written
once.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from sitegen.site import numbers
from sitegen.site.charts import PALETTE, SHAPES

WIDTH, HEIGHT = 360, 210
LEFT, RIGHT, TOP, BOTTOM = 52, 14, 10, 38  # room for the y labels and the x title
# Where the frame's text sits (templates/_macros.html and compare.js draw it there).
X_TICK_Y = HEIGHT - BOTTOM + 15
X_TITLE_X, X_TITLE_Y = (LEFT + WIDTH - RIGHT) // 2, HEIGHT - 4
Y_TITLE_X, Y_TITLE_Y = 12, (HEIGHT - BOTTOM + 10) // 2

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
    """What plots on one page may share: the grid, the x ticks and both axis titles."""

    grid: str  # path data of the horizontal grid lines
    x_ticks: tuple[Tick, ...]
    x_title: str
    y_title: str


@dataclass(frozen=True)
class Plot:
    """One small chart, its axes, and a legend that lists only the runs it draws."""

    caption: str
    frame: Frame
    y_ticks: tuple[Tick, ...]
    lines: tuple[PlotLine, ...]
    legend: tuple[Key, ...]
    note: str | None = None  # what the plot leaves out, and why

    @property
    def legend_runs(self) -> tuple[str, ...]:
        return tuple(key.run_id for key in self.legend)


@dataclass(frozen=True)
class PlotSheet:
    """A page's shared definitions: the markers its plots use and each distinct frame once."""

    markers: tuple[tuple[int, str], ...]  # (place, symbol path data); the stylesheet colours #pm<place>
    frames: tuple[Frame, ...]

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
    frames = tuple(dict.fromkeys(p.frame for p in drawn))
    return PlotSheet(tuple((i, MARKERS[SHAPES[i]]) for i in places), frames)


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


def _nice_step(top: float, count: int = 4) -> float:
    raw = top / count
    power = 10.0 ** math.floor(math.log10(raw))
    return next(step * power for step in (1, 2, 2.5, 5, 10) if step * power >= raw)


def _fmt(value: float) -> str:
    return numbers.rate_short(value) if value >= 1 or value == 0 else f"{value:.2g}"


def _path(line: list[tuple[float | int, float | int]], alone: list[tuple[float | int, float | int]]) -> str:
    """The line through ``line``'s points, then a moveto for each point drawn alone: one path,
    a vertex (so a marker) at every point."""
    text = "L".join(f"{x} {y}" for x, y in line)
    return ("M" + text if text else "") + "".join(f"M{x} {y}" for x, y in alone)


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
    grid = "".join(f"M{LEFT} {t.at}H{WIDTH - RIGHT}" for t in y_ticks)
    lines = []
    for s in drawn:
        joined = sorted(s.joined if s.joined is not None else [(x, y) for x, y, _ in s.points])
        on_line = [(_px(x_at(x)), _px(y_at(y))) for x, y in joined]
        on_it = Counter(joined)
        alone = []
        for x, y, _ in s.points:  # every point the line does not go through, in the series' order
            if on_it[(x, y)]:
                on_it[(x, y)] -= 1
            else:
                alone.append((_px(x_at(x)), _px(y_at(y))))
        title = s.title if s.title is not None else f"{s.label}: {', '.join(words for _, _, words in s.points)}"
        lines.append(PlotLine(s.label, s.index, _path(on_line, alone), title, tuple(on_line + alone)))
    legend = tuple(Key(s.label, s.index, s.run_id) for s in drawn)
    return Plot(caption, Frame(grid, x_ticks, x_title, y_title), y_ticks, tuple(lines), legend, note)
