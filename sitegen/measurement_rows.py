"""The published run JSON's measurements as rows (run JSON format 3, docs/result-format.md).

A result file writes each measurement as a record of named fields; a run has dozens of them
with the same names, each cell's statistics nested in it. The run JSON writes each phase once
as its field names and then one array a measurement, in that order (``null`` where the
measurement has no such field: the schema admits no null figure, so it can only mean absent;
format 3 leaves out a row's absent values at its end, most of a cell that was not run).
A statistic is a column of its own, ``statistics/<figure>/<name>``; a column equal, row for
row and as published, to its figure's column (the mean of a run whose headline figures are
means) is written once and named in ``same``. A figure is published at ``published_figure``'s
precision (six decimal places, never fewer than seven significant digits: every figure of a
file written to six decimals, as llm-inference-bench writes them, is as the file wrote it);
a reader restores every record at that precision (``records``).
"""

from __future__ import annotations

import json
import math
from typing import Any

# A figure is published to this many decimal places, and to more where that would leave fewer
# than SIGNIFICANT_DIGITS significant digits (docs/result-format.md, "Precision").
DECIMALS = 6
SIGNIFICANT_DIGITS = 7

RUN_JSON_VERSION_KEY = "run_json_version"  # the run JSON's member naming its format
RUN_JSON_VERSION = 3  # 1: the result document's records as they are (no such member)
# 2: as 3, but each row as long as its fields (its absent values at the end written as null)
READ_VERSIONS = (1, 2, 3)

# Fields written first in a phase's rows, the ones a reader finds a measurement by; every
# other field follows in name order, so two runs' rows read alike.
_LEADING = (
    "context_tokens",
    "concurrency",
    "output_tokens_per_request",
    "prompt_chunk_tokens",
    "status",
)
_STATISTICS = "statistics"
_SEPARATOR = "/"  # in no field, figure or statistic name (a statistic may hold a dot: p99.9)

_text = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode


def published_figure(value: Any) -> Any:
    """``value`` as the site publishes it: a float rounded to DECIMALS places, or to
    SIGNIFICANT_DIGITS significant digits where that keeps more; anything else as it is. A
    float written with at most DECIMALS decimals is returned unchanged (the same float)."""
    if type(value) is not float:
        return value
    if abs(value) >= 1.0:  # (infinity too): DECIMALS places keep SIGNIFICANT_DIGITS or more
        return round(value, DECIMALS)
    if value == 0 or math.isnan(value):
        return value
    magnitude = math.floor(math.log10(abs(value)))
    return round(value, max(DECIMALS, SIGNIFICANT_DIGITS - 1 - magnitude))


def published_measurements(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with every figure of its measurements at the published precision."""
    measurements = document.get("measurements")
    if not isinstance(measurements, dict):
        return document
    return {
        **document,
        "measurements": {
            phase: [_nested(_flat(record)) for record in records]
            if isinstance(records, list)
            else records
            for phase, records in measurements.items()
        },
    }


def _flat(record: dict[str, Any]) -> dict[str, Any]:
    """A record's fields, each figure at the published precision, with its statistics as
    columns of their own."""
    flat = {key: published_figure(value) for key, value in record.items() if key != _STATISTICS}
    for figure, values in (record.get(_STATISTICS) or {}).items():
        for name, value in values.items():
            flat[_SEPARATOR.join((_STATISTICS, figure, name))] = published_figure(value)
    return flat


def _field_order(name: str) -> tuple[int, str, str]:
    leading = _LEADING.index(name) if name in _LEADING else len(_LEADING)
    return (leading, "1" if name.startswith(_STATISTICS + _SEPARATOR) else "0", name)


def phase_rows(records: list[dict[str, Any]]) -> dict[str, Any]:
    """One phase's records as ``{"fields", "same", "rows"}`` (``same`` only when not empty)."""
    flats = [_flat(record) for record in records]
    fields = sorted({name for flat in flats for name in flat}, key=_field_order)
    same: dict[str, str] = {}
    for name in fields:
        parts = name.split(_SEPARATOR)
        figure = parts[1] if len(parts) == 3 else None
        if figure is not None and figure in fields and _equal(flats, name, figure):
            same[name] = figure
    kept = [name for name in fields if name not in same]
    rows = [without_trailing_nulls([flat.get(name) for name in kept]) for flat in flats]
    return {"fields": kept, **({"same": same} if same else {}), "rows": rows}


def without_trailing_nulls(row: list[Any]) -> list[Any]:
    """``row`` without its absent values at the end: a row of the run JSON (a cell not run has
    its key fields only), and the data files' records that are written the same way."""
    end = len(row)
    while end and row[end - 1] is None:
        end -= 1
    return row[:end]


def _equal(flats: list[dict[str, Any]], name: str, figure: str) -> bool:
    """Whether two columns hold, row for row, what JSON writes alike: the same type and value
    (a float's text is its value's; 4 and 4.0 differ), absences included."""
    return all(
        type(flat.get(name)) is type(flat.get(figure)) and flat.get(name) == flat.get(figure)
        for flat in flats
    )


def records(phase: dict[str, Any]) -> list[dict[str, Any]]:
    """A phase's rows back as the result file's records (the inverse of ``phase_rows``).
    Raises ValueError where the rows are not of this format."""
    fields, rows, same = phase.get("fields"), phase.get("rows"), phase.get("same") or {}
    if not isinstance(fields, list) or not isinstance(rows, list) or not isinstance(same, dict):
        raise ValueError("a phase is {fields, rows} (and same)")
    restored = []
    for row in rows:
        if not isinstance(row, list) or len(row) > len(fields):
            raise ValueError(
                f"a row of at most {len(fields)} values expected, got {_text(row)[:80]}"
            )
        # A row may end early (format 3): the fields it leaves out are absent.
        flat = {name: value for name, value in zip(fields, row, strict=False) if value is not None}
        for name, figure in same.items():
            if figure in flat:
                flat[name] = flat[figure]
        restored.append(_nested(flat))
    return restored


def _nested(flat: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = {}
    for name, value in flat.items():
        parts = name.split(_SEPARATOR)
        if len(parts) == 3 and parts[0] == _STATISTICS:
            record.setdefault(_STATISTICS, {}).setdefault(parts[1], {})[parts[2]] = value
        else:
            record[name] = value
    if _STATISTICS in record:  # statistics after the figures, as a result file writes them
        record[_STATISTICS] = record.pop(_STATISTICS)
    return record


def measurements_rows(measurements: dict[str, Any]) -> dict[str, Any]:
    """Every phase of a result's ``measurements`` as rows."""
    return {phase: phase_rows(items) for phase, items in measurements.items()}


def result_document(published: dict[str, Any]) -> dict[str, Any]:
    """A published run JSON as the result document it was made from, with its receipt: formats
    3 and 2 read back to records, format 1 (no version member) as it is. Raises ValueError on a
    format this sitegen does not know."""
    version = published.get(RUN_JSON_VERSION_KEY, 1)
    if version == 1:
        return published
    if type(version) is not int or version not in READ_VERSIONS:
        raise ValueError(
            f"run JSON format {_text(version)}, this sitegen reads 1 to {RUN_JSON_VERSION}: "
            "upgrade sitegen"
        )
    document = {key: value for key, value in published.items() if key != RUN_JSON_VERSION_KEY}
    measurements = document.get("measurements")
    if isinstance(measurements, dict):
        document["measurements"] = {
            phase: records(rows) if isinstance(rows, dict) else rows
            for phase, rows in measurements.items()
        }
    return document
