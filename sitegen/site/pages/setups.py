"""The site's setups over time: /setups/<id>/, /changes/, /changes.xml and /data/changes.json,
and what run, model and hardware pages show of them (history holds the rules).

Built per setup and kept between builds: a run's shape (the one figure of grouping that needs
its measurements) is a piece kept by the run's content, and a setup's change records and its
summary are pieces kept by its runs' contents and the rule (fragments.Fragments). A build that
adds a run outside every setup reads no measurements for history; one that adds a run to a
setup works out that setup's changes alone.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property, partial

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
from sitegen.site.incremental.fragments import Fragments
from sitegen.site.page import Page, Site, hardware_name
from sitegen.site.pages.feeds import FeedEntry

CHANGES_FORMAT = "sitegen-changes"
CHANGES_VERSION = 1
MAX_LISTED_STEPS = 200  # on /changes/, the latest steps with a verdict other than "no change"
FEED_SIZE = 50
MAX_TIMELINES = 8  # a setup page's charts, the most widely shared figures first
MAX_ROWS = 40  # a setup page's changed figures, regressions first, then by size
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
    shapes: dict[str, str]
    rule: Rule
    fragments: Fragments | None = None
    _changes: dict[str, list[Change]] = field(default_factory=dict)

    @classmethod
    def of(
        cls, runs: Iterable[Run], threshold: float, fragments: Fragments | None = None
    ) -> SiteHistory:
        """The setups of ``runs`` under the changes rule of ``threshold`` (history.Rule)."""
        rule = Rule(threshold)
        runs = list(runs)
        alike: dict[tuple[object, ...], list[Run]] = defaultdict(list)
        for run in runs:
            alike[history.identity(run)].append(run)
        # Only runs that share their identity with another need their shape (their measurements).
        shapes = {
            run.id: _shape(run, fragments)
            for members in alike.values()
            if len(members) > 1
            for run in members
        }
        return cls(
            history.group_setups(
                [run for members in alike.values() if len(members) > 1 for run in members], shapes
            ),
            shapes,
            rule,
            fragments,
        )

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


def _shape(run: Run, fragments: Fragments | None) -> str:
    if fragments is None or not run.digest:
        return history.shape_text(run)
    return fragments.cached(history.shape_text, run)


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
    return f", {position[2]:,} tokens out" if len(position) > 2 else ""


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
    run = runs[-1]
    parts = [
        run.info.model,
        hardware_name(run, with_memory=False),
        run.engine.name,
        run.engine.quantization,
    ]
    return " · ".join(part for part in parts if part)


def setup_path(setup: str) -> str:
    return f"setups/{setup}/"


def run_link(site: Site, run_id: str) -> str:
    return site.url(f"runs/{run_id}/")


# --- pages ------------------------------------------------------------------------------------

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
class SetupRun:
    """A run of a setup on its page: its date, version, and what changed since the previous."""

    href: str
    run_id: str
    date: str
    version: str
    settings: tuple[str, ...]  # launch settings that differ from the previous run (annotations)
    counts: str  # its verdicts against the previous run, in words


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


@dataclass(frozen=True)
class SetupPageContext:
    """/setups/<id>/ (templates/pages/setup.html)."""

    site: Site
    title: str
    heading: str
    summary: str
    identity: tuple[tuple[str, str], ...]
    runs: tuple[SetupRun, ...]
    flagged: tuple[ChangeRow, ...]  # verdicts but "no change", regressions and the largest first
    unchanged: int
    flagged_left: int  # those not shown (changes.json has every one)
    rule: str
    timelines: tuple[Timeline, ...]  # the MAX_TIMELINES most widely shared figures, drawn
    timelines_left: int
    timeline_table: TimelineTable  # every other shared figure, figure × run


@dataclass(frozen=True)
class ChangesPageContext:
    """/changes/ (templates/pages/changes.html): the latest steps that changed something."""

    site: Site
    title: str
    rule: str
    steps: tuple[
        tuple[StepSummary, str, str, str], ...
    ]  # summary, setup href, run href, previous href
    left: int


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
    return ", ".join(
        f"{counts[v]} {v}" for v in (REGRESSION, IMPROVEMENT, CANT_TELL, NO_CHANGE) if counts.get(v)
    )


def setup_page(site: Site, setup: str, site_history: SiteHistory) -> SetupPageContext:
    runs = site_history.setups[setup]
    changes = site_history.changes(setup)
    by_run: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for change in changes:
        by_run[change.run][change.verdict] += 1
    rows = tuple(
        SetupRun(
            site.url(f"runs/{run.id}/"),
            run.id,
            run.info.date or "undated",
            run.engine.version or "version not given",
            tuple(history.settings_changes(before, run)) if before else (),
            counts_words(by_run[run.id]) if before else "first run of the setup",
        )
        for before, run in zip([None, *runs], runs, strict=False)
    )
    dates = {run.id: run.info.date for run in runs}
    flagged = tuple(
        change_row(site, c, dates[c.previous_run])
        for c in sorted(
            (c for c in changes if c.verdict != NO_CHANGE),
            key=lambda c: (_ORDER[c.verdict], -abs((c.ratio or 1) - 1), c.date or "", c.run),
        )[:MAX_ROWS]
    )
    shared = _shared_series(runs)
    timelines = [_timeline(site, runs, title, values) for title, values in shared[:MAX_TIMELINES]]
    last = runs[-1]
    return SetupPageContext(
        site=site,
        title=f"Setup over time: {setup_title(runs)}",
        heading=setup_title(runs),
        summary=(
            f"{numbers.count_noun(len(runs), 'run')} of one setup, "
            f"{runs[0].info.date or 'undated'} to {last.info.date or 'undated'}, "
            "each compared with the run before it."
        ),
        identity=_identity_fields(last),
        runs=rows,
        flagged=flagged,
        unchanged=sum(1 for c in changes if c.verdict == NO_CHANGE),
        flagged_left=max(0, sum(1 for c in changes if c.verdict != NO_CHANGE) - MAX_ROWS),
        rule=site_history.rule.name,
        timelines=tuple(timelines),
        timelines_left=max(0, len(shared) - MAX_TIMELINES),
        timeline_table=_timeline_table(site, runs, shared[MAX_TIMELINES:]),
    )


def _identity_fields(run: Run) -> tuple[tuple[str, str], ...]:
    pairs = (
        ("Model", run.info.model),
        ("Hardware", hardware_name(run)),
        ("Engine", run.engine.name),
        ("Quantization", run.engine.quantization),
        ("Speculative decoding", run.engine.speculative_decoding),
        ("Benchmark", run.info.benchmark_tool),
        ("Setup named by the publisher", run.info.setup),
    )
    return tuple((label, value) for label, value in pairs if value)


Series = list[tuple[int, Run, float]]  # a figure's values: the run's place, the run, the value


def _shared_series(runs: list[Run]) -> list[tuple[str, Series]]:
    """Every figure two or more runs measured, titled, the most widely shared first: the headline
    of each decode cell and load point (total tok/s), each prefill context (prompt tok/s), and a
    load point's latencies."""
    series: dict[tuple[object, ...], list[tuple[int, Run, float]]] = defaultdict(list)
    titles: dict[tuple[object, ...], str] = {}
    for index, run in enumerate(runs):
        for own_key, point in history.points(run).items():
            key = own_key
            if own_key not in series:
                key = history.nearby(own_key, series.keys()) or own_key
            if (
                point.figure in ("total_tokens_per_s", "prompt_tokens_per_s")
                or point.kind == "load"
            ):
                series[key].append((index, run, point.value))
                titles[key] = _timeline_title(point)
    shared = sorted(
        (key for key, values in series.items() if len(values) > 1),
        key=lambda key: (-len(series[key]), repr(key)),
    )
    return [(titles[key], series[key]) for key in shared]


@dataclass(frozen=True)
class TimelineTable:
    """The shared figures past the drawn charts, as a table of figure × run (each cell the
    figure's value in that run, '—' where it did not measure it): every figure, no chart weight."""

    runs: tuple[tuple[str, str, str], ...]  # each run's href, date and engine version
    rows: tuple[tuple[str, tuple[str, ...]], ...]  # each figure's title and its value in each run


def _timeline_table(site: Site, runs: list[Run], rest: list[tuple[str, Series]]) -> TimelineTable:
    rows = []
    for title, values in rest:
        unit = _unit(title)
        by_place = {place: unit(value) for place, _, value in values}
        rows.append((title, tuple(by_place.get(place, "—") for place in range(len(runs)))))
    heads = tuple(
        (site.url(f"runs/{run.id}/"), run.info.date or "undated", run.engine.version or "?")
        for run in runs
    )
    return TimelineTable(heads, tuple(rows))


def _unit(title: str) -> Callable[[float], str]:
    return numbers.milliseconds if "TTFT" in title or "between" in title else numbers.rate


def _timeline_title(point: history.Point) -> str:
    words = FIGURES[point.figure][1]
    if point.kind == "decode":
        context = numbers.context(int(point.position[0] or 0))
        return f"{words} at {context} context × {point.position[1]} requests" + _length_words(
            point.position
        )
    if point.kind == "prefill":
        context = numbers.context(int(point.position[0] or 0))
        return f"{words} at {context} context" + _chunk_words(point.position)
    rate, arrival, burstiness, cap, _ = point.position
    return f"{words} at {load_words(float(rate or 0), str(arrival), burstiness, cap)}"


def _timeline(
    site: Site, runs: list[Run], title: str, values: list[tuple[int, Run, float]]
) -> Timeline:
    low, high = min(v for _, _, v in values), max(v for _, _, v in values)
    pad = (high - low) * 0.1 or high * 0.05 or 1.0
    low, high = max(0.0, low - pad), high + pad
    span = max(1, len(runs) - 1)
    unit = _unit(title)

    def x(index: int) -> float:
        return round(MARGIN + index * (CHART_WIDTH - 2 * MARGIN) / span, 1)

    def y(value: float) -> float:
        return round(CHART_HEIGHT - 24 - (value - low) / (high - low) * (CHART_HEIGHT - 44), 1)

    points = tuple(
        TimelinePoint(
            x(i),
            y(v),
            site.url(f"runs/{run.id}/"),
            f"{run.info.date or 'undated'} · {run.engine.version or '?'} · {unit(v)}",
        )
        for i, run, v in values
    )
    marks = tuple(
        (round((x(i) + x(i - 1)) / 2, 1), runs[i].engine.version or "?")
        for i in range(1, len(runs))
        if runs[i].engine.version != runs[i - 1].engine.version
    )
    ticks = tuple((x(i), run.info.date or "undated") for i, run, _ in values)
    return Timeline(
        title,
        (" ".join(f"{p.x},{p.y}" for p in points),),
        points,
        marks,
        unit(high),
        unit(low),
        ticks,
    )


def changes_page(site: Site, site_history: SiteHistory) -> ChangesPageContext:
    steps = [
        step
        for setup in site_history.setups
        for step in site_history.summaries(setup)
        if step.count(REGRESSION) or step.count(IMPROVEMENT) or step.count(CANT_TELL)
    ]
    steps.sort(key=lambda s: (s.date or "", s.run), reverse=True)
    shown = tuple(
        (
            step,
            site.url(setup_path(step.setup)),
            site.url(f"runs/{step.run}/"),
            site.url(f"runs/{step.previous_run}/"),
        )
        for step in steps[:MAX_LISTED_STEPS]
    )
    return ChangesPageContext(
        site,
        "Changes between runs of a setup",
        site_history.rule.name,
        shown,
        max(0, len(steps) - MAX_LISTED_STEPS),
    )


def changes_json(site_history: SiteHistory) -> bytes:
    """/data/changes.json: one record per run × figure, a record a line, setups in id order."""
    head = json.dumps(
        {
            "format": CHANGES_FORMAT,
            "version": CHANGES_VERSION,
            "rule": site_history.rule.name,
            "threshold": site_history.rule.threshold,
        },
        ensure_ascii=False,
        separators=(",", ":"),
    )
    pieces = [
        piece for piece in (site_history.records(setup) for setup in site_history.setups) if piece
    ]
    return head[:-1].encode() + b',"changes":[\n' + b",\n".join(pieces) + b"\n]}\n"


@dataclass(frozen=True)
class ChangesFeedContext:
    site: Site
    id: str
    link: str
    self_link: str
    updated: str
    entries: tuple[FeedEntry, ...]  # a step that regressed or improved a figure


def changes_feed(site: Site, site_history: SiteHistory) -> ChangesFeedContext:
    """/changes.xml: the latest steps that regressed or improved a figure (Atom, like feed.xml)."""
    steps = [
        step
        for setup in site_history.setups
        for step in site_history.summaries(setup)
        if step.count(REGRESSION) or step.count(IMPROVEMENT)
    ]
    steps.sort(key=lambda s: (s.date or "", s.run), reverse=True)

    def link(path: str) -> str:
        return site.absolute(path) or site.url(path)

    entries = tuple(
        FeedEntry(
            id=site.absolute(f"runs/{step.run}/#changes") or f"urn:sitegen:change:{step.run}",
            title=(f"{step.run}: {counts_words(dict(step.counts))} against {step.previous_run}"),
            link=link(f"runs/{step.run}/"),
            updated=f"{step.date or '1970-01-01'}T00:00:00Z",
            summary="; ".join(
                f"{verdict} {words} at {at} ({ratio_words(ratio)})"
                for words, at, ratio, verdict in step.largest
            ),
        )
        for step in steps[:FEED_SIZE]
    )
    return ChangesFeedContext(
        site,
        site.absolute("changes/") or "urn:sitegen:changes",
        link("changes/"),
        link("changes.xml"),
        max((e.updated for e in entries), default="1970-01-01T00:00:00Z"),
        entries,
    )


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


def history_pages(
    site: Site, site_history: SiteHistory, setup_keys: dict[str, str]
) -> list[tuple[str, str, Callable[[], Page]]]:
    """Every setup's page, /changes/ and /changes.xml: (path, key, make)."""

    def setup(setup_id: str, path: str) -> Page:
        return Page(path, "pages/setup.html", setup_page(site.at(path), setup_id, site_history))

    made: list[tuple[str, str, Callable[[], Page]]] = [
        (path, key, partial(setup, setup_id, path))
        for setup_id, key in setup_keys.items()
        for path in [f"{setup_path(setup_id)}index.html"]
    ]
    every = site_history.all_key
    made.append(
        (
            "changes/index.html",
            every,
            lambda: Page(
                "changes/index.html",
                "pages/changes.html",
                changes_page(site.at("changes/index.html"), site_history),
            ),
        )
    )
    made.append(
        (
            "changes.xml",
            every,
            lambda: Page(
                "changes.xml", "changes.xml", changes_feed(site.at("changes.xml"), site_history)
            ),
        )
    )
    return made
