"""``sitegen build``: read the collected runs, plan every page, render, write atomically.

Reads only ``.sitegen/collected.json``, the templates and the config: offline and
deterministic, the same input gives byte-identical output.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sitegen.config import Config
from sitegen.errors import Problem, SitegenError
from sitegen.resources import resource_dir
from sitegen.site import exports, feeds
from sitegen.site.chart_render import ChartRenderer, dark_svg
from sitegen.site.charts import LAYOUTS, ChartSpec
from sitegen.site.common import Site
from sitegen.site.pages import plan
from sitegen.site.render import environment, render
from sitegen.site.write import StagedOutput
from sitegen.store import read_collected


@dataclass(frozen=True)
class BuildSummary:
    pages: int
    charts: int
    charts_rendered: int
    files: int


def templates_dir(config: Config) -> Path:
    """The site's own templates/ when it has one, else the ones sitegen ships."""
    own = config.root / "templates"
    return own if (own / "base.html").is_file() else resource_dir("templates")


def write_charts(output: StagedOutput, renderer: ChartRenderer, charts: list[ChartSpec]) -> int:
    """Write every variant of every chart once, and the wide specs for the interactive upgrade."""
    written: set[str] = set()
    for chart in sorted(charts, key=lambda c: c.path("light-wide")):
        for layout in LAYOUTS:
            light_path = chart.path(f"light-{layout}")
            if light_path in written:
                continue  # the same chart on several pages
            light_svg = renderer.svg(chart.spec(f"light-{layout}"))
            variants = {light_path: light_svg, chart.path(f"dark-{layout}"): dark_svg(light_svg)}
            for path, svg in variants.items():
                output.write(path, svg)
                written.add(path)
                if layout == "wide":
                    output.write(path.removesuffix(".svg") + ".json", chart.spec_for_path(path).encode())
    return len(written)


def build(config: Config) -> BuildSummary:
    runs = read_collected(config.state_dir)
    site = Site(config.title, config.description, config.base_path)
    pages = plan(site, runs, config.base_url)
    templates = templates_dir(config)
    env = environment(templates, site.base_path)
    charts = ChartRenderer(config.state_dir / "cache" / "charts")
    output = StagedOutput(config.output_dir)
    try:
        for page in pages:
            output.write(page.path, render(env, page))
        chart_files = write_charts(output, charts, [chart for page in pages for chart in page.charts])
        if chart_files:
            output.write("assets/vega.js", charts.javascript_bundle())
        output.write("data/runs.json", feeds.runs_index(site, runs))
        for run in runs:
            output.write(f"runs/{run.id}.json", exports.run_json(run))
            output.write(f"runs/{run.id}.csv", exports.run_csv(run))
        # The contract contributors write against, at a stable address of the site.
        for schema_file in sorted(resource_dir("schema").glob("*.schema.json")):
            output.write(f"schema/{schema_file.name}", schema_file.read_bytes())
        static = templates / "static"
        for path in sorted(static.rglob("*")):
            if path.is_file():
                output.write(f"assets/{path.relative_to(static).as_posix()}", path.read_bytes())
        output.commit()
    except SitegenError:
        output.discard()
        raise
    except Exception as exc:
        output.discard()
        if isinstance(exc, OSError):
            raise SitegenError(Problem(str(config.output_dir), None, "", f"build failed: {exc}")) from None
        raise
    return BuildSummary(len(pages), chart_files, charts.rendered, len(output.written))
