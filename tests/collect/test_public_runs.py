"""The shipped transcriptions of public runs carry exactly the figures of their sources.

Each ``tests/data/public-runs/<id>.json`` (a copy; see tests/data/README.md) is a transcriber's
record of a published benchmark; ``content/runs/<id>.yaml`` is the canonical result file made from
it. Cell by cell, every
figure in the record must be in the result file unchanged, and the result file must hold no
figure that the record does not have.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.kit.project import DATA, REPO, load_yaml

PUBLIC = DATA / "public-runs"
RUNS = REPO / "content" / "runs"
SCHEMA = json.loads((REPO / "schema" / "result.schema.json").read_text(encoding="utf-8"))

RUN_IDS = [
    "b200x2-vllm-nemotron3nano30b-fp8",
    "dgxspark-llamacpp-gptoss120b-batched",
    "dgxspark-llamacpp-gptoss120b-depth",
    "h100x2-nim-llama33-70b-fp8",
    "mi100x4-vllm-qwen3coder30b-gptq4",
    "rtx6kpro4x-sglang-qwen35-397b-nvfp4-nomtp",
    "rtx6kpro4x-vllm-qwen35-397b-awq-mtp",
    "rtx6kpro4x-vllm-qwen35-397b-nvfp4-nomtp",
    "ttp300-vllm-qwen3-4b",
]

STATUS = {
    "valid": "valid",
    "queued": "requests_queued",
    "over capacity": "over_capacity",
    "not run": "not_run",
}

# Figure in the transcriber's record -> field of the result file.
DECODE_FIGURES = {
    "total_tokens_per_s": "total_tokens_per_s",
    "per_request_tokens_per_s": "per_request_tokens_per_s",
    "ttft_ms": "ttft_ms",
    "itl_ms": "time_between_tokens_ms",
    "output_tokens_per_request": "output_tokens_per_request",
}
PREFILL_FIGURES = {
    "prompt_tokens_per_s": "prompt_tokens_per_s",
    "ttft_ms": "ttft_ms",
    "prompt_chunk_tokens": "prompt_chunk_tokens",
}
# Everything else a cell or point of the schema can hold is a figure too and must stay absent.
_NOT_FIGURES = {"context_tokens", "concurrency", "status", "note", "source_values"}
RESULT_DECODE_FIGURES = set(SCHEMA["$defs"]["decode_cell"]["properties"]) - _NOT_FIGURES
RESULT_PREFILL_FIGURES = set(SCHEMA["$defs"]["prefill_point"]["properties"]) - _NOT_FIGURES
RUN_FIGURES = ("output_tokens_per_request", "max_output_tokens", "time_per_measurement_s")


def load(run_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    source = json.loads((PUBLIC / f"{run_id}.json").read_text(encoding="utf-8"))
    result = load_yaml((RUNS / f"{run_id}.yaml").read_text(encoding="utf-8"))
    return source, result


def _same(got: Any, want: Any) -> bool:
    """Equal figures: both absent, or the same number (True is not 1)."""
    if want is None or got is None:
        return got is None and want is None
    return not isinstance(got, bool) and not isinstance(want, bool) and got == want


def _source_values(fields: dict[str, Any]) -> dict[str, Any]:
    """The record's raw values as the result file keeps them: keys lower-cased, the remark apart."""
    return {key.lower(): value for key, value in fields.items() if key != "note"}


def _by_key(items: list[dict[str, Any]], key: Any, what: str) -> dict[Any, dict[str, Any]]:
    keyed: dict[Any, dict[str, Any]] = {}
    for item in items:
        k = key(item)
        assert k not in keyed, f"{what}: two entries for {k}"
        keyed[k] = item
    return keyed


def _decode_key(cell: dict[str, Any]) -> tuple[Any, ...]:
    return cell["context_tokens"], cell["concurrency"], cell.get("output_tokens_per_request")


def _prefill_key(point: dict[str, Any]) -> tuple[Any, ...]:
    return point["context_tokens"], point.get("prompt_chunk_tokens")


def compare(source: dict[str, Any], result: dict[str, Any]) -> None:
    """Assert that ``result`` (a parsed result file) carries exactly the figures of ``source``."""
    # Credit.
    credit = result.get("source") or {}
    for name in ("url", "publisher", "retrieved", "title", "section", "related_urls"):
        if name in ("url", "publisher", "retrieved") or name in source["source"]:
            assert credit.get(name) == source["source"].get(name), f"source.{name}"
    if "commit" in source["source"]:
        assert credit.get("commit") == source["source"]["commit"], "source.commit"
    provenance = result.get("provenance") or {}
    assert provenance.get("method") == "transcribed"
    assert provenance.get("imported_from") == f"{source['id']}.json"

    # Run-level figures.
    run, hardware = result["run"], result["hardware"]
    for name in RUN_FIGURES:
        assert _same(run.get(name), source["run"].get(name)), f"run.{name}"
    assert run.get("date") == source["run"].get("date"), "run.date"
    assert _same(hardware.get("count"), source["hardware"].get("count")), "hardware.count"
    for name in ("memory_per_device_gb", "memory_total_gb"):
        assert _same(hardware.get(name), source["hardware"].get(name)), f"hardware.{name}"
    system_memory = source["hardware"].get(
        "system_memory_gb", source["hardware"].get("system_ram_gb")
    )
    assert _same(hardware.get("system_memory_gb"), system_memory), "hardware.system_memory_gb"

    # Decode cells.
    want = _by_key(source["decode"], _decode_key, "source decode")
    got = _by_key(result["measurements"]["decode"], _decode_key, "result decode")
    assert sorted(got, key=repr) == sorted(want, key=repr), "decode cells differ"
    for key, src in want.items():
        cell = got[key]
        where = f"decode cell context {key[0]} × {key[1]}"
        assert cell["status"] == STATUS[src["status"]], f"{where}: status"
        for src_name, name in DECODE_FIGURES.items():
            assert _same(cell.get(name), src.get(src_name)), f"{where}: {name}"
        extra = RESULT_DECODE_FIGURES.difference(DECODE_FIGURES.values()).intersection(cell)
        assert not extra, f"{where}: figures not in the source: {sorted(extra)}"
        assert cell.get("source_values", {}) == _source_values(src.get("source_fields", {})), (
            f"{where}: source_values"
        )

    # Prefill points.
    want = _by_key(source["prefill"], _prefill_key, "source prefill")
    got = _by_key(result["measurements"]["prefill"], _prefill_key, "result prefill")
    assert sorted(got, key=repr) == sorted(want, key=repr), "prefill points differ"
    for key, src in want.items():
        point = got[key]
        where = f"prefill point context {key[0]}"
        for src_name, name in PREFILL_FIGURES.items():
            assert _same(point.get(name), src.get(src_name)), f"{where}: {name}"
        extra = RESULT_PREFILL_FIGURES.difference(PREFILL_FIGURES.values()).intersection(point)
        assert not extra, f"{where}: figures not in the source: {sorted(extra)}"
        fields = src.get("source_fields", {})
        assert point.get("source_values", {}) == _source_values(fields), f"{where}: source_values"
        if "note" in fields:
            assert point.get("note") == fields["note"], f"{where}: note"


def test_every_public_run_is_shipped() -> None:
    assert sorted(path.stem for path in PUBLIC.glob("*.json")) == RUN_IDS
    for run_id in RUN_IDS:
        assert (RUNS / f"{run_id}.yaml").is_file(), run_id


@pytest.mark.parametrize("run_id", RUN_IDS)
def test_figures_match_the_source(run_id: str) -> None:
    source, result = load(run_id)
    assert source["id"] == run_id
    compare(source, result)


@pytest.mark.parametrize("run_id", RUN_IDS)
def test_shipped_file_is_a_valid_result(run_id: str) -> None:
    from sitegen.collect import validate_result
    from sitegen.parse import parse_document

    path: Path = RUNS / f"{run_id}.yaml"
    document = parse_document(str(path), path.read_bytes())
    assert validate_result(document) == []


def _break(result: dict[str, Any], mutation: str) -> None:
    """Spoil ``result`` in one way that ``compare`` must notice."""
    decode = result["measurements"]["decode"]
    cell = next(c for c in decode if c["status"] in ("valid", "requests_queued"))
    if mutation == "figure changed":
        cell["total_tokens_per_s"] += 1
    elif mutation == "figure added":
        cell["average_active_requests"] = 1
    elif mutation == "time between tokens changed":
        cell["time_between_tokens_ms"] = 1.5
    elif mutation == "status changed":
        cell["status"] = "failed"
    elif mutation == "cell dropped":
        decode.pop()
    elif mutation == "prefill ttft changed":
        result["measurements"]["prefill"][0]["ttft_ms"] = 1.0
    elif mutation == "raw value changed":
        cell["source_values"] = {"printed": "1"}
    elif mutation == "url changed":
        result["source"]["url"] = "https://example.org/"
    else:
        raise ValueError(mutation)


MUTATIONS = [
    "figure changed",
    "figure added",
    "time between tokens changed",
    "status changed",
    "cell dropped",
    "prefill ttft changed",
    "raw value changed",
    "url changed",
]


@pytest.mark.parametrize("mutation", MUTATIONS)
def test_a_wrong_figure_is_caught(mutation: str) -> None:
    source, result = load("mi100x4-vllm-qwen3coder30b-gptq4")
    compare(source, result)
    broken = copy.deepcopy(result)
    _break(broken, mutation)
    with pytest.raises(AssertionError):
        compare(source, broken)
