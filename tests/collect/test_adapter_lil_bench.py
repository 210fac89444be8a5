"""The lil-bench adapter: the embedded bench file gives the measurements, lil-bench the
engine, GPUs and model; run.yaml still wins."""

from __future__ import annotations

import gzip
import hashlib
import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from sitegen.collect.adapters.raw import adapt_folder, adapt_raw
from sitegen.errors import SitegenError
from tests.kit.raw_samples import as_document, bench, cell, lil_document, meta_document

META: dict[str, Any] = {"hardware": {"type": "discrete-gpu"}}


def adapt(document: dict[str, Any], meta: dict[str, Any] | None = None) -> dict[str, Any]:
    result: dict[str, Any] = adapt_raw(
        as_document(document, "run.json"), meta_document(meta or META), "lil"
    ).data
    return result


def refusal(document: dict[str, Any]) -> list[str]:
    with pytest.raises(SitegenError) as caught:
        adapt(document)
    return [str(problem) for problem in caught.value.problems]


def test_lil_bench_facts_fill_engine_hardware_and_run() -> None:
    document = lil_document(bench(version="0.7.3", prefill_mode="standalone_cold"))
    result = adapt(document)
    assert result["engine"] == {
        "name": "vLLM",
        "version": "0.11.2",
        "launch_command": shlex.join(document["server"]["argv"]),
        "parallelism": "TP2",
        "build": "ghcr.io/local-inference-lab/vllm:karmic-kraken-2026.05",
    }
    # The JSON option value keeps its quotes, so the command can be pasted back into a shell.
    assert result["engine"]["launch_command"].endswith(
        "--override-generation-config '{\"temperature\": 0.6}'"
    )
    assert result["hardware"] == {
        "type": "discrete-gpu",
        "vendor": "NVIDIA",
        "accelerator": "RTX PRO 6000 Blackwell Server Edition",
        "count": 2,
        "memory_per_device_gb": 102.6,
        "driver": "580.82.07",
        "os": "linux",
    }
    assert result["run"]["model"] == "Qwen/Qwen3-30B-A3B-FP8"
    assert result["run"]["served_model_name"] == "qwen3-30b"
    assert (
        result["run"]["date"] == "2026-05-06"
    )  # lil-bench's UTC start, not the bench file's save time
    assert result["run"]["prefill_mode"] == "standalone-cold"
    assert result["run"]["ttft_prompt_cache"] == "warm"  # the bench file's tool warms each prompt
    assert result["run"]["benchmark_tool_version"] == "0.7.3"
    assert result["provenance"]["imported_from"] == (
        "lil-bench 1.4 result document 0f7c2d1e-1111-4222-8333-944455556666 (llm-inference-bench "
        "0.7.3)"
    )


def test_measurements_come_from_the_embedded_bench_file() -> None:
    result = adapt(lil_document(bench()))
    decode = {(c["context_tokens"], c["concurrency"]): c for c in result["measurements"]["decode"]}
    assert len(decode) == 4
    assert decode[(65536, 4)]["per_request_tokens_per_s"] == 98.765432
    assert [p["context_tokens"] for p in result["measurements"]["prefill"]] == [8192, 65536]


def test_run_yaml_wins_over_lil_bench() -> None:
    meta = {
        "hardware": {"type": "discrete-gpu", "memory_per_device_gb": 96},
        "engine": {"name": "vLLM (nightly)", "launch_command": "vllm serve x"},
        "run": {"model": "Qwen/Qwen3-30B-A3B-Instruct-2507-FP8"},
    }
    result = adapt(lil_document(bench()), meta)
    assert result["hardware"]["memory_per_device_gb"] == 96
    assert result["engine"]["name"] == "vLLM (nightly)"
    assert result["engine"]["launch_command"] == "vllm serve x"
    assert result["engine"]["version"] == "0.11.2"
    assert result["run"]["model"] == "Qwen/Qwen3-30B-A3B-Instruct-2507-FP8"


@pytest.mark.parametrize("status", ["failed", "interrupted"])
def test_unfinished_runs_import_what_is_there_with_a_note(status: str) -> None:
    data = bench()
    data["results"] = data["results"][:2]
    result = adapt(lil_document(data, status=status))
    assert [c["status"] for c in result["measurements"]["decode"]] == [
        "valid",
        "valid",
        "not_run",
        "not_run",
    ]
    assert (
        f"lil-bench reports this run as {status}: only what it finished is imported."
        in result["provenance"]["notes"]
    )


def test_a_run_without_bench_results_is_refused() -> None:
    document = lil_document(bench(), status="failed")
    document["results"] = {"p2pmark": {"status": "error"}}
    [message] = refusal(document)
    assert message.startswith("run.json:")
    assert message.endswith(
        "/results: missing field 'bench': the lil-bench run (failed) produced no benchmark results"
    )


def test_other_schema_versions_are_refused() -> None:
    [message] = refusal(lil_document(bench(), schema="lil-bench-result/2"))
    assert message == (
        "run.json:2: /schema: 'lil-bench-result/2' documents are not supported; "
        "sitegen reads 'lil-bench-result/1'"
    )


def test_problems_in_the_embedded_bench_file_point_into_it() -> None:
    data = bench()
    data["results"][1]["context_tokens"] = "8k"
    [message] = refusal(lil_document(data))
    assert message.startswith("run.json:")
    assert message.endswith(
        "/results/bench/results/1/context_tokens: expected a number, got text '8k'"
    )


def test_embedded_other_modes_are_refused() -> None:
    data = {"metadata": {"version": "0.7.3", "mode": "p2pmark_only"}}
    [message] = refusal(lil_document(data))
    assert (
        "/results/bench/metadata/mode: this file is llm-inference-bench mode 'p2pmark_only'"
        in message
    )


def test_mixed_gpus_need_the_accelerator_from_run_yaml() -> None:
    document = lil_document(bench())
    document["hardware"]["gpus"][1] = {
        **document["hardware"]["gpus"][1],
        "name": "NVIDIA H100 PCIe",
        "memory_total_mib": 81559,
    }
    assert refusal(document) == [
        "run.yaml:1: /hardware: missing required field 'accelerator'; the raw file does "
        "not tell it, so give it in run.yaml"
    ]
    meta = {"hardware": {"type": "discrete-gpu", "accelerator": "RTX PRO 6000 + H100"}}
    result = adapt(document, meta)
    assert result["hardware"]["count"] == 2 and "memory_per_device_gb" not in result["hardware"]


def test_gzip_lil_bench_folder(tmp_path: Path) -> None:
    folder = tmp_path / "qwen-run"
    folder.mkdir()
    document = lil_document(bench())
    document["results"]["bench"]["results"].append(cell(131072, 1))  # outside the matrix: kept
    (folder / "0f7c2d1e.json.gz").write_bytes(gzip.compress(json.dumps(document).encode()))
    (folder / "run.yaml").write_text("hardware:\n  type: discrete-gpu\n")
    (folder / "README.md").write_text("notes for people")
    result = adapt_folder(folder, "content/runs/qwen-run").data
    assert result["engine"]["name"] == "vLLM"
    assert len(result["measurements"]["decode"]) == 5
    # The folder's files by digest (sitegen/receipts.py), worked out here; notes are not read.
    files = [folder / "0f7c2d1e.json.gz", folder / "run.yaml"]
    assert result["provenance"].pop("raw_files") == [
        {
            "file": path.name,
            "bytes": path.stat().st_size,
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        }
        for path in files
    ]
    assert result == adapt(document)
