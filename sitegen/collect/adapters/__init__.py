"""Adapters turn foreign formats into canonical result documents before validation,
so that the schema stays the single contract. One module per tool:

* :mod:`.llm_inference_bench` — ``benchmark_results.json`` of llm-inference-bench;
* :mod:`.lil_bench` — lil-bench result documents (which embed the former);
* :mod:`.vllm_bench` — ``vllm bench serve --save-result`` files and ``vllm bench sweep`` folders;
* :mod:`.sglang_bench` — ``python -m sglang.bench_serving`` JSON Lines;
* :mod:`.llama_bench` — ``llama-bench -o json|jsonl``;
* :mod:`.guidellm` — GuideLLM reports (JSON or YAML, both schema generations);
* :mod:`.aiperf` — GenAI-Perf and AIPerf profile exports.

:mod:`.registry` is the one place that tells which format a document is, for every way a
raw file comes in (a folder under content/runs/, a remote source, ``sitegen import``);
:mod:`.raw` reads raw files and merges an adapter's result with run.yaml. This package
module itself imports nothing, so that an adapter may import a sibling without a cycle.
"""
