"""Charts as data: Altair describes each kind of chart, vl-convert draws it as static SVG.

Each chart is one SVG file that serves both colour schemes: it is drawn in the light theme
and carries its own style sheet that recolours text and grid on a dark screen (chart_render),
so charts show without JavaScript and cost one file each. Charts are drawn at one compact
size that stays legible from phones to desktops.

Altair builds one template per kind of chart (its objects are slow to build and copy); each
chart is that template with its own values filled in as text, so a site with thousands of
charts costs a few string operations per chart, not an Altair object graph. A chart here is
only its kind and values (``ChartSpec``); the templates are loaded by chart_render's
``ChartTemplates``, which a build makes and hands to its renderer, so this module never
imports Altair nor holds state between builds.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitegen.model import Run
from sitegen.site.figures import numbers

# Okabe–Ito: distinguishable with the common colour-vision deficiencies.
# Its black is a mid grey here, so that the eighth line shows on both themes.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#8c8c8c"]
# Each run also has its own point shape, so lines stay apart without colour; the page's legend
# draws the same shapes (templates/_macros.html).
SHAPES = [
    "circle",
    "square",
    "triangle-up",
    "diamond",
    "cross",
    "triangle-down",
    "triangle-right",
    "triangle-left",
]
MAX_SERIES = len(PALETTE)  # more lines than colours would be unreadable; pages say so

# Charts are drawn in the light theme; on a dark screen the SVG's own style swaps these colours.
THEMES: dict[str, dict[str, str]] = {
    "light": {"text": "#1f2430", "muted": "#5b6472", "grid": "#e3e6eb"},
    "dark": {"text": "#e6e9ef", "muted": "#a3abb8", "grid": "#343a46"},
}
FONT_SIZE = 13
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
# numbers.context as a Vega expression: 500; 8K, 1019K; else one decimal, half up (4.9K).
_CONTEXT_LABEL = (
    "datum.value < 1024 ? format(datum.value, ',d') : datum.value % 1024 == 0"
    " ? format(datum.value / 1024, 'd') + 'K'"
    " : format(floor((datum.value * 10 + 512) / 1024) / 10, '.1f') + 'K'"
)

# Placeholders in templates, replaced by each chart's own values.
_DATA, _DOMAIN, _X_TICKS, _COLORS, _SHAPES = "@data", "@series", "@x-ticks", "@colors", "@shapes"
_DASH_DOMAIN, _DASHES = "@contexts", "@dashes"
# Line styles of the context lengths on one decode chart: solid, then dashed.
DASHES = [[1, 0], [6, 4]]


@dataclass(frozen=True)
class LegendEntry:
    """A run (its colour and shape) or, with ``dash``, a line style (a context length)."""

    label: str
    colour: str
    shape: str  # one of SHAPES
    dash: str = ""  # SVG stroke-dasharray


@dataclass(frozen=True)
class ChartSpec:
    """One chart: its kind, its placeholder values and its rows; ``alt`` describes it in
    words for screen readers.

    The Vega-Lite spec is the kind's template with these filled in (chart_render). The file
    names hash them together with the source of the templates, so a chart whose drawing
    could change gets a new name.

    The legend is the page's HTML, not part of the drawing: its labels wrap on phones, can
    be selected and searched, and drawing legend text costs vl-convert more than the lines.
    """

    alt: str
    kind: str
    fills: tuple[tuple[str, str], ...]  # placeholder → its value as JSON text, sorted
    rows: str  # the chart's rows, JSON text
    legend: tuple[LegendEntry, ...] = ()

    @property
    def name(self) -> str:
        """The chart's file name without extension: a hash of all that it draws."""
        digest = hashlib.sha256(
            f"{TEMPLATE_SOURCE}\0{self.kind}\0{self.fills}\0{self.rows}".encode()
        )
        return digest.hexdigest()[:20]

    def path(self) -> str:
        """The chart's SVG file inside the site."""
        return f"assets/charts/{self.name}.svg"

    @property
    def spec_path(self) -> str:
        """The chart's values inside the site, for the interactive upgrade (see data_json)."""
        return f"assets/charts/{self.name}.json"

    def data_json(self) -> bytes:
        """What the interactive upgrade fetches: the kind's template file (shared by every chart
        of the kind, see template_path), the placeholder values and the rows as lists of values
        under one list of field names. site.js fills the template as ``fill`` does; nothing of
        the template is repeated per chart."""
        rows: list[dict[str, Any]] = json.loads(self.rows)
        fills = {name: json.loads(value) for name, value in self.fills}
        # What site.js can make again is left out, and named under "derived": a row's run label
        # (the @series entry its line number starts with) and its context in words.
        derived = []
        labels = fills.get(_DOMAIN) or []
        line_numbers = [_line_number(row) for row in rows]
        if rows and all(
            number is not None and number < len(labels) and labels[number] == row.get("series")
            for number, row in zip(line_numbers, rows, strict=True)
        ):
            derived.append("series")
        if rows and all(
            isinstance(row.get("context"), int)
            and row.get("context_text") == numbers.context(row["context"])
            for row in rows
        ):
            derived.append("context_text")
        fields = sorted({field for row in rows for field in row} - set(derived))
        return _canonical(
            {
                "template": template_path(self.kind).rsplit("/", 1)[1],
                "fills": fills,
                "derived": derived,
                "fields": fields,
                "rows": [
                    [_compact_value(field, row.get(field)) for field in fields] for row in rows
                ],
            }
        ).encode()


def _line_number(row: dict[str, Any]) -> int | None:
    """The run's place a row's ``line`` starts with ("3" or "3|0|128"), if it has one."""
    first = str(row.get("line", "")).split("|")[0]
    return int(first) if first.isdigit() else None


def _compact_value(field: str, value: Any) -> Any:
    """A row's value as the values file writes it: a whole number without ".0", a line
    that is only a number as that number (``line`` only tells lines apart)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if field == "line" and isinstance(value, str) and value.isdigit():
        return int(value)
    return value


def template_path(kind: str) -> str:
    """Where a kind's Vega-Lite template is published for the interactive upgrade."""
    return f"assets/charts/template-{kind}-{TEMPLATE_SOURCE[:16]}.json"


@dataclass(frozen=True)
class Series:
    """One run on a comparison chart, under the label its legend shows."""

    label: str
    run: Run


# One encoder for the whole build: json.dumps with options makes a new one per call.
_canonical = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode


def _config(theme: dict[str, str]) -> dict[str, Any]:
    return {
        "background": "transparent",
        "font": FONT,
        "view": {"stroke": None},
        # No label or title limits: a limit makes Vega measure each text again to see whether it
        # must be cut, and measuring text is most of vl-convert's time. Our labels are short.
        "axis": {
            "aria": False,
            "labelColor": theme["muted"],
            "titleColor": theme["text"],
            "gridColor": theme["grid"],
            "domainColor": theme["grid"],
            "tickColor": theme["grid"],
            "labelFontSize": FONT_SIZE,
            "titleFontSize": FONT_SIZE,
            "titleFontWeight": "normal",
            "labelLimit": 0,
            "titleLimit": 0,
        },
        # The <img> alt text describes each chart; ARIA inside an image is never read, only weighed.
        "mark": {"aria": False},
    }


_PLACEHOLDER = re.compile(r'\["(@[a-z-]+)"\]|"(@[a-z-]+)"|(\{"name":"@data"\})')


def fill(template: str, values: dict[str, str], data: str) -> str:
    """Template JSON text with each placeholder replaced by the JSON text of its value.

    ``["@x"]`` stands for a whole list (Altair checks types as it builds, so a list needs a
    list placeholder), ``"@x"`` for any value, and the named dataset ``{"name":"@data"}``
    for ``data``. One pass over the text: what is put in is never read again as a placeholder,
    whatever a run's labels say. Text, not objects: a chart costs a few string operations.
    """

    def replace(match: re.Match[str]) -> str:
        if match.group(3):
            return data
        return values.get(match.group(1) or match.group(2), match.group(0))

    return _PLACEHOLDER.sub(replace, template)


KINDS = ("decode", "prefill", "pareto")


def altair_version() -> str:
    """Altair's installed version, as importlib.metadata.version("altair") gives it: read from
    the first folder on sys.path that holds Altair's metadata, as that function looks for it,
    without importing importlib.metadata (it imports the email package, slow to import, which
    a build needs nothing else of). Anything but one plain ``altair-<version>.dist-info`` there
    (an egg, a look-alike name, two versions) is the library's to answer."""
    for entry in sys.path:
        try:
            found = [
                name
                for name in os.listdir(entry or ".")
                if name.lower().startswith("altair")
                and name.lower().endswith((".dist-info", ".egg-info", ".egg"))
            ]
        except OSError:
            continue
        if not found:
            continue
        if len(found) == 1 and _DIST_INFO.fullmatch(found[0]):
            try:
                head = (
                    (Path(entry or ".") / found[0] / "METADATA")
                    .read_text(encoding="utf-8")
                    .split("\n\n", 1)[0]
                )
            except (OSError, ValueError):
                break
            versions = [
                line[len("Version:") :].strip()
                for line in head.splitlines()
                if line.startswith("Version:")
            ]
            if len(versions) == 1 and versions[0]:
                return versions[0]
        break
    from importlib.metadata import version

    return version("altair")


_DIST_INFO = re.compile(r"altair-[^-/]+\.dist-info", re.IGNORECASE)


TEMPLATE_MODULES = ("chart_specs.py", "vega_templates.py")
_HERE = Path(__file__).resolve().parent


def template_source(folder: Path = _HERE) -> str:
    """A digest of everything the templates are made from: Altair's version and the code of the
    two modules in ``folder``. Their code, not their bytes: a comment, a docstring or a line
    wrapped anew changes no chart, so it must not rename every chart of a site."""
    digest = hashlib.sha256(altair_version().encode())
    for name in TEMPLATE_MODULES:
        tree = ast.parse((folder / name).read_text(encoding="utf-8"))
        digest.update(ast.dump(_without_docstrings(tree)).encode())
    return digest.hexdigest()


def _without_docstrings(tree: ast.Module) -> ast.Module:
    """``tree`` with the docstring of its module, classes and functions removed."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    return tree


TEMPLATE_SOURCE = template_source()


# --- the charts -------------------------------------------------------------------------


def _series_spec(
    kind: str,
    rows: list[dict[str, Any]],
    series: list[Series],
    ticks: list[Any] | None,
    description: str,
    extra: dict[str, Any] | None = None,
) -> ChartSpec | None:
    if not rows:
        return None
    labels = [s.label for s in series]
    colours, shapes = PALETTE[: len(labels)], SHAPES[: len(labels)]
    values = {_DOMAIN: labels, _COLORS: colours, _SHAPES: shapes, _X_TICKS: ticks, **(extra or {})}
    fills = {name: _canonical(value) for name, value in values.items()}
    legend = tuple(LegendEntry(*entry) for entry in zip(labels, colours, shapes, strict=True))
    return ChartSpec(description, kind, tuple(sorted(fills.items())), _canonical(rows), legend)


def _drawn(value: float | None, places: int = 1) -> float | None:
    """A figure as a chart needs it: to a tenth (a thousandth of a pixel on any axis here, and
    the precision the tooltips show), so each chart's values file carries no more digits."""
    return None if value is None else round(value, places)


def _describe_series(title: str, per_series: dict[str, list[str]]) -> str:
    return (
        title
        + ": "
        + "; ".join(
            f"{label}: {', '.join(points)}" for label, points in per_series.items() if points
        )
    )


def decode_overlay(series: list[Series], contexts: list[int]) -> ChartSpec | None:
    """Total decode tok/s against simultaneous requests, one line per run and context length:
    the first context solid, the next dashed, so two contexts share one chart."""
    rows: list[dict[str, Any]] = []
    words: dict[str, list[str]] = {}
    context_labels = [f"{numbers.context(tokens)} context" for tokens in contexts[: len(DASHES)]]
    for number, s in enumerate(series):
        for context_number, (tokens, context_label) in enumerate(
            zip(contexts, context_labels, strict=False)
        ):
            key = f"{s.label} at {context_label}" if len(contexts) > 1 else s.label
            words[key] = []
            for cell in s.run.decode:
                if (
                    cell.context_tokens == tokens
                    and cell.status.measured
                    and cell.total_tokens_per_s is not None
                ):
                    # "line" only tells lines apart: numbers, not the labels again.
                    output_tokens = cell.output_tokens_per_request
                    rows.append(
                        {
                            "series": s.label,
                            "context": context_label,
                            "line": f"{number}|{context_number}|{output_tokens or ''}",
                            "concurrency": cell.concurrency,
                            "total": _drawn(cell.total_tokens_per_s),
                            "ttft": _drawn(cell.ttft_ms, 0),
                        }
                    )
                    words[key].append(
                        f"{cell.concurrency} → {numbers.rate(cell.total_tokens_per_s)}"
                    )
    title = f"Total decode tok/s by simultaneous requests at {' and '.join(context_labels)}"
    dashes = {_DASH_DOMAIN: context_labels, _DASHES: DASHES[: len(context_labels)]}
    chart = _series_spec(
        "decode",
        rows,
        series,
        sorted({r["concurrency"] for r in rows}),
        _describe_series(title, words),
        dashes,
    )
    if chart is None or len(context_labels) < 2:
        return chart
    # The legend's swatch is 4 units for 28 pixels: the chart's dashes in its units.
    styles = tuple(
        LegendEntry(label, "", "", " ".join(f"{length / 7:.2f}" for length in dash))
        for label, dash in zip(context_labels, DASHES, strict=False)
    )
    return dataclasses.replace(chart, legend=chart.legend + styles)


def prefill_overlay(series: list[Series]) -> ChartSpec | None:
    """Prompt tok/s against context length, one line per run."""
    rows: list[dict[str, Any]] = []
    words: dict[str, list[str]] = {}
    for number, s in enumerate(series):
        words[s.label] = []
        for point in s.run.prefill:
            if point.prompt_tokens_per_s is None or point.context_tokens <= 0:
                continue
            rows.append(
                {
                    "series": s.label,
                    "line": str(number),
                    "context": point.context_tokens,
                    "rate": _drawn(point.prompt_tokens_per_s),
                    "context_text": numbers.context(point.context_tokens),
                    "ttft": _drawn(point.ttft_ms, 0),
                }
            )
            words[s.label].append(
                f"{numbers.context(point.context_tokens)} → "
                f"{numbers.rate(point.prompt_tokens_per_s)}"
            )
    return _series_spec(
        "prefill",
        rows,
        series,
        sorted({r["context"] for r in rows}),
        _describe_series("Prompt tok/s by context length", words),
    )


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
    """Total throughput against per-request speed for every measured cell, each run's frontier
    joined."""
    rows: list[dict[str, Any]] = []
    words: dict[str, list[str]] = {}
    for s in series:
        cells = [
            c
            for c in s.run.decode
            if c.status.measured
            and c.total_tokens_per_s is not None
            and c.per_request_tokens_per_s is not None
        ]
        divisor = s.run.hardware.count if per_device else 1
        points = [
            (c.per_request_tokens_per_s or 0.0, (c.total_tokens_per_s or 0.0) / divisor)
            for c in cells
        ]
        frontier = _frontier(points)
        words[s.label] = [
            f"{numbers.rate(x)} per request → {numbers.rate(y)}" for x, y in sorted(frontier)
        ]
        for cell, (x, y) in zip(cells, points, strict=True):
            rows.append(
                {
                    "series": s.label,
                    "per_request": _drawn(x),
                    "total": _drawn(y),
                    "frontier": (x, y) in frontier,
                    "cell": f"{numbers.context(cell.context_tokens)} context × {cell.concurrency}",
                }
            )
    unit = "tok/s per device" if per_device else "total tok/s"
    return _series_spec(
        "pareto",
        rows,
        series,
        None,
        _describe_series(f"Frontier of {unit} against per-request tok/s", words),
        {"@y-title": unit},
    )
