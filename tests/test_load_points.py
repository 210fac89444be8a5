"""Open-loop load points (schema 1.2): the schema, the rules beyond it, and the model."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from sitegen.collect import validate_result
from sitegen.model import run_from_dict
from sitegen.parse import parse_document

POINT: dict[str, Any] = {
    "request_rate": 1.5, "arrival": "poisson", "max_concurrency": 25, "input_tokens_per_request": 4007,
    "output_tokens_per_request": 501, "completed_requests": 300, "request_throughput": 0.2635,
    "total_tokens_per_s": 132.04, "ttft_ms": 1177.6, "time_between_tokens_ms": 184.5,
    "statistics": {"ttft_ms": {"mean": 1397.2, "p50": 1177.6, "p99": 6518.2}},
}


def document(points: list[dict[str, Any]], version: float = 1.2) -> dict[str, Any]:
    return {
        "schema_version": version,
        "hardware": {"type": "integrated-gpu", "accelerator": "NVIDIA GB10", "count": 1},
        "engine": {"name": "vLLM", "version": "0.23.0"},
        "run": {"model": "google/gemma-4-26B-A4B-it", "setup": "spark-gemma4-bf16"},
        "measurements": {"prefill": [], "decode": [], "load_points": points},
    }


def problems(data: dict[str, Any]) -> list[str]:
    doc = parse_document("x.json", json.dumps(data, indent=1).encode())
    return [f"{p.pointer}: {p.message}" for p in validate_result(doc)]


def test_a_file_of_load_points_only_is_valid_and_read_into_the_model() -> None:
    gamma = {**POINT, "request_rate": 0.3, "arrival": "gamma", "burstiness": 0.7}
    del gamma["max_concurrency"]
    data = document([POINT, gamma])
    assert problems(data) == []
    run = run_from_dict("r", data)
    assert run.decode == () and run.info.setup == "spark-gemma4-bf16"
    assert [(p.request_rate, p.arrival, p.burstiness, p.max_concurrency) for p in run.load_points] == [
        (0.3, "gamma", 0.7, None), (1.5, "poisson", None, 25)]
    assert run.load_points[1].statistic("ttft_ms", "p99") == 6518.2
    assert run.load_points[1].total_tokens_per_s == 132.04


def test_runs_without_load_points_have_none() -> None:
    data = document([])
    del data["measurements"]["load_points"]
    assert problems(data) == [] and run_from_dict("r", data).load_points == ()


@pytest.mark.parametrize(("change", "expected"), [
    ({"arrival": "gamma"}, "/measurements/load_points/1/arrival: gamma arrivals need their shape"),
    ({"burstiness": 0.7}, "/measurements/load_points/1/burstiness: burstiness is the shape of gamma"),
    ({}, "/measurements/load_points/1: duplicate load point at 1.5 requests/s"),
    ({"request_rate": 0}, "/measurements/load_points/1/request_rate"),
    ({"arrival": "bursty"}, "/measurements/load_points/1/arrival"),
])
def test_load_point_rules(change: dict[str, Any], expected: str) -> None:
    second = {**copy.deepcopy(POINT), **change}
    found = problems(document([POINT, second]))
    assert any(line.startswith(expected) for line in found), found


def test_a_missing_throughput_is_refused() -> None:
    point = {key: value for key, value in POINT.items() if key != "total_tokens_per_s"}
    assert any("total_tokens_per_s" in line for line in problems(document([point])))


def test_load_points_in_a_1_1_file_name_the_version() -> None:
    found = problems(document([POINT], version=1.1))
    assert any("load_points" in line and "1.2" in line for line in found), found
