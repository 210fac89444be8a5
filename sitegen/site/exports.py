"""Machine-readable downloads: each run as its canonical JSON and its measurements as CSV."""

from __future__ import annotations

import csv
import io
import json

from sitegen.model import Run

CSV_COLUMNS = (
    "phase", "context_tokens", "concurrency", "status", "total_tokens_per_s", "per_request_tokens_per_s",
    "ttft_ms", "time_between_tokens_ms", "average_active_requests", "completed_requests", "output_tokens",
    "measured_s", "prompt_tokens", "output_tokens_per_request",
)


def run_json(run: Run) -> bytes:
    return (json.dumps(run.raw, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def _safe_cell(value: object) -> object:
    # Spreadsheet programs run cells that start with these as formulas.
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def run_csv(run: Run) -> bytes:
    """Every measurement of a run in raw units, one row each; empty where not measured."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for p in run.prefill:
        writer.writerow([_safe_cell(v) for v in (
            "prefill", p.context_tokens, 1, "valid", p.prompt_tokens_per_s, None, p.ttft_ms, None, None,
            p.samples, None, None, p.prompt_tokens, None,
        )])
    for c in run.decode:
        writer.writerow([_safe_cell(v) for v in (
            "decode", c.context_tokens, c.concurrency, c.status.value, c.total_tokens_per_s,
            c.per_request_tokens_per_s, c.ttft_ms, c.time_between_tokens_ms, c.average_active_requests,
            c.completed_requests, c.output_tokens, c.measured_s, None, c.output_tokens_per_request,
        )])
    return out.getvalue().encode()
