"""A run's open-loop load points on its page: their own table and chart, never in the matrix."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from sitegen.model import LoadPoint, Run
from sitegen.site.figures import numbers
from sitegen.site.sections.setups import (
    CHART_HEIGHT,
    CHART_WIDTH,
    MARGIN,
    Timeline,
    TimelinePoint,
    load_words,
)


@dataclass(frozen=True)
class LoadPointRow:
    """One load point as its table row shows it."""

    anchor: str
    rate: str
    arrival: str
    cap: str
    lengths: str
    completed: str
    achieved: str
    total: str
    per_request: str
    ttft: str
    tbt: str
    note: str


@dataclass(frozen=True)
class LoadPointTable:
    rows: tuple[LoadPointRow, ...]
    chart: Timeline | None  # total tok/s by request rate, one line per cap, arrival and length


def _arrival(point: LoadPoint) -> str:
    if point.arrival == "gamma":
        return (
            f"gamma, burstiness {point.burstiness:g}" if point.burstiness is not None else "gamma"
        )
    return point.arrival


def _row(index: int, point: LoadPoint) -> LoadPointRow:
    output = (
        numbers.tokens(point.output_tokens_per_request) if point.output_tokens_per_request else "—"
    )
    return LoadPointRow(
        anchor=f"lp-{index + 1}",
        rate=f"{point.request_rate:g}/s",
        arrival=_arrival(point),
        cap=str(point.max_concurrency) if point.max_concurrency else "none",
        lengths=f"{numbers.tokens(point.input_tokens_per_request)} → {output}",
        completed=numbers.integer(point.completed_requests),
        achieved=f"{point.request_throughput:.3g}/s" if point.request_throughput else "—",
        total=numbers.rate(point.total_tokens_per_s),
        per_request=numbers.rate(point.per_request_tokens_per_s),
        ttft=numbers.milliseconds(point.ttft_ms),
        tbt=numbers.milliseconds(point.time_between_tokens_ms),
        note=point.note or "",
    )


def load_point_table(run: Run) -> LoadPointTable | None:
    points = run.load_points
    if not points:
        return None
    return LoadPointTable(tuple(_row(i, p) for i, p in enumerate(points)), _chart(points))


def _chart(points: tuple[LoadPoint, ...]) -> Timeline | None:
    """Total tok/s against the request rate; one line per cap, arrival and input length."""
    rates = [p.request_rate for p in points]
    values = [p.total_tokens_per_s for p in points]
    low_x, high_x = min(rates), max(rates)
    high_y = max(values) * 1.1 or 1.0
    span_x = (high_x - low_x) or 1.0

    def x(rate: float) -> float:
        if high_x == low_x:
            return CHART_WIDTH / 2
        return round(MARGIN + (rate - low_x) / span_x * (CHART_WIDTH - 2 * MARGIN), 1)

    def y(value: float) -> float:
        return round(CHART_HEIGHT - 24 - value / high_y * (CHART_HEIGHT - 44), 1)

    drawn = tuple(
        TimelinePoint(
            x(p.request_rate),
            y(p.total_tokens_per_s),
            f"#lp-{i + 1}",
            f"{load_words(p.request_rate, _arrival(p), None, p.max_concurrency)}: "
            f"{numbers.rate(p.total_tokens_per_s)}",
        )
        for i, p in enumerate(points)
    )
    lines: dict[tuple[object, ...], list[TimelinePoint]] = defaultdict(list)
    for point, shown in zip(points, drawn, strict=True):
        lines[
            (point.max_concurrency, point.arrival, point.burstiness, point.input_tokens_per_request)
        ].append(shown)
    joined = tuple(
        " ".join(f"{p.x},{p.y}" for p in sorted(line, key=lambda p: p.x)) for line in lines.values()
    )
    ticks = tuple(sorted({(x(p.request_rate), f"{p.request_rate:g}/s") for p in points}))
    return Timeline(
        "total tok/s by request rate", joined, drawn, (), numbers.rate(high_y), "0", ticks
    )
