"""Derived figures: operating points, service levels, capacity and cost.

Nothing here is measured as such: every figure is worked out from a run's decode cells by
the rules in docs/capacity.md, and pages label them "derived". Pure functions over the
validated result documents (``run.raw``), so they need no cell objects and read fields of
schema 1.1 (``statistics``) whether or not the model knows them yet.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property
from typing import Any, NamedTuple

from sitegen.config import Price, ServiceLevel
from sitegen.model import Run, Status

# Runs that mean the same context spell it differently (8,192 and 8,000; sglang's 1019K for
# 1M): a context within 3 % of the one asked for counts as it. 3 % pairs those and never
# two powers of two, nor 16K with 15K (6 %) — a reader who wants 15K asks for 15K.
CONTEXT_TOLERANCE = 0.03

# The figures a service level judges, as result files name them.
PER_REQUEST = "per_request_tokens_per_s"
TTFT = "ttft_ms"
TIME_BETWEEN_TOKENS = "time_between_tokens_ms"

Cell = dict[str, Any]  # one decode cell of a validated result document


def context_matches(actual: int, wanted: int) -> bool:
    """Whether a run's context counts as the context a reader asked for."""
    return abs(actual - wanted) <= CONTEXT_TOLERANCE * wanted


def match_context(contexts: Iterable[int], wanted: int) -> int | None:
    """The run's context that stands for ``wanted``: the nearest within the tolerance (on a
    tie the smaller), or None. Never a neighbour further off: nothing is interpolated."""
    candidates = [c for c in contexts if context_matches(c, wanted)]
    return min(candidates, key=lambda c: (abs(c - wanted), c), default=None)


@dataclass(frozen=True)
class Remembered:
    """What a let-go grid (Analysis.grid) leaves for the figure cache: the capacities it held,
    and how many of them it worked out."""

    capacities: dict[tuple[int, ServiceLevel], Capacity]
    worked_out: int

    def known(self) -> dict[tuple[int, ServiceLevel], Capacity]:
        return self.capacities


class Outline(NamedTuple):
    """Where a run's decode matrix has figures, without its cells: the contexts and request
    counts of its grid (CellGrid), and the contexts at which some cell measured a total. A
    group page needs only this of most of its runs (which contexts its charts offer, which
    runs each chart draws): an accelerator's page lists many runs, and their outlines, kept
    between builds (figure_cache), spare decoding every one of them."""

    contexts: tuple[int, ...]
    levels: tuple[int, ...]
    measured: tuple[int, ...]


def outline_of(run: Run, grid: CellGrid) -> Outline:
    # Read from the document's cells (every cell, not only those the grid chose), without making
    # cell objects.
    return Outline(
        tuple(grid.contexts),
        tuple(grid.levels),
        tuple(
            sorted(
                {
                    cell["context_tokens"]
                    for cell in run.raw["measurements"]["decode"]
                    if Status(cell["status"]).measured
                    and cell.get("total_tokens_per_s") is not None
                }
            )
        ),
    )


class GridFacts(NamedTuple):
    """What a build asks of a run's grid sweep after sweep, kept when the grid lets go of its
    cells (Analysis.grid): its contexts and request counts, and the cells at the points the
    preset views show. A build holds the cells of a window of runs at once (DecodedRuns), and
    each listing, data file and page kind visits every run in its own order: without these,
    each visit decoded the run's measurements again, the part of a cold build that grew faster
    than the runs."""

    contexts: tuple[int, ...]
    levels: tuple[int, ...]
    points: dict[
        tuple[int, int], tuple[int, Cell] | None
    ]  # (context, concurrency) asked → (matched context, cell)


class CellGrid:
    """A run's decode cells by context, then concurrency. Where a source varied the output
    length, the cell with the run's own length stands for the position (as on its page).

    The cells are read from the run's measurements when first needed (``rows``); with
    ``facts`` from an earlier grid of the run, what they hold is answered without them."""

    def __init__(self, run: Run, facts: GridFacts | None = None) -> None:
        self.run = run
        self.facts = facts
        # Capacity at a context and level is asked for by the run page, /capacity/, the preset
        # pages and capacity.json: worked out once per build (the grid lives in the Analysis).
        # Kept by context and level name with the level itself: hashing a level (a dataclass of
        # six fields) on each of the tens of thousands of look-ups a build makes cost more than
        # the look-up; a level of the same name but other limits is worked out apart.
        self._capacity: dict[tuple[int, str], tuple[ServiceLevel, Capacity]] = {}
        self._matched: dict[
            int, int | None
        ] = {}  # context_for's matches, asked for again and again
        # Capacities worked out here rather than remembered: none means the figure cache's
        # entry for this run already holds all this build knows of it (figure_cache.keep).
        self.worked_out = 0

    @cached_property
    def rows(self) -> dict[int, dict[int, Cell]]:
        run = self.run
        default = run.info.output_tokens_per_request
        chosen: dict[tuple[int, int], Cell] = {}
        cells = sorted(
            run.raw["measurements"]["decode"], key=lambda c: c.get("output_tokens_per_request") or 0
        )
        for cell in cells:
            key = (cell["context_tokens"], cell["concurrency"])
            own = cell.get("output_tokens_per_request") in (None, default)
            if key not in chosen or (
                own and chosen[key].get("output_tokens_per_request") not in (None, default)
            ):
                chosen[key] = cell
        rows: dict[int, dict[int, Cell]] = {}
        for (context, concurrency), cell in sorted(chosen.items()):
            rows.setdefault(context, {})[concurrency] = cell
        return rows

    @cached_property
    def timing(self) -> RunTiming:
        """What the run says of its TTFT beyond its cells (cold-TTFT levels read it)."""
        return run_timing(self.run.raw)

    def facts_at(self, points: Iterable[tuple[int, int]]) -> GridFacts:
        """This grid's facts, with its cells at ``points`` (context, concurrency)."""
        return GridFacts(
            tuple(self.contexts),
            tuple(self.levels),
            {point: self._point_at(*point) for point in points},
        )

    def capacity_at(self, context: int, level: ServiceLevel) -> Capacity:
        """``capacity`` of the run's own context ``context`` (one of ``contexts``)."""
        found = self._capacity.get((context, level.name))
        if found is not None and (found[0] is level or found[0] == level):
            return found[1]
        made = capacity(context, self.rows[context], level, self.accelerators, self.timing)
        self._capacity[(context, level.name)] = (level, made)
        self.worked_out += 1
        return made

    def remember(self, known: dict[tuple[int, ServiceLevel], Capacity]) -> None:
        """Capacities worked out by an earlier build for this run's content (figure_cache)."""
        for (context, level), found in known.items():
            self._capacity[(context, level.name)] = (level, found)

    def known(self) -> dict[tuple[int, ServiceLevel], Capacity]:
        """The capacities worked out (or remembered) so far."""
        return {(context, level): found for (context, _), (level, found) in self._capacity.items()}

    @property
    def contexts(self) -> list[int]:
        """The contexts of the run's decode matrix, ascending."""
        return list(self.facts.contexts) if self.facts is not None else sorted(self.rows)

    @property
    def levels(self) -> list[int]:
        """Every request count measured at some context, ascending."""
        return (
            list(self.facts.levels)
            if self.facts is not None
            else sorted({n for row in self.rows.values() for n in row})
        )

    @property
    def accelerators(self) -> int:
        return self.run.hardware.count

    def context_for(self, wanted: int) -> int | None:
        """The run's actual context standing for ``wanted``, or None."""
        if wanted not in self._matched:
            self._matched[wanted] = match_context(self.contexts, wanted)
        return self._matched[wanted]

    def row_for(self, wanted: int) -> tuple[int, dict[int, Cell]] | None:
        """The run's actual context standing for ``wanted`` and its cells, or None."""
        actual = self.context_for(wanted)
        return None if actual is None else (actual, self.rows[actual])

    def point_at(self, context: int, concurrency: int) -> tuple[int, Cell] | None:
        """The cell at an operating point (matched context, exact concurrency), with the
        matched context; None when the run has no cell there."""
        if self.facts is not None and (context, concurrency) in self.facts.points:
            return self.facts.points[(context, concurrency)]
        return self._point_at(context, concurrency)

    def _point_at(self, context: int, concurrency: int) -> tuple[int, Cell] | None:
        row = self.row_for(context)
        cell = None if row is None else row[1].get(concurrency)
        return None if row is None or cell is None else (row[0], cell)

    def point(self, context: int, concurrency: int) -> Cell | None:
        """The cell at an operating point: matched context, exact concurrency."""
        found = self.point_at(context, concurrency)
        return None if found is None else found[1]


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def mirrored_percentile(name: str) -> str:
    """p99 of a latency is the slow tail; for a speed the slow tail is p1 (p99.9 → p0.1)."""
    return "p" + format(Decimal(100) - Decimal(name[1:]), "f")


def figure(cell: Cell, name: str, percentile: str | None) -> float | None:
    """A figure of a cell: the headline value, or its percentile from ``statistics`` (schema
    1.1). Absent, malformed or not a finite number: None, which never meets a level."""
    if percentile is None:
        return _number(cell.get(name))
    statistics = cell.get("statistics")
    if not isinstance(statistics, dict) or not isinstance(statistics.get(name), dict):
        return None
    key = mirrored_percentile(percentile) if name == PER_REQUEST else percentile
    return _number(statistics[name].get(key))


# Where a verdict's per-request speed came from (per_request_source in /data/capacity.json).
REPORTED = "reported"
FROM_TIME_BETWEEN_TOKENS = "time_between_tokens"


def per_request_speed(cell: Cell, percentile: str | None) -> tuple[float | None, str | None]:
    """The cell's per-request output tok/s and its source: as reported (at a percentile, the
    mirrored slow tail), else 1000 ÷ the time between tokens (at that percentile), else none."""
    reported = figure(cell, PER_REQUEST, percentile)
    if reported is not None:
        return reported, REPORTED
    gap = figure(cell, TIME_BETWEEN_TOKENS, percentile)
    if gap is not None and gap > 0:
        return 1000.0 / gap, FROM_TIME_BETWEEN_TOKENS
    return None, None


# How a run's TTFT was measured (result field run.ttft_prompt_cache) and what a verdict judged:
# the TTFT as measured with a warm or a cold prompt cache, or unknown; or, for a level asking
# for a cold first token of a run not known to be cold, the larger of the TTFT and the run's
# own single-request prefill time at that context (a lower bound on a cold first token).
WARM = "warm"
COLD = "cold"
UNKNOWN = "unknown"
COLD_ESTIMATE = "cold_estimate"


class RunTiming(NamedTuple):
    """What a run says of its TTFT beyond its cells: the prompt cache its TTFT was measured with
    (None: unknown), and its single-request prefill time by context (prefill_times)."""

    prompt_cache: str | None
    prefill_ms: dict[int, float]

    def prefill_at(self, context: int) -> float | None:
        """The prefill time at the context that matches ``context`` (within the tolerance)."""
        matched = match_context(self.prefill_ms, context)
        return None if matched is None else self.prefill_ms[matched]


NO_TIMING = RunTiming(None, {})


def run_timing(document: dict[str, Any]) -> RunTiming:
    """A validated result document's RunTiming (docs/capacity.md, "Warm and cold TTFT")."""
    run = document.get("run", {})
    cache = run.get("ttft_prompt_cache")
    return RunTiming(cache if cache in (WARM, COLD) else None, prefill_times(document))


def prefill_times(document: dict[str, Any]) -> dict[int, float]:
    """The measured single-request prefill time per context, in ms: each prefill point's TTFT.
    None of at-depth points: they time a chunk of the prompt on top of a filled cache."""
    if document.get("run", {}).get("prefill_mode") == "at-depth":
        return {}
    times: dict[int, float] = {}
    for point in document.get("measurements", {}).get("prefill", []):
        time = _number(point.get("ttft_ms"))
        if time is not None and point.get("prompt_chunk_tokens") is None:
            times.setdefault(point["context_tokens"], time)
    return times


def ttft_judged(level: ServiceLevel, timing: RunTiming) -> str:
    """Which TTFT a verdict of ``level`` judges for a run: WARM, COLD, UNKNOWN or COLD_ESTIMATE."""
    if level.ttft == COLD and timing.prompt_cache != COLD:
        return COLD_ESTIMATE
    return timing.prompt_cache or UNKNOWN


# The states of a cell's verdict, and of a capacity (state in /data/capacity.json).
MEETS = "meets"
MISSES = "misses"
CANNOT_TELL = "cannot_tell"
NONE_MEETS = "none_meets"


@dataclass(frozen=True)
class Verdict:
    """Whether a cell meets a service level: MEETS, MISSES (some figure is outside its limit) or
    CANNOT_TELL (none is, but a figure the level limits is missing); ``reason`` says which.
    ``per_request_source`` is where the speed came from (None: the cell has none) and
    ``ttft`` which TTFT was judged (ttft_judged)."""

    state: str
    reason: str = ""
    per_request_source: str | None = None
    ttft: str = UNKNOWN

    @property
    def met(self) -> bool:
        return self.state == MEETS


NOT_RUN_REASON = "not run"
INVALID_REASON = "not a valid measurement"


@dataclass(frozen=True)
class _Reasons:
    """The words of each part of a verdict's reason at one level (judge joins the misses', or
    else the missing figures', with "; " in this order); "" where the level sets no such limit."""

    speed_below: str
    no_speed: str
    ttft_above: str
    no_ttft: str
    cold_above: str
    no_prefill: str
    gap_above: str
    no_gap: str

    def misses(self) -> tuple[str, ...]:
        parts = (self.speed_below, self.ttft_above, self.cold_above, self.gap_above)
        return tuple(part for part in parts if part)

    def missing(self) -> tuple[str, ...]:
        parts = (self.no_speed, self.no_ttft, self.no_prefill, self.no_gap)
        return tuple(part for part in parts if part)


@functools.cache
def _reasons(level: ServiceLevel) -> _Reasons:
    at = f" ({level.percentile})" if level.percentile else ""
    cold = level.ttft == COLD  # only such a level estimates a cold TTFT (ttft_judged)
    gap = level.max_time_between_tokens_ms
    return _Reasons(
        f"per-request tok/s{at} below {level.min_tokens_per_s_per_request:g}",
        f"no per-request tok/s{at} nor time between tokens{at}",
        f"TTFT{at} above {level.max_ttft_ms:g} ms",
        f"no TTFT{at}",
        f"cold TTFT (at least the prefill time) above {level.max_ttft_ms:g} ms" if cold else "",
        "no prefill time at this context for a cold TTFT" if cold else "",
        f"time between tokens{at} above {gap:g} ms" if gap is not None else "",
        f"no time between tokens{at}" if gap is not None else "",
    )


def possible_reasons(level: ServiceLevel) -> tuple[str, ...]:
    """Every reason judge can give at ``level``: not run, not valid, and each combination of the
    misses (or of the missing figures) in the order judge joins them."""
    reasons = [NOT_RUN_REASON, INVALID_REASON]
    for parts in (_reasons(level).misses(), _reasons(level).missing()):
        for chosen in range(1, 2 ** len(parts)):
            reasons.append("; ".join(p for i, p in enumerate(parts) if chosen >> i & 1))
    return tuple(reasons)


def judge(cell: Cell, level: ServiceLevel, timing: RunTiming = NO_TIMING) -> Verdict:
    """A cell meets a level only when it is valid and has every figure the level limits, each
    within its limit. A figure outside its limit is a miss whatever else is missing; a missing
    figure is never taken as met: without a miss it makes the verdict CANNOT_TELL."""
    words = _reasons(level)
    speed, source = per_request_speed(cell, level.percentile)
    ttft_kind = ttft_judged(level, timing)
    status = cell.get("status")
    if status == Status.NOT_RUN.value:
        return Verdict(CANNOT_TELL, NOT_RUN_REASON, source, ttft_kind)
    if status != Status.VALID.value:
        return Verdict(MISSES, INVALID_REASON, source, ttft_kind)
    misses: list[str] = []
    missing: list[str] = []
    if speed is None:
        missing.append(words.no_speed)
    elif speed < level.min_tokens_per_s_per_request:
        misses.append(words.speed_below)
    _judge_ttft(cell, level, timing, ttft_kind, misses, missing)
    if level.max_time_between_tokens_ms is not None:
        gap = figure(cell, TIME_BETWEEN_TOKENS, level.percentile)
        if gap is None:
            missing.append(words.no_gap)
        elif gap > level.max_time_between_tokens_ms:
            misses.append(words.gap_above)
    if misses:
        return Verdict(MISSES, "; ".join(misses), source, ttft_kind)
    if missing:
        return Verdict(CANNOT_TELL, "; ".join(missing), source, ttft_kind)
    return Verdict(MEETS, "", source, ttft_kind)


def _judge_ttft(
    cell: Cell,
    level: ServiceLevel,
    timing: RunTiming,
    kind: str,
    misses: list[str],
    missing: list[str],
) -> None:
    # The TTFT limit: on the TTFT as measured, and for a cold estimate on the prefill time too.
    words = _reasons(level)
    ttft = figure(cell, TTFT, level.percentile)
    if ttft is None:
        missing.append(words.no_ttft)
    elif ttft > level.max_ttft_ms:
        misses.append(words.ttft_above)
    if kind != COLD_ESTIMATE:
        return
    prefill = timing.prefill_at(cell["context_tokens"])
    if prefill is None:
        missing.append(words.no_prefill)
    elif prefill > level.max_ttft_ms:
        misses.append(words.cold_above)


@dataclass(frozen=True)
class Capacity:
    """How many simultaneous requests a run serves at one context within a service level, and
    the state of that answer: MEETS (``max_concurrency`` holds it), NONE_MEETS (not even the
    fewest requests measured) or CANNOT_TELL (the fewest lack a figure the level limits).
    ``measured`` are the context's concurrencies, ascending; ``stopped_at`` the first whose
    cell does not meet the level (None: all meet), ``stopped_state`` its verdict's state and
    ``reason`` why. ``per_request_source`` and ``ttft`` are those of the verdict the answer
    rests on: the capacity's cell, else the first cell."""

    context_tokens: int
    accelerators: int
    max_concurrency: int | None  # None: not even the smallest measured concurrency meets it
    total_tokens_per_s: float | None  # at max_concurrency
    state: str = NONE_MEETS
    per_request_source: str | None = None
    ttft: str = UNKNOWN
    stopped_at: int | None = None
    stopped_state: str | None = None
    reason: str = ""
    measured: tuple[int, ...] = ()

    @property
    def tokens_per_s_per_accelerator(self) -> float | None:
        return (
            None if self.total_tokens_per_s is None else self.total_tokens_per_s / self.accelerators
        )

    @property
    def users_per_accelerator(self) -> float | None:
        return None if self.max_concurrency is None else self.max_concurrency / self.accelerators

    def stored(self) -> list[Any]:
        """What the figure cache keeps of it beyond its context and accelerators (restored)."""
        return [
            self.max_concurrency,
            self.total_tokens_per_s,
            self.state,
            self.per_request_source,
            self.ttft,
            self.stopped_at,
            self.stopped_state,
            self.reason,
            list(self.measured),
        ]

    @classmethod
    def restored(cls, context: int, accelerators: int, stored: list[Any]) -> Capacity:
        held, total, state, source, ttft, stopped_at, stopped_state, reason, measured = stored
        return cls(
            context,
            accelerators,
            held,
            total,
            state,
            source,
            ttft,
            stopped_at,
            stopped_state,
            reason,
            tuple(measured),
        )


def stored_capacity_like(stored: Any) -> bool:
    """Whether a figure cache entry's ``stored()`` part has the shape ``restored`` reads."""
    if not isinstance(stored, list) or len(stored) != 9:
        return False
    held, total, state, source, ttft, stopped_at, stopped_state, reason, measured = stored
    return (
        (held is None or type(held) is int)
        and (total is None or type(total) in (int, float))
        and state in (MEETS, NONE_MEETS, CANNOT_TELL)
        and source in (None, REPORTED, FROM_TIME_BETWEEN_TOKENS)
        and ttft in (WARM, COLD, UNKNOWN, COLD_ESTIMATE)
        and (stopped_at is None or type(stopped_at) is int)
        and stopped_state in (None, MISSES, CANNOT_TELL)
        and isinstance(reason, str)
        and isinstance(measured, list)
        and all(type(n) is int for n in measured)
    )


def capacity(
    context: int,
    row: dict[int, Cell],
    level: ServiceLevel,
    accelerators: int,
    timing: RunTiming = NO_TIMING,
) -> Capacity:
    """The largest measured concurrency whose cell meets the level, with every smaller
    measured concurrency at this context meeting it too: a load the run was seen to hold."""
    best: Cell | None = None
    held: Verdict | None = None
    stop: tuple[int, Verdict] | None = None
    for concurrency in sorted(row):
        verdict = judge(row[concurrency], level, timing)
        if not verdict.met:
            stop = (concurrency, verdict)
            break
        best, held = row[concurrency], verdict
    measured = tuple(sorted(row))
    if stop is None:  # every measured concurrency meets it (or the context has no cells)
        if best is None or held is None:
            return Capacity(context, accelerators, None, None, CANNOT_TELL, measured=measured)
        total = _number(best.get("total_tokens_per_s"))
        return Capacity(
            context,
            accelerators,
            best["concurrency"],
            total,
            MEETS,
            held.per_request_source,
            held.ttft,
            measured=measured,
        )
    stopped_at, stopped = stop
    if best is None or held is None:
        state = CANNOT_TELL if stopped.state == CANNOT_TELL else NONE_MEETS
        return Capacity(
            context,
            accelerators,
            None,
            None,
            state,
            stopped.per_request_source,
            stopped.ttft,
            stopped_at,
            stopped.state,
            stopped.reason,
            measured,
        )
    total = _number(best.get("total_tokens_per_s"))
    return Capacity(
        context,
        accelerators,
        best["concurrency"],
        total,
        MEETS,
        held.per_request_source,
        held.ttft,
        stopped_at,
        stopped.state,
        stopped.reason,
        measured,
    )


# The answers to "does it hold N users?" (Answer.state), beyond MEETS and CANNOT_TELL.
FAILS = "fails"
NOT_MEASURED = "not_measured"


class Answer(NamedTuple):
    """Whether a run holds ``users`` at a context within a level: MEETS at ``concurrency`` (the
    smallest measured ≥ users; every smaller measured one meets too), FAILS or CANNOT_TELL at
    ``concurrency`` (the first measured one not meeting it, at or below the users' rung), or
    NOT_MEASURED (no concurrency that high was measured, and all below meet)."""

    state: str
    concurrency: int | None


def answer_for_users(found: Capacity, users: int) -> Answer:
    """Read off a capacity: never extrapolated beyond, nor interpolated between, measured loads."""
    rung = next((n for n in found.measured if n >= users), None)
    if found.stopped_at is not None and (rung is None or found.stopped_at <= rung):
        state = CANNOT_TELL if found.stopped_state == CANNOT_TELL else FAILS
        return Answer(state, found.stopped_at)
    if rung is None:
        return Answer(NOT_MEASURED, None)
    return Answer(MEETS, rung)


def capacities(grid: CellGrid, level: ServiceLevel) -> list[Capacity]:
    """The run's capacity at each of its contexts."""
    return [grid.capacity_at(context, level) for context in grid.contexts]


def cost_per_million_tokens(
    usd_per_hour: float, accelerators: int, total_tokens_per_s: float | None
) -> float | None:
    """USD per million output tokens: what the accelerators cost for the hour it takes to
    make them, at this throughput. None without a positive throughput."""
    if total_tokens_per_s is None or total_tokens_per_s <= 0:
        return None
    return usd_per_hour * accelerators / (total_tokens_per_s * 3600) * 1e6


def price_for(run: Run, prices: tuple[tuple[str, Price], ...]) -> Price | None:
    """The configured price of the run's accelerator (names compared case-insensitively)."""
    name = run.hardware.accelerator.lower()
    return next((price for key, price in prices if key == name), None)


CAPACITY_FORMAT = "sitegen-capacity"
# 2: fields named once, one record per line as an array (was one object each); 3: each record's
# state, the sources of its speed and TTFT, where and why the ladder stopped, the ladder itself;
# 4: the verdicts only (the figures are the run's cells'); 5: a run's records on one line after
# its id, by service level, each ending at its last value; 6: a record's words (its state,
# sources, reason) as their number in the file's ``words``.
CAPACITY_VERSION = 6


def capacity_words(levels: Iterable[ServiceLevel]) -> tuple[str, ...]:
    """The words /data/capacity.json's records name by number: every state, speed source and
    TTFT judged, and every reason a verdict at ``levels`` can give (possible_reasons)."""
    words = [MEETS, NONE_MEETS, CANNOT_TELL, MISSES, REPORTED, FROM_TIME_BETWEEN_TOKENS]
    words += [WARM, COLD, UNKNOWN, COLD_ESTIMATE]
    for level in levels:
        words += possible_reasons(level)
    return tuple(dict.fromkeys(words))


def capacity_records(
    grids: Iterable[CellGrid], levels: Iterable[ServiceLevel]
) -> list[dict[str, Any]]:
    """/data/capacity.json's records: one per run × service level × context (docs/capacity.md)."""
    levels = list(levels)
    records = []
    for grid in sorted(grids, key=lambda g: g.run.id):
        for level in levels:
            for found in capacities(grid, level):
                records.append(
                    {
                        "run": grid.run.id,
                        "service_level": level.name,
                        "context_tokens": found.context_tokens,
                        "max_concurrency": found.max_concurrency,
                        "total_tokens_per_s": found.total_tokens_per_s,
                        "tokens_per_s_per_accelerator": found.tokens_per_s_per_accelerator,
                        "users_per_accelerator": found.users_per_accelerator,
                        "state": found.state,
                        "per_request_source": found.per_request_source,
                        "ttft_judged": found.ttft,
                        "stopped_at": found.stopped_at,
                        "stopped_state": found.stopped_state,
                        "reason": found.reason or None,
                        "measured_concurrency": list(found.measured),
                    }
                )
    return records
