"""Charts as data: Altair describes each kind of chart, vl-convert draws it as static SVG.

Every chart exists in a light and a dark variant; the page picks one with a ``<picture>``
media query, so charts show without JavaScript. Charts are drawn at one compact size that
stays legible from phones to desktops: rendering is most of a cold build's cost, so each
chart is rendered once (the dark variant is the light SVG recoloured, see chart_render).

Altair builds one template per kind of chart, theme and layout (its objects are slow to
build and copy); each chart is that template with its own data filled in, so a site with
thousands of charts costs a dict copy per chart, not an Altair object graph.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from sitegen.model import PrefillPoint, Run
from sitegen.site import numbers

# Okabe–Ito: distinguishable with the common colour-vision deficiencies.
# Its black is a mid grey here, so that the eighth line shows on both themes.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#8c8c8c"]
MAX_SERIES = len(PALETTE)  # more lines than colours would be unreadable; pages say so

THEMES: dict[str, dict[str, str]] = {
    "light": {"text": "#1f2430", "muted": "#5b6472", "grid": "#e3e6eb", "bar": "#2f6db5"},
    "dark": {"text": "#e6e9ef", "muted": "#a3abb8", "grid": "#343a46", "bar": "#6ea8ff"},
}
VARIANTS = tuple(THEMES)
FONT_SIZE = 13
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
_CONTEXT_LABEL = "datum.value >= 1024 ? format(datum.value / 1024, ',d') + 'K' : format(datum.value, ',d')"

# Placeholders in templates, replaced by each chart's own values.
_DATA, _DOMAIN, _X_TICKS, _X_MAX, _COLORS = "@data", "@series", "@x-ticks", "@x-max", "@colors"


@dataclass(frozen=True)
class ChartSpec:
    """One chart in every variant; ``alt`` describes it in words for screen readers."""

    alt: str
    specs: tuple[tuple[str, str], ...]  # ("light", canonical Vega-Lite JSON), ("dark", …)

    def spec(self, variant: str) -> str:
        return dict(self.specs)[variant]

    def path(self, variant: str) -> str:
        """The chart's file inside the site, named by the hash of its spec."""
        return f"assets/charts/{hashlib.sha256(self.spec(variant).encode()).hexdigest()[:20]}.svg"



@dataclass(frozen=True)
class Series:
    """One run on a comparison chart, under the label its legend shows."""

    label: str
    run: Run


def _canonical(spec: dict[str, Any]) -> str:
    return json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _config(theme: dict[str, str]) -> dict[str, Any]:
    return {
        "background": "transparent",
        "font": FONT,
        "view": {"stroke": None},
        "axis": {"aria": False, "labelColor": theme["muted"], "titleColor": theme["text"], "gridColor": theme["grid"],
                 "domainColor": theme["grid"], "tickColor": theme["grid"], "labelFontSize": FONT_SIZE,
                 "titleFontSize": FONT_SIZE, "titleFontWeight": "normal"},
        "legend": {"labelColor": theme["text"], "titleColor": theme["text"], "labelFontSize": FONT_SIZE,
                   "aria": False},
        # The <img> alt text describes each chart; ARIA inside an image is never read, only weighed.
        "mark": {"aria": False},
    }


def _fill(template: str, values: dict[str, Any]) -> str:
    """The template with every placeholder string replaced by its value."""

    def walk(node: Any) -> Any:
        if isinstance(node, str) and node in values:
            return values[node]
        if isinstance(node, list) and len(node) == 1 and isinstance(node[0], str) and node[0] in values:
            return values[node[0]]  # Altair checks types as it builds, so list placeholders stand in for lists
        if isinstance(node, dict):
            return {key: walk(value) for key, value in node.items()}
        if isinstance(node, list):
            return [walk(value) for value in node]
        return node

    return _canonical(walk(json.loads(template)))


def _template(kind: str, variant: str) -> str:
    # Altair takes most of a second to import; a build with nothing new to draw never needs it.
    from sitegen.site.chart_templates import template

    return template(kind, variant)


def _chart(alt_text: str, kind: str, values: dict[str, Any]) -> ChartSpec:
    specs = tuple((variant, _fill(_template(kind, variant), values)) for variant in VARIANTS)
    return ChartSpec(alt=alt_text, specs=specs)


# --- the charts -------------------------------------------------------------------------


def prefill_chart(points: tuple[PrefillPoint, ...]) -> ChartSpec | None:
    """Horizontal bars of prompt tok/s by context length, each labelled with its TTFT."""
    rows: list[dict[str, Any]] = [
        {
            "context": f"{numbers.context(p.context_tokens)} context",
            "order": index,
            "rate": p.prompt_tokens_per_s,
            "label": numbers.rate_short(p.prompt_tokens_per_s)
            + (f" · {numbers.milliseconds(p.ttft_ms)} TTFT" if p.ttft_ms is not None else ""),
        }
        for index, p in enumerate(points)
        if p.prompt_tokens_per_s is not None
    ]
    if not rows:
        return None
    peak = max(float(row["rate"]) for row in rows)
    description = "Prompt tokens per second by context length: " + "; ".join(
        f"{row['context']} {row['label'].replace(' · ', ', ')}" for row in rows
    )
    specs = []
    for variant in VARIANTS:
        specs.append((variant, _fill(_template("prefill-bars", variant), {_DATA: None, _X_MAX: peak * 1.9})))
    return ChartSpec(description, tuple((v, _with_values(spec, rows)) for v, spec in specs))


def _with_values(spec_json: str, rows: list[dict[str, Any]]) -> str:
    spec = json.loads(spec_json)
    spec["data"] = {"values": rows}
    return _canonical(spec)


def _series_spec(kind: str, rows: list[dict[str, Any]], series: list[Series], ticks: list[Any] | None,
                 description: str, extra: dict[str, Any] | None = None) -> ChartSpec | None:
    if not rows:
        return None
    labels = [s.label for s in series]
    values = {_DATA: None, _DOMAIN: labels, _COLORS: PALETTE[: len(labels)], _X_TICKS: ticks, **(extra or {})}
    chart = _chart(description, kind, values)
    return ChartSpec(chart.alt, tuple((v, _with_values(spec, rows)) for v, spec in chart.specs))


def _describe_series(title: str, per_series: dict[str, list[str]]) -> str:
    return title + ": " + "; ".join(f"{label}: {', '.join(points)}" for label, points in per_series.items() if points)


def decode_overlay(series: list[Series], context_tokens: int) -> ChartSpec | None:
    """Total decode tok/s against simultaneous requests at one context, one line per run."""
    rows: list[dict[str, Any]] = []
    words: dict[str, list[str]] = {}
    for s in series:
        words[s.label] = []
        for cell in s.run.decode:
            if cell.context_tokens == context_tokens and cell.status.measured and cell.total_tokens_per_s is not None:
                rows.append({"series": s.label, "line": f"{s.label}|{cell.output_tokens_per_request or ''}",
                             "concurrency": cell.concurrency, "total": cell.total_tokens_per_s,
                             "total_text": numbers.rate(cell.total_tokens_per_s),
                             "ttft_text": numbers.milliseconds(cell.ttft_ms)})
                words[s.label].append(f"{cell.concurrency} → {numbers.rate(cell.total_tokens_per_s)}")
    title = f"Total decode tok/s by simultaneous requests at {numbers.context(context_tokens)} context"
    return _series_spec("decode", rows, series, sorted({r["concurrency"] for r in rows}), _describe_series(title, words))


def prefill_overlay(series: list[Series]) -> ChartSpec | None:
    """Prompt tok/s against context length, one line per run."""
    rows: list[dict[str, Any]] = []
    words: dict[str, list[str]] = {}
    for s in series:
        words[s.label] = []
        for point in s.run.prefill:
            if point.prompt_tokens_per_s is None or point.context_tokens <= 0:
                continue
            rows.append({"series": s.label, "line": s.label, "context": point.context_tokens,
                         "rate": point.prompt_tokens_per_s, "rate_text": numbers.rate(point.prompt_tokens_per_s),
                         "context_text": numbers.context(point.context_tokens),
                         "ttft_text": numbers.milliseconds(point.ttft_ms)})
            words[s.label].append(f"{numbers.context(point.context_tokens)} → {numbers.rate(point.prompt_tokens_per_s)}")
    return _series_spec("prefill", rows, series, sorted({r["context"] for r in rows}),
                        _describe_series("Prompt tok/s by context length", words))


def _frontier(points: list[tuple[float, float]]) -> set[tuple[float, float]]:
    """The points no other point beats on both per-request speed and total throughput."""
    best = -1.0
    frontier = set()
    for x, y in sorted(points, key=lambda p: (-p[0], -p[1])):
        if y > best:
            frontier.add((x, y))
            best = y
    return frontier


def pareto(series: list[Series], per_device: bool) -> ChartSpec | None:
    """Total throughput against per-request speed for every measured cell, each run's frontier joined."""
    rows: list[dict[str, Any]] = []
    words: dict[str, list[str]] = {}
    for s in series:
        cells = [c for c in s.run.decode
                 if c.status.measured and c.total_tokens_per_s is not None and c.per_request_tokens_per_s is not None]
        divisor = s.run.hardware.count if per_device else 1
        points = [(c.per_request_tokens_per_s or 0.0, (c.total_tokens_per_s or 0.0) / divisor) for c in cells]
        frontier = _frontier(points)
        words[s.label] = [f"{numbers.rate(x)} per request → {numbers.rate(y)}" for x, y in sorted(frontier)]
        for cell, (x, y) in zip(cells, points, strict=True):
            rows.append({"series": s.label, "per_request": x, "total": y, "total_text": numbers.rate(y),
                         "per_request_text": numbers.rate(x), "frontier": (x, y) in frontier,
                         "cell": f"{numbers.context(cell.context_tokens)} context × {cell.concurrency}"})
    unit = "tok/s per device" if per_device else "total tok/s"
    return _series_spec("pareto", rows, series, None,
                        _describe_series(f"Frontier of {unit} against per-request tok/s", words), {"@y-title": unit})
