"""``sitegen export RUN… --format benchmark-report``: each run as llm-d Benchmark Reports v0.2.

A report is one load point, so a run becomes a folder of them, ``<output>/<run-id>/``, one
report per measured decode cell (prefill points and cells without figures have no report).
The mapping is documented in docs/importing.md ("llm-d Benchmark Report") and read back by
``sitegen import`` (collect/adapters/benchmark_report.py): the figures the report has fields for
go there; every other field of the cell is kept in ``scenario.load.native.config.sitegen``, so
that importing the reports back gives the same figures.

Every report is checked against the report's own schema before anything is written; a run is
written to a temporary folder first and put in place whole.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jsonschema

from sitegen.collect.adapters import benchmark_report
from sitegen.collect.local import RESULT_SUFFIXES
from sitegen.commands.check import check_files
from sitegen.config import Config
from sitegen.errors import Problem, SitegenError

VERSION = "0.2"
FORMATS = ("benchmark-report",)
_MEASURED = ("valid", "requests_queued")


def export_runs(config: Config, names: Sequence[str], output: Path) -> list[Path]:
    """Write each named run's reports under ``output``; the folders written, in order."""
    report = check_files(config, [_run_path(config, name) for name in names])
    if report.problems:
        raise SitegenError(report.problems)
    made: list[tuple[str, list[dict[str, Any]]]] = []
    for item in report.checked:
        reports = run_reports(item.entry.id, item.data())
        if not reports:
            raise SitegenError(
                Problem(
                    item.source,
                    None,
                    "/measurements/decode",
                    "no measured decode cell: a Benchmark Report is one load point with figures",
                )
            )
        made.append((item.entry.id, reports))
    return [_write(output / run_id, reports) for run_id, reports in made]


def _run_path(config: Config, name: str) -> Path:
    """A run id of content/runs/, or the path of a result file or raw-output folder."""
    for suffix in ("", *RESULT_SUFFIXES):
        candidate = config.runs_dir / f"{name}{suffix}"
        if "/" not in name and candidate.exists():
            return candidate
    return Path(name)


def _write(folder: Path, reports: list[dict[str, Any]]) -> Path:
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        for report in reports:
            name = report["run"]["uid"].rsplit("/", 1)[-1]
            (staging / f"{name}.json").write_text(
                json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8"
            )
        if folder.exists():
            shutil.rmtree(folder)
        staging.rename(folder)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise SitegenError(
            Problem(str(folder), None, "", f"cannot write: {exc.strerror}")
        ) from None
    return folder


def run_reports(run_id: str, data: dict[str, Any]) -> list[dict[str, Any]]:
    """The run's measured decode cells as Benchmark Reports, each valid against its schema."""
    validator = jsonschema.Draft202012Validator(benchmark_report.schema(VERSION))
    reports = []
    measured = [
        cell
        for cell in data["measurements"]["decode"]
        if cell.get("status") in _MEASURED and cell.get("total_tokens_per_s") is not None
    ]
    points = [
        point
        for point in data["measurements"].get("load_points", ())
        if point.get("total_tokens_per_s") is not None
    ]
    for cell in measured + points:
        report = _report(run_id, data, cell)
        errors = list(validator.iter_errors(report))
        if errors:  # a mapping mistake of sitegen's own, never the user's: say so plainly
            raise SitegenError(
                Problem(
                    run_id,
                    None,
                    "",
                    f"the Benchmark Report made for a cell is not valid: {errors[0].message[:300]}",
                )
            )
        reports.append(report)
    return reports


def _report(run_id: str, data: dict[str, Any], cell: dict[str, Any]) -> dict[str, Any]:
    if "request_rate" in cell:  # a load point (schema 1.2): open loop at a request rate
        name = (
            f"in{cell['input_tokens_per_request']}-rate{cell['request_rate']:g}-{cell['arrival']}"
        )
        name += "".join(
            f"-{key}{cell[key]:g}" for key in ("burstiness", "max_concurrency") if key in cell
        )
        said = (
            f"{cell['input_tokens_per_request']} input tokens at {cell['request_rate']:g} "
            f"requests/s"
        )
    else:
        context, concurrency = cell["context_tokens"], cell["concurrency"]
        name = f"ctx{context}-c{concurrency}"
        said = (
            f"{context} tokens of context × {concurrency} request{'s' if concurrency != 1 else ''} "
            "at once"
        )
    if cell.get("output_tokens_per_request"):
        name += f"-out{cell['output_tokens_per_request']}"
    run: dict[str, Any] = {
        "uid": f"{run_id}/{name}",
        "eid": run_id,
        "description": f"sitegen run {run_id}: {said}",
    }
    if data["run"].get("date"):
        run["time"] = {"start": data["run"]["date"]}
    return {
        "version": VERSION,
        "run": run,
        "scenario": {"stack": [_engine(run_id, data)], "load": _load(run_id, data, cell)},
        "results": {"request_performance": {"aggregate": _aggregate(data, cell)}},
    }


def _engine(run_id: str, data: dict[str, Any]) -> dict[str, Any]:
    engine, hardware = data["engine"], data["hardware"]
    return {
        "metadata": {"label": "engine", "cfg_id": run_id},
        "standardized": {
            "kind": "inference_engine",
            "tool": engine["name"],
            "tool_version": str(engine.get("version") or "unknown"),
            "role": "replica",
            "replicas": 1,
            "model": {"name": data["run"]["model"]},
            "accelerator": {
                "model": hardware["accelerator"],
                "count": hardware["count"],
                "parallelism": {},
            },
        },
        "native": {},
    }


def _load(run_id: str, data: dict[str, Any], cell: dict[str, Any]) -> dict[str, Any]:
    run = data["run"]
    point = "request_rate" in cell
    standardized: dict[str, Any] = {
        "tool": run.get("benchmark_tool") or "unknown",
        "tool_version": str(run.get("benchmark_tool_version") or "unknown"),
        "source": "unknown",
        "input_seq_len": {
            "distribution": "other",
            "value": cell["input_tokens_per_request" if point else "context_tokens"],
        },
    }
    if point:
        standardized["rate_qps"] = cell["request_rate"]
        if cell.get("max_concurrency"):
            standardized["concurrency"] = cell["max_concurrency"]
    else:
        standardized["concurrency"] = cell["concurrency"]
    output = cell.get("output_tokens_per_request") or run.get("output_tokens_per_request")
    if output:
        standardized["output_seq_len"] = {
            "distribution": "other" if point else "fixed",
            "value": output,
        }
    return {
        "metadata": {"cfg_id": run_id},
        "standardized": standardized,
        "native": {"config": {"sitegen": _kept(data, cell)}},
    }


def _headline_is_mean(data: dict[str, Any]) -> bool:
    return data["run"].get("latency_statistic") in (None, "mean")


def _aggregate(data: dict[str, Any], cell: dict[str, Any]) -> dict[str, Any]:
    aggregate: dict[str, Any] = {
        "throughput": {
            "output_token_rate": {"units": "tokens/s", "mean": cell["total_tokens_per_s"]}
        }
    }
    if cell.get("completed_requests") is not None:
        failed = cell.get("failed_requests") or 0
        aggregate["requests"] = {"total": cell["completed_requests"] + failed, "failures": failed}
    if cell.get("request_throughput") is not None:
        aggregate["throughput"]["request_rate"] = {
            "units": "queries/s",
            "mean": cell["request_throughput"],
        }
    latency = {}
    for figure, name in benchmark_report.LATENCIES.items():
        values = _statistics(data, cell, figure)
        if values is not None:
            latency[name] = values
    if latency:
        aggregate["latency"] = latency
    return aggregate


def _statistics(data: dict[str, Any], cell: dict[str, Any], figure: str) -> dict[str, Any] | None:
    """A latency as the report's Statistics (ms), whose ``mean`` it requires: the headline when
    it is a mean, else the cell's own mean statistic; None when neither is known."""
    known = (cell.get("statistics") or {}).get(figure, {})
    mean = cell.get(figure) if _headline_is_mean(data) else known.get("mean")
    if mean is None:
        return None
    values: dict[str, Any] = {"units": "ms", "mean": mean}
    for ours, theirs in benchmark_report.STATISTICS.items():
        if ours != "mean" and ours in known:
            values[theirs] = known[ours]
    return values


def _kept(data: dict[str, Any], cell: dict[str, Any]) -> dict[str, Any]:
    """The cell's fields the report has no place for, and the run's latency statistic."""
    kept = {name: value for name, value in cell.items() if name not in benchmark_report.MAPPED}
    if _headline_is_mean(data):
        for figure in benchmark_report.LATENCIES:
            if figure in kept and _statistics(data, cell, figure) is not None:
                del kept[figure]  # carried as the report's mean
    extra: dict[str, dict[str, float]] = {}
    for figure, values in (cell.get("statistics") or {}).items():
        mapped = (
            figure in benchmark_report.LATENCIES and _statistics(data, cell, figure) is not None
        )
        # The mean goes back from here: the report's own mean may be the headline instead.
        rest = {
            name: value
            for name, value in values.items()
            if not mapped or name not in benchmark_report.STATISTICS or name == "mean"
        }
        if rest:
            extra[figure] = rest
    if extra:
        kept["statistics_extra"] = extra
    if data["run"].get("latency_statistic"):
        kept["latency_statistic"] = data["run"]["latency_statistic"]
    return kept
