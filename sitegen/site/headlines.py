"""The few figures that summarise a run on the index, the group pages and /data/runs.json."""

from __future__ import annotations

from dataclasses import dataclass

from sitegen.model import Run


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


def headlines(run: Run) -> Headlines:
    measured = [c for c in run.decode if c.status.measured and c.total_tokens_per_s is not None]
    single = min((c for c in measured if c.concurrency == 1), key=lambda c: c.context_tokens, default=None)
    peak = max(measured, key=lambda c: (c.total_tokens_per_s or 0.0, -c.concurrency), default=None)
    prefill = [p for p in run.prefill if p.prompt_tokens_per_s is not None]
    first = min(prefill, key=lambda p: p.context_tokens, default=None)
    contexts = [c.context_tokens for c in measured] + [p.context_tokens for p in prefill]
    return Headlines(
        decode_single=single.total_tokens_per_s if single else None,
        decode_single_context=single.context_tokens if single else None,
        decode_peak=peak.total_tokens_per_s if peak else None,
        decode_peak_concurrency=peak.concurrency if peak else None,
        prefill_first=first.prompt_tokens_per_s if first else None,
        prefill_first_context=first.context_tokens if first else None,
        largest_context=max(contexts, default=None),
    )
