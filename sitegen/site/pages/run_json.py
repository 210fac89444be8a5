"""Machine-readable downloads: each run as its canonical JSON, its measurements as rows
(sitegen/measurement_rows.py). Its measurements as CSV are made from that JSON by the reader's
browser (templates/static/site.js; docs/result-format.md)."""

from __future__ import annotations

import json

from sitegen.measurement_rows import RUN_JSON_VERSION, RUN_JSON_VERSION_KEY, measurements_rows
from sitegen.model import Run
from sitegen.receipts import RECEIPT_KEY, receipt_of

# One encoder (dumps() makes one per call); no spaces after separators: a run has many
# measurements, each on a line of its own, so spaces would be a good part of the file.
_ENCODE = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode


def _lines(value: object, depth: int = 0) -> str:
    """JSON with sections and fields one per line and each measurement on a line of its own,
    without indentation: a reader or a diff still sees one field or measurement a line, and
    the file is the canonical form's size plus its line breaks. Made by json's C encoder,
    which ``indent`` would turn off."""
    if depth < 3 and isinstance(value, dict) and value:
        return (
            "{\n"
            + ",\n".join(f"{_ENCODE(key)}:{_lines(value[key], depth + 1)}" for key in sorted(value))
            + "\n}"
        )
    if depth < 3 and isinstance(value, list) and value:
        return "[\n" + ",\n".join(_lines(item, depth + 1) for item in value) + "\n]"
    return _ENCODE(value)


def _measurements(measurements: dict[str, object]) -> str:
    """Each phase's field names on a line, then a row (a measurement) a line."""
    phases = []
    for phase, rows in sorted(measurements_rows(measurements).items()):
        head = _ENCODE({key: value for key, value in rows.items() if key != "rows"})[:-1]
        lines = ",\n".join(_ENCODE(row) for row in rows["rows"])
        phases.append(
            f'{_ENCODE(phase)}:{head},"rows":[' + (f"\n{lines}\n" if lines else "") + "]}"
        )
    return "{\n" + ",\n".join(phases) + "\n}"


def run_json(run: Run) -> bytes:
    """The run as validated, its measurements as rows, with its receipt (sitegen/receipts.py) in
    ``receipt`` and the file's format in ``run_json_version``: what a reader or ``sitegen verify
    --site`` checks it against."""
    document = run.raw
    published = {
        **document,
        RECEIPT_KEY: receipt_of(document).as_json(),
        RUN_JSON_VERSION_KEY: RUN_JSON_VERSION,
    }
    sections = (
        _ENCODE(key) + ":" + (_measurements(value) if key == "measurements" else _lines(value, 1))
        for key, value in sorted(published.items())
    )
    return ("{\n" + ",\n".join(sections) + "\n}\n").encode()
