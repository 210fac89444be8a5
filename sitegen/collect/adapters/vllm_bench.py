"""vLLM's serving benchmark: ``vllm bench serve --save-result`` (``benchmark_serving.py`` before
it), one JSON object per run, and ``vllm bench sweep serve`` folders (``run=N.json`` files plus a
``summary.json`` array of the same objects).

The file records no hardware, no vLLM version and no input-length setting; run.yaml gives the
first two, and the context is measured (:mod:`.serving`). Figures, all as vLLM defines them:

* total tok/s = ``output_throughput`` (output tokens over the whole benchmark duration);
* TTFT = ``median_ttft_ms`` (run.latency_statistic ``median``), its mean/std/percentiles in
  ``statistics``;
* time between tokens = ``median_tpot_ms``: TPOT is each request's (latency − TTFT) / (output
  tokens − 1), the per-request time between tokens; the pooled ITL is kept in source_values;
* per-request tok/s = 1000 / ``median_tpot_ms`` — derived, named in provenance (a median
  commutes with 1/x, so this is the median per-request rate; its mean is not recorded).

A run at a finite ``request_rate`` is a load point (schema 1.2), capped by ``max_concurrency``
when set; ``burstiness`` 1 is Poisson arrivals, any other value gamma arrivals of that shape.
"""

from __future__ import annotations

import re
from typing import Any

from sitegen.collect.adapters import serving
from sitegen.collect.adapters._foreign import Adapted, Node, Record

TOOL = "vllm bench serve"
_PERCENTILE = re.compile(r"^p(?P<p>[0-9]{1,2}(?:\.[0-9]{1,2})?)_(?P<metric>[a-z0-9_]+)_ms$")
_DATE = re.compile(r"^(\d{4})(\d{2})(\d{2})-\d{6}$")
# Keys of the result object itself (any version seen); a sweep adds its serve parameters
# (``max_num_seqs``…) beside them, which tell one server configuration from another.
_RESULT_KEYS = frozenset(
    (
        "date",
        "endpoint_type",
        "backend",
        "label",
        "model_id",
        "tokenizer_id",
        "num_prompts",
        "request_rate",
        "burstiness",
        "max_concurrency",
        "duration",
        "completed",
        "failed",
        "total_input_tokens",
        "total_output_tokens",
        "request_throughput",
        "request_goodput",
        "request_goodput:",
        "output_throughput",
        "total_token_throughput",
        "max_output_tokens_per_s",
        "max_concurrent_requests",
        "rtfx",
        "run_number",
        "input_lens",
        "output_lens",
        "ttfts",
        "itls",
        "generated_texts",
        "errors",
        "best_of",
        "use_beam_search",
        "start_times",
    )
)
# Swept bench parameters that are the matrix's own coordinates (the context is measured, the
# concurrency read from max_concurrency): a sweep over them is one run. Any other swept
# parameter (a serve setting, an output length) is another configuration.
LOAD_PARAMETERS = frozenset(
    (
        "random_input_len",
        "input_len",
        "sonnet_input_len",
        "random_prefix_len",
        "prefix_len",
        "random_range_ratio",
        "max_concurrency",
        "num_prompts",
    )
)
DERIVED_NOTE = (
    "per_request_tokens_per_s = 1000 / median TPOT (derived; {tool} measures time per output "
    "token, "
    "which excludes the first token); time_between_tokens_ms is the median TPOT, and the pooled "
    "inter-token latency (ITL) is kept in source_values."
)


def looks_like(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and "model_id" in data
        and "completed" in data
        and ("max_concurrency" in data or "request_rate" in data)
        and "output_throughput" in data
    )


def adapt(records: list[Node]) -> Adapted:
    every = [element for record in records for element in _runs(record)]
    runs = [run for run in every if not _warm_up(run)]
    if not runs:
        raise every[0].error(
            "only warm-up runs (run_number -1, the warmup.json of vllm bench "
            "sweep --warmup-num-prompts): they are not measurements; import the "
            "run=N.json files of the same folder"
        )
    adapted = Adapted(
        f"{TOOL} result{'s' if len(runs) != 1 else ''} ({len(runs)} "
        f"run{'s' if len(runs) != 1 else ''})"
    )
    points = [_point(run) for run in runs]
    _run_facts(adapted, runs)
    # A sweep (``vllm bench sweep``, whose runs carry run_number) repeats each point on purpose.
    sweep = any(
        isinstance(run.value, dict) and run.value.get("run_number") is not None for run in runs
    )
    serving.matrix(
        adapted,
        points,
        TOOL,
        "--max-concurrency N and --request-rate inf, one run per concurrency",
        average_repeats=sweep,
    )
    if sweep and any(point.concurrency is not None for point in points):
        adapted.notes.append(
            "vllm bench sweep: each cell is the mean of its repeats (run=N), with the spread and "
            "count in repeats."
        )
    if len(runs) < len(every):
        adapted.notes.append(
            f"vllm bench sweep: {len(every) - len(runs)} warm-up run(s) "
            "(run_number -1, warmup.json) left out of every figure."
        )
    adapted.notes.append(DERIVED_NOTE.format(tool="vLLM"))
    return adapted


def _warm_up(run: Node) -> bool:
    """vllm bench sweep's warm-up before a point's repeats (``--warmup-num-prompts``): written to
    ``warmup.json`` with ``run_number`` -1, never part of the point's ``summary.json``."""
    number = run.value.get("run_number") if isinstance(run.value, dict) else None
    return isinstance(number, int) and not isinstance(number, bool) and number < 0


def _runs(record: Node) -> list[Node]:
    """A file's runs: one object, or the array of a sweep's summary.json."""
    if isinstance(record.value, list):
        return record.elements()
    return [record]


def _point(run: Node) -> serving.Point:
    run.mapping()
    point = serving.Point(run, Record(run))
    completed = run.need("completed").integer()
    failed = run.opt_integer("failed") or 0
    if completed == 0:
        point.failed = f"every request failed (completed 0, failed {failed})"
        return point
    concurrency = run.get("max_concurrency")
    request_rate = run.get("request_rate")
    rate = serving.rate(request_rate) if request_rate is not None else float("inf")
    if rate != float("inf"):
        point.load = _load(run, rate, concurrency)
    elif concurrency is None:
        point.open_loop = "every request sent at once (request_rate inf, no max_concurrency)"
    else:
        point.concurrency = concurrency.integer()
    input_tokens = run.opt_integer("total_input_tokens")
    point.mean_input_tokens = input_tokens / completed if input_tokens else None
    point.configuration = {
        key: value
        for key, value in run.mapping().items()
        if key not in _RESULT_KEYS
        and key not in LOAD_PARAMETERS
        and not key.endswith("_ms")
        and isinstance(value, (str, int, bool))
    }
    figures(point, run, completed)
    if point.load is not None:
        throughput = run.opt_number("request_throughput")
        if serving.finite(throughput) and throughput:
            achieved = serving.rounded(throughput)
            point.load_figures["request_throughput"] = (achieved, "request_throughput")
        point.load_figures["failed_requests"] = (failed, "failed")
    if failed:
        point.record.set(
            "note",
            f"{failed} of {completed + failed} requests failed; figures are of the completed ones",
        )
    for key in ("num_prompts", "max_concurrent_requests", "run_number"):
        point.keep(key, run.opt_number(key))
    if request_rate is not None:
        point.keep("request_rate", str(request_rate.value))
    return point


def _load(run: Node, rate: float, concurrency: Node | None) -> serving.Load:
    """A rate-driven run's load: ``burstiness`` is the gamma shape of the gaps (1, the default,
    is Poisson); ``max_concurrency`` caps the requests in flight."""
    burstiness = run.opt_number("burstiness")
    shape = 1.0 if burstiness is None else float(burstiness)
    if shape <= 0:
        raise run.need("burstiness").error(f"expected a burstiness above 0, got {shape:g}")
    cap = concurrency.integer() if concurrency is not None else None
    if shape == 1.0:
        return serving.Load(rate, "poisson", max_concurrency=cap)
    return serving.Load(rate, "gamma", shape, cap)


def figures(point: serving.Point, run: Node, completed: int) -> None:
    """The figures vLLM and SGLang name alike (SGLang's bench_serving took vLLM's names)."""
    point.figure("total_tokens_per_s", run.opt_number("output_throughput"), "output_throughput")
    point.figure("ttft_ms", run.opt_number("median_ttft_ms"), "median_ttft_ms")
    tpot = run.opt_number("median_tpot_ms")
    point.figure("time_between_tokens_ms", tpot, "median_tpot_ms")
    if tpot:
        point.figure("per_request_tokens_per_s", 1000 / tpot, "median_tpot_ms")
        point.statistic("per_request_tokens_per_s", "p50", 1000 / tpot)
    family(point, run, "ttft", "ttft_ms")
    family(point, run, "tpot", "time_between_tokens_ms")
    for key in ("mean_itl_ms", "median_itl_ms", "p99_itl_ms"):
        point.keep(key, run.opt_number(key))
    point.record.set("completed_requests", completed, "completed")
    output = run.opt_integer("total_output_tokens")
    if output is not None:
        point.record.set("output_tokens", output, "total_output_tokens")
        point.keep("mean_output_tokens", output / completed)
        point.mean_output_tokens = output / completed
    point.figure("measured_s", run.opt_number("duration"), "duration")


def family(point: serving.Point, run: Node, metric: str, figure: str) -> None:
    """``mean_/median_/std_/pNN_<metric>_ms`` as the figure's ``statistics``."""
    for key, value in run.mapping().items():
        if key == f"mean_{metric}_ms":
            point.statistic(figure, "mean", value)
        elif key == f"median_{metric}_ms":
            point.statistic(figure, "p50", value)
        elif key == f"std_{metric}_ms":
            point.statistic(figure, "stddev", value)
        elif (match := _PERCENTILE.match(key)) and match["metric"] == metric:
            point.statistic(figure, f"p{match['p']}", value)


def _run_facts(adapted: Adapted, runs: list[Node]) -> None:
    adapted.put("run", "benchmark_tool", TOOL, runs[0])
    adapted.put("run", "latency_statistic", "median", runs[0])
    adapted.put("run", "decode_mode", "fixed-request-count", runs[0])
    adapted.put("run", "prefill_mode", "not-measured", runs[0])
    same_model(adapted, [(run, run.get("model_id")) for run in runs])
    backends = {run.opt_text("backend") for run in runs} | {
        run.opt_text("endpoint_type") for run in runs
    }
    if "vllm" in backends:
        # The "vllm" client speaks vLLM's own API; "openai" clients may measure any server.
        adapted.put("engine", "name", "vLLM", runs[0])
    dates = [
        (f"{match[1]}-{match[2]}-{match[3]}", run)
        for run in runs
        if (text := run.opt_text("date")) and (match := _DATE.match(text))
    ]
    if dates:
        # The earliest run's local date (vLLM writes no time zone).
        date, run = min(dates, key=lambda item: item[0])
        adapted.put("run", "date", date, run.need("date"))


def same_model(adapted: Adapted, models: list[tuple[Node, Node | None]]) -> None:
    """The model every record names (the served name, or a local path): one run is one model."""
    named = [(run, model) for run, model in models if model is not None and model.text()]
    if not named:
        return
    first_run, first = named[0]
    for _, model in named[1:]:
        if model.text() != first.text():
            raise model.error(
                f"this run measured {model.text()!r}, but {serving.where(first_run)} measured "
                f"{first.text()!r}: one run is one model, so import them separately"
            )
    # The served name; run.yaml gives the published model id (this is only the fallback).
    adapted.put("run", "model", first.text(), first)
    adapted.put("run", "served_model_name", first.text(), first)
