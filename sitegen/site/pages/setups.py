"""The site's setups over time: /setups/<id>/, /changes/, /changes.xml and /data/changes.json
(figures/history holds the rules; sections/setups what they share with other pages).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial

from sitegen.model import Run
from sitegen.site.figures import history, numbers
from sitegen.site.figures.history import (
    CANT_TELL,
    FIGURES,
    IMPROVEMENT,
    NO_CHANGE,
    REGRESSION,
)
from sitegen.site.incremental.joined import Joined
from sitegen.site.page import Page, Site, hardware_name
from sitegen.site.sections.feed import FeedEntry
from sitegen.site.sections.setups import (
    _ORDER,
    CHART_HEIGHT,
    CHART_WIDTH,
    MARGIN,
    ChangeRow,
    SiteHistory,
    StepSummary,
    Timeline,
    TimelinePoint,
    _chunk_words,
    _length_words,
    change_row,
    counts_words,
    load_words,
    ratio_words,
    setup_path,
    setup_title,
)

CHANGES_FORMAT = "sitegen-changes"
CHANGES_VERSION = 1
MAX_LISTED_STEPS = 200  # on /changes/, the latest steps with a verdict other than "no change"
FEED_SIZE = 50
MAX_TIMELINES = 8  # a setup page's charts, the most widely shared figures first
MAX_ROWS = 40  # a setup page's changed figures, regressions first, then by size


def run_link(site: Site, run_id: str) -> str:
    return site.url(f"runs/{run_id}/")


# --- pages ------------------------------------------------------------------------------------


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
class SetupPageContext:
    """/setups/<id>/ (templates/pages/setup.html)."""

    site: Site
    title: str
    heading: str
    summary: str
    identity: tuple[tuple[str, str], ...]
    runs: tuple[SetupRun, ...]
    # Verdicts but "no change", regressions and the largest first, grouped by their pair of runs
    # (each pair written once, in the order of its first row; within it, the same order).
    flagged: tuple[tuple[ChangeRow, tuple[ChangeRow, ...]], ...]
    unchanged: int
    flagged_left: int  # those not shown (changes.json has every one)
    rule: str
    timelines: tuple[Timeline, ...]  # the MAX_TIMELINES most widely shared figures, drawn
    timelines_left: int
    timeline_table: TimelineTable  # every other shared figure, figure × run


@dataclass(frozen=True)
class ChangedStep:
    """A row of /changes/: a run against the previous run of its setup, each run named by its
    date (its id in the link's title), the setup by its title, the verdicts in words."""

    date: str
    run: str
    run_href: str
    previous_date: str
    previous_run: str
    previous_href: str
    setup_title: str
    setup_id: str
    setup_href: str
    verdicts: str
    largest: tuple[str, ...]


@dataclass(frozen=True)
class ChangesPageContext:
    """/changes/ (templates/pages/changes.html): the latest steps that changed something."""

    site: Site
    title: str
    rule: str
    steps: tuple[ChangedStep, ...]
    left: int


def _by_pair(
    rows: Iterable[ChangeRow],
) -> tuple[tuple[ChangeRow, tuple[ChangeRow, ...]], ...]:
    """Rows grouped by their pair of runs, each pair once (its first row stands for it), pairs in
    the order of their first row and rows in theirs."""
    pairs: dict[tuple[str, str], list[ChangeRow]] = {}
    for row in rows:
        pairs.setdefault((row.run_id, row.previous_id), []).append(row)
    return tuple((found[0], tuple(found)) for found in pairs.values())


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
    flagged = _by_pair(
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
        charted = [
            (own_key, point)
            for own_key, point in history.points(run).items()
            if point.figure in ("total_tokens_per_s", "prompt_tokens_per_s") or point.kind == "load"
        ]
        # A run's figure joins the series of its own position, else the nearest one within the
        # tolerance that none of the run's other figures holds: two contexts of one run (1019K
        # and 1024K prefill) are two figures, never two points of one.
        charted.sort(key=lambda item: (item[0] not in series, repr(item[0])))
        held: set[tuple[object, ...]] = set()
        for own_key, point in charted:
            key = own_key
            if own_key not in series:
                free = [k for k in series if k not in held]
                key = history.nearby(own_key, free) or own_key
            held.add(key)
            series[key].append((index, run, point.value))
            titles[key] = _timeline_title(point)
    shared = sorted(
        (key for key, values in series.items() if len(values) > 1),
        key=lambda key: (-len(series[key]), _in_order(key)),
    )
    return [(titles[key], series[key]) for key in shared]


def _in_order(value: object) -> tuple[object, ...]:
    """A figure's key as it sorts for a reader: numbers by value (8K before 16K, 2 requests
    before 16), words alphabetically, each position part by part."""
    if isinstance(value, tuple):
        return (1, tuple(_in_order(part) for part in value))
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (0, value, "")
    return (2, 0, repr(value))


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
        requests = numbers.count_noun(int(point.position[1] or 0), "request")
        return f"{words} at {context} context × {requests}" + _length_words(point.position)
    if point.kind == "prefill":
        context = numbers.context(int(point.position[0] or 0))
        return f"{words} at {context} context" + _chunk_words(point.position)
    rate, arrival, burstiness, cap, _ = point.position
    return f"{words} at {load_words(float(rate or 0), str(arrival), burstiness, cap)}"


# A timeline's axis spans at least this share of its figures' middle value: drawn edge to edge,
# a change of a fraction of a percent (what the rule calls "no change") would look like a cliff.
TIMELINE_LEAST_SPAN = 0.2


def _timeline(
    site: Site, runs: list[Run], title: str, values: list[tuple[int, Run, float]]
) -> Timeline:
    low, high = min(v for _, _, v in values), max(v for _, _, v in values)
    middle = (low + high) / 2
    half = max((high - low) * 0.6, middle * TIMELINE_LEAST_SPAN / 2) or 1.0
    low, high = max(0.0, middle - half), middle + half
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
        (" ".join(f"{p.x:g},{p.y:g}" for p in points),),
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
    shown = tuple(_changed_step(site, site_history, step) for step in steps[:MAX_LISTED_STEPS])
    return ChangesPageContext(
        site,
        "Changes between runs of a setup",
        site_history.rule.name,
        shown,
        max(0, len(steps) - MAX_LISTED_STEPS),
    )


def _changed_step(site: Site, site_history: SiteHistory, step: StepSummary) -> ChangedStep:
    runs = site_history.setups[step.setup]
    dates = {run.id: run.info.date or "undated" for run in runs}
    return ChangedStep(
        step.date or "undated",
        step.run,
        site.url(f"runs/{step.run}/"),
        dates.get(step.previous_run, "undated"),
        step.previous_run,
        site.url(f"runs/{step.previous_run}/"),
        setup_title(runs),
        step.setup,
        site.url(setup_path(step.setup)),
        counts_words(dict(step.counts)),
        tuple(
            f"{verdict}: {words} at {at} ({ratio_words(ratio)})"
            for words, at, ratio, verdict in step.largest
        ),
    )


def changes_json(site_history: SiteHistory) -> bytes:
    """/data/changes.json: one record per run × figure, a record a line, setups in id order."""
    return changes_joined(site_history).join()[0]


def changes_joined(site_history: SiteHistory) -> Joined:
    """``changes_json`` as a file a build splices from its last one (joined.Joined): a piece
    per setup (SiteHistory.records)."""
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
    setups = list(site_history.setups)
    scope = site_history.fragments.scope if site_history.fragments is not None else ""
    return Joined(
        head[:-1].encode() + b',"changes":[\n',
        b",\n",
        b"\n]}\n",
        [site_history.records_key(setup) for setup in setups],
        lambda at: site_history.records(setups[at]),
        scope,
    )


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
