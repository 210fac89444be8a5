"""Plausibility warnings: figures of a valid result file that contradict each other, or what
the file itself says about how they were measured.

A warning never fails a check: the figures may be right (a server that batches oddly, a
tool that counts differently). It names the figure by file, line and JSON pointer, and the
check's id, so a contributor can either fix the figure or acknowledge the warning in the
file (``run.acknowledged_warnings``, with a reason the run page shows as a caveat).

Every rule reads only the document's data, so collect, ``sitegen check`` and the pull-request
annotations give the same warnings. The thresholds are documented in docs/result-format.md
("Plausibility warnings"); they are loose on purpose, to flag order-of-magnitude mistakes
(a unit slip, a misread column, a queue the tool did not see), not measurement noise.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from sitegen.errors import Problem
from sitegen.parse import Document, pointer_join
from sitegen.wording import FIGURE_NAMES, place

# per-request tok/s × requests running at once should be total tok/s; the tool's own files
# differ by −14 % to +19 % (requests start and end inside the window), so warn outside ½–2×.
THROUGHPUT_RATIO = (0.5, 2.0)
# A valid cell whose server ran fewer than half the requests sent at once, yet saw no queue.
ACTIVE_SHARE = 0.5
# per-request tok/s × time between tokens (s) is 1 for one request; a mean of ratios and a
# ratio of means differ a little, a slipped unit by 1000×.
TBT_PRODUCT = (0.5, 2.0)
# A figure 10× above or below every one of at least two measured neighbours in the matrix.
JUMP_FACTOR = 10.0
# How far a headline figure may be from the statistic the run says it is (rounding).
HEADLINE_TOLERANCE = 0.01

# A cell's own figures that should agree (total tok/s × measured time and its output tokens): a
# slipped unit is 1000× off, rounding and a window that cuts requests are not 2× off.
UNIT_RATIO = (0.5, 2.0)
# How close to 1000× (or 1/1000×) a contradiction must be to name the unit mistake.
UNIT_SLIP = (300.0, 3000.0)
# No first token comes in under a tenth of one decode step: a smaller TTFT is in other units.
TTFT_TBT_FLOOR = 0.1

CHECKS = (
    "per-request-vs-total",
    "active-below-requested",
    "tbt-vs-per-request",
    "jump-from-neighbours",
    "statistics-order",
    "unit-mismatch",
)
_MEASURED = ("valid", "requests_queued")


@dataclass(frozen=True)
class Finding:
    """One plausibility warning: which check, which figure, and what contradicts it."""

    check: str
    pointer: str
    message: str


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def findings(data: Any) -> list[Finding]:
    """Every plausibility finding of a valid result document, acknowledged or not."""
    measurements = data.get("measurements") if isinstance(data, dict) else None
    decode = measurements.get("decode") if isinstance(measurements, dict) else None
    prefill = measurements.get("prefill") if isinstance(measurements, dict) else None
    run = data.get("run", {}) if isinstance(data, dict) else {}
    statistic = run.get("latency_statistic") if isinstance(run, dict) else None
    found: list[Finding] = []
    cells = decode if isinstance(decode, list) else []
    for index, cell in enumerate(cells):
        if isinstance(cell, dict) and cell.get("status") in _MEASURED:
            found.extend(_cell_findings(f"/measurements/decode/{index}", cell))
            found.extend(_unit_findings(f"/measurements/decode/{index}", cell))
        if isinstance(cell, dict):
            found.extend(_statistics_findings(f"/measurements/decode/{index}", cell, statistic))
    for index, point in enumerate(prefill if isinstance(prefill, list) else []):
        if isinstance(point, dict):
            found.extend(_statistics_findings(f"/measurements/prefill/{index}", point, None))
    found.extend(_jumps(cells))
    return found


def _cell_findings(pointer: str, cell: dict[str, Any]) -> Iterator[Finding]:
    concurrency = _number(cell.get("concurrency")) or 1.0
    total = _number(cell.get("total_tokens_per_s"))
    per_request = _number(cell.get("per_request_tokens_per_s"))
    active = _number(cell.get("average_active_requests"))
    tbt = _number(cell.get("time_between_tokens_ms"))
    running = active if active else concurrency
    if total and per_request:
        expected = per_request * running
        ratio = total / expected
        if not THROUGHPUT_RATIO[0] <= ratio <= THROUGHPUT_RATIO[1]:
            what = "average active requests" if active else "requests sent at once"
            yield Finding(
                "per-request-vs-total",
                f"{pointer}/total_tokens_per_s",
                f"total tok/s {total:,.1f} is {ratio:.2f}× per-request tok/s {per_request:,.1f} × "
                f"{running:g} {what} ({expected:,.1f}); expected within "
                f"{THROUGHPUT_RATIO[0]:g}–{THROUGHPUT_RATIO[1]:g}×",
            )
    if (
        active is not None
        and concurrency > 1
        and cell.get("status") == "valid"
        and active < ACTIVE_SHARE * concurrency
    ):
        yield Finding(
            "active-below-requested",
            f"{pointer}/average_active_requests",
            f"on average {active:g} of the {concurrency:g} requests sent at once were running, yet "
            f"the cell "
            "is valid, not requests_queued: a queue the tool did not see, or a server limit on "
            "requests",
        )
    if per_request and tbt:
        product = per_request * tbt / 1000.0
        if not TBT_PRODUCT[0] <= product <= TBT_PRODUCT[1]:
            yield Finding(
                "tbt-vs-per-request",
                f"{pointer}/time_between_tokens_ms",
                f"time between tokens {tbt:,.1f} ms means {1000.0 / tbt:,.1f} tok/s for one "
                f"request, but "
                f"per-request tok/s is {per_request:,.1f} ({product:.2f}×); check the units",
            )


def _slip(ratio: float) -> str:
    """The unit mistake a ratio of about 1000 (or 1/1000) points to, or "" when it is not one."""
    if UNIT_SLIP[0] <= ratio <= UNIT_SLIP[1]:
        return "1000× too large"
    if UNIT_SLIP[0] <= 1 / ratio <= UNIT_SLIP[1]:
        return "1000× too small"
    return ""


def _unit_findings(pointer: str, cell: dict[str, Any]) -> Iterator[Finding]:
    """A cell's TTFT, time between tokens, measured time, output tokens and tok/s checked against
    each other, with or without statistics: a figure in seconds where milliseconds are meant (or
    the reverse) contradicts the others by about 1000×."""
    total, measured = _number(cell.get("total_tokens_per_s")), _number(cell.get("measured_s"))
    output, ttft = _number(cell.get("output_tokens")), _number(cell.get("ttft_ms"))
    per_request = _number(cell.get("per_request_tokens_per_s"))
    tbt = _number(cell.get("time_between_tokens_ms")) or (
        1000.0 / per_request if per_request else None
    )
    if total and measured and output:
        ratio = total * measured / output
        if not UNIT_RATIO[0] <= ratio <= UNIT_RATIO[1]:
            slip = _slip(ratio)
            unit = (
                f"; measured_s {measured:g} looks like milliseconds ({measured / 1000:g} s)"
                if slip == "1000× too large"
                else "; one of them is 1000× off: a unit slip (tok/s per millisecond, or "
                "output tokens in thousands?)"
                if slip
                else ""
            )
            yield Finding(
                "unit-mismatch",
                f"{pointer}/measured_s",
                f"total tok/s {total:,.1f} × measured_s {measured:g} gives {total * measured:,.0f} "
                f"output "
                f"tokens, but the cell says {output:,.0f} ({ratio:.3g}×){unit}",
            )
    if ttft and tbt and ttft < TTFT_TBT_FLOOR * tbt:
        yield Finding(
            "unit-mismatch",
            f"{pointer}/ttft_ms",
            f"ttft_ms {ttft:g} is under a tenth of the time between tokens ({tbt:.3g} ms), but the "
            f"first "
            f"token cannot come faster than a decode step: it looks like seconds ({ttft * 1000:g} "
            f"ms)",
        )
    if ttft and measured and ttft > 1000.0 * measured:
        yield Finding(
            "unit-mismatch",
            f"{pointer}/ttft_ms",
            f"ttft_ms {ttft:g} is longer than the whole measured time ({measured:g} s): it looks "
            f"like "
            f"microseconds ({ttft / 1000:g} ms), or measured_s is in other units",
        )


def _statistics_findings(
    pointer: str, item: dict[str, Any], headline_statistic: Any
) -> Iterator[Finding]:
    statistics = item.get("statistics")
    if not isinstance(statistics, dict):
        return
    for figure, values in statistics.items():
        if not isinstance(values, dict):
            continue
        here = f"{pointer}/statistics/{figure}"
        percentiles = sorted(
            (float(name[1:]), name, value)
            for name, value in values.items()
            if name.startswith("p") and _number(value) is not None
        )
        for (_, low_name, low), (_, high_name, high) in pairwise(percentiles):
            if low > high:
                yield Finding(
                    "statistics-order",
                    here,
                    f"{low_name} {low:g} is above {high_name} {high:g}; "
                    "percentiles grow with their rank",
                )
        low_bound, high_bound, mean = (_number(values.get(name)) for name in ("min", "max", "mean"))
        if mean is not None and (
            (low_bound is not None and mean < low_bound)
            or (high_bound is not None and mean > high_bound)
        ):
            low_text = "…" if low_bound is None else f"{low_bound}"
            high_text = "…" if high_bound is None else f"{high_bound}"
            yield Finding(
                "statistics-order",
                here,
                f"the mean {mean:g} is outside min–max {low_text}–{high_text}",
            )
        headline = _number(item.get(figure))
        name = (
            {"mean": "mean", "median": "p50"}.get(headline_statistic)
            if isinstance(headline_statistic, str)
            else None
        )
        declared = _number(values.get(name)) if name else None
        if (
            headline is not None
            and declared is not None
            and abs(headline - declared) > HEADLINE_TOLERANCE * max(abs(declared), 1e-9)
        ):
            yield Finding(
                "statistics-order",
                f"{pointer}/{figure}",
                f"the run says its figures are {headline_statistic}s, but {figure} {headline:g} is "
                f"not the "
                f"{name} {declared:g} of its statistics",
            )


def _jumps(cells: list[Any]) -> Iterator[Finding]:
    """Throughputs 10× off every measured neighbour (adjacent context or concurrency level)."""
    measured = [
        (index, cell)
        for index, cell in enumerate(cells)
        if isinstance(cell, dict)
        and cell.get("status") in _MEASURED
        and cell.get("output_tokens_per_request") is None
        and isinstance(cell.get("context_tokens"), int)
        and isinstance(cell.get("concurrency"), int)
    ]
    contexts = sorted({cell["context_tokens"] for _, cell in measured})
    levels = sorted({cell["concurrency"] for _, cell in measured})
    at = {(cell["context_tokens"], cell["concurrency"]): (index, cell) for index, cell in measured}
    for figure in ("total_tokens_per_s", "per_request_tokens_per_s"):
        for (context, level), (index, cell) in sorted(at.items()):
            value = _number(cell.get(figure))
            if not value:
                continue
            ci, li = contexts.index(context), levels.index(level)
            around = [(contexts[c], levels[li]) for c in (ci - 1, ci + 1) if 0 <= c < len(contexts)]
            around += [
                (contexts[ci], levels[level_index])
                for level_index in (li - 1, li + 1)
                if 0 <= level_index < len(levels)
            ]
            values = [
                v
                for position in around
                if position in at and (v := _number(at[position][1].get(figure)))
            ]
            if len(values) < 2:
                continue
            if all(value >= JUMP_FACTOR * v for v in values) or all(
                value * JUMP_FACTOR <= v for v in values
            ):
                direction = "above" if value > values[0] else "below"
                yield Finding(
                    "jump-from-neighbours",
                    f"/measurements/decode/{index}/{figure}",
                    f"{FIGURE_NAMES[figure]} {value:,.1f} is {JUMP_FACTOR:g}× or more {direction} "
                    f"every "
                    f"neighbouring cell ({', '.join(f'{v:,.1f}' for v in values)}); a unit or "
                    f"column slip?",
                )


def acknowledged(data: Any) -> dict[tuple[str, str], str]:
    """(check, pointer) → reason, for every warning the file acknowledges."""
    run = data.get("run") if isinstance(data, dict) else None
    items = run.get("acknowledged_warnings") if isinstance(run, dict) else None
    return {
        (item["check"], item["pointer"]): item["reason"]
        for item in items or ()
        if isinstance(item, dict) and {"check", "pointer", "reason"} <= set(item)
    }


def plausibility_warnings(document: Document) -> list[Problem]:
    """The findings the file does not acknowledge, as located warnings, plus acknowledgements
    that match no finding (a stale one would hide nothing, but mislead the page's reader)."""
    found = findings(document.data)
    known = acknowledged(document.data)
    warnings = [
        Problem(
            document.source,
            document.line_of(f.pointer),
            f.pointer,
            f"warning: {place(document.data, f.pointer)}: {f.message} [{f.check}]; if the "
            f"figure is right, "
            "acknowledge it in run.acknowledged_warnings with a reason",
        )
        for f in found
        if (f.check, f.pointer) not in known
    ]
    given = {(f.check, f.pointer) for f in found}
    items = (
        document.data.get("run", {}).get("acknowledged_warnings", [])
        if isinstance(document.data, dict)
        else []
    )
    for index, item in enumerate(items if isinstance(items, list) else []):
        if isinstance(item, dict) and (item.get("check"), item.get("pointer")) not in given:
            pointer = pointer_join("/run/acknowledged_warnings", index)
            warnings.append(
                Problem(
                    document.source,
                    document.line_of(pointer),
                    pointer,
                    f"warning: acknowledges a {item.get('check')} warning at {item.get('pointer')} "
                    f"that sitegen "
                    "does not give; remove it, or correct its check or pointer",
                )
            )
    return sorted(warnings, key=lambda p: (p.line or 0, p.pointer, p.message))
