"""``sitegen build``: read the collected runs, plan every page, render, write atomically.

Reads only ``.sitegen/collected.json``, the templates and the config: offline and
deterministic, the same input gives byte-identical output.

Builds are incremental, all of it through one object (incremental.previous.Previous): the last
build's manifest records each page's key (see plan) and the files it shows. A page whose key is
unchanged is not built again and its files stay where they are; only changed files are staged
and moved in (output.staging.StagedOutput), and the result is byte-identical to a cold build.
When nothing the output depends on changed at all (the collected file's bytes, the settings,
sitegen's code and templates) and every file of the last build is still in place, the build
stops there, without reading a run (measured: docs/performance-log.md).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment

from sitegen import __version__, files, progress
from sitegen.config import Config
from sitegen.errors import Problem, SitegenError
from sitegen.files import MAX_STATE_BYTES, read_bounded
from sitegen.gc_and_exit import left_to_the_end, long_lived_work
from sitegen.model import Run
from sitegen.resources import resource_dir
from sitegen.site.draw.chart_render import (
    DARK_COLOURS_JSON,
    ChartBatch,
    ChartRenderer,
    ChartTemplates,
)
from sitegen.site.draw.chart_specs import KINDS, ChartSpec, template_path
from sitegen.site.figures.build_figures import Analysis, Settings
from sitegen.site.figures.grouping import site_groups, use_accelerator_aliases
from sitegen.site.incremental.figure_cache import StoredFigures
from sitegen.site.incremental.folder_records import current_identity
from sitegen.site.incremental.fragments import Fragments, key_of
from sitegen.site.incremental.manifest import Entries, Manifest
from sitegen.site.incremental.previous import Previous
from sitegen.site.output.folder_guard import check_output_folder
from sitegen.site.output.forked import Forked, can_fork
from sitegen.site.output.run_json_writer import RunJsonWriter, run_json_path
from sitegen.site.output.staging import StagedOutput
from sitegen.site.page import Site
from sitegen.site.pages import feeds
from sitegen.site.pages import run_json as exports
from sitegen.site.pages.compare import setups_joined
from sitegen.site.pages.index import SEARCH_INDEX, search_index_joined
from sitegen.site.pages.presets import capacity_joined, model_point_files, point_contexts
from sitegen.site.pages.setups import changes_joined
from sitegen.site.plan import PlanMemory, PlannedPage, plan
from sitegen.site.render import environment, render
from sitegen.store import (
    collected_path,
    read_cache,
    read_collected,
    write_cache,
    written_by_collect,
)


@dataclass(frozen=True)
class BuildSummary:
    pages: int
    pages_built: int
    charts: int
    charts_rendered: int
    files: int
    notes: tuple[
        str, ...
    ] = ()  # said once after the build, e.g. what a missing site_url leaves out


# How often an incremental build looks for drawn charts no longer in use (_prune_now_and_then).
PRUNE_EVERY = 10
PRUNE_GRACE_S = 86_400.0
WITHOUT_SITE_URL = (
    "no site_url in sitegen.yaml (or --site-url): links work anywhere, but sitemap.xml and the "
    "canonical and og: tags are left out and the feed's links are relative to feed.xml"
)


def templates_dir(config: Config) -> Path:
    """The site's own templates/ when it has one, else the ones sitegen ships."""
    own = config.root / "templates"
    return own if (own / "base.html").is_file() else resource_dir("templates")


def _fingerprint(*folders: Path) -> str:
    """Everything besides the data that shapes the output: sitegen's code, templates, schemas."""
    digest = hashlib.sha256(__version__.encode())
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(path.as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def chart_files(charts: list[ChartSpec]) -> list[str]:
    """The files a page's charts occupy: the SVG (both colour schemes) and the values for
    the interactive upgrade."""
    paths = []
    for chart in charts:
        paths += [chart.path(), chart.spec_path]
    return paths


def write_charts(
    output: StagedOutput, charts: dict[str, ChartSpec], svgs: dict[str, bytes]
) -> None:
    """Write every chart not already in place, with its values for the interactive upgrade."""
    for path, chart in sorted(charts.items()):
        if path in output.written:  # linked with a page that did not change
            continue
        output.write(path, svgs[path])
        output.write(chart.spec_path, chart.data_json())


class CollectedDigest:
    """The sha256 of the collected file's bytes, kept with the file's identity (a cache file of
    its own, so that even a build that stops early can record it once the file has settled):
    an unchanged build of a large site then neither reads nor hashes the collected file."""

    def __init__(self, path: Path, collected: Path) -> None:
        self.path = path
        self.collected = collected
        self.now = files.file_system_now(path.parent)  # before the collected file is looked at
        try:
            self.found: os.stat_result | None = os.lstat(collected)
        except OSError:
            self.found = None

    def known(self) -> str | None:
        """The recorded digest, when the collected file is still the file it was recorded for."""
        if self.found is None or not stat.S_ISREG(self.found.st_mode):
            return None
        try:
            document = json.loads(read_cache(self.path) or b"null")
        except ValueError:
            return None
        if (
            isinstance(document, list)
            and len(document) == 2
            and document[0] == list(files.identity(self.found))
            and isinstance(document[1], str)
        ):
            return document[1]
        return None

    def remember(self, digest: str) -> None:
        """Record ``digest`` for the file as it was found before it was read, when it is settled
        and was not changed while it was read; otherwise forget what was recorded."""
        after = current_identity(str(self.collected))
        keep = (
            digest
            and self.found is not None
            and files.settled(self.found, self.now)
            and after == files.identity(self.found)
        )
        with contextlib.suppress(
            OSError
        ):  # without it the next build reads the file: slower, never wrong
            if keep and self.found is not None:
                write_cache(
                    self.path, json.dumps([list(files.identity(self.found)), digest]).encode()
                )
            else:
                self.path.unlink(missing_ok=True)


@dataclass(frozen=True)
class BuildSetup:
    """What a build is made with besides the runs: the site, the settings, the templates, the
    fingerprint of sitegen's code, templates and schemas, and the notes said after it."""

    site: Site
    settings: Settings
    templates: Path
    fingerprint: str
    notes: tuple[str, ...]

    @classmethod
    def of(cls, config: Config) -> BuildSetup:
        settings = Settings.of(config)
        use_accelerator_aliases(settings.accelerator_aliases)
        templates = templates_dir(config)
        fingerprint = _fingerprint(
            Path(__file__).resolve().parent.parent, templates, resource_dir("schema")
        )
        site = Site(config.title, config.description, config.site_url)
        return cls(
            site, settings, templates, fingerprint, () if config.site_url else (WITHOUT_SITE_URL,)
        )


class Collected:
    """The collected file's bytes, their digest and the digest of all a build reads
    (``inputs``); ``runs`` reads the runs from those very bytes, once, and lets go of them."""

    def __init__(self, data: bytes | None, digest: str, inputs: str) -> None:
        self.data = data
        self.digest = digest
        self.inputs = inputs

    def runs(self, state_dir: Path) -> list[Run]:
        reading = progress.step("reading collected runs")
        runs = read_collected(
            state_dir, data=self.data, as_written=written_by_collect(state_dir, self.digest)
        )
        self.data = None
        reading.done = len(runs)
        return runs


def build(config: Config, force_output: bool = False) -> BuildSummary:
    """Build the site into ``config.output_dir``; ``force_output`` lets it replace a folder of
    files sitegen did not make (never one of the project's own folders)."""
    # Without the cycle collector while it runs (gc_and_exit.long_lived_work).
    with long_lived_work():
        return _build(config, force_output)


def _build(config: Config, force_output: bool) -> BuildSummary:
    """Collected runs → plan → render or keep → write; the last build (Previous) says what
    can be kept, and the build stops at once when nothing it reads changed."""
    check_output_folder(config, replace=force_output)
    setup = BuildSetup.of(config)
    manifest = Manifest(config.state_dir / "build" / "manifest.json", setup.fingerprint)
    previous = Previous(manifest, config.output_dir)
    collected = _changed_collected(config, setup, previous)
    if collected is None:
        return _unchanged(previous, setup.notes)
    chart_templates = ChartTemplates(config.state_dir / "cache")
    renderer = ChartRenderer(config.state_dir / "cache" / "charts", templates=chart_templates)
    # Worker processes draw the charts while this one writes everything else. One starts
    # vl-convert now, on another core, so that the first new chart does not wait for it.
    with renderer.batch() as batch:
        batch.warm_up()
        runs = collected.runs(config.state_dir)
        env, analysis = _analysis(config, setup)
        # A run page whose model's and accelerator's runs are as they were keeps the key it had.
        memory = PlanMemory(previous.groups, previous.key)
        planned = _plan(setup.site, runs, analysis, memory)
        output = previous.stage(config.state_dir / "build" / "spare")
        writer = SiteWriter(
            previous, output, setup, runs, analysis, memory, env, batch, collected, config.state_dir
        )
        built = _write_and_commit(writer, planned, renderer, chart_templates)
        chart_count = _chart_count(output)
        summary = (len(planned), chart_count, len(output.written))
        previous.save(collected.inputs, summary, config.state_dir / "cache", memory.groups)
        analysis.keep_figures(runs)
        analysis.fragments.save()
        if not output.in_place:  # every page was made, so every chart of the site was asked for
            renderer.prune(batch.used)
        _prune_now_and_then(
            renderer, config.state_dir / "cache" / "chart-prune.json", batch, output
        )
        left_to_the_end(locals())  # all it holds, never freed when the process ends with the build
        return BuildSummary(
            len(planned), built, chart_count, renderer.rendered, len(output.written), setup.notes
        )


def _changed_collected(config: Config, setup: BuildSetup, previous: Previous) -> Collected | None:
    """The collected file, unless the site in place is the one the last build made from these
    very inputs (None: the build stops there). Its digest is read off the record of an earlier
    build when it is the very file that build read, so that such a build neither reads nor
    hashes it (CollectedDigest)."""
    digests = CollectedDigest(
        config.state_dir / "cache" / "collected-digest.json", collected_path(config.state_dir)
    )
    known = digests.known()
    if known is not None and previous.unchanged_site(_inputs(known, setup.site, setup.settings)):
        return None
    data = _read_collected_bytes(config)
    digest = hashlib.sha256(data).hexdigest() if data is not None else ""
    digests.remember(digest)
    inputs = _inputs(digest, setup.site, setup.settings)
    if known is None and previous.unchanged_site(inputs):
        return None
    return Collected(data, digest, inputs)


def _analysis(config: Config, setup: BuildSetup) -> tuple[Environment, Analysis]:
    """The templates' environment, and the figures of the runs: those whose content an earlier
    build saw are read back (StoredFigures), and the pieces of listing pages are kept between
    builds (Fragments), rendered by the same templates as the pages."""
    stored = StoredFigures(
        config.state_dir / "cache" / "figures.json",
        hashlib.sha256(repr((setup.fingerprint, setup.settings)).encode()).hexdigest(),
        setup.settings.service_levels,
    )
    env = environment(setup.templates, config.state_dir / "cache" / "templates")
    fragments = Fragments(
        config.state_dir / "cache" / "fragments.json",
        hashlib.sha256(repr((setup.fingerprint, setup.settings, setup.site)).encode()).hexdigest(),
        env,
    )
    return env, Analysis(setup.settings, stored=stored, fragments=fragments)


def _plan(site: Site, runs: list[Run], analysis: Analysis, memory: PlanMemory) -> list[PlannedPage]:
    planning = progress.step("planning pages")
    planned = plan(site, runs, analysis, memory)
    planning.done = len(planned)
    return planned


def _write_and_commit(
    writer: SiteWriter,
    planned: list[PlannedPage],
    renderer: ChartRenderer,
    chart_templates: ChartTemplates,
) -> int:
    """Write the site and put it in place; how many pages were made. Whatever fails leaves the
    previous site in place."""
    output = writer.output
    try:
        built = writer.site(planned, renderer, chart_templates)
        progress.step("saving the site")
        writer.previous.forget()
        output.commit()
    except SitegenError:
        output.discard()
        raise
    except Exception as exc:
        output.discard()
        if isinstance(exc, OSError):
            raise SitegenError(
                Problem(str(output.output_dir), None, "", f"build failed: {exc}")
            ) from None
        raise
    return built


@dataclass
class SiteWriter:
    """Writes one build's site into ``output``: each page and data file rendered, or kept as
    the last build left it (``previous``)."""

    previous: Previous
    output: StagedOutput
    setup: BuildSetup
    runs: list[Run]
    analysis: Analysis
    memory: PlanMemory
    env: Environment
    batch: ChartBatch
    collected: Collected  # what the runs were read from (a run JSON worker reads it again)
    state_dir: Path
    by_id: dict[str, Run] = field(init=False)

    def __post_init__(self) -> None:
        self.by_id = {run.id: run for run in self.runs}

    def site(
        self, planned: list[PlannedPage], renderer: ChartRenderer, chart_templates: ChartTemplates
    ) -> int:
        """Every file of the site; how many pages were made."""
        exported = {run_json_path(run.id): run.digest for run in self.runs}
        # The exports of unchanged runs at once, when the spare has them (keep_unchanged).
        self.previous.keep_unchanged(exported)
        json_writer = self.run_json_writer()
        forked: ForkedShare | None = None
        try:
            progress.step("writing pages", len(planned))
            # Drawn by worker processes while pages are written: a stage beside the others.
            drawing = progress.beside("drawing charts", self.batch.progress)
            built, charts, forked = self.pages(planned)
            progress.step("writing listings and data files")
            self.data_files()
            self.static_files()
            if forked is not None:
                built += self.take_back(forked, charts)
            # The JSON of a run whose page was kept at once, though its own JSON was not (its
            # entry missing from the last build's record), or that the plan gave no page.
            for export in sorted(exported.keys() - self.previous.entries.keys()):
                self.run_json(self.by_id[export[len("runs/") : -len(".json")]])
            if json_writer is not None:
                json_writer.finish(self.output)
        finally:
            if json_writer is not None:
                json_writer.close()
            if forked is not None:
                forked.forked.close()
        progress.step("writing charts")
        write_charts(self.output, charts, self.batch.result())
        drawing.end(self.batch.last_drawn or drawing.started)  # when the last chart was drawn
        self.chart_assets(renderer, chart_templates)
        return built

    def pages(
        self, planned: list[PlannedPage]
    ) -> tuple[int, dict[str, ChartSpec], ForkedShare | None]:
        """Render the pages whose key changed and keep the others; hand their charts to the
        batch. How many pages were made, their charts by path, and the run pages a forked copy
        of this process is making (``take_back`` takes them)."""
        charts: dict[str, ChartSpec] = {}
        kept = self.previous.keep_unchanged({item.path: item.key for item in planned})
        progress.advance(len(kept))
        # Only the others are looked at one by one. Pages with charts (the groups') first, so
        # that worker processes start drawing while the listings and run pages are made.
        waiting = sorted((item for item in planned if item.path not in kept), key=_charts_first)
        with_charts = sum(1 for item in waiting if not _charts_first(item)[1])
        built = self.make(waiting[:with_charts], charts)
        # The run pages by a forked copy of this process on another core, where it can,
        # while this one makes the listings and, after them, the data files.
        share = forked_share([item for item in waiting if _is_run_page(item.path)], self.output)
        if not share:
            return built + self.make(waiting[with_charts:], charts), charts, None
        forked = ForkedShare(Forked(lambda: self.made_here(share, charts)), share)
        try:
            built += self.make(waiting[with_charts : len(waiting) - len(share)], charts)
        except BaseException:
            forked.forked.close()
            raise
        return built, charts, forked

    def make(self, items: list[PlannedPage], charts: dict[str, ChartSpec]) -> int:
        """Keep, patch or render each of ``items``; how many were made."""
        built = 0
        for item in items:
            built += self.page(item, charts)
            # Right after the run's page, while its measurements are still decoded: a sweep of
            # its own would decode every run again on a site too large to hold them all.
            self.run_json_of(item.path)
            progress.advance()
        return built

    def made_here(self, items: list[PlannedPage], charts: dict[str, ChartSpec]) -> ForkedPages:
        """In a forked copy of the build: make ``items`` and say what that added to the build's
        record (output.forked). Nothing here prints or reaches a worker: charts are collected."""
        written, fresh = set(self.output.written), set(self.output.fresh)
        entries, pieces = set(self.previous.entries), self.analysis.fragments.used_keys()
        asked: list[ChartSpec] = []
        self.batch = _ChartsAsked(asked)  # type: ignore[assignment]
        built = 0
        for item in items:
            built += self.page(item, charts)
            self.run_json_of(item.path)
        return ForkedPages(
            built,
            {path: entry for path, entry in self.previous.entries.items() if path not in entries},
            sorted(self.output.written - written),
            sorted(self.output.fresh - fresh),
            asked,
            self.analysis.fragments.used_since(pieces),
        )

    def take_back(self, forked: ForkedShare, charts: dict[str, ChartSpec]) -> int:
        """What the forked copy made, counted as made here; when it failed, its pages made here."""
        items = forked.items
        made = forked.forked.result(forked_limit_s(len(items)))
        if made is None:
            return self.make(items, charts)
        self.output.adopt(made.written, made.fresh)
        self.previous.entries.update(made.entries)
        self.analysis.fragments.adopt(made.pieces)
        for chart in made.charts:
            charts[chart.path()] = chart
            self.batch.add(chart)
        progress.advance(len(items))
        return made.built

    def page(self, item: PlannedPage, charts: dict[str, ChartSpec]) -> bool:
        """Keep, patch or render ``item``; whether it was made (patched or rendered)."""
        previous = self.previous
        if previous.reuse(item.path, item.key) is not None:
            return False
        patched = previous.patch(item.path, item.key, item.patch)
        if patched is not None:
            self.output.write(item.path, patched)
            previous.record(item.path, item.key, [item.path])
            return True
        page = item.make()
        for chart in page.charts:
            charts[chart.path()] = chart
            self.batch.add(chart)
        self.output.write(page.path, render(self.env, page))
        previous.record(item.path, item.key, [page.path, *chart_files(list(page.charts))])
        return True

    def run_json_writer(self) -> RunJsonWriter | None:
        """A worker that writes every run's JSON while the pages are made, in a build that keeps
        nothing (RunJsonWriter.start); their files recorded as made."""
        writer = RunJsonWriter.start(self.output, self.state_dir, self.collected.digest, self.runs)
        if writer is not None:
            for run in self.runs:
                path = run_json_path(run.id)
                self.previous.record(path, run.digest, [path])
        return writer

    def run_json(self, run: Run) -> None:
        path = run_json_path(run.id)
        if not self.previous.recorded(path):
            self.previous.write_or_keep(path, run.digest, lambda: exports.run_json(run))

    def run_json_of(self, page: str) -> None:
        """The JSON of the run whose page is at ``page``, if it is a run's page."""
        if _is_run_page(page):
            run = self.by_id.get(page[len("runs/") : -len("/index.html")])
            if run is not None:
                self.run_json(run)

    def data_files(self) -> None:
        """The listings' data files: made from every run's figures, kept unless a run or the
        site changed (``index_key``)."""
        site, runs, analysis, groups = self.setup.site, self.runs, self.analysis, self.memory.groups
        index_key = _index_key(site, analysis.settings, groups)
        # Each is joined from pieces, spliced from the last build's file (joined.Joined).
        keep = self.previous.write_or_splice
        keep(
            "data/runs.json",
            index_key,
            lambda: feeds.runs_index_joined(
                site, runs, analysis.headlines, analysis.fragments, self.memory.labels
            ),
        )
        keep("data/setups.json", index_key, lambda: setups_joined(runs, analysis.fragments))
        keep("data/capacity.json", index_key, lambda: capacity_joined(runs, analysis))
        site_history = self.memory.history
        # One record per run × figure, joined from each setup's (setups.SiteHistory).
        if site_history is not None:
            keep("data/changes.json", site_history.all_key, lambda: changes_joined(site_history))
        # Derived cells per context for the index's operating-point picker, fetched on demand.
        self.points()
        # What the index's filters fetch on first use: every row, compact.
        keep(
            SEARCH_INDEX,
            index_key,
            lambda: search_index_joined(
                site, runs, analysis, self.memory.site_groups, self.memory.labels
            ),
        )

    def points(self) -> None:
        """The picker's data/points/: each model's files kept by what makes them (key_of: the
        model's group, whose digest from the plan names the site, the settings and its runs),
        so an added run rewrites its model's files and keeps the other models'."""
        analysis = self.analysis
        everyone = self.memory.site_groups or site_groups(self.runs)
        groups = [group for group in everyone.values() if group.kind == "models"]
        for group in groups:
            path = f"data/points/{group.slug}/"
            key = key_of(model_point_files, group, analysis.settings)
            if self.previous.reuse(path, key, defer=True) is None:
                made = model_point_files(group, analysis)
                for name, data in sorted(made.items()):
                    self.output.write(name, data)
                self.previous.record(path, key, sorted(made))
        self.previous.keep_deferred()
        # Which models have a file at each context: a few small files, made from every run's
        # contexts (known from the grids the listings made anyway), written every time.
        contexts = point_contexts(self.runs, analysis, groups)
        for name, data in sorted(contexts.items()):
            self.output.write(name, data)

    def static_files(self) -> None:
        """The schemas (the contract contributors write against, at a stable address of the
        site) and the templates' static files."""
        for schema_file in sorted(resource_dir("schema").glob("*.schema.json")):
            self.output.write(f"schema/{schema_file.name}", schema_file.read_bytes())
        static = self.setup.templates / "static"
        for path in sorted(static.rglob("*")):
            if path.is_file():
                self.output.write(
                    f"assets/{path.relative_to(static).as_posix()}", path.read_bytes()
                )

    def chart_assets(self, renderer: ChartRenderer, chart_templates: ChartTemplates) -> None:
        """What the interactive upgrade of charts needs, when the site has a chart."""
        if any(name.startswith(f"{CHARTS_FOLDER}/") for name in self.output.written):
            self.output.write("assets/vega.js", renderer.javascript_bundle())
            # The interactive upgrade draws from the light template; dark screens recolour it.
            self.output.write("assets/chart-colours.json", DARK_COLOURS_JSON)
            for kind in KINDS:  # one template per kind, filled in by site.js
                self.output.write(template_path(kind), chart_templates.text(kind).encode())


@dataclass(frozen=True)
class ForkedPages:
    """What a forked copy of the build added to its record making its pages (SiteWriter)."""

    built: int
    entries: Entries  # Previous.entries recorded
    written: list[str]  # files written or kept in the staging folder
    fresh: list[str]  # of those, written anew
    charts: list[ChartSpec]  # charts its pages show (none today: run pages draw their own)
    pieces: list[tuple[str, bytes, bool]]  # Fragments.used_since


@dataclass(frozen=True)
class ForkedShare:
    """The pages a forked copy of the build is making (SiteWriter.pages)."""

    forked: Forked[ForkedPages]
    items: list[PlannedPage]


class _ChartsAsked:
    """A forked copy's chart batch: it only collects, the build draws (take_back)."""

    def __init__(self, asked: list[ChartSpec]) -> None:
        self.asked = asked

    def add(self, chart: ChartSpec) -> None:
        self.asked.append(chart)


# A forked copy makes the run pages only in a build that keeps nothing (its files are all new)
# and makes at least this many, while the build's own process makes the listing pages and the
# data files (docs/performance-log.md, 2026-12-05).
FORK_FROM_PAGES = 200


def forked_share(run_pages: list[PlannedPage], output: StagedOutput) -> list[PlannedPage]:
    """The run pages a forked copy of the build makes: all of them, or none."""
    if output.in_place or len(run_pages) < FORK_FROM_PAGES or not can_fork():
        return []
    return run_pages


def forked_limit_s(pages: int) -> float:
    """How long the build waits for a forked copy's pages before it makes them itself: far
    longer than they take on a busy machine (a copy that never ends is a bug, not a wait)."""
    return 120 + 0.05 * pages


def _charts_first(item: PlannedPage) -> tuple[bool, bool]:
    """The order pages are made in: the groups' (with charts) first, run pages last."""
    return (item.path.startswith("runs/"), not item.path.startswith(("models/", "hardware/")))


def _index_key(site: Site, settings: Settings, groups: dict[str, str]) -> str:
    """The key of the files made from every run's figures: the site, the settings and the
    models' digests (plan.PlanMemory), which name every run's id and content."""
    models = sorted(digest for path, digest in groups.items() if path.startswith("models/"))
    return hashlib.sha256(repr((site, settings, models)).encode()).hexdigest()


# Where every chart's files are (chart_specs.ChartSpec), side by side.
CHARTS_FOLDER = template_path(KINDS[0]).rpartition("/")[0]


def _shown_charts(output: StagedOutput, renderer: ChartRenderer) -> set[str]:
    """The cache files of every chart the site shows, from the names in its charts folder."""
    layout = output.layout() or {}
    return {
        renderer.cache_name(name.removesuffix(".svg"))
        for name in layout.get(CHARTS_FOLDER, ())
        if name.endswith(".svg")
    }


def _prune_now_and_then(
    renderer: ChartRenderer, record: Path, batch: ChartBatch, output: StagedOutput
) -> None:
    """Every PRUNE_EVERY builds, remove the drawn charts that the site does not show, that none
    of the last PRUNE_EVERY builds drew, and that are more than PRUNE_GRACE_S old (sites that
    share one cache, such as the tests', keep each other's charts a while). Incremental builds
    ask only for the charts of the pages they make, so it is the site's charts folder that
    says which are in use; looked at now and then, not at every build. ``record``: the last
    builds' start times."""
    try:
        starts = [float(t) for t in json.loads(read_cache(record) or b"[]")][-(PRUNE_EVERY - 1) :]
    except (ValueError, TypeError):
        starts = []
    starts.append(renderer.started)
    if len(starts) >= PRUNE_EVERY:
        # (less a second: a file's time may lag the clock read a moment before it was written)
        before = min(starts[0] - 1.0, time.time() - PRUNE_GRACE_S)
        renderer.prune(batch.used | _shown_charts(output, renderer), drawn_before=before)
        starts = []
    with contextlib.suppress(OSError):
        write_cache(record, json.dumps(starts).encode())


def _chart_count(output: StagedOutput) -> int:
    """How many charts the site has: the SVG files of its charts folder, read off its folders
    rather than off every file of the site, which are many more."""
    layout = (
        output.layout() or {}
    )  # (never None once committed: every name written or kept is plain)
    return sum(
        1
        for name in layout.get(CHARTS_FOLDER, ())
        if name.endswith(".svg") and f"{CHARTS_FOLDER}/{name}" not in layout
    )  # (a folder of that name is no chart)


def _is_run_page(path: str) -> bool:
    """Whether ``path`` is a run's page (``runs/<id>/index.html``; a run id has no "/")."""
    return path.startswith("runs/") and path.endswith("/index.html") and path.count("/") == 2


def _read_collected_bytes(config: Config) -> bytes | None:
    """The collected file, read as every state file is (files.read_bounded: a pipe or link put
    there never blocks); None when it cannot be read, and read_collected says why."""
    try:
        return read_bounded(collected_path(config.state_dir), MAX_STATE_BYTES)
    except (OSError, SitegenError):
        return None


def _inputs(collected_digest: str, site: Site, settings: Settings) -> str:
    """A digest of the data and settings a build reads (the code and templates are the
    manifest's fingerprint): the collected file's digest, the site and the settings."""
    if not collected_digest:
        return ""
    return hashlib.sha256(repr((site, settings, collected_digest)).encode()).hexdigest()


def _unchanged(previous: Previous, notes: tuple[str, ...]) -> BuildSummary:
    page_count, chart_count, file_count = previous.summary()
    return BuildSummary(page_count, 0, chart_count, 0, file_count, notes)
