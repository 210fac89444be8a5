"""GuideLLM reports (``guidellm benchmark … --output-path X.json|.yaml``), both schema
generations: ≥0.4 (``metadata``, ``args``, ``benchmarks[].config/metrics``) and the older one
(``benchmarks[].args/run_stats/worker``). One report holds one entry per load point.

Per entry, from ``metrics.<name>.successful`` (errored and incomplete requests are counted in
source_values, never mixed in): context = mean ``prompt_token_count``; total tok/s = mean
``output_tokens_per_second``; TTFT = median ``time_to_first_token_ms``; time between tokens =
median ``inter_token_latency_ms``; per-request tok/s = 1000 / that median (derived, named in
provenance). Concurrency: ``synchronous`` is 1, ``concurrent`` its streams; ``throughput``,
``constant`` and ``poisson`` are driven by a rate and never become matrix cells.
"""

from __future__ import annotations

import datetime
from typing import Any

from sitegen.collect.adapters import serving, vllm_bench
from sitegen.collect.adapters._foreign import Adapted, Node, Record

TOOL = "GuideLLM"
_PERCENTILES = {"p50": "p50", "p90": "p90", "p95": "p95", "p99": "p99", "p999": "p99.9"}
_FIGURES = {"time_to_first_token_ms": "ttft_ms", "inter_token_latency_ms": "time_between_tokens_ms"}


def looks_like(data: Any) -> bool:
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("benchmarks"), list)
        or not data["benchmarks"]
    ):
        return False
    first = data["benchmarks"][0]
    return isinstance(first, dict) and "metrics" in first and ("config" in first or "args" in first)


def adapt(records: list[Node]) -> Adapted:
    entries = [entry for record in records for entry in record.need("benchmarks").elements()]
    adapted = Adapted(
        f"{TOOL} report{'s' if len(records) != 1 else ''} ({len(entries)} benchmark"
        f"{'s' if len(entries) != 1 else ''})"
    )
    points = [_point(entry) for entry in entries]
    adapted.put("run", "benchmark_tool", TOOL, records[0])
    adapted.put("run", "latency_statistic", "median", records[0])
    adapted.put("run", "prefill_mode", "not-measured", records[0])
    metadata = records[0].get("metadata")
    version = metadata.opt_text("guidellm_version") if metadata is not None else None
    if version:
        source = metadata.need("guidellm_version")  # type: ignore[union-attr]
        adapted.put("run", "benchmark_tool_version", version, source)
    vllm_bench.same_model(
        adapted,
        [
            (entry, _model(record, entry))
            for record in records
            for entry in record.need("benchmarks").elements()
        ],
    )
    starts = [
        float(start)
        for entry in entries
        if (start := entry.opt_number("start_time")) is not None and serving.finite(start)
    ]
    if starts:
        date = datetime.datetime.fromtimestamp(min(starts), tz=datetime.UTC).date().isoformat()
        adapted.put("run", "date", date, entries[0])
    serving.matrix(adapted, points, TOOL, "--profile synchronous or --profile concurrent --rate N")
    adapted.notes.append(
        "per_request_tokens_per_s = 1000 / median inter-token latency (derived); total tok/s is "
        "GuideLLM's mean output_tokens_per_second; only successful requests are counted."
    )
    return adapted


def _model(record: Node, entry: Node) -> Node | None:
    """The model: the report's ``args.model`` (0.4–0.5), ``config.backend.model`` (0.6 on, the
    report's or the benchmark's), or the worker's ``backend_model`` (≤0.3)."""
    args = record.get("args")
    if args is not None and args.get("model") is not None:
        return args.get("model")
    for config in (record.get("config"), entry.get("config")):
        backend = (
            config.get("backend") if config is not None and isinstance(config.value, dict) else None
        )
        if (
            backend is not None
            and isinstance(backend.value, dict)
            and isinstance(backend.value.get("model"), str)
        ):
            return backend.get("model")
    worker = entry.get("worker")
    return worker.get("backend_model") if worker is not None else None


def _point(entry: Node) -> serving.Point:
    point = serving.Point(entry, Record(entry))
    config = entry.get("config") or entry.need("args")
    strategy = config.need("strategy")
    kind = strategy.need("type_").text()
    if kind == "synchronous":
        point.concurrency = 1
    elif kind == "concurrent":
        streams = strategy.get("streams") or strategy.need("max_concurrency")
        point.concurrency = streams.integer()
    else:
        rate = strategy.opt_number("rate")
        if (
            kind in ("constant", "poisson")
            and rate is not None
            and serving.finite(rate)
            and rate > 0
        ):
            cap = _rate_cap(config, strategy)
            point.load = serving.Load(
                float(rate), kind, max_concurrency=cap.integer() if cap is not None else None
            )
        point.open_loop = (
            "the 'throughput' strategy sends requests as fast as the server takes them, with no "
            "fixed concurrency"
            if kind == "throughput"
            else f"the {kind!r} strategy"
            + (f" at {rate:g} requests/s" if rate else "")
            + " is driven by a request rate, not a fixed concurrency"
        )
    totals = _request_totals(entry)
    successful = totals.get("successful")
    if successful == 0:
        point.failed = (
            f"no request succeeded ({totals.get('errored', 0)} errored, "
            f"{totals.get('incomplete', 0)} incomplete)"
        )
        return point
    metrics = entry.need("metrics")
    prompt = _successful(metrics, "prompt_token_count")
    point.mean_input_tokens = prompt.opt_number("mean") if prompt is not None else None
    output_count = _successful(metrics, "output_token_count")
    mean_output = output_count.opt_number("mean") if output_count is not None else None
    point.mean_output_tokens = float(mean_output) if mean_output else None
    achieved = _successful(metrics, "requests_per_second")
    if (
        point.load is not None
        and achieved is not None
        and serving.finite(achieved.opt_number("mean"))
    ):
        point.load_figures["request_throughput"] = (
            serving.rounded(float(achieved.need("mean").number())),
            "",
        )
    output = _successful(metrics, "output_tokens_per_second")
    if output is not None:
        point.figure("total_tokens_per_s", output.opt_number("mean"), None)
    for metric, figure in _FIGURES.items():
        values = _successful(metrics, metric)
        if values is None:
            continue
        median = values.opt_number("median")
        point.figure(figure, median, None)
        _statistics(point, figure, values)
        if figure == "time_between_tokens_ms" and median:
            point.figure("per_request_tokens_per_s", 1000 / median, None)
            point.statistic("per_request_tokens_per_s", "p50", 1000 / median)
    if successful is not None:
        point.record.set("completed_requests", successful)
    for status in ("errored", "incomplete"):
        if totals.get(status):
            point.keep(f"{status}_requests", totals[status])
    concurrency = _successful(metrics, "request_concurrency")
    if concurrency is not None:
        point.keep("measured_concurrency", concurrency.opt_number("mean"))
    point.keep("strategy", kind)
    _transient(point, entry, totals)
    _goodput(point, entry, metrics)
    _warnings(point, entry)
    duration = entry.opt_number("duration")
    point.figure("measured_s", duration, "duration")
    return point


def _rate_cap(config: Node, strategy: Node) -> Node | None:
    """The cap on requests in flight a rate benchmark was given. From 0.6 on the strategy's
    ``max_concurrency`` is filled with GuideLLM's own worker limit when the user set none, so
    the benchmark's ``profile`` (the user's settings) says whether there was one."""
    profile = config.get("profile")
    if profile is not None and isinstance(profile.value, dict):
        return profile.get("max_concurrency")
    return strategy.get("max_concurrency")


def _request_totals(entry: Node) -> dict[str, int]:
    """The requests the figures cover: ``metrics.request_totals`` (the measured window), else the
    old report's ``request_totals``; the scheduler's ``requests_made`` also counts warm-up and
    cool-down, so it is the last resort."""
    metrics = entry.get("metrics")
    totals = (
        metrics.get("request_totals")
        if metrics is not None and isinstance(metrics.value, dict)
        else None
    )
    totals = totals or entry.get("request_totals") or _requests_made(entry)
    if totals is None:
        return {}
    return {key: child.integer() for key, child in totals.items() if child.value is not None}


def _requests_made(entry: Node) -> Node | None:
    scheduler = entry.get("scheduler_metrics")
    return scheduler.get("requests_made") if scheduler is not None else None


def _transient(point: serving.Point, entry: Node, totals: dict[str, int]) -> None:
    """Warm-up and cool-down requests, said apart from the measured ones they are not part of."""
    made = _requests_made(entry)
    successful = made.opt_integer("successful") if made is not None else None
    if (
        successful is not None
        and totals.get("successful") is not None
        and successful > totals["successful"]
    ):
        point.keep("warmup_cooldown_requests", successful - totals["successful"])
    for phase in ("warmup_duration", "cooldown_duration"):
        seconds = entry.opt_number(phase)
        if seconds:
            point.keep(f"{phase}_s", float(seconds))


def _goodput(point: serving.Point, entry: Node, metrics: Node) -> None:
    """SLO attainment and goodput as GuideLLM 0.8 reports them against the benchmark's own
    objectives (``config.slo``, in source_values beside them), never computed here."""
    attainment = metrics.opt_number("slo_attainment")
    if attainment is None or not serving.finite(attainment):
        return  # no objectives were set (or a report before 0.8)
    point.keep("slo_attainment", float(attainment))
    point.keep("slo_determined_requests", metrics.opt_number("slo_determined_requests"))
    goodput = _successful(metrics, "request_goodput")
    if goodput is not None:
        point.keep("goodput_requests_per_s", goodput.opt_number("mean"))
    config = entry.get("config")
    objectives = config.get("slo") if config is not None else None
    if objectives is not None and isinstance(objectives.value, dict):
        for name in ("ttft_ms", "tpot_ms", "e2el_ms"):
            if objectives.opt_number(name) is not None:
                point.keep(f"slo_{name}", objectives.opt_number(name))


def _warnings(point: serving.Point, entry: Node) -> None:
    """GuideLLM 0.8's own warnings about a benchmark (a client that could not keep up, late
    arrivals), quoted as the cell's note."""
    warnings = entry.get("warnings")
    if warnings is None or not isinstance(warnings.value, list):
        return
    said = [
        f"{str(warning.get('code', '?'))[:100]}: {str(warning.get('message', ''))[:300]}"
        for warning in warnings.value[:5]
        if isinstance(warning, dict)
    ]
    if said:
        point.record.set("note", f"GuideLLM warned: {'; '.join(said)}"[:2000])


def _successful(metrics: Node, name: str) -> Node | None:
    metric = metrics.get(name)
    return metric.get("successful") if metric is not None else None


def _statistics(point: serving.Point, figure: str, values: Node) -> None:
    point.statistic(figure, "mean", values.opt_number("mean"))
    point.statistic(figure, "p50", values.opt_number("median"))
    point.statistic(figure, "stddev", values.opt_number("std_dev"))
    point.statistic(figure, "min", values.opt_number("min"))
    point.statistic(figure, "max", values.opt_number("max"))
    percentiles = values.get("percentiles")
    if percentiles is not None and isinstance(percentiles.value, dict):
        for key, name in _PERCENTILES.items():
            point.statistic(figure, name, percentiles.opt_number(key))
