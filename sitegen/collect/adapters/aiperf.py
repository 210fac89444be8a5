"""NVIDIA GenAI-Perf (``profile_export_genai_perf.json``) and AIPerf (``profile_export_aiperf.json``)
profile exports: one file per load point, a sweep being a folder of them.

Every metric is an object with its unit and statistics (``avg``, ``p50``, ``p99``, ``std``…):

* context = ``input_sequence_length.avg`` (measured); concurrency = ``input_config.concurrency``
  (GenAI-Perf) or ``input_config.loadgen.concurrency`` (AIPerf); a request-rate run is never a cell;
* total tok/s = ``output_token_throughput.avg``; TTFT = ``time_to_first_token.p50``; time between
  tokens = ``inter_token_latency.p50`` (run.latency_statistic ``median``), each with its statistics;
* per-request tok/s: AIPerf measures it (``output_token_throughput_per_user``, 1000 / each
  request's ITL); GenAI-Perf's ``output_token_throughput_per_request`` includes the first token,
  so 1000 / median ITL is used instead (derived, named in provenance).

AIPerf's GPU telemetry (DCGM) records the GPU name and count: used, and a run.yaml that
contradicts it is an error. ``metadata.submission_valid: false`` and runs with no successful
request are refused.
"""

from __future__ import annotations

from typing import Any

from sitegen.collect.adapters import serving, vllm_bench
from sitegen.collect.adapters._foreign import Adapted, Node, Record

_STATISTICS = {"avg": "mean", "std": "stddev", "min": "min", "max": "max", "p50": "p50", "p90": "p90",
               "p95": "p95", "p99": "p99"}
_LATENCIES = {"time_to_first_token": "ttft_ms", "inter_token_latency": "time_between_tokens_ms"}


# A non-streaming run has no TTFT, but always a request throughput and latency.
_METRICS = ("time_to_first_token", "request_throughput", "request_latency")


def looks_like_aiperf(data: Any) -> bool:
    config = data.get("input_config") if isinstance(data, dict) else None
    return isinstance(config, dict) and "loadgen" in config and any(key in data for key in _METRICS)


def looks_like_genai_perf(data: Any) -> bool:
    config = data.get("input_config") if isinstance(data, dict) else None
    return isinstance(config, dict) and "concurrency" in config and any(key in data for key in _METRICS)


def adapt(records: list[Node]) -> Adapted:
    aiperf = looks_like_aiperf(records[0].value)
    tool = "AIPerf" if aiperf else "GenAI-Perf"
    adapted = Adapted(f"{tool} profile export{'s' if len(records) != 1 else ''} ({len(records)} run"
                      f"{'s' if len(records) != 1 else ''})")
    points = [_point(record, aiperf) for record in records]
    adapted.put("run", "benchmark_tool", tool, records[0])
    adapted.put("run", "latency_statistic", "median", records[0])
    adapted.put("run", "decode_mode", "fixed-request-count", records[0])
    adapted.put("run", "prefill_mode", "not-measured", records[0])
    vllm_bench.same_model(adapted, [(record, _model(record)) for record in records])
    starts = sorted(text for record in records if (text := record.opt_text("start_time")))
    if starts:
        adapted.put("run", "date", records[0].need("start_time").iso_date() if len(starts) == 1
                    else starts[0][:10], records[0])
    if aiperf:
        _telemetry(adapted, records)
    serving.matrix(adapted, points, tool, "--concurrency N (one profile run per concurrency)")
    adapted.notes.append("per_request_tokens_per_s is AIPerf's output_token_throughput_per_user (median)." if aiperf
                         else "per_request_tokens_per_s = 1000 / median inter-token latency (derived): GenAI-Perf's "
                              "output_token_throughput_per_request includes the first token.")
    return adapted


def _model(record: Node) -> Node | None:
    config = record.need("input_config")
    endpoint = config.get("endpoint")
    names = endpoint.get("model_names") if endpoint is not None and isinstance(endpoint.value, dict) else None
    names = names or config.get("model")
    if names is None or not isinstance(names.value, list) or not names.value:
        return None
    return names.elements()[0]


def _point(record: Node, aiperf: bool) -> serving.Point:
    record.mapping()
    point = serving.Point(record, Record(record))
    config = record.need("input_config")
    metadata = record.get("metadata")
    if metadata is not None and isinstance(metadata.value, dict) and metadata.opt_flag("submission_valid") is False:
        point.failed = "AIPerf marked this run invalid (metadata.submission_valid false)"
        return point
    count = _value(record, "request_count", "avg")
    errors = _value(record, "error_request_count", "avg")
    if count == 0 or (count is None and errors):
        point.failed = f"no request succeeded ({errors or 0:g} errored)"
        return point
    loadgen = config.get("loadgen") if aiperf else config
    concurrency = loadgen.get("concurrency") if loadgen is not None else None
    rate = loadgen.get("request_rate") if loadgen is not None else None
    if rate is not None and serving.finite(rate.value) and rate.value > 0:
        point.open_loop = f"driven by a request rate of {rate.value:g}/s"
    elif concurrency is None:
        point.open_loop = "no fixed concurrency is recorded"
    else:
        point.concurrency = concurrency.integer()
    point.mean_input_tokens = _value(record, "input_sequence_length", "avg")
    point.figure("total_tokens_per_s", _value(record, "output_token_throughput", "avg"), None)
    for metric, figure in _LATENCIES.items():
        point.figure(figure, _value(record, metric, "p50"), None)
        _statistics(point, record, metric, figure)
    if aiperf and record.get("output_token_throughput_per_user") is not None:
        point.figure("per_request_tokens_per_s", _value(record, "output_token_throughput_per_user", "p50"), None)
        _statistics(point, record, "output_token_throughput_per_user", "per_request_tokens_per_s")
    else:
        itl = _value(record, "inter_token_latency", "p50")
        if itl:
            point.figure("per_request_tokens_per_s", 1000 / itl, None)
            point.statistic("per_request_tokens_per_s", "p50", 1000 / itl)
    if count is not None:
        point.record.set("completed_requests", int(count))
    point.figure("measured_s", _value(record, "benchmark_duration", "avg"), None)
    point.keep("mean_output_tokens", _value(record, "output_sequence_length", "avg"))
    if errors:
        point.keep("errored_requests", errors)
    return point


def _value(record: Node, metric: str, statistic: str) -> float | None:
    node = record.get(metric)
    if node is None or not isinstance(node.value, dict):
        return None
    value = node.opt_number(statistic)
    return float(value) if value is not None and serving.finite(value) else None


def _statistics(point: serving.Point, record: Node, metric: str, figure: str) -> None:
    for key, name in _STATISTICS.items():
        point.statistic(figure, name, _value(record, metric, key))


def _telemetry(adapted: Adapted, records: list[Node]) -> None:
    """GPU name and count from DCGM telemetry, when it was on."""
    gpus: dict[str, set[str]] = {}
    where: Node | None = None
    for record in records:
        telemetry = record.get("telemetry_data")
        endpoints = telemetry.get("endpoints") if telemetry is not None else None
        if endpoints is None:
            continue
        for host, endpoint in endpoints.items():
            devices = endpoint.get("gpus")
            for key, device in devices.items() if devices is not None else []:
                name = device.opt_text("gpu_name")
                if name:
                    # By UUID: two DCGM exporters may report the same GPU (the fixtures' do).
                    gpus.setdefault(name, set()).add(device.opt_text("gpu_uuid") or f"{host}/{key}")
                    where = where or device.need("gpu_name")
    if where is None:
        return
    if len(gpus) > 1:
        adapted.notes.append(f"The telemetry saw different GPUs ({', '.join(sorted(gpus))}); the accelerator "
                             "comes from run.yaml.")
        return
    [(name, seen)] = gpus.items()
    shown = name
    vendor = "NVIDIA" if name.startswith("NVIDIA ") else None
    if vendor:
        adapted.put("hardware", "vendor", vendor, where)
        name = name.removeprefix("NVIDIA ").strip()
    words = shown.lower().split()
    adapted.record("hardware", "accelerator", name, where, f"the GPU {shown!r} (telemetry gpu_name)",
                   lambda given: all(word in words for word in str(given).lower().split()))
    count = len(seen)
    # The telemetry sees every GPU of the host, not only the server's: run.yaml's count wins.
    adapted.put("hardware", "count", count, where)
