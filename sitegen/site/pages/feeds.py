"""Machine-readable views of the whole site: /data/runs.json, /feed.xml and /sitemap.xml."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields

from sitegen.model import Run
from sitegen.site.figures.grouping import model_key
from sitegen.site.figures.headlines import HeadlineBook, Headlines, headlines
from sitegen.site.figures.labels import distinguishing_labels, with_label
from sitegen.site.incremental.fragments import Fragments
from sitegen.site.incremental.joined import Joined
from sitegen.site.json_rows import RunPieces, joined_lines, row
from sitegen.site.page import Site, engine_summary, hardware_name, model_name
from sitegen.site.sections.feed import FeedEntry

FEED_SIZE = 50
RUNS_INDEX_FORMAT = "sitegen-runs"
# 2: fields named once, one run per line (was one object per run); 3: no "csv" link (the run
# CSV is made by the reader's browser from the run's JSON, the "result" link).
RUNS_INDEX_VERSION = 3
RUNS_INDEX_FIELDS = (
    "id",
    "model",
    "base_model",
    "model_group",
    "accelerator",
    "vendor",
    "count",
    "engine",
    "engine_version",
    "quantization",
    "date",
    "label",
    "headlines",
    "page",
    "result",
)
HEADLINE_FIELDS = tuple(field.name for field in dataclass_fields(Headlines))


def runs_index(
    site: Site,
    runs: list[Run],
    book: HeadlineBook | None = None,
    fragments: Fragments | None = None,
    run_labels: Mapping[str, str] | None = None,
) -> bytes:
    """Every run with its facts and headline figures, in raw units, for scripts: the names once
    (``fields``, and ``headline_fields`` for the array in ``headlines``), then one run per line.
    Its links are relative to the file itself (data/runs.json), as any relative URL is. Each
    run's line is a piece kept between builds (json_rows.run_piece) by its content and its
    label, the one thing on it made from other runs."""
    return runs_index_joined(site, runs, book, fragments, run_labels).join()[0]


def runs_index_joined(
    site: Site,
    runs: list[Run],
    book: HeadlineBook | None = None,
    fragments: Fragments | None = None,
    run_labels: Mapping[str, str] | None = None,
) -> Joined:
    """``runs_index`` as a file a build splices from its last one (joined.Joined)."""
    build = _RunsIndexBuild(site.at("data/runs.json"), book or headlines)
    if run_labels is None:  # (the plan's, when the caller has them)
        run_labels = distinguishing_labels(runs)
    ordered = sorted(runs, key=lambda r: r.id)
    labels = [(run_labels.get(run.id),) for run in ordered]
    return joined_lines(
        {
            "format": RUNS_INDEX_FORMAT,
            "version": RUNS_INDEX_VERSION,
            "headline_fields": list(HEADLINE_FIELDS),
        },
        RUNS_INDEX_FIELDS,
        "runs",
        RunPieces(fragments, _runs_index_line, ordered, labels, build=build),
    )


@dataclass(frozen=True)
class _RunsIndexBuild:
    """What every line of data/runs.json shares: the site placed at the file, its figures."""

    site: Site
    figures: Callable[[Run], Headlines]


def _runs_index_line(build: _RunsIndexBuild, run: Run, label: str | None) -> str:
    """``run``'s line of data/runs.json; ``label``: its distinguishing label."""
    figure = build.figures(run)
    site = build.site
    return row(
        [
            run.id,
            run.info.model,
            run.info.base_model,
            model_key(run),
            run.hardware.accelerator,
            run.hardware.vendor,
            run.hardware.count,
            run.engine.name,
            run.engine.version,
            run.engine.quantization,
            run.info.date,
            label,
            [getattr(figure, name) for name in HEADLINE_FIELDS],
            site.url(f"runs/{run.id}/"),
            site.url(f"runs/{run.id}.json"),
        ]
    )


@dataclass(frozen=True)
class FeedContext:
    """The Atom feed (templates/feed.xml): the newest runs, dated by their measurement date."""

    site: Site
    id: str
    link: str
    self_link: str
    updated: str
    entries: tuple[FeedEntry, ...]


def _timestamp(date: str | None) -> str:
    # Atom needs a time; runs have dates. Midnight UTC keeps the feed reproducible.
    return f"{date or '1970-01-01'}T00:00:00Z"


def feed_context(
    site: Site, runs: list[Run], run_labels: Mapping[str, str] | None = None
) -> FeedContext:
    """The feed's links are absolute with site_url; without it they are relative to feed.xml,
    which Atom allows (RFC 4287 §2: relative references resolve against the document's
    address). Atom ids must be absolute, so without site_url they are sitegen URNs.
    ``run_labels``: distinguishing_labels of ``runs``, when the caller has them (the plan)."""
    # (heapq.nlargest: what sorted(..., reverse=True)[:FEED_SIZE] gives, without sorting every run)
    newest = heapq.nlargest(FEED_SIZE, runs, key=lambda r: (r.info.date or "", r.id))
    if run_labels is None:
        run_labels = distinguishing_labels(runs)

    def link(path: str) -> str:
        return site.absolute(path) or site.url(path)

    entries = tuple(
        FeedEntry(
            id=site.absolute(f"runs/{run.id}/") or f"urn:sitegen:run:{run.id}",
            title=with_label(
                f"{model_name(run)} on {hardware_name(run)} · {engine_summary(run)}",
                run_labels.get(run.id),
            ),
            link=link(f"runs/{run.id}/"),
            updated=_timestamp(run.info.date),
            summary=(
                f"{run.info.model} on {run.hardware.count} × {run.hardware.accelerator} with "
                f"{engine_summary(run)}."
            ),
        )
        for run in newest
    )
    return FeedContext(
        site=site,
        id=site.absolute() or "urn:sitegen:site",
        link=link(""),
        self_link=link("feed.xml"),
        updated=max((entry.updated for entry in entries), default=_timestamp(None)),
        entries=entries,
    )


@dataclass(frozen=True)
class SitemapContext:
    """/sitemap.xml: the absolute address of every HTML page (written only with site_url)."""

    urls: tuple[str, ...]
