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
from sitegen.site import exports
from sitegen.site.charts import ChartRenderer
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


def build(config: Config) -> BuildSummary:
    runs = read_collected(config.state_dir)
    site = Site(config.title, config.description, config.base_path)
    pages = plan(site, runs)
    templates = templates_dir(config)
    env = environment(templates, site.base_path)
    charts = ChartRenderer(config.state_dir / "cache" / "charts")
    output = StagedOutput(config.output_dir)
    try:
        for page in pages:
            output.write(page.path, render(env, page))
        chart_files = {
            chart.path(theme): spec
            for page in pages for chart in page.charts for theme, spec in chart.specs
        }
        for chart_path, spec in sorted(chart_files.items()):
            output.write(chart_path, charts.svg(spec))
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
    return BuildSummary(len(pages), len(chart_files), charts.rendered, len(output.written))
