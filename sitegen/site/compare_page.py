"""Compare two runs: /compare/<a>--<b>/ for the natural pairs, and /compare/ for any pick.

The ratio matrix reads "B against A": +12 % means B's total decode throughput is 12 %
above A's in that cell. Every cell shows both figures too, so it reads either way, and an
arrow carries the sign for readers who cannot tell the colours apart.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from dataclasses import dataclass

from sitegen.model import DecodeCell, Run
from sitegen.site import labels, numbers
from sitegen.site.bars import BarChart, prefill_bars
from sitegen.site.charts import ChartSpec, Series, decode_overlay, pareto
from sitegen.site.common import Field, Page, Site, hardware_name, model_name
from sitegen.site.group_pages import MAX_CONTEXT_CHARTS, shared_contexts
from sitegen.site.groups import compare_path


@dataclass(frozen=True)
class RatioCell:
    """B against A in one cell: the change, both figures, and a colour step from -3 to +3."""

    change: str
    arrow: str
    detail: str
    step: int
    comparable: bool


@dataclass(frozen=True)
class RatioRow:
    context: str
    cells: tuple[RatioCell, ...]


@dataclass(frozen=True)
class RatioMatrix:
    """The decode matrices of two runs as ratios, on the union of their axes."""

    concurrencies: tuple[int, ...]
    rows: tuple[RatioRow, ...]
    summary: str


@dataclass(frozen=True)
class FactRow:
    """One fact of both runs side by side."""

    label: str
    a: str
    b: str
    differs: bool


@dataclass(frozen=True)
class ComparePageContext:
    """A comparison of two runs (templates/pages/compare.html)."""

    site: Site
    title: str
    a: Run
    b: Run
    a_label: str
    b_label: str
    a_href: str
    b_href: str
    swap_href: str
    facts: tuple[FactRow, ...]
    ratios: RatioMatrix | None
    decode_chart: ChartSpec | None
    decode_contexts: str
    prefill_bars: BarChart | None
    pareto_chart: ChartSpec | None
    pareto_per_device: bool


@dataclass(frozen=True)
class CompareAppContext:
    """/compare/: pick any two runs (JavaScript), or follow a ready-made comparison."""

    site: Site
    title: str
    runs: tuple[Field, ...]
    pairs: tuple[Field, ...]


def _step(ratio: float) -> int:
    # ±3 %, ±15 %, ±40 %: small, clear and large differences.
    change = ratio - 1.0
    size = 0 if abs(change) < 0.03 else 1 if abs(change) < 0.15 else 2 if abs(change) < 0.40 else 3
    return size if change > 0 else -size


def _ratio_cell(a: DecodeCell | None, b: DecodeCell | None) -> RatioCell:
    a_value = a.total_tokens_per_s if a and a.status.measured else None
    b_value = b.total_tokens_per_s if b and b.status.measured else None
    if a_value and b_value is not None:
        ratio = b_value / a_value
        change = (ratio - 1.0) * 100
        arrow = "▲" if change >= 0.5 else "▼" if change <= -0.5 else "="
        return RatioCell(f"{change:+.0f}%".replace("-", "−"), arrow,
                         f"{numbers.rate(a_value)} → {numbers.rate(b_value)}", _step(ratio), True)

    def state(cell: DecodeCell | None, value: float | None) -> str:
        if cell is None:
            return "—"
        return numbers.rate(value) if value is not None else labels.STATUSES[cell.status]

    if a is None and b is None:
        return RatioCell("", "", numbers.MISSING, 0, False)  # neither run measured here: one dash, not two
    return RatioCell("", "", f"A {state(a, a_value)} · B {state(b, b_value)}", 0, False)


def ratio_matrix(a: Run, b: Run) -> RatioMatrix | None:
    contexts = sorted(set(a.contexts) | set(b.contexts))
    levels = sorted(set(a.concurrencies) | set(b.concurrencies))
    if not contexts:
        return None
    rows = []
    changes = []
    for context in contexts:
        cells = []
        for level in levels:
            cell = _ratio_cell(a.cell(context, level), b.cell(context, level))
            cells.append(cell)
            if cell.comparable:
                a_cell, b_cell = a.cell(context, level), b.cell(context, level)
                assert a_cell and b_cell and a_cell.total_tokens_per_s and b_cell.total_tokens_per_s is not None
                changes.append(b_cell.total_tokens_per_s / a_cell.total_tokens_per_s - 1.0)
        rows.append(RatioRow(numbers.context(context), tuple(cells)))
    if changes:
        faster = sum(change > 0.005 for change in changes)
        summary = (f"B is faster in {faster} of {len(changes)} cells both runs measured; "
                   f"median change {statistics.median(changes) * 100:+.0f}%.").replace("-", "−")
    else:
        summary = "The two runs have no measured cell in common."
    return RatioMatrix(tuple(levels), tuple(rows), summary)


def _facts(a: Run, b: Run) -> tuple[FactRow, ...]:
    def row(label: str, get: object) -> FactRow:
        assert callable(get)
        left, right = get(a) or numbers.MISSING, get(b) or numbers.MISSING
        return FactRow(label, left, right, left != right)

    return (
        row("Model", lambda r: r.info.model),
        row("Hardware", lambda r: hardware_name(r)),
        row("Engine", lambda r: " ".join(p for p in (r.engine.name, r.engine.version) if p)),
        row("Quantization", lambda r: r.engine.quantization),
        row("Parallelism", lambda r: r.engine.parallelism),
        row("Speculative decoding", lambda r: r.engine.speculative_decoding),
        row("Benchmark tool", lambda r: " ".join(p for p in (r.info.benchmark_tool, r.info.benchmark_tool_version) if p)),
        row("Decode test", lambda r: labels.DECODE_MODES.get(r.info.decode_mode or "")),
        row("Max output", lambda r: numbers.tokens(r.info.max_output_tokens) if r.info.max_output_tokens else None),
        row("Date", lambda r: r.info.date),
    )


def short_label(run: Run, run_labels: Mapping[str, str] | None = None) -> str:
    engine = " ".join(p for p in (run.engine.name, run.engine.version) if p)
    name = f"{model_name(run)} · {hardware_name(run, with_memory=False)} · {engine}"
    return labels.with_label(name, (run_labels or {}).get(run.id))


def compare_page(site: Site, a: Run, b: Run, run_labels: Mapping[str, str] | None = None) -> Page:
    series = [Series(f"A: {a.id}", a), Series(f"B: {b.id}", b)]
    contexts = shared_contexts([a, b], MAX_CONTEXT_CHARTS)
    # Both context lengths on one chart (solid and dashed): two runs make four lines, still legible.
    decode_chart = decode_overlay(series, contexts)
    # Runs on different numbers of accelerators are compared per device: totals would weigh
    # the hardware budget, not the setup. The ratio matrix still compares totals.
    per_device = a.hardware.count != b.hardware.count
    frontier = pareto(series, per_device=per_device)
    context = ComparePageContext(
        site=site,
        title=f"{a.id} vs {b.id}",
        a=a, b=b,
        a_label=short_label(a, run_labels), b_label=short_label(b, run_labels),
        a_href=site.url(f"runs/{a.id}/"), b_href=site.url(f"runs/{b.id}/"),
        swap_href=site.url(f"compare/?a={b.id}&b={a.id}"),
        facts=_facts(a, b),
        ratios=ratio_matrix(a, b),
        decode_chart=decode_chart,
        decode_contexts=" and ".join(numbers.context(c) for c in contexts),
        prefill_bars=prefill_bars([("A", a), ("B", b)]),
        pareto_chart=frontier,
        pareto_per_device=per_device,
    )
    charts = tuple(c for c in (decode_chart, frontier) if c)
    return Page(f"{compare_path(a, b)}index.html", "pages/compare.html", context, charts)


def compare_app_page(site: Site, runs: list[Run], pairs: list[tuple[Run, Run]],
                     run_labels: Mapping[str, str] | None = None) -> Page:
    context = CompareAppContext(
        site=site,
        title="Compare runs",
        runs=tuple(Field(run.id, short_label(run, run_labels), site.url(f"runs/{run.id}.json"))
                   for run in sorted(runs, key=lambda r: r.id)),
        pairs=tuple(Field(f"{a.id} → {b.id}", f"{short_label(a, run_labels)} → {short_label(b, run_labels)}",
                          site.url(compare_path(a, b)))
                    for a, b in pairs),
    )
    return Page("compare/index.html", "pages/compare_app.html", context)
