"""``sitegen build``: read the collected runs, plan every page, render, write atomically.

Reads only ``.sitegen/collected.json``, the templates and the config: offline and
deterministic, the same input gives byte-identical output.

Builds are incremental: a manifest from the last build (build_manifest) records each page's key (see
pages.plan) and the chart files it shows. A page whose key is unchanged is not built
again and its files stay where they are; only changed files are staged and moved in
(write.StagedOutput), and the result is byte-identical to a cold build. When nothing the
output depends on changed at all (the collected file's bytes, the settings, sitegen's code and
templates) and every file of the last build is still in place, the build stops there, without
reading a run: at 20,000 runs that is the difference between seconds and a fraction of one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any

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
from sitegen.site.incremental.fragments import Fragments
from sitegen.site.incremental.manifest import Entries, Manifest
from sitegen.site.output.folder_guard import check_output_folder
from sitegen.site.output.staging import MARKER, StagedOutput
from sitegen.site.page import Site
from sitegen.site.pages import feeds
from sitegen.site.pages import run_json as exports
from sitegen.site.pages.compare import setups_json
from sitegen.site.pages.index import SEARCH_INDEX, search_index_of
from sitegen.site.pages.presets import capacity_json, model_point_files, point_contexts
from sitegen.site.pages.setups import changes_json
from sitegen.site.plan import KEY_HALF, PlanMemory, PlannedPage, plan
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


def build(config: Config, force_output: bool = False) -> BuildSummary:
    """Build the site into ``config.output_dir``; ``force_output`` lets it replace a folder of
    files sitegen did not make (never one of the project's own folders)."""
    # Without the cycle collector while it runs (gc_and_exit.long_lived_work).
    with long_lived_work():
        return _build(config, force_output)


def _build(config: Config, force_output: bool) -> BuildSummary:
    check_output_folder(config, replace=force_output)
    site = Site(config.title, config.description, config.site_url)
    settings = Settings.of(config)
    use_accelerator_aliases(settings.accelerator_aliases)
    templates = templates_dir(config)
    fingerprint = _fingerprint(
        Path(__file__).resolve().parent.parent, templates, resource_dir("schema")
    )
    manifest = Manifest(config.state_dir / "build" / "manifest.json", fingerprint)
    notes = () if config.site_url else (WITHOUT_SITE_URL,)
    # The collected file's digest without reading it (300 MB at 20,000 runs), when it is the very
    # file an earlier build read: the same identity, recorded once it was settled.
    digests = CollectedDigest(
        config.state_dir / "cache" / "collected-digest.json", collected_path(config.state_dir)
    )
    known = digests.known()
    if known is not None and manifest.unchanged_site(
        _inputs(known, site, settings), config.output_dir
    ):
        return _unchanged(manifest, notes)
    collected = _read_collected_bytes(config)
    collected_digest = hashlib.sha256(collected).hexdigest() if collected is not None else ""
    digests.remember(collected_digest)
    inputs = _inputs(collected_digest, site, settings)
    if known is None and manifest.unchanged_site(inputs, config.output_dir):
        return _unchanged(manifest, notes)
    chart_templates = ChartTemplates(config.state_dir / "cache")
    renderer = ChartRenderer(config.state_dir / "cache" / "charts", templates=chart_templates)
    # Worker processes draw the charts while this one writes everything else. One starts
    # vl-convert now, on another core, so that the first new chart does not wait for it.
    with renderer.batch() as batch:
        batch.warm_up()
        # Read once: the bytes just hashed are the ones the runs come from.
        reading = progress.step("reading collected runs")
        runs = read_collected(
            config.state_dir,
            data=collected,
            as_written=written_by_collect(config.state_dir, collected_digest),
        )
        del collected
        reading.done = len(runs)
        # Figures of runs whose content an earlier build saw are read back, not worked out again.
        stored = StoredFigures(
            config.state_dir / "cache" / "figures.json",
            hashlib.sha256(repr((fingerprint, settings)).encode()).hexdigest(),
            settings.service_levels,
        )
        env = environment(templates, config.state_dir / "cache" / "templates")
        # The pieces of listing pages are rendered by the same templates as the pages.
        fragments = Fragments(
            config.state_dir / "cache" / "fragments.json",
            hashlib.sha256(repr((fingerprint, settings, site)).encode()).hexdigest(),
            env,
        )
        analysis = Analysis(settings, stored=stored, fragments=fragments)
        # A run page whose model's and accelerator's runs are as they were keeps the key it had.
        memory = PlanMemory(manifest.groups, manifest.key)
        planning = progress.step("planning pages")
        planned = plan(site, runs, analysis, memory)
        planning.done = len(planned)
        # With a manifest to go by, only changed files are staged; the others stay where they are.
        # The site before last, kept by the last build (write.StagedOutput._reuse_spare), is the
        # staging folder's head start: its folders and most files are there already.
        output = StagedOutput(
            config.output_dir,
            in_place=bool(manifest.entries),
            spare=config.state_dir / "build" / "spare",
            previous=manifest.previous_site(),
        )
        entries: Entries = {}
        try:
            by_id = {run.id: run for run in runs}
            exported = {f"runs/{run.id}.json": run.digest for run in runs}
            # The exports of unchanged runs at once, when the spare has them (_keep_unchanged).
            _keep_unchanged(output, manifest, entries, exported)
            progress.step("writing pages", len(planned))
            # Drawn by worker processes while pages are written: a stage beside the others.
            drawing = progress.beside("drawing charts", batch.progress)

            def run_json(run: Run) -> None:
                if f"runs/{run.id}.json" not in entries:
                    _write_or_keep(
                        output,
                        manifest,
                        entries,
                        config.output_dir,
                        f"runs/{run.id}.json",
                        run.digest,
                        lambda: exports.run_json(run),
                    )

            def run_json_of(page: str) -> None:
                # Right after the run's page, while its measurements are still decoded: a
                # sweep of its own decoded every run again on a site too large to hold them all.
                run = (
                    by_id.get(page[len("runs/") : -len("/index.html")])
                    if _is_run_page(page)
                    else None
                )
                if run is not None:
                    run_json(run)

            built, charts = _write_pages(
                output, planned, manifest, entries, env, batch, config.output_dir, run_json_of
            )
            progress.step("writing listings and data files")
            # The JSON of a run whose page was kept at once, though its own JSON was not (its
            # entry missing from the last build's record), or that the plan gave no page (none
            # today).
            for export in sorted(exported.keys() - entries.keys()):
                run_json(by_id[export[len("runs/") : -len(".json")]])
            # Made from every run's figures: linked unless a run or the site changed. The models'
            # digests (the plan's, pages.PlanMemory) name every run's id and content: a repr of
            # each run's was 37 ms of a build at 20,000 runs.
            index_key = hashlib.sha256(
                repr(
                    (
                        site,
                        analysis.settings,
                        sorted(
                            digest
                            for group_path, digest in memory.groups.items()
                            if group_path.startswith("models/")
                        ),
                    )
                ).encode()
            ).hexdigest()
            _write_or_keep(
                output,
                manifest,
                entries,
                config.output_dir,
                "data/runs.json",
                index_key,
                lambda: feeds.runs_index(site, runs, analysis.headlines, analysis.fragments),
            )
            _write_or_keep(
                output,
                manifest,
                entries,
                config.output_dir,
                "data/setups.json",
                index_key,
                lambda: setups_json(runs, analysis.fragments),
            )
            _write_or_keep(
                output,
                manifest,
                entries,
                config.output_dir,
                "data/capacity.json",
                index_key,
                lambda: capacity_json(runs, analysis),
            )
            site_history = memory.history
            # One record per run × figure, joined from each setup's (setup_pages).
            if site_history is not None:
                _write_or_keep(
                    output,
                    manifest,
                    entries,
                    config.output_dir,
                    "data/changes.json",
                    site_history.all_key,
                    lambda: changes_json(site_history),
                )
            # Derived cells per context for the index's operating-point picker, fetched on demand.
            _write_points(
                output, manifest, entries, config.output_dir, site, runs, analysis, memory.groups
            )
            # What the index's filters fetch on first use: every row, compact.
            _write_or_keep(
                output,
                manifest,
                entries,
                config.output_dir,
                SEARCH_INDEX,
                index_key,
                lambda: search_index_of(site, runs, analysis, memory.groups),
            )
            # The contract contributors write against, at a stable address of the site.
            for schema_file in sorted(resource_dir("schema").glob("*.schema.json")):
                output.write(f"schema/{schema_file.name}", schema_file.read_bytes())
            static = templates / "static"
            for path in sorted(static.rglob("*")):
                if path.is_file():
                    output.write(f"assets/{path.relative_to(static).as_posix()}", path.read_bytes())
            progress.step("writing charts")
            write_charts(output, charts, batch.result())
            drawing.end(batch.last_drawn or drawing.started)  # when the last chart was drawn
            if any(name.startswith(f"{CHARTS_FOLDER}/") for name in output.written):
                output.write("assets/vega.js", renderer.javascript_bundle())
                # The interactive upgrade draws from the light template; dark screens recolour it.
                output.write("assets/chart-colours.json", DARK_COLOURS_JSON)
                for kind in KINDS:  # one template per kind, filled in by site.js
                    output.write(template_path(kind), chart_templates.text(kind).encode())
            progress.step("saving the site")
            manifest.forget()
            output.commit()
        except SitegenError:
            output.discard()
            raise
        except Exception as exc:
            output.discard()
            if isinstance(exc, OSError):
                raise SitegenError(
                    Problem(str(config.output_dir), None, "", f"build failed: {exc}")
                ) from None
            raise
        chart_count = _chart_count(output)
        # The files no entry names (assets, schemas): set operations, not a step a file (70,000).
        others = sorted(
            output.written
            - set(chain.from_iterable(entry_files for _, entry_files in entries.values()))
            - {MARKER}
        )
        spare_folders = output.refresh_spare(config.state_dir / "cache")
        manifest.save(
            entries,
            inputs,
            (len(planned), chart_count, len(output.written)),
            others,
            config.output_dir,
            config.state_dir / "cache",
            spare_folders,
            output.layout(),
            output.known_folders(),
            memory.groups,
        )
        analysis.keep_figures(runs)
        fragments.save()
        if not output.in_place:  # every page was made, so every chart of the site was asked for
            renderer.prune(batch.used)
        _prune_now_and_then(
            renderer, config.state_dir / "cache" / "chart-prune.json", batch, output
        )
        left_to_the_end(locals())  # all it holds, never freed when the process ends with the build
        return BuildSummary(
            len(planned), built, chart_count, renderer.rendered, len(output.written), notes
        )


# Where every chart's files are (charts.ChartSpec), side by side.
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
    (a few thousand names) rather than off every file of the site (70,000 at 20,000 runs)."""
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


def _unchanged(manifest: Manifest, notes: tuple[str, ...]) -> BuildSummary:
    page_count, chart_count, file_count = manifest.summary
    return BuildSummary(page_count, 0, chart_count, 0, file_count, notes)


def _write_or_keep(
    output: StagedOutput,
    manifest: Manifest,
    entries: Entries,
    old_site: Path,
    path: str,
    key: str,
    make: Any,
) -> None:
    files = manifest.reusable(path, key, old_site, output.trusted) if key else None
    if files and path in files:
        output.keep(path, files[path])
    else:
        output.write(path, make())
    entries[path] = (key, [path])


def _write_points(
    output: StagedOutput,
    manifest: Manifest,
    entries: Entries,
    old_site: Path,
    site: Site,
    runs: list[Any],
    analysis: Analysis,
    model_digests: dict[str, str],
) -> None:
    """The picker's data/points/: each model's files keyed on its runs' content alone (the
    model's digest from the plan, pages.PlanMemory, which names the site, the settings and its
    runs), so an added run rewrites its model's files (a few) and keeps the other models'
    (hundreds)."""
    groups = [group for group in site_groups(runs).values() if group.kind == "models"]  # the plan's
    kept: set[str] = (
        set()
    )  # taken at once at the end (StagedOutput.keep_all): 16,000 files at 20,000 runs
    for group in groups:
        path = f"data/points/{group.slug}/"
        key = (
            model_digests.get(group.path)
            or hashlib.sha256(
                repr(
                    (
                        site,
                        analysis.settings,
                        group.slug,
                        sorted((run.id, run.digest) for run in group.runs),
                    )
                ).encode()
            ).hexdigest()
        )
        found = manifest.reusable(path, key, old_site, output.trusted)
        if found is not None and output.trusted:
            kept.update(found)
            files = list(found)
        elif found is not None:
            for name, status in found.items():
                output.keep(name, status)
            files = list(found)
        else:
            made = model_point_files(group, analysis)
            for name, data in sorted(made.items()):
                output.write(name, data)
            files = sorted(made)
        entries[path] = (key, files)
    output.keep_all(kept)
    # Which models have a file at each context: a few small files, made from every run's
    # contexts (known from the grids the listings made anyway), written every time.
    for name, data in sorted(point_contexts(runs, analysis, groups, model_digests).items()):
        output.write(name, data)


def _keep_unchanged(
    output: StagedOutput, manifest: Manifest, entries: Entries, wanted: dict[str, str]
) -> set[str]:
    """When the build stages in a spare that holds the previous site (StagedOutput.trusted),
    take every entry of ``wanted`` (its path → its key now) whose key is the one the last build
    recorded, with its files, at once; return their paths (none without such a spare).

    Why: an added run leaves 48,000 of 48,600 pages and exports as they were at 20,000 runs,
    and taking each on its own (Manifest.reusable, then StagedOutput.keep for each file) was
    0.3 s of the build. A file another entry took already (a chart several pages show) is not
    taken again."""
    if not output.trusted:
        return set()
    recorded = manifest.entries
    same = {
        path: entry
        for path, key in wanted.items()
        if key and (entry := recorded.get(path)) is not None and entry[0] == key
    }  # (no key: always made)
    output.keep_all(
        {name for _, entry_files in same.values() for name in entry_files} - output.written
    )
    entries.update(same)
    return set(same)


def _write_pages(
    output: StagedOutput,
    planned: list[PlannedPage],
    manifest: Manifest,
    entries: Entries,
    env: Any,
    batch: ChartBatch,
    old_site: Path,
    after: Callable[[str], None],
) -> tuple[int, dict[str, ChartSpec]]:
    """Render the pages whose key changed and link the others; hand their charts to ``batch``;
    call ``after`` with the path of each page written or kept on its own (not of those kept at
    once by _keep_unchanged: the build's sweep of its runs' JSON takes what they need). Return
    how many pages were built, and their charts by path."""
    built = 0
    charts: dict[str, ChartSpec] = {}
    kept = _keep_unchanged(output, manifest, entries, {item.path: item.key for item in planned})
    progress.advance(len(kept))
    # Only the others are looked at one by one (a hundred of 28,000 pages when a run is added at
    # 20,000 runs). Pages with charts (the groups') first, so that worker processes start drawing
    # while the listings and run pages (no charts) are made.
    waiting = [item for item in planned if item.path not in kept]
    for item in sorted(
        waiting,
        key=lambda item: (
            item.path.startswith("runs/"),
            not item.path.startswith(("models/", "hardware/")),
        ),
    ):
        found = manifest.reusable(item.path, item.key, old_site, output.trusted)
        patched = _patched(item, manifest, old_site) if found is None else None
        if patched is not None:
            output.write(item.path, patched)
            entries[item.path] = (item.key, [item.path])
            built += 1
        elif found is None:
            page = item.make()
            for chart in page.charts:
                charts[chart.path()] = chart
                batch.add(chart)
            output.write(page.path, render(env, page))
            entries[item.path] = (item.key, [page.path, *chart_files(list(page.charts))])
            built += 1
        else:
            for name, status in found.items():
                if name not in output.written:  # a chart may belong to several pages
                    output.keep(name, status)
            entries[item.path] = (item.key, list(found))
        after(item.path)
        progress.advance()
    return built, charts


def _patched(item: PlannedPage, manifest: Manifest, old_site: Path) -> bytes | None:
    """The page ``item`` made from the one the last build wrote (PlannedPage.patch), when only the
    second half of its key changed and that page is still a plain file of the site; else None.

    Why: adding a run changes the links of the twenty or so run pages beside it in its model's
    and accelerator's runs, and nothing else of them; making each anew (its measurements read,
    its tables worked out and rendered) was a quarter of the pages such a build makes at 20,000
    runs, where putting the new links in place of the old ones costs a twentieth of that. The
    last build's page is believed as a page it kept would be (build_manifest.all_in_place)."""
    entry = manifest.entries.get(item.path)
    if (
        item.patch is None
        or entry is None
        or entry[0] == item.key
        or entry[0][:KEY_HALF] != item.key[:KEY_HALF]
        or list(entry[1]) != [item.path]
    ):
        return None
    try:
        page = read_bounded(old_site / item.path, MAX_STATE_BYTES, what="a page of the site")
    except (OSError, SitegenError):
        return None
    return item.patch(page)
