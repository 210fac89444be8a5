"""llama.cpp's ``llama-bench -o json`` (an array of test rows) and ``-o jsonl`` (a row a line).

A row is one test averaged over ``-r`` repetitions: ``n_prompt > 0, n_gen = 0`` processes a
prompt (pp), ``n_prompt = 0, n_gen > 0`` generates text (tg), both > 0 is a combined test whose
rate cannot be split (left out, with a note). ``n_depth`` tokens were in the KV cache first.

* prefill point (prefill_mode ``at-depth``): context ``n_depth``, ``prompt_chunk_tokens``
  ``n_prompt``, prompt tok/s ``avg_ts`` (measured directly; no TTFT is recorded);
* decode cell (decode_mode ``single-stream``): context ``n_depth``, concurrency 1 (llama-bench
  runs one sequence), ``output_tokens_per_request`` ``n_gen``; total tok/s and per-request tok/s
  are both ``avg_ts`` (one sequence: the same measurement). No TTFT or time between tokens.
* ``avg_ts`` is a mean over repetitions (run.latency_statistic ``mean``); ``stddev_ts`` is kept
  in ``statistics``.

The file records the GPU (``gpu_info``), CPU, build and backend: they are used, and a run.yaml
that contradicts them is an error. One run is one build × backend × model × settings: a file
that mixes several is refused, naming what differs.
"""

from __future__ import annotations

import json
import os
from typing import Any

from sitegen.collect.adapters import serving
from sitegen.collect.adapters._foreign import Adapted, Node, Record, yaml_words

TOOL = "llama-bench"
# Settings that change what is measured: rows differing in any of them are not one run.
_CONFIG = (
    "build_commit",
    "backends",
    "gpu_info",
    "model_filename",
    "model_type",
    "n_gpu_layers",
    "type_k",
    "type_v",
    "flash_attn",
    "n_batch",
    "n_ubatch",
    "n_threads",
    "split_mode",
    "no_kv_offload",
)
_VENDORS = ("NVIDIA", "AMD", "Intel", "Apple")


def looks_like(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and "build_commit" in data
        and "avg_ts" in data
        and "n_prompt" in data
    )


def adapt(records: list[Node]) -> Adapted:
    rows = [
        row
        for record in records
        for row in (record.elements() if isinstance(record.value, list) else [record])
    ]
    for row in rows:
        row.mapping()
    _one_configuration(rows)
    first = rows[0]
    adapted = Adapted(f"{TOOL} output ({len(rows)} test{'s' if len(rows) != 1 else ''})")
    _facts(adapted, first)
    prefill: list[Record] = []
    decode: list[Record] = []
    combined = 0
    for row in rows:
        prompt, generated = row.need("n_prompt").integer(), row.need("n_gen").integer()
        if prompt > 0 and generated > 0:
            combined += 1
        elif prompt > 0:
            prefill.append(_test(row, "prompt_tokens_per_s", prompt))
        elif generated > 0:
            decode.append(_test(row, "per_request_tokens_per_s", generated))
    if not prefill and not decode:
        raise first.error(
            "the file holds no prompt-processing (n_gen 0) or text-generation (n_prompt 0) test, "
            "only combined ones whose rate cannot be split: rerun llama-bench with -p and -n "
            "(not -pg)"
        )
    _no_repeats(prefill + decode)
    prefill.sort(key=lambda r: (r.data["context_tokens"], r.data["prompt_chunk_tokens"]))
    decode.sort(key=lambda r: (r.data["context_tokens"], r.data["output_tokens_per_request"]))
    adapted.add_records("prefill", prefill)
    adapted.add_records("decode", decode)
    if prefill:
        adapted.put("run", "prefill_mode", "at-depth", first)
    if combined:
        adapted.notes.append(
            f"{combined} combined prompt+generation test{'s' if combined != 1 else ''} (n_prompt "
            f"and "
            "n_gen both > 0) left out: their rate mixes prefill and decode and cannot be split."
        )
    adapted.notes.append(
        "Context is n_depth, the tokens already in the KV cache; prefill points process n_prompt "
        "tokens on top of it (prompt_chunk_tokens). Decode cells are one sequence (concurrency 1), "
        "so total and per-request tok/s are the same avg_ts."
    )
    return adapted


def _one_configuration(rows: list[Node]) -> None:
    differing = [key for key in _CONFIG if len({repr(row.mapping().get(key)) for row in rows}) > 1]
    if differing:
        values = "; ".join(
            f"{key}: {', '.join(sorted({yaml_words(row.mapping().get(key)) for row in rows}))}"
            for key in differing
        )
        example = f"{differing[0]}: {json.dumps(rows[0].mapping().get(differing[0]))}"
        raise rows[0].error(
            f"the file mixes several configurations ({values}); one run is one build × backend "
            "× model × settings: name one configuration's values in run.yaml's select: (for "
            f"example select: {{{example}}}), one run.yaml a configuration, or split the rows "
            "into one file per configuration"
        )


def _no_repeats(records: list[Record]) -> None:
    seen: dict[tuple[Any, ...], Record] = {}
    for record in records:
        key = tuple(
            sorted(
                (k, v)
                for k, v in record.data.items()
                if k
                in (
                    "context_tokens",
                    "prompt_chunk_tokens",
                    "output_tokens_per_request",
                    "concurrency",
                )
            )
        )
        if key in seen:
            raise record.node.error(
                f"the same test twice (first at {serving.where(seen[key].node)}): keep one "
                "repetition set per test"
            )
        seen[key] = record


def _test(row: Node, figure: str, tokens: int) -> Record:
    record = Record(row)
    record.set(
        "context_tokens", row.need("n_depth").integer() if row.get("n_depth") else 0, "n_depth"
    )
    average = row.need("avg_ts").number()
    if not serving.finite(average) or average <= 0:
        raise row.need("avg_ts").error(
            f"avg_ts {average!r} is not a measured rate: this test failed"
        )
    statistics: dict[str, float] = {"mean": serving.rounded(average)}
    stddev = row.opt_number("stddev_ts")
    if stddev is not None and serving.finite(stddev):
        statistics["stddev"] = serving.rounded(stddev)
    if figure == "prompt_tokens_per_s":
        record.set("prompt_chunk_tokens", tokens, "n_prompt")
        record.set("prompt_tokens_per_s", serving.rounded(average), "avg_ts")
    else:
        record.set("concurrency", 1)
        record.set("status", "valid")
        record.set("total_tokens_per_s", serving.rounded(average), "avg_ts")
        record.set("per_request_tokens_per_s", serving.rounded(average), "avg_ts")
        record.set("output_tokens_per_request", tokens, "n_gen")
    record.set("statistics", {figure: statistics})
    samples = row.get("samples_ts")
    values = {
        "n_prompt": row.opt_integer("n_prompt"),
        "n_gen": row.opt_integer("n_gen"),
        "n_depth": row.opt_integer("n_depth"),
        "avg_ts": average,
        "stddev_ts": stddev,
        "repetitions": len(samples.value)
        if samples is not None and isinstance(samples.value, list)
        else None,
    }
    record.set("source_values", {key: value for key, value in values.items() if value is not None})
    return record


def _facts(adapted: Adapted, row: Node) -> None:
    adapted.put("run", "benchmark_tool", TOOL, row)
    adapted.put("run", "latency_statistic", "mean", row)
    adapted.put("run", "decode_mode", "single-stream", row)
    adapted.put("engine", "name", "llama.cpp", row)
    commit, number = row.opt_text("build_commit"), row.opt_integer("build_number")
    if commit:
        build = f"build {commit}" + (f" ({number})" if number is not None else "")
        # A restatement may name the commit or the build number; anything else is another build.
        adapted.record(
            "engine",
            "version",
            build,
            row.need("build_commit"),
            f"llama.cpp {build}",
            lambda given: (
                commit in str(given) or (number is not None and str(number) in str(given))
            ),
        )
        adapted.put("run", "benchmark_tool_version", build, row.need("build_commit"))
    backends = row.get("backends")
    if backends is not None and backends.text():
        shown = backends.text()
        adapted.record(
            "engine",
            "backend",
            shown,
            backends,
            f"the backend {shown!r} (backends)",
            lambda given: _same_words(str(given), shown),
        )
    gpu = row.get("gpu_info")
    if gpu is not None and gpu.text().strip():
        _gpu(adapted, gpu)
    cpu = row.get("cpu_info")
    if cpu is not None and cpu.text().strip():
        adapted.put("hardware", "cpu", cpu.text().strip(), cpu)
    model = row.get("model_filename")
    if model is not None and model.text():
        # The GGUF file's name (what llama-bench loaded); run.yaml gives the published model id.
        adapted.put(
            "run", "model", os.path.basename(model.text().replace("\\", "/")) or model.text(), model
        )
    model_type = row.get("model_type")
    if model_type is not None and model_type.text():
        adapted.put("engine", "settings", _settings(row), row)
    tested = row.get("test_time")
    if tested is not None:
        adapted.put("run", "date", tested.iso_date(), tested)


def _gpu(adapted: Adapted, gpu: Node) -> None:
    text = gpu.text().strip()
    names = [name.strip() for name in text.split(",") if name.strip()]
    if len(set(names)) == 1:
        name = names[0]
        vendor = next((v for v in _VENDORS if name.startswith(v + " ")), None)
        if vendor:
            adapted.put("hardware", "vendor", vendor, gpu)
            name = name.removeprefix(vendor).strip()
        adapted.record(
            "hardware",
            "accelerator",
            name,
            gpu,
            f"the GPU {text!r} (gpu_info)",
            lambda given: _same_words(str(given), text),
        )
        adapted.put("hardware", "count", len(names), gpu)
    else:
        adapted.notes.append(
            f"llama-bench saw several devices ({text}); the accelerator comes from run.yaml."
        )


def _same_words(given: str, recorded: str) -> bool:
    """Whether run.yaml's name is the recorded one, perhaps shortened ("RTX 4090" for
    "NVIDIA GeForce RTX 4090", "ROCm" for "ROCm 7.12")."""
    words = recorded.lower().replace(",", " ").split()
    return all(word in words for word in given.lower().replace(",", " ").split())


def _settings(row: Node) -> dict[str, Any]:
    keys = (
        "model_type",
        "model_size",
        "model_n_params",
        "n_gpu_layers",
        "n_batch",
        "n_ubatch",
        "n_threads",
        "type_k",
        "type_v",
        "flash_attn",
        "split_mode",
        "no_kv_offload",
        "use_mmap",
    )
    settings: dict[str, Any] = {}
    for key in keys:
        value = row.mapping().get(key)
        if isinstance(value, (str, bool, int, float)) and value != "":
            settings[key] = value
    return settings
