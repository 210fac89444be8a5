"""Machine-readable downloads: each run as its canonical JSON and its measurements as CSV."""

from __future__ import annotations

import csv
import io
import json

from sitegen.model import Run, Statistics

CSV_COLUMNS = (
    "phase", "context_tokens", "concurrency", "status", "total_tokens_per_s", "per_request_tokens_per_s",
    "ttft_ms", "time_between_tokens_ms", "average_active_requests", "completed_requests", "output_tokens",
    "measured_s", "prompt_tokens", "output_tokens_per_request",
)

# Schema 1.1 ``statistics`` in fixed columns (``ttft_ms_p99`` …) so a spreadsheet's columns never shift
# between runs; empty where the file has no such statistic. Rarer ones (min, max, p99.9) stay in the JSON.
STATISTIC_FIGURES = ("ttft_ms", "time_between_tokens_ms", "per_request_tokens_per_s")
STATISTIC_NAMES = ("mean", "p50", "p90", "p99")
STATISTIC_COLUMNS = tuple(f"{figure}_{name}" for figure in STATISTIC_FIGURES for name in STATISTIC_NAMES)


# One encoder (dumps() makes one per call); no spaces after separators: a run has 73
# measurements, each on a line of its own, so spaces would be a tenth of the file.
_ENCODE = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode


def _lines(value: object, depth: int = 0) -> str:
    """JSON with sections and fields one per line and each measurement on a line of its own,
    without indentation: a reader or a diff still sees one field or measurement a line, and
    the file is the canonical form's size plus its line breaks (indenting added 4 %). Made by
    json's C encoder, which ``indent`` would turn off (a thousand runs took seconds)."""
    if depth < 3 and isinstance(value, dict) and value:
        return "{\n" + ",\n".join(f"{_ENCODE(key)}:{_lines(value[key], depth + 1)}" for key in sorted(value)) + "\n}"
    if depth < 3 and isinstance(value, list) and value:
        return "[\n" + ",\n".join(_lines(item, depth + 1) for item in value) + "\n]"
    return _ENCODE(value)


def run_json(run: Run) -> bytes:
    return (_lines(run.raw) + "\n").encode()


def _safe_cell(value: object) -> object:
    # Spreadsheet programs run cells that start with these as formulas.
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def _statistic_cells(statistics: Statistics) -> list[float | None]:
    return [statistics.get(figure, {}).get(name) for figure in STATISTIC_FIGURES for name in STATISTIC_NAMES]


def run_csv(run: Run) -> bytes:
    """Every measurement of a run in raw units, one row each; empty where not measured.

    A column empty in every row of the run is left out (most runs have no statistics, none
    a per-cell output length): the others keep their order and names, so a reader finds a
    column by its header, never by its position (docs/result-format.md)."""
    rows: list[list[object]] = [
        ["prefill", p.context_tokens, 1, "valid", p.prompt_tokens_per_s, None, p.ttft_ms, None, None,
         p.samples, None, None, p.prompt_tokens, None, *_statistic_cells(p.statistics)]
        for p in run.prefill
    ]
    rows += [
        ["decode", c.context_tokens, c.concurrency, c.status.value, c.total_tokens_per_s,
         c.per_request_tokens_per_s, c.ttft_ms, c.time_between_tokens_ms, c.average_active_requests,
         c.completed_requests, c.output_tokens, c.measured_s, None, c.output_tokens_per_request,
         *_statistic_cells(c.statistics)]
        for c in run.decode
    ]
    header = CSV_COLUMNS + STATISTIC_COLUMNS
    kept = [i for i in range(len(header)) if any(row[i] is not None and row[i] != "" for row in rows)]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([header[i] for i in kept] if rows else header)
    writer.writerows([_safe_cell(row[i]) for i in kept] for row in rows)
    return out.getvalue().encode()
