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
    # run.ttft_prompt_cache of every run of this format: what the tool does before it measures
    # TTFT (evidence per tool in docs/importing.md); None where the file cannot tell.
    ttft_prompt_cache: str | None = None


def _single(adapt: Callable[[Node], Adapted]) -> Callable[[list[Node]], Adapted]:
    def adapt_one(records: list[Node]) -> Adapted:
        return adapt(records[0])
    return adapt_one


# Order matters only where shapes overlap: lil-bench before llm-inference-bench (both may
# hold "results"), and every format with a "metadata" key before llm-inference-bench's
# broad test.
FORMATS: tuple[Format, ...] = (
    Format("lil-bench result document", lil_bench.looks_like,
           _single(lambda node: lil_bench.adapt(node.document)), sweep=False,
           ttft_prompt_cache="warm"),
    Format("GuideLLM report", guidellm.looks_like, guidellm.adapt, sweep=True),
    Format("AIPerf profile export", aiperf.looks_like_aiperf, aiperf.adapt, sweep=True),
    Format("GenAI-Perf profile export", aiperf.looks_like_genai_perf, aiperf.adapt, sweep=True),
    Format("llama-bench output", llama_bench.looks_like, llama_bench.adapt, sweep=True),
    Format("SGLang bench_serving result", sglang_bench.looks_like, sglang_bench.adapt, sweep=True),
    Format("vLLM bench serve result", vllm_bench.looks_like, vllm_bench.adapt, sweep=True),
    Format("llm-inference-bench benchmark_results.json", llm_inference_bench.looks_like,
           _single(llm_inference_bench.convert), sweep=False, ttft_prompt_cache="warm"),
)

KNOWN = ("an llm-inference-bench benchmark_results.json, a lil-bench result document, a vLLM "
         "`bench serve --save-result` file, SGLang `bench_serving` JSON Lines, llama-bench `-o json`/`-o jsonl`, "
         "a GuideLLM report, or a GenAI-Perf/AIPerf profile export")


def is_result_file(data: Any) -> bool:
    """A sitegen result file (it declares its schema version), not raw output."""
    return isinstance(data, dict) and "schema_version" in data


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
