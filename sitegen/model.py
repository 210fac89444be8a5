"""The typed model every stage after validation works with.

A Run is built only from data that passed the schema, so constructors trust field
presence and types; templates receive these objects, never raw dicts.
Units are those of the result file: tokens, tokens/s, ms, s, GB.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import field
from enum import StrEnum
from functools import cached_property
from typing import Any

from sitegen.record_decorator import record


class Status(StrEnum):
    VALID = "valid"
    REQUESTS_QUEUED = "requests_queued"
    OVER_CAPACITY = "over_capacity"
    NOT_RUN = "not_run"
    FAILED = "failed"

    @property
    def measured(self) -> bool:
        return self in (Status.VALID, Status.REQUESTS_QUEUED)


@record
class Hardware:
    type: str
    accelerator: str
    count: int
    vendor: str | None = None
    memory_per_device_gb: float | None = None
    memory_total_gb: float | None = None
    os: str | None = None
    cpu: str | None = None
    system_memory_gb: float | None = None
    driver: str | None = None
    interconnect: str | None = None
    notes: str | None = None

    @property
    def total_memory_gb(self) -> float | None:
        if self.memory_total_gb is not None:
            return self.memory_total_gb
        if self.memory_per_device_gb is not None:
            return self.memory_per_device_gb * self.count
        return None


@record
class Engine:
    name: str
    version: str | None = None
    quantization: str | None = None
    backend: str | None = None
    repository: str | None = None
    build: str | None = None
    parallelism: str | None = None
    speculative_decoding: str | None = None
    launch_command: str | None = None
    container_image: str | None = None  # schema 1.2
    container_image_digest: str | None = None
    settings: tuple[tuple[str, str | float | bool], ...] = ()
    notes: str | None = None


Statistics = dict[str, dict[str, float]]
"""Figure name → statistic name (``mean``, ``p50``, ``p99.9`` …) → value in the figure's unit."""


@record
class AcknowledgedWarning:
    """A plausibility warning the file explains: not printed, shown as a caveat on the run page."""

    check: str
    pointer: str
    reason: str


@record
class RunInfo:
    model: str
    base_model: str | None = None
    served_model_name: str | None = None
    revision: str | None = None
    benchmark_tool: str | None = None
    benchmark_tool_version: str | None = None
    benchmark_command: str | None = None  # schema 1.2
    decode_mode: str | None = None
    prefill_mode: str | None = None
    time_per_measurement_s: float | None = None
    max_output_tokens: int | None = None
    output_tokens_per_request: int | None = None
    date: str | None = None
    notes: str | None = None
    setup: str | None = None  # the publisher's setup id, overriding the derived one (schema 1.2)
    label: str | None = None
    latency_statistic: str | None = None  # "mean" or "median": what the headline latencies are
    ttft_prompt_cache: str | None = None  # "warm" or "cold": how the cells' TTFT was measured (1.2)
    power_measurement: str | None = None
    acknowledged_warnings: tuple[AcknowledgedWarning, ...] = ()


@record
class Source:
    publisher: str
    url: str
    retrieved: str
    title: str | None = None
    commit: str | None = None
    section: str | None = None
    related_urls: tuple[str, ...] = ()


@record
class Provenance:
    method: str
    imported_from: str | None = None
    notes: tuple[str, ...] = ()
    # The tool's own identification of the run (schema 1.2): seed, sweep ids, command
    tool_run: dict[str, Any] | None = field(default=None, compare=False, hash=False)
    raw_files: Any = ()  # schema 1.2: [{file, sha256, bytes}], as the document holds them


@record
class PrefillPoint:
    context_tokens: int
    prompt_tokens: int | None = None
    prompt_chunk_tokens: int | None = None
    prompt_tokens_per_s: float | None = None
    ttft_ms: float | None = None
    samples: int | None = None
    note: str | None = None
    source_values: tuple[tuple[str, Any], ...] = ()
    statistics: Statistics = field(default_factory=dict, hash=False)

    def statistic(self, figure: str, name: str) -> float | None:
        return self.statistics.get(figure, {}).get(name)


@record
class DecodeCell:
    context_tokens: int
    concurrency: int
    status: Status
    total_tokens_per_s: float | None = None
    per_request_tokens_per_s: float | None = None
    ttft_ms: float | None = None
    time_between_tokens_ms: float | None = None
    average_active_requests: float | None = None
    completed_requests: int | None = None
    output_tokens: int | None = None
    measured_s: float | None = None
    output_tokens_per_request: int | None = None
    note: str | None = None
    source_values: tuple[tuple[str, Any], ...] = ()
    statistics: Statistics = field(default_factory=dict, hash=False)
    average_power_w: float | None = None
    energy_per_output_token_j: float | None = None
    # A cell measured several times: {"count": n, "spread": {figure: {min, max, stddev}}}
    repeats: dict[str, Any] | None = field(default=None, hash=False, compare=False)

    def statistic(self, figure: str, name: str) -> float | None:
        return self.statistics.get(figure, {}).get(name)


@record
class LoadPoint:
    """An open-loop measurement: requests sent at a rate (perhaps capped), never a matrix cell."""

    request_rate: float
    arrival: str  # "poisson", "gamma" (shape in burstiness) or "constant"
    input_tokens_per_request: int
    total_tokens_per_s: float
    burstiness: float | None = None
    max_concurrency: int | None = None
    output_tokens_per_request: int | None = None
    completed_requests: int | None = None
    failed_requests: int | None = None
    request_throughput: float | None = None
    per_request_tokens_per_s: float | None = None
    ttft_ms: float | None = None
    time_between_tokens_ms: float | None = None
    output_tokens: int | None = None
    measured_s: float | None = None
    note: str | None = None
    source_values: tuple[tuple[str, Any], ...] = ()
    statistics: Statistics = field(default_factory=dict, hash=False)

    def statistic(self, figure: str, name: str) -> float | None:
        return self.statistics.get(figure, {}).get(name)

    @property
    def load(self) -> tuple[float, str, float | None, int | None]:
        """What the benchmark was told: rate, arrival, burstiness, cap."""
        return (self.request_rate, self.arrival, self.burstiness, self.max_concurrency)


@record
class Run:
    """One result file: its id (the file name) and its four sections."""

    id: str
    hardware: Hardware
    engine: Engine
    info: RunInfo
    source: Source | None = None
    provenance: Provenance | None = None
    origin: str = ""
    # The result document; with ``measurements`` given, its "measurements" are a placeholder
    # and ``raw`` reads them on first use (see raw).
    document: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    digest: str = field(default="", compare=False)  # fingerprint of ``raw``, see store.digest
    measurements: Callable[[], Any] | None = field(default=None, compare=False, repr=False)
    # Shared by the runs of one collected file: how many of them hold their measurements decoded.
    decoded: DecodedRuns | None = field(default=None, compare=False, repr=False)

    @cached_property
    def raw(self) -> dict[str, Any]:
        """The result document as validated. Its measurements are nine tenths of it, and a build
        that adds a run needs those of few others: the collected file's reader hands them over
        as text to decode here (store.read_collected), which is most of reading the file."""
        if self.measurements is None:
            return self.document
        if self.decoded is not None:
            self.decoded.hold(self)
        return {**self.document, "measurements": self.measurements()}

    def release(self) -> None:
        """Forget the decoded measurements (and what was made of them); they are decoded again,
        the same, when next asked for. Only runs that can decode them again let go of them."""
        if self.measurements is not None:
            for name in _DECODED:
                self.__dict__.pop(name, None)  # where cached_property keeps its value

    # The measurements are made from ``raw`` on first use: a build that only has to link
    # unchanged pages never needs the tens of thousands of cells of a large site.
    @cached_property
    def prefill(self) -> tuple[PrefillPoint, ...]:
        return tuple(
            sorted(
                (
                    PrefillPoint(**{**point, "source_values": _pairs(point.get("source_values"))})
                    for point in self.raw["measurements"]["prefill"]
                ),
                key=lambda p: (p.context_tokens, p.prompt_chunk_tokens or 0),
            )
        )

    @cached_property
    def decode(self) -> tuple[DecodeCell, ...]:
        return tuple(
            sorted(
                (
                    DecodeCell(
                        **{
                            **cell,
                            "status": Status(cell["status"]),
                            "source_values": _pairs(cell.get("source_values")),
                        }
                    )
                    for cell in self.raw["measurements"]["decode"]
                ),
                key=lambda c: (c.context_tokens, c.concurrency, c.output_tokens_per_request or 0),
            )
        )

    @cached_property
    def load_points(self) -> tuple[LoadPoint, ...]:
        """Open-loop points (schema 1.2) in reading order (``_load_order``)."""
        return _load_order(
            LoadPoint(**{**point, "source_values": _pairs(point.get("source_values"))})
            for point in self.raw["measurements"].get("load_points", ())
        )

    @property
    def contexts(self) -> list[int]:
        """Context lengths of the decode matrix, ascending."""
        return sorted({cell.context_tokens for cell in self.decode})

    @property
    def concurrencies(self) -> list[int]:
        return sorted({cell.concurrency for cell in self.decode})

    @cached_property
    def _cells_at(self) -> dict[tuple[int, int], list[DecodeCell]]:
        # The matrix asks for every position: one pass over the cells, not one per position.
        cells: dict[tuple[int, int], list[DecodeCell]] = {}
        for cell in self.decode:
            cells.setdefault((cell.context_tokens, cell.concurrency), []).append(cell)
        return cells

    def cell(self, context_tokens: int, concurrency: int) -> DecodeCell | None:
        """The cell at this position; where a source varied the output length, the run's own."""
        matches = self._cells_at.get((context_tokens, concurrency), [])
        default = self.info.output_tokens_per_request
        return next(
            (c for c in matches if c.output_tokens_per_request in (None, default)),
            matches[0] if matches else None,
        )


# Measured mean input lengths of one workload move a little from point to point and run to
# run (a random dataset sampled anew): lengths this close are one workload's.
INPUT_LENGTH_TOLERANCE = 0.10


def _load_order(points: Iterable[LoadPoint]) -> tuple[LoadPoint, ...]:
    """Load points by workload (input lengths within INPUT_LENGTH_TOLERANCE of the shortest of
    theirs), then cap, arrival and request rate: a rate sweep reads by rate, however its
    measured lengths moved between its points."""
    keyed: list[tuple[tuple[int, int, str, float, float, int, int], LoadPoint]] = []
    start = 0
    for point in sorted(points, key=lambda p: p.input_tokens_per_request):
        length = point.input_tokens_per_request
        if not keyed or length > start * (1 + INPUT_LENGTH_TOLERANCE):
            start = length
        order = (
            start,
            point.max_concurrency or 0,
            point.arrival,
            point.burstiness or 0.0,
            point.request_rate,
            length,
            point.output_tokens_per_request or 0,
        )
        keyed.append((order, point))
    return tuple(point for _, point in sorted(keyed, key=lambda item: item[0]))


_DECODED = ("raw", "prefill", "decode", "load_points", "_cells_at")


class DecodedRuns:
    """Bounds how many runs hold their decoded measurements at once: when one more is decoded,
    the run decoded longest ago lets go of its own (Run.release).

    Why: a cold build visits every run many times (its pages, its groups' pages, every
    listing), and the decoded measurements of every run of a large site held at once would
    not fit in memory. Decoding a run again is cheap, and most visits to a run come close
    together (one group page, then the next), so a window of runs is seldom decoded twice."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._held: dict[int, Run] = {}  # in the order they were decoded (a dict keeps it)

    def hold(self, run: Run) -> None:
        self._held.pop(id(run), None)
        self._held[id(run)] = run
        while len(self._held) > self.limit:
            oldest = next(iter(self._held))
            self._held.pop(oldest).release()


def _pairs(mapping: dict[str, Any] | None) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted((mapping or {}).items()))


def run_from_dict(
    run_id: str,
    data: dict[str, Any],
    origin: str = "",
    digest: str = "",
    measurements: Callable[[], Any] | None = None,
    decoded: DecodedRuns | None = None,
) -> Run:
    """Build a Run from a result document that passed validation; with ``measurements``, the
    document's own are a placeholder and this gives them when first asked for (Run.raw)."""
    # The sections as they are, copied only where a field is made a tuple: a build reads every
    # run, and copying each section first was a large part of making them.
    engine, info = data["engine"], data["run"]
    if "settings" in engine:
        engine = {**engine, "settings": _pairs(engine["settings"])}
    if "acknowledged_warnings" in info:
        info = {
            **info,
            "acknowledged_warnings": tuple(
                AcknowledgedWarning(**w) for w in info["acknowledged_warnings"]
            ),
        }
    source = data.get("source")
    provenance = data.get("provenance")
    return Run(
        id=run_id,
        hardware=Hardware(**data["hardware"]),
        engine=Engine(**engine),
        info=RunInfo(**info),
        source=Source(**{**source, "related_urls": tuple(source.get("related_urls", ()))})
        if source
        else None,
        provenance=Provenance(**{**provenance, "notes": tuple(provenance.get("notes", ()))})
        if provenance
        else None,
        origin=origin,
        document=data,
        digest=digest,
        measurements=measurements,
        decoded=decoded,
    )
