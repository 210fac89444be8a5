"""Altair's part: one Vega-Lite template per kind of chart and theme, with placeholders
(see charts.py) where each chart's own data goes. Imported only when a chart is drawn."""

from __future__ import annotations

from functools import cache
from typing import Any

import altair as alt

from sitegen.site.draw.chart_specs import (
    _COLORS,
    _CONTEXT_LABEL,
    _DASH_DOMAIN,
    _DASHES,
    _DATA,
    _DOMAIN,
    _SHAPES,
    _X_TICKS,
    THEMES,
    _canonical,
    _config,
)


def _finish(chart: alt.TopLevelMixin, theme: dict[str, str]) -> str:
    # Config is set on the dict: Altair would validate it against the whole schema each time.
    spec: dict[str, Any] = chart.to_dict(validate=False)
    spec["config"] = _config(theme)
    # Browsers may draw the SVG's text in a wider font than vl-convert measured with.
    spec["padding"] = {"left": 16, "right": 16, "top": 4, "bottom": 4}
    return _canonical(spec)


# --- templates: built once per kind ---------------------------------------------------------


@cache
def template(kind: str) -> str:
    """The Vega-Lite spec of one kind of chart, in the light theme, with placeholders for its
    data."""
    theme = THEMES["light"]
    return _finish(_series_lines(kind, theme), theme)


# Tooltips of the interactive chart: (field, its type, title, d3 format or None).
_Tip = tuple[str, str, str, str | None]


def _axes(kind: str) -> tuple[alt.X, alt.Y, list[_Tip]]:
    return {
        "decode": (
            alt.X(
                "concurrency:Q",
                title="simultaneous requests",
                scale=alt.Scale(type="log", base=2),
                axis=alt.Axis(values=[_X_TICKS], format="d"),
            ),
            alt.Y("total:Q", title="total decode tok/s", axis=alt.Axis(format="~s")),
            [
                ("series", "N", "run", None),
                ("context", "N", "context", None),
                ("concurrency", "Q", "requests", "d"),
                ("total", "Q", "total tok/s", ",.1f"),
                ("ttft", "Q", "TTFT (ms)", ",.0f"),
            ],
        ),
        "prefill": (
            alt.X(
                "context:Q",
                title="context length (tokens)",
                scale=alt.Scale(type="log", base=2),
                axis=alt.Axis(values=[_X_TICKS], labelExpr=_CONTEXT_LABEL, labelOverlap=True),
            ),
            alt.Y("rate:Q", title="prompt tok/s", axis=alt.Axis(format="~s")),
            [
                ("series", "N", "run", None),
                ("context_text", "N", "context", None),
                ("rate", "Q", "prompt tok/s", ",.1f"),
                ("ttft", "Q", "TTFT (ms)", ",.0f"),
            ],
        ),
        "pareto": (
            alt.X(
                "per_request:Q",
                title="per-request tok/s (interactivity)",
                axis=alt.Axis(format="~s"),
            ),
            alt.Y("total:Q", title="@y-title", axis=alt.Axis(format="~s")),
            [
                ("series", "N", "run", None),
                ("cell", "N", "cell", None),
                ("per_request", "Q", "per request tok/s", ",.1f"),
                ("total", "Q", "@y-title", ",.1f"),
            ],
        ),
    }[kind]


def _tooltip(field: str, kind: str, title: str, number_format: str | None) -> alt.Tooltip:
    if number_format is None:
        return alt.Tooltip(f"{field}:{kind}", title=title)
    return alt.Tooltip(f"{field}:{kind}", title=title, format=number_format)


def _series_lines(kind: str, theme: dict[str, str]) -> alt.TopLevelMixin:
    x, y, tooltip = _axes(kind)
    # The legend is HTML beside the chart (see charts.ChartSpec).
    color = alt.Color("series:N", scale=alt.Scale(domain=[_DOMAIN], range=[_COLORS]), legend=None)
    named_data = alt.Chart(alt.Data(name=_DATA))  # type: ignore[no-untyped-call]
    base = named_data.encode(x=x, y=y, color=color)
    # The shape and the tooltips are the points' only: a line with a shape channel gets a second
    # symbol at every point from Vega-Lite (drawn under the point, and a second file size), and a
    # line's tooltip would show one arbitrary point of it. The points are opaque, as that
    # second symbol made their middles.
    points = base.mark_point(filled=True, size=50, opacity=1).encode(
        shape=alt.Shape(
            "series:N", scale=alt.Scale(domain=[_DOMAIN], range=[_SHAPES]), legend=None
        ),
        tooltip=[_tooltip(*tip) for tip in tooltip],
    )
    if kind == "pareto":
        # Only frontier points are joined; the others stand alone.
        line = (
            base.mark_line(strokeWidth=2, opacity=0.8)
            .encode(order=alt.Order("per_request:Q"))
            .transform_filter("datum.frontier")
        )
    else:
        line = base.mark_line(strokeWidth=2, opacity=0.8).encode(detail="line:N")
    if kind == "decode":  # one line style per context length (charts.decode_overlay)
        line = line.encode(
            strokeDash=alt.StrokeDash(
                "context:N", scale=alt.Scale(domain=[_DASH_DOMAIN], range=[_DASHES]), legend=None
            )
        )
    chart: alt.TopLevelMixin = alt.layer(line, points).properties(width=380, height=230)
    return chart
