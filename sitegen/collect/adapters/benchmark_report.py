"""llm-d's Benchmark Report v0.2.x (``version``, ``run.uid``, ``scenario``, ``results``): one
report is one load point, so a run is a folder of them, one per cell.

Each report is first checked against the report's own JSON Schema, vendored byte for byte in
``schema/vendor/llm-d-benchmark-report/`` (its source, commit and licence in the README there).
The mapping, both ways, is in docs/importing.md ("llm-d Benchmark Report"):

* concurrency = ``scenario.load.standardized.concurrency``; a report driven by ``rate_qps``
  alone has no place in the matrix and is refused, as other rate-driven runs are;
* context = the measured mean ``requests.input_length``, else ``input_seq_len.value``;
* total tok/s = ``throughput.output_token_rate``; TTFT = ``latency.time_to_first_token``;
  time between tokens = ``latency.inter_token_latency`` (converted to ms from the report's
  units); each figure's headline is its ``mean`` (run.latency_statistic ``mean``), its
  percentiles kept as statistics;
* what the report has no field for (per-request tok/s, a cell's status, output tokens) is
  read from ``scenario.load.native.config.sitegen`` when sitegen wrote the report.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

import jsonschema

from sitegen.collect.adapters import serving
from sitegen.collect.adapters._foreign import Adapted, Node, Record
from sitegen.errors import Problem, SitegenError
from sitegen.resources import resource_dir

TOOL = "llm-d Benchmark Report"
SCHEMAS = {"0.2": "br_v0_2_json_schema.json", "0.2.1": "br_v0_2_1_json_schema.json"}
# The report's statistics by sitegen's names (p99.9 is the report's p99p9).
STATISTICS = {
    "mean": "mean",
    "stddev": "stddev",
    "min": "min",
    "max": "max",
    "p50": "p50",
    "p90": "p90",
    "p95": "p95",
    "p99": "p99",
    "p99.9": "p99p9",
}
# sitegen's latency figures and the report's fields for them, in milliseconds.
LATENCIES = {"ttft_ms": "time_to_first_token", "time_between_tokens_ms": "inter_token_latency"}
_TO_MS = {"ms": 1.0, "s": 1000.0, "ms/token": 1.0, "s/token": 1000.0}
# The cell's fields the report carries in its own fields; every other field of a cell is kept
# in scenario.load.native.config.sitegen, with ``statistics_extra`` for statistics it has no name
# for.
MAPPED = (
    "context_tokens",
    "concurrency",
    "total_tokens_per_s",
    "completed_requests",
    "statistics",
    "request_rate",
    "max_concurrency",
    "input_tokens_per_request",
    "failed_requests",
    "request_throughput",
)
_DURATION = re.compile(r"^PT(\d+(?:\.\d+)?)S$")


def looks_like(data: Any) -> bool:
    if not isinstance(data, dict) or not isinstance(data.get("version"), str):
        return False
    run = data.get("run")
    return (
        data["version"].startswith("0.2")
        and isinstance(run, dict)
        and "uid" in run
        and "results" in data
    )


@functools.cache
def schema(version: str) -> dict[str, Any]:
    """The report's own JSON Schema for ``version`` (vendored, never changed)."""
    folder = resource_dir("schema") / "vendor" / "llm-d-benchmark-report"
    loaded: dict[str, Any] = json.loads((folder / SCHEMAS[version]).read_text(encoding="utf-8"))
    return loaded


def validate(node: Node) -> str:
    """Refuse a report its own schema rejects, naming each field and why. A report that its
    version's schema rejects but a later 0.2.x schema accepts (llm-d's own v0.2 example has
    v0.2.1's ``session_performance``) is read, and the version that accepts it returned."""
    version = node.need("version").text()
    if version not in SCHEMAS:
        raise node.need("version").error(
            f"Benchmark Report version {version!r} is not one sitegen reads ({', '.join(SCHEMAS)})"
        )
    errors = _errors(version, node.value)
    if errors:
        later = [other for other in SCHEMAS if other > version and not _errors(other, node.value)]
        if later:
            return later[0]
        raise SitegenError(
            [
                Problem(
                    node.document.source,
                    node.document.line_of(_pointer(error.absolute_path)),
                    _pointer(error.absolute_path),
                    f"not a valid Benchmark Report v{version}: {error.message[:300]}",
                )
                for error in errors[:20]
            ]
        )
    return version


def _errors(version: str, data: Any) -> list[jsonschema.ValidationError]:
    """The schema's errors, each the deepest one that explains it (a field of an ``anyOf``
    branch, not "not valid under any of the given schemas" about its parent)."""
    validator = jsonschema.Draft202012Validator(schema(version))
    errors = [
        jsonschema.exceptions.best_match([error]) or error for error in validator.iter_errors(data)
    ]
    return sorted(errors, key=lambda e: [str(p) for p in e.absolute_path])


def _pointer(path: Any) -> str:
    return "".join(f"/{part}" for part in path)


def adapt(records: list[Node]) -> Adapted:
    accepted = {
        record.document.source: (record.need("version").text(), validate(record))
        for record in records
    }
    adapted = Adapted(
        f"{TOOL}{'s' if len(records) != 1 else ''} ({len(records)} load point"
        f"{'s' if len(records) != 1 else ''})"
    )
    first = records[0]
    adapted.put("run", "latency_statistic", "mean", first)
    adapted.put("run", "prefill_mode", "not-measured", first)
    _facts(adapted, first)
    points = [_point(record) for record in records]
    failed = [point for point in points if point.failed]
    if failed:
        raise SitegenError([point.node.problem(point.failed) for point in failed])
    fixed = [point for point in points if point.concurrency is not None]
    rated = [point for point in points if point.load is not None]
    if not fixed and not rated:
        raise SitegenError(
            [p.node.problem(f"{p.open_loop}: {serving.OPEN_LOOP_HINT}") for p in points]
        )
    if len(fixed) + len(rated) < len(points):
        left = ", ".join(
            serving.where(p.node) for p in points if p.concurrency is None and p.load is None
        )
        adapted.notes.append(f"Left out, with neither a concurrency nor a rate: {left}"[:2000])
    _place(adapted, fixed)
    _place_load_points(adapted, rated)
    for source, (declared, version) in sorted(accepted.items()):
        if version != declared:
            adapted.notes.append(
                f"{source} declares Benchmark Report v{declared}, whose schema rejects it; it is "
                f"valid against v{version}'s and read as such."[:2000]
            )
    statistic = _kept(first).get("latency_statistic")
    if isinstance(statistic, str):  # what a sitegen run declared, when sitegen wrote the report
        adapted.put("run", "latency_statistic", statistic, first)
    return adapted


def _kept(report: Node) -> dict[str, Any]:
    """What sitegen's export kept in ``scenario.load.native.config.sitegen`` ({} elsewhere)."""
    load = report.need("scenario").need("load")
    native = load.value.get("native") if isinstance(load.value, dict) else None
    config = native.get("config") if isinstance(native, dict) else None
    kept = config.get("sitegen") if isinstance(config, dict) else None
    return kept if isinstance(kept, dict) else {}


def _facts(adapted: Adapted, report: Node) -> None:
    """Engine, accelerator and model from the stack's inference engine; the load tool."""
    scenario = report.get("scenario")
    stack = scenario.get("stack") if scenario is not None else None
    engines = [
        component.need("standardized")
        for component in (stack.elements() if stack is not None else [])
        if isinstance(component.value, dict)
        and (component.value.get("standardized") or {}).get("kind") == "inference_engine"
    ]
    if engines:
        engine = engines[0]
        adapted.put("engine", "name", engine.need("tool").text(), engine.need("tool"))
        version = engine.need("tool_version").text()
        if version and version != "unknown":
            adapted.put("engine", "version", version, engine.need("tool_version"))
        accelerator = engine.need("accelerator")
        adapted.put(
            "hardware", "accelerator", accelerator.need("model").text(), accelerator.need("model")
        )
        adapted.put(
            "hardware", "count", accelerator.need("count").integer(), accelerator.need("count")
        )
        adapted.put(
            "run",
            "model",
            engine.need("model").need("name").text(),
            engine.need("model").need("name"),
        )
    load = scenario.get("load") if scenario is not None else None
    if load is not None:
        standardized = load.need("standardized")
        tool = standardized.need("tool").text()
        if tool != "unknown":
            adapted.put("run", "benchmark_tool", tool, standardized.need("tool"))
        version = standardized.need("tool_version").text()
        if version != "unknown":
            adapted.put("run", "benchmark_tool_version", version, standardized.need("tool_version"))
    start = _start(report)
    if start is not None:
        adapted.put("run", "date", start.iso_date(), start)


def _start(report: Node) -> Node | None:
    run = report.need("run")
    time = run.get("time")
    start = time.get("start") if time is not None else None
    if start is None or not isinstance(start.value, str):
        return None
    return Node(start.document, start.pointer, start.value.replace(" ", "T", 1))


def _point(report: Node) -> serving.Point:
    point = serving.Point(report, Record(report))
    load = report.need("scenario").need("load").need("standardized")
    concurrency = load.get("concurrency")
    finite_concurrency = (
        concurrency is not None
        and serving.finite(concurrency.value)
        and float(concurrency.value).is_integer()
    )
    rate = load.get("rate_qps")
    if rate is not None and serving.finite(rate.value) and rate.value > 0:
        # Driven by a rate: a load point (schema 1.2), its concurrency (if finite) a cap.
        point.open_loop = f"driven by rate_qps {rate.value:g}"
        kept = _kept(report)
        arrival = kept.get("arrival") or _native_arrival(report)
        burstiness = kept.get("burstiness")
        point.load = serving.Load(
            float(rate.value),
            arrival if arrival in ("poisson", "gamma", "constant") else "poisson",
            burstiness if isinstance(burstiness, (int, float)) else None,
            int(concurrency.value) if finite_concurrency and concurrency else None,
        )
    elif finite_concurrency and concurrency is not None:
        point.concurrency = int(concurrency.value)
    else:
        point.open_loop = "no finite concurrency and no rate_qps"
    aggregate = report.need("results").need("request_performance").need("aggregate")
    requests = aggregate.get("requests")
    throughput = aggregate.get("throughput")
    rate = throughput.get("output_token_rate") if throughput is not None else None
    if (
        requests is not None
        and requests.need("total").integer() == 0
        and (rate is None or not rate.need("mean").number())
    ):
        point.failed = (
            "requests.total is 0 and no output token rate: nothing was measured, so it is not "
            "imported"
        )
        return point
    measured = requests.get("input_length") if requests is not None else None
    point.mean_input_tokens = (
        float(measured.need("mean").number())
        if measured is not None
        else float(load.need("input_seq_len").need("value").number())
    )
    _figures(point, aggregate, requests, bool(_kept(report)))
    return point


def _figures(
    point: serving.Point, aggregate: Node, requests: Node | None, written_by_sitegen: bool
) -> None:
    throughput = aggregate.get("throughput")
    rate = throughput.get("output_token_rate") if throughput is not None else None
    if rate is not None:
        _exact(point, "total_tokens_per_s", rate.need("mean").number())
    latency = aggregate.get("latency")
    for figure, name in LATENCIES.items():
        values = latency.get(name) if latency is not None else None
        if values is None:
            continue
        scale = _TO_MS.get(values.need("units").text())
        if scale is None:
            raise values.need("units").error(
                f"a latency in {values.need('units').text()!r}; expected ms or s"
            )
        _exact(point, figure, values.need("mean").number() * scale)
        given = {ours: values.opt_number(theirs) for ours, theirs in STATISTICS.items()}
        if written_by_sitegen or not any(
            value is not None for name, value in given.items() if name != "mean"
        ):
            given.pop("mean")  # the headline itself; sitegen's own statistics come back from native
        for ours, value in given.items():
            if value is not None and serving.finite(value) and value >= 0:
                point.statistics.setdefault(figure, {})[ours] = (
                    value * scale if scale != 1.0 else value
                )
    if requests is not None:
        total, failures = requests.need("total").integer(), requests.opt_integer("failures") or 0
        point.record.set("completed_requests", total - failures)
        if point.load is not None:
            point.record.set("failed_requests", failures)
        elif failures:
            point.keep("failed_requests", failures)
    achieved = throughput.get("request_rate") if throughput is not None else None
    if point.load is not None and achieved is not None:
        _exact(point, "request_throughput", achieved.need("mean").number())


def _exact(point: serving.Point, name: str, value: float) -> None:
    """A figure as the report states it (not rounded: a report sitegen wrote comes back the same);
    zero or less is "not measured", as everywhere."""
    if serving.finite(value) and value > 0:
        point.record.set(name, value)


def _place(adapted: Adapted, points: list[serving.Point]) -> None:
    """Each report a cell at its own context; what sitegen wrote in native is read back."""
    records: list[Record] = []
    for point in points:
        assert point.concurrency is not None and point.mean_input_tokens is not None
        record = point.record
        record.data = {
            "context_tokens": round(point.mean_input_tokens),
            "concurrency": point.concurrency,
            "status": "valid",
            **record.data,
        }
        if point.statistics:
            record.set(
                "statistics",
                {name: dict(sorted(values.items())) for name, values in point.statistics.items()},
            )
        _native(record, point.node)
        if point.source_values:
            record.set(
                "source_values", {**record.data.get("source_values", {}), **point.source_values}
            )
        records.append(record)
    records.sort(
        key=lambda r: (
            r.data["context_tokens"],
            r.data["concurrency"],
            r.data.get("output_tokens_per_request") or 0,
        )
    )
    adapted.add_records("decode", records)


def _native_arrival(report: Node) -> str | None:
    """inference-perf's own arrival (``native.config.load.type``: constant or poisson)."""
    native = report.need("scenario").need("load").value.get("native")
    config = native.get("config") if isinstance(native, dict) else None
    load = config.get("load") if isinstance(config, dict) else None
    kind = load.get("type") if isinstance(load, dict) else None
    return kind if isinstance(kind, str) else None


def _place_load_points(adapted: Adapted, points: list[serving.Point]) -> None:
    """Each rate-driven report a load point at its own input length."""
    records: list[Record] = []
    for point in points:
        assert point.load is not None and point.mean_input_tokens is not None
        record = point.record
        record.data = {
            **point.load.fields(),
            "input_tokens_per_request": round(point.mean_input_tokens),
            **record.data,
        }
        if point.statistics:
            record.set(
                "statistics",
                {name: dict(sorted(values.items())) for name, values in point.statistics.items()},
            )
        _native(record, point.node)
        records.append(record)
    records.sort(
        key=lambda r: (
            r.data["input_tokens_per_request"],
            r.data["request_rate"],
            r.data.get("max_concurrency", 0),
            r.data["arrival"],
            r.data.get("burstiness", 0),
        )
    )
    if records:
        adapted.add_records("load_points", records)


def _native(record: Record, report: Node) -> None:
    """The cell's figures the report has no field for, as sitegen's export kept them."""
    for name, value in _kept(report).items():
        if name in MAPPED or name == "latency_statistic" or value is None:
            continue
        if name == "statistics_extra" and isinstance(value, dict):
            statistics = record.data.setdefault("statistics", {})
            for figure, values in value.items():
                statistics[figure] = dict(sorted({**statistics.get(figure, {}), **values}.items()))
            continue
        record.set(name, value)


def duration_s(text: str) -> float | None:
    """Seconds of an ISO 8601 duration as the report writes it (``PT49.97S``)."""
    match = _DURATION.match(text)
    return float(match[1]) if match else None
