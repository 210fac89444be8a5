"""llm-inference-bench ``benchmark_results.json`` (``llm_decode_bench.py`` 0.4.x–0.6.x).

Field meanings are those of ../shared/upstream/FORMAT.md (docs/importing.md sums them up).
The decisions that are easy to get wrong:

* per-request tok/s is ``output_tps_per_user_avg`` (1 / inter-token latency), not
  ``per_request_avg_tps`` (which is merely aggregate / C);
* the headline TTFT, time between tokens and per-request tok/s are the tool's means (``_avg``),
  as its own tables print them, so the run says ``latency_statistic: mean``; every statistic
  the file has for them (``_avg``, ``_p50``, ``_p90``, ``_p99``…) goes into ``statistics``;
* a statistic of 0 means "no samples" in the tool, so it is left out, never stored as 0;
* "requests queued" follows the queue signals only (``avg_queue_reqs`` / ``queue_fraction``),
  not ``underfilled`` or fewer active requests than C;
* the tool drops over-capacity cells from the file; they are rebuilt here from
  ``metadata`` with the tool's own rule, and any other missing cell is ``not_run``.

:func:`convert` reads a bench document at any place in a file, so the lil-bench adapter
uses it for the copy embedded at ``results/bench``.
"""

from __future__ import annotations

import re
from typing import Any

from sitegen.collect.adapters._foreign import DECIMALS, Adapted, Node, Record
from sitegen.parse import Document

TOOL = "llm-inference-bench"
# The versions whose output FORMAT.md was checked against; others import with a note.
CHECKED = ((0, 4), (0, 6))

_ENGINES = {"sglang": "sglang", "vllm": "vLLM"}
_DECODE_MODES = {"duration": "fixed-duration", "request-count": "fixed-request-count"}
_PREFILL_MODES = {
    "integrated_decode_scout": "decode-warmup",
    "standalone_cold": "standalone-cold",
    "skipped": "not-measured",
}
_OTHER_MODES = {
    "p2pmark_only": "a GPU peer-to-peer bandwidth test (--p2pmark-only)",
    "amd_fabric_only": "an AMD fabric test (--amd-fabric-only)",
    "p2pmark_amd_fabric_only": "a GPU interconnect test (--p2pmark-only --amd-fabric-only)",
    "completion_stats": "a completion-statistics report (--completion-stats / --test-profile)",
    "paired_comparison": "a paired comparison of two servers (--compare-candidate)",
}
# "HH:MM:SS startup engine SGLang 0.5.16 models=[...]": the only place the engine version is.
_STARTUP_ENGINE = re.compile(r"startup engine \S+ (?P<version>[0-9][^\s,]*)")
_FAILED_LOOP = "the tool's request loop failed for this cell: it recorded no statistics"
# Raw statistic prefix → (canonical figure, factor to the figure's unit).
_CELL_STATISTICS = {
    "ttft": ("ttft_ms", 1000.0),
    "inter_token_latency": ("time_between_tokens_ms", 1000.0),
    "output_tps_per_user": ("per_request_tokens_per_s", 1.0),
}
_STATISTIC_SUFFIX = re.compile(r"_(avg|p[0-9]{1,2}(?:\.[0-9]{1,2})?)$")
_QUEUE_SIGNALS = ("avg_queue_reqs", "queue_fraction")
POWER_MEASUREMENT = (
    "llm-inference-bench's hardware monitor: nvidia-smi power.draw sampled during each cell's "
    "measured window (every 2 s by default), summed over every GPU of the host, averaged"
)


def _plural(count: int, singular: str, plural: str | None = None) -> str:
    return f"{count:,} {singular if count == 1 else plural or singular + 's'}"


def looks_like(data: Any) -> bool:
    # A top-level ``metrics`` mapping is never the tool's: AIPerf's per-request records
    # (``profile_export.jsonl``, beside each export) have it next to their ``metadata``.
    return (
        isinstance(data, dict)
        and any(key in data for key in ("metadata", "results", "prefill"))
        and not isinstance(data.get("metrics"), dict)
    )


def adapt(document: Document) -> Adapted:
    """A whole ``benchmark_results.json`` file."""
    return convert(Node.root(document))


def convert(bench: Node) -> Adapted:
    """A bench document (a file's root, or the copy inside a lil-bench result)."""
    bench.mapping()
    metadata = bench.need(
        "metadata", ": this is not a benchmark_results.json written by llm-inference-bench"
    )
    _refuse_other_modes(metadata)
    version = metadata.opt_text("version")
    adapted = Adapted(
        f"{TOOL} {version} benchmark_results.json" if version else f"{TOOL} benchmark_results.json"
    )
    prefill_only = metadata.opt_flag("prefill_only") is True
    _run_facts(adapted, metadata, version, prefill_only)
    _version_note(adapted, version)
    _hardware_facts(adapted, bench)
    _engine_version(adapted, bench)
    _prefill(adapted, bench)
    _decode(adapted, bench, metadata, prefill_only)
    _other_notes(adapted, bench, metadata)
    return adapted


def _refuse_other_modes(metadata: Node) -> None:
    mode = metadata.get("mode")
    if mode is None:
        return
    name = mode.text()
    what = _OTHER_MODES.get(name, "not a decode/prefill benchmark")
    raise mode.error(
        f"this file is llm-inference-bench mode {name!r} ({what}); sitegen imports only "
        "sustained-decode and prefill results, so this mode is not supported"
    )


def _version_tuple(version: str) -> tuple[int, int] | None:
    match = re.match(r"(\d+)\.(\d+)", version)
    return (int(match[1]), int(match[2])) if match else None


def _version_note(adapted: Adapted, version: str | None) -> None:
    parsed = _version_tuple(version) if version else None
    if parsed is not None and CHECKED[0] <= parsed <= CHECKED[1]:
        return
    low, high = (f"{a}.{b}" for a, b in CHECKED)
    adapted.notes.append(
        f"Written by llm-inference-bench {version or '(no version)'}; sitegen's importer was "
        f"checked against {low}.x–{high}.x files and read it with their field meanings."
    )


def _run_facts(adapted: Adapted, metadata: Node, version: str | None, prefill_only: bool) -> None:
    adapted.put("run", "benchmark_tool", TOOL, metadata)
    if not prefill_only:
        adapted.put("run", "latency_statistic", "mean", metadata)
    if version:
        adapted.put("run", "benchmark_tool_version", version, metadata.need("version"))
    engine = metadata.get("engine")
    if engine is not None and engine.text() in _ENGINES:
        # openai_proxy and "" say only that the engine is unknown: run.yaml must name it.
        adapted.put("engine", "name", _ENGINES[engine.text()], engine)
    model = metadata.get("model")
    if model is not None and model.text():
        # The served name; run.yaml gives the published model id (this is only the fallback).
        adapted.put("run", "model", model.text(), model)
        adapted.put("run", "served_model_name", model.text(), model)
    max_tokens = metadata.get("max_tokens")
    if max_tokens is not None:
        adapted.put("run", "max_output_tokens", max_tokens.integer(), max_tokens)
    if not prefill_only:
        _decode_mode(adapted, metadata)
    _prefill_mode(adapted, metadata)
    timestamp = metadata.get("timestamp")
    if timestamp is not None:
        # isoformat() of the local time the file was saved: the end of the run.
        adapted.put("run", "date", timestamp.iso_date(), timestamp)


def _mode(adapted: Adapted, metadata: Node, field: str, known: dict[str, str]) -> Node | None:
    """Put the file's decode or prefill mode in sitegen's words; None when it is absent or
    unknown."""
    mode = metadata.get(field)
    if mode is None:
        return None
    if mode.text() not in known:
        adapted.notes.append(
            f"The file's {field.replace('_', ' ')} {mode.text()!r} is not one sitegen knows; "
            "it is left out."
        )
        return None
    adapted.put("run", field, known[mode.text()], mode)
    return mode


def _decode_mode(adapted: Adapted, metadata: Node) -> None:
    mode = _mode(adapted, metadata, "decode_mode", _DECODE_MODES)
    name = mode.text() if mode is not None else None
    duration = metadata.get("duration_per_test")
    # Files without decode_mode (it is newer than duration_per_test) measured for a duration.
    if name in ("duration", None) and duration is not None and duration.number() > 0:
        adapted.put("run", "time_per_measurement_s", round(duration.number(), DECIMALS), duration)
    if name == "request-count":
        requests = metadata.opt_integer("request_count") or 0
        warmup = metadata.opt_integer("warmup_request_count") or 0
        if requests:
            adapted.notes.append(
                f"Each decode cell measured {_plural(requests, 'request')} after "
                f"{_plural(warmup, 'warm-up request')} (--request-count)."
            )


def _prefill_mode(adapted: Adapted, metadata: Node) -> None:
    _mode(adapted, metadata, "prefill_mode", _PREFILL_MODES)


def _hardware_facts(adapted: Adapted, bench: Node) -> None:
    diagnostics = bench.get("startup_diagnostics")
    if diagnostics is None:
        return
    uname = diagnostics.get("uname")
    if uname is not None and uname.text().split():
        adapted.put("hardware", "os", uname.text().split()[0].lower(), uname)
    query = diagnostics.get("nvidia_smi_query")
    if query is None or query.opt_integer("returncode") != 0:
        return
    stdout = query.get("stdout")
    if stdout is not None:
        _nvidia_smi(adapted, stdout)


def _nvidia_smi(adapted: Adapted, stdout: Node) -> None:
    """GPU name, count and driver from ``nvidia-smi --query-gpu=index,name,driver_version,…``
    CSV."""
    rows = [
        [column.strip() for column in line.split(",")]
        for line in stdout.text().splitlines()
        if line.strip()
    ]
    # Diagnostic text of another program: if it is not the expected CSV, it tells nothing.
    if not rows or any(len(row) < 3 or not row[0].isdigit() for row in rows):
        return
    names = {row[1] for row in rows}
    drivers = {row[2] for row in rows}
    if len(names) == 1:
        name = names.pop()
        # nvidia-smi lists only NVIDIA devices; the page shows the product without the vendor.
        adapted.put("hardware", "vendor", "NVIDIA", stdout)
        adapted.put("hardware", "accelerator", name.removeprefix("NVIDIA ").strip() or name, stdout)
    else:
        adapted.notes.append(
            f"The benchmark host has different GPUs ({', '.join(sorted(names))}); "
            "the accelerator comes from run.yaml."
        )
    adapted.put("hardware", "count", len(rows), stdout)
    if len(drivers) == 1 and (driver := drivers.pop()):
        adapted.put("hardware", "driver", driver, stdout)


def _engine_version(adapted: Adapted, bench: Node) -> None:
    log = bench.get("event_log")
    if log is None:
        return
    for line in log.elements():
        if isinstance(line.value, str) and (match := _STARTUP_ENGINE.search(line.value)):
            adapted.put("engine", "version", match["version"], line)
            return


# --- prefill -------------------------------------------------------------------------------


def _prefill(adapted: Adapted, bench: Node) -> None:
    rows = bench.get("prefill")
    if rows is None:
        return
    records: list[Record] = []
    skipped: list[int] = []
    for key, row in rows.items():
        if not key.isdigit():
            raise row.error(
                f"prefill key {key!r} is not a context length in tokens (a whole number)"
            )
        record = _prefill_point(int(key), row)
        if record is None:
            skipped.append(int(key))
        else:
            records.append(record)
    records.sort(key=lambda r: r.data["context_tokens"])
    adapted.add_records("prefill", records)
    if skipped:
        contexts = ", ".join(f"{c:,}" for c in sorted(skipped))
        adapted.notes.append(
            f"Prefill rows the tool skipped (0 samples) are left out: {contexts} tokens of context."
        )


def _prefill_point(context: int, row: Node) -> Record | None:
    row.mapping()
    samples = row.opt_integer("samples")
    speed = row.opt_number("tok_per_sec")
    # A skipped standalone row carries samples 0 and tok/s 0: no measurement, not a zero one.
    if samples == 0 or not speed:
        return None
    record = Record(row)
    record.set("context_tokens", context)
    prompt_tokens = row.opt_integer("prompt_tokens")
    if prompt_tokens:
        record.set("prompt_tokens", prompt_tokens, "prompt_tokens")
    record.figure("prompt_tokens_per_s", "tok_per_sec")
    record.figure("ttft_ms", "ttft_seconds", 1000.0)
    if samples is not None:
        record.set("samples", samples, "samples")
    ttft = row.opt_number("ttft_seconds")
    if samples is not None and samples > 1 and ttft:
        # Standalone cold prefill keeps the median of its samples (FORMAT.md §1.3).
        record.set("statistics", {"ttft_ms": {"p50": round(ttft * 1000.0, DECIMALS)}})
    return record


# --- decode ---------------------------------------------------------------------------------


def _decode(adapted: Adapted, bench: Node, metadata: Node, prefill_only: bool) -> None:
    results = bench.get("results")
    records = [_decode_cell(cell) for cell in results.elements()] if results is not None else []
    if not prefill_only:
        present = {(r.data["context_tokens"], r.data["concurrency"]) for r in records}
        records.extend(_missing_cells(adapted, metadata, present))
    _queue_signal_note(adapted, results, metadata)
    _power_measurement(adapted, records, metadata)
    failed = sum(1 for r in records if r.data["status"] == "failed")
    if failed:
        adapted.notes.append(
            f"{failed} decode cell{'s' if failed != 1 else ''} failed in the tool and "
            f"{'are' if failed != 1 else 'is'} marked failed without figures (see each cell's "
            f"note)."
        )
    records.sort(key=lambda r: (r.data["context_tokens"], r.data["concurrency"]))
    adapted.add_records("decode", records)


def _decode_cell(cell: Node) -> Record:
    cell.mapping()
    record = Record(cell)
    concurrency = cell.need("concurrency").integer()
    record.set("context_tokens", cell.need("context_tokens").integer(), "context_tokens")
    record.set("concurrency", concurrency, "concurrency")
    skipped = _skipped(cell)
    if skipped is not None:
        status, note = skipped
        record.set("status", status, "aggregate_tps")
        if note:
            record.set("note", note)
        return record
    failure = _failure(cell)
    if failure is not None:
        record.set("status", "failed")
        record.set("note", failure)
        return record
    queued = (cell.opt_number("avg_queue_reqs") or 0) > 0 or (
        cell.opt_number("queue_fraction") or 0
    ) > 0
    record.set("status", "requests_queued" if concurrency > 1 and queued else "valid")
    record.figure("total_tokens_per_s", "aggregate_tps")
    record.figure("per_request_tokens_per_s", "output_tps_per_user_avg")
    record.figure("ttft_ms", "ttft_avg", 1000.0)
    record.figure("time_between_tokens_ms", "inter_token_latency_avg", 1000.0)
    record.figure("average_active_requests", "avg_running_reqs")
    completed = cell.opt_integer("completed_request_count")
    if completed is not None:
        # A count, not a statistic: 0 completed requests in a 30 s window is a real result.
        record.set("completed_requests", completed, "completed_request_count")
    record.figure("output_tokens", "client_output_tokens")
    record.figure("measured_s", "measurement_seconds")
    _cell_statistics(record, cell)
    hardware = cell.get("hardware_summary")
    power = (
        hardware.opt_number("power_total_avg_w")
        if hardware is not None and hardware.value
        else None
    )
    if power:
        record.set("average_power_w", round(power, DECIMALS))
    return record


def _cell_statistics(record: Record, cell: Node) -> None:
    """Every statistic the cell has of TTFT, time between tokens and per-request tok/s.

    0 is the tool's "no samples", so it is left out, as for the headline figures.
    """
    statistics: dict[str, dict[str, float]] = {}
    raw_keys: dict[str, str] = {}
    for key, node in cell.items():
        match = _STATISTIC_SUFFIX.search(key)
        if match is None or key[: match.start()] not in _CELL_STATISTICS:
            continue
        figure, scale = _CELL_STATISTICS[key[: match.start()]]
        value = node.number()
        if value:
            name = "mean" if match[1] == "avg" else match[1]
            statistics.setdefault(figure, {})[name] = round(
                value * scale if scale != 1.0 else value, DECIMALS
            )
            raw_keys[f"statistics/{figure}/{name}"] = (
                key  # a problem with it is shown at the raw line
            )
    if not statistics:
        return
    order = [figure for figure, _ in _CELL_STATISTICS.values()]
    record.set(
        "statistics",
        {
            figure: dict(sorted(statistics[figure].items(), key=_statistic_order))
            for figure in order
            if figure in statistics
        },
    )
    record.raw_keys.update(raw_keys)


def _statistic_order(item: tuple[str, float]) -> tuple[int, float]:
    name = item[0]
    return (0, 0.0) if name == "mean" else (1, float(name[1:]))


def _skipped(cell: Node) -> tuple[str, str] | None:
    # In memory the tool marks skips with aggregate_tps -1 (KV budget) and -2 (skipped by hand);
    # the versions read so far drop them before saving, but a file that keeps them is understood.
    aggregate = cell.need("aggregate_tps").number()
    if aggregate == -1:
        return "over_capacity", ""
    if aggregate == -2:
        return "not_run", "skipped by hand during the run"
    return None


def _failure(cell: Node) -> str | None:
    """Why the tool's own figures for this cell are not a measurement, or None."""
    if cell.opt_flag("loop_detected"):
        return "invalidated by the tool's repetition (loop) guard: the model kept repeating itself"
    reason = cell.opt_text("failure_reason")
    if reason:
        return f"failed in the tool: {reason}"[:2000]
    if cell.need("aggregate_tps").number() == 0:
        source = cell.opt_text("aggregate_source") or ""
        if not source:
            return _FAILED_LOOP
        return f"no output tokens were counted in the measured window (aggregate source {source!r})"
    return None


def _missing_cells(adapted: Adapted, metadata: Node, present: set[tuple[int, int]]) -> list[Record]:
    """Cells of the file's matrix with no result: over capacity by the tool's rule, else not run."""
    contexts = _int_list(metadata, "context_lengths")
    levels = _int_list(metadata, "concurrency_levels")
    missing = [(ctx, c) for ctx in contexts for c in levels if (ctx, c) not in present]
    if not missing:
        return []
    budget = metadata.opt_integer("max_total_tokens") or 0
    max_tokens = (
        metadata.need("max_tokens", ": needed to tell over-capacity cells").integer()
        if budget > 0
        else 0
    )
    records: list[Record] = []
    over = 0
    for context, concurrency in missing:
        record = Record(metadata)
        record.set("context_tokens", context)
        record.set("concurrency", concurrency)
        if budget > 0 and concurrency * (context + max_tokens) > budget:
            record.set("status", "over_capacity")
            over += 1
        else:
            record.set("status", "not_run")
            record.set(
                "note",
                "no result in the file: not run (concurrency above the server's limit, "
                "skipped, or the run was interrupted)",
            )
        records.append(record)
    if over:
        adapted.notes.append(
            f"{over} over-capacity cell{'s' if over != 1 else ''} rebuilt from the file's metadata "
            f"with the tool's "
            f"rule: requests × (context + {max_tokens:,} max output tokens) > {budget:,} KV-cache "
            f"tokens."
        )
    if len(missing) > over:
        count = len(missing) - over
        adapted.notes.append(
            f"{count} cell{'s' if count != 1 else ''} of the file's matrix "
            f"{'have' if count != 1 else 'has'} no result although within the KV cache; "
            "marked not_run."
        )
    return records


def _queue_signal_note(adapted: Adapted, results: Node | None, metadata: Node) -> None:
    """Older files have no queue signals in their cells: then "valid" only means "measured"."""
    if results is None or metadata.opt_flag("metrics_available") is False:
        return  # no cells, or _other_notes already says queueing was not measured
    blind = [
        cell
        for cell in results.elements()
        if isinstance(cell.value, dict) and not any(key in cell.value for key in _QUEUE_SIGNALS)
    ]
    if blind:
        adapted.notes.append(
            f"{_plural(len(blind), 'decode cell')} of this file "
            f"{'has' if len(blind) == 1 else 'have'} "
            "no queue signals (avg_queue_reqs, queue_fraction; older versions of the tool did not "
            "save them), so queued requests could not be seen: a cell marked valid there was "
            "measured, but may have had requests waiting."
        )


def _power_measurement(adapted: Adapted, records: list[Record], metadata: Node) -> None:
    if any("average_power_w" in record.data for record in records):
        adapted.put("run", "power_measurement", POWER_MEASUREMENT, metadata)


def _int_list(metadata: Node, key: str) -> list[int]:
    node = metadata.get(key)
    return [] if node is None else [item.integer() for item in node.elements()]


def _other_notes(adapted: Adapted, bench: Node, metadata: Node) -> None:
    burst = bench.get("burst_results")
    if burst is not None and burst.sequence():
        count = len(burst.sequence())
        adapted.notes.append(
            f"{count} burst end-to-end cell{'s' if count != 1 else ''} (--run-burst, "
            f"burst_results) "
            "not imported: the decode cells are the sustained-decode results."
        )
    if metadata.opt_flag("metrics_available") is False:
        adapted.notes.append(
            "The server had no usable /metrics: average active requests and queueing were not "
            "measured, so no cell could be marked requests_queued."
        )
