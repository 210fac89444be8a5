"""The words the site uses for the schema's enumerated values, and the labels that tell
runs of one model, accelerator and engine apart (:func:`distinguishing_labels`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from sitegen.model import Run, Status
from sitegen.site.figures import history
from sitegen.site.figures.grouping import accelerator_key
from sitegen.site.figures.launch_settings import speculative_decoding
from sitegen.site.incremental.memo import ByRuns
from sitegen.site.page import hardware_name, model_name

HARDWARE_TYPES = {
    "discrete-gpu": "Discrete GPU",
    "integrated-gpu": "Integrated GPU",
    "accelerator": "AI accelerator",
    "cpu": "CPU",
}
DEVICE_NOUN = {
    "discrete-gpu": "GPU",
    "integrated-gpu": "GPU",
    "accelerator": "Accelerator",
    "cpu": "CPU",
}
MEMORY_NOUN = {
    "discrete-gpu": "VRAM",
    "integrated-gpu": "Unified memory",
    "accelerator": "Device memory",
    "cpu": "Memory",
}
DECODE_MODES = {
    "fixed-duration": "Fixed duration",
    "fixed-request-count": "Fixed request count",
    "batched": "One batch per cell",
    "single-stream": "One request at a time",
}
# What the decode phase is called on the run page (heading and the table's Phase column).
# Runs that do not say how they measured decode keep the site's original word.
DECODE_PHASES = {
    "fixed-duration": "Sustained decode",
    "fixed-request-count": "Request-count decode",
    "batched": "Batched decode",
    "single-stream": "Single-stream decode",
}
DEFAULT_DECODE_PHASE = "Sustained decode"
# The sentence under "All measurements" that says what the latency columns are.
LATENCY_STATISTICS = {
    "mean": "TTFT, time between tokens and per-request tok/s are means over each cell's requests.",
    "median": (
        "TTFT, time between tokens and per-request tok/s are medians over each cell's requests."
    ),
}
LATENCY_UNDECLARED = "Latencies as the source reports them."
PREFILL_MODES = {
    "decode-warmup": "Measured during decode warm-up",
    "standalone-cold": "Standalone, cold cache",
    "at-depth": "Prompt chunk at KV-cache depth",
    "first-token": "From time to first token",
    "not-measured": "Not measured",
}
STATUSES = {
    Status.VALID: "Valid",
    Status.REQUESTS_QUEUED: "Requests queued",
    Status.OVER_CAPACITY: "Over capacity",
    Status.NOT_RUN: "Not run",
    Status.FAILED: "Failed",
}
# Shown under the matrix for every status that appears in it (valid needs no words).
STATUS_EXPLANATIONS = {
    Status.REQUESTS_QUEUED: (
        "the server could not run all requests at once, so some waited in a queue."
    ),
    Status.OVER_CAPACITY: (
        "not run because this many requests at this context would exceed the server's KV cache."
    ),
    Status.NOT_RUN: "not run for another reason; the cell's note says why.",
    Status.FAILED: "the measurement failed, so there is no figure.",
}


# --- telling runs apart ----------------------------------------------------------------------

LABEL_LIMIT = 60
_NO_SPECULATION = {"none", "off", "no", "false", "disabled", "0"}
_MODE_WORDS = {
    "fixed-duration": "sustained",
    "fixed-request-count": "request count",
    "batched": "batched",
    "single-stream": "single stream",
}
_PREFILL_WORDS = {
    "decode-warmup": "prefill in warm-up",
    "standalone-cold": "cold prefill",
    "at-depth": "",
    "first-token": "prefill from TTFT",
    "not-measured": "prefill not measured",
}


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _speculation(run: Run) -> str | None:
    value = speculative_decoding(run.engine)
    if not value:
        return None
    if value.strip().lower() in _NO_SPECULATION:
        return "no speculative decoding"
    # "MTP, num_speculative_tokens=2" → "MTP"; "EAGLE3 (draft …)" → "EAGLE3"
    return "with " + _clip(re.split(r"[,;(]", value)[0].strip() or value, 24)


def _version(run: Run) -> str | None:
    version = run.engine.version
    if not version:
        return None
    return _clip(f"v{version}" if version[:1].isdigit() else version, 24)


def _mode(run: Run) -> str | None:
    # Chosen only where the runs differ, so a run that does not say tells it apart too.
    words = _MODE_WORDS.get(run.info.decode_mode or "", "decode test not stated")
    if run.info.prefill_mode == "at-depth":
        words += " at depth"  # llama-bench's depth sweep: each test on top of a filled KV cache
    return words


def _prefill(run: Run) -> str | None:
    # At depth is said by _mode, which comes first.
    return _PREFILL_WORDS.get(run.info.prefill_mode or "", "prefill mode not stated")


def _engine(run: Run) -> str | None:
    return _clip(run.engine.name, 24)


def _tool(run: Run) -> str | None:
    return _clip(run.info.benchmark_tool, 24) if run.info.benchmark_tool else None


def _quantization(run: Run) -> str | None:
    return _clip(run.engine.quantization, 20) if run.engine.quantization else None


def _test_parameters(run: Run) -> str | None:
    return _clip(words, 40) if (words := history.test_parameter_words(run)) else None


def _count(run: Run) -> str:
    return f"×{run.hardware.count}"


# What may tell runs of one model, accelerator and engine apart, in the order a reader would
# look for it (issue 13): speculative decoding, engine version, the benchmark's own test
# parameters (llama-bench's flash attention, batch sizes…), how it was measured, date.
_DIMENSIONS: tuple[Callable[[Run], str | None], ...] = (
    _speculation,
    _quantization,
    _version,
    _test_parameters,
    _mode,
    _prefill,
    _tool,
    lambda run: run.info.date,
    _count,
)


def _siblings_key(run: Run) -> tuple[str, str, str]:
    """Runs with the same key look alike in every list: model, accelerator and engine."""
    return (
        (run.info.base_model or run.info.model).lower(),
        accelerator_key(run),
        run.engine.name.lower(),
    )


# A build asks about every run of the site five times (its plan, search index, feed and data
# files): remembered for the last few collections of runs.
# (Through a lambda: the module's distinguishing_labels_of is looked up when it is called.)
_RECENT_LABELS = ByRuns(lambda members: distinguishing_labels_of(members))


def distinguishing_labels(runs: Iterable[Run]) -> dict[str, str]:
    """distinguishing_labels_of(), remembered for the last few collections of runs (the same
    run objects in the same order); the caller gets its own copy."""
    return dict(_RECENT_LABELS(runs))


def distinguishing_labels_of(runs: Iterable[Run]) -> dict[str, str]:
    """A short label for every run that shares model, accelerator and engine with another,
    by run id; runs alone in their kind have none (their names already tell them apart).

    A run's own ``run.label`` wins. The others are labelled with the first of _DIMENSIONS on
    which the group differs, adding the next while two labels are still alike, and fall back
    to the run id. The result depends only on each group, so any collection that holds a
    run's whole group (its model's runs, its accelerator's runs) labels it the same way.
    """
    runs = list(runs)
    groups: dict[tuple[str, str, str], list[Run]] = {}
    for run in runs:
        groups.setdefault(_siblings_key(run), []).append(run)
    labels: dict[str, str] = {}
    for members in groups.values():
        if len(members) > 1:
            labels.update(_label_group(sorted(members, key=lambda r: r.id)))
    return _distinct_titles(runs, labels)


def _distinct_titles(runs: list[Run], labels: dict[str, str]) -> dict[str, str]:
    """``labels`` with those of runs whose pages would share a title (run_page: model name,
    hardware and label; runs of other engines, or of models of one name from two publishers)
    made again from the engine and the other dimensions, so that no two titles are alike."""
    # Each run's model name once, and its "model on hardware" name only when first needed: the
    # loop below looks at every run of the site up to three times.
    models = {run.id: model_name(run) for run in runs}
    # What a title's rough key takes of each run besides its label, worked out once.
    kinds = [(run, run.id, models[run.id].lower(), run.hardware.count) for run in runs]
    names: dict[str, str] = {}
    for _ in range(3):  # a new label may meet another run's title; the run ids end it at last
        # Titles are written out only for runs of one model name, count and label (cheap to tell).
        rough: dict[tuple[str, int, str], list[Run]] = {}
        for run, run_id, model, count in kinds:
            rough.setdefault((model, count, labels.get(run_id, "").lower()), []).append(run)
        titles: dict[str, list[Run]] = {}
        for members in rough.values():
            for run in members if len(members) > 1 else ():
                if (name := names.get(run.id)) is None:
                    name = names[run.id] = f"{models[run.id]} on {hardware_name(run)}"
                titles.setdefault(with_label(name, labels.get(run.id)).lower(), []).append(run)
        alike = [members for members in titles.values() if len(members) > 1]
        if not alike:
            return labels
        for members in alike:
            ordered = sorted(members, key=lambda r: r.id)
            labels.update(_label_group(ordered, (_engine, *_DIMENSIONS)))
    return labels


def _label_group(
    members: list[Run],
    dimensions: tuple[Callable[[Run], str | None], ...] = _DIMENSIONS,
    own_labels: bool = True,
) -> dict[str, str]:
    given = {
        run.id: _clip(run.info.label, LABEL_LIMIT)
        for run in members
        if own_labels and run.info.label
    }
    rest = [run for run in members if run.id not in given]
    chosen: list[Callable[[Run], str | None]] = []
    derived: dict[str, str] = {}
    for dimension in dimensions:
        if len({dimension(run) for run in members}) < 2:
            continue  # the same for every run of the group: tells nothing
        chosen.append(dimension)
        derived = {
            run.id: _clip(" · ".join(v for d in chosen if (v := d(run))), LABEL_LIMIT)
            for run in rest
        }
        if _all_distinct([*given.values(), *derived.values()]):
            break
    labels = {**given, **derived}
    # One label a publisher gave several runs ("flash attention off" for three builds): each
    # keeps it, followed by what tells those runs apart (worked out as for unlabelled runs).
    sharing: dict[str, list[Run]] = {}
    for run in members:
        if run.id in given:
            sharing.setdefault(given[run.id], []).append(run)
    for text, alike in sharing.items():
        if len(alike) > 1:
            apart = _label_group(alike, dimensions, own_labels=False)
            labels.update(
                (run.id, _clip(f"{text} · {apart[run.id]}", LABEL_LIMIT))
                for run in alike
                if apart[run.id] != run.id
            )
    counts: dict[str, int] = {}
    for text in labels.values():
        counts[text] = counts.get(text, 0) + 1
    # Still alike (or empty): the run id is unique by construction.
    return {
        run.id: labels[run.id] if labels.get(run.id) and counts[labels[run.id]] == 1 else run.id
        for run in members
    }


def _all_distinct(texts: list[str]) -> bool:
    return all(texts) and len(set(texts)) == len(texts)


def with_label(name: str, label: str | None) -> str:
    """'gpt-oss-120b-GGUF on GB10 ×1 · batched': a run's name and, when it needs one, its label."""
    return f"{name} · {label}" if label else name
