"""The few figures that summarise a run on the index, the group pages and /data/runs.json."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sitegen.model import Run, Status


@dataclass(frozen=True)
class Headlines:
    """Raw headline figures of one run (tok/s, tokens); None where the run has no such figure."""

    decode_single: float | None  # one request at the smallest context measured with one request
    decode_single_context: int | None
    decode_peak: float | None  # the highest total decode throughput of any measured cell
    decode_peak_concurrency: int | None
    prefill_first: float | None  # prompt tok/s at the smallest prefill context
    prefill_first_context: int | None
    largest_context: int | None  # the longest context with a measurement


_MEASURED = {status.value for status in Status if status.measured}


_computed: dict[tuple[str, str], Headlines] = {}  # by run id and content digest


def headlines(run: Run) -> Headlines:
    """The run's headline figures; the index, the group pages and runs.json each ask for them."""
    if not run.digest:
        return _headlines(run)
    key = (run.id, run.digest)
    if key not in _computed:
        _computed[key] = _headlines(run)
    return _computed[key]


def _headlines(run: Run) -> Headlines:
    # From the raw cells, not run.decode: the index needs these few figures of every run, and
    # making every run's cell objects would cost most of an incremental build.
    measurements = run.raw["measurements"]
    measured = [c for c in measurements["decode"]
                if c.get("status") in _MEASURED and c.get("total_tokens_per_s") is not None]
    single = min((c for c in measured if c["concurrency"] == 1), key=_context_order, default=None)
    # Ties go to the fewest requests, then the shortest context, as in the run's cell order.
    peak = max(measured, key=lambda c: (c["total_tokens_per_s"], -c["concurrency"], -c["context_tokens"],
                                        -(c.get("output_tokens_per_request") or 0)), default=None)
    prefill = [p for p in measurements["prefill"] if p.get("prompt_tokens_per_s") is not None]
    first = min(prefill, key=_context_order, default=None)
    contexts = [c["context_tokens"] for c in measured] + [p["context_tokens"] for p in prefill]
    return Headlines(
        decode_single=single["total_tokens_per_s"] if single else None,
        decode_single_context=single["context_tokens"] if single else None,
        decode_peak=peak["total_tokens_per_s"] if peak else None,
        decode_peak_concurrency=peak["concurrency"] if peak else None,
        prefill_first=first["prompt_tokens_per_s"] if first else None,
        prefill_first_context=first["context_tokens"] if first else None,
        largest_context=max(contexts, default=None),
    )


def _context_order(item: dict[str, Any]) -> tuple[int, int]:
    # As run.decode and run.prefill are sorted: by context, then output length or chunk size.
    return item["context_tokens"], item.get("output_tokens_per_request") or item.get("prompt_chunk_tokens") or 0
