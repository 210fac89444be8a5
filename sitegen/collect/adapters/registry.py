"""Which raw format a document is: the one place every way in (content/runs/ folders, remote
sources, ``sitegen import``) asks.

A format is recognised by the shape of its content, never by a file or folder name: tools
let users pick any output name, and publishers rename files. Each record is what one file
holds at its root, or one line of a JSON Lines file; a JSON array (llama-bench ``-o json``,
``vllm bench sweep``'s ``summary.json``) is recognised by its first element.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sitegen.collect.adapters import (
    aiperf,
    benchmark_report,
    guidellm,
    lil_bench,
    llama_bench,
    llm_inference_bench,
    sglang_bench,
    vllm_bench,
)
from sitegen.collect.adapters._foreign import Adapted, Node


@dataclass(frozen=True)
class Format:
    """One raw format: how to recognise a record of it, and how to adapt records of it."""

    name: str
    recognises: Callable[[Any], bool]
    adapt: Callable[[list[Node]], Adapted]
    # Whether records from several files (or lines) make one run; otherwise exactly one file.
    sweep: bool
    # What tells a record of this format apart, in a reader's words (for the refusal of a file
    # that is none of them).
    tells: str = ""
    # run.ttft_prompt_cache of every run of this format: what the tool does before it measures
    # TTFT (evidence per tool in docs/importing.md); None where the file cannot tell.
    ttft_prompt_cache: str | None = None
    # Whether its records are rows of which run.yaml's ``select:`` may keep one configuration's
    # (a file whose rows mix configurations; raw.adapt_records).
    rows: bool = False


def _single(adapt: Callable[[Node], Adapted]) -> Callable[[list[Node]], Adapted]:
    def adapt_one(records: list[Node]) -> Adapted:
        return adapt(records[0])

    return adapt_one


# Order matters only where shapes overlap: lil-bench and the Benchmark Report before
# llm-inference-bench (all may hold "results"), and every format with a "metadata" key before
# llm-inference-bench's broad test.
FORMATS: tuple[Format, ...] = (
    Format(
        "lil-bench result document",
        lil_bench.looks_like,
        _single(lambda node: lil_bench.adapt(node.document)),
        sweep=False,
        tells='a `schema` text starting with "lil-bench-"',
        ttft_prompt_cache="warm",
    ),
    Format(
        "GuideLLM report",
        guidellm.looks_like,
        guidellm.adapt,
        sweep=True,
        tells="a `benchmarks` list whose entries hold `metrics` and `config` (or `args`)",
    ),
    Format(
        "AIPerf profile export",
        aiperf.looks_like_aiperf,
        aiperf.adapt,
        sweep=True,
        tells="`input_config` with `loadgen` or `phases` (or a `records` block), and metric "
        "objects such as `request_throughput`; a sweep's `profile_export_aiperf_sweep.json` has "
        "`per_combination_metrics`",
    ),
    Format(
        "GenAI-Perf profile export",
        aiperf.looks_like_genai_perf,
        aiperf.adapt,
        sweep=True,
        tells="`input_config` with `concurrency` and metric objects such as `request_throughput`",
    ),
    Format(
        "llama-bench output",
        llama_bench.looks_like,
        llama_bench.adapt,
        sweep=True,
        tells="rows with `build_commit`, `n_prompt` and `avg_ts`",
        rows=True,
    ),
    Format(
        "SGLang bench_serving result",
        sglang_bench.looks_like,
        sglang_bench.adapt,
        sweep=True,
        tells="`backend`, `completed`, `output_throughput` and "
        "`random_input_len`/`server_info`/`dataset_name`, no `model_id`",
    ),
    Format(
        "vLLM bench serve result",
        vllm_bench.looks_like,
        vllm_bench.adapt,
        sweep=True,
        tells="`model_id`, `completed`, `output_throughput` and `max_concurrency` or "
        "`request_rate`",
    ),
    Format(
        "llm-d Benchmark Report",
        benchmark_report.looks_like,
        benchmark_report.adapt,
        sweep=True,
        tells="`version` 0.2.x, `run` with `uid`, `scenario` and `results` (a report per load "
        "point)",
    ),
    Format(
        "llm-inference-bench benchmark_results.json",
        llm_inference_bench.looks_like,
        _single(llm_inference_bench.convert),
        sweep=False,
        tells="`metadata`, `results` or `prefill` at the top",
        ttft_prompt_cache="warm",
    ),
)

KNOWN = (
    "an llm-inference-bench benchmark_results.json, a lil-bench result document, a vLLM "
    "`bench serve --save-result` file, SGLang `bench_serving` JSON Lines, llama-bench `-o "
    "json`/`-o jsonl`, "
    "a GuideLLM report, or a GenAI-Perf/AIPerf profile export"
)
# The sections only a sitegen result file has at its top, besides its schema_version.
_RESULT_SECTIONS = ("hardware", "engine", "run", "measurements")


def formats_told_apart() -> list[str]:
    """Every format sitegen reads and what tells it apart, a line each, for the refusal of a
    file of none."""
    return [
        "a sitegen result file: `schema_version` with `hardware`, `engine`, `run` and "
        "`measurements`"
    ] + [f"{format_.name}: {format_.tells}" for format_ in FORMATS]


def is_result_file(data: Any) -> bool:
    """A sitegen result file by its whole shape, not by one key name: tools write a
    ``schema_version`` too (AIPerf's export has its own), but only a result file has its version
    beside one of sitegen's top-level sections and no tool's shape."""
    if not isinstance(data, dict) or "schema_version" not in data:
        return False
    sections = sum(isinstance(data.get(name), dict) for name in _RESULT_SECTIONS)
    return sections >= 1 and not any(format_.recognises(data) for format_ in FORMATS)


def recognise(data: Any) -> Format | None:
    """The format of one record, or None when it is none sitegen reads."""
    if isinstance(data, list):
        if not data:
            return None
        data = data[0]
    if not isinstance(data, dict) or is_result_file(data):
        return None
    for format_ in FORMATS:
        if format_.recognises(data):
            return format_
    return None
