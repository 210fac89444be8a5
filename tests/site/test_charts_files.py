"""Chart files of a built site: one SVG per chart that serves both colour schemes, and the
interactive upgrade's values, which with their kind's template make the whole spec."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urljoin

import pytest

from tests.kit.project import run_cli

# The themes' colours as docs/architecture.md and the stylesheet state them: light ink → dark ink.
LIGHT_TO_DARK = {"#1f2430": "#e6e9ef", "#5b6472": "#a3abb8", "#e3e6eb": "#343a46"}


def _built(project: Path) -> Path:
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    return project / "_site"


def test_each_chart_is_one_svg_carrying_both_schemes(project: Path) -> None:
    site = _built(project)
    charts = sorted((site / "assets" / "charts").glob("*.svg"))
    assert charts, "the shipped site has charts"
    assert not [c.name for c in charts if "dark" in c.name], "no second file for dark screens"
    for chart in charts:
        svg = chart.read_text()
        style = re.search(r"<style>(.*?)</style>", svg, re.S)
        assert style, f"{chart.name}: no style sheet of its own"
        screen_dark = re.search(
            r"@media screen and \(prefers-color-scheme:\s*dark\)\s*\{(.*)\}", style.group(1), re.S
        )
        assert screen_dark, f"{chart.name}: nothing for dark screens (paper keeps light)"
        used = {
            colour for colour in LIGHT_TO_DARK if f'"{colour}"' in svg.replace(style.group(0), "")
        }
        assert used, f"{chart.name}: drawn without the light theme's ink"
        for light in used:
            dark = LIGHT_TO_DARK[light]
            assert re.search(
                rf'\[(fill|stroke)="{light}"\]\{{\1:{dark}\}}', screen_dark.group(1)
            ), (chart.name, light)
    for page in site.rglob("*.html"):
        html = page.read_text()
        assert "<picture" not in html and "-dark.svg" not in html, page


def test_chart_values_and_template_make_the_spec(project: Path) -> None:
    site = _built(project)
    # Links are relative to their page: each is resolved against the page's own path.
    figures = []
    for page in sorted(site.rglob("*.html")):
        if page.name == "404.html" and page.parent == site:
            continue  # links from the site's root path, and no charts
        where = page.relative_to(site).as_posix()
        figures += [
            (urljoin(where, spec), urljoin(where, svg), alt)
            for spec, svg, alt in re.findall(
                r'<figure class="chart" data-spec="([^"]+)">.*?<img src="([^"]+)" alt="([^"]*)"',
                page.read_text(),
                re.S,
            )
        ]
    assert figures, "the shipped site has Vega charts (the groups' prefill charts)"
    for spec_path, svg_path, alt in figures:
        assert not spec_path.startswith(("/", "..")) and not svg_path.startswith(("/", "..")), (
            spec_path,
            svg_path,
        )
        data = json.loads((site / spec_path).read_text())
        template = (site / "assets" / "charts" / data["template"]).read_text()
        used = {name for name, value in data["fills"].items() if value is not None}
        assert "@data" in template and used <= set(re.findall(r'"(@[a-z-]+)"', template))
        rows = [dict(zip(data["fields"], values, strict=True)) for values in data["rows"]]
        assert rows and all(len(values) == len(data["fields"]) for values in data["rows"])
        # A row's run label is left out when its line number says it (site.js puts it back): the
        # label at that place of @series.
        assert set(data["derived"]) <= {"series", "context_text"} and not set(
            data["derived"]
        ) & set(data["fields"])
        if "series" in data["derived"]:
            for row in rows:
                row["series"] = data["fills"]["@series"][int(str(row["line"]).split("|")[0])]
        # Every series of the chart is one of the runs the page compares, under its legend label.
        assert {row["series"] for row in rows} <= set(data["fills"]["@series"])
        assert (site / svg_path).is_file()
        # Every series drawn is named in the alt text; figures are kept to the tenth a chart needs.
        assert all(row["series"] in alt for row in rows)
        numbers = [
            value for row in rows for value in row.values() if isinstance(value, (int, float))
        ]
        assert numbers and all(round(value, 1) == value for value in numbers)


def test_the_chart_templates_digest_names_altairs_version_as_importlib_metadata_reads_it() -> None:
    """charts.altair_version reads the version without importlib.metadata; the digest every chart's
    name carries is made from the library's answer (so no chart is drawn again for it)."""
    from importlib.metadata import version

    from sitegen.site.draw import chart_specs as charts

    assert charts.altair_version() == version("altair")
    assert charts.template_source() == charts.TEMPLATE_SOURCE


def test_the_chart_templates_digest_follows_the_code_not_its_comments_or_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reformatted line, a comment or a docstring renames no chart; a changed figure does, and
    so does another Altair version."""
    from sitegen.site.draw import chart_specs as charts

    here = Path(charts.__file__).resolve().parent
    for name in charts.TEMPLATE_MODULES:
        (tmp_path / name).write_bytes((here / name).read_bytes())
    before = charts.template_source(tmp_path)
    spec = tmp_path / "vega_templates.py"
    source = spec.read_text(encoding="utf-8")
    docstring_end = source.index('"""', 3) + 3
    spec.write_text(
        '"""Another docstring."""\n# a comment\n'
        + source[docstring_end:].replace(",\n", ",  # why\n", 3)
    )
    assert charts.template_source(tmp_path) == before
    spec.write_text(source + "\nEXTRA_WIDTH = 1\n")
    assert charts.template_source(tmp_path) != before
    spec.write_text(source)
    monkeypatch.setattr(charts, "altair_version", lambda: "0.0.0")
    assert charts.template_source(tmp_path) != before


@pytest.mark.parametrize(
    "first", ["altair-9.9.9.dist-info", "altair_viewer-0.4.0.dist-info", "altair-1.0.egg-info"]
)
def test_altairs_version_is_the_one_importlib_metadata_finds_first_on_the_path(
    first: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder of metadata earlier on sys.path than the installed Altair's: the library's answer
    either way (read the same way, or left to the library)."""
    from importlib.metadata import version

    from sitegen.site.draw import chart_specs as charts

    folder = tmp_path / first
    folder.mkdir()
    number = first.split("-")[1].removesuffix(".dist-info").removesuffix(".egg")
    name = "altair" if first.startswith("altair-") else "altair-viewer"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {number}\n\nAbout it.\n"
    (folder / ("PKG-INFO" if first.endswith(".egg-info") else "METADATA")).write_text(metadata)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert charts.altair_version() == version("altair")
