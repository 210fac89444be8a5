"""The llm-inference-bench adapter: the shipped sample gives the shipped seed run, and
every other mode and version imports or is refused with a located message."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.collect.adapters.raw import adapt_raw, parse_raw, read_meta, read_raw_file
from sitegen.errors import SitegenError
from sitegen.parse import Document, parse_yaml
from tests.kit.project import DATA, REPO, SEED_RUN_ID
from tests.kit.raw_samples import (
    RUN_META,
    as_document,
    bench,
    cell,
    failed_cell,
    lil_document,
    meta_document,
    prefill_row,
    v0418,
    v060,
)

SAMPLE = DATA / "upstream" / "sample_benchmark_results.json"
SEED_META = REPO / "tests" / "data" / "import" / "seed-run.yaml"
SEED_FILE = REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml"


def adapt(data: Any, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    meta_doc = meta_document(RUN_META if meta is None else meta)
    result: dict[str, Any] = adapt_raw(as_document(data), meta_doc, "content/runs/x").data
    return result


def refusal(data: Any, meta: dict[str, Any] | None = None) -> list[str]:
    with pytest.raises(SitegenError) as caught:
        adapt(data, meta)
    return [str(problem) for problem in caught.value.problems]


def cells(result: dict[str, Any]) -> dict[tuple[int, int], dict[str, Any]]:
    return {(c["context_tokens"], c["concurrency"]): c for c in result["measurements"]["decode"]}


# --- the key acceptance test: the shipped sample is the shipped seed run ------------------------


@pytest.fixture(scope="module")
def seed_import() -> Document:
    return adapt_raw(
        read_raw_file(SAMPLE, "sample_benchmark_results.json"),
        read_meta(SEED_META, "seed-run.yaml"),
        "sample",
    )


def test_sample_imports_as_exactly_the_shipped_seed_run(seed_import: Document) -> None:
    shipped = parse_yaml(str(SEED_FILE), SEED_FILE.read_bytes()).data
    # The files import read, by digest, are listed by import itself
    # (tests/collect/test_import.py); the adapter does not read files, so they are not its to list.
    del shipped["provenance"]["raw_files"]
    for section in ("schema_version", "hardware", "engine", "run", "provenance"):
        assert seed_import.data[section] == shipped[section], section
    assert seed_import.data["measurements"]["prefill"] == shipped["measurements"]["prefill"]
    for mine, theirs in zip(
        seed_import.data["measurements"]["decode"], shipped["measurements"]["decode"], strict=True
    ):
        assert mine == theirs
    assert seed_import.data == shipped


def test_sample_gives_nine_prefill_rows_and_sixty_four_cells(seed_import: Document) -> None:
    measurements = seed_import.data["measurements"]
    assert [p["context_tokens"] for p in measurements["prefill"]] == [
        8192,
        16384,
        32768,
        65536,
        131072,
        262144,
        524288,
        1043456,
        1048576,
    ]
    assert measurements["prefill"][-1] == {
        "context_tokens": 1048576,
        "prompt_tokens": 1030890,
        "prompt_tokens_per_s": 6686.0,
        "ttft_ms": 154185.0,
        "samples": 1,
    }
    assert len(measurements["decode"]) == 64
    assert Counter(c["status"] for c in measurements["decode"]) == {
        "valid": 42,
        "requests_queued": 1,
        "over_capacity": 21,
    }
    by_cell = cells(seed_import.data)
    assert by_cell[(1043456, 2)]["status"] == "requests_queued"
    # 512k × 2 is "underfilled" (1.9 active) in the tool, but has no queue: valid, as on the page.
    assert by_cell[(524288, 2)]["status"] == "valid"
    assert by_cell[(524288, 2)]["average_active_requests"] == 1.9
    assert by_cell[(32768, 128)] == {
        "context_tokens": 32768,
        "concurrency": 128,
        "status": "over_capacity",
    }
    assert by_cell[(32768, 64)]["status"] == "valid"


def test_sample_figures_use_the_page_columns(seed_import: Document) -> None:
    c = cells(seed_import.data)[(8192, 128)]
    # per_request_avg_tps would be 4695.4 / 128 = 36.68; the page's per-request column is 33.0.
    assert c["per_request_tokens_per_s"] == 33.019646
    assert c["total_tokens_per_s"] == 4695.395405
    assert c["ttft_ms"] == 1316.929858
    assert c["time_between_tokens_ms"] == 30.319164
    assert (c["average_active_requests"], c["completed_requests"], c["output_tokens"]) == (
        128,
        0,
        140770,
    )
    assert c["measured_s"] == 29.980436


def test_sample_run_facts_come_from_the_file_and_run_yaml(seed_import: Document) -> None:
    data = seed_import.data
    assert (
        data["run"]["served_model_name"] == "deepseek"
    )  # metadata.model, run.yaml has only the model id
    assert data["run"]["model"] == "deepseek-ai/DeepSeek-V4-Flash-DSpark"
    assert data["hardware"]["accelerator"] == "H200 NVL" and data["hardware"]["vendor"] == "NVIDIA"
    assert data["hardware"]["driver"] == "580.95.05"
    assert data["engine"]["name"] == "sglang"
    assert data["provenance"] == {
        "method": "imported",
        "imported_from": "llm-inference-bench 0.4.29 benchmark_results.json",
        "notes": [
            "21 over-capacity cells rebuilt from the file's metadata with the tool's rule: "
            "requests × "
            "(context + 4,096 max output tokens) > 3,000,000 KV-cache tokens."
        ],
    }


# --- mapping rules on small files ----------------------------------------------------------------


def test_synthetic_run_maps_every_field() -> None:
    result = adapt(bench())
    assert result["hardware"] == {
        "type": "discrete-gpu",
        "vendor": "NVIDIA",
        "accelerator": "H100 80GB HBM3",
        "count": 2,
        "driver": "570.86.15",
        "os": "linux",
        "memory_per_device_gb": 80,
    }
    assert result["engine"] == {"name": "vLLM", "version": "0.11.2", "quantization": "FP8"}
    assert result["run"] == {
        "benchmark_tool": "llm-inference-bench",
        "benchmark_tool_version": "0.4.29",
        "model": "Qwen/Qwen3-30B-A3B-FP8",
        "served_model_name": "served-name",
        "max_output_tokens": 2048,
        "decode_mode": "fixed-duration",
        "time_per_measurement_s": 30.0,
        "prefill_mode": "decode-warmup",
        "date": "2026-03-04",
        "latency_statistic": "mean",
        "ttft_prompt_cache": "warm",
    }
    assert result["measurements"]["prefill"][0] == {
        "context_tokens": 8192,
        "prompt_tokens": 8201,
        "prompt_tokens_per_s": 10237.0,
        "ttft_ms": 801.2345,
        "samples": 1,
    }
    assert cells(result)[(8192, 4)] == {
        "context_tokens": 8192,
        "concurrency": 4,
        "status": "valid",
        "total_tokens_per_s": 100.123457,
        "per_request_tokens_per_s": 98.765432,
        "ttft_ms": 250.123457,
        "time_between_tokens_ms": 10.123457,
        "average_active_requests": 4,
        "completed_requests": 0,
        "output_tokens": 3003,
        "measured_s": 30.001235,
        # raw_samples.cell's _avg/_p50/_p90/_p99, seconds × 1000 for the latencies
        "statistics": {
            "ttft_ms": {"mean": 250.123457, "p50": 250.0, "p90": 300.0, "p99": 310.0},
            "time_between_tokens_ms": {"mean": 10.123457, "p50": 10.1, "p90": 11.0, "p99": 12.0},
            "per_request_tokens_per_s": {
                "mean": 98.765432,
                "p50": 99.0,
                "p90": 100.0,
                "p99": 101.0,
            },
        },
    }
    assert "notes" not in result["provenance"]


def test_run_yaml_wins_over_the_raw_file() -> None:
    meta = {
        "hardware": {"type": "discrete-gpu", "accelerator": "H100 SXM", "count": 1},
        "engine": {"name": "vLLM-fork", "version": "0.12.0"},
        "run": {"model": "org/model", "served_model_name": "other", "date": "2026-01-01"},
    }
    result = adapt(bench(), meta)
    assert result["hardware"]["accelerator"] == "H100 SXM" and result["hardware"]["count"] == 1
    # The vendor read with nvidia-smi's name does not outlive that name.
    assert "vendor" not in result["hardware"]
    assert result["engine"]["name"] == "vLLM-fork" and result["engine"]["version"] == "0.12.0"
    assert (result["run"]["served_model_name"], result["run"]["date"]) == ("other", "2026-01-01")


def test_served_model_is_the_model_when_run_yaml_has_none() -> None:
    meta = {"hardware": {"type": "discrete-gpu"}}
    result = adapt(bench(), meta)
    assert result["run"]["model"] == "served-name"
    assert result["run"]["served_model_name"] == "served-name"


def test_zero_statistics_are_left_out_but_zero_counts_kept() -> None:
    data = bench()
    data["results"][0].update(
        ttft_avg=0.0,
        inter_token_latency_avg=0.0,
        avg_running_reqs=0,
        completed_request_count=0,
        output_tps_per_user_avg=0.0,
    )
    first = cells(adapt(data))[(8192, 1)]
    for name in (
        "ttft_ms",
        "time_between_tokens_ms",
        "average_active_requests",
        "per_request_tokens_per_s",
    ):
        assert name not in first
    assert first["completed_requests"] == 0
    assert first["total_tokens_per_s"] == 100.123457


@pytest.mark.parametrize(
    ("changes", "status"),
    [
        ({"avg_queue_reqs": 0.1}, "requests_queued"),
        ({"queue_fraction": 0.05}, "requests_queued"),
        ({"underfilled": True, "avg_running_reqs": 3.5, "capacity_limited": True}, "valid"),
        ({"max_running_reqs": 3, "avg_running_reqs": 3.9}, "valid"),
    ],
)
def test_requests_queued_follows_the_queue_signals_only(
    changes: dict[str, Any], status: str
) -> None:
    data = bench()
    data["results"][1].update(changes)  # 8k × 4
    assert cells(adapt(data))[(8192, 4)]["status"] == status


def test_one_request_is_never_queued() -> None:
    data = bench()
    data["results"][0].update(avg_queue_reqs=0.5, queue_fraction=0.5)  # 8k × 1
    assert cells(adapt(data))[(8192, 1)]["status"] == "valid"


def test_a_cell_whose_request_loop_failed_is_failed_without_figures() -> None:
    data = bench()
    data["results"][3] = failed_cell(65536, 4)
    result = adapt(data)
    assert cells(result)[(65536, 4)] == {
        "context_tokens": 65536,
        "concurrency": 4,
        "status": "failed",
        "note": "the tool's request loop failed for this cell: it recorded no statistics",
    }
    assert result["provenance"]["notes"] == [
        "1 decode cell failed in the tool and is marked failed without figures (see each cell's "
        "note)."
    ]


def test_zero_throughput_with_a_source_is_failed_with_the_source_named() -> None:
    data = bench()
    data["results"][0].update(aggregate_tps=0.0, aggregate_source="none")
    assert cells(adapt(data))[(8192, 1)]["note"] == (
        "no output tokens were counted in the measured window (aggregate source 'none')"
    )


def test_missing_cells_are_over_capacity_by_the_tool_rule_or_not_run() -> None:
    # 64k × 4 needs 4 × (65,536 + 2,048 max output) = 270,336 tokens: over a 265,000 budget only
    # because of the output tokens; 8k × 4 needs 40,960 and was simply not run.
    data = bench(max_total_tokens=265000)
    data["results"] = data["results"][:1] + data["results"][2:3]  # keep 8k × 1 and 64k × 1
    result = adapt(data)
    by_cell = cells(result)
    assert by_cell[(65536, 4)] == {
        "context_tokens": 65536,
        "concurrency": 4,
        "status": "over_capacity",
    }
    assert by_cell[(8192, 4)]["status"] == "not_run"
    assert "not run" in by_cell[(8192, 4)]["note"]
    assert result["provenance"]["notes"] == [
        "1 over-capacity cell rebuilt from the file's metadata with the tool's rule: requests × "
        "(context + 2,048 max output tokens) > 265,000 KV-cache tokens.",
        "1 cell of the file's matrix has no result although within the KV cache; marked not_run.",
    ]


def test_without_a_kv_budget_no_cell_is_over_capacity() -> None:
    data = bench(max_total_tokens=0)
    data["results"] = data["results"][:3]
    assert cells(adapt(data))[(65536, 4)]["status"] == "not_run"


def test_skipped_prefill_rows_are_left_out_not_zero() -> None:
    data = bench(prefill_mode="standalone_cold")
    data["prefill"]["65536"] = prefill_row(65536, 0.0, 0.0, samples=0)
    result = adapt(data)
    assert [p["context_tokens"] for p in result["measurements"]["prefill"]] == [8192]
    assert result["run"]["prefill_mode"] == "standalone-cold"
    assert result["provenance"]["notes"] == [
        "Prefill rows the tool skipped (0 samples) are left out: 65,536 tokens of context."
    ]


def test_burst_results_are_not_imported_and_say_so() -> None:
    data = bench(run_burst=True)
    data["burst_results"] = [cell(8192, 1, benchmark_mode="burst-e2e", aggregate_tps=5.0)]
    result = adapt(data)
    assert cells(result)[(8192, 1)]["total_tokens_per_s"] == 100.123457
    assert len(result["measurements"]["decode"]) == 4
    assert any("1 burst end-to-end cell" in note for note in result["provenance"]["notes"])


def test_unknown_keys_in_the_raw_file_are_accepted() -> None:
    data = bench()
    data["future_block"] = {"anything": [1, 2]}
    data["metadata"]["new_flag"] = True
    data["results"][0]["new_statistic_p999"] = 1.5
    assert cells(adapt(data))[(8192, 1)]["status"] == "valid"


def test_engine_name_missing_from_a_proxy_run_must_come_from_run_yaml() -> None:
    messages = refusal(bench(engine="openai_proxy"))
    assert messages == [
        "run.yaml:4: /engine: missing required field 'name'; the raw file does not tell it, "
        "so give it in run.yaml"
    ]


# --- versions and modes
# ----------------------------------------------------------------------------


def test_0_4_18_without_run_summary_or_temperature() -> None:
    result = adapt(v0418(bench()))
    assert result["run"]["benchmark_tool_version"] == "0.4.18"
    assert len(result["measurements"]["decode"]) == 4
    assert (
        result["provenance"]["imported_from"] == "llm-inference-bench 0.4.18 benchmark_results.json"
    )


def test_0_6_0_with_loop_fields_and_null_summary_values() -> None:
    data = v060(bench())
    data["results"][2]["loop_detected"] = True
    data["results"][3]["failure_reason"] = "stream error: connection reset"
    data["summary_table"]["65536"] = {"1": None, "4": None}
    result = adapt(data)
    by_cell = cells(result)
    assert by_cell[(8192, 4)]["status"] == "valid"
    assert by_cell[(65536, 1)] == {
        "context_tokens": 65536,
        "concurrency": 1,
        "status": "failed",
        "note": (
            "invalidated by the tool's repetition (loop) guard: the model kept repeating itself"
        ),
    }
    assert by_cell[(65536, 4)]["note"] == "failed in the tool: stream error: connection reset"
    assert "total_tokens_per_s" not in by_cell[(65536, 4)]


def test_newer_versions_import_with_a_note() -> None:
    result = adapt(bench(version="0.7.3"))
    assert result["run"]["benchmark_tool_version"] == "0.7.3"
    assert result["provenance"]["notes"] == [
        "Written by llm-inference-bench 0.7.3; sitegen's importer was checked against 0.4.x–0.6.x "
        "files and "
        "read it with their field meanings."
    ]


def test_prefill_only_imports_prefill_and_no_decode_matrix() -> None:
    data = bench(prefill_only=True, standalone_prefill=True, prefill_mode="standalone_cold")
    data["results"] = []
    data["summary_table"] = {}
    result = adapt(data)
    assert result["measurements"]["decode"] == []
    assert len(result["measurements"]["prefill"]) == 2
    assert "decode_mode" not in result["run"] and "time_per_measurement_s" not in result["run"]


def test_skip_prefill_imports_decode_only() -> None:
    data = bench(skip_prefill=True, prefill_mode="skipped")
    data["prefill"] = {}
    result = adapt(data)
    assert result["measurements"]["prefill"] == []
    assert result["run"]["prefill_mode"] == "not-measured"
    assert len(result["measurements"]["decode"]) == 4


def test_request_count_mode() -> None:
    data = bench(
        decode_mode="request-count",
        primary_decode_layer="burst_e2e_decode",
        request_count=64,
        warmup_request_count=8,
    )
    for result_cell in data["results"]:
        result_cell.update(
            benchmark_mode="request-count",
            aggregate_source="openai_completed_usage",
            measurement_wall_seconds=0.0,
            measurement_seconds=41.5,
        )
    result = adapt(data)
    assert result["run"]["decode_mode"] == "fixed-request-count"
    assert "time_per_measurement_s" not in result["run"]
    assert cells(result)[(8192, 4)]["measured_s"] == 41.5
    assert result["provenance"]["notes"] == [
        "Each decode cell measured 64 requests after 8 warm-up requests (--request-count)."
    ]


def test_request_count_notes_count_in_the_singular() -> None:
    result = adapt(bench(decode_mode="request-count", request_count=1, warmup_request_count=1))
    assert result["provenance"]["notes"] == [
        "Each decode cell measured 1 request after 1 warm-up request (--request-count)."
    ]


def test_time_per_measurement_without_decode_mode() -> None:
    """Files written before decode_mode existed still say how long each cell ran."""
    data = bench(duration_per_test=20.0)
    del data["metadata"]["decode_mode"]
    result = adapt(data)
    assert result["run"]["time_per_measurement_s"] == 20.0
    assert "decode_mode" not in result["run"]


def test_every_percentile_of_the_raw_cells_is_kept() -> None:
    data = bench()
    data["results"][1].update(
        ttft_p99=0.512345,
        ttft_p999=0.7,
        inter_token_latency_p90=0.0301,
        output_tps_per_user_p50=0.0,
        time_to_second_token_p99=0.5,
    )
    statistics = cells(adapt(data))[(8192, 4)]["statistics"]
    assert statistics["ttft_ms"]["p99"] == 512.345
    assert statistics["time_between_tokens_ms"]["p90"] == 30.1
    assert "p50" not in statistics["per_request_tokens_per_s"]  # 0 is the tool's "no samples"
    assert set(statistics) == {"ttft_ms", "time_between_tokens_ms", "per_request_tokens_per_s"}


def test_sample_statistics_are_the_raw_values(seed_import: Document) -> None:
    """Every _avg/_pNN of TTFT, time between tokens and per-request tok/s in the sample file, read
    straight from the JSON here, is in the imported cell with the same value."""
    raw = json.loads(SAMPLE.read_text(encoding="utf-8"))
    imported = {
        (c["context_tokens"], c["concurrency"]): c
        for c in seed_import.data["measurements"]["decode"]
    }
    names = {
        "ttft": ("ttft_ms", 1000),
        "inter_token_latency": ("time_between_tokens_ms", 1000),
        "output_tps_per_user": ("per_request_tokens_per_s", 1),
    }
    checked = 0
    for raw_cell in raw["results"]:
        statistics = imported[(raw_cell["context_tokens"], raw_cell["concurrency"])]["statistics"]
        for prefix, (figure, scale) in names.items():
            for suffix, name in (("avg", "mean"), ("p50", "p50"), ("p90", "p90"), ("p99", "p99")):
                assert statistics[figure][name] == pytest.approx(
                    raw_cell[f"{prefix}_{suffix}"] * scale, abs=1e-6
                )
                checked += 1
    assert checked == 43 * 12
    assert seed_import.data["run"]["latency_statistic"] == "mean"
    # The headline figures are the means: the statistic the run declares.
    for measured in imported.values():
        if "ttft_ms" in measured:
            assert measured["ttft_ms"] == measured["statistics"]["ttft_ms"]["mean"]
            assert (
                measured["per_request_tokens_per_s"]
                == measured["statistics"]["per_request_tokens_per_s"]["mean"]
            )


def test_power_is_the_cells_measured_window_average() -> None:
    data = bench()
    data["results"][0]["hardware_summary"] = {
        "samples": 15,
        "gpu_count": 2,
        "power_total_avg_w": 1234.56,
    }
    result = adapt(data)
    assert cells(result)[(8192, 1)]["average_power_w"] == 1234.56
    assert "average_power_w" not in cells(result)[(8192, 4)]  # hardware_summary {}: no monitor
    assert "nvidia-smi" in result["run"]["power_measurement"]
    assert "power_measurement" not in adapt(bench())["run"]


def test_older_files_without_queue_signals_say_so() -> None:
    """Older llm-inference-bench files carry no avg_queue_reqs / queue_fraction in their cells."""
    data = bench(version="0.4.10")
    for raw_cell in data["results"]:
        for key in ("avg_queue_reqs", "max_queue_reqs", "queue_fraction"):
            del raw_cell[key]
    result = adapt(data)
    assert {c["status"] for c in result["measurements"]["decode"]} == {"valid"}
    [note] = [n for n in result["provenance"]["notes"] if "queue signals" in n]
    assert note.startswith("4 decode cells of this file have no queue signals")
    assert "notes" not in adapt(bench())["provenance"]


def test_metrics_unavailable_is_noted() -> None:
    result = adapt(bench(metrics_available=False))
    assert any("no usable /metrics" in note for note in result["provenance"]["notes"])


def test_mixed_gpus_leave_the_accelerator_to_run_yaml() -> None:
    data = bench()
    data["startup_diagnostics"]["nvidia_smi_query"]["stdout"] = (
        "0, NVIDIA H100 80GB HBM3, 570.86.15, x\n1, NVIDIA GeForce RTX 4090, 570.86.15, y"
    )
    assert refusal(data) == [
        "run.yaml:1: /hardware: missing required field 'accelerator'; the raw file does not "
        "tell it, so give it in run.yaml"
    ]
    meta = copy.deepcopy(RUN_META)
    meta["hardware"]["accelerator"] = "H100 + RTX 4090"
    assert adapt(data, meta)["hardware"]["count"] == 2


def test_failed_nvidia_smi_output_is_not_read() -> None:
    data = bench()
    data["startup_diagnostics"]["nvidia_smi_query"].update(returncode=-1, stdout="")
    meta = copy.deepcopy(RUN_META)
    meta["hardware"].update(accelerator="H100", count=2)
    result = adapt(data, meta)
    assert "driver" not in result["hardware"] and "vendor" not in result["hardware"]


# --- refusals: a clear message, never a traceback ----------------------------------------------


@pytest.mark.parametrize(
    ("mode", "what"),
    [
        ("p2pmark_only", "a GPU peer-to-peer bandwidth test (--p2pmark-only)"),
        (
            "completion_stats",
            "a completion-statistics report (--completion-stats / --test-profile)",
        ),
        ("paired_comparison", "a paired comparison of two servers (--compare-candidate)"),
        ("something_new", "not a decode/prefill benchmark"),
    ],
)
def test_other_modes_are_refused(mode: str, what: str) -> None:
    data = {
        "metadata": {"version": "0.4.29", "mode": mode, "timestamp": "2026-01-01T00:00:00"},
        "p2pmark": {"status": "ok"},
    }
    assert refusal(data) == [
        f"benchmark_results.json:4: /metadata/mode: this file is llm-inference-bench mode {mode!r} "
        f"({what}); "
        "sitegen imports only sustained-decode and prefill results, so this mode is not supported"
    ]


def test_not_json_is_refused_with_its_line() -> None:
    with pytest.raises(SitegenError) as caught:
        parse_raw("benchmark_results.json", b'{\n  "metadata": {,\n}')
    assert [str(p) for p in caught.value.problems] == [
        "benchmark_results.json:2: invalid JSON: Expecting property name enclosed in double quotes "
        "(column 16)"
    ]


def test_missing_metadata_is_refused() -> None:
    data = bench()
    del data["metadata"]
    assert refusal(data) == [
        "benchmark_results.json:1: missing field 'metadata': this is not a "
        "benchmark_results.json written by llm-inference-bench"
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(results={"0": {}}), "/results: expected a list, got a mapping"),
        (
            lambda d: d["results"][1].update(concurrency="4"),
            "/results/1/concurrency: expected a number, got text '4'",
        ),
        (
            lambda d: d["results"][1].update(aggregate_tps=True),
            "/results/1/aggregate_tps: expected a number, got true/false",
        ),
        (
            lambda d: d["results"][0].pop("aggregate_tps"),
            "/results/0: missing field 'aggregate_tps'",
        ),
        (lambda d: d["results"].append([]), "/results/4: expected a mapping of fields, got a list"),
        (
            lambda d: d["prefill"].update({"8k": d["prefill"]["8192"]}),
            "/prefill/8k: prefill key '8k' is not a context length in tokens (a whole number)",
        ),
        (
            lambda d: d["metadata"].update(context_lengths="8k,64k"),
            "/metadata/context_lengths: expected a list, got text",
        ),
        (
            lambda d: d["metadata"].update(timestamp="yesterday"),
            "/metadata/timestamp: expected an ISO date and time such as '2026-07-09T14:39:31', got "
            "'yesterday'",
        ),
        (lambda d: d.update(metadata=[]), "/metadata: expected a mapping of fields, got a list"),
    ],
)
def test_malformed_files_are_refused_at_the_value(change: Any, message: str) -> None:
    data = bench()
    change(data)
    messages = refusal(data)
    assert len(messages) == 1
    assert messages[0].startswith("benchmark_results.json:")
    assert message in messages[0]


def test_a_bad_figure_is_reported_at_the_raw_line() -> None:
    data = bench()
    data["results"][2]["ttft_avg"] = -0.5
    document = as_document(data)
    with pytest.raises(SitegenError) as caught:
        adapt_raw(document, meta_document(RUN_META), "content/runs/x")
    # The raw value is the headline TTFT and the mean among its statistics: both are named.
    problems = caught.value.problems
    line = document.line_of("/results/2/ttft_avg")
    assert line is not None and line > 100
    assert {(p.source, p.pointer, p.line) for p in problems} == {
        ("benchmark_results.json", "/results/2/ttft_avg", line)
    }
    assert sorted(p.message for p in problems) == [
        "-500.0 is out of range: must be at least 0 (read into "
        "/measurements/decode/2/statistics/ttft_ms/mean)",
        "-500.0 is out of range: must be at least 0 (read into /measurements/decode/2/ttft_ms)",
    ]


def test_run_yaml_problems_are_reported_at_its_lines() -> None:
    meta = parse_yaml(
        "run.yaml", b"hardware:\n  type: gpu\n  acelerator: X\nengine:\n  version: 5\n"
    )
    with pytest.raises(SitegenError) as caught:
        adapt_raw(as_document(bench()), meta, "x")
    assert [str(p) for p in caught.value.problems] == [
        "run.yaml:2: /hardware/type: 'gpu' is not one of 'discrete-gpu', 'integrated-gpu', "
        "'accelerator', 'cpu'; "
        "did you mean 'cpu'?",
        "run.yaml:3: /hardware/acelerator: unknown field 'acelerator'; did you mean 'accelerator'?",
        "run.yaml:5: /engine/version: expected text, got a number",
    ]


def test_run_yaml_sections_are_the_only_top_level_keys() -> None:
    meta = parse_yaml("run.yaml", b"hardware:\n  type: cpu\nmeasurements: {}\nengine: vllm\n")
    with pytest.raises(SitegenError) as caught:
        adapt_raw(as_document(bench()), meta, "x")
    assert [str(p) for p in caught.value.problems] == [
        "run.yaml:3: /measurements: unknown field 'measurements'; allowed: engine, hardware, run, "
        "select, source",
        "run.yaml:4: /engine: expected a mapping of fields, got text 'vllm'",
    ]


def test_without_run_yaml_the_hardware_type_is_asked_for() -> None:
    with pytest.raises(SitegenError) as caught:
        adapt_raw(as_document(bench()), None, "https://example.org/benchmark_results.json")
    assert [str(p) for p in caught.value.problems] == [
        "https://example.org/benchmark_results.json: /hardware: missing required field 'type'; the "
        "raw file does "
        "not tell it, so give it in run.yaml (sitegen import --meta run.yaml)"
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], "not a raw format sitegen can import"),
        ({"hello": "world"}, "not a raw format sitegen can import"),
        ({"schema_version": 1, "hardware": {}}, "this is already a sitegen result file"),
    ],
)
def test_other_documents_are_refused(data: Any, message: str) -> None:
    first, *formats = refusal(data)
    assert message in first
    # A file of no known format is followed by the list of formats, one line each.
    from sitegen.collect.adapters.registry import FORMATS

    named = [line.split(" — ", 1)[1].split(":", 1)[0] for line in formats]
    assert named == (
        [] if "already" in message else ["a sitegen result file", *(f.name for f in FORMATS)]
    )


def test_raw_file_on_disk_is_read_gzip_or_not(tmp_path: Path) -> None:
    import gzip
    import json

    plain = tmp_path / "benchmark_results.json"
    plain.write_text(json.dumps(bench()))
    packed = tmp_path / "run.json.gz"
    packed.write_bytes(gzip.compress(json.dumps(bench()).encode()))
    assert read_raw_file(plain, "a").data == read_raw_file(packed, "b").data
    broken = tmp_path / "broken.json.gz"
    broken.write_bytes(gzip.compress(b"{}")[:12])
    with pytest.raises(SitegenError, match="not a readable gzip file"):
        read_raw_file(broken, "broken.json.gz")


# --- any corruption is a located problem, never a traceback ------------------------------------

_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=6,
)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*path, index))
    return found


_SMALL = bench()
_SMALL["results"] = _SMALL["results"][:2]
_SMALL_PATHS = [path for path in _paths(_SMALL) if path]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(_SMALL_PATHS), _JSON), min_size=1, max_size=3),
    st.sampled_from(["bench", "lil"]),
)
def test_corrupted_files_give_problems_not_tracebacks(
    changes: list[tuple[tuple[Any, ...], Any]], shape: str
) -> None:
    data = copy.deepcopy(_SMALL)
    for path, value in changes:
        target = data
        try:
            for step in path[:-1]:
                target = target[step]
            target[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change replaced the container; nothing to corrupt here
    document = lil_document(data) if shape == "lil" else data
    try:
        adapt_raw(Document("raw.json", document, {}), meta_document(RUN_META), "x")
    except SitegenError as error:
        assert error.problems
        assert all(problem.source in ("raw.json", "run.yaml") for problem in error.problems)
