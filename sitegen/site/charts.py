"""Charts as data: Altair builds Vega-Lite specs, vl-convert renders them to static SVG.

Every chart exists in a light and a dark variant (the page picks one with
``prefers-color-scheme``), is rendered at build time so it shows without JavaScript,
and is cached by the hash of its spec: an unchanged chart is never rendered twice.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import altair as alt

from sitegen.model import PrefillPoint
from sitegen.site import numbers

# Okabe–Ito: distinguishable with the common colour-vision deficiencies.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]

THEMES: dict[str, dict[str, str]] = {
    "light": {"text": "#1f2430", "muted": "#5b6472", "grid": "#e3e6eb", "bar": "#2f6db5", "label": "#1f2430"},
    "dark": {"text": "#e6e9ef", "muted": "#a3abb8", "grid": "#343a46", "bar": "#6ea8ff", "label": "#e6e9ef"},
}
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"


# Layouts: a wide chart for desktops and a narrow one that stays legible on phones.
LAYOUTS: dict[str, dict[str, int]] = {"wide": {"width": 640, "font": 12}, "narrow": {"width": 230, "font": 11}}
NARROW_MEDIA = "(max-width: 600px)"


@dataclass(frozen=True)
class ChartSpec:
    """One chart in every theme and layout; ``alt`` describes it in words."""

    alt: str
    specs: tuple[tuple[str, str], ...]  # ("light-wide", canonical Vega-Lite JSON), …

    def path(self, variant: str) -> str:
        """The chart's file inside the site, named by the hash of its spec."""
        spec = dict(self.specs)[variant]
        return f"assets/charts/{hashlib.sha256(spec.encode()).hexdigest()[:20]}.svg"


def _canonical(spec: dict[str, Any]) -> str:
    return json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _config(theme: dict[str, str]) -> dict[str, Any]:
    return {
        "background": "transparent",
        "font": FONT,
        "view": {"stroke": None},
        "axis": {"labelColor": theme["muted"], "titleColor": theme["text"], "gridColor": theme["grid"],
                 "domainColor": theme["grid"], "tickColor": theme["grid"], "labelFontSize": 12, "titleFontSize": 12,
                 "titleFontWeight": "normal"},
        "legend": {"labelColor": theme["text"], "titleColor": theme["text"]},
    }


def _finish(chart: alt.TopLevelMixin, theme: dict[str, str]) -> str:
    # Config is set on the dict: Altair would validate it against the whole schema each time.
    spec: dict[str, Any] = chart.to_dict(validate=False)
    spec["config"] = _config(theme)
    # Browsers may draw the SVG's text in a wider font than vl-convert measured with.
    spec["padding"] = {"left": 24, "right": 24, "top": 4, "bottom": 4}
    return _canonical(spec)


def prefill_chart(points: tuple[PrefillPoint, ...]) -> ChartSpec | None:
    """Horizontal bars of prompt tok/s by context length, each labelled with its TTFT."""
    rows: list[dict[str, Any]] = [
        {
            "context": f"{numbers.context(p.context_tokens)} context",
            "order": index,
            "rate": p.prompt_tokens_per_s,
            "label": numbers.rate_short(p.prompt_tokens_per_s)
            + (f"  ·  {numbers.milliseconds(p.ttft_ms)} TTFT" if p.ttft_ms is not None else ""),
            "short": numbers.rate_short(p.prompt_tokens_per_s)
            + (f" · {numbers.milliseconds(p.ttft_ms)}" if p.ttft_ms is not None else ""),
        }
        for index, p in enumerate(points)
        if p.prompt_tokens_per_s is not None
    ]
    if not rows:
        return None
    peak = max(float(row["rate"]) for row in rows)
    specs = []
    for theme_name, theme in THEMES.items():
        for layout_name, layout in LAYOUTS.items():
            narrow = layout_name == "narrow"
            base = alt.Chart(alt.Data(values=rows)).encode(  # type: ignore[no-untyped-call]
                y=alt.Y("context:N", sort=alt.EncodingSortField("order"), title=None,
                        axis=alt.Axis(labelColor=theme["text"], labelPadding=8, ticks=False, domain=False,
                                      labelFontSize=layout["font"])),
            )
            bars = base.mark_bar(color=theme["bar"], cornerRadiusEnd=3, height={"band": 0.7}).encode(
                # Head room on the right keeps each bar's label inside the chart.
                x=alt.X("rate:Q", title="prompt tok/s", axis=alt.Axis(format="~s", tickCount=4 if narrow else 6),
                        scale=alt.Scale(domain=[0, peak * (2.4 if narrow else 1.5)], nice=False)),
            )
            labels = base.mark_text(align="left", dx=5, color=theme["label"], fontSize=layout["font"]).encode(
                x=alt.X("rate:Q"), text=alt.Text("short:N" if narrow else "label:N"),
            )
            chart = (bars + labels).properties(width=layout["width"], height=alt.Step(26 if narrow else 30))
            specs.append((f"{theme_name}-{layout_name}", _finish(chart, theme)))
    description = "Prompt tokens per second by context length: " + "; ".join(
        f"{row['context']} {row['label'].replace('  ·  ', ', ')}" for row in rows
    )
    return ChartSpec(alt=description, specs=tuple(specs))


_CLIP_ID = re.compile(r"\bclip(\d+)\b")


def _stable_ids(svg: str) -> str:
    """Number clip-path ids from 1 in each file: vl-convert counts them across the process,
    so the same chart would otherwise differ from build to build."""
    numbering: dict[str, str] = {}

    def renumber(match: re.Match[str]) -> str:
        return "clip" + numbering.setdefault(match.group(1), str(len(numbering) + 1))

    return _CLIP_ID.sub(renumber, svg)


class ChartRenderer:
    """Render chart specs to SVG through vl-convert, with an on-disk cache by spec hash."""

    def __init__(self, cache_dir: Path) -> None:
        self.cache_dir = cache_dir
        self.rendered = 0

    def svg(self, spec_json: str) -> bytes:
        digest = hashlib.sha256(spec_json.encode()).hexdigest()
        cached = self.cache_dir / f"{digest}.svg"
        try:
            return cached.read_bytes()
        except FileNotFoundError:
            pass
        import vl_convert

        svg = _stable_ids(vl_convert.vegalite_to_svg(json.loads(spec_json))).encode()
        self.rendered += 1
        try:
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            from sitegen.store import write_atomic

            write_atomic(cached, svg)
        except OSError:
            pass  # a cache that cannot be written only costs time
        return svg
