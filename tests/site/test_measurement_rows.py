"""The run JSON's measurements as rows (sitegen/measurement_rows.py), on hand-made cells whose
rows are written out here, and read back on every shipped result file."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sitegen.measurement_rows import phase_rows, published_figure, records, result_document
from tests.kit.project import REPO, load_yaml
from tests.kit.run_json import at_published_precision, published_measurements


def _cell(concurrency: int, ttft: Any, mean: Any = None, **more: Any) -> dict[str, Any]:
    cell: dict[str, Any] = {"context_tokens": 8192, "concurrency": concurrency, "status": "valid"}
    cell["ttft_ms"] = ttft
    if mean is not None:
        cell["statistics"] = {"ttft_ms": {"mean": mean, "p99": 2 * ttft}}
    return cell | more


def test_a_statistic_equal_to_its_figure_in_every_row_is_written_once() -> None:
    rows = phase_rows([_cell(1, 10.5, 10.5), _cell(2, 20.25, 20.25)])
    assert rows == {
        "fields": ["context_tokens", "concurrency", "status", "ttft_ms", "statistics/ttft_ms/p99"],
        "same": {"statistics/ttft_ms/mean": "ttft_ms"},
        "rows": [[8192, 1, "valid", 10.5, 21.0], [8192, 2, "valid", 20.25, 40.5]],
    }


@pytest.mark.parametrize(
    "second",
    [
        _cell(2, 20.25, 20.0),  # a mean that differs in one row
        _cell(2, 4.0, 4),  # the same number, written otherwise (4.0 and 4)
        _cell(2, 20.25),  # a figure without the statistic: "not given" is not "equal"
    ],
)
def test_a_statistic_not_equal_in_every_row_keeps_its_column(second: dict[str, Any]) -> None:
    first = _cell(1, 10.5, 10.5)
    rows = phase_rows([first, second])
    assert "same" not in rows
    column = rows["fields"].index("statistics/ttft_ms/mean")
    given = (second.get("statistics") or {}).get("ttft_ms", {}).get("mean")
    # (a value absent at a row's end is left out: format 3)
    assert [(row + [None] * len(rows["fields"]))[column] for row in rows["rows"]] == [10.5, given]
    assert records(rows) == [first, second]


def test_an_absent_field_is_null_and_read_back_absent() -> None:
    cells = [
        _cell(1, 10.5),
        {"context_tokens": 8192, "concurrency": 2, "status": "over_capacity"},
        {"context_tokens": 8192, "concurrency": 4, "ttft_ms": 30.0},  # no status: null between
    ]
    rows = phase_rows(cells)
    assert rows["rows"][1:] == [[8192, 2, "over_capacity"], [8192, 4, None, 30.0]]
    assert records(rows) == cells


@pytest.mark.parametrize(
    ("figure", "published"),
    [
        (1234.56789012345, 1234.56789),  # six places
        (0.0123456789, 0.01234568),  # below 1: seven significant digits
        (404.5074, 404.5074),  # written with at most six decimals: as it is
        (8316.252414, 8316.252414),
        (9.99999999, 10.0),
        (123456789.123456789, 123456789.123457),
        (450.0, 450.0),
        (7, 7),  # a whole number stays one
    ],
)
def test_a_figure_is_published_at_six_places_or_seven_significant_digits(
    figure: Any, published: Any
) -> None:
    rows = phase_rows([_cell(1, figure, figure)])
    assert rows["rows"][0][3] == published and type(rows["rows"][0][3]) is type(published)
    assert published_figure(figure) == at_published_precision(figure)


def test_every_shipped_result_reads_back_from_its_rows() -> None:
    """The run JSON's measurements, written and read back, are the result file's: every figure,
    at the precision the file gave it, or at six places and seven significant digits where it
    gave more (compared as JSON text, so 10211.0 stays 10211.0). llm-inference-bench's files,
    written to six decimals, read back exactly; other tools' 17-digit floats do not."""
    shipped = sorted((REPO / "content" / "runs").glob("*.yaml"))
    assert len(shipped) >= 20
    exact = rounded = 0
    for path in shipped:
        document = load_yaml(path.read_text(encoding="utf-8"))
        published = {
            **document,
            "measurements": {
                phase: phase_rows(items) for phase, items in document["measurements"].items()
            },
            "run_json_version": 3,
        }
        back = result_document(json.loads(json.dumps(published)))
        expected = published_measurements(document)
        assert json.dumps(back, sort_keys=True) == json.dumps(expected, sort_keys=True), path
        if expected == document:
            exact += 1
        else:
            rounded += 1
            assert document["run"].get("benchmark_tool") != "llm-inference-bench", path
    assert exact >= 10 and rounded >= 1, (exact, rounded)  # the check saw both kinds


def test_a_newer_format_is_refused_with_what_to_do() -> None:
    with pytest.raises(ValueError, match="upgrade sitegen"):
        result_document({"run_json_version": 4, "measurements": {}})
    assert result_document({"measurements": {"decode": []}}) == {"measurements": {"decode": []}}


def test_a_rows_absent_values_at_its_end_are_left_out_and_read_back_as_absent() -> None:
    """Format 3: a cell that was not run has its key fields only, written as a short row (format
    2 wrote a null for every other field); format 2 files still read."""
    records = [
        {"context_tokens": 8192, "concurrency": 1, "status": "valid", "ttft_ms": 50.5},
        {"context_tokens": 8192, "concurrency": 2, "status": "over_capacity"},
    ]
    phase = phase_rows(records)
    assert phase == {
        "fields": ["context_tokens", "concurrency", "status", "ttft_ms"],
        "rows": [[8192, 1, "valid", 50.5], [8192, 2, "over_capacity"]],
    }
    for version, rows in (
        (3, phase["rows"]),
        (2, [[8192, 1, "valid", 50.5], [8192, 2, "over_capacity", None]]),
    ):
        published = {
            "run_json_version": version,
            "measurements": {"decode": {**phase, "rows": rows}},
        }
        assert result_document(published)["measurements"]["decode"] == records
    with pytest.raises(ValueError, match="at most 4 values"):
        result_document(
            {
                "run_json_version": 3,
                "measurements": {"decode": {**phase, "rows": [[1, 2, "valid", 3, 4]]}},
            }
        )
