"""Setups and their history: the runs of one setup over time, and each run's changes against
the previous run of its setup (docs/comparisons.md#setups and #changes).

A **setup** is one model on one accelerator type and count, with one engine, quantization and
speculative decoding, measured with one benchmark shape (tool, decode and prefill modes, output
length, measurement time, and the loads of its open-loop points). ``run.setup`` (schema 1.2)
names it instead, when the publisher knows better; runs named into one setup are never split,
and a shape that differs between two of them makes their comparison "can't tell".

**Changes**: each run of a setup (in date order, then id) is compared with the one before on
every figure both measured (decode cells by context × concurrency, prefill points by context,
load points by rate, arrival and cap): the relative change after / before − 1 is judged by
:class:`Rule`. Launch settings that differ are annotations, never a verdict.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from sitegen.model import INPUT_LENGTH_TOLERANCE, Run
from sitegen.site.figures import numbers
from sitegen.site.figures.grouping import slugify

REGRESSION, IMPROVEMENT, NO_CHANGE, CANT_TELL = (
    "regression",
    "improvement",
    "no change",
    "can't tell",
)
# Each compared figure, whether more is better, and its words on pages.
FIGURES = {
    "total_tokens_per_s": (True, "total tok/s"),
    "prompt_tokens_per_s": (True, "prefill tok/s"),
    "ttft_ms": (False, "TTFT"),
    "time_between_tokens_ms": (False, "time between tokens"),
}
_DECODE_FIGURES = ("total_tokens_per_s", "ttft_ms", "time_between_tokens_ms")
# Load points of two runs whose measured input lengths differ by more than this: not one workload.
LENGTH_TOLERANCE = INPUT_LENGTH_TOLERANCE


@dataclass(frozen=True)
class Rule:
    """A figure changed when it moved by more than ``threshold`` of its previous value and by
    more than the relative spread of its repeats (max − min over median) where either run has
    them; by less than the threshold it did not change; in between it is "can't tell"."""

    threshold: float = 0.05

    @property
    def name(self) -> str:
        return (
            f"beyond ±{self.threshold * 100:g} % of the previous value, "
            "and beyond the repeats' spread"
        )

    @property
    def short(self) -> str:
        """The rule as each record of changes.json names it: 'threshold 5 %'."""
        return f"threshold {self.threshold * 100:g} %"

    def judge(
        self, higher_is_better: bool, before: float, after: float, spread: float
    ) -> tuple[str, str]:
        """The verdict and its reason for one figure."""
        change = after / before - 1
        if abs(change) <= self.threshold:
            return NO_CHANGE, ""
        if abs(change) <= spread:
            return CANT_TELL, (
                f"the spread of repeats ({spread:.1%}) is larger than the change ({change:+.1%})"
            )
        better = (change > 0) == higher_is_better
        return (IMPROVEMENT if better else REGRESSION), ""


@dataclass(frozen=True)
class Point:
    """One comparable figure of one run: where it was measured and its value."""

    figure: str
    kind: str  # "decode", "prefill" or "load"
    position: tuple[float | int | str | None, ...]
    value: float
    spread: float = 0.0  # relative spread of the repeats this value was chosen from
    length: int | None = None  # a load point's measured input length

    @property
    def key(self) -> tuple[object, ...]:
        return (self.kind, self.position, self.figure)


@dataclass(frozen=True)
class Change:
    """One record of /data/changes.json: a run's figure against the previous run's."""

    setup: str
    run: str
    previous_run: str
    date: str | None
    figure: str
    kind: str
    position: tuple[float | int | str | None, ...]
    before: float | None
    after: float
    verdict: str
    reason: str
    rule: str

    @property
    def ratio(self) -> float | None:
        return None if self.before is None else self.after / self.before

    def record(self) -> dict[str, object]:
        record: dict[str, object] = {
            "setup": self.setup,
            "run": self.run,
            "previous_run": self.previous_run,
            "figure": self.figure,
        }
        # A position's last name is there only when measured (a sweep's output or prompt length).
        record.update(zip(_POSITION_NAMES[self.kind], self.position, strict=False))
        ratio = self.ratio
        record.update(
            before=self.before,
            after=self.after,
            ratio=None if ratio is None else round(ratio, 6),
            verdict=self.verdict,
            rule=self.rule,
        )
        if self.reason:
            record["reason"] = self.reason
        return record


_POSITION_NAMES = {
    "decode": ("context_tokens", "concurrency", "output_tokens_per_request"),
    "prefill": ("context_tokens", "prompt_chunk_tokens"),
    "load": (
        "request_rate",
        "arrival",
        "burstiness",
        "max_concurrency",
        "input_tokens_per_request",
    ),
}


def identity(run: Run) -> tuple[object, ...]:
    """What makes two runs one setup, from the fields a build reads without decoding
    measurements; the loads of open-loop points are added by :func:`shape`."""
    if run.info.setup:
        return ("named", run.info.setup)
    hardware, engine, info = run.hardware, run.engine, run.info
    return (
        "derived",
        info.model,
        hardware.accelerator,
        hardware.count,
        engine.name,
        engine.quantization,
        engine.speculative_decoding,
        *settings_shape(run),
    )


# Settings a benchmark tool itself varies from test to test, as it varies lengths: llama-bench's
# -fa, -b, -ub, -ctk, -ctv, -ngl, -t, -sm and -nkvo sweep them within one file, measured side by
# side. Runs that differ in one are two configurations of the benchmark, never one's history.
TEST_PARAMETERS = {
    "llama-bench": (
        "flash_attn",
        "n_batch",
        "n_ubatch",
        "type_k",
        "type_v",
        "n_gpu_layers",
        "n_threads",
        "split_mode",
        "no_kv_offload",
    ),
}


def settings_shape(run: Run) -> tuple[object, ...]:
    info = run.info
    settings = dict(run.engine.settings)
    tested = {key: settings.get(key) for key in TEST_PARAMETERS.get(info.benchmark_tool or "", ())}
    return (
        info.benchmark_tool,
        info.decode_mode,
        info.prefill_mode,
        info.output_tokens_per_request,
        info.max_output_tokens,
        info.time_per_measurement_s,
        info.latency_statistic,
        tuple(sorted(tested.items())),
    )


# llama-bench's defaults of the test parameters that split setups (TEST_PARAMETERS): a setup's
# title and a run's label name flash attention always, and these only where a run did not keep
# them.
_LLAMA_BENCH_DEFAULTS: dict[str, object] = {
    "n_batch": 2048,
    "n_ubatch": 512,
    "type_k": "f16",
    "type_v": "f16",
    "split_mode": "layer",
    "no_kv_offload": False,
}


def test_parameter_words(run: Run) -> str:
    """llama-bench's test parameters of a run in words ("flash attention on, n_ubatch 256"), or
    '' for another tool's run or one that does not say."""
    settings = dict(run.engine.settings)
    if run.info.benchmark_tool != "llama-bench" or "flash_attn" not in settings:
        return ""
    flash = settings["flash_attn"]  # true/false (or 1/0), or newer builds' on/off/auto
    shown = ("on" if flash else "off") if isinstance(flash, bool) or flash in (0, 1) else flash
    words = [f"flash attention {shown}"]
    words += [
        f"{key} {numbers.setting(settings[key])}"
        for key, default in _LLAMA_BENCH_DEFAULTS.items()
        if key in settings and settings[key] != default
    ]
    return ", ".join(words)


_SHAPE_NAMES = (
    "benchmark tool",
    "decode mode",
    "prefill mode",
    "output length",
    "output limit",
    "time per measurement",
    "latency statistic",
    "test parameters",
    "loads",
    "input lengths",  # not a shape difference: see shape
)


def shape(run: Run) -> tuple[object, ...]:
    """The benchmark shape: its settings and the loads of its open-loop points (decoded), then
    the measured input lengths of those points, which tell workloads at one load apart
    (group_setups) but move a little from run to run, so no shape difference is made of them."""
    loads = tuple(sorted({point.load for point in run.load_points}, key=repr))
    lengths = tuple(sorted({point.input_tokens_per_request for point in run.load_points}))
    return (*settings_shape(run), loads, lengths)


def shape_text(run: Run) -> str:
    """``shape`` as text that keys a kept piece (fragments) and compares equal when it does."""
    return json.dumps(shape(run), separators=(",", ":"))


# What a comparison can show of a run (facts_text): decode cells or prefill rows (a natural
# pair's comparison shows them), open-loop load points only (the reader's view compares those
# beside other runs of their loads), or neither.
CELLS, LOADS_ONLY, NOTHING = "cells", "loads", "nothing"


def facts_text(run: Run) -> str:
    """What a build needs of a run's measurements to group and pair it, as one kept piece: its
    shape_text, a line feed, then what a comparison can show of it (CELLS, LOADS_ONLY or
    NOTHING). Read back with :func:`read_facts`."""
    shown = CELLS if run.decode or run.prefill else LOADS_ONLY if run.load_points else NOTHING
    return f"{shape_text(run)}\n{shown}"


def share_a_load(shape_a: str, shape_b: str) -> bool:
    """Whether two runs' shapes (shape_text) name one load (rate, arrival, burstiness, cap) and
    input lengths within LENGTH_TOLERANCE: runs whose load points a comparison could set side
    by side (it matches each point; this only tells whether to offer it)."""
    *_, loads_a, lengths_a = json.loads(shape_a)
    *_, loads_b, lengths_b = json.loads(shape_b)
    return any(load in loads_b for load in loads_a) and any(
        a and b and abs(a / b - 1) <= LENGTH_TOLERANCE for a in lengths_a for b in lengths_b
    )


def read_facts(text: str) -> tuple[str, str]:
    """The shape_text and what a comparison can show of the run, of a facts_text (shape_text
    holds no line feed: JSON escapes them in text)."""
    shape_part, _, shown = text.rpartition("\n")
    return shape_part, shown


def shape_difference(before: str, after: str) -> str:
    """What differs between two shapes (shape_text), in words: '' when nothing does."""
    old, new = json.loads(before), json.loads(after)
    parts = []
    for name, a, b in zip(_SHAPE_NAMES, old, new, strict=True):
        if a == b or name == "input lengths":
            continue
        if name == "test parameters":
            was, now = dict(a), dict(b)
            parts += [
                f"{key} {_shown(was.get(key))} → {_shown(now.get(key))}"
                for key in sorted(set(was) | set(now))
                if was.get(key) != now.get(key)
            ]
        else:
            parts.append(f"{name} {_shown(a)} → {_shown(b)}")
    return "; ".join(parts)


def _shown(value: object) -> str:
    if value is None or value == []:
        return "none"
    if isinstance(value, bool):
        return numbers.setting(value)
    if isinstance(value, list):
        return ", ".join(
            f"{item[0]:g}/s {item[1]}" + (f" ≤{item[3]}" if item[3] else "") for item in value
        )
    return str(value)


def setup_id(run: Run, full_identity: tuple[object, ...]) -> str:
    """The setup's id (its page's address): the publisher's ``run.setup``, else the model's name
    and quantization with a short digest of the whole identity. A quantization the model's name
    already ends in or holds ("Gemma-4-26B-A4B-NVFP4", NVFP4) is not said twice."""
    if run.info.setup:
        return run.info.setup
    model = slugify(run.info.model.rstrip("/").rsplit("/", 1)[-1])
    quantization = slugify(run.engine.quantization) if run.engine.quantization else ""
    named = not quantization or f"-{quantization}-" in f"-{model}-"
    name = (model if named else f"{model}-{quantization}")[:40].strip("-")
    return f"{name}-{hashlib.sha256(repr(full_identity).encode()).hexdigest()[:8]}"


def in_order(runs: Iterable[Run]) -> list[Run]:
    """A setup's runs in date order (undated last), then by id."""
    return sorted(runs, key=lambda run: (run.info.date is None, run.info.date or "", run.id))


def points(run: Run) -> dict[tuple[object, ...], Point]:
    """Every comparable figure of ``run`` by its key."""
    found: list[Point] = []
    for cell in run.decode:
        if not cell.status.measured:
            continue
        spread = _spread(dict(cell.source_values).get("repetitions_total_tokens_per_s"))
        # A cell is judged by its headline, total tok/s (its latencies follow from the same load).
        if cell.total_tokens_per_s:
            length = cell.output_tokens_per_request
            position = _with_length((cell.context_tokens, cell.concurrency), length)
            found.append(
                Point("total_tokens_per_s", "decode", position, cell.total_tokens_per_s, spread)
            )
    for prefill in run.prefill:
        if prefill.prompt_tokens_per_s:
            found.append(
                Point(
                    "prompt_tokens_per_s",
                    "prefill",
                    _with_length((prefill.context_tokens,), prefill.prompt_chunk_tokens),
                    prefill.prompt_tokens_per_s,
                )
            )
    for load in run.load_points:
        for name in _DECODE_FIGURES:
            value = getattr(load, name)
            if value:
                found.append(
                    Point(
                        name,
                        "load",
                        (*load.load, load.input_tokens_per_request),
                        value,
                        length=load.input_tokens_per_request,
                    )
                )
    return {(*point.key[:1], _matched(point), *point.key[2:]): point for point in found}


def _with_length(
    position: tuple[int, ...], length: int | None
) -> tuple[float | int | str | None, ...]:
    """A position, with the output or prompt length its figure was measured at when the file
    names one (llama-bench sweeps tg128 … tg4096 and pp512 … pp4096 at one context)."""
    return position if length is None else (*position, length)


def _matched(point: Point) -> tuple[object, ...]:
    # Load points match across runs by their load; their input lengths are checked apart.
    return point.position[:4] if point.kind == "load" else point.position


def _spread(text: object) -> float:
    """(max − min) / median of repeats' figures as a source value lists them ("1.5, 1.6")."""
    if not isinstance(text, str):
        return 0.0
    try:
        values = sorted(float(part) for part in text.split(","))
    except ValueError:
        return 0.0
    median = values[(len(values) - 1) // 2]
    return (values[-1] - values[0]) / median if len(values) > 1 and median > 0 else 0.0


@dataclass(frozen=True)
class Step:
    """Two consecutive runs of a setup: what they are compared by."""

    setup: str
    before: Run
    after: Run
    shape_before: str
    shape_after: str


def nearby(
    key: tuple[object, ...], keys: Iterable[tuple[object, ...]]
) -> tuple[object, ...] | None:
    """The key among ``keys`` of the same figure, kind and concurrency whose context is nearest
    ``key``'s within LENGTH_TOLERANCE: measured contexts (a serving benchmark's mean input
    length) move a little between runs of one workload."""
    placed = _context_of(key)
    if key[0] == "load" or placed is None:
        return None
    context, rest = placed
    near: list[tuple[float, str, tuple[object, ...]]] = []
    for other in keys:
        found = _context_of(other)
        if other[0] != key[0] or other[2] != key[2] or found is None or found[1] != rest:
            continue
        distance = abs(found[0] / context - 1)
        if distance <= LENGTH_TOLERANCE:
            near.append((distance, repr(other), other))
    return min(near)[2] if near else None


def _context_of(key: tuple[object, ...]) -> tuple[int, tuple[object, ...]] | None:
    """A decode cell's or prefill point's context, and the rest of its position."""
    position = key[1]
    if not isinstance(position, tuple) or not position:
        return None
    context = position[0]
    if not isinstance(context, int) or context <= 0:
        return None
    return context, position[1:]


def changes(step: Step, rule: Rule) -> list[Change]:
    """Every figure ``step.after`` measured, judged against ``step.before`` (the module's rule)."""
    differs = shape_difference(step.shape_before, step.shape_after)
    old = points(step.before)
    found: list[Change] = []
    for key, point in sorted(points(step.after).items(), key=lambda item: repr(item[0])):
        previous = old.get(key) or old.get(nearby(key, old.keys()) or key)
        before = previous.value if previous else None
        verdict, reason = CANT_TELL, ""
        if differs:
            reason = f"the benchmark shape differs: {differs}"
        elif previous is None:
            reason = "one point only: the previous run did not measure this"
        elif (
            point.length
            and previous.length
            and abs(point.length / previous.length - 1) > LENGTH_TOLERANCE
        ):
            reason = f"the benchmark shape differs: input length {previous.length} → {point.length}"
        else:
            verdict, reason = rule.judge(
                FIGURES[point.figure][0],
                previous.value,
                point.value,
                max(point.spread, previous.spread),
            )
        found.append(
            Change(
                step.setup,
                step.after.id,
                step.before.id,
                step.after.info.date,
                point.figure,
                point.kind,
                point.position,
                before,
                point.value,
                verdict,
                reason,
                rule.short,
            )
        )
    return found


def group_setups(
    runs: Iterable[Run], shape_of: dict[str, str] | None = None
) -> dict[str, list[Run]]:
    """Setups of two or more runs, by id, each in date order. ``shape_of``: each run's shape
    text by id where known (kept between builds); the others are worked out (decoded)."""
    by_identity: dict[tuple[object, ...], list[Run]] = defaultdict(list)
    for run in runs:
        by_identity[identity(run)].append(run)
    setups: dict[str, list[Run]] = {}
    for key, members in by_identity.items():
        if len(members) < 2:
            continue
        if key[0] == "named":
            setups[str(key[1])] = in_order(members)
            continue
        by_shape: dict[str, list[tuple[Run, list[int]]]] = defaultdict(list)
        for run in members:
            settings, lengths = _without_lengths((shape_of or {}).get(run.id) or shape_text(run))
            by_shape[settings].append((run, lengths))
        for text, same in by_shape.items():
            workloads = _workloads(same)
            for tag, workload in workloads.items():
                if len(workload) > 1:
                    tagged = text if len(workloads) == 1 else f"{text} {tag}"
                    setups[setup_id(workload[0], (*key, tagged))] = in_order(workload)
    return dict(sorted(setups.items()))


def _without_lengths(text: str) -> tuple[str, list[int]]:
    """A shape text (shape_text) as the text of its other elements, and its input lengths: its
    last element, a list of numbers (found as text: every build reads every run's shape)."""
    start = text.rindex(",[")
    lengths = text[start + 2 : -2]
    return text[:start] + "]", [int(part) for part in lengths.split(",")] if lengths else []


def _workloads(runs: list[tuple[Run, list[int]]]) -> dict[str, list[Run]]:
    """Runs of one shape by workload: runs whose load points' measured input lengths are, one
    for one, within LENGTH_TOLERANCE of the first run of a workload are of that workload (a
    sharegpt replay and a random 4,000-token prompt at the same rate are two). A workload is
    tagged by its first run's lengths at two significant digits, which the runs move less."""
    found: list[tuple[list[int], list[Run]]] = []
    for run, lengths in sorted(runs, key=lambda item: (item[0].info.date or "", item[0].id)):
        for first, members in found:
            if len(first) == len(lengths) and all(
                abs(length / start - 1) <= LENGTH_TOLERANCE
                for start, length in zip(first, lengths, strict=True)
                if start
            ):
                members.append(run)
                break
        else:
            found.append((lengths, [run]))
    tagged: dict[str, list[Run]] = {}
    for first, members in found:
        tag = ",".join(str(int(float(f"{length:.2g}"))) for length in first)
        while tag in tagged:  # two workloads' lengths alike at two digits: still two setups
            tag += "+"
        tagged[tag] = members
    return tagged


def setup_changes(setup: str, runs: list[Run], shapes: dict[str, str], rule: Rule) -> list[Change]:
    """Every change of a setup's runs (in order) against the run before each."""
    found: list[Change] = []
    for before, after in itertools.pairwise(runs):
        found += changes(Step(setup, before, after, shapes[before.id], shapes[after.id]), rule)
    return found


def settings_changes(before: Run, after: Run) -> list[str]:
    """Launch settings that differ between two runs of a setup, in words (annotations)."""
    old, new = dict(before.engine.settings), dict(after.engine.settings)
    notes = [
        f"{name} {numbers.setting(old.get(name))} → {numbers.setting(new.get(name))}"
        for name in sorted(old.keys() | new.keys())
        if old.get(name) != new.get(name)
    ]
    for label, a, b in (
        ("build", before.engine.build, after.engine.build),
        ("parallelism", before.engine.parallelism, after.engine.parallelism),
    ):
        if a != b:
            notes.append(f"{label} {a or 'unset'} → {b or 'unset'}")
    if before.engine.launch_command != after.engine.launch_command:
        notes.append("launch command changed")
    return notes
