"""Prefill as bars drawn in HTML: one row per context length, one bar per run.

The speed-test-matrix page shows prefill as rows of text ("8K context · 10.2K · 803 ms
TTFT") beside a bar, so the figures are real text: selectable, found by the browser's
search, read by screen readers in order, and wrapped on phones. The bars are tiny inline
SVGs coloured by the page's stylesheet, so they follow the light or dark theme without a
second file, and there is no chart to render: a run page costs no vl-convert time.
"""

from __future__ import annotations

from dataclasses import dataclass

from sitegen.model import Run
from sitegen.site import numbers
from sitegen.site.charts import PALETTE


@dataclass(frozen=True)
class Bar:
    """One run's figure at one context length; ``width`` is its share of the longest bar, 0–100."""

    series: str  # which run, "A" or "B" on a comparison; empty on a page about one run
    colour: str  # empty: the theme's bar colour
    value: str
    note: str
    width: str  # SVG user units, formatted once here so templates stay free of arithmetic


@dataclass(frozen=True)
class BarRow:
    label: str
    bars: tuple[Bar, ...]


@dataclass(frozen=True)
class BarChart:
    caption: str
    rows: tuple[BarRow, ...]


def _width(value: float, peak: float) -> str:
    # A measured figure always shows as a sliver, however small beside the peak.
    return f"{max(0.5, value / peak * 100):.1f}" if peak > 0 else "0.5"


def prefill_bars(runs: list[tuple[str, Run]]) -> BarChart | None:
    """Prompt tok/s by context length for one run (label ``""``) or several, side by side."""
    by_context: dict[int, dict[int, tuple[float, float | None]]] = {}
    for index, (_, run) in enumerate(runs):
        for point in run.prefill:
            if point.prompt_tokens_per_s is not None:
                # A run with several chunk sizes at one context shows its first, as its table does.
                by_context.setdefault(point.context_tokens, {}).setdefault(
                    index, (point.prompt_tokens_per_s, point.ttft_ms))
    if not by_context:
        return None
    peak = max(rate for row in by_context.values() for rate, _ in row.values())
    colours = PALETTE[: len(runs)] if len(runs) > 1 else [""]  # one run: the theme's colour
    rows = []
    for context_tokens in sorted(by_context):
        bars = []
        for index, (label, _) in enumerate(runs):
            figure = by_context[context_tokens].get(index)
            if figure is None:
                bars.append(Bar(label, colours[index], numbers.MISSING, "not measured", "0"))
                continue
            rate, ttft = figure
            note = f"{numbers.milliseconds(ttft)} TTFT" if ttft is not None else ""
            bars.append(Bar(label, colours[index], numbers.rate_short(rate), note, _width(rate, peak)))
        rows.append(BarRow(f"{numbers.context(context_tokens)} context", tuple(bars)))
    return BarChart("prompt tok/s by context length", tuple(rows))
