"""What the serving benchmarks (vLLM, SGLang, GuideLLM, GenAI-Perf/AIPerf) share: one record
is one load point, and the load points of a sweep become one decode matrix.

* **Context** is the measured mean input length of each point, never the requested one (SGLang
  draws prompts shorter than ``--random-input-len``; vLLM keeps no input-length setting). Points
  whose measured means lie within 10 % of the smallest mean of their group share one context:
  the means sorted, a new group starts where a mean exceeds 1.1 × its group's first; the
  group's context is the mean of its members' means, rounded to a whole token. Each cell keeps
  its own measured mean in ``source_values.mean_input_tokens``.
* **Concurrency** is the fixed number of requests in flight the tool kept. A point driven by a
  request rate has no such coordinate: it is never a matrix cell but a *load point*
  (``measurements.load_points``, schema 1.2) at its rate, arrival and cap, with the same
  measured input length rule and ``input_tokens_per_request`` as its context. A point that
  sent every request at once has neither: it is left out with a note naming it, and a file
  holding nothing else is refused, saying why.
* **A point in which every request failed** is refused, never drawn as zero.
* Identical records count once (``vllm bench sweep`` repeats each run in its ``summary.json``).
* **Repetitions** of one point make one cell. A ``vllm bench sweep`` repeats each point on
  purpose (``--num-runs``): the cell is their mean, with each figure's spread and the count in
  ``repeats`` (:func:`averaged`). Elsewhere (a JSON Lines file appended to twice) the cell is
  the repetition with the median total tok/s (the lower of the two middle ones for an even
  count), one real measurement; every repetition's total tok/s is kept in ``source_values``.
* Points of different server or client configurations (a ``vllm bench sweep`` over
  ``max_num_seqs``) are not one run: refused, naming what differs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from sitegen.collect.adapters._foreign import DECIMALS, Adapted, Node, Record
from sitegen.errors import SitegenError

# Cells whose measured mean input lengths differ by less than this share a context.
CONTEXT_TOLERANCE = 0.10
OPEN_LOOP_HINT = (
    "sitegen's decode matrix is context × concurrency, and this run kept no fixed number of "
    "requests in flight, so it has no place in it"
)


def where(node: Node) -> str:
    """A record as messages name it: its file, and its line when it is one of many."""
    line = node.document.line_of(node.pointer)
    return f"{node.document.source}:{line}" if line else node.document.source


def rate(node: Node) -> float:
    """A request rate: a number, Python's bare ``Infinity``, or the string ``"inf"`` (vLLM)."""
    if isinstance(node.value, str) and node.value.strip().lower() in ("inf", "infinity", "+inf"):
        return math.inf
    value = float(node.number())
    if math.isnan(value):
        raise node.error("expected a request rate, got NaN")
    return value


def rounded(value: float) -> float:
    return round(value, DECIMALS)


def finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class Load:
    """The load of an open-loop point, as the benchmark was told (schema 1.2 ``load_point``)."""

    request_rate: float
    arrival: str  # "poisson", "gamma" or "constant"
    burstiness: float | None = None
    max_concurrency: int | None = None

    def fields(self) -> dict[str, Any]:
        given = {
            "request_rate": self.request_rate,
            "arrival": self.arrival,
            "burstiness": self.burstiness,
            "max_concurrency": self.max_concurrency,
        }
        return {name: value for name, value in given.items() if value is not None}


@dataclass
class Point:
    """One load point of a serving benchmark, before it has a place in the matrix."""

    node: Node
    record: Record
    concurrency: int | None = None
    open_loop: str = ""  # why there is no concurrency coordinate
    failed: str = ""  # why nothing was measured
    mean_input_tokens: float | None = None
    input_field: str = ""  # " (no `field`)": where the tool keeps input tokens, for the refusal
    statistics: dict[str, dict[str, float]] = field(default_factory=dict)
    source_values: dict[str, Any] = field(default_factory=dict)
    # Settings the record states besides the load (a sweep's serve parameters): one run has one.
    configuration: dict[str, Any] = field(default_factory=dict)
    load: Load | None = None  # what a rate-driven point was told: it becomes a load point
    mean_output_tokens: float | None = None
    # Figures only a load point has (achieved request rate, failed requests): name → (value, key).
    load_figures: dict[str, tuple[Any, str]] = field(default_factory=dict)

    def figure(self, name: str, value: Any, raw_key: str | None) -> None:
        """A headline figure; a missing, non-finite or zero statistic is "not measured", never 0."""
        if finite(value) and value > 0:
            self.record.set(name, rounded(value), raw_key)

    def statistic(self, figure: str, statistic: str, value: Any) -> None:
        if finite(value) and value >= 0:
            self.statistics.setdefault(figure, {})[statistic] = rounded(value)

    def keep(self, name: str, value: Any) -> None:
        """A value as the tool wrote it, for reviewers (schema ``source_values``)."""
        if value is None or isinstance(value, (str, bool)) or finite(value):
            self.source_values[name] = rounded(value) if isinstance(value, float) else value


def matrix(
    adapted: Adapted, points: list[Point], tool: str, rerun: str, average_repeats: bool = False
) -> None:
    """Place the points in the decode matrix, or refuse the import with every reason.

    ``rerun`` says how to make the tool keep a fixed concurrency (its own flag);
    ``average_repeats``: repetitions of a point make one cell of their mean (:func:`averaged`),
    not the median one.
    """
    points = _unique(points)
    failed = [p for p in points if p.failed]
    if failed:
        raise SitegenError(
            [
                p.node.problem(
                    f"{p.failed}: nothing was measured, so it is not imported (a failed "
                    "benchmark is never drawn as zero); rerun it, or leave this file out"
                )
                for p in failed
            ]
        )
    fixed = [p for p in points if p.concurrency is not None]
    rated = [p for p in points if p.concurrency is None and p.load is not None]
    open_loop = [p for p in points if p.concurrency is None and p.load is None]
    if not fixed and not rated:
        raise SitegenError(
            [
                p.node.problem(f"{p.open_loop}: {OPEN_LOOP_HINT}; rerun with {rerun}")
                for p in open_loop
            ]
        )
    if open_loop:
        left = ", ".join(f"{where(p.node)} ({p.open_loop})" for p in open_loop)
        adapted.notes.append(
            f"Left out, with neither a concurrency nor a load sitegen can place "
            f"them by ({tool}): {left}"[:2000]
        )
    missing = [p for p in fixed + rated if p.mean_input_tokens is None or p.mean_input_tokens <= 0]
    if missing:
        raise SitegenError(
            [
                p.node.problem(
                    f"the file records no input tokens for this run{p.input_field}, so "
                    "its context cannot be told"
                )
                for p in missing
            ]
        )
    _one_configuration(fixed + rated)
    if rated:
        load_points(adapted, rated, tool)
    if fixed:
        _decode_cells(adapted, fixed, tool, average_repeats)


def _decode_cells(adapted: Adapted, fixed: list[Point], tool: str, average_repeats: bool) -> None:
    contexts = bucket([p.mean_input_tokens or 0.0 for p in fixed])
    cells: dict[tuple[int, int], list[Point]] = {}
    for point, context in zip(fixed, contexts, strict=True):
        assert point.concurrency is not None
        cells.setdefault((context, point.concurrency), []).append(point)
    pick = averaged if average_repeats else _representative
    records = [_cell(pick(points), context, len(points)) for (context, _), points in cells.items()]
    records.sort(key=lambda r: (r.data["context_tokens"], r.data["concurrency"]))
    adapted.add_records("decode", records)
    adapted.notes.append(
        f"Context is each run's measured mean input length ({tool}), grouped within "
        f"{CONTEXT_TOLERANCE:.0%} (docs/importing.md); each cell keeps its own mean in "
        "source_values.mean_input_tokens."
    )


def load_points(adapted: Adapted, rated: list[Point], tool: str) -> None:
    """Rate-driven points as load points: repetitions of one load at one input length (the
    context rule above) make one point, the median repetition, as for decode cells."""
    lengths = bucket([p.mean_input_tokens or 0.0 for p in rated])
    groups: dict[tuple[int, Load], list[Point]] = {}
    for point, length in zip(rated, lengths, strict=True):
        assert point.load is not None
        groups.setdefault((length, point.load), []).append(point)
    records = [
        _load_point(_representative(points), length, len(points))
        for (length, _), points in groups.items()
    ]
    records.sort(
        key=lambda r: (
            r.data["input_tokens_per_request"],
            r.data["request_rate"],
            r.data.get("max_concurrency", 0),
            r.data["arrival"],
            r.data.get("burstiness", 0),
        )
    )
    adapted.add_records("load_points", records)
    adapted.notes.append(
        "Runs driven by a request rate are load points, not decode cells "
        f"({tool}); their input length is each run's measured mean, grouped "
        f"within {CONTEXT_TOLERANCE:.0%} (docs/importing.md)."
    )


def _load_point(point: Point, input_tokens: int, repetitions: int) -> Record:
    record = point.record
    assert point.load is not None and point.mean_input_tokens is not None
    given: dict[str, Any] = {**point.load.fields(), "input_tokens_per_request": input_tokens}
    if point.mean_output_tokens:
        given["output_tokens_per_request"] = round(point.mean_output_tokens)
    record.data = {**given, **record.data}
    for name, (value, raw_key) in point.load_figures.items():
        record.set(name, value, raw_key)
    if point.statistics:
        record.set(
            "statistics",
            {name: dict(sorted(values.items())) for name, values in point.statistics.items()},
        )
    values = {"mean_input_tokens": rounded(point.mean_input_tokens), **point.source_values}
    if repetitions > 1:
        values["repetitions"] = repetitions
    record.set("source_values", dict(list(values.items())[:50]))
    return record


def _one_configuration(points: list[Point]) -> None:
    keys = sorted({key for point in points for key in point.configuration})
    differing = [
        key for key in keys if len({repr(point.configuration.get(key)) for point in points}) > 1
    ]
    if differing:
        values = "; ".join(
            f"{key}: {', '.join(sorted({repr(p.configuration.get(key)) for p in points}))}"
            for key in differing
        )
        raise points[0].node.error(
            f"these results come from different configurations ({values}); one run is one "
            "configuration, whose sweep may vary only the context (input length) and the "
            "concurrency: import each setting's files separately"
        )


def _representative(points: list[Point]) -> Point:
    """Of the repetitions of one point, the one with the median total tok/s (lower middle)."""
    if len(points) == 1:
        return points[0]
    ranked = sorted(
        points, key=lambda p: (p.record.data.get("total_tokens_per_s") or 0.0, where(p.node))
    )
    chosen = ranked[(len(ranked) - 1) // 2]
    rates = ", ".join(f"{p.record.data.get('total_tokens_per_s', 0):g}" for p in points)
    chosen.source_values["repetitions_total_tokens_per_s"] = rates[:2000]
    note = (
        f"{len(points)} repetitions of this point; this is the one with the median total tok/s "
        f"({where(chosen.node)})"
    )
    existing = chosen.record.data.get("note")
    chosen.record.set("note", (f"{existing}; {note}" if existing else note)[:2000])
    return chosen


# The figures a repeated cell gives as the mean of its repeats, each with its spread.
REPEATED_FIGURES = (
    "total_tokens_per_s",
    "per_request_tokens_per_s",
    "ttft_ms",
    "time_between_tokens_ms",
)


def averaged(points: list[Point]) -> Point:
    """Repetitions of one point as one: each figure the mean of the repeats', its spread (min,
    max, standard deviation) and the count in ``repeats``; completed requests summed. Per-request
    statistics, output tokens and measured time belong to one repeat each, so they are left out
    (each repeat's total tok/s stays in source_values)."""
    if len(points) == 1:
        return points[0]
    first = points[0]
    point = Point(
        first.node,
        Record(first.node),
        concurrency=first.concurrency,
        mean_input_tokens=sum(p.mean_input_tokens or 0.0 for p in points) / len(points),
        source_values={k: v for k, v in first.source_values.items() if k != "run_number"},
    )
    spread: dict[str, dict[str, float]] = {}
    for figure in REPEATED_FIGURES:
        values = [p.record.data[figure] for p in points if figure in p.record.data]
        if len(values) != len(points):
            continue  # a figure some repeats lack has no mean of them all
        mean = sum(values) / len(values)
        point.record.set(figure, rounded(mean))
        deviation = math.sqrt(sum((value - mean) ** 2 for value in values) / (len(values) - 1))
        spread[figure] = {
            "min": rounded(min(values)),
            "max": rounded(max(values)),
            "stddev": rounded(deviation),
        }
    completed = [p.record.data.get("completed_requests") for p in points]
    if all(isinstance(count, int) for count in completed):
        point.record.set("completed_requests", sum(c for c in completed if isinstance(c, int)))
    point.source_values["repetitions_total_tokens_per_s"] = ", ".join(
        f"{p.record.data.get('total_tokens_per_s', 0):g}" for p in points
    )[:2000]
    point.source_values["mean_input_tokens"] = point.mean_input_tokens
    if spread:
        point.record.set("repeats", {"count": len(points), "spread": spread})
    return point


def bucket(means: list[float]) -> list[int]:
    """The context of each measured mean input length (the rule is in the module docstring)."""
    order = sorted(range(len(means)), key=lambda i: means[i])
    groups: list[list[int]] = []
    for index in order:
        if groups and means[index] <= means[groups[-1][0]] * (1 + CONTEXT_TOLERANCE):
            groups[-1].append(index)
        else:
            groups.append([index])
    contexts = [0] * len(means)
    for group in groups:
        value = round(sum(means[i] for i in group) / len(group))
        for index in group:
            contexts[index] = value
    return contexts


def _unique(points: list[Point]) -> list[Point]:
    """Drop records identical to an earlier one (a sweep's summary repeats its run files)."""
    seen: list[Any] = []
    unique: list[Point] = []
    for point in points:
        if point.node.value in seen:
            continue
        seen.append(point.node.value)
        unique.append(point)
    return unique


def _cell(point: Point, context: int, repetitions: int) -> Record:
    record = point.record
    assert point.concurrency is not None and point.mean_input_tokens is not None
    record.data = {
        "context_tokens": context,
        "concurrency": point.concurrency,
        "status": "valid",
        **record.data,
    }
    if point.statistics:
        record.set(
            "statistics",
            {name: dict(sorted(values.items())) for name, values in point.statistics.items()},
        )
    values = {"mean_input_tokens": rounded(point.mean_input_tokens), **point.source_values}
    if repetitions > 1:
        values["repetitions"] = repetitions
    record.set("source_values", dict(list(values.items())[:50]))
    return record
