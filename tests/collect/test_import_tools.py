"""`sitegen import` of the real output of vLLM, SGLang, llama-bench, GuideLLM and
GenAI-Perf/AIPerf (tests/data/samples/, sources in each folder's SOURCES.md).

Every expected figure is read here from the raw file with json/yaml and the tool's unit
rules written out in the test, never with the adapters' code.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.kit.importing import (
    LLAMA,
    LLAMA_META,
    SAMPLES,
    cells_by_context,
    close,
    imported,
    load_json,
    load_lines,
    refused,
    run_import,
    write_meta,
)
from tests.kit.project import load_yaml, run_cli

VLLM = SAMPLES / "vllm"
SGLANG = SAMPLES / "sglang"
GUIDELLM = SAMPLES / "guidellm"
AIPERF = SAMPLES / "aiperf-genai-perf"


# --- vLLM -------------------------------------------------------------------------------------

B200_META = """\
hardware:
  type: discrete-gpu
  accelerator: B200
  count: 8
run:
  model: Qwen/Qwen3-32B
"""


def test_vllm_input_length_sweep_is_one_run(project: Path, tmp_path: Path) -> None:
    files = sorted(VLLM.glob("scicom-*.json"))
    assert run_import(project, files, write_meta(tmp_path, B200_META)) == 0
    data = imported(project)
    assert data["schema_version"] == 1.2
    assert data["engine"]["name"] == "vLLM"  # backend "vllm": vLLM's own client
    assert data["run"]["latency_statistic"] == "median"
    assert data["run"]["served_model_name"] == "/workspace/qwen3-32b"
    cells = cells_by_context(data)
    assert len(cells) == len(files) == 5
    for path in files:
        raw = load_json(path)
        # Context: measured mean input tokens; these five lengths are far apart, so each is its own.
        mean_input = raw["total_input_tokens"] / raw["completed"]
        cell = cells[(round(mean_input), raw["max_concurrency"])]
        assert cell["status"] == "valid"
        assert cell["total_tokens_per_s"] == close(raw["output_throughput"])
        assert cell["ttft_ms"] == close(raw["median_ttft_ms"])
        assert cell["time_between_tokens_ms"] == close(raw["median_tpot_ms"])
        assert cell["per_request_tokens_per_s"] == close(1000 / raw["median_tpot_ms"])
        assert cell["completed_requests"] == raw["completed"]
        assert cell["output_tokens"] == raw["total_output_tokens"]
        assert cell["measured_s"] == close(raw["duration"])
        assert cell["statistics"]["ttft_ms"] == {
            "mean": close(raw["mean_ttft_ms"]),
            "p50": close(raw["median_ttft_ms"]),
            "stddev": close(raw["std_ttft_ms"]),
            "p99": close(raw["p99_ttft_ms"]),
        }
        assert cell["statistics"]["time_between_tokens_ms"]["p99"] == close(raw["p99_tpot_ms"])
        assert cell["source_values"]["mean_input_tokens"] == close(mean_input)
        assert cell["source_values"]["median_itl_ms"] == close(raw["median_itl_ms"])
    notes = " ".join(data["provenance"]["notes"])
    assert "1000 / median TPOT (derived" in notes


def test_vllm_all_failed_run_is_refused(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = VLLM / "er0080-bench-serve-v0.25.1-opt125m-ALLFAILED.json"
    raw = load_json(path)
    assert raw["completed"] == 0 and raw["median_ttft_ms"] == 0.0  # what the tool wrote
    assert run_import(project, [path], write_meta(tmp_path, B200_META)) == 1
    err = refused(project, capsys)
    assert f"{path}:1: every request failed (completed 0, failed {raw['failed']})" in err
    assert "never drawn as zero" in err


def test_vllm_sweep_folder_with_repetitions(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The layout of `vllm bench sweep serve`: one folder per point, run=N.json plus summary.json.
    point = tmp_path / "sweep" / "SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8"
    point.mkdir(parents=True)
    shutil.copy(VLLM / "er0080-sweep-v0.25.1-opt125m-mns4-c2-run0.json", point / "run=0.json")
    shutil.copy(VLLM / "er0080-sweep-v0.25.1-opt125m-mns4-c2-summary.json", point / "summary.json")
    (point / "notes.log").write_text("not read\n")
    (tmp_path / "sweep" / "broken.json").write_text(
        '{"cut": '
    )  # a half-written file beside the sweep
    meta = write_meta(
        tmp_path,
        B200_META.replace("B200", "EPYC")
        .replace("discrete-gpu", "cpu")
        .replace("count: 8", "count: 1")
        + "engine:\n  name: vLLM\n  version: 0.25.1\n",
    )
    assert run_import(project, [tmp_path / "sweep"], meta) == 0
    assert (
        f"{tmp_path / 'sweep'}/broken.json: note: not read (invalid JSON: Expecting value (column "
        f"9)); skipped" in capsys.readouterr().err
    )
    summary = load_json(point / "summary.json")
    assert [run["run_number"] for run in summary] == [0, 1]
    [cell] = imported(project)["measurements"]["decode"]
    # Two repeats of a sweep point: the cell is their mean, with the spread and the count.
    assert cell["concurrency"] == 2
    assert cell["context_tokens"] == round(
        sum(r["total_input_tokens"] / r["completed"] for r in summary) / 2
    )
    totals = [run["output_throughput"] for run in summary]
    assert cell["total_tokens_per_s"] == close(sum(totals) / 2)
    assert cell["ttft_ms"] == close(sum(run["median_ttft_ms"] for run in summary) / 2)
    assert cell["time_between_tokens_ms"] == close(
        sum(run["median_tpot_ms"] for run in summary) / 2
    )
    assert cell["completed_requests"] == sum(run["completed"] for run in summary)
    spread = cell["repeats"]["spread"]["total_tokens_per_s"]
    assert cell["repeats"]["count"] == 2
    assert spread["min"] == close(min(totals)) and spread["max"] == close(max(totals))
    assert spread["stddev"] == close(abs(totals[0] - totals[1]) / math.sqrt(2))  # n − 1 = 1
    assert cell["source_values"]["repetitions"] == 2


def test_vllm_request_rate_run_is_kept_out_of_the_matrix(project: Path, tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    fixed = VLLM / "scicom-b200x8-qwen3-32b-tp8-ctx1024-c100.json"
    shutil.copy(fixed, folder / "fixed.json")
    rate_run = load_json(fixed) | {"max_concurrency": None, "request_rate": 4.0}
    (folder / "rate.json").write_text(json.dumps(rate_run))
    assert run_import(project, [folder], write_meta(tmp_path, B200_META)) == 0
    data = imported(project)
    assert [
        (c["concurrency"], c["total_tokens_per_s"]) for c in data["measurements"]["decode"]
    ] == [(100, close(load_json(fixed)["output_throughput"]))]
    # The rate-driven run is a load point of its own (schema 1.2), never a cell.
    assert [(p["request_rate"], p["arrival"]) for p in data["measurements"]["load_points"]] == [
        (4.0, "poisson" if rate_run["burstiness"] == 1 else "gamma")
    ]


def test_vllm_nan_statistic_is_left_out(project: Path, tmp_path: Path) -> None:
    # Python's json.dump writes a bare NaN for a statistic of no samples.
    text = (VLLM / "scicom-b200x8-qwen3-32b-tp8-ctx1024-c100.json").read_text(encoding="utf-8")
    raw = json.loads(text)
    assert '"std_ttft_ms": ' in text
    path = tmp_path / "nan.json"
    path.write_text(json.dumps(raw | {"std_ttft_ms": math.nan}))
    assert "NaN" in path.read_text()
    assert run_import(project, [path], write_meta(tmp_path, B200_META)) == 0
    [cell] = imported(project)["measurements"]["decode"]
    assert "stddev" not in cell["statistics"]["ttft_ms"]
    assert cell["statistics"]["ttft_ms"]["mean"] == close(raw["mean_ttft_ms"])


# --- SGLang -----------------------------------------------------------------------------------

H100_META = """\
hardware:
  type: discrete-gpu
  accelerator: H100 SXM
  count: 8
run:
  model: openai/gpt-oss-120b
"""


def test_sglang_files_of_an_input_sweep_are_one_run(project: Path, tmp_path: Path) -> None:
    files = sorted(SGLANG.glob("scicom-*.jsonl"))
    assert run_import(project, files, write_meta(tmp_path, H100_META)) == 0
    data = imported(project)
    first = load_lines(files[0])[0]
    assert data["engine"]["name"] == "sglang"
    assert data["engine"]["version"] == first["server_info"]["version"] == "0.5.8.post1"
    assert data["engine"]["parallelism"] == f"TP{first['server_info']['tp_size']}"
    cells = cells_by_context(data)
    assert len(cells) == 4
    for path in files:
        [line] = load_lines(path)
        mean_input = line["total_input_tokens"] / line["completed"]
        # Measured, not requested: SGLang drew about half of --random-input-len.
        assert mean_input < 0.6 * line["random_input_len"]
        cell = cells[(round(mean_input), line["max_concurrency"])]
        assert cell["total_tokens_per_s"] == close(line["output_throughput"])
        assert cell["ttft_ms"] == close(line["median_ttft_ms"])
        assert cell["time_between_tokens_ms"] == close(line["median_tpot_ms"])
        assert cell["per_request_tokens_per_s"] == close(1000 / line["median_tpot_ms"])
        assert cell["statistics"]["ttft_ms"]["mean"] == close(line["mean_ttft_ms"])
        assert cell["source_values"]["random_input_len"] == line["random_input_len"]
        assert cell["source_values"]["measured_concurrency"] == close(line["concurrency"])
        assert cell["source_values"]["request_rate"] == "inf"  # a bare Infinity in the file
        assert math.isinf(line["request_rate"])


def test_sglang_version_contradicting_run_yaml_is_an_error(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = SGLANG / "scicom-h100x8-gptoss120b-tp8-in1024-c100.jsonl"
    meta = write_meta(tmp_path, H100_META + "engine:\n  version: 0.5.9\n")
    assert run_import(project, [path], meta) == 1
    err = refused(project, capsys)
    assert (
        f"{meta}:8: /engine/version: '0.5.9' contradicts the raw file, which records SGLang "
        f"0.5.8.post1 "
        f"(server_info.version) ({path}:1, /server_info/version); correct run.yaml"
    ) in err


@pytest.mark.parametrize(
    "name",
    [
        "datacrunch-h200-llama_3_3_70b_online_output.jsonl",
        "datacrunch-h200-llama_405b_online_output.jsonl",
    ],
)
def test_sglang_request_rate_sweeps_are_refused(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    path = SGLANG / name
    assert run_import(project, [path], write_meta(tmp_path, H100_META)) == 1
    err = refused(project, capsys)
    for number, line in enumerate(load_lines(path), start=1):
        assert line["max_concurrency"] is None
        assert (
            f"{path}:{number}: driven by a request rate of {line['request_rate']:g}/s (no "
            f"max_concurrency)" in err
        )
    assert "rerun with --max-concurrency N" in err


@pytest.mark.parametrize(
    "name",
    [
        "datacrunch-h200-llama_3_3_70b_offline_output.jsonl",
        "datacrunch-h200-deepseek_dp_mla_output.jsonl",
    ],
)
def test_sglang_offline_runs_are_refused(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    path = SGLANG / name
    assert run_import(project, [path], write_meta(tmp_path, H100_META)) == 1
    err = refused(project, capsys)
    lines = load_lines(path)
    assert all(
        math.isinf(line["request_rate"]) and line["max_concurrency"] is None for line in lines
    )
    assert err.count(
        "every request sent at once (request_rate Infinity, no max_concurrency)"
    ) == len(lines)


# --- llama-bench ------------------------------------------------------------------------------


def check_llama_rows(data: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    prefill = {
        (p["context_tokens"], p["prompt_chunk_tokens"]): p for p in data["measurements"]["prefill"]
    }
    decode = {
        (c["context_tokens"], c["output_tokens_per_request"]): c
        for c in data["measurements"]["decode"]
    }
    pp = [row for row in rows if row["n_prompt"] > 0 and row["n_gen"] == 0]
    tg = [row for row in rows if row["n_gen"] > 0 and row["n_prompt"] == 0]
    assert (len(prefill), len(decode)) == (len(pp), len(tg))
    for row in pp:
        point = prefill[(row["n_depth"], row["n_prompt"])]
        assert point["prompt_tokens_per_s"] == close(row["avg_ts"])
        assert point["statistics"]["prompt_tokens_per_s"] == {
            "mean": close(row["avg_ts"]),
            "stddev": close(row["stddev_ts"]),
        }
    for row in tg:
        cell = decode[(row["n_depth"], row["n_gen"])]
        assert (cell["concurrency"], cell["status"]) == (1, "valid")
        assert cell["total_tokens_per_s"] == close(row["avg_ts"])
        assert cell["per_request_tokens_per_s"] == close(row["avg_ts"])
        assert (
            "ttft_ms" not in cell and "time_between_tokens_ms" not in cell
        )  # llama-bench measures neither
    first = rows[0]
    assert data["engine"]["name"] == "llama.cpp"
    assert data["engine"]["version"] == f"build {first['build_commit']} ({first['build_number']})"
    assert data["hardware"]["cpu"] == first["cpu_info"]
    assert data["run"]["latency_statistic"] == "mean"
    assert data["run"]["prefill_mode"] == "at-depth"
    assert data["run"]["date"] == min(row["test_time"] for row in rows)[:10]


def test_llama_bench_json(project: Path, tmp_path: Path) -> None:
    path = LLAMA / "brayniac-rtx4090-snowpiercer15b-q3kl.json"
    meta = write_meta(
        tmp_path, LLAMA_META.format(type="discrete-gpu", model="TheDrummer/Snowpiercer-15B-v1")
    )
    assert run_import(project, [path], meta) == 0
    data = imported(project)
    rows = load_json(path)
    check_llama_rows(data, rows)
    # The GPU the file records: "NVIDIA GeForce RTX 4090" → vendor NVIDIA.
    assert (data["hardware"]["vendor"], data["hardware"]["accelerator"]) == (
        "NVIDIA",
        "GeForce RTX 4090",
    )
    assert data["engine"]["backend"] == rows[0]["backends"] == "CUDA,RPC"


def test_llama_bench_jsonl_depth_sweep(project: Path, tmp_path: Path) -> None:
    path = LLAMA / "lhl-strixhalo-8060s-rocwmma-gptoss20b-f16-depth-sweep.jsonl"
    meta = write_meta(
        tmp_path, LLAMA_META.format(type="integrated-gpu", model="openai/gpt-oss-20b")
    )
    assert run_import(project, [path], meta) == 0
    data = imported(project)
    rows = load_lines(path)
    check_llama_rows(data, rows)
    assert sorted({c["context_tokens"] for c in data["measurements"]["decode"]}) == sorted(
        {row["n_depth"] for row in rows}
    )
    assert data["hardware"]["accelerator"] == rows[0]["gpu_info"] == "Radeon 8060S Graphics"


def test_llama_bench_grid_of_depths_and_lengths(project: Path, tmp_path: Path) -> None:
    path = LLAMA / "orionzhen-rx7900xtx-rocm712-gptoss20b-depth-sweep.json"
    # run.yaml may restate the recorded GPU in its own words ("AMD Radeon RX 7900 XTX").
    meta = write_meta(
        tmp_path,
        "hardware:\n  type: discrete-gpu\n  accelerator: RX 7900 XTX\n  count: 1\n"
        "run:\n  model: openai/gpt-oss-20b\n",
    )
    assert run_import(project, [path], meta) == 0
    check_llama_rows(imported(project), load_json(path))


def test_llama_bench_gpu_contradicting_run_yaml(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = LLAMA / "brayniac-rtx4090-snowpiercer15b-q3kl.json"
    meta = write_meta(
        tmp_path,
        "hardware:\n  type: discrete-gpu\n  accelerator: H100\n  count: 1\nrun:\n  model: x/y\n",
    )
    assert run_import(project, [path], meta) == 1
    err = refused(project, capsys)
    line = next(
        number
        for number, text in enumerate(path.read_text().splitlines(), start=1)
        if '"gpu_info"' in text
    )
    assert (
        f"{meta}:3: /hardware/accelerator: 'H100' contradicts the raw file, which records the GPU "
        f"'NVIDIA GeForce RTX 4090' (gpu_info) ({path}:{line}, /0/gpu_info)"
    ) in err


def test_llama_bench_build_contradicting_run_yaml(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = LLAMA / "brayniac-rtx4090-snowpiercer15b-q3kl.json"
    [row, _] = load_json(path)
    meta = write_meta(
        tmp_path,
        LLAMA_META.format(type="discrete-gpu", model="x/y") + "engine:\n  version: b6000\n",
    )
    assert run_import(project, [path], meta) == 1
    err = refused(project, capsys)
    assert (
        f"{meta}:7: /engine/version: 'b6000' contradicts the raw file, which records llama.cpp "
        f"build "
        f"{row['build_commit']} ({row['build_number']})"
    ) in err
    # The same build in other words is no contradiction.
    restated = write_meta(
        tmp_path,
        LLAMA_META.format(type="discrete-gpu", model="x/y")
        + f"engine:\n  version: b{row['build_number']}\n",
    )
    assert run_import(project, [path], restated) == 0


def test_llama_bench_file_mixing_builds_is_refused(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mixed = tmp_path / "mixed.jsonl"
    rows = load_json(LLAMA / "brayniac-rtx4090-snowpiercer15b-q3kl.json")
    rows += load_lines(LLAMA / "lhl-strixhalo-8060s-rocwmma-gptoss20b-f16-depth-sweep.jsonl")
    mixed.write_text("".join(json.dumps(row) + "\n" for row in rows))
    meta = write_meta(tmp_path, LLAMA_META.format(type="discrete-gpu", model="x/y"))
    assert run_import(project, [mixed], meta) == 1
    err = refused(project, capsys)
    assert (
        f"{mixed}:1: the file mixes several configurations (build_commit: 1c1409e1, 247e5c6e; "
        f"backends: " in err
    )
    assert "split the rows into one file per configuration" in err


# --- GuideLLM ---------------------------------------------------------------------------------

GUIDELLM_META = (
    "hardware:\n  type: discrete-gpu\n  accelerator: Arc Pro B60\n  count: 4\nengine:\n  name: "
    "vLLM\n"
)


@pytest.mark.parametrize(
    "name",
    [
        "danielkorat-intel-xpu-gpt-oss-20b-tp4-synchronous.json",
        "jhurlocker-llama-3.2-3b-synchronous-benchmark-results.yaml",
    ],
)
def test_guidellm_reports(project: Path, tmp_path: Path, name: str) -> None:
    path = GUIDELLM / name
    assert run_import(project, [path], write_meta(tmp_path, GUIDELLM_META)) == 0
    data = imported(project)
    report = load_yaml(path.read_text(encoding="utf-8"))  # JSON is YAML too
    [entry] = report["benchmarks"]
    metrics = entry["metrics"]

    def successful(name: str) -> dict[str, Any]:
        values: dict[str, Any] = metrics[name]["successful"]
        return values

    [cell] = data["measurements"]["decode"]
    assert cell["concurrency"] == 1  # the synchronous profile: one request at a time
    assert cell["context_tokens"] == round(successful("prompt_token_count")["mean"])
    assert cell["total_tokens_per_s"] == close(successful("output_tokens_per_second")["mean"])
    assert cell["ttft_ms"] == close(successful("time_to_first_token_ms")["median"])
    assert cell["time_between_tokens_ms"] == close(successful("inter_token_latency_ms")["median"])
    assert cell["per_request_tokens_per_s"] == close(
        1000 / successful("inter_token_latency_ms")["median"]
    )
    ttft = successful("time_to_first_token_ms")
    assert cell["statistics"]["ttft_ms"]["p99"] == close(ttft["percentiles"]["p99"])
    assert cell["statistics"]["ttft_ms"]["stddev"] == close(ttft["std_dev"])
    # The figures cover the measured window: the successful requests the latencies were taken over,
    # not the scheduler's requests_made, which also counts warm-up and cool-down.
    totals = entry.get("request_totals") or metrics["request_totals"]
    assert cell["completed_requests"] == totals["successful"] == ttft["count"]
    assert cell["source_values"].get("incomplete_requests", 0) == totals["incomplete"]
    made = entry.get("scheduler_metrics", {}).get("requests_made")
    if made is not None:
        assert made["successful"] > totals["successful"]  # 30 made, 25 measured in this report
        assert (
            cell["source_values"]["warmup_cooldown_requests"]
            == made["successful"] - totals["successful"]
        )
        assert cell["source_values"]["warmup_duration_s"] == close(entry["warmup_duration"])


# --- GenAI-Perf and AIPerf ----------------------------------------------------------------------


def test_genai_perf_concurrency_sweep_folder(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "artifacts"
    files = sorted(AIPERF.glob("genaiperf-*.json"))
    for path in files:
        level = load_json(path)["input_config"]["concurrency"]
        (folder / f"meta_llama3-8b-instruct-openai-chat-concurrency{level}").mkdir(parents=True)
        shutil.copy(
            path,
            folder
            / f"meta_llama3-8b-instruct-openai-chat-concurrency{level}"
            / "profile_export_genai_perf.json",
        )
    (folder / "inputs.json").write_text('{"data": []}')  # a tool input beside the results: skipped
    meta = write_meta(
        tmp_path,
        "hardware:\n  type: discrete-gpu\n  accelerator: H100\n  count: 1\n"
        "engine:\n  name: TensorRT-LLM (NIM)\n",
    )
    assert run_import(project, [folder], meta) == 0
    assert (
        f"{folder}/inputs.json: note: not a benchmark result sitegen reads; skipped"
        in capsys.readouterr().err
    )
    data = imported(project)
    cells = data["measurements"]["decode"]
    assert len(cells) == len(files) == 7
    assert {c["context_tokens"] for c in cells} == {200}  # 200.0 to 200.03 measured: one context
    by_level = {c["concurrency"]: c for c in cells}
    for path in files:
        raw = load_json(path)
        cell = by_level[raw["input_config"]["concurrency"]]
        assert cell["total_tokens_per_s"] == close(raw["output_token_throughput"]["avg"])
        assert cell["ttft_ms"] == close(raw["time_to_first_token"]["p50"])
        assert cell["time_between_tokens_ms"] == close(raw["inter_token_latency"]["p50"])
        # Not output_token_throughput_per_request, which includes the first token.
        assert cell["per_request_tokens_per_s"] == close(1000 / raw["inter_token_latency"]["p50"])
        assert cell["statistics"]["ttft_ms"]["p90"] == close(raw["time_to_first_token"]["p90"])
        assert cell["source_values"]["mean_input_tokens"] == close(
            raw["input_sequence_length"]["avg"]
        )


def test_aiperf_exports_with_gpu_telemetry(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = sorted(AIPERF.glob("aiperf-*.json"))
    meta = write_meta(tmp_path, "hardware:\n  type: discrete-gpu\nengine:\n  name: vLLM\n")
    assert run_import(project, files, meta) == 0
    data = imported(project)
    first = load_json(files[0])
    gpus = [
        gpu
        for endpoint in first["telemetry_data"]["endpoints"].values()
        for gpu in endpoint["gpus"].values()
    ]
    assert {"NVIDIA " + data["hardware"]["accelerator"]} == {gpu["gpu_name"] for gpu in gpus}
    # Two DCGM exporters report the same GPU: counted once, by its UUID.
    assert (
        len(gpus) == 2 and data["hardware"]["count"] == len({gpu["gpu_uuid"] for gpu in gpus}) == 1
    )
    by_level = {c["concurrency"]: c for c in data["measurements"]["decode"]}
    assert len(by_level) == 3
    for path in files:
        raw = load_json(path)
        cell = by_level[raw["input_config"]["loadgen"]["concurrency"]]
        assert cell["context_tokens"] == round(raw["input_sequence_length"]["avg"])
        assert cell["total_tokens_per_s"] == close(raw["output_token_throughput"]["avg"])
        assert cell["per_request_tokens_per_s"] == close(
            raw["output_token_throughput_per_user"]["p50"]
        )
        assert cell["ttft_ms"] == close(raw["time_to_first_token"]["p50"])
        assert cell["completed_requests"] == raw["request_count"]["avg"]
    capsys.readouterr()
    wrong = write_meta(
        tmp_path,
        "hardware:\n  type: discrete-gpu\n  accelerator: H100\n  count: 1\nengine:\n  name: vLLM\n",
    )
    assert run_import(project, files, wrong, "other") == 1
    err = refused(project, capsys, "other")
    assert (
        "/hardware/accelerator: 'H100' contradicts the raw file, which records the GPU "
        "'NVIDIA RTX 6000 Ada Generation' (telemetry gpu_name)" in err
    )


# --- every sample, errors, collect and build ----------------------------------------------------


def test_every_sample_is_read_or_refused_with_a_reason(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    meta = write_meta(
        tmp_path,
        "hardware:\n  type: discrete-gpu\n  count: 1\nengine:\n  name: x\nrun:\n  model: m\n",
    )
    samples = sorted(p for p in SAMPLES.rglob("*") if p.suffix in (".json", ".jsonl", ".yaml"))
    assert len(samples) == 89
    for index, path in enumerate(samples):
        capsys.readouterr()
        code = run_import(project, [path], meta, f"sample-{index}")
        err = capsys.readouterr().err
        assert "Traceback" not in err
        if code == 0:
            continue
        # Refused: every message names this file or run.yaml and says what is wrong.
        problems = err.splitlines()[:-1]
        assert problems and all(line.startswith((str(path), str(meta))) for line in problems), err


def test_a_file_of_no_known_format_is_refused(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "results.json"
    path.write_text('{"throughput": 12}\n')
    assert run_import(project, [path], write_meta(tmp_path, B200_META)) == 1
    err = refused(project, capsys)
    assert (
        f"{path}:1: not a raw format sitegen can import; the formats it reads, and what tells each "
        f"apart" in err
    )
    for told in (
        "a sitegen result file: `schema_version` with `hardware`",
        "GuideLLM report: a `benchmarks` list",
        "AIPerf profile export: `input_config` with `loadgen` or `phases`",
        "llama-bench output: rows with `build_commit`",
        "vLLM bench serve result: `model_id`",
    ):
        assert told in err


def test_files_of_two_tools_are_not_one_run(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = [
        VLLM / "scicom-b200x8-qwen3-32b-tp8-ctx1024-c100.json",
        AIPERF / "genaiperf-nim-llama3-8b-c1.json",
    ]
    assert run_import(project, paths, write_meta(tmp_path, B200_META)) == 1
    assert "these files are of different tools" in refused(project, capsys)


def test_a_sweep_folder_in_content_is_collected_and_its_run_page_built(project: Path) -> None:
    folder = project / "content" / "runs" / "nim-llama3-8b-sweep"
    folder.mkdir()
    files = sorted(AIPERF.glob("genaiperf-*.json"))
    for path in files:
        shutil.copy(path, folder / path.name)
    (folder / "run.yaml").write_text(
        "hardware:\n  type: discrete-gpu\n  accelerator: H100\n  count: 1\n"
        "engine:\n  name: TensorRT-LLM (NIM)\n"
    )
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    page = (project / "_site" / "runs" / "nim-llama3-8b-sweep" / "index.html").read_text(
        encoding="utf-8"
    )
    assert "meta/llama3-8b-instruct" in page
    for path in files:
        raw = load_json(path)
        # The page shows total tok/s to one decimal with thousands separators.
        assert f"{raw['output_token_throughput']['avg']:,.1f}" in page
