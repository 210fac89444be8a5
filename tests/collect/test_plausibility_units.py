"""Unit mistakes in a cell without statistics: its TTFT, time between tokens, measured time,
output tokens and tok/s are checked against each other, and a contradiction names the cell and
the likely unit (issue 43's planted mistakes)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from sitegen.parse import Document
from sitegen.plausibility import findings, plausibility_warnings
from tests.kit.project import REPO, load_yaml

SHIPPED = REPO / "content" / "runs" / "h200nvl2-sglang-deepseek-v4-flash-dspark.yaml"


def _shipped() -> dict[str, Any]:
    data: dict[str, Any] = load_yaml(SHIPPED.read_text(encoding="utf-8"))
    return data


def _cell_without_statistics(data: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """The first cell with measured time and output tokens, its statistics removed."""
    for index, cell in enumerate(data["measurements"]["decode"]):
        if "measured_s" in cell and "output_tokens" in cell and "ttft_ms" in cell:
            cell.pop("statistics", None)
            return index, cell
    raise AssertionError("the shipped run has no such cell")


def _messages(data: dict[str, Any]) -> list[str]:
    return [str(problem) for problem in plausibility_warnings(Document("run.yaml", data, {}))]


def test_the_shipped_figures_agree() -> None:
    data = _shipped()
    _, cell = _cell_without_statistics(data)
    # Read independently: tok/s × seconds is the cell's output tokens, within rounding.
    assert cell["total_tokens_per_s"] * cell["measured_s"] == pytest.approx(
        cell["output_tokens"], rel=0.01
    )
    assert [f for f in findings(data) if f.check == "unit-mismatch"] == []


def test_a_ttft_in_seconds_is_named() -> None:
    data = _shipped()
    index, cell = _cell_without_statistics(data)
    seconds = cell["ttft_ms"] / 1000  # 107.865 ms written as 0.107865, as in the issue's 0.022629
    cell["ttft_ms"] = seconds
    [message] = [m for m in _messages(data) if "[unit-mismatch]" in m]
    assert f"/measurements/decode/{index}/ttft_ms: warning: 8K × 1 request, TTFT:" in message
    assert f"ttft_ms {seconds:g}" in message and "looks like seconds" in message


def test_the_issues_ttft_is_named_in_a_cell_with_only_tok_s() -> None:
    data = _shipped()
    index, cell = _cell_without_statistics(data)
    cell.pop("time_between_tokens_ms")
    cell["ttft_ms"] = 0.022629
    [finding] = [f for f in findings(data) if f.check == "unit-mismatch"]
    # 1000 / per-request tok/s is one decode step: the check works without time between tokens.
    assert finding.pointer == f"/measurements/decode/{index}/ttft_ms"
    assert "looks like seconds (22.629 ms)" in finding.message


def test_a_measured_time_in_milliseconds_is_named() -> None:
    data = _shipped()
    index, cell = _cell_without_statistics(data)
    cell["measured_s"] = cell["measured_s"] * 1000
    [finding] = [f for f in findings(data) if f.check == "unit-mismatch"]
    assert finding.pointer == f"/measurements/decode/{index}/measured_s"
    assert f"measured_s {cell['measured_s']:g} looks like milliseconds" in finding.message
    expected = cell["total_tokens_per_s"] * cell["measured_s"] / cell["output_tokens"]
    assert 900 < expected < 1100 and f"({expected:.3g}×)" in finding.message


def test_a_contradiction_that_is_no_unit_slip_is_still_a_warning() -> None:
    data = _shipped()
    _, cell = _cell_without_statistics(data)
    cell["output_tokens"] = cell["output_tokens"] * 4  # 4× off: wrong, but no unit explains it
    [finding] = [f for f in findings(data) if f.check == "unit-mismatch"]
    assert "looks like" not in finding.message and "a unit slip" not in finding.message


def test_a_unit_warning_can_be_acknowledged(tmp_path: Path) -> None:
    data = copy.deepcopy(_shipped())
    index, cell = _cell_without_statistics(data)
    cell["measured_s"] = cell["measured_s"] * 1000
    data["run"]["acknowledged_warnings"] = [
        {
            "check": "unit-mismatch",
            "pointer": f"/measurements/decode/{index}/measured_s",
            "reason": "the window really was this long",
        }
    ]
    assert not [m for m in _messages(data) if "[unit-mismatch]" in m]
