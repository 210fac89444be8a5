"""``sitegen build``: read the collected runs, plan every page, render, write atomically.

Reads only ``.sitegen/collected.json``, the templates and the config: offline and
deterministic, the same input gives byte-identical output.

Builds are incremental: a manifest from the last build records each page's key (see
pages.plan) and the chart files it shows. A page whose key is unchanged is not built
again; its files are hard-linked from the previous site into the new one, so an
unchanged build costs a link per file, and the result is byte-identical to a cold build.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitegen import __version__
from sitegen.config import Config
from sitegen.errors import Problem, SitegenError
from sitegen.resources import resource_dir
from sitegen.site import exports, feeds
from sitegen.site.chart_render import ChartRenderer, dark_svg
from sitegen.site.charts import ChartSpec
from sitegen.site.common import Page, Site
from sitegen.site.pages import PlannedPage, plan
from sitegen.site.render import environment, render
from sitegen.site.write import StagedOutput
from sitegen.store import read_collected, write_atomic

MANIFEST_VERSION = 1


@dataclass(frozen=True)
class BuildSummary:
    pages: int
    pages_built: int
    charts: int
    charts_rendered: int
    files: int


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
    """The files a page's charts occupy: both variants and their specs."""
    paths = []
    for chart in charts:
        for variant in ("light", "dark"):
            svg = chart.path(variant)
            paths += [svg, svg.removesuffix(".svg") + ".json"]
    return paths


def write_charts(output: StagedOutput, renderer: ChartRenderer, charts: list[ChartSpec]) -> int:
    """Write both variants of every chart once, with their specs for the interactive upgrade."""
    unique = sorted({chart.path("light"): chart for chart in charts}.items())  # a chart may be on several pages
    unique = [(path, chart) for path, chart in unique if path not in output.written]
    svgs = renderer.svgs([chart.spec("light") for _, chart in unique])
    for (light_path, chart), light_svg in zip(unique, svgs, strict=True):
        for path, svg, spec in ((light_path, light_svg, chart.spec("light")),
                                (chart.path("dark"), dark_svg(light_svg), chart.spec("dark"))):
            output.write(path, svg)
            output.write(path.removesuffix(".svg") + ".json", spec.encode())
    return 2 * len(unique)


class Manifest:
    """What the previous build wrote: page keys and the files each key stands for."""

    def __init__(self, path: Path, fingerprint: str) -> None:
        self.path = path
        self.fingerprint = fingerprint
        self.entries: dict[str, dict[str, Any]] = {}
        try:
            document = json.loads(path.read_bytes())
        except (OSError, ValueError):
            return
        if document.get("version") == MANIFEST_VERSION and document.get("fingerprint") == fingerprint:
            self.entries = document.get("entries", {})

    def reusable(self, path: str, key: str, output_dir: Path) -> list[str] | None:
        """The files of an unchanged entry, when all of them are still in the previous site."""
        entry = self.entries.get(path)
        if not entry or entry.get("key") != key:
            return None
        files: list[str] = entry["files"]
        return files if all((output_dir / name).is_file() for name in files) else None

    def forget(self) -> None:
        """Drop the manifest while the site changes, so a crash can only cost a full build."""
        with contextlib.suppress(OSError):
            self.path.unlink(missing_ok=True)

    def save(self, entries: dict[str, dict[str, Any]]) -> None:
        document = {"version": MANIFEST_VERSION, "fingerprint": self.fingerprint, "entries": entries}
        with contextlib.suppress(OSError):  # without a manifest the next build is simply a full one
            write_atomic(self.path, json.dumps(document, sort_keys=True, separators=(",", ":")).encode())


def build(config: Config) -> BuildSummary:
    runs = read_collected(config.state_dir)
    site = Site(config.title, config.description, config.base_path)
    planned = plan(site, runs, config.base_url)
    templates = templates_dir(config)
    env = environment(templates, site.base_path)
    renderer = ChartRenderer(config.state_dir / "cache" / "charts")
    fingerprint = _fingerprint(Path(__file__).resolve().parent.parent, templates, resource_dir("schema"))
    manifest = Manifest(config.state_dir / "build" / "manifest.json", fingerprint)
    output = StagedOutput(config.output_dir)
    entries: dict[str, dict[str, Any]] = {}
    try:
        built = _write_pages(output, planned, manifest, entries, env, renderer, config.output_dir)
        for run in runs:
            _write_or_link(output, manifest, entries, config.output_dir, f"runs/{run.id}.json", run.digest,
                           lambda run=run: exports.run_json(run))  # type: ignore[misc]
            _write_or_link(output, manifest, entries, config.output_dir, f"runs/{run.id}.csv", run.digest,
                           lambda run=run: exports.run_csv(run))  # type: ignore[misc]
        if any(name.startswith("assets/charts/") for name in output.written):
            output.write("assets/vega.js", renderer.javascript_bundle())
        output.write("data/runs.json", feeds.runs_index(site, runs))
        # The contract contributors write against, at a stable address of the site.
        for schema_file in sorted(resource_dir("schema").glob("*.schema.json")):
            output.write(f"schema/{schema_file.name}", schema_file.read_bytes())
        static = templates / "static"
        for path in sorted(static.rglob("*")):
            if path.is_file():
                output.write(f"assets/{path.relative_to(static).as_posix()}", path.read_bytes())
        manifest.forget()
        output.commit()
    except SitegenError:
        output.discard()
        raise
    except Exception as exc:
        output.discard()
        if isinstance(exc, OSError):
            raise SitegenError(Problem(str(config.output_dir), None, "", f"build failed: {exc}")) from None
        raise
    manifest.save(entries)
    charts = sum(1 for name in output.written if name.startswith("assets/charts/") and name.endswith(".svg"))
    return BuildSummary(len(planned), built, charts, renderer.rendered, len(output.written))


def _write_or_link(output: StagedOutput, manifest: Manifest, entries: dict[str, dict[str, Any]], old_site: Path,
                   path: str, key: str, make: Any) -> None:
    files = manifest.reusable(path, key, old_site) if key else None
    if files:
        output.link(path, old_site / path)
    else:
        output.write(path, make())
    entries[path] = {"key": key, "files": [path]}


def _write_pages(output: StagedOutput, planned: list[PlannedPage], manifest: Manifest,
                 entries: dict[str, dict[str, Any]], env: Any, renderer: ChartRenderer, old_site: Path) -> int:
    """Render the pages whose key changed, link the others; return how many were built."""
    fresh: list[Page] = []
    for item in planned:
        files = manifest.reusable(item.path, item.key, old_site)
        if files is None:
            page = item.make()
            output.write(page.path, render(env, page))
            entries[item.path] = {"key": item.key, "files": [page.path, *chart_files(list(page.charts))]}
            fresh.append(page)
            continue
        for name in files:
            if name not in output.written:  # a chart may belong to several pages
                output.link(name, old_site / name)
        entries[item.path] = {"key": item.key, "files": files}
    write_charts(output, renderer, [chart for page in fresh for chart in page.charts])
    return len(fresh)
