"""SGLang's serving benchmark: ``python -m sglang.bench_serving --output-file X.jsonl``, one JSON
line per benchmark, appended (one file may hold a sweep; several files may too).

Two key sets: the old one (2024, 17 keys: no TPOT, no mean TTFT, no server_info) and the new
one (0.5.x: ``server_info`` with the server's ``version``, ``model_path``, ``tp_size``…, and
vLLM's ``{mean,median,std,pNN}_{ttft,tpot,itl}_ms`` names). The figures are read as for vLLM
(:mod:`.vllm_bench`); an old-schema line has no TPOT, so its time between tokens is the
median ITL and per-request tok/s is left out. The engine version comes from ``server_info``
(a run.yaml that says another is an error); context is measured: ``random_input_len`` is only
an upper bound (at ``--random-range-ratio 0`` the prompts average about half of it).
Request rates may be a bare ``Infinity``.
"""

from __future__ import annotations

from typing import Any

from sitegen.collect.adapters import serving, vllm_bench
from sitegen.collect.adapters._foreign import Adapted, Node, Record

TOOL = "sglang.bench_serving"


def looks_like(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and "backend" in data
        and "completed" in data
        and "output_throughput" in data
        and ("random_input_len" in data or "server_info" in data or "dataset_name" in data)
        and "model_id" not in data
    )


def adapt(records: list[Node]) -> Adapted:
    adapted = Adapted(
        f"{TOOL} result{'s' if len(records) != 1 else ''} ({len(records)} line"
        f"{'s' if len(records) != 1 else ''})"
    )
    points = [_point(record) for record in records]
    _run_facts(adapted, records)
    serving.matrix(
        adapted, points, TOOL, "--max-concurrency N and --request-rate inf, one run per concurrency"
    )
    if any(record.get("median_tpot_ms") is not None for record in records):
        adapted.notes.append(vllm_bench.DERIVED_NOTE.format(tool="SGLang"))
    if any(record.get("median_tpot_ms") is None for record in records):
        adapted.notes.append(
            "Lines of the old bench_serving key set record no TPOT: their time between tokens is "
            "the median inter-token latency (median_itl_ms) and per-request tok/s is left out."
        )
    return adapted


def _point(line: Node) -> serving.Point:
    line.mapping()
    point = serving.Point(line, Record(line))
    completed = line.need("completed").integer()
    if completed == 0:
        point.failed = "every request failed (completed 0)"
        return point
    concurrency = line.get("max_concurrency")
    request_rate = line.get("request_rate")
    rate = serving.rate(request_rate) if request_rate is not None else float("inf")
    if concurrency is None:
        point.open_loop = (
            "every request sent at once (request_rate Infinity, no max_concurrency)"
            if rate == float("inf")
            else f"driven by a request rate of {rate:g}/s (no max_concurrency)"
        )
    elif rate != float("inf"):
        point.open_loop = (
            f"driven by a request rate of {rate:g}/s with max_concurrency {concurrency.integer()}: "
            "the rate, not the concurrency, set the load"
        )
    else:
        point.concurrency = concurrency.integer()
    input_tokens = line.opt_integer("total_input_tokens")
    point.mean_input_tokens = input_tokens / completed if input_tokens else None
    vllm_bench.figures(point, line, completed)
    if line.get("median_tpot_ms") is None:
        point.figure("time_between_tokens_ms", line.opt_number("median_itl_ms"), "median_itl_ms")
        vllm_bench.family(point, line, "itl", "time_between_tokens_ms")
    for key in (
        "dataset_name",
        "random_input_len",
        "random_output_len",
        "random_range_ratio",
        "concurrency",
    ):
        child = line.get(key)
        point.keep(
            "measured_concurrency" if key == "concurrency" else key,
            None if child is None else child.value,
        )
    if request_rate is not None:
        point.keep("request_rate", str(request_rate.value))
    return point


def _run_facts(adapted: Adapted, lines: list[Node]) -> None:
    adapted.put("run", "benchmark_tool", TOOL, lines[0])
    adapted.put("run", "latency_statistic", "median", lines[0])
    adapted.put("run", "decode_mode", "fixed-request-count", lines[0])
    adapted.put("run", "prefill_mode", "not-measured", lines[0])
    if all(line.opt_text("backend") in ("sglang", "sglang-native", "sglang-oai") for line in lines):
        adapted.put("engine", "name", "sglang", lines[0])
    infos = [(line, info) for line in lines if (info := line.get("server_info")) is not None]
    models = [
        (line, info.get("served_model_name") or info.get("model_path")) for line, info in infos
    ]
    vllm_bench.same_model(adapted, models)
    if infos:
        adapted.put(
            "engine", "name", "sglang", infos[0][1]
        )  # server_info is SGLang's /get_server_info
        _server(adapted, infos)


def _server(adapted: Adapted, infos: list[tuple[Node, Node]]) -> None:
    versions = [
        (line, version) for line, info in infos if (version := info.get("version")) is not None
    ]
    if versions:
        first_line, first = versions[0]
        for _, version in versions[1:]:
            if version.text() != first.text():
                raise version.error(
                    f"this benchmark ran against SGLang {version.text()}, but "
                    f"{serving.where(first_line)} against {first.text()}: one run is one server, "
                    "so import them separately"
                )
        recorded = first.text()
        adapted.record(
            "engine",
            "version",
            recorded,
            first,
            f"SGLang {recorded} (server_info.version)",
            lambda given: str(given).strip().removeprefix("v") == recorded.removeprefix("v"),
        )
    info = infos[0][1]
    tp = info.opt_integer("tp_size")
    dp = info.opt_integer("dp_size")
    if tp:
        adapted.put(
            "engine", "parallelism", f"TP{tp}" + (f" DP{dp}" if dp and dp > 1 else ""), info
        )
    quantization = info.get("quantization")
    if quantization is not None and isinstance(quantization.value, str) and quantization.value:
        adapted.put("engine", "quantization", quantization.value, quantization)
