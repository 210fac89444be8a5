"""Capacity one question at a time (issue 41): for one model, one context and one service level,
its setups ranked by the users each accelerator serves, each figure labelled.

Static pages answer the shipped levels without JavaScript: ``/capacity/<level>/<model>/``, one
per model and level (their count grows with the models, not with pairs of anything), each one
table of its setups by the contexts the model's runs measured, each context's best marked
(level_table). ``/capacity/`` links to them model by model
(capacity_section, below), and a model page links to its own. A reader's own level,
number of users and price are answered on /capacity/ by templates/static/capacity.js from the
picker's files (/data/points/), by the same rules (docs/capacity.md).

Where a run stands at a level is asked of ``standing``: the one place the rules' verdict (meets,
none of the measured loads meets, or the figures cannot tell) enters these views.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Literal

from markupsafe import Markup

from sitegen.config import Price, ServiceLevel
from sitegen.model import Run
from sitegen.site.figures import numbers
from sitegen.site.figures.build_figures import Analysis
from sitegen.site.figures.capacity import (
    CANNOT_TELL,
    CONTEXT_TOLERANCE,
    MEETS,
    Capacity,
)
from sitegen.site.figures.grouping import Group
from sitegen.site.figures.labels import distinguishing_labels
from sitegen.site.figures.paging import Paging, listed_models
from sitegen.site.page import Page, Site, engine_summary, hardware_name
from sitegen.site.sections.capacity import (
    DERIVED_NOTE,
    LevelNote,
    QuestionModel,
    SectionLink,
    capacity_paging,
    capacity_path,
    context_clusters,
    level_model_path,
    level_notes,
    priced,
    priced_cost,
    statistic_judged,
    verdict_labels,
    verdict_parts,
)
from sitegen.site.sections.listing import Pager, pager

State = Literal["meets", "none_meets", "cannot_tell"]


@dataclass(frozen=True)
class Standing:
    """A run at one context and level: whether some measured load meets it, and its capacity."""

    state: State
    capacity: Capacity
    reason: str  # why not, in words ("" when it meets)


def standing(analysis: Analysis, run: Run, context: int, level: ServiceLevel) -> Standing:
    """The run's standing at its own ``context``, from the rules' verdict (capacity.Capacity's
    state): it meets the level, does not meet it even at the fewest requests measured, or its
    figures cannot tell (the fewest lack a figure the level limits, named)."""
    found = analysis.grid(run).capacity_at(context, level)
    if found.state == MEETS and found.max_concurrency is not None:
        return Standing("meets", found, "")
    if found.state == CANNOT_TELL:
        return Standing("cannot_tell", found, found.reason)
    return Standing("none_meets", found, verdict_parts(found)[1])


@dataclass(frozen=True)
class AnswerRow:
    """One setup in a ranked answer, formatted; ``figures`` empty when no load meets the level."""

    rank: str  # "1", "2" … among the setups that meet it ("" for a lone one, or one that does not)
    href: str
    setup: str  # hardware ×count
    label: str  # what tells the run from its model's others on the same hardware and engine
    engine: str
    run_context: str  # the run's own context where it differs from the asked one
    users: str  # users per accelerator (derived)
    held: str  # simultaneous requests held
    total: str  # total tok/s there
    per_accelerator: str  # tok/s per accelerator (derived)
    cost: str  # USD per million output tokens at capacity (derived), with the price it used
    state: State
    reason: str
    labels: str  # what the verdict judged: the TTFT (warm, cold…) and the speed's source


@dataclass(frozen=True)
class ContextAnswer:
    """A model's setups ranked at one context (the cluster's leading context)."""

    context: str
    anchor: str
    rows: tuple[AnswerRow, ...]
    meeting: int  # how many setups meet the level
    labels: str = ""  # what every row's verdict judged, when they all say the same (rows say "")


@dataclass(frozen=True)
class LevelLink:
    name: str
    title: str
    href: str
    current: bool


@dataclass(frozen=True)
class LevelCell:
    """A setup at one context of a level page: the users per accelerator it serves there and
    what they hold, or its verdict in words (``verdict``, shortened when the page says its reason
    once); ``best`` marks the setup ranked first at that context (two or more meeting)."""

    state: State
    users: str
    held: str  # "16 · 3,326.9 · 1,663.5": requests held · total tok/s · tok/s per accelerator
    cost: str
    best: bool
    verdict: str
    run_context: str  # the run's own context where it differs from the column's
    labels: str  # what the verdict judged, where the page does not say it once
    note: str = ""  # the number of its reason in the notes beneath the table ("" when said)


@dataclass(frozen=True)
class LevelRow:
    """A setup of a level page: its run's link, name and engine once, a cell a context (None:
    not measured there)."""

    href: str
    setup: str
    label: str
    engine: str
    cells: tuple[LevelCell | None, ...]


@dataclass(frozen=True)
class LevelTable:
    """A model's setups at one shipped level, a row a setup and a column a context (the
    sections' anchors ``c-<tokens>`` on the column heads), and what its cells share said once."""

    contexts: tuple[tuple[str, str], ...]  # (label, anchor)
    rows: tuple[LevelRow, ...]
    labels: str  # what every verdict judged, when they all say the same ("" otherwise)
    reasons: tuple[tuple[str, str], ...]  # (verdict, reason) every such cell shares, said once
    unmeasured: bool  # some setup was not measured at some context (its cell: —)
    notes: tuple[tuple[str, str], ...] = ()  # (number, verdict in full) of the other verdicts


@dataclass(frozen=True)
class LevelModelContext:
    """/capacity/<level>/<model>/ (templates/pages/capacity_level.html)."""

    site: Site
    title: str
    model: str
    model_href: str
    level: LevelNote
    levels: tuple[LevelLink, ...]
    table: LevelTable
    priced: bool
    derived_note: str
    rules_href: str
    capacity_href: str


def _answer_row(
    run: Run,
    found: Standing,
    price: Price | None,
    rank: str,
    own: int,
    asked: int,
    site: Site,
    label: str,
    statistic: str,
) -> AnswerRow:
    held = found.capacity
    labelled = verdict_labels(held, statistic)
    base = (
        site.url(f"runs/{run.id}/"),
        hardware_name(run),
        label,
        engine_summary(run),
        numbers.context(own) if own != asked else "",
    )
    if held.max_concurrency is None:
        return AnswerRow(rank, *base, "", "", "", "", "", found.state, found.reason, labelled)
    users = held.users_per_accelerator or 0.0
    return AnswerRow(
        rank,
        *base,
        numbers.decimal(users) if users % 1 else str(int(users)),
        str(held.max_concurrency),
        numbers.rate(held.total_tokens_per_s),
        numbers.rate(held.tokens_per_s_per_accelerator),
        priced_cost(price, held.accelerators, held.total_tokens_per_s),
        found.state,
        "",
        labelled,
    )


def _said_once(answer: ContextAnswer) -> ContextAnswer:
    """The answer with what its verdicts judged said once, above its rows, when every row says
    the same (warm TTFT at most levels): the same words, not one copy a row."""
    shared = {row.labels for row in answer.rows}
    if len(shared) != 1 or not answer.rows[0].labels:
        return answer
    rows = tuple(replace(row, labels="") for row in answer.rows)
    return replace(answer, rows=rows, labels=answer.rows[0].labels)


def ranked_answers(
    site: Site, group: Group, level: ServiceLevel, analysis: Analysis
) -> tuple[ContextAnswer, ...]:
    """Each context of the model (contexts within the tolerance as one), its setups ranked by
    users per accelerator, then tok/s per accelerator, then run id; those meeting nothing after,
    the ones whose figures cannot tell last."""
    runs = sorted(group.runs, key=lambda r: r.id)
    names = distinguishing_labels(group.runs)
    for run in runs:
        # Every level at every context at once, while the run's cells are read: its pages at the
        # other levels (and /capacity/) then find them worked out, and decode it no more.
        grid = analysis.grid(run)
        for each in analysis.settings.service_levels:
            for context in grid.contexts:
                grid.capacity_at(context, each)
    answers = []
    for leader in context_clusters({c for run in runs for c in analysis.grid(run).contexts}):
        entries = []
        for run in runs:
            own = analysis.grid(run).context_for(leader)
            if own is not None:
                entries.append((run, own, standing(analysis, run, own, level)))
        order = {"meets": 0, "none_meets": 1, "cannot_tell": 2}
        entries.sort(
            key=lambda e: (
                order[e[2].state],
                -(e[2].capacity.users_per_accelerator or 0.0),
                -(e[2].capacity.tokens_per_s_per_accelerator or 0.0),
                e[0].id,
            )
        )
        meeting = sum(e[2].state == "meets" for e in entries)
        rows = tuple(
            _answer_row(
                run,
                found,
                analysis.price(run),
                str(i + 1) if found.state == "meets" and meeting > 1 else "",
                own,
                leader,
                site,
                names.get(run.id, ""),
                statistic_judged(run, level),
            )
            for i, (run, own, found) in enumerate(entries)
        )
        answers.append(
            _said_once(ContextAnswer(numbers.context(leader), f"c-{leader}", rows, meeting))
        )
    return tuple(answers)


VERDICTS = {"none_meets": "Does not meet the level", "cannot_tell": "Cannot tell"}
SHORT_VERDICTS = {"none_meets": "Does not meet", "cannot_tell": "Cannot tell"}


def _level_cell(row: AnswerRow, labels: str, best: bool) -> LevelCell:
    held = f"{row.held} · {row.total} · {row.per_accelerator}" if row.state == "meets" else ""
    verdict = f"{VERDICTS[row.state]}: {row.reason}" if row.state != "meets" else ""
    return LevelCell(
        row.state, row.users, held, row.cost, best, verdict, row.run_context, row.labels or labels
    )


def _row_order(row: LevelRow) -> tuple[object, ...]:
    """Most users per accelerator at the first context, then at the next and so on (a setup that
    does not meet the level, or was not measured there, counting none); then the setup."""

    def users(cell: LevelCell | None) -> float:
        met = cell is not None and cell.state == "meets"
        return -float(cell.users.replace(",", "")) if cell is not None and met else 0.0

    return (tuple(users(cell) for cell in row.cells), row.setup, row.label, row.engine, row.href)


def _reasons_said_once(
    rows: list[LevelRow],
) -> tuple[list[LevelRow], tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """Each verdict (does not meet, cannot tell) in short in its cells, its reason said beneath
    the table: once when every such cell gives the same reason, else as a numbered note a
    reason (the cell: the verdict and its note's number), so a long reason is not repeated in
    every cell of a column a level rules out."""
    said: list[tuple[str, str]] = []
    numbered: dict[str, str] = {}  # a verdict in full -> its note's number
    for state, verdict in VERDICTS.items():
        reasons = sorted(
            {c.verdict for r in rows for c in r.cells if c is not None and c.state == state}
        )
        if len(reasons) == 1:
            said.append((verdict, reasons[0].removeprefix(verdict + ": ")))
        else:
            numbered.update((reason, str(len(numbered) + 1)) for reason in reasons)

    def short(cell: LevelCell | None) -> LevelCell | None:
        if cell is None or cell.state == "meets":
            return cell
        note = numbered.get(cell.verdict, "")
        return replace(cell, verdict=SHORT_VERDICTS[cell.state], note=note)

    notes = tuple((number, verdict) for verdict, number in numbered.items())
    return [replace(r, cells=tuple(short(c) for c in r.cells)) for r in rows], tuple(said), notes


def level_table(answers: tuple[ContextAnswer, ...]) -> LevelTable:
    """The ranked answers of a level (a list per context) as one table: a row a setup, a cell a
    context, the first ranked at each context marked best; what the cells share said once."""
    setups: dict[str, AnswerRow] = {}
    cells: dict[str, list[LevelCell | None]] = {}
    for column, answer in enumerate(answers):
        for row in answer.rows:
            setups.setdefault(row.href, row)
            found = cells.setdefault(row.href, [None] * len(answers))
            found[column] = _level_cell(row, answer.labels, row.rank == "1")
    rows = sorted(
        (
            LevelRow(href, row.setup, row.label, row.engine, tuple(cells[href]))
            for href, row in setups.items()
        ),
        key=_row_order,
    )
    judged = {c.labels for r in rows for c in r.cells if c is not None}
    labels = judged.pop() if len(judged) == 1 else ""
    if labels:
        rows = [replace(r, cells=tuple(c and replace(c, labels="") for c in r.cells)) for r in rows]
    rows, reasons, notes = _reasons_said_once(rows)
    return LevelTable(
        tuple((answer.context, answer.anchor) for answer in answers),
        tuple(rows),
        labels,
        reasons,
        unmeasured=any(cell is None for row in rows for cell in row.cells),
        notes=notes,
    )


def level_model_page(
    site: Site, group: Group, level: ServiceLevel, analysis: Analysis, costs: bool
) -> Page:
    """A model's setups ranked at one shipped level, a list per context."""
    path = level_model_path(level, group)
    site = site.at(path)
    levels = analysis.settings.service_levels
    note = next(n for n in level_notes(levels) if n.name == level.name)
    links = tuple(
        LevelLink(
            other.name,
            other.title,
            site.url(level_model_path(other, group).removesuffix("index.html")),
            other.name == level.name,
        )
        for other in levels
    )
    context = LevelModelContext(
        site=site,
        title=f"{group.label}: capacity, {level.title}",
        model=group.label,
        model_href=site.url(group.path),
        level=note,
        levels=links,
        table=level_table(ranked_answers(site, group, level, analysis)),
        priced=costs,
        derived_note=DERIVED_NOTE,
        rules_href=site.url("capacity/") + "#rules",
        capacity_href=site.url("capacity/"),
    )
    return Page(path, "pages/capacity_level.html", context)


@dataclass(frozen=True)
class LevelSummary:
    """A model's best setup at one context and level, for the overview on /capacity/."""

    level: str
    href: str  # the ranked answer: capacity/<level>/<model>/#c-<context>
    best_users: str  # users per accelerator of the best setup ("" when none meets the level)
    best_setup: str
    meeting: int
    cannot_tell: int  # setups whose figures cannot tell whether they meet it
    setups: int


@dataclass(frozen=True)
class ContextSummary:
    context: str
    levels: tuple[LevelSummary, ...]


@dataclass(frozen=True)
class ModelOverview:
    """A model's part of /capacity/ (the capacity_overview macro): per context, its best setup
    at each shipped level, each linking to the whole ranked answer."""

    anchor: str
    model: str
    href: str
    continued: bool
    contexts: tuple[ContextSummary, ...]


def model_overview(site: Site, group: Group, analysis: Analysis, continued: bool) -> ModelOverview:
    levels = analysis.settings.service_levels
    by_level = [(level, ranked_answers(site, group, level, analysis)) for level in levels]
    contexts = []
    for place, answer in enumerate(by_level[0][1] if by_level else ()):
        summaries = []
        for level, answers in by_level:
            at = answers[place]
            best = at.rows[0] if at.meeting else None
            href = (
                site.url(level_model_path(level, group).removesuffix("index.html"))
                + f"#{at.anchor}"
            )
            unknown = sum(row.state == "cannot_tell" for row in at.rows)
            summaries.append(
                LevelSummary(
                    level.name,
                    href,
                    best.users if best else "",
                    f"{best.setup}{' ' + best.label if best.label else ''} · {best.engine}"
                    if best
                    else "",
                    at.meeting,
                    unknown,
                    len(at.rows),
                )
            )
        contexts.append(ContextSummary(answer.context, tuple(summaries)))
    return ModelOverview(
        f"m-{group.slug}", group.label, site.url(group.path), continued, tuple(contexts)
    )


def question_models(
    site: Site, groups: list[Group], analysis: Analysis
) -> tuple[QuestionModel, ...]:
    """The models of a /capacity/ page for the reader's own question: what capacity.js needs
    beside the points files, which name runs by id only. Bounded by the page's runs."""
    found = []
    for group in groups:
        names = distinguishing_labels(group.runs)
        # From the runs' kept outlines: a page built again for one added run decodes no other.
        contexts = context_clusters(
            {c for run in group.runs for c in analysis.outline(run).contexts}
        )
        setups = {
            run.id: [
                hardware_name(run),
                names.get(run.id, ""),
                engine_summary(run),
                run.hardware.accelerator,
            ]
            for run in sorted(group.runs, key=lambda r: r.id)
        }
        found.append(
            QuestionModel(
                group.slug,
                group.label,
                " ".join(str(c) for c in contexts),
                json.dumps(setups, ensure_ascii=False, separators=(",", ":")),
            )
        )
    return tuple(found)


__all__ = ["Standing", "level_model_page", "standing"]


# --- /capacity/: each model's contexts, linking to their answers -------------------------------


@dataclass(frozen=True)
class CapacityPageContext:
    """A page of /capacity/ (templates/pages/capacity.html): per model, its best setup at each
    context and level, linking to the ranked answers; about CAPACITY_PAGE_SIZE runs a page, in
    model order. ``sections`` are the models' parts as capacity_section writes them, each a kept
    piece; ``question`` the page's models for the reader's own question (capacity.js)."""

    site: Site
    title: str
    levels: tuple[LevelNote, ...]
    toc: tuple[SectionLink, ...]
    sections: Markup
    priced: bool
    derived_note: str
    tolerance: str
    pager: Pager
    rules_href: str
    question: tuple[QuestionModel, ...] = ()


def capacity_section(
    site: Site, group: Group, first: int, last: int, costs: bool, analysis: Analysis
) -> str:
    """``group``'s part of a /capacity/ page (model_overview): per context, its
    best setup at each level and a link to the ranked answer. Kept between builds, made from the
    model's group, whether the part is "continued" (after the first) and the page; the service
    levels are settings, in the cache's scope. ``last`` and ``costs`` are not shown here (the
    ranked answers show the costs)."""
    return analysis.fragments.cached(_capacity_overview, site, group, first > 0, build=analysis)


def _capacity_overview(analysis: Analysis, site: Site, group: Group, continued: bool) -> str:
    overview = model_overview(site, group, analysis, continued)
    return analysis.fragments.render("capacity_overview", overview)


def capacity_page(
    site: Site,
    runs: list[Run],
    groups: dict[tuple[str, str], Group],
    analysis: Analysis,
    number: int = 1,
    paged: Paging | None = None,
) -> Page:
    """Page ``number`` of /capacity/ (``paged``: capacity_paging, worked out once for all pages),
    in model order; a model whose setups span two pages is on both, its ranks over all of them."""
    site = site.at(capacity_path(number))
    levels = analysis.settings.service_levels
    models = listed_models(groups)
    paged = paged or capacity_paging(groups)
    count = paged.count
    parts = paged.slices(models, number)
    costs = priced(runs, analysis)
    sections = Markup(
        "".join(
            capacity_section(site, group, first, last, costs, analysis)
            for group, first, last in parts
        )
    )
    title = "Capacity at a service level" + (f": page {number} of {count}" if number > 1 else "")
    context = CapacityPageContext(
        site,
        title,
        level_notes(levels),
        tuple(SectionLink(f"m-{group.slug}", group.label) for group, _, _ in parts),
        sections,
        costs,
        DERIVED_NOTE,
        f"±{CONTEXT_TOLERANCE:.0%}",
        pager(site, number, paged, capacity_path),
        site.url("capacity/") + "#rules",
        question_models(site, [group for group, _, _ in parts], analysis),
    )
    return Page(capacity_path(number), "pages/capacity.html", context)
