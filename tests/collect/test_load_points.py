"""Open-loop load points (schema 1.2): the schema, the rules beyond it, and the model."""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from sitegen.collect import validate_result
from sitegen.model import run_from_dict
from sitegen.parse import parse_document, parse_yaml
from tests.kit.project import REPO, run_cli

POINT: dict[str, Any] = {
    "request_rate": 1.5,
    "arrival": "poisson",
    "max_concurrency": 25,
    "input_tokens_per_request": 4007,
    "output_tokens_per_request": 501,
    "completed_requests": 300,
    "request_throughput": 0.2635,
    "total_tokens_per_s": 132.04,
    "ttft_ms": 1177.6,
    "time_between_tokens_ms": 184.5,
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
    assert [
        (p.request_rate, p.arrival, p.burstiness, p.max_concurrency) for p in run.load_points
    ] == [(0.3, "gamma", 0.7, None), (1.5, "poisson", None, 25)]
    assert run.load_points[1].statistic("ttft_ms", "p99") == 6518.2
    assert run.load_points[1].total_tokens_per_s == 132.04


def test_a_sweep_reads_by_rate_however_its_measured_lengths_moved() -> None:
    # A random dataset's measured mean lengths move a little from point to point (the DGX
    # Spark rate sweep: 4,161 tokens in, 489 to 492 out); a second workload, 1,114 tokens in.
    swept = [(0.7, 4161, 489), (0.1, 4163, 491), (0.3, 4160, 490), (1.0, 4162, 492)]
    other = [(0.2, 1114, 980), (0.1, 1120, 1010)]
    points = [
        {
            **POINT,
            "request_rate": rate,
            "input_tokens_per_request": tokens_in,
            "output_tokens_per_request": tokens_out,
        }
        for rate, tokens_in, tokens_out in swept + other
    ]
    run = run_from_dict("r", document(points))
    assert [(p.request_rate, p.input_tokens_per_request) for p in run.load_points] == [
        (0.1, 1120),
        (0.2, 1114),
        (0.1, 4163),
        (0.3, 4160),
        (0.7, 4161),
        (1.0, 4162),
    ]


def test_runs_without_load_points_have_none() -> None:
    data = document([])
    del data["measurements"]["load_points"]
    assert problems(data) == [] and run_from_dict("r", data).load_points == ()


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            {"arrival": "gamma"},
            "/measurements/load_points/1/arrival: gamma arrivals need their shape",
        ),
        (
            {"burstiness": 0.7},
            "/measurements/load_points/1/burstiness: burstiness is the shape of gamma",
        ),
        ({}, "/measurements/load_points/1: duplicate load point at 1.5 requests/s"),
        ({"request_rate": 0}, "/measurements/load_points/1/request_rate"),
        ({"arrival": "bursty"}, "/measurements/load_points/1/arrival"),
    ],
)
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


# --- vLLM bench serve at a request rate: imported as load points -------------------------

HISTORY = REPO / "tests" / "data" / "history"
SPARK_META = """hardware: {type: integrated-gpu, vendor: NVIDIA, accelerator: GB10, count: 1}
engine: {name: vLLM, version: "0.23.0"}
"""
RATE_FILES = sorted(HISTORY.glob("*/*.json"))


def expected_point(raw: dict[str, Any]) -> dict[str, Any]:
    """The load point read from the raw vLLM object by vLLM's definitions, written out here."""
    completed = raw["completed"]
    point: dict[str, Any] = {
        "request_rate": raw["request_rate"],
        "arrival": "poisson" if raw["burstiness"] == 1 else "gamma",
        "input_tokens_per_request": round(raw["total_input_tokens"] / completed),
        "output_tokens_per_request": round(raw["total_output_tokens"] / completed),
        "completed_requests": completed,
        "failed_requests": raw["failed"],
        "request_throughput": raw["request_throughput"],
        "total_tokens_per_s": raw["output_throughput"],
        "ttft_ms": raw["median_ttft_ms"],
        "time_between_tokens_ms": raw["median_tpot_ms"],
        "per_request_tokens_per_s": 1000 / raw["median_tpot_ms"],
        "output_tokens": raw["total_output_tokens"],
        "measured_s": raw["duration"],
    }
    if raw["burstiness"] != 1:
        point["burstiness"] = raw["burstiness"]
    if raw["max_concurrency"] is not None:
        point["max_concurrency"] = raw["max_concurrency"]
    return point


@pytest.mark.parametrize("path", RATE_FILES, ids=lambda p: f"{p.parent.name[-20:]}/{p.name[:18]}")
def test_vllm_request_rate_file_imports_as_a_load_point(
    project: Path, tmp_path: Path, path: Path
) -> None:
    meta = tmp_path / "run.yaml"
    meta.write_text(SPARK_META, encoding="utf-8")
    assert run_cli(project, "import", str(path), "--meta", str(meta), "--id", "spark") == 0
    written = project / "content" / "runs" / "spark.yaml"
    data = parse_yaml(str(written), written.read_bytes()).data
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert data["measurements"]["decode"] == [] and data["schema_version"] == 1.2
    [point] = data["measurements"]["load_points"]
    for name, value in expected_point(raw).items():
        assert point[name] == (
            value if isinstance(value, str) else pytest.approx(value, abs=2e-6, rel=1e-9)
        ), name
    assert point["statistics"]["ttft_ms"]["p99"] == pytest.approx(raw["p99_ttft_ms"], abs=2e-6)
    assert point["statistics"]["time_between_tokens_ms"]["mean"] == pytest.approx(
        raw["mean_tpot_ms"], abs=2e-6
    )
    assert point["source_values"]["mean_input_tokens"] == pytest.approx(
        raw["total_input_tokens"] / raw["completed"], abs=2e-6
    )
    assert data["run"]["date"] == f"{raw['date'][:4]}-{raw['date'][4:6]}-{raw['date'][6:8]}"


def test_a_sweep_of_rates_and_concurrencies_keeps_them_apart(project: Path, tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    rate_raw = json.loads(RATE_FILES[0].read_text(encoding="utf-8"))
    fixed_raw = {**rate_raw, "request_rate": "inf", "max_concurrency": 8, "output_throughput": 99.5}
    (folder / "rate.json").write_text(json.dumps(rate_raw))
    (folder / "fixed.json").write_text(json.dumps(fixed_raw))
    (folder / "burst.json").write_text(
        json.dumps({**rate_raw, "request_rate": "inf", "max_concurrency": None})
    )
    meta = tmp_path / "run.yaml"
    meta.write_text(SPARK_META, encoding="utf-8")
    assert run_cli(project, "import", str(folder), "--meta", str(meta), "--id", "mixed") == 0
    written = project / "content" / "runs" / "mixed.yaml"
    data = parse_yaml(str(written), written.read_bytes()).data
    assert [
        (c["concurrency"], c["total_tokens_per_s"]) for c in data["measurements"]["decode"]
    ] == [(8, 99.5)]
    [point] = data["measurements"]["load_points"]
    assert point["request_rate"] == rate_raw["request_rate"]
    assert point["total_tokens_per_s"] == pytest.approx(rate_raw["output_throughput"], abs=2e-6)
    assert any(
        "burst.json" in note and "every request sent at once" in note
        for note in data["provenance"]["notes"]
    )


SWEEP = REPO / "tests/data/samples/vllm/dgxspark-gemma4-26b-nvfp4-rate-sweep-2026-08-16"


def test_a_real_rate_sweep_reads_by_rate_on_its_run_page(project: Path, tmp_path: Path) -> None:
    # Six `vllm bench serve` files at 0.1 to 1 request/s, whose measured output lengths move
    # between 489 and 492 tokens: the page lists them by rate, as the files' own rates say.
    meta = tmp_path / "run.yaml"
    meta.write_text(SPARK_META, encoding="utf-8")
    assert run_cli(project, "import", str(SWEEP), "--meta", str(meta), "--id", "sweep") == 0
    assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0
    page = (project / "_site" / "runs" / "sweep" / "index.html").read_text(encoding="utf-8")
    table = page.split("id=load-points", 1)[1].split("</table>", 1)[0]
    rows = re.findall(
        r'<tr id="lp-\d+"><td>([\d.]+)/s.*?<td class=num>[\d.]+/s<td class=num>([\d,.]+)<', table
    )
    raws = sorted(
        (json.loads(path.read_text(encoding="utf-8")) for path in SWEEP.glob("*.json")),
        key=lambda raw: raw["request_rate"],
    )
    assert len(raws) == 6
    assert rows == [
        (f"{raw['request_rate']:g}", f"{raw['output_throughput']:,.1f}") for raw in raws
    ]


def test_the_shipped_history_is_what_import_makes_of_the_raw_files(project: Path) -> None:
    # content/SOURCES.md: each run imported with `sitegen import RAW --meta run.yaml --id ID`.
    # Imported from inside the project, so the receipts name the files as the shipped ones do.
    inside = project / HISTORY.relative_to(REPO)
    shutil.copytree(HISTORY, inside)
    metas = sorted(inside.glob("dgxspark*/_run/*.run.yaml"))
    assert len(metas) == len(RATE_FILES) == 16
    for meta in metas:
        folder = meta.parent.parent
        [raw] = folder.glob(f"{meta.name[:10]}_*.json")
        quantization = "nvfp4" if "-nvfp4-" in folder.name else "bf16"
        workload = folder.name.split(f"-{quantization}-", 1)[1]
        run_id = f"dgxspark-vllm-gemma4-26b-{quantization}-{workload}-{meta.name[:10]}"
        shipped = project / "content" / "runs" / f"{run_id}.yaml"
        expected = shipped.read_bytes()
        shipped.unlink()
        assert run_cli(project, "import", str(raw), "--meta", str(meta), "--id", run_id) == 0
        assert shipped.read_bytes() == expected, run_id
