"""llm-d's Benchmark Report v0.2.x both ways: every shipped run exported validates against the
report's own JSON Schema (vendored byte for byte, read here with jsonschema directly) and
imports back with the same figures; the project's published example reports are read, and a
report its schema rejects is refused naming the field."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.kit.importing import close, imported, refused, run_import, write_meta
from tests.kit.project import REPO, load_yaml, run_cli

VENDORED = REPO / "schema" / "vendor" / "llm-d-benchmark-report"
EXAMPLES = REPO / "tests" / "data" / "formats" / "benchmark-report"
# Git blob ids of the files at llm-d/llm-d-benchmark 8bc9f1ddd873a24f1657d6cca2e0d0fb6947dd36.
BLOBS = {
    "br_v0_2_json_schema.json": "7c54fd1331abfdf2784354f847143173bc59e0dd",
    "br_v0_2_1_json_schema.json": "a320d73eab86cd7d39b7e2b05b2db7e2baf2bb01",
    "br_v0_2_example.yaml": "196adcb412edbdcd4c9fe5a94c058147c66a6253",
    "br_v0_2_1_example.yaml": "363f3edfaa092dcd5a62d08feec34c9a0336341c",
}
SHIPPED = sorted(p for p in (REPO / "content" / "runs").iterdir() if p.suffix in (".yaml", ".json"))


def _blob(path: Path) -> str:
    data = path.read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def test_the_schemas_and_examples_are_the_projects_own_bytes() -> None:
    for name, blob in BLOBS.items():
        folder = VENDORED if name.endswith("schema.json") else EXAMPLES
        assert _blob(folder / name) == blob, name


def _validator(version: str) -> jsonschema.Draft202012Validator:
    name = {"0.2": "br_v0_2_json_schema.json", "0.2.1": "br_v0_2_1_json_schema.json"}[version]
    return jsonschema.Draft202012Validator(
        json.loads((VENDORED / name).read_text(encoding="utf-8"))
    )


def _key(cell: dict[str, Any]) -> tuple[int, int, int]:
    return cell["context_tokens"], cell["concurrency"], cell.get("output_tokens_per_request") or 0


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_every_shipped_run_round_trips(project: Path, tmp_path: Path, path: Path) -> None:
    original = load_yaml(path.read_text(encoding="utf-8"))
    output = tmp_path / "reports"
    assert (
        run_cli(
            project, "export", path.stem, "--format", "benchmark-report", "--output", str(output)
        )
        == 0
    )
    files = sorted((output / path.stem).glob("*.json"))
    measured = [
        c
        for c in original["measurements"]["decode"]
        if c["status"] in ("valid", "requests_queued") and c.get("total_tokens_per_s") is not None
    ]
    points = [
        p
        for p in original["measurements"].get("load_points", [])
        if p.get("total_tokens_per_s") is not None
    ]
    assert len(files) == len(measured) + len(points) > 0
    validator = _validator("0.2")
    for file in files:
        report = json.loads(file.read_text(encoding="utf-8"))
        assert report["version"] == "0.2"
        assert list(validator.iter_errors(report)) == []
        engine = report["scenario"]["stack"][0]["standardized"]
        assert engine["accelerator"]["model"] == original["hardware"]["accelerator"]
        assert engine["model"]["name"] == original["run"]["model"]
    meta = write_meta(tmp_path, f"hardware:\n  type: {original['hardware']['type']}\n")
    assert run_import(project, [output / path.stem], meta, "back") == 0
    back = imported(project, "back")
    assert {_key(c): c for c in back["measurements"]["decode"]} == {_key(c): c for c in measured}
    assert sorted(back["measurements"].get("load_points", []), key=repr) == sorted(points, key=repr)
    assert back["hardware"]["accelerator"] == original["hardware"]["accelerator"]
    assert back["hardware"]["count"] == original["hardware"]["count"]
    assert back["engine"]["name"] == original["engine"]["name"]
    assert back["run"]["model"] == original["run"]["model"]


def test_a_report_of_a_mean_run_carries_its_figures_in_the_reports_own_fields(
    tmp_path: Path, project: Path
) -> None:
    run = "h200nvl2-sglang-deepseek-v4-flash-dspark"
    original = load_yaml((REPO / "content" / "runs" / f"{run}.yaml").read_text(encoding="utf-8"))
    assert original["run"]["latency_statistic"] == "mean"
    assert (
        run_cli(project, "export", run, "--format", "benchmark-report", "--output", str(tmp_path))
        == 0
    )
    cell = next(c for c in original["measurements"]["decode"] if c.get("statistics"))
    report = json.loads(
        (tmp_path / run / f"ctx{cell['context_tokens']}-c{cell['concurrency']}.json").read_text()
    )
    aggregate = report["results"]["request_performance"]["aggregate"]
    assert aggregate["throughput"]["output_token_rate"] == {
        "units": "tokens/s",
        "mean": cell["total_tokens_per_s"],
    }
    ttft = aggregate["latency"]["time_to_first_token"]
    assert ttft["units"] == "ms" and ttft["mean"] == cell["ttft_ms"]
    assert ttft["p99"] == cell["statistics"]["ttft_ms"]["p99"]
    assert report["scenario"]["load"]["standardized"]["concurrency"] == cell["concurrency"]
    assert (
        report["scenario"]["load"]["standardized"]["input_seq_len"]["value"]
        == cell["context_tokens"]
    )


def _example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = load_yaml((EXAMPLES / name).read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("name", ["br_v0_2_example.yaml", "br_v0_2_1_example.yaml"])
def test_the_published_examples_driven_by_a_rate_are_load_points(
    project: Path, tmp_path: Path, name: str
) -> None:
    example = _example(name)
    load = example["scenario"]["load"]
    assert load["standardized"]["rate_qps"] == 10 and load["standardized"]["concurrency"] == float(
        "inf"
    )
    meta = write_meta(tmp_path, "hardware:\n  type: discrete-gpu\n")
    assert run_import(project, [EXAMPLES / name], meta) == 0
    data = imported(project)
    assert data["measurements"]["decode"] == []
    [point] = data["measurements"]["load_points"]
    aggregate = example["results"]["request_performance"]["aggregate"]
    assert point["request_rate"] == 10 and "max_concurrency" not in point  # an infinite cap is none
    native_type = load["native"]["config"]["load"]["type"]  # inference-perf's own: constant here
    assert native_type == "constant" and point["arrival"] == native_type
    assert point["input_tokens_per_request"] == round(aggregate["requests"]["input_length"]["mean"])
    assert point["total_tokens_per_s"] == close(
        aggregate["throughput"]["output_token_rate"]["mean"]
    )
    assert point["request_throughput"] == close(aggregate["throughput"]["request_rate"]["mean"])
    ttft = aggregate["latency"]["time_to_first_token"]
    assert point["ttft_ms"] == close(ttft["mean"] * {"s": 1000.0, "ms": 1.0}[ttft["units"]])
    requests = aggregate["requests"]
    assert point["completed_requests"] == requests["total"] - requests.get("failures", 0)


@pytest.mark.parametrize("name", ["br_v0_2_example.yaml", "br_v0_2_1_example.yaml"])
def test_an_example_at_a_fixed_concurrency_is_imported(
    project: Path, tmp_path: Path, name: str
) -> None:
    example = _example(name)
    example["scenario"]["load"]["standardized"].update({"concurrency": 8, "rate_qps": None})
    path = tmp_path / "report.json"
    path.write_text(json.dumps(example, default=str), encoding="utf-8")
    assert (
        run_import(project, [path], write_meta(tmp_path, "hardware:\n  type: discrete-gpu\n")) == 0
    )
    data = imported(project)
    [cell] = data["measurements"]["decode"]
    aggregate = example["results"]["request_performance"]["aggregate"]
    assert cell["concurrency"] == 8
    assert cell["context_tokens"] == round(aggregate["requests"]["input_length"]["mean"])
    assert cell["total_tokens_per_s"] == close(aggregate["throughput"]["output_token_rate"]["mean"])
    ttft = aggregate["latency"]["time_to_first_token"]
    scale = {"s": 1000.0, "ms": 1.0}[ttft["units"]]
    assert cell["ttft_ms"] == close(ttft["mean"] * scale)
    assert cell["statistics"]["ttft_ms"]["p99"] == close(ttft["p99"] * scale)
    requests = aggregate["requests"]
    assert cell["completed_requests"] == requests["total"] - requests.get("failures", 0)
    [engine] = [
        c["standardized"]
        for c in example["scenario"]["stack"]
        if c["standardized"]["kind"] == "inference_engine"
    ]
    assert data["hardware"]["accelerator"] == engine["accelerator"]["model"]
    assert data["hardware"]["count"] == engine["accelerator"]["count"]
    assert data["run"]["model"] == engine["model"]["name"]
    if example["version"] == "0.2":
        # llm-d's own v0.2 example has v0.2.1's session_performance: its v0.2 schema rejects it.
        written = json.loads(
            path.read_text(encoding="utf-8")
        )  # dates as text, as the file has them
        assert list(_validator("0.2").iter_errors(written)) and not list(
            _validator("0.2.1").iter_errors(written)
        )
        assert any(
            "it is valid against v0.2.1's and read as such" in n
            for n in data["provenance"]["notes"]
        )


def test_a_report_its_schema_rejects_is_refused_naming_the_field(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    example = _example("br_v0_2_1_example.yaml")
    example["scenario"]["load"]["standardized"]["concurrency"] = 8
    del example["results"]["request_performance"]["aggregate"]["requests"]["total"]
    path = tmp_path / "report.json"
    path.write_text(json.dumps(example, default=str), encoding="utf-8")
    assert (
        run_import(project, [path], write_meta(tmp_path, "hardware:\n  type: discrete-gpu\n")) == 1
    )
    err = refused(project, capsys)
    assert f"{path}" in err and "/results/request_performance/aggregate/requests" in err
    assert "not a valid Benchmark Report v0.2.1: 'total' is a required property" in err
