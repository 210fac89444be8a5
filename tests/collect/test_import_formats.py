"""`sitegen import` of the export layouts issue 43 adds, each from a real file read here by an
independent reader (json.load and arithmetic in the test): AIPerf's export schema 1.x, its
invalid runs and sweep summaries, detection of sitegen's own files by shape, and llama-bench's
several prompt sizes on the run page and the index. Sources: tests/data/formats/SOURCES.md."""

from __future__ import annotations

import copy
import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.kit.importing import (
    SAMPLES,
    close,
    imported,
    refused,
    run_import,
    write_meta,
)
from tests.kit.project import REPO, run_cli
from tests.kit.run_json import published_run

FORMATS = REPO / "tests" / "data" / "formats"
AIPERF_13 = FORMATS / "aiperf" / "aiperf-0.10.0-schema1.3-qwen36-nvfp4-rtx5090-c2.json"
AIPERF_10 = FORMATS / "aiperf" / "aiperf-0.8.0-schema1.0-mock-chat-c4.json"
AIPERF_RECORDS = FORMATS / "aiperf" / "aiperf-records-layout-gpt-oss-20b-c100.json"
ORIONZHEN = SAMPLES / "llama-bench" / "orionzhen-rx7900xtx-rocm712-gptoss20b-depth-sweep.json"
RTX5090 = (
    "hardware:\n  type: discrete-gpu\n  accelerator: RTX 5090\n  count: 1\nengine:\n  name: vLLM\n"
)


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


# --- AIPerf export schema 1.x ---------------------------------------------------------------------


def test_an_aiperf_schema_1_3_export_is_imported_not_taken_for_a_result(
    project: Path, tmp_path: Path
) -> None:
    raw = _load(AIPERF_13)
    assert raw["schema_version"] == "1.3"  # the key that once made it "already a sitegen result"
    assert run_import(project, [AIPERF_13], write_meta(tmp_path, RTX5090)) == 0
    data = imported(project)
    [cell] = data["measurements"]["decode"]
    [profiling] = [p for p in raw["input_config"]["phases"] if not p.get("exclude_from_results")]
    assert cell["concurrency"] == profiling["concurrency"] == 2
    assert cell["context_tokens"] == round(raw["input_sequence_length"]["avg"])
    assert cell["total_tokens_per_s"] == close(raw["output_token_throughput"]["avg"])
    assert cell["ttft_ms"] == close(raw["time_to_first_token"]["p50"])
    assert cell["time_between_tokens_ms"] == close(raw["inter_token_latency"]["p50"])
    assert cell["per_request_tokens_per_s"] == close(raw["output_token_throughput_per_user"]["p50"])
    assert cell["completed_requests"] == raw["request_count"]["avg"] == 96
    assert cell["measured_s"] == close(raw["benchmark_duration"]["avg"])
    run = data["run"]
    # --request-count 96 in the profiling phase: a fixed request count, not a duration.
    assert run["decode_mode"] == "fixed-request-count" and "duration" not in profiling
    assert run["benchmark_tool_version"] == raw["aiperf_version"]
    assert run["model"] == raw["input_config"]["models"]["items"][0]["name"]
    notes = data["provenance"]["notes"]
    info = raw["run_info"]
    assert (
        f"random_seed {info['random_seed']}" in notes[0]
        and f"benchmark_id {info['benchmark_id']}" in notes[0]
    )
    assert f"Command: {info['cli_command']}" in notes
    assert data["provenance"]["tool_run"] == {
        "export_schema_version": raw["schema_version"],
        "random_seed": info["random_seed"],
        "benchmark_id": info["benchmark_id"],
        "trial": info["trial"],
        "command": info["cli_command"],
    }


def test_a_duration_run_is_fixed_duration(project: Path, tmp_path: Path) -> None:
    raw = _load(AIPERF_13)
    profiling = raw["input_config"]["phases"][1]
    del profiling["requests"]
    profiling["duration"] = 1800.0  # as --benchmark-duration 1800 writes it
    path = _write(tmp_path / "duration" / "profile_export_aiperf.json", raw)
    assert run_import(project, [path], write_meta(tmp_path, RTX5090)) == 0
    assert imported(project)["run"]["decode_mode"] == "fixed-duration"


def test_an_invalid_run_is_refused_with_the_files_own_reasons(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = _load(AIPERF_13)
    raw["metadata"] = {
        "scenario": "inferencex-agentx-mvp",
        "submission_valid": False,
        "submission_invalid_reasons": ["context_overflow_rate_exceeded"],
    }
    path = _write(tmp_path / "invalid" / "profile_export_aiperf.json", raw)
    assert run_import(project, [path], write_meta(tmp_path, RTX5090)) == 1
    err = refused(project, capsys)
    assert str(path) in err
    assert "submission_invalid_reasons: 'context_overflow_rate_exceeded'" in err


def test_the_records_layout_of_early_aiperf_is_read(project: Path, tmp_path: Path) -> None:
    """AIPerf before 0.2 kept its metrics under ``records`` (aiperf/exporters/json_exporter.py
    at 43b7890^): the same export, its metrics moved there, gives the same cell."""
    raw = _load(AIPERF_13)
    metrics = {
        key: value for key, value in raw.items() if isinstance(value, dict) and "unit" in value
    }
    early = {
        "records": {key: {"tag": key, **value} for key, value in metrics.items()},
        "input_config": {
            "endpoint": {"model_names": ["qwen3.6-nvfp4"]},
            "loadgen": {"concurrency": 2, "request_count": 96},
        },
        "start_time": raw["start_time"],
    }
    path = _write(tmp_path / "early" / "profile_export_aiperf.json", early)
    assert run_import(project, [path], write_meta(tmp_path, RTX5090)) == 0
    [cell] = imported(project)["measurements"]["decode"]
    assert cell["total_tokens_per_s"] == close(metrics["output_token_throughput"]["avg"])
    assert cell["ttft_ms"] == close(metrics["time_to_first_token"]["p50"])


def test_a_real_records_layout_export_is_read_with_its_short_ttft_tag(
    project: Path, tmp_path: Path
) -> None:
    """AIPerf's own example export of the ``records`` layout keys TTFT as ``ttft``."""
    raw = _load(AIPERF_RECORDS)
    records = raw["records"]
    assert "time_to_first_token" not in records and records["ttft"]["unit"] == "ms"
    assert run_import(project, [AIPERF_RECORDS], write_meta(tmp_path, RTX5090)) == 0
    data = imported(project)
    [cell] = data["measurements"]["decode"]
    assert cell["concurrency"] == raw["input_config"]["loadgen"]["concurrency"] == 100
    assert cell["context_tokens"] == round(records["input_sequence_length"]["avg"])
    assert cell["ttft_ms"] == close(records["ttft"]["p50"])
    assert cell["statistics"]["ttft_ms"]["p99"] == close(records["ttft"]["p99"])
    assert cell["statistics"]["ttft_ms"]["mean"] == close(records["ttft"]["avg"])
    assert cell["time_between_tokens_ms"] == close(records["inter_token_latency"]["p50"])
    per_user = records["output_token_throughput_per_user"]
    assert cell["per_request_tokens_per_s"] == close(per_user["p50"])
    assert cell["total_tokens_per_s"] == close(records["output_token_throughput"]["avg"])
    # 89 succeeded, 11 cancelled on purpose (--request-cancellation-rate 10): 100 sent.
    errors = sum(entry["count"] for entry in raw["error_summary"])
    assert cell["completed_requests"] + errors == raw["input_config"]["loadgen"]["request_count"]
    errored = records["error_request_count"]["avg"]
    assert cell["source_values"]["errored_requests"] == errored == errors
    assert cell["measured_s"] == close(records["benchmark_duration"]["avg"])
    assert data["run"]["decode_mode"] == "fixed-request-count"
    assert data["provenance"]["tool_run"]["command"] == raw["input_config"]["cli_command"]


def test_a_real_schema_1_0_export_keeps_its_ids_and_claims_no_per_user_figure(
    project: Path, tmp_path: Path
) -> None:
    """AIPerf 0.8.0, export schema 1.0 (a non-streaming run against AIPerf's mock server): the
    benchmark id at the top, the command under input_config.artifacts, no TTFT or ITL."""
    raw = _load(AIPERF_10)
    assert raw["schema_version"] == "1.0" and "run_info" not in raw
    assert run_import(project, [AIPERF_10], write_meta(tmp_path, RTX5090)) == 0
    data = imported(project)
    [cell] = data["measurements"]["decode"]
    [phase] = raw["input_config"]["phases"]
    assert cell["concurrency"] == phase["concurrency"] == 4
    assert cell["completed_requests"] == raw["request_count"]["avg"] == phase["requests"]
    assert cell["total_tokens_per_s"] == close(raw["output_token_throughput"]["avg"])
    # The tool's figure is its own total over its duration: check it against the file's totals.
    total = raw["total_output_tokens"]["avg"] / raw["benchmark_duration"]["avg"]
    assert cell["total_tokens_per_s"] == pytest.approx(total, rel=1e-3)
    assert cell["measured_s"] == close(raw["benchmark_duration"]["avg"])
    assert not {"ttft_ms", "time_between_tokens_ms", "per_request_tokens_per_s"} & set(cell)
    assert data["run"]["benchmark_tool_version"] == raw["aiperf_version"]
    assert data["run"]["decode_mode"] == "fixed-request-count"
    assert data["provenance"]["tool_run"] == {
        "export_schema_version": "1.0",
        "random_seed": raw["input_config"]["random_seed"],
        "benchmark_id": raw["benchmark_id"],
        "command": raw["input_config"]["artifacts"]["cli_command"],
    }
    notes = data["provenance"]["notes"]
    assert not any("output_token_throughput_per_user" in note for note in notes)


def test_refusals_of_real_aiperf_exports_name_the_fields_and_quote_the_errors(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = _load(AIPERF_RECORDS)
    raw["records"]["request_count"]["avg"] = 0.0  # as if every request had been cancelled
    path = _write(tmp_path / "none" / "profile_export_aiperf.json", raw)
    assert run_import(project, [path], write_meta(tmp_path, RTX5090)) == 1
    err = refused(project, capsys)
    [error] = raw["error_summary"]
    assert f"{path}:1: no request succeeded (request_count.avg 0, error_request_count.avg 11" in err
    assert f"error_summary: '{error['error_details']['type']}' ×{error['count']})" in err


def test_a_cancelled_aiperf_benchmark_says_so_on_its_cell(project: Path, tmp_path: Path) -> None:
    raw = _load(AIPERF_10)
    assert raw["was_cancelled"] is False
    raw["was_cancelled"] = True  # what AIPerf writes when the benchmark is stopped early
    path = _write(tmp_path / "cancelled" / "profile_export_aiperf.json", raw)
    assert run_import(project, [path], write_meta(tmp_path, RTX5090)) == 0
    [cell] = imported(project)["measurements"]["decode"]
    assert "was_cancelled: true" in cell["note"]
    assert cell["completed_requests"] == raw["request_count"]["avg"]


def test_a_sweep_summary_is_one_run(project: Path, tmp_path: Path) -> None:
    """``profile_export_aiperf_sweep.json``: one entry per concurrency (layout of the akamaslabs
    sweep in SOURCES.md); here built from the real export at two concurrencies."""
    raw = _load(AIPERF_13)
    metrics = {
        key: {**value, "mean": value["avg"]}
        for key, value in raw.items()
        if isinstance(value, dict) and "unit" in value
    }
    doubled = copy.deepcopy(metrics)
    doubled["output_token_throughput"]["avg"] *= 2
    sweep = {
        "aggregation_type": "sweep",
        "num_profile_runs": 2,
        "num_successful_runs": 2,
        "failed_runs": [],
        "metadata": {"sweep_parameters": [{"name": "concurrency", "values": [2, 4]}]},
        "per_combination_metrics": [
            {"parameters": {"concurrency": 2}, "metrics": metrics},
            {"parameters": {"concurrency": 4}, "metrics": doubled},
        ],
    }
    path = _write(tmp_path / "sweep_aggregate" / "profile_export_aiperf_sweep.json", sweep)
    meta = write_meta(tmp_path, RTX5090 + "run:\n  model: Qwen/Qwen3.6-35B-A3B\n")
    assert run_import(project, [path], meta) == 0
    cells = {c["concurrency"]: c for c in imported(project)["measurements"]["decode"]}
    assert set(cells) == {2, 4}
    assert cells[4]["total_tokens_per_s"] == close(2 * raw["output_token_throughput"]["avg"])
    # The same export beside it in the folder: the per-concurrency file wins, not counted twice.
    _write(tmp_path / "sweep_aggregate" / "c2" / "profile_export_aiperf.json", raw)
    assert run_import(project, [tmp_path / "sweep_aggregate"], meta, "folder") == 0
    [cell] = imported(project, "folder")["measurements"]["decode"]
    assert cell["concurrency"] == 2


# --- detection ------------------------------------------------------------------------------------


def test_a_shipped_result_is_still_told_by_its_shape(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = REPO / "content" / "runs" / "ttp300-vllm-qwen3-4b.yaml"
    assert run_cli(project, "import", str(shipped), "--id", "again") == 1
    assert "this is already a sitegen result file" in refused(project, capsys, "again")


# --- llama-bench prompt sizes ---------------------------------------------------------------------


def test_several_prompt_sizes_are_series_and_the_headline_is_never_a_tiny_prompt(
    project: Path,
) -> None:
    rows = _load(ORIONZHEN)
    folder = project / "content" / "runs" / "rx7900xtx-llamacpp-gptoss20b"
    folder.mkdir()
    (folder / "llama-bench.json").write_bytes(ORIONZHEN.read_bytes())
    (folder / "run.yaml").write_text(
        "hardware:\n  type: discrete-gpu\n  count: 1\nengine:\n  name: llama.cpp\n"
        "run:\n  model: openai/gpt-oss-20b\n",
        encoding="utf-8",
    )
    assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0
    site = project / "_site"
    page = (site / "runs" / "rx7900xtx-llamacpp-gptoss20b" / "index.html").read_text(
        encoding="utf-8"
    )
    prefill = [r for r in rows if r["n_prompt"] > 0 and r["n_gen"] == 0]
    sizes = sorted({r["n_prompt"] for r in prefill})
    assert len(sizes) == 7 and sizes[0] == 128
    # A series (bar label) per prompt size; each prefill row of the run JSON keeps its prompt size,
    # from which the browser makes "All measurements"' Prompt tokens column
    # (tests/browser/test_browser_measurements.py).
    published = published_run(site / "runs" / "rx7900xtx-llamacpp-gptoss20b.json")
    kept = sorted({p["prompt_chunk_tokens"] for p in published["measurements"]["prefill"]})
    assert kept == sizes
    for size in sizes:
        assert f">pp{size}<" in page
    # The index's prefill headline: at the reference context (the 8,192 depth), the prompt size
    # nearest 512 that is at least 256 tokens, said beneath the figure.
    deepest = max(r["n_depth"] for r in prefill)
    chosen = min(
        (r for r in prefill if r["n_depth"] == deepest and r["n_prompt"] >= 256),
        key=lambda r: (abs(r["n_prompt"] - 512), -r["n_prompt"]),
    )
    assert chosen["n_prompt"] == 512
    index = html.unescape((site / "index.html").read_text(encoding="utf-8"))
    row = index[index.index("rx7900xtx-llamacpp-gptoss20b") :]
    row = row[: row.index("</tr>")] if "</tr>" in row else row[:4000]
    assert "512-token prompt" in row
    figure = re.escape(f"{chosen['avg_ts']:,.1f}")
    assert re.search(rf"{figure}\D+at 512-token prompt", re.sub("<[^>]+>", " ", row)), row[:800]


# --- vLLM bench sweep
# -------------------------------------------------------------------------------

VLLM_SUMMARY = SAMPLES / "vllm" / "er0080-sweep-v0.25.1-opt125m-mns4-c2-summary.json"
CPU_META = "hardware:\n  type: cpu\n  accelerator: EPYC\n  count: 1\nengine:\n  name: vLLM\n"


def _sweep_point(folder: Path, runs: list[dict[str, Any]]) -> None:
    folder.mkdir(parents=True)
    for run in runs:
        _write(folder / f"run={run['run_number']}.json", run)
    _write(folder / "summary.json", runs)


def test_a_sweep_over_input_length_is_contexts_and_another_setting_is_refused(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = _load(VLLM_SUMMARY)
    longer = [
        run | {"random_input_len": 256, "total_input_tokens": run["total_input_tokens"] * 8}
        for run in summary
    ]
    shorter = [run | {"random_input_len": 32} for run in summary]
    sweep = tmp_path / "sweep"
    _sweep_point(sweep / "SERVE--max_num_seqs=4-BENCH--random_input_len=32", shorter)
    _sweep_point(sweep / "SERVE--max_num_seqs=4-BENCH--random_input_len=256", longer)
    assert run_import(project, [sweep], write_meta(tmp_path, CPU_META)) == 0
    cells = {c["context_tokens"]: c for c in imported(project)["measurements"]["decode"]}
    expected = {
        round(sum(r["total_input_tokens"] / r["completed"] for r in runs) / len(runs)): runs
        for runs in (shorter, longer)
    }
    assert set(cells) == set(expected) and len(cells) == 2
    for context, runs in expected.items():
        assert cells[context]["total_tokens_per_s"] == close(
            sum(r["output_throughput"] for r in runs) / len(runs)
        )
        assert cells[context]["repeats"]["count"] == len(runs)
    other = tmp_path / "other"
    _sweep_point(other / "a", [run | {"random_output_len": 16} for run in summary])
    _sweep_point(other / "b", [run | {"random_output_len": 64} for run in summary])
    assert run_import(project, [other], write_meta(tmp_path, CPU_META), "other") == 1
    err = refused(project, capsys, "other")
    assert "different configurations (random_output_len: 16, 64)" in err
    assert "may vary only the context (input length) and the concurrency" in err


REAL_SWEEP = FORMATS / "vllm-sweep" / "vllm_sweep_v0.25.1"


def test_a_real_sweep_folder_of_two_server_settings_is_refused_naming_the_setting(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The folder as vllm bench sweep serve wrote it: two --serve-params points
    (max_num_seqs 4 and 8), each with run=0, run=1 and summary.json. Two server settings
    are two runs, not repeats of one."""
    points = sorted(REAL_SWEEP.iterdir())
    files = [path for point in points for path in point.glob("run=*.json")]
    settings = sorted({_load(path)["max_num_seqs"] for path in files})
    assert settings == [4, 8]
    assert run_import(project, [REAL_SWEEP], write_meta(tmp_path, CPU_META)) == 1
    err = refused(project, capsys)
    assert "different configurations (max_num_seqs: 4, 8)" in err
    assert str(REAL_SWEEP) in err


@pytest.mark.parametrize("setting", [4, 8])
def test_each_point_of_the_real_sweep_is_the_mean_of_its_run_files(
    project: Path, tmp_path: Path, setting: int
) -> None:
    point = REAL_SWEEP / f"SERVE--max_num_seqs={setting}-BENCH--max_concurrency=2-num_prompts=8"
    runs = [_load(point / f"run={n}.json") for n in (0, 1)]
    summary = _load(point / "summary.json")
    assert [run["run_number"] for run in summary] == [0, 1]  # the same runs again
    assert run_import(project, [point], write_meta(tmp_path, CPU_META)) == 0
    [cell] = imported(project)["measurements"]["decode"]
    assert cell["concurrency"] == runs[0]["max_concurrency"] == 2
    assert cell["repeats"]["count"] == 2  # not 4: summary.json repeats the run files
    assert cell["completed_requests"] == runs[0]["completed"] + runs[1]["completed"] == 16
    mean_total = (runs[0]["output_throughput"] + runs[1]["output_throughput"]) / 2
    assert cell["total_tokens_per_s"] == close(mean_total)
    assert cell["ttft_ms"] == close((runs[0]["median_ttft_ms"] + runs[1]["median_ttft_ms"]) / 2)
    inputs = [r["total_input_tokens"] / r["completed"] for r in runs]
    assert cell["context_tokens"] == round(sum(inputs) / 2)


def test_a_sweeps_warm_up_run_is_left_out(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """vllm bench sweep --warmup-num-prompts writes warmup.json beside the repeats with
    run_number -1 (vllm/benchmarks/sweep/serve.py, run_comb): not a measurement."""
    source = REAL_SWEEP / "SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8"
    point = tmp_path / "sweep" / source.name
    point.mkdir(parents=True)
    runs = []
    for name in ("run=0.json", "run=1.json", "summary.json"):
        (point / name).write_bytes((source / name).read_bytes())
        if name.startswith("run="):
            runs.append(_load(source / name))
    warm = runs[0] | {
        "run_number": -1,
        "num_prompts": 2,
        "completed": 2,
        "output_throughput": 1.0,
        "total_input_tokens": 64,
    }
    _write(point / "warmup.json", warm)
    assert run_import(project, [point.parent], write_meta(tmp_path, CPU_META)) == 0
    data = imported(project)
    [cell] = data["measurements"]["decode"]
    assert cell["repeats"]["count"] == 2
    mean_total = (runs[0]["output_throughput"] + runs[1]["output_throughput"]) / 2
    assert cell["total_tokens_per_s"] == close(mean_total)
    assert cell["completed_requests"] == 16
    assert any("1 warm-up run(s)" in note for note in data["provenance"]["notes"])
    only_warm = tmp_path / "warm-only" / "warmup.json"
    _write(only_warm, warm)
    assert run_import(project, [only_warm], write_meta(tmp_path, CPU_META), "warm") == 1
    err = refused(project, capsys, "warm")
    assert f"{only_warm}:" in err and "only warm-up runs (run_number -1" in err


def test_the_run_page_shows_the_repeats_and_their_spread(project: Path) -> None:
    summary = _load(VLLM_SUMMARY)
    folder = project / "content" / "runs" / "epyc-vllm-opt125m-sweep"
    _sweep_point(
        folder, summary
    )  # a content folder is flat: the point's run=N.json and summary.json
    (folder / "run.yaml").write_text(
        CPU_META + "run:\n  model: facebook/opt-125m\n", encoding="utf-8"
    )
    assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0
    page = (project / "_site" / "runs" / "epyc-vllm-opt125m-sweep" / "index.html").read_text(
        encoding="utf-8"
    )
    totals = sorted(run["output_throughput"] for run in summary)
    # The cell's figure, in the decode matrix: the repeats' mean.
    assert f"{sum(totals) / 2:,.1f}" in page
    # Its count and spread are in the run JSON, from which the browser makes "All measurements"'
    # Repeats column, "2 × (min–max tok/s)" (templates/static/run.js, repeatsSaid).
    published = published_run(project / "_site" / "runs" / "epyc-vllm-opt125m-sweep.json")
    [cell] = [c for c in published["measurements"]["decode"] if c.get("repeats")]
    spread = cell["repeats"]["spread"]["total_tokens_per_s"]
    assert cell["repeats"]["count"] == 2
    assert (spread["min"], spread["max"]) == pytest.approx((totals[0], totals[-1]), rel=1e-6)


# --- request-rate runs as load points (schema 1.2, issue 44's shape)
# --------------------------------

GUIDELLM_JSON = SAMPLES / "guidellm" / "danielkorat-intel-xpu-gpt-oss-20b-tp4-synchronous.json"


@pytest.mark.parametrize("kind", ["constant", "poisson"])
def test_a_guidellm_rate_benchmark_is_a_load_point(
    project: Path, tmp_path: Path, kind: str
) -> None:
    report = _load(GUIDELLM_JSON)
    entry = report["benchmarks"][0]
    entry["config"]["strategy"] = {"type_": kind, "rate": 0.5}
    path = _write(tmp_path / "rate.json", report)
    meta = write_meta(
        tmp_path,
        "hardware:\n  type: discrete-gpu\n  accelerator: Arc Pro B60\n  count: 4\n"
        "engine:\n  name: vLLM\n",
    )
    assert run_import(project, [path], meta) == 0
    data = imported(project)
    assert data["measurements"]["decode"] == []
    [point] = data["measurements"]["load_points"]
    metrics = entry["metrics"]
    assert point["request_rate"] == 0.5 and point["arrival"] == kind
    assert point["input_tokens_per_request"] == round(
        metrics["prompt_token_count"]["successful"]["mean"]
    )
    assert point["output_tokens_per_request"] == round(
        metrics["output_token_count"]["successful"]["mean"]
    )
    assert point["total_tokens_per_s"] == close(
        metrics["output_tokens_per_second"]["successful"]["mean"]
    )
    assert point["ttft_ms"] == close(metrics["time_to_first_token_ms"]["successful"]["median"])
    assert point["request_throughput"] == close(
        metrics["requests_per_second"]["successful"]["mean"]
    )
    assert point["completed_requests"] == metrics["request_totals"]["successful"]


def test_an_aiperf_request_rate_run_is_a_load_point(project: Path, tmp_path: Path) -> None:
    raw = _load(AIPERF_13)
    profiling = raw["input_config"]["phases"][1]
    profiling.pop("concurrency")
    profiling.update({"type": "request_rate", "rate": 1.5})
    path = _write(tmp_path / "rate" / "profile_export_aiperf.json", raw)
    assert run_import(project, [path], write_meta(tmp_path, RTX5090)) == 0
    [point] = imported(project)["measurements"]["load_points"]
    assert point["request_rate"] == 1.5 and point["arrival"] == "poisson"
    assert point["input_tokens_per_request"] == round(raw["input_sequence_length"]["avg"])
    assert point["total_tokens_per_s"] == close(raw["output_token_throughput"]["avg"])
    assert point["request_throughput"] == close(raw["request_throughput"]["avg"])
    assert point["ttft_ms"] == close(raw["time_to_first_token"]["p50"])


def test_an_export_without_input_lengths_is_refused_naming_the_field(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As akamaslabs/vllm-benchmark's AIPerf 0.11.0 exports (SOURCES.md) are: no input lengths."""
    raw = _load(AIPERF_13)
    del raw["input_sequence_length"]
    path = _write(tmp_path / "no-isl" / "profile_export_aiperf.json", raw)
    assert run_import(project, [path], write_meta(tmp_path, RTX5090)) == 1
    err = refused(project, capsys)
    assert (
        f"{path}:1: the file records no input tokens for this run (the export has no "
        "`input_sequence_length`), so its context cannot be told" in err
    )
