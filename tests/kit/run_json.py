"""A published run JSON (runs/<id>.json) read as docs/result-format.md ("The run JSON") says,
written here and not taken from sitegen, so that tests compare the site with an independent
reading: each phase's rows by their field names (null, or a value left out at a row's end:
absent), "statistics/<figure>/<name>"
columns into the record's statistics, each column "same" names equal to its figure."""

from __future__ import annotations

import hashlib
import json
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any


def phase_records(phase: dict[str, Any]) -> list[dict[str, Any]]:
    read = []
    for row in phase["rows"]:
        assert len(row) <= len(phase["fields"])
        values = dict(
            zip(phase["fields"], row + [None] * (len(phase["fields"]) - len(row)), strict=True)
        )
        for name, figure in phase.get("same", {}).items():
            values[name] = values[figure]
        record: dict[str, Any] = {}
        for name, value in values.items():
            if value is None:
                continue
            if name.startswith("statistics/"):
                _, figure, statistic = name.split("/")
                record.setdefault("statistics", {}).setdefault(figure, {})[statistic] = value
            else:
                record[name] = value
        read.append(record)
    return read


def published_run(path: Path) -> dict[str, Any]:
    """The run JSON at ``path`` with its measurements as records (format 3 only)."""
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert document.pop("run_json_version") == 3
    document["measurements"] = {
        phase: phase_records(rows) for phase, rows in document["measurements"].items()
    }
    return document


def at_published_precision(value: Any) -> Any:
    """docs/result-format.md, "Precision", worked out here with decimal arithmetic on the float's
    exact value: six decimal places, or seven significant digits where that keeps more."""
    if type(value) is not float or value == 0:
        return value
    exact = Decimal(value)
    places = max(6, 6 - exact.adjusted())  # adjusted(): the leading digit's power of ten
    return float(exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN))


def published_measurements(document: dict[str, Any]) -> dict[str, Any]:
    """A result document with its measurements' figures (and their statistics) at the
    published precision, as the run JSON should hold them."""

    def figures(record: dict[str, Any]) -> dict[str, Any]:
        out = {k: at_published_precision(v) for k, v in record.items() if k != "statistics"}
        if "statistics" in record:
            out["statistics"] = {
                figure: {name: at_published_precision(v) for name, v in values.items()}
                for figure, values in record["statistics"].items()
            }
        return out

    measurements = {
        phase: [figures(record) for record in records]
        for phase, records in document["measurements"].items()
    }
    return {**document, "measurements": measurements}


def check_run_jsons(site: Path) -> int:
    """Check every run JSON of ``site`` against the YAML the contributor wrote (the repository's
    content/runs/): the result file's content, its receipt (the file's digest worked out here),
    its figures at the published precision, its measurements a row a line under their field
    names. How many runs were compared with their file."""
    from tests.kit.project import REPO, load_yaml

    compared = 0
    for path in sorted((site / "runs").glob("*.json")):
        text = path.read_text()
        published = json.loads(text)
        assert published.pop("run_json_version") == 3
        measurements = published.pop("measurements")
        lines = text.splitlines()
        # Field names once a phase, then a row a line.
        rows = [line for line in lines if line.startswith("[")]
        assert all(isinstance(json.loads(line.rstrip(",")), list) for line in rows)
        assert len(rows) == sum(len(phase["rows"]) for phase in measurements.values())
        source = REPO / "content" / "runs" / f"{path.stem}.yaml"
        if source.is_file():
            receipt = published.pop("receipt")
            digest = hashlib.sha256(source.read_bytes()).hexdigest()
            assert receipt["result_file"] == {
                "file": f"content/runs/{source.name}",
                "bytes": source.stat().st_size,
                "sha256": digest,
            }
            assert receipt["schema_version"] == str(published["schema_version"])
            original = load_yaml(source.read_text())
            expected = published_measurements(original).pop("measurements")
            original.pop("measurements")
            assert published == original
            assert {phase: phase_records(rows) for phase, rows in measurements.items()} == expected
            compared += 1
        assert not any(line.startswith(" ") for line in lines)
    return compared
