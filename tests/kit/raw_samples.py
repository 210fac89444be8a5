"""Small synthetic llm-inference-bench and lil-bench files, shaped as FORMAT.md describes.

Each builder returns plain data; tests change what they are about and serialise with
``as_document`` (real JSON bytes through sitegen's parser, so problems carry lines).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import yaml

from sitegen.parse import Document, parse_json, parse_yaml

NVIDIA_SMI = (
    "0, NVIDIA H100 80GB HBM3, 570.86.15, 00000000:1B:00.0, 5, 16, 700.00\n"
    "1, NVIDIA H100 80GB HBM3, 570.86.15, 00000000:9D:00.0, 5, 16, 700.00"
)


def cell(context: int, concurrency: int, **changes: Any) -> dict[str, Any]:
    """A measured sustained-decode CellResult (0.4.x fields)."""
    result: dict[str, Any] = {
        "concurrency": concurrency,
        "context_tokens": context,
        "benchmark_mode": "duration",
        "request_count_target": 0,
        "warmup_request_count": 0,
        "measurement_seconds": 30.0012346,
        "measurement_wall_seconds": 30.2,
        "client_output_tokens": 3003,
        "server_output_tokens": 0,
        "aggregate_source": "openai_continuous_usage",
        "aggregate_tps": 100.12345678,
        "per_request_avg_tps": 100.12345678 / concurrency,
        "ttft_avg": 0.25012345678,
        "ttft_p50": 0.25,
        "ttft_p90": 0.3,
        "ttft_p99": 0.31,
        "time_to_second_token_avg": 0.01,
        "time_to_second_token_p50": 0.01,
        "time_to_second_token_p90": 0.01,
        "time_to_second_token_p99": 0.01,
        "request_latency_avg": 0.0,
        "request_latency_p50": 0.0,
        "request_latency_p90": 0.0,
        "request_latency_p99": 0.0,
        "inter_token_latency_avg": 0.0101234567,
        "inter_token_latency_p50": 0.0101,
        "inter_token_latency_p90": 0.011,
        "inter_token_latency_p99": 0.012,
        "output_tps_per_user_avg": 98.7654321,
        "output_tps_per_user_p50": 99.0,
        "output_tps_per_user_p90": 100.0,
        "output_tps_per_user_p99": 101.0,
        "e2e_output_tps_per_user_avg": 0.0,
        "e2e_output_tps_per_user_p50": 0.0,
        "e2e_output_tps_per_user_p90": 0.0,
        "e2e_output_tps_per_user_p99": 0.0,
        "chunk_inter_token_latency_avg": 0.0101,
        "chunk_inter_token_latency_p50": 0.0101,
        "chunk_inter_token_latency_p90": 0.011,
        "chunk_inter_token_latency_p99": 0.012,
        "input_seq_len_avg": float(context + 9),
        "output_seq_len_avg": 1500.0,
        "output_seq_len_p50": 1500.0,
        "output_seq_len_p90": 1500.0,
        "output_seq_len_p99": 1500.0,
        "request_count": concurrency,
        "completed_request_count": 0,
        "request_samples": [],
        "total_tokens": 3003,
        "wall_time": 40.0,
        "num_completed": concurrency,
        "num_errors": 0,
        "server_gen_throughput": 99.5,
        "server_utilization": 0.5,
        "server_spec_accept_rate": 0.0,
        "server_spec_accept_length": 0.0,
        "avg_running_reqs": concurrency,
        "max_running_reqs": concurrency,
        "effective_concurrency": concurrency,
        "avg_queue_reqs": 0,
        "max_queue_reqs": 0,
        "queue_fraction": 0.0,
        "underfilled": False,
        "warmup_timed_out": False,
        "warmup_duration": 5.0,
        "ready_reason": f"running_reqs={concurrency}/{concurrency}, queue_reqs=0, stable=3.0s",
        "timeout_reason": "",
        "capacity_limited": False,
        "hardware_summary": {},
    }
    result.update(changes)
    return result


def failed_cell(context: int, concurrency: int) -> dict[str, Any]:
    """What the tool saves when a cell's request loop raised: CellResult defaults, all zero."""
    result = cell(context, concurrency)
    for key, value in list(result.items()):
        if key in ("concurrency", "context_tokens", "benchmark_mode"):
            continue
        if isinstance(value, bool):
            result[key] = False
        elif isinstance(value, (int, float)):
            result[key] = 0 if isinstance(value, int) else 0.0
        elif isinstance(value, str):
            result[key] = ""
    return result


def prefill_row(
    context: int, ttft_s: float, tok_per_sec: float, samples: int = 1
) -> dict[str, Any]:
    return {
        "ttft_seconds": ttft_s,
        "prefill_seconds": ttft_s,
        "tok_per_sec": tok_per_sec,
        "client_ttft_seconds": ttft_s,
        "client_tok_per_sec": tok_per_sec,
        "prompt_tokens": context + 9,
        "samples": samples,
        "method": "integrated_scout",
        "server_validation": {
            "method": "",
            "tok_per_sec": 0.0,
            "prefill_seconds": 0.0,
            "prompt_tokens": 0,
            "samples": 0,
            "invalid_reason": "",
        },
        "hardware_summary": {},
    }


def bench(version: str = "0.4.29", **metadata: Any) -> dict[str, Any]:
    """A 2 contexts × 2 concurrencies run (8k, 64k × 1, 4) with a 300,000-token KV budget.

    64k × 4 needs 4 × (65,536 + 2,048) = 270,336 tokens: it fits; the test changes the budget.
    """
    meta: dict[str, Any] = {
        "version": version,
        "engine": "vllm",
        "model": "served-name",
        "server": "127.0.0.1:8000",
        "timestamp": "2026-03-04T05:06:07.123456",
        "decode_mode": "duration",
        "primary_decode_layer": "sustained_decode",
        "duration_per_test": 30.0,
        "request_count": 0,
        "warmup_request_count": 0,
        "run_burst": False,
        "prefill_mode": "integrated_decode_scout",
        "standalone_prefill": False,
        "prefill_only": False,
        "skip_prefill": False,
        "max_tokens": 2048,
        "temperature": None,
        "ignore_eos": True,
        "max_total_tokens": 300000,
        "dcp_size": 0,
        "metrics_available": True,
        "metrics_warning": "",
        "concurrency_levels": [1, 4],
        "context_lengths": [8192, 65536],
    }
    meta.update(metadata)
    return {
        "metadata": meta,
        "startup_diagnostics": {
            "version": version,
            "hostname": "node-7",
            "uname": "Linux node-7 6.8.0-60-generic x86_64 GNU/Linux",
            "env": {},
            "args": {},
            "nvidia_smi_query": {
                "cmd": ["nvidia-smi"],
                "returncode": 0,
                "stdout": NVIDIA_SMI,
                "stderr": "",
            },
        },
        "p2pmark": {"status": "not_run"},
        "amd_fabric": {"status": "not_run"},
        "hardware_run_summary": {},
        "event_log": ["12:00:00 startup engine vLLM 0.11.2 models=['served-name']"],
        "prefill": {
            "8192": prefill_row(8192, 0.8012345, 10237.0),
            "65536": prefill_row(65536, 4.5, 14566.0),
        },
        "results": [cell(8192, 1), cell(8192, 4), cell(65536, 1), cell(65536, 4)],
        "summary_table": {
            "8192": {"1": 100.12345678, "4": 100.12345678},
            "65536": {"1": 100.12345678, "4": 100.1},
        },
        "burst_results": [],
        "burst_summary_table": {},
        "methodology": {"prefill": {"present": True}, "sustained_decode": {"present": True}},
    }


def v0418(data: dict[str, Any]) -> dict[str, Any]:
    """The same run as 0.4.18 wrote it: no temperature, no hardware_run_summary, short
    validation."""
    data = copy.deepcopy(data)
    data["metadata"]["version"] = "0.4.18"
    del data["metadata"]["temperature"]
    del data["hardware_run_summary"]
    return data


def v060(data: dict[str, Any]) -> dict[str, Any]:
    """The same run as 0.6.0 writes it: loop-guard and speculative-decoding fields everywhere."""
    data = copy.deepcopy(data)
    data["metadata"]["version"] = "0.6.0"
    data["metadata"]["loop_detection"] = {"enabled": True, "window": 64}
    data["metadata"]["decode_warmup_loop_diagnostics"] = {}
    data["methodology"]["acceptance_normalization"] = {"present": False}
    for result in data["results"]:
        result.update(
            {
                "server_spec_drafts": 0,
                "server_spec_draft_tokens": 0,
                "server_spec_accepted_tokens": 0,
                "server_spec_pos_accept": [],
                "server_engine_steps": 0,
                "server_steps_per_s": 0.0,
                "server_accept_len_effective": 0.0,
                "accept_norm_tps": 0.0,
                "accept_norm_ref_len": 0.0,
                "loop_detection_enabled": True,
                "loop_detected": False,
                "loop_diagnostics": {},
                "loop_diagnostics_omitted": 0,
            }
        )
    return data


def lil_document(bench_data: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A lil-bench-result/1 document around ``bench_data``."""
    gpu = {
        "index": 0,
        "name": "NVIDIA RTX PRO 6000 Blackwell Server Edition",
        "uuid_hash": "ab12",
        "memory_total_mib": 97887,
        "architecture": "Blackwell",
    }
    document: dict[str, Any] = {
        "schema": "lil-bench-result/1",
        "standard": "standard/1",
        "profile": "standard",
        "run_id": "0f7c2d1e-1111-4222-8333-944455556666",
        "status": "complete",
        "started": "2026-05-06T22:10:00+00:00",
        "finished": "2026-05-06T23:40:00+00:00",
        "client": {
            "lil_bench": "1.4",
            "llm_decode_bench": "0.7.3",
            "argv": ["lil-bench", "--token", "***"],
            "uploader": None,
            "note": "",
            "allow_busy": False,
        },
        "image": {
            "manifest": None,
            "contract": None,
            "assembly_sha256": "00ff",
            "alias": "ghcr.io/local-inference-lab/vllm:karmic-kraken-2026.05",
            "channel": "karmic-kraken",
        },
        "integrity": {"status": "stock"},
        "server": {
            "pid": 7,
            "argv": [
                "python",
                "-m",
                "vllm.entrypoints.cli.main",
                "serve",
                "Qwen/Qwen3-30B-A3B-FP8",
                "--port",
                "5091",
                "--max-num-seqs",
                "32",
                "--tensor-parallel-size",
                "2",
                "--override-generation-config",
                '{"temperature": 0.6}',
            ],
            "environment": {"VLLM_USE_V1": "1"},
            "model": "Qwen/Qwen3-30B-A3B-FP8",
            "options": {
                "port": "5091",
                "max-num-seqs": "32",
                "tensor-parallel-size": "2",
                "enable-prefix-caching": True,
            },
            "limits": {
                "port": 5091,
                "max_num_seqs": 32,
                "tensor_parallel_size": 2,
                "kv_tokens": 300000,
            },
            "api": {
                "model_id": "qwen3-30b",
                "max_model_len": 131072,
                "version": "0.11.2",
                "metrics": True,
            },
            "url": "http://127.0.0.1:5091",
        },
        "hardware": {
            "gpus": [gpu, {**gpu, "index": 1, "uuid_hash": "cd34"}],
            "nvml_system": {
                "driver_version": "580.82.07",
                "cuda_driver_version": 13000,
                "nvml_version": "13.580",
            },
            "host": {"kernel": "6.8.0", "machine": "x86_64"},
        },
        "plan": [],
        "results": {
            "p2pmark": {"status": "not_run"},
            "bench": bench_data,
            "bench_command": ["python", "llm_decode_bench.py"],
            "bench_log_tail": "",
        },
        "phases": [],
        "telemetry": {},
        "analysis": {},
        "summary": {},
    }
    document.update(changes)
    return document


def as_document(data: Any, source: str = "benchmark_results.json") -> Document:
    """``data`` written as the tool writes it (indent 2) and parsed back with line numbers."""
    return parse_json(source, json.dumps(data, indent=2).encode())


def meta_document(data: dict[str, Any], source: str = "run.yaml") -> Document:
    return parse_yaml(source, yaml.safe_dump(data, sort_keys=False).encode())


RUN_META: dict[str, Any] = {
    "hardware": {"type": "discrete-gpu", "memory_per_device_gb": 80},
    "engine": {"quantization": "FP8"},
    "run": {"model": "Qwen/Qwen3-30B-A3B-FP8"},
}
