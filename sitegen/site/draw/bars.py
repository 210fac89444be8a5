"""Prefill as bars drawn in HTML: one row per context length, one bar per run.

The speed-test-matrix page shows prefill as rows of text ("8K context · 10.2K · 803 ms
TTFT") beside a bar, so the figures are real text: selectable, found by the browser's
search, read by screen readers in order, and wrapped on phones. A bar is an empty element
whose width is one of the stylesheet's classes ``w0`` … ``w100`` (percent of the bar's track;
the Content-Security-Policy allows no ``style`` attribute), coloured by the page's theme or
by its run's palette class ``c0`` … ``c7``: no image to fetch, no chart to render, and a few
bytes a bar where an inline SVG took two hundred.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sitegen.model import PrefillPoint, Run
from sitegen.site.figures import numbers


@dataclass(frozen=True)
class Bar:
    """One run's figure at one context length; ``width`` is its share of the longest bar, 0–100."""

    series: str  # which run, "A" or "B" on a comparison; empty on a page about one run
    colour: (
        int | None
    )  # the run's index in charts.PALETTE (class ``c<n>``); None: the theme's colour
    value: str
    note: str
    width: int  # percent of the longest bar, whole: class ``w<n>`` in style.css


@dataclass(frozen=True)
class BarRow:
    label: str
    bars: tuple[Bar, ...]


@dataclass(frozen=True)
class BarChart:
    caption: str
    rows: tuple[BarRow, ...]
    wide_series: bool = False  # series named by words ("pp512"), not one letter: a wider label


# One step is 1 % of the track, a few pixels: as fine as the figure printed beside it (three
# significant digits), and 101 short classes in the stylesheet.
WIDTH_STEPS = 100


def _width(value: float, peak: float) -> int:
    # A measured figure always shows as a sliver, however small beside the peak.
    return max(1, round(value / peak * WIDTH_STEPS)) if peak > 0 else 1


def prefill_bars(runs: list[tuple[str, Run]], places: list[int] | None = None) -> BarChart | None:
    """Prompt tok/s by context length for one run (label ``""``) or several, side by side.
    ``places``: each run's place in a comparison (its colour ``c<place>``) when some compared
    runs are left out for want of prefill figures; default, their order here."""
    return _bars([(label, run.prefill) for label, run in runs], places)


def prompt_sizes(run: Run) -> list[int]:
    """The prompt sizes of a run's prefill points, where it measured several (llama-bench -p)."""
    sizes = sorted(
        {point.prompt_chunk_tokens for point in run.prefill if point.prompt_chunk_tokens}
    )
    return sizes if len(sizes) > 1 else []


def prefill_bars_by_prompt(run: Run) -> BarChart | None:
    """One run's prefill with a series per prompt size, each by context length; None when the
    run measured one prompt size (or gives none)."""
    sizes = prompt_sizes(run)
    if not sizes:
        return None
    # llama-bench's own short names (pp512: a 512-token prompt) fit the bar's label.
    series: list[tuple[str, Sequence[PrefillPoint]]] = [
        (f"pp{size}", tuple(p for p in run.prefill if p.prompt_chunk_tokens == size))
        for size in sizes
    ]
    chart = _bars(series, list(range(len(series))))
    return (
        BarChart(
            "prompt tok/s by context length, a bar per prompt size (ppN: a prompt of N tokens)",
            chart.rows,
            wide_series=True,
        )
        if chart
        else None
    )


def _bars(
    runs: list[tuple[str, Sequence[PrefillPoint]]], places: list[int] | None
) -> BarChart | None:
    by_context: dict[int, dict[int, tuple[float, float | None]]] = {}
    for index, (_, prefill) in enumerate(runs):
        for point in prefill:
            if point.prompt_tokens_per_s is not None:
                # A run with several chunk sizes at one context shows its first, as its table does.
                by_context.setdefault(point.context_tokens, {}).setdefault(
                    index, (point.prompt_tokens_per_s, point.ttft_ms)
                )
    if not by_context:
        return None
    peak = max(rate for row in by_context.values() for rate, _ in row.values())
    colours: list[int | None] = (
        list(places) if places is not None else list(range(len(runs))) if len(runs) > 1 else [None]
    )  # one run on its own page: the theme's
    rows = []
    for context_tokens in sorted(by_context):
        bars = []
        for index, (label, _) in enumerate(runs):
            figure = by_context[context_tokens].get(index)
            if figure is None:
                bars.append(Bar(label, colours[index], numbers.MISSING, "not measured", 0))
                continue
            rate, ttft = figure
            note = f"{numbers.milliseconds(ttft)} TTFT" if ttft is not None else ""
            bars.append(
                Bar(label, colours[index], numbers.rate_short(rate), note, _width(rate, peak))
            )
        rows.append(BarRow(f"{numbers.context(context_tokens)} context", tuple(bars)))
    return BarChart("prompt tok/s by context length", tuple(rows))
