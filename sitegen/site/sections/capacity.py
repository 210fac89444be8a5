"""The capacity figures as pages show them (docs/capacity.md): verdict words, costs, the
levels' notes, a run page's capacity table, /capacity/'s sections and paging, and a model's
links to its ranked answers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sitegen.config import Price, ServiceLevel
from sitegen.model import Run
from sitegen.site.figures import labels, numbers
from sitegen.site.figures.build_figures import Analysis
from sitegen.site.figures.capacity import (
    CANNOT_TELL,
    COLD,
    COLD_ESTIMATE,
    FROM_TIME_BETWEEN_TOKENS,
    MEETS,
    MISSES,
    UNKNOWN,
    WARM,
    Capacity,
    context_matches,
    cost_per_million_tokens,
)
from sitegen.site.figures.grouping import Group
from sitegen.site.figures.paging import Paging, listed_models, paging
from sitegen.site.page import Site

DERIVED_NOTE = (
    "Derived figures: worked out from each cell's reported statistics by the rules linked here, "
    "not measured goodput."
)


@dataclass(frozen=True)
class LevelNote:
    """A service level as pages describe it."""

    name: str
    title: str
    rule: str
    # Its limits, for the reader's question on /capacity/ (capacity.js judges by them).
    min: float = 0.0
    ttft: float = 0.0
    tbt: float | None = None
    percentile: str | None = None
    ttft_kind: str | None = None  # "cold": a warm TTFT's prefill time must be within the limit too


def level_rule(level: ServiceLevel) -> str:
    cold = (
        (
            " for a fresh prompt (cold: at least the run's measured prefill time where its TTFT "
            "was warm)"
        )
        if level.ttft == COLD
        else ""
    )
    parts = [
        f"at least {level.min_tokens_per_s_per_request:g} tok/s per request",
        f"TTFT at most {numbers.milliseconds(level.max_ttft_ms)}{cold}",
    ]
    if level.max_time_between_tokens_ms is not None:
        parts.append(
            f"at most {numbers.milliseconds_fine(level.max_time_between_tokens_ms)} between tokens"
        )
    rule = ", ".join(parts)
    tail = f", at {level.percentile} (for speed, its slow tail)" if level.percentile else ""
    return rule + tail


def level_notes(levels: tuple[ServiceLevel, ...]) -> tuple[LevelNote, ...]:
    return tuple(
        LevelNote(
            level.name,
            level.title,
            level_rule(level),
            level.min_tokens_per_s_per_request,
            level.max_ttft_ms,
            level.max_time_between_tokens_ms,
            level.percentile,
            level.ttft,
        )
        for level in levels
    )


# What a verdict's labels say of the TTFT it judged (capacity.ttft_judged).
TTFT_WORDS = {
    WARM: "warm TTFT (prompt cached)",
    COLD: "cold TTFT",
    UNKNOWN: "TTFT, prompt cache not stated",
    COLD_ESTIMATE: "cold TTFT estimate: at least the measured prefill time",
}


FROM_GAPS = "speed from time between tokens"


STATISTIC_WORDS = {"mean": "mean latencies", "median": "median latencies"}


def statistic_judged(run: Run, level: ServiceLevel) -> str:
    """Which statistic of each cell a verdict judged, in words: the level's percentile where it
    sets one, else the statistic the run's file reports its latencies as (docs/capacity.md)."""
    if level.percentile:
        return f"{level.percentile} latencies"
    return STATISTIC_WORDS.get(run.info.latency_statistic or "", "latencies as reported")


def verdict_labels(found: Capacity, statistic: str) -> str:
    """Where a verdict's figures came from: the statistic judged (statistic_judged), the speed
    (when not reported) and the TTFT judged."""
    parts = [statistic]
    if found.per_request_source == FROM_TIME_BETWEEN_TOKENS:
        parts.append(FROM_GAPS)
    return " · ".join([*parts, TTFT_WORDS[found.ttft]])


def verdict_parts(found: Capacity) -> tuple[str, str]:
    """A capacity that holds no load, in words, and why: never "—", and never the same for
    "does not meet" and "cannot tell"."""
    if found.state == CANNOT_TELL:
        return "cannot tell", found.reason
    fewest = (
        numbers.count_noun(found.measured[0], "request")
        if found.measured
        else "the fewest requests"
    )
    return "does not meet", f"even at {fewest}: {found.reason}"


def verdict_words(found: Capacity) -> str:
    head, why = verdict_parts(found)
    return f"{head}{',' if found.state != CANNOT_TELL else ':'} {why}"


def priced_cost(price: Price | None, accelerators: int, total: float | None) -> str:
    """Cost per million output tokens with the price it used; "" without a price or a total."""
    cost = cost_per_million_tokens(price.usd_per_hour, accelerators, total) if price else None
    if price is None or cost is None:
        return ""
    return f"{money(cost)} per M tokens at ${price.usd_per_hour:g}/h"


@dataclass(frozen=True)
class CapacityFigure:
    """One capacity, formatted: requests held, total and per-accelerator tok/s, users per
    accelerator, and cost where a price is known. ``state`` is the capacity's; ``verdict`` says
    in words why no load meets the level (verdict_words), ``labels`` what was judged."""

    held: str
    total: str
    per_device: str
    users_per_device: str
    cost: str
    sort: str  # users per accelerator, for sorting ('' sorts last)
    state: str = MEETS
    verdict: str = ""
    labels: str = ""
    head: str = ""  # the verdict's first words ("does not meet", "cannot tell")
    note: str = ""  # the number of the note that gives its whole verdict, said once (run page)
    requests: str = ""  # requests held, the number alone (the run page's caption names it)


def capacity_figure(found: Capacity, price: Price | None, statistic: str) -> CapacityFigure:
    labelled = verdict_labels(found, statistic)
    if found.max_concurrency is None:
        head = verdict_parts(found)[0]
        return CapacityFigure(
            "", "", "", "", "", "", found.state, verdict_words(found), labelled, head
        )
    users = found.users_per_accelerator or 0.0
    return CapacityFigure(
        held=numbers.count_noun(found.max_concurrency, "request"),
        total=numbers.rate(found.total_tokens_per_s),
        per_device=numbers.rate(found.tokens_per_s_per_accelerator),
        users_per_device=numbers.decimal(users) if users % 1 else str(int(users)),
        cost=priced_cost(price, found.accelerators, found.total_tokens_per_s),
        sort=repr(users),
        labels=labelled,
        requests=str(found.max_concurrency),
    )


def money(usd: float) -> str:
    return f"${usd:,.2f}" if usd >= 0.1 else f"${usd:.4f}"


@dataclass(frozen=True)
class CapacityRow:
    """One context of a run: its capacity at each service level."""

    context: str
    figures: tuple[CapacityFigure, ...]


@dataclass(frozen=True)
class RunCapacity:
    """The capacity table under a run page's matrix."""

    levels: tuple[LevelNote, ...]
    rows: tuple[CapacityRow, ...]
    device_noun: str
    accelerators: int  # the run's accelerator count, the divisor of users per accelerator
    price: str  # "" without a configured price
    docs_href: str
    # Per level, what every row's verdict judged where they all say the same (said once, in the
    # column's head; those rows' cells then say nothing of it), else "".
    judged: tuple[str, ...] = ()
    # Each verdict more than one cell gives, numbered and said once under the table: those cells
    # say its first words and the number.
    notes: tuple[tuple[str, str], ...] = ()


def _judged_once(
    rows: tuple[CapacityRow, ...], levels: int
) -> tuple[tuple[CapacityRow, ...], tuple[str, ...]]:
    """Each level's verdict labels taken out of its cells into the column's head when every row
    has the same: the same words, once a column instead of once a cell."""
    judged = []
    for column in range(levels):
        said = {row.figures[column].labels for row in rows}
        judged.append(said.pop() if len(said) == 1 else "")
    rows = tuple(
        replace(
            row,
            figures=tuple(
                replace(figure, labels="") if judged[column] else figure
                for column, figure in enumerate(row.figures)
            ),
        )
        for row in rows
    )
    return rows, tuple(judged)


def _verdicts_noted(
    rows: tuple[CapacityRow, ...],
) -> tuple[tuple[CapacityRow, ...], tuple[tuple[str, str], ...]]:
    """Each verdict that several cells give (the same reason at many contexts) said once, as a
    numbered note, in the order the table first shows them; the cells keep its first words."""
    given = [f.verdict for row in rows for f in row.figures if f.state != MEETS]
    repeated = [v for i, v in enumerate(given) if given.count(v) > 1 and v not in given[:i]]
    numbered = {verdict: str(n) for n, verdict in enumerate(repeated, start=1)}

    def noted(figure: CapacityFigure) -> CapacityFigure:
        number = numbered.get(figure.verdict) if figure.state != MEETS else None
        return replace(figure, verdict=figure.head, note=number) if number else figure

    rows = tuple(replace(row, figures=tuple(noted(f) for f in row.figures)) for row in rows)
    return rows, tuple((number, verdict) for verdict, number in numbered.items())


def run_capacity(site: Site, run: Run, analysis: Analysis) -> RunCapacity | None:
    levels = analysis.settings.service_levels
    grid = analysis.grid(run)
    if not levels or not grid.contexts:
        return None
    price = analysis.price(run)
    rows = tuple(
        CapacityRow(
            numbers.context(context),
            tuple(
                capacity_figure(
                    grid.capacity_at(context, level), price, statistic_judged(run, level)
                )
                for level in levels
            ),
        )
        for context in grid.contexts
    )
    rows, judged = _judged_once(rows, len(levels))
    rows, notes = _verdicts_noted(rows)
    return RunCapacity(
        level_notes(levels),
        rows,
        labels.DEVICE_NOUN[run.hardware.type],
        run.hardware.count,
        price_text(price),
        docs_href=site.url("capacity/#rules"),
        judged=judged,
        notes=notes,
    )


def price_text(price: Price | None) -> str:
    if price is None:
        return ""
    return f"${price.usd_per_hour:g} per accelerator-hour ({price.source}, {price.date})"


# Runs on a page of /capacity/ on average, at most twice as many (paging).
CAPACITY_PAGE_SIZE = 100


@dataclass(frozen=True)
class CapacityCell:
    """A run's capacity at one context and level, in a model's table. ``users`` is the verdict in
    words when no measured load meets the level (verdict_words); a cell of None is a context the
    run did not measure. ``labels`` say what was judged (verdict_labels)."""

    users: str
    rank: str  # "#1" … among the model's setups at this context
    detail: (
        str  # requests held · total tok/s · tok/s per accelerator (on one accelerator, the total)
    )
    cost: str
    run_context: str  # the run's own context where it differs from the column's
    labels: str = ""
    ladder: str = ""  # what capacity.js needs for a reader's users: ladder_data


def ladder_data(found: Capacity) -> str:
    """The measured concurrencies, where the ladder stopped and how ("m": misses, "c": cannot
    tell), as "1,2,4,8|8|m": enough to answer a number of users (capacity.answer_for_users)."""
    stop = {MISSES: "m", CANNOT_TELL: "c"}.get(found.stopped_state or "", "")
    return f"{','.join(map(str, found.measured))}|{found.stopped_at or ''}|{stop}"


@dataclass(frozen=True)
class SectionLink:
    """A model in a /capacity/ page's list of the models on it."""

    anchor: str
    model: str


@dataclass(frozen=True)
class QuestionModel:
    """A model the reader's question on a /capacity/ page can ask about: its points files' slug,
    its contexts (tokens, as written) and its setups by run id (pages/capacity.question_models)."""

    slug: str
    label: str
    contexts: str  # "8192 16384 …", the contexts within the tolerance as one
    setups: str  # JSON: run id → [setup, label, engine, accelerator (the name a price is for)]


def context_clusters(contexts: set[int]) -> list[int]:
    """Contexts that stand for the others: ascending, each absorbing the ones within the
    tolerance of it (8,000 and 8,192 share 8,000's column; the actual context is shown)."""
    leaders: list[int] = []
    for context in sorted(contexts):
        if not leaders or not context_matches(context, leaders[-1]):
            leaders.append(context)
    return leaders


def capacity_cell(
    found: Capacity, rank: str, price: Price | None, run_context: str, statistic: str
) -> CapacityCell:
    figure = capacity_figure(found, price, statistic)
    if found.max_concurrency is None:
        head, why = verdict_parts(found)
        return CapacityCell(head, "", why, "", run_context, figure.labels, ladder_data(found))
    # On one accelerator the requests held are the users and the total is per accelerator: the
    # total alone (the pages' legends say so), not "128 · 1,907.7 · 1,907.7" in every cell.
    detail = (
        figure.total
        if found.accelerators == 1
        else f"{found.max_concurrency} · {figure.total} · {figure.per_device}"
    )
    return CapacityCell(
        figure.users_per_device,
        rank,
        detail,
        figure.cost,
        run_context,
        figure.labels,
        ladder_data(found),
    )


def capacity_path(number: int) -> str:
    return "capacity/index.html" if number == 1 else f"capacity/{number}/index.html"


def capacity_paging(groups: dict[tuple[str, str], Group]) -> Paging:
    """Where /capacity/ breaks into pages (figures/paging.py). Worked out from the models' keys
    and sizes alone, so a page's parts are known before any figure of their runs."""
    return paging(listed_models(groups), CAPACITY_PAGE_SIZE)


def priced(runs: list[Run], analysis: Analysis) -> bool:
    """Whether a price is configured for any run's accelerator (a page then shows costs)."""
    prices = {name for name, _ in analysis.settings.prices}
    return bool(prices) and not prices.isdisjoint(
        {run.hardware.accelerator.lower() for run in runs}
    )


def level_slug(level: ServiceLevel) -> str:
    return level.name


def level_model_path(level: ServiceLevel, group: Group) -> str:
    """Where a model's ranked setups at a level are: capacity/<level>/<model>/."""
    return f"capacity/{level_slug(level)}/{group.slug}/index.html"


@dataclass(frozen=True)
class ModelLevelLinks:
    """A model's ranked answers, one link per shipped level (its model page and /capacity/)."""

    level: str
    title: str
    href: str


def model_level_links(
    site: Site, group: Group, levels: tuple[ServiceLevel, ...]
) -> tuple[ModelLevelLinks, ...]:
    return tuple(
        ModelLevelLinks(
            level.name,
            level.title,
            site.url(level_model_path(level, group).removesuffix("index.html")),
        )
        for level in levels
    )
