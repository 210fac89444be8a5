"""The few figures that summarise a run on the index, the group pages and /data/runs.json.

Columns that a reader sorts must compare like with like: the one-request and prefill figures
are taken at one reference context for every run (matched by capacity.match_context, so a
run's 8,000 stands for 8K), never at whatever context a run happened to start at. The peak
is by nature each run's own best cell, and says where it was measured.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sitegen.model import Run, Status
from sitegen.site.figures.capacity import match_context

REFERENCE_CONTEXT = 8192  # 8K: measured by most runs, and a common chat-sized prompt
# A prompt of fewer tokens is not a prefill figure (llama-bench's pp1 is one token's latency);
# of the larger ones, the headline takes the prompt size nearest llama-bench's default, 512.
MIN_PREFILL_PROMPT = 256
REFERENCE_PROMPT = 512


@dataclass(frozen=True)
class Headlines:
    """Raw headline figures of one run (tok/s, tokens); None where the run has no such figure."""

    decode_single: float | None  # total tok/s, one request, at the reference context
    decode_single_context: int | None  # the run's own context standing for the reference
    decode_peak: float | None  # the highest total decode throughput of any measured cell
    decode_peak_concurrency: int | None
    decode_peak_context: int | None
    prefill_first: float | None  # prompt tok/s at the reference context
    prefill_first_context: int | None
    largest_context: int | None  # the longest context with a measurement
    # The prompt size of prefill_first where the run measured several (llama-bench's -p list)
    prefill_first_prompt: int | None
    accelerators: int  # what per-accelerator figures divide by (last: the figure cache checks it)


_MEASURED = {status.value for status in Status if status.measured}


def headlines(run: Run) -> Headlines:
    """The run's headline figures. Callers that need them more than once keep them
    (HeadlineBook), so nothing here outlives a build."""
    # From the raw cells, not run.decode: the index needs these few figures of every run, and
    # making every run's cell objects would cost most of an incremental build.
    measurements = run.raw["measurements"]
    measured = [
        c
        for c in measurements["decode"]
        if c.get("status") in _MEASURED and c.get("total_tokens_per_s") is not None
    ]
    singles = [c for c in measured if c["concurrency"] == 1]
    single_context = match_context({c["context_tokens"] for c in singles}, REFERENCE_CONTEXT)
    single = min(
        (c for c in singles if c["context_tokens"] == single_context),
        key=_context_order,
        default=None,
    )
    # Ties go to the fewest requests, then the shortest context, as in the run's cell order.
    peak = max(
        measured,
        key=lambda c: (
            c["total_tokens_per_s"],
            -c["concurrency"],
            -c["context_tokens"],
            -(c.get("output_tokens_per_request") or 0),
        ),
        default=None,
    )
    prefill = [p for p in measurements["prefill"] if p.get("prompt_tokens_per_s") is not None]
    prefill_context = match_context({p["context_tokens"] for p in prefill}, REFERENCE_CONTEXT)
    first = _headline_prefill([p for p in prefill if p["context_tokens"] == prefill_context])
    contexts = [c["context_tokens"] for c in measured] + [p["context_tokens"] for p in prefill]
    return Headlines(
        decode_single=single["total_tokens_per_s"] if single else None,
        decode_single_context=single["context_tokens"] if single else None,
        decode_peak=peak["total_tokens_per_s"] if peak else None,
        decode_peak_concurrency=peak["concurrency"] if peak else None,
        decode_peak_context=peak["context_tokens"] if peak else None,
        prefill_first=first["prompt_tokens_per_s"] if first else None,
        prefill_first_context=first["context_tokens"] if first else None,
        largest_context=max(contexts, default=None),
        accelerators=run.hardware.count,
        prefill_first_prompt=first.get("prompt_chunk_tokens")
        if first and _prompt_sizes(prefill) > 1
        else None,
    )


def _prompt_sizes(points: list[dict[str, Any]]) -> int:
    return len({p.get("prompt_chunk_tokens") for p in points if p.get("prompt_chunk_tokens")})


def _headline_prefill(points: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Of the prefill points at one context, the headline's: a point without a prompt size (one
    per context), else the prompt size nearest REFERENCE_PROMPT (the larger on a tie), never one
    under MIN_PREFILL_PROMPT tokens."""
    sized = [p for p in points if p.get("prompt_chunk_tokens")]
    if len(sized) < len(points) or not sized:
        return min(points, key=_context_order, default=None)
    large = [p for p in sized if p["prompt_chunk_tokens"] >= MIN_PREFILL_PROMPT]
    return min(
        large,
        key=lambda p: (abs(p["prompt_chunk_tokens"] - REFERENCE_PROMPT), -p["prompt_chunk_tokens"]),
        default=None,
    )


class HeadlineBook:
    """Each run's headlines, worked out once for one build and shared by the index, the group
    pages and runs.json. It lives as long as the build that made it: no module-level memo."""

    def __init__(self) -> None:
        self._by_run: dict[str, Headlines] = {}
        # An earlier build's headlines by run digest (figure_cache), when the build has them.
        self.stored: Callable[[str], Headlines | None] | None = None

    def __call__(self, run: Run) -> Headlines:
        found = self._by_run.get(run.id)
        if found is None:
            if self.stored is not None and run.digest:
                found = self.stored(run.digest)
            if found is None:
                found = headlines(run)
            self._by_run[run.id] = found
        return found

    def known(self, run: Run) -> Headlines | None:
        """The run's headlines if this build has them."""
        return self._by_run.get(run.id)


def _context_order(item: dict[str, Any]) -> tuple[int, int]:
    # As run.decode and run.prefill are sorted: by context, then output length or chunk size.
    return item["context_tokens"], item.get("output_tokens_per_request") or item.get(
        "prompt_chunk_tokens"
    ) or 0
