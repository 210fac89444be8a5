"""NVIDIA GenAI-Perf (``profile_export_genai_perf.json``) and AIPerf
(``profile_export_aiperf.json``)
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

An artifact folder holds more than each benchmark's export: per-phase copies (0.12 on) and
confidence aggregates over repeated runs (0.9 on) are recognised and left out, never cells.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sitegen.collect.adapters import serving, vllm_bench
from sitegen.collect.adapters._foreign import Adapted, Node, Record

_STATISTICS = {
    "avg": "mean",
    "std": "stddev",
    "min": "min",
    "max": "max",
    "p50": "p50",
    "p90": "p90",
    "p95": "p95",
    "p99": "p99",
}
_LATENCIES = {"time_to_first_token": "ttft_ms", "inter_token_latency": "time_between_tokens_ms"}


# A non-streaming run has no TTFT, but always a request throughput and latency.
_METRICS = ("time_to_first_token", "request_throughput", "request_latency")


# The keys that hold the load generator's settings, by export generation: ``loadgen`` (AIPerf
# before 0.11), ``phases`` (AIPerf 0.11 on, export schema 1.x).
_AIPERF_CONFIGS = ("loadgen", "phases")


def looks_like_aiperf(data: Any) -> bool:
    if is_confidence_aggregate(data):
        return True
    if isinstance(data, dict) and isinstance(data.get("per_combination_metrics"), list):
        return data.get("aggregation_type") == "sweep" or "metadata" in data
    config = data.get("input_config") if isinstance(data, dict) else None
    return (
        isinstance(config, dict)
        and any(key in config for key in _AIPERF_CONFIGS)
        and any(key in _metrics_of(data) for key in _METRICS)
    )


def looks_like_genai_perf(data: Any) -> bool:
    config = data.get("input_config") if isinstance(data, dict) else None
    return (
        isinstance(config, dict)
        and "concurrency" in config
        and any(key in data for key in _METRICS)
    )


def _metrics_of(data: dict[str, Any]) -> dict[str, Any]:
    """Where an export keeps its metrics: at the top, or under ``records`` (AIPerf before 0.2)."""
    records = data.get("records")
    return records if isinstance(records, dict) else data


def is_confidence_aggregate(data: Any) -> bool:
    """AIPerf's aggregate over repeated profile runs (``metadata.aggregation_type``
    ``confidence``, AIPerf 0.8 on): means and confidence intervals across runs, which a sweep
    folder holds beside each run's own export."""
    metadata = data.get("metadata") if isinstance(data, dict) else None
    return (
        isinstance(metadata, dict)
        and metadata.get("aggregation_type") == "confidence"
        and isinstance(data.get("metrics"), dict)
    )


def adapt(records: list[Node]) -> Adapted:
    exports = [record for record in records if not is_confidence_aggregate(record.value)]
    if not exports:
        raise records[0].error(
            "this is AIPerf's aggregate over repeated profile runs (metadata.aggregation_type "
            "'confidence'): its metrics are statistics across runs, not one run's figures; import "
            "the runs' own profile_export_aiperf.json files instead"
        )
    runs = _without_phase_copies(exports)
    adapted = _adapt_exports(runs)
    left_out = len(records) - len(exports), len(exports) - len(runs)
    if left_out[0]:
        adapted.notes.append(
            f"{_files(left_out[0])} of AIPerf's confidence aggregate (statistics across runs) "
            "not read: the runs' own exports were."
        )
    if left_out[1]:
        adapted.notes.append(
            f"{_files(left_out[1])} of AIPerf's per-phase exports (a copy of one phase of a "
            "benchmark, with its benchmark_id) not read: each benchmark's own export was."
        )
    return adapted


def _files(count: int) -> str:
    return f"{count} file{'s' if count != 1 else ''}"


def _without_phase_copies(records: list[Node]) -> list[Node]:
    """Each benchmark's own export, without the per-phase copies AIPerf 0.12 on writes beside it
    (``phases/<name>/``: the same benchmark_id, run_info and settings, nothing naming the phase).

    Of the exports that share all three, the benchmark's own is the one with ``telemetry_data``
    or ``warmup_metrics`` (a phase's copy has neither), else the one that started last (the
    warm-up phase comes first). A benchmark_id alone is no key: AIPerf 0.8 gives every point of
    a sweep the same one."""
    keys = [_copy_key(record) for record in records]
    chosen: dict[str, Node] = {}
    for record, key in zip(records, keys, strict=True):
        if key is not None and (key not in chosen or _rank(record) > _rank(chosen[key])):
            chosen[key] = record
    kept = {id(record) for record in chosen.values()}
    return [
        record
        for record, key in zip(records, keys, strict=True)
        if key is None or id(record) in kept
    ]


def _copy_key(record: Node) -> str | None:
    """What a benchmark's export and its per-phase copies have in common (None without a
    benchmark_id)."""
    value = record.value
    info = value.get("run_info")
    ids = [source.get("benchmark_id") for source in (info, value) if isinstance(source, dict)]
    benchmark = next((found for found in ids if isinstance(found, str)), None)
    if benchmark is None:
        return None
    return json.dumps([benchmark, info, value.get("input_config")], sort_keys=True, default=str)


def _rank(record: Node) -> tuple[bool, str]:
    own = any(key in record.value for key in ("telemetry_data", "warmup_metrics"))
    start = record.value.get("start_time")
    return own, start if isinstance(start, str) else ""


def _adapt_exports(records: list[Node]) -> Adapted:
    aiperf = looks_like_aiperf(records[0].value)
    tool = "AIPerf" if aiperf else "GenAI-Perf"
    runs = [record for record in records if record.get("per_combination_metrics") is None]
    if runs and len(runs) < len(records):
        # A sweep folder holds both: the per-concurrency exports keep the settings the summary
        # lacks.
        records = runs
    exports = [export for record in records for export in _exports(record)]
    adapted = Adapted(
        f"{tool} profile export{'s' if len(records) != 1 else ''} ({len(exports)} run"
        f"{'s' if len(exports) != 1 else ''})"
    )
    points = [_point(export, aiperf) for export in exports]
    adapted.put("run", "benchmark_tool", tool, records[0])
    adapted.put("run", "latency_statistic", "median", records[0])
    _decode_mode(adapted, exports)
    adapted.put("run", "prefill_mode", "not-measured", records[0])
    _version(adapted, records)
    vllm_bench.same_model(
        adapted,
        [
            (export.record, _model(export.record))
            for export in exports
            if export.record.get("input_config") is not None
        ],
    )
    starts = sorted(text for export in exports if (text := export.record.opt_text("start_time")))
    if starts:
        adapted.put(
            "run",
            "date",
            exports[0].record.need("start_time").iso_date() if len(starts) == 1 else starts[0][:10],
            exports[0].record,
        )
    if aiperf:
        _telemetry(adapted, records)
    _provenance(adapted, records)
    serving.matrix(adapted, points, tool, "--concurrency N (one profile run per concurrency)")
    _per_request_note(adapted, exports, aiperf)
    return adapted


def _per_request_note(adapted: Adapted, exports: list[_Export], aiperf: bool) -> None:
    """Where per_request_tokens_per_s comes from, said only when some export has its source (a
    non-streaming run has neither)."""

    def has(metric: str) -> bool:
        return any(export.metrics.get(metric) is not None for export in exports)

    if aiperf and has("output_token_throughput_per_user"):
        adapted.notes.append(
            "per_request_tokens_per_s is AIPerf's output_token_throughput_per_user (median)."
        )
    elif has("inter_token_latency"):
        adapted.notes.append(
            "per_request_tokens_per_s = 1000 / median inter-token latency (derived): the export "
            "has no output_token_throughput_per_user, and GenAI-Perf's "
            "output_token_throughput_per_request includes the first token."
        )


@dataclass(frozen=True)
class _Export:
    """One profile run: the file (or sweep entry) it is, where its metrics are, and the load
    generator's settings (None in a sweep summary, which keeps only the swept values)."""

    record: Node
    metrics: Node
    load: Node | None
    concurrency: Node | None


def _exports(record: Node) -> list[_Export]:
    combinations = record.get("per_combination_metrics")
    if combinations is not None:
        exports = []
        for entry in combinations.elements():
            parameters = entry.need("parameters")
            exports.append(
                _Export(entry, entry.need("metrics"), None, parameters.get("concurrency"))
            )
        return exports
    config = record.need("input_config")
    load = _load(config)
    metrics = record.get("records") if isinstance(record.value.get("records"), dict) else record
    return [
        _Export(
            record, metrics or record, load, load.get("concurrency") if load is not None else None
        )
    ]


def _load(config: Node) -> Node | None:
    """The load generator's settings: ``loadgen``, the profiling phase, or GenAI-Perf's config."""
    if config.get("loadgen") is not None:
        return config.get("loadgen")
    phases = config.get("phases")
    if phases is not None:
        measured = [
            phase
            for phase in phases.elements()
            if phase.opt_flag("exclude_from_results") is not True
        ]
        profiling = [phase for phase in measured if phase.opt_text("name") == "profiling"]
        chosen = profiling or measured
        return chosen[-1] if chosen else None
    return config


def _decode_mode(adapted: Adapted, exports: list[_Export]) -> None:
    """Fixed duration or fixed request count, from the load generator's settings; a sweep
    summary keeps none, so it says nothing."""
    modes: set[str] = set()
    where: Node | None = None
    for export in exports:
        load = export.load
        if load is None:
            continue
        duration = (
            load.get("benchmark_duration")
            or load.get("duration")
            or load.get("measurement_interval")
        )
        count = load.get("request_count") or load.get("requests")
        if duration is not None and serving.finite(duration.value) and duration.value > 0:
            modes.add("fixed-duration")
            where = where or duration
        elif count is not None and serving.finite(count.value) and count.value > 0:
            modes.add("fixed-request-count")
            where = where or count
    if len(modes) == 1 and where is not None:
        adapted.put("run", "decode_mode", modes.pop(), where)


def _version(adapted: Adapted, records: list[Node]) -> None:
    for record in records:
        for key in ("aiperf_version", "genai_perf_version"):
            version = record.get(key)
            if version is not None and isinstance(version.value, str) and version.value.strip():
                adapted.put("run", "benchmark_tool_version", version.value.strip()[:200], version)
                return


def _provenance(adapted: Adapted, records: list[Node]) -> None:
    """The export's seed, sweep identifiers, schema version and command, in provenance."""
    first = records[0]
    info = first.get("run_info")
    config = first.get("input_config")
    facts: list[str] = []
    schema = first.get("schema_version")
    if schema is not None and isinstance(schema.value, str) and schema.value.strip():
        facts.append(f"export schema_version {schema.value}")
        adapted.tool_run["export_schema_version"] = schema.value.strip()[:20]
    # run_info (schema 1.3 on), the export's top level (benchmark_id in 1.0), the configuration
    # and its artifacts section (cli_command in 1.0).
    nested = [config.get(key) for key in ("input", "artifacts")] if config is not None else []
    sources = [
        node
        for node in (info, first, config, *nested)
        if node is not None and isinstance(node.value, dict)
    ]
    for key, kind in (
        ("random_seed", int),
        ("sweep_id", str),
        ("benchmark_id", str),
        ("variation_label", str),
        ("trial", int),
    ):
        found = next((node.value[key] for node in sources if node.value.get(key) is not None), None)
        if (
            isinstance(found, kind)
            and not isinstance(found, bool)
            and not (isinstance(found, int) and found < 0)
        ):
            facts.append(f"{key} {found}")
            adapted.tool_run[key] = found.strip()[:200] if isinstance(found, str) else found
    if facts:
        adapted.notes.append(f"AIPerf export: {', '.join(facts)}."[:2000])
    command = next(
        (
            node.value["cli_command"]
            for node in sources
            if isinstance(node.value.get("cli_command"), str)
        ),
        None,
    )
    if command and command.strip():
        adapted.notes.append(f"Command: {command}"[:2000])
        adapted.tool_run["command"] = command.strip()[:20000]


def _model(record: Node) -> Node | None:
    config = record.need("input_config")
    endpoint = config.get("endpoint")
    names = (
        endpoint.get("model_names")
        if endpoint is not None and isinstance(endpoint.value, dict)
        else None
    )
    models = config.get("models")
    if names is None and models is not None and isinstance(models.value, dict):
        items = models.get("items")
        first = items.elements()[0] if items is not None and items.sequence() else None
        return first.get("name") if first is not None else None
    names = names or config.get("model")
    if names is None or not isinstance(names.value, list) or not names.value:
        return None
    return names.elements()[0]


def _invalid(record: Node) -> str:
    """Why the export itself says the run is not valid, quoted from it ("" when it does not)."""
    metadata = record.get("metadata")
    if (
        metadata is None
        or not isinstance(metadata.value, dict)
        or metadata.opt_flag("submission_valid") is not False
    ):
        return ""
    reasons = metadata.get("submission_invalid_reasons")
    quoted = (
        ", ".join(repr(str(reason)) for reason in reasons.value)
        if reasons is not None and isinstance(reasons.value, list) and reasons.value
        else "none given"
    )
    return (
        f"AIPerf marked this run invalid (metadata.submission_valid false; "
        f"submission_invalid_reasons: {quoted})"
    )


def _point(export: _Export, aiperf: bool) -> serving.Point:
    record, metrics = export.record, export.metrics
    record.mapping()
    point = serving.Point(record, Record(record))
    invalid = _invalid(record)
    if invalid:
        point.failed = invalid
        return point
    count = _value(metrics, "request_count", "avg")
    errors = _value(metrics, "error_request_count", "avg")
    if count == 0 or (count is None and errors):
        point.failed = (
            f"no request succeeded (request_count.avg {count or 0:g}, "
            f"error_request_count.avg {errors or 0:g}{_error_kinds(record)})"
        )
        return point
    _place(point, export)
    point.mean_input_tokens = _value(metrics, "input_sequence_length", "avg")
    point.input_field = " (the export has no `input_sequence_length`)"
    point.figure("total_tokens_per_s", _value(metrics, "output_token_throughput", "avg"), None)
    for metric, figure in _LATENCIES.items():
        point.figure(figure, _value(metrics, metric, "p50"), None)
        _statistics(point, metrics, metric, figure)
    if aiperf and metrics.get("output_token_throughput_per_user") is not None:
        point.figure(
            "per_request_tokens_per_s",
            _value(metrics, "output_token_throughput_per_user", "p50"),
            None,
        )
        _statistics(point, metrics, "output_token_throughput_per_user", "per_request_tokens_per_s")
    else:
        itl = _value(metrics, "inter_token_latency", "p50")
        if itl:
            point.figure("per_request_tokens_per_s", 1000 / itl, None)
            point.statistic("per_request_tokens_per_s", "p50", 1000 / itl)
    if count is not None:
        point.record.set("completed_requests", int(count))
    point.figure("measured_s", _value(metrics, "benchmark_duration", "avg"), None)
    point.keep("mean_output_tokens", _value(metrics, "output_sequence_length", "avg"))
    point.mean_output_tokens = _value(metrics, "output_sequence_length", "avg")
    throughput = _value(metrics, "request_throughput", "avg")
    if point.load is not None and throughput:
        point.load_figures["request_throughput"] = (serving.rounded(throughput), "")
    for metric, name in (
        ("goodput", "goodput_requests_per_s"),
        ("good_request_count", "good_requests"),
    ):
        reported = _value(metrics, metric, "avg")
        if reported is not None:  # AIPerf's own figure against the --goodput SLOs, kept as reported
            point.keep(name, reported)
    if errors:
        point.keep("errored_requests", errors)
    if record.get("was_cancelled") is not None and record.opt_flag("was_cancelled") is True:
        point.record.set(
            "note",
            "AIPerf recorded this benchmark as cancelled (was_cancelled: "
            "true): the figures cover only the requests finished before it "
            "stopped",
        )
    return point


def _error_kinds(record: Node) -> str:
    """The export's own error summary, quoted: each error type with its count."""
    summary = record.get("error_summary")
    if summary is None or not isinstance(summary.value, list):
        return ""
    kinds = []
    for entry in summary.value[:5]:
        details = entry.get("error_details") if isinstance(entry, dict) else None
        kind = details.get("type") or details.get("code") if isinstance(details, dict) else None
        if kind is not None:
            kinds.append(f"{str(kind)[:100]!r} ×{entry.get('count', '?')}")
    return f"; error_summary: {', '.join(kinds)}" if kinds else ""


def _place(point: serving.Point, export: _Export) -> None:
    """The point's concurrency, or why it has none (driven by a request rate)."""
    load = export.load
    rate = load.get("request_rate") or load.get("rate") if load is not None else None
    kind = (
        load.opt_text("type")
        if load is not None and isinstance(load.value.get("type"), str)
        else None
    )
    if rate is not None and serving.finite(rate.value) and rate.value > 0:
        point.open_loop = f"driven by a request rate of {rate.value:g}/s"
        point.load = serving.Load(
            float(rate.value),
            _arrival(load),
            max_concurrency=(
                export.concurrency.integer() if export.concurrency is not None else None
            ),
        )
    elif kind is not None and kind != "concurrency" and export.concurrency is None:
        point.open_loop = f"a {kind!r} phase, with no fixed concurrency"
    elif export.concurrency is None:
        point.open_loop = "no fixed concurrency is recorded"
    else:
        point.concurrency = export.concurrency.integer()


def _arrival(load: Node | None) -> str:
    """AIPerf's arrival of requests at a rate: ``request_rate_mode``/``arrival_pattern`` (or, in
    export schema 1.x, the phase's ``type``) ``constant`` is evenly spaced, ``gamma`` gamma
    distributed, anything else (its default) Poisson."""
    mode = None
    if load is not None and isinstance(load.value, dict):
        value = load.value
        mode = value.get("request_rate_mode") or value.get("arrival_pattern") or value.get("type")
    mode = mode.lower() if isinstance(mode, str) else ""
    return mode if mode in ("constant", "gamma") else "poisson"


# The short tags the early ``records`` layout keyed some metrics by (AIPerf's own example export
# of 2025-10 has ``ttft``), by the name later exports use.
_RECORD_TAGS = {"time_to_first_token": "ttft"}


def _value(metrics: Node, metric: str, statistic: str) -> float | None:
    node = metrics.get(metric)
    if node is None and metric in _RECORD_TAGS:
        node = metrics.get(_RECORD_TAGS[metric])
    if node is None:
        # AIPerf 0.8's sweep summary keeps one entry per metric and statistic, holding its
        # ``mean`` over the point's trials.
        node, statistic = metrics.get(f"{metric}_{statistic}"), "mean"
    if node is None or not isinstance(node.value, dict):
        return None
    if statistic == "std" and "ci_low" in node.value:
        # A later sweep summary's ``std`` is the spread across trials, not across requests.
        return None
    value = node.opt_number(statistic)
    return float(value) if value is not None and serving.finite(value) else None


def _statistics(point: serving.Point, metrics: Node, metric: str, figure: str) -> None:
    for key, name in _STATISTICS.items():
        point.statistic(figure, name, _value(metrics, metric, key))


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
        adapted.notes.append(
            f"The telemetry saw different GPUs ({', '.join(sorted(gpus))}); the accelerator "
            "comes from run.yaml."
        )
        return
    [(name, seen)] = gpus.items()
    shown = name
    vendor = "NVIDIA" if name.startswith("NVIDIA ") else None
    if vendor:
        adapted.put("hardware", "vendor", vendor, where)
        name = name.removeprefix("NVIDIA ").strip()
    words = shown.lower().split()
    adapted.record(
        "hardware",
        "accelerator",
        name,
        where,
        f"the GPU {shown!r} (telemetry gpu_name)",
        lambda given: all(word in words for word in str(given).lower().split()),
    )
    count = len(seen)
    # The telemetry sees every GPU of the host, not only the server's: run.yaml's count wins.
    adapted.put("hardware", "count", count, where)
