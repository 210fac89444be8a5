"""Setups over time as the other pages show them (figures/history holds the rules): each
setup's runs and changes, worked out per setup and kept between builds (``SiteHistory``), a
change in words, a run page's history, a model's or an accelerator's links to its setups, and
the timeline charts the setup pages and a run's load points draw.

Built per setup and kept between builds: a run's shape (the one figure of grouping that needs
its measurements) is a piece kept by the run's content, with whether a comparison page has
anything of it to show (natural pairs skip runs that have not); a setup's change records and
its summary are pieces kept by its runs' contents and the rule (fragments.Fragments). A build
that adds a run outside every setup reads no measurements for history; one that adds a run to
a setup works out that setup's changes alone.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from sitegen.model import Run
from sitegen.site.figures import history, numbers
from sitegen.site.figures.grouping import accelerator_key, model_key
from sitegen.site.figures.history import (
    CANT_TELL,
    FIGURES,
    IMPROVEMENT,
    NO_CHANGE,
    REGRESSION,
    Change,
    Rule,
)
from sitegen.site.incremental.fragments import Fragments, key_of
from sitegen.site.page import Page, Site, hardware_name

MAX_RUN_ROWS = 10  # a run page's


@dataclass(frozen=True)
class StepSummary:
    """One run against the previous run of its setup, in counts and its largest changes."""

    setup: str
    run: str
    previous_run: str
    date: str | None
    counts: tuple[tuple[str, int], ...]
    largest: tuple[tuple[str, str, float | None, str], ...]  # figure words, where, ratio, verdict

    def count(self, verdict: str) -> int:
        return dict(self.counts).get(verdict, 0)


@dataclass
class SiteHistory:
    """The setups of a site's runs (two or more runs each) and their changes."""

    setups: dict[str, list[Run]]
    # The shape (history.shape_text) of each run that shares its identity, or its model and
    # accelerator, with another: what grouping, changes and the comparison offers read.
    shapes: dict[str, str]
    rule: Rule
    fragments: Fragments | None = None
    _changes: dict[str, list[Change]] = field(default_factory=dict)
    # What a comparison can show of a run (history.CELLS, LOADS_ONLY or NOTHING), for the runs
    # that share their model and accelerator with another (the others have nothing to compare
    # with on their pages): see compares and shown_in_comparisons.
    comparable: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(
        cls, runs: Iterable[Run], threshold: float, fragments: Fragments | None = None
    ) -> SiteHistory:
        """The setups of ``runs`` under the changes rule of ``threshold`` (history.Rule)."""
        rule = Rule(threshold)
        runs = list(runs)
        alike: dict[tuple[object, ...], list[Run]] = defaultdict(list)
        beside: dict[tuple[str, str], list[Run]] = defaultdict(list)
        for run in runs:
            alike[history.identity(run)].append(run)
            beside[(model_key(run), accelerator_key(run))].append(run)
        # Only runs that share their identity with another need their shape, and only runs that
        # share their model and accelerator need to be told comparable: both read measurements,
        # so both come from one piece kept by the run's content (history.facts_text).
        sharing = {
            run.id: run
            for members in (*alike.values(), *beside.values())
            if len(members) > 1
            for run in members
        }
        facts = {run_id: _facts(run, fragments) for run_id, run in sharing.items()}
        shapes = {run_id: found[0] for run_id, found in facts.items()}
        return cls(
            history.group_setups(
                [run for members in alike.values() if len(members) > 1 for run in members], shapes
            ),
            shapes,
            rule,
            fragments,
            comparable={run_id: found[1] for run_id, found in facts.items()},
        )

    def compares(self, run: Run) -> bool:
        """Whether a static comparison page has something of ``run`` to show: decode cells or
        prefill rows (load points only: the reader's view and the run's setup page compare it)."""
        return self.shown_in_comparisons(run) == history.CELLS

    def shown_in_comparisons(self, run: Run) -> str:
        """What a comparison can show of ``run``: history.CELLS, LOADS_ONLY or NOTHING."""
        return self.comparable.get(run.id, history.CELLS)

    def compared_beside(self, run: Run, other: Run) -> bool:
        """Whether the reader's comparison view shows figures of ``other`` beside ``run``'s: both
        have decode cells or prefill rows, or both load points only at a load they share."""
        kind = self.shown_in_comparisons(run)
        if kind != self.shown_in_comparisons(other) or kind == history.NOTHING:
            return False
        if kind == history.CELLS:
            return True
        return history.share_a_load(self.shapes[run.id], self.shapes[other.id])

    @cached_property
    def setup_of(self) -> dict[str, str]:
        return {run.id: setup for setup, runs in self.setups.items() for run in runs}

    def in_group(self, kind: str, key: str) -> list[str]:
        """The setups with a run in a model's or an accelerator's group, for its page's links."""
        if "_groups" not in self.__dict__:
            found: dict[tuple[str, str], list[str]] = defaultdict(list)
            for setup, runs in self.setups.items():
                for group in sorted(
                    {("models", model_key(run)) for run in runs}
                    | {("hardware", accelerator_key(run)) for run in runs}
                ):
                    found[group].append(setup)
            self.__dict__["_groups"] = found
        groups: dict[tuple[str, str], list[str]] = self.__dict__["_groups"]
        return groups.get((kind, key), [])

    def key(self, setup: str) -> str:
        """Everything a setup's pieces and page are made from: its runs' contents, and the rule."""
        members = [(run.id, run.digest or Fragments.content(run)[1]) for run in self.setups[setup]]
        return hashlib.sha256(repr((setup, members, self.rule)).encode()).hexdigest()

    @property
    def all_key(self) -> str:
        return hashlib.sha256(
            repr(sorted(self.key(setup) for setup in self.setups)).encode()
        ).hexdigest()

    def changes(self, setup: str) -> list[Change]:
        found = self._changes.get(setup)
        if found is None:
            found = self._changes[setup] = history.setup_changes(
                setup, self.setups[setup], self.shapes, self.rule
            )
        return found

    def records(self, setup: str) -> bytes:
        """The setup's lines of /data/changes.json, kept between builds by its runs' contents
        and the rule (Fragments.cached)."""
        if self.fragments is None:
            return _setup_records(self, setup, self.setups[setup], self.rule).encode()
        piece = self.fragments.cached_bytes(
            _setup_records, setup, self.setups[setup], self.rule, build=self
        )
        return bytes(piece)

    def records_key(self, setup: str) -> str:
        """The key the setup's lines of /data/changes.json are kept under (``records``)."""
        return key_of(_setup_records, setup, self.setups[setup], self.rule)

    def summaries(self, setup: str) -> list[StepSummary]:
        """Each step of the setup in counts, kept between builds (for /changes/ and the feed)."""
        if self.fragments is None:
            text = _setup_summary(self, setup, self.setups[setup], self.rule)
        else:
            text = self.fragments.cached(
                _setup_summary, setup, self.setups[setup], self.rule, build=self
            )
        return [
            StepSummary(
                item["setup"],
                item["run"],
                item["previous_run"],
                item["date"],
                tuple((k, v) for k, v in item["counts"]),
                tuple(tuple(x) for x in item["largest"]),
            )
            for item in json.loads(text)
        ]


def _setup_records(history: SiteHistory, setup: str, runs: list[Run], rule: Rule) -> str:
    """The setup's lines of /data/changes.json: the changes between its ``runs`` under ``rule``
    (worked out once a build by ``history``, SiteHistory.changes)."""
    return ",\n".join(
        json.dumps(change.record(), ensure_ascii=False, separators=(",", ":"))
        for change in history.changes(setup)
    )


def _setup_summary(history: SiteHistory, setup: str, runs: list[Run], rule: Rule) -> str:
    """Each step of the setup in counts, as JSON (see _setup_records for the arguments)."""
    return json.dumps([_summary_data(setup, steps) for steps in _steps(history.changes(setup))])


def _facts(run: Run, fragments: Fragments | None) -> tuple[str, str]:
    if fragments is None or not run.digest:
        return history.read_facts(history.facts_text(run))
    return history.read_facts(fragments.cached_run(history.facts_text, run))


def _steps(changes: list[Change]) -> list[list[Change]]:
    by_run: dict[str, list[Change]] = {}
    for change in changes:
        by_run.setdefault(change.run, []).append(change)
    return list(by_run.values())


_ORDER = {REGRESSION: 0, IMPROVEMENT: 1, CANT_TELL: 2, NO_CHANGE: 3}


def _summary_data(setup: str, step: list[Change]) -> dict[str, object]:
    counts: dict[str, int] = defaultdict(int)
    for change in step:
        counts[change.verdict] += 1
    flagged = sorted(
        (c for c in step if c.verdict in (REGRESSION, IMPROVEMENT)),
        key=lambda c: (_ORDER[c.verdict], -abs((c.ratio or 1) - 1)),
    )[:5]
    return {
        "setup": setup,
        "run": step[0].run,
        "previous_run": step[0].previous_run,
        "date": step[0].date,
        "counts": sorted(counts.items(), key=lambda item: _ORDER[item[0]]),
        "largest": [(figure_words(c), where(c), c.ratio, c.verdict) for c in flagged],
    }


def figure_words(change: Change) -> str:
    return FIGURES[change.figure][1]


def where(change: Change) -> str:
    """Where a figure was measured, in words: '8K × 16 requests', '1.5 req/s (Poisson, ≤25)'."""
    if change.kind == "decode":
        context, concurrency = change.position[:2]
        out = _length_words(change.position)
        return f"{numbers.context(int(context or 0))} × {concurrency}{out}"
    if change.kind == "prefill":
        shown = numbers.context(int(change.position[0] or 0))
        return f"prefill {shown}" + _chunk_words(change.position)
    rate, arrival, burstiness, cap, length = change.position
    return load_words(float(rate or 0), str(arrival), burstiness, cap, length)


def _length_words(position: tuple[object, ...]) -> str:
    """A decode position's output length, when its file sweeps it: ', 128 tokens out'."""
    length = position[2] if len(position) > 2 else None
    return f", {numbers.count_noun(length, 'token')} out" if isinstance(length, int) else ""


def _chunk_words(position: tuple[object, ...]) -> str:
    """A prefill position's prompt length, when its file sweeps it: ', 512-token prompt'."""
    return f", {position[1]:,}-token prompt" if len(position) > 1 else ""


def load_words(
    rate: float, arrival: str, burstiness: object, cap: object, length: object = None
) -> str:
    shape = (
        arrival
        if burstiness is None
        else f"{arrival} {burstiness:g}"
        if isinstance(burstiness, float)
        else f"{arrival} {burstiness}"
    )
    text = f"{rate:g} req/s ({shape}{f', ≤{cap} at once' if cap else ''})"
    return f"{text}, {length} tokens in" if length else text


def ratio_words(ratio: float | None) -> str:
    return "—" if ratio is None else f"{(ratio - 1) * 100:+.1f} %"


def setup_title(runs: list[Run]) -> str:
    """The setup's model, hardware, engine and quantization, then its workload: two setups of
    one model on one machine differ there (history.group_setups)."""
    run = runs[-1]
    parts = [
        run.info.model,
        hardware_name(run, with_memory=False),
        run.engine.name,
        run.engine.quantization,
        setup_workload(run),
    ]
    return " · ".join(part for part in parts if part)


def setup_workload(run: Run) -> str:
    """What a setup's runs measured beyond model and hardware, in words: the loads of their
    open-loop points and the input length, or llama-bench's test parameters."""
    points = run.load_points
    if points:
        loads = sorted({point.load for point in points}, key=repr)
        lengths = sorted({point.input_tokens_per_request for point in points})
        if len(loads) == 1:
            said = load_words(*loads[0])
        else:
            rates = sorted({point.request_rate for point in points})
            said = f"{len(loads)} loads at {rates[0]:g}–{rates[-1]:g} req/s"
        if len(lengths) == 1:
            return f"{said}, {numbers.tokens(lengths[0])} in"
        return f"{said}, {numbers.integer(lengths[0])}–{numbers.tokens(lengths[-1])} in"
    return history.test_parameter_words(run)


def setup_path(setup: str) -> str:
    return f"setups/{setup}/"


CHART_WIDTH, CHART_HEIGHT, MARGIN = 520, 170, 44


@dataclass(frozen=True)
class TimelinePoint:
    x: float
    y: float
    href: str
    label: str  # the run's date and version, and the value (the point's title)


@dataclass(frozen=True)
class Timeline:
    """One figure of a setup over its runs: an inline SVG line, its points linked to their runs,
    a dashed mark where the engine version changed."""

    title: str
    lines: tuple[str, ...]  # each polyline's points
    points: tuple[TimelinePoint, ...]
    marks: tuple[tuple[float, str], ...]  # x and the version from there on
    top: str
    bottom: str
    ticks: tuple[tuple[float, str], ...] = ()  # the x axis's labels: each run's date, or each rate
    width: int = CHART_WIDTH
    height: int = CHART_HEIGHT


@dataclass(frozen=True)
class ChangeRow:
    """One judged figure in a table of changes."""

    run_href: str
    run_id: str
    previous_href: str
    previous_id: str
    date: str
    previous_date: str
    figure: str
    where: str
    before: str
    after: str
    change: str
    verdict: str
    reason: str


def _value(change: Change, value: float | None) -> str:
    if value is None:
        return "—"
    return numbers.milliseconds(value) if change.figure.endswith("_ms") else numbers.rate(value)


def change_row(site: Site, change: Change, previous_date: str | None) -> ChangeRow:
    return ChangeRow(
        site.url(f"runs/{change.run}/"),
        change.run,
        site.url(f"runs/{change.previous_run}/"),
        change.previous_run,
        change.date or "undated",
        previous_date or "undated",
        figure_words(change),
        where(change),
        _value(change, change.before),
        _value(change, change.after),
        ratio_words(change.ratio),
        change.verdict,
        change.reason,
    )


def counts_words(counts: dict[str, int]) -> str:
    """A pair of runs' verdicts counted in words: "2 regressions, 1 improvement, can't tell for
    1, no change in 3"."""
    said = []
    for verdict in (REGRESSION, IMPROVEMENT):
        if counts.get(verdict):
            said.append(numbers.count_noun(counts[verdict], verdict))
    if counts.get(CANT_TELL):
        said.append(f"{CANT_TELL} for {counts[CANT_TELL]}")
    if counts.get(NO_CHANGE):
        said.append(f"{NO_CHANGE} in {counts[NO_CHANGE]}")
    return ", ".join(said)


@dataclass(frozen=True)
class RunHistory:
    """What a run's page shows of its setup: the link, and its changes against the previous run."""

    href: str
    runs: int
    previous_href: str | None
    previous_id: str | None
    counts: str
    flagged: tuple[ChangeRow, ...]
    settings: tuple[str, ...]
    changes_href: str


def run_history(site: Site, run: Run, site_history: SiteHistory) -> RunHistory | None:
    setup = site_history.setup_of.get(run.id)
    if setup is None:
        return None
    runs = site_history.setups[setup]
    place = [r.id for r in runs].index(run.id)
    previous = runs[place - 1] if place else None
    mine = [c for c in site_history.changes(setup) if c.run == run.id]
    counts: dict[str, int] = defaultdict(int)
    for change in mine:
        counts[change.verdict] += 1
    return RunHistory(
        site.url(setup_path(setup)),
        len(runs),
        site.url(f"runs/{previous.id}/") if previous else None,
        previous.id if previous else None,
        counts_words(counts),
        tuple(
            change_row(site, c, previous.info.date if previous else None)
            for c in sorted(
                (c for c in mine if c.verdict != NO_CHANGE),
                key=lambda c: (
                    _ORDER[c.verdict],
                    -abs((c.ratio or 1) - 1),
                    c.figure,
                    repr(c.position),
                ),
            )[:MAX_RUN_ROWS]
        ),
        tuple(history.settings_changes(previous, run)) if previous else (),
        site.url("changes/"),
    )


@dataclass(frozen=True)
class SetupLink:
    label: str
    href: str
    runs: int


def with_setups(page: Page, site: Site, setups: list[str], site_history: SiteHistory) -> Page:
    """A model's or an accelerator's page with links to its setups over time (none: as it was)."""
    if not setups:
        return page
    links = tuple(
        SetupLink(
            f"{setup_title(site_history.setups[s])} ({s})",
            site.url(setup_path(s)),
            len(site_history.setups[s]),
        )
        for s in setups
    )
    return dataclasses.replace(page, context=dataclasses.replace(page.context, setups=links))
