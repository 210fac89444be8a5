"""The run CSV against the run's canonical JSON: every measurement a row, every figure written as
the JSON writes it, and only the columns some row of the run fills, in the documented order."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

# The CSV's columns in order, as docs/result-format.md lists them (written out here, not imported).
ALL_COLUMNS = [
    "phase", "context_tokens", "concurrency", "status", "total_tokens_per_s", "per_request_tokens_per_s",
    "ttft_ms", "time_between_tokens_ms", "average_active_requests", "completed_requests", "output_tokens",
    "measured_s", "prompt_tokens", "output_tokens_per_request",
    *(f"{figure}_{name}" for figure in ("ttft_ms", "time_between_tokens_ms", "per_request_tokens_per_s")
      for name in ("mean", "p50", "p90", "p99")),
]


def _statistics(point: dict[str, Any]) -> dict[str, Any]:
    return {f"{figure}_{name}": value for figure, values in point.get("statistics", {}).items()
            for name, value in values.items()}


def _expected_rows(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Each measurement of the JSON as the CSV's row should hold it: prefill first, then decode,
    each by context, then prefill chunk or requests at once and output length."""
    prefill = sorted(document["measurements"].get("prefill", []),
                     key=lambda p: (p["context_tokens"], p.get("prompt_chunk_tokens") or 0))
    decode = sorted(document["measurements"].get("decode", []),
                    key=lambda c: (c["context_tokens"], c["concurrency"], c.get("output_tokens_per_request") or 0))
    rows = []
    for p in prefill:
        rows.append({"phase": "prefill", "context_tokens": p["context_tokens"], "concurrency": 1, "status": "valid",
                     "total_tokens_per_s": p.get("prompt_tokens_per_s"), "ttft_ms": p.get("ttft_ms"),
                     "completed_requests": p.get("samples"), "prompt_tokens": p.get("prompt_tokens"),
                     **_statistics(p)})
    for c in decode:
        rows.append({"phase": "decode", **{k: v for k, v in c.items() if k in ALL_COLUMNS}, **_statistics(c)})
    return rows


def _text(value: Any) -> str:
    # A number exactly as the JSON file writes it; words as they are; nothing where there is nothing.
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value)


def test_csv_holds_every_measurement_as_the_json_writes_it(built_site: Path) -> None:
    dropped: set[str] = set()
    for path in sorted((built_site / "runs").glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        expected = _expected_rows(document)
        with path.with_suffix(".csv").open(newline="", encoding="utf-8") as handle:
            header, *rows = list(csv.reader(handle))
        # Only the columns some row fills, in the documented order.
        filled = [c for c in ALL_COLUMNS if any(_text(row.get(c)) for row in expected)]
        assert header == filled, path.name
        dropped |= set(ALL_COLUMNS) - set(header)
        assert len(rows) == len(expected), path.name
        for number, (row, want) in enumerate(zip(rows, expected, strict=True), start=1):
            assert row == [_text(want.get(c)) for c in header], (path.name, number)
    # The shipped runs exercise both sides: some leave statistics and per-cell output lengths out.
    assert {"ttft_ms_p99", "output_tokens_per_request"} <= dropped


def test_seed_csv_keeps_its_statistics_columns(built_site: Path) -> None:
    from tests.conftest import SEED_RUN_ID

    with (built_site / "runs" / f"{SEED_RUN_ID}.csv").open(newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    assert {"ttft_ms_p50", "ttft_ms_p90", "ttft_ms_p99", "per_request_tokens_per_s_p99"} <= set(header)
    assert "output_tokens_per_request" not in header  # no cell of the seed run has its own output length


def test_run_json_is_the_canonical_run_one_field_or_measurement_a_line(built_site: Path) -> None:
    """The download is the result file's content (compared with the YAML the contributor wrote)
    laid out for reading and diffs: a line per section field and per measurement, no indent."""
    import yaml

    from tests.conftest import REPO

    for path in sorted((built_site / "runs").glob("*.json")):
        text = path.read_text()
        source = REPO / "content" / "runs" / f"{path.stem}.yaml"
        if source.is_file():
            assert json.loads(text) == yaml.safe_load(source.read_text())
        document = json.loads(text)
        lines = text.splitlines()
        measurements = sum(len(document["measurements"].get(phase, [])) for phase in ("prefill", "decode"))
        whole = [json.loads(line.rstrip(",")) for line in lines if line.startswith("{") and line.rstrip(",").endswith("}")]
        assert sum(1 for item in whole if "context_tokens" in item) == measurements
        assert not any(line.startswith(" ") for line in lines)
        assert len(text.encode()) < len(json.dumps(document, indent=1).encode())
