"""Machine-readable downloads: each run as its canonical JSON. Its measurements as CSV are made
from that JSON by the reader's browser (templates/static/site.js; docs/result-format.md)."""

from __future__ import annotations

import json

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


def run_json(run: Run) -> bytes:
    """The run as validated, with its receipt (sitegen/receipts.py) in ``receipt``: what a reader
    or ``sitegen verify --site`` checks it against."""
    document = run.raw
    return (_lines({**document, RECEIPT_KEY: receipt_of(document).as_json()}) + "\n").encode()
