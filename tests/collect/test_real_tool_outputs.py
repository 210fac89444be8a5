"""`sitegen import` of files the real tools wrote, for the versions no published file was found
for: GuideLLM 0.6.1, 0.7.4 and 0.8.1, AIPerf 0.8.0, 0.9.0 and 0.12.0 (export schemas 1.1, 1.3
and 1.4), each run against a local stub server (tests/data/samples/<tool>/<version>/,
SOURCES.md says how).

Every expected figure is read here from the raw file with json/yaml, and the context rule of
docs/importing.md (measured means within 10 % of their group's smallest share one context, the
group's mean rounded) is worked out here, never with the adapters' code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from sitegen.errors import SitegenError
from sitegen.parse import parse_yaml
from tests.kit.project import REPO, run_cli

SAMPLES = REPO / "tests" / "data" / "samples"
GUIDELLM_VERSIONS = ("0.6.1", "0.7.4", "0.8.1")
AIPERF_VERSIONS = {
    "0.8.0": "1.1",
    "0.9.0": "1.3",
    "0.12.0": "1.4",
}  # release → the export schema it writes
META = "hardware:\n  type: discrete-gpu\n  accelerator: stub\n  count: 1\nengine:\n  name: stub\n"
# Figures are stored rounded to 6 decimals.
CLOSE = 2e-6


def close(expected: float) -> Any:
    return pytest.approx(expected, abs=CLOSE, rel=1e-9)


class _TupleLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """GuideLLM 0.6 writes its YAML report with Python's yaml.dump: tuples are tagged. (libyaml's
    reader where PyYAML has it, as tests/kit/project.load_yaml.)"""


_TupleLoader.add_constructor(
    "tag:yaml.org,2002:python/tuple", lambda loader, node: loader.construct_sequence(node)
)


def read_raw(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    return json.loads(text) if path.suffix == ".json" else yaml.load(text, Loader=_TupleLoader)


def run_import(project: Path, paths: list[Path], meta: str, run_id: str = "imported") -> int:
    meta_path = project / "meta-run.yaml"
    meta_path.write_text(meta, encoding="utf-8")
    return run_cli(project, "import", *map(str, paths), "--id", run_id, "--meta", str(meta_path))


def imported(project: Path, run_id: str = "imported") -> dict[str, Any]:
    path = project / "content" / "runs" / f"{run_id}.yaml"
    data: dict[str, Any] = parse_yaml(str(path), path.read_bytes()).data
    return data


def contexts(means: list[float]) -> dict[float, int]:
    """Each measured mean input length's context, by the rule in docs/importing.md."""
    result: dict[float, int] = {}
    group: list[float] = []
    for mean in [*sorted(means), float("inf")]:
        if group and mean > group[0] * 1.1:
            for member in group:
                result[member] = round(sum(group) / len(group))
            group = []
        group.append(mean)
    return result


# --- GuideLLM -----------------------------------------------------------------------------------


def guidellm_entries(version: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every benchmark of the version's reports, with its report."""
    entries = []
    for path in sorted((SAMPLES / "guidellm" / version).iterdir()):
        report = read_raw(path)
        entries += [(report, entry) for entry in report["benchmarks"]]
    return entries


def successful(entry: dict[str, Any], name: str) -> dict[str, Any]:
    values: dict[str, Any] = entry["metrics"][name]["successful"]
    return values


@pytest.mark.parametrize("version", GUIDELLM_VERSIONS)
def test_guidellm_reports_made_by_the_tool(project: Path, version: str) -> None:
    folder = SAMPLES / "guidellm" / version
    assert run_import(project, [folder], META) == 0
    data = imported(project)
    entries = guidellm_entries(version)
    assert {report["metadata"]["guidellm_version"] for report, _ in entries} == {version}
    assert data["run"]["benchmark_tool"] == "GuideLLM"
    assert data["run"]["benchmark_tool_version"] == version
    assert data["run"]["model"] == "stub-model"  # the served name the backend was given
    fixed = [entry for _, entry in entries if entry["config"]["strategy"]["type_"] == "concurrent"]
    rated = [
        entry
        for _, entry in entries
        if entry["config"]["strategy"]["type_"] in ("constant", "poisson")
    ]
    assert len(fixed) == 2 and len(rated) == 1 and len(fixed) + len(rated) == len(entries)
    context_of = contexts([successful(entry, "prompt_token_count")["mean"] for entry in fixed])
    cells = {(c["context_tokens"], c["concurrency"]): c for c in data["measurements"]["decode"]}
    assert len(cells) == len(fixed)
    for entry in fixed:
        mean_input = successful(entry, "prompt_token_count")["mean"]
        cell = cells[(context_of[mean_input], entry["config"]["strategy"]["streams"])]
        check_guidellm_figures(cell, entry)
        assert cell["source_values"]["mean_input_tokens"] == close(mean_input)
    [point] = data["measurements"]["load_points"]
    [entry] = rated
    strategy = entry["config"]["strategy"]
    assert point["request_rate"] == strategy["rate"]
    assert point["arrival"] == strategy["type_"]
    # The user set no cap: the strategy's max_concurrency is GuideLLM's own worker limit.
    assert entry["config"]["profile"]["max_concurrency"] is None
    assert strategy["max_concurrency"] > 100 and "max_concurrency" not in point
    assert point["input_tokens_per_request"] == round(
        successful(entry, "prompt_token_count")["mean"]
    )
    assert point["request_throughput"] == close(successful(entry, "requests_per_second")["mean"])
    check_guidellm_figures(point, entry)


def check_guidellm_figures(figures: dict[str, Any], entry: dict[str, Any]) -> None:
    ttft = successful(entry, "time_to_first_token_ms")
    itl = successful(entry, "inter_token_latency_ms")
    assert figures["total_tokens_per_s"] == close(
        successful(entry, "output_tokens_per_second")["mean"]
    )
    assert figures["ttft_ms"] == close(ttft["median"])
    assert figures["time_between_tokens_ms"] == close(itl["median"])
    assert figures["per_request_tokens_per_s"] == close(1000 / itl["median"])
    assert figures["statistics"]["ttft_ms"]["p90"] == close(ttft["percentiles"]["p90"])
    assert figures["statistics"]["ttft_ms"]["stddev"] == close(ttft["std_dev"])
    assert figures["measured_s"] == close(entry["duration"])
    # The figures' requests are the successful ones of the measured window; the scheduler also
    # made the warm-up and cool-down requests.
    totals = entry["metrics"]["request_totals"]
    assert figures["completed_requests"] == totals["successful"]
    # 0.7 takes each latency over the measured window: a request that straddles its edge counts
    # in the totals but may have no first token inside it (16 TTFTs of 17 requests in one cell).
    assert ttft["count"] <= totals["successful"]
    made = entry["scheduler_metrics"]["requests_made"]["successful"]
    transient = figures.get("source_values", {}).get("warmup_cooldown_requests", 0)
    assert transient == made - totals["successful"]


def test_guidellm_warmup_and_cooldown_are_told_apart(project: Path) -> None:
    """The 0.7.4 concurrency sweep ran with 10 % warm-up and cool-down: requests were made that
    its figures do not cover."""
    path = SAMPLES / "guidellm" / "0.7.4" / "guidellm-0.7.4-concurrent.json"
    assert run_import(project, [path], META) == 0
    for cell, entry in zip(
        imported(project)["measurements"]["decode"], read_raw(path)["benchmarks"], strict=True
    ):
        made = entry["scheduler_metrics"]["requests_made"]["successful"]
        assert made > cell["completed_requests"]
        assert (
            cell["source_values"]["warmup_cooldown_requests"] == made - cell["completed_requests"]
        )
        assert cell["source_values"]["warmup_duration_s"] == close(entry["warmup_duration"])


def test_guidellm_slo_attainment_goodput_and_warnings_as_reported(project: Path) -> None:
    """GuideLLM 0.8 reports SLO attainment and goodput against objectives given to it
    (``--metrics kind=generative,slo.ttft_ms=50,slo.tpot_ms=10``), and its own warnings."""
    folder = SAMPLES / "guidellm" / "0.8.1"
    assert run_import(project, [folder], META) == 0
    data = imported(project)
    measured = [*data["measurements"]["decode"], *data["measurements"]["load_points"]]
    entries = [entry for _, entry in guidellm_entries("0.8.1")]
    assert len(measured) == len(entries) == 3
    for entry in entries:
        [figures] = [
            f
            for f in measured
            if f["completed_requests"] == entry["metrics"]["request_totals"]["successful"]
            and f["measured_s"] == close(entry["duration"])
        ]
        kept, metrics = figures["source_values"], entry["metrics"]
        assert 0 < metrics["slo_attainment"] < 1  # the stub's pace misses the objectives at times
        assert kept["slo_attainment"] == close(metrics["slo_attainment"])
        assert kept["slo_determined_requests"] == metrics["slo_determined_requests"]
        goodput = metrics["request_goodput"]["successful"]["mean"]
        assert kept["goodput_requests_per_s"] == close(goodput)
        assert (kept["slo_ttft_ms"], kept["slo_tpot_ms"]) == (50, 10)
        assert "slo_e2el_ms" not in kept  # no end-to-end objective was set
        for warning in entry["warnings"]:
            assert f"{warning['code']}: {warning['message']}" in figures["note"]
        if not entry["warnings"]:
            assert "note" not in figures


# --- AIPerf -------------------------------------------------------------------------------------


def own_exports(folder: Path) -> list[Path]:
    """Each benchmark's own export: AIPerf 0.12 also writes a copy per phase under phases/."""
    return sorted(
        path for path in folder.rglob("profile_export_aiperf.json") if "phases" not in path.parts
    )


def measured_phase(export: dict[str, Any]) -> dict[str, Any]:
    """The load generator's settings: ``loadgen`` (before 0.11), else the profiling phase."""
    config = export["input_config"]
    if "loadgen" in config:
        loadgen: dict[str, Any] = config["loadgen"]
        return loadgen
    [phase] = [phase for phase in config["phases"] if phase["name"] == "profiling"]
    return dict(phase)


def rate_of(export: dict[str, Any]) -> float | None:
    """The request rate a benchmark was driven at: ``request_rate`` (loadgen) or ``rate``."""
    phase = measured_phase(export)
    rate = phase.get("request_rate") or phase.get("rate")
    return float(rate) if rate is not None else None


@pytest.mark.parametrize("version", AIPERF_VERSIONS)
def test_aiperf_artifact_folders_made_by_the_tool(
    project: Path, capsys: pytest.CaptureFixture[str], version: str
) -> None:
    folder = SAMPLES / "aiperf-genai-perf" / version
    assert run_import(project, [folder], META) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for per_request in folder.rglob("profile_export.jsonl"):
        assert f"{per_request}: note: not a benchmark result sitegen reads; skipped" in err
    data = imported(project)
    exports = [json.loads(path.read_text(encoding="utf-8")) for path in own_exports(folder)]
    assert {export["schema_version"] for export in exports} == {AIPERF_VERSIONS[version]}
    assert data["run"]["benchmark_tool"] == "AIPerf"
    assert data["run"]["benchmark_tool_version"] == version
    assert data["run"]["model"] == "stub-model"
    assert f"export schema_version {AIPERF_VERSIONS[version]}" in " ".join(
        data["provenance"]["notes"]
    )
    fixed = [export for export in exports if rate_of(export) is None]
    rated = [export for export in exports if export not in fixed]
    assert len(fixed) == 2 and len(rated) == 1
    context_of = contexts([export["input_sequence_length"]["avg"] for export in fixed])
    cells = {(c["context_tokens"], c["concurrency"]): c for c in data["measurements"]["decode"]}
    assert len(cells) == len(fixed)  # neither the warm-up copies nor the aggregates became cells
    for export in fixed:
        mean_input = export["input_sequence_length"]["avg"]
        cell = cells[(context_of[mean_input], measured_phase(export)["concurrency"])]
        check_aiperf_figures(cell, export)
    [point] = data["measurements"]["load_points"]
    [export] = rated
    assert point["request_rate"] == rate_of(export)
    assert point["arrival"] == "poisson"  # AIPerf's default arrival, not told otherwise
    assert point["input_tokens_per_request"] == round(export["input_sequence_length"]["avg"])
    assert point["request_throughput"] == close(export["request_throughput"]["avg"])
    check_aiperf_figures(point, export)


def check_aiperf_figures(figures: dict[str, Any], export: dict[str, Any]) -> None:
    ttft, itl = export["time_to_first_token"], export["inter_token_latency"]
    per_user = export["output_token_throughput_per_user"]
    assert figures["total_tokens_per_s"] == close(export["output_token_throughput"]["avg"])
    assert figures["ttft_ms"] == close(ttft["p50"])
    assert figures["time_between_tokens_ms"] == close(itl["p50"])
    assert figures["per_request_tokens_per_s"] == close(per_user["p50"])
    assert figures["statistics"]["ttft_ms"]["p99"] == close(ttft["p99"])
    assert figures["statistics"]["ttft_ms"]["stddev"] == close(ttft["std"])
    assert figures["completed_requests"] == export["request_count"]["avg"]
    assert figures["measured_s"] == close(export["benchmark_duration"]["avg"])


@pytest.mark.parametrize(
    ("version", "settings", "mode"),
    [
        ("0.8.0", "artifacts-concurrency", "fixed-request-count"),
        ("0.8.0", "artifacts-rate", "fixed-duration"),
        ("0.9.0", "artifacts-concurrency", "fixed-request-count"),
        ("0.9.0", "artifacts-rate", "fixed-duration"),
        ("0.12.0", "artifacts-concurrency", "fixed-request-count"),
        ("0.12.0", "artifacts-rate", "fixed-duration"),
    ],
)
def test_aiperf_decode_mode_follows_the_load_generator(
    project: Path, version: str, settings: str, mode: str
) -> None:
    folder = SAMPLES / "aiperf-genai-perf" / version / settings
    loads = [measured_phase(json.loads(p.read_text())) for p in own_exports(folder)]
    told = {"benchmark_duration" in load or "duration" in load for load in loads}
    assert told == {mode == "fixed-duration"}  # what the raw files say, read here
    assert run_import(project, [folder], META) == 0
    assert imported(project)["run"]["decode_mode"] == mode


@pytest.mark.parametrize("version", AIPERF_VERSIONS)
def test_aiperf_sweep_summary_alone(project: Path, version: str) -> None:
    """The summary of a concurrency sweep gives the same cells as the exports it summarises:
    0.8 keeps one entry per metric and statistic (``time_to_first_token_p50: {mean}``), 0.12 one
    per metric."""
    folder = SAMPLES / "aiperf-genai-perf" / version / "artifacts-concurrency"
    [summary] = folder.rglob("profile_export_aiperf_sweep.json")
    assert run_import(project, [summary], META + "run:\n  model: stub-model\n") == 0
    by_level = {c["concurrency"]: c for c in imported(project)["measurements"]["decode"]}
    exports = [json.loads(path.read_text(encoding="utf-8")) for path in own_exports(folder)]
    assert len(by_level) == len(exports) == 2
    for export in exports:
        cell = by_level[measured_phase(export)["concurrency"]]
        assert cell["total_tokens_per_s"] == close(export["output_token_throughput"]["avg"])
        assert cell["ttft_ms"] == close(export["time_to_first_token"]["p50"])
        assert cell["time_between_tokens_ms"] == close(export["inter_token_latency"]["p50"])
        assert cell["completed_requests"] == export["request_count"]["avg"]
        # 0.12's summary keeps the spread across trials as std: never taken for the requests'.
        stddev = cell["statistics"]["ttft_ms"].get("stddev")
        assert stddev is None or stddev == close(export["time_to_first_token"]["std"])


def test_aiperf_confidence_aggregate_alone_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = SAMPLES / "aiperf-genai-perf" / "0.12.0" / "artifacts-concurrency"
    aggregate = sorted(folder.rglob("profile_export_aiperf_aggregate.json"))[0]
    assert json.loads(aggregate.read_text())["metadata"]["aggregation_type"] == "confidence"
    assert run_import(project, [aggregate], META) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert (
        f"{aggregate}:1: this is AIPerf's aggregate over repeated profile runs "
        "(metadata.aggregation_type 'confidence')" in err
    )
    assert not (project / "content" / "runs" / "imported.yaml").exists()


def test_python_tuples_are_read_in_tool_output_only() -> None:
    """GuideLLM 0.6's YAML carries ``!!python/tuple``: a list in tool output, an error in a result
    file, and no other Python tag is ever constructed."""
    text = b"outputs: !!python/tuple\n- report.yaml\n"
    assert parse_yaml("report.yaml", text, python_tuples=True).data == {"outputs": ["report.yaml"]}
    with pytest.raises(SitegenError) as refused:
        parse_yaml("content/runs/x.yaml", text)
    assert "the tag 'tag:yaml.org,2002:python/tuple' is not allowed" in str(refused.value)
    hostile = b"outputs: !!python/object/apply:os.system ['true']\n"
    with pytest.raises(SitegenError) as refused:
        parse_yaml("report.yaml", hostile, python_tuples=True)
    assert "is not allowed" in str(refused.value)
