"""The built site in a real browser: every kind of page loads cleanly and only from its own
host, charts are drawn with and without JavaScript, the enhancements work, phones never
scroll sideways, dark mode and paper get their own designs. Screenshots of the main pages
land in tests/artifacts/screenshots/ for people to look at (CI uploads the folder)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.kit.browser import (
    CHART_INK_JS,
    CHARTS_JS,
    DESKTOP,
    PAGE_KINDS,
    PHONE,
    Browsing,
    Visit,
    chart_problems,
)
from tests.kit.project import REPO

pytestmark = pytest.mark.browser

SCREENSHOTS = REPO / "tests" / "artifacts" / "screenshots"
CHARTED = {"model", "hardware"}  # kinds of page that must show at least one chart image
PLOTTED = {"model", "hardware", "compare-app"}  # kinds of page that draw small charts in the page
BARRED = {"run", "compare-app"}  # kinds of page that draw prefill bars in the page itself


def rgb(css_colour: str) -> tuple[float, ...]:
    channels = [float(c) for c in re.findall(r"[\d.]+", css_colour)[:3]]
    assert len(channels) == 3, css_colour
    return tuple(channels)


def luminance(css_colour: str) -> float:
    """WCAG relative luminance, 0 (black) to 1 (white)."""

    def linear(channel: float) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb(css_colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
@pytest.mark.parametrize("kind", PAGE_KINDS)
def test_page_loads_cleanly_and_draws_its_charts(
    browse: Browsing, site_pages: dict[str, str], kind: str, javascript: bool
) -> None:
    visit = browse.open_kind(site_pages, kind, javascript=javascript)
    charts = visit.js(CHARTS_JS)
    if kind in CHARTED:
        assert charts, f"{kind} page shows no chart"
    assert not chart_problems(charts), "\n".join(chart_problems(charts))
    if kind in PLOTTED and (javascript or kind != "compare-app"):
        # A model page's frontier charts at the other contexts wait, hidden, for their link
        # (#pareto-<tokens>, style.css :target): every plot shown is drawn, and only those wait.
        plots = visit.js("""() => Array.from(document.querySelectorAll("figure.plot > svg"))
            .map((svg) => [svg.getBoundingClientRect().width,
                           svg.querySelectorAll("path title").length,
                           !!svg.closest(".pareto-at:not(.pareto-default)")])""")
        assert plots and all(
            (width > 100 or waiting) and points > 0 for width, points, waiting in plots
        ), plots
        assert all(width > 100 for width, _, waiting in plots if not waiting), plots
    if kind in BARRED and (javascript or kind != "compare-app"):
        # Each bar is drawn at its class's share (w<n>: n %) of the longest bar's length, which is
        # the whole track.
        # A page's bar line is a <p> of the grid; a comparison's, a row of its prefill table.
        bars = visit.js("""() => Array.from(document
            .querySelectorAll("figure.bars .bar-row > p > i, figure.bars .pf td > i"))
            .map((bar) => [Number(/\\bw(\\d+)\\b/.exec(bar.className)[1]),
                bar.getBoundingClientRect().width,
                           bar.closest("p, tr").getBoundingClientRect().width])""")
        assert bars and any(percent == 100 for percent, _, _ in bars), bars
        track = max(width for _, width, _ in bars)
        assert 100 < track < max(line for _, _, line in bars), bars
        for percent, width, _ in bars:
            assert abs(width - track * percent / 100) <= 1, (percent, width, track)
            assert percent == 0 or width > 0, (percent, width)
    visit.assert_clean()
    if javascript:
        # The 404 page only finds the site's root; the others share one small script, and the pages
        # of runs tables add the operating-point picker. The chart library (vega.js, ~900 KB)
        # waits for a reader's click on "Interactive".
        scripts = sorted(
            {urlsplit(url).path for url in visit.requests if urlsplit(url).path.endswith(".js")}
        )
        picker = ["/assets/point.js"] if kind in ("index", "model", "hardware") else []
        if kind == "run":  # its tables made from the run JSON, citations and CSV (run.js)
            picker = ["/assets/run.js"]
        # A model or accelerator page with decode charts at more than one context draws the rest in
        # the browser (group.js, with the plot drawing the compare view shares: plots.js).
        if visit.js("() => Boolean(document.querySelector('#decode[data-plots]'))"):
            picker += ["/assets/group.js", "/assets/plots.js"]
        # A model page's frontier charts name each point's figures on hover (pareto.js).
        if visit.js("() => Boolean(document.querySelector('section.pareto'))"):
            picker += ["/assets/pareto.js"]
        expected = (
            ["/assets/compare.js", "/assets/plots.js", "/assets/site.js"]
            if kind == "compare-app"
            else sorted([*picker, "/assets/site.js"])
        )
        # The 404 page asks the folders above it for not-found.js, to find the site's root.
        if kind == "404":
            expected = ["/assets/not-found.js", "/no-such-page/assets/not-found.js"]
        # A setup's page needs none: its timelines' points are plain links.
        if kind == "setup":
            expected = []
        assert scripts == expected
    main_text = visit.js("() => document.querySelector('main').innerText.trim()")
    assert len(main_text) > 40, f"{kind} page shows almost nothing: {main_text!r}"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_interactive_upgrade_draws_a_chart_under_the_csp(
    browse: Browsing, site_pages: dict[str, str], scheme: str
) -> None:
    visit = browse.open_kind(site_pages, "model", scheme=scheme)
    figure = visit.page.locator("figure.chart").first
    spec_url = figure.get_attribute("data-spec")
    assert spec_url
    assert not visit.requested("/assets/vega.js"), "the chart library loads only when asked for"
    figure.locator("button.chart-toggle").click()
    svg = figure.locator(".interactive svg").first
    svg.wait_for(state="visible")
    box = svg.bounding_box()
    assert box and box["width"] > 100 and box["height"] > 50, box
    assert figure.locator("img").is_hidden(), "the static chart gives way to the interactive one"
    assert visit.requested("/assets/vega.js") and visit.requested(spec_url.removeprefix("../.."))
    # A dark screen recolours the light template as the SVG's own style recolours the static chart.
    assert visit.requested("/assets/chart-colours.json") == (scheme == "dark")
    # A point's tooltip names its run as the legend does and its context in words (both put
    # back by site.js from the line number and the context, charts.ChartSpec.data_json).
    point = figure.locator(
        ".interactive svg path[role=graphics-symbol], .interactive svg .mark-symbol path"
    ).first
    point.hover(force=True)
    tooltip = visit.page.locator("#vg-tooltip-element")
    tooltip.wait_for(state="visible")
    words = tooltip.inner_text()
    legend = figure.locator(".chart-legend li").all_inner_texts()
    assert any(label.strip() and label.strip() in words for label in legend), (words, legend)
    assert re.search(r"context\s+\d+(K|,\d{3})?\b", words), words
    if scheme == "dark":
        labels = visit.js("""() => Array.from(document.querySelectorAll(".interactive svg text"))
            .map((text) => getComputedStyle(text).fill)""")
        assert labels and all(luminance(colour) > 0.3 for colour in labels), labels
    visit.assert_clean()


def visible_rows(visit: Visit) -> list[str]:
    rows: list[str] = visit.js("""() => Array.from(document
            .querySelectorAll("table[data-filterable='true'] tbody tr"))
        .filter((row) => !row.hidden)
        .map((row) => row.querySelector("th a").getAttribute("href")
            + " " + row.cells[1].innerText.trim())""")
    return rows


def column_values(visit: Visit, header: str) -> list[float | None]:
    """The sort keys of one column of the index, top to bottom; None where not measured."""
    values: list[str] = visit.js(
        """(header) => {
        const table = document.querySelector("table.sortable");
        const column = Array.from(table.tHead.rows[0].cells)
            .findIndex((th) => th.innerText.trim().startsWith(header));
        return Array.from(table.tBodies[0].rows)
            .map((row) => row.cells[column].getAttribute("data-sort"));
    }""",
        header,
    )
    return [float(v) if v else None for v in values]


def test_index_filters_and_sorting(
    browse: Browsing, site_pages: dict[str, str], built_site: Path
) -> None:
    visit = browse.open_kind(site_pages, "index")
    page = visit.page
    everything = visible_rows(visit)
    # The filters search every run: their values come with the search index, fetched on first use.
    assert not visit.requested("/data/index.json")
    engine = page.locator("#filters select[name=engine]")
    engine.focus()
    page.wait_for_function(
        "() => document.querySelectorAll('#filters select[name=engine] option').length > 1"
    )
    assert visit.requested("/data/index.json")
    choice = engine.locator("option").nth(1).get_attribute("value")
    assert choice
    engine.select_option(choice)
    page.wait_for_function(
        "() => document.getElementById('shown-count').innerText.includes('shown')"
    )
    filtered = visible_rows(visit)
    assert 0 < len(filtered) < len(everything)
    assert parse_qs(urlsplit(page.url).query) == {"engine": [choice]}
    assert (
        page.locator("#shown-count").inner_text() == f"{len(filtered)} of {len(everything)} shown"
    )
    # The rows built from the search index (links relative to the site root) link files of the site.
    hrefs = visit.js(
        "() => Array.from(document.querySelectorAll('table.sortable tbody a')).map((a) => a.href)"
    )
    assert len(hrefs) >= 3 * len(filtered)  # the run, its model's runs, its accelerator
    for href in hrefs:
        assert (
            urlsplit(href).path.endswith("/index.html")
            and (built_site / urlsplit(href).path.lstrip("/")).is_file()
        ), href

    # The address alone reproduces the view: a shared link shows the same rows.
    shared = browse.open("/?" + urlsplit(page.url).query)
    shared.page.wait_for_function(
        "() => document.getElementById('shown-count').innerText.includes('shown')"
    )
    assert visible_rows(shared) == filtered
    assert shared.page.locator("#filters select[name=engine]").input_value() == choice

    page.locator("#filters button[type=reset]").click()
    page.wait_for_function("() => location.search === ''")
    assert visible_rows(visit) == everything

    header = "Peak decode"
    page.locator("table.sortable thead th", has_text=header).locator("button.sort").click()
    ascending = column_values(visit, header)
    measured = [v for v in ascending if v is not None]
    assert measured == sorted(measured) and ascending[len(measured) :] == [None] * (
        len(ascending) - len(measured)
    )
    assert (
        page.locator("table.sortable thead th", has_text=header).get_attribute("aria-sort")
        == "ascending"
    )
    page.locator("table.sortable thead th", has_text=header).locator("button.sort").click()
    descending = [v for v in column_values(visit, header) if v is not None]
    assert descending == sorted(measured, reverse=True)
    visit.assert_clean()
    shared.assert_clean()


@pytest.mark.parametrize("kind", PAGE_KINDS)
def test_phone_never_scrolls_sideways(
    browse: Browsing, site_pages: dict[str, str], kind: str
) -> None:
    visit = browse.open_kind(site_pages, kind, width=PHONE)
    scroll_width, inner_width = visit.js(
        "() => [document.scrollingElement.scrollWidth, window.innerWidth]"
    )
    if scroll_width > inner_width:
        culprits = visit.js(
            """(width) => Array.from(document.querySelectorAll("body *"))
            .filter((el) => el.getBoundingClientRect().right > width + 0.5
                && !el.closest(".scroll"))
            .slice(0, 5).map((el) => el.tagName.toLowerCase()
                + (el.className ? "." + el.className : "")
                 + " right edge at " + Math.round(el.getBoundingClientRect().right))""",
            inner_width,
        )
        pytest.fail(
            f"{site_pages[kind]} is {scroll_width}px wide on a {inner_width}px phone: {culprits}"
        )
    charts = visit.js(CHARTS_JS)
    assert not chart_problems(charts), "\n".join(chart_problems(charts))
    visit.assert_clean()


# A shipped run whose engine settings have long names (gpu_memory_utilization,
# enable_prefix_caching): each must stay in its own column, as wide as the label column.
SETTINGS_RUN = "runs/dgxspark-vllm-gemma4-26b-bf16-office-baseline-2026-08-16/index.html"


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_a_long_field_name_stays_beside_its_value(browse: Browsing, width: int) -> None:
    visit = browse.open("/" + SETTINGS_RUN, width=width)
    # A name's text must end within its own box: past it, it runs into its value (side by
    # side) or into the next field (the phone's two columns).
    overlaps = visit.js("""() => Array.from(document.querySelectorAll(".fields dt")).filter(
        (dt) => {
          const range = document.createRange();
          range.selectNodeContents(dt);
          return range.getBoundingClientRect().right > dt.getBoundingClientRect().right + 0.5;
        }).map((dt) => dt.textContent)""")
    names = visit.js("""() => Array.from(document.querySelectorAll(".fields dt"),
        (dt) => dt.textContent)""")
    assert "gpu_memory_utilization" in names
    assert overlaps == [], f"field names drawn over their values at {width}px: {overlaps}"
    visit.assert_clean()


@pytest.mark.parametrize(
    ("kind", "matrix"),
    [("run", "table.matrix"), ("compare-app", "#compare-result table.rt")],
)
def test_wide_matrix_scrolls_inside_with_its_context_column_in_view(
    browse: Browsing, site_pages: dict[str, str], kind: str, matrix: str
) -> None:
    visit = browse.open_kind(site_pages, kind, width=PHONE)
    container = visit.page.locator(matrix).first.locator(
        "xpath=ancestor::div[contains(@class, 'scroll')][1]"
    )
    geometry = container.evaluate("""(box) => {
        const before = box.getBoundingClientRect();
        box.scrollLeft = box.scrollWidth;
        const header = box.querySelector("tbody th");
        return {overflow: box.scrollWidth - box.clientWidth, scrolled: box.scrollLeft,
                inner: before.left + box.clientLeft, right: before.right,
                header: header.getBoundingClientRect().left, text: header.innerText};
    }""")
    assert geometry["overflow"] > 0, (
        "at 390 px the matrix is wider than the phone, so this test means something"
    )
    assert geometry["scrolled"] > 0 and geometry["right"] <= PHONE
    assert abs(geometry["header"] - geometry["inner"]) <= 1, (
        f"the context column ({geometry['text']!r}) scrolled away: its left edge is at "
        f"{geometry['header']}px, "
        f"the container's at {geometry['inner']}px"
    )
    visit.assert_clean()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("kind", ["index", "run", "compare-app", "404"])
def test_colour_scheme_styles_page_and_charts(
    browse: Browsing, site_pages: dict[str, str], kind: str, scheme: str
) -> None:
    visit = browse.open_kind(site_pages, kind, scheme=scheme)
    background, text = visit.js("""() => [getComputedStyle(document.body).backgroundColor,
                                          getComputedStyle(document.body).color]""")
    if scheme == "dark":
        assert luminance(background) < 0.03 and luminance(text) > 0.6, (background, text)
    else:
        assert luminance(background) > 0.85 and luminance(text) < 0.05, (background, text)
    charts = visit.js(CHARTS_JS)
    assert not chart_problems(charts), "\n".join(chart_problems(charts))
    for chart in charts:
        assert chart_scheme(visit, chart["src"]) == scheme, f"{chart['src']} on a {scheme} page"
    visit.assert_clean()


# The axis labels' colours of the light and the dark theme (sitegen/site/draw/chart_specs.py
# THEMES "muted"), as sRGB triples: the same SVG file must be drawn with one or the other.
LIGHT_LABELS, DARK_LABELS = (0x5B, 0x64, 0x72), (0xA3, 0xAB, 0xB8)


def pdf_colours(pdf: bytes) -> list[tuple[float, float, float]]:
    """Every fill and stroke colour set in a PDF's (deflated) content streams, as 0–255 triples."""
    import zlib

    colours = []
    for stream in re.finditer(rb"stream\r?\n(.*?)endstream", pdf, re.S):
        try:
            text = zlib.decompress(stream.group(1))
        except zlib.error:
            continue
        for r, g, b in re.findall(rb"([\d.]+) ([\d.]+) ([\d.]+) (?:rg|RG)\b", text):
            colours.append((float(r) * 255, float(g) * 255, float(b) * 255))
    return colours


def near(colour: tuple[float, float, float], target: tuple[int, int, int]) -> bool:
    return all(abs(a - b) < 3 for a, b in zip(colour, target, strict=True))


def chart_scheme(visit: Visit, src: str) -> str:
    """Which theme's label colour the chart is drawn in, as the page shows it."""
    ink = visit.js(CHART_INK_JS, [src, LIGHT_LABELS, DARK_LABELS])
    assert (ink["light"] > 50) != (ink["dark"] > 50), (
        f"{src}: labels in both or neither theme's colour {ink}"
    )
    return "light" if ink["light"] > 50 else "dark"


@pytest.mark.parametrize("kind", ["run", "compare-app", "index"])
def test_print_gives_clean_paper(
    browse: Browsing, site_pages: dict[str, str], kind: str, tmp_path: Path
) -> None:
    # Dark mode on screen is the hard case: paper must still be white, with the light charts.
    visit = browse.open_kind(site_pages, kind, scheme="dark", width=760)
    page = visit.page
    page.emulate_media(media="print")
    page.wait_for_function(
        "() => Array.from(document.images).every((img) => img.complete && img.naturalWidth > 0)"
    )
    looks = visit.js("""() => ({
        nav: getComputedStyle(document.querySelector(".site-header nav")).display,
        background: getComputedStyle(document.body).backgroundColor,
        clipped: Array.from(document.querySelectorAll(".scroll"))
            .filter((box) => box.scrollWidth > box.clientWidth + 1)
            .map((box) => (box.querySelector("caption, table") || box).className
                + " " + box.scrollWidth + ">" + box.clientWidth),
        // Sort buttons are the column names; on paper they must only lose their arrows.
        buttons: Array.from(document.querySelectorAll("main button:not(.sort)"))
            .filter((b) => b.checkVisibility()).length,
        arrows: Array.from(document.querySelectorAll("th .sort"))
            .filter((b) => getComputedStyle(b, "::after").content !== "none").length,
    })""")
    assert looks["nav"] == "none"
    assert rgb(looks["background"]) == (255, 255, 255)
    assert looks["clipped"] == [], "tables cut off on paper"
    assert looks["buttons"] == looks["arrows"] == 0, "buttons mean nothing on paper"
    charts = visit.js(CHARTS_JS)
    assert not chart_problems(charts), "\n".join(chart_problems(charts))
    if charts:  # drawn on paper in the light theme's colours, never the dark one's
        colours = pdf_colours(page.pdf(format="A4", print_background=True))
        assert any(near(colour, LIGHT_LABELS) for colour in colours), (
            "no chart labels in the light theme on paper"
        )
        assert not any(near(colour, DARK_LABELS) for colour in colours), (
            "dark-theme chart labels on paper"
        )
    if kind == "run":
        pdf = page.pdf(format="A4", print_background=True)
        (tmp_path / "run.pdf").write_bytes(pdf)
        assert pdf.startswith(b"%PDF") and len(pdf) > 20_000
    visit.assert_clean()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("kind", ["run", "index", "compare-app"])
def test_screenshots(
    browse: Browsing, site_pages: dict[str, str], kind: str, width: int, scheme: str
) -> None:
    """Full pages for review; the README's two pictures are the top of two of them."""
    visit = browse.open_kind(site_pages, kind, width=width, scheme=scheme)
    page = visit.page
    page.evaluate("() => document.fonts.ready")
    name = f"{kind}-{'desktop' if width == DESKTOP else 'phone'}-{scheme}"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"{name}.png", full_page=True)
    # The README's two pictures (copied by hand to docs/screenshots/ when the pages change):
    # the top of the page on a desktop; on a phone, what phones make hard, a chart and a wide
    # matrix.
    if name == "run-desktop-light":
        page.screenshot(
            path=SCREENSHOTS / "readme" / "run-desktop.png",
            full_page=True,
            clip={"x": 0, "y": 0, "width": width, "height": 2000},
        )
    elif name == "run-phone-dark":
        box = page.locator("#prefill").bounding_box()
        assert box
        page.screenshot(
            path=SCREENSHOTS / "readme" / "run-phone-dark.png",
            full_page=True,
            clip={"x": 0, "y": box["y"] - 16, "width": width, "height": 1300},
        )
    visit.assert_clean()


def test_the_launch_commands_copy_button_is_made_by_the_script_and_copies_it(
    browse: Browsing, site_pages: dict[str, str]
) -> None:
    # Without JavaScript there is nothing to press, so the page carries no button at all.
    assert (
        browse.open(site_pages["run"], javascript=False).page.locator("#launch-h + button").count()
        == 0
    )
    context = browse.context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=browse.origin)
    page = browse.open(site_pages["run"], context=context).page
    button = page.locator(".section-head > #launch-h + button.copy")
    assert button.inner_text() == "Copy"
    button.click()
    page.wait_for_function("() => document.querySelector('button.copy').textContent === 'Copied'")
    assert (
        page.evaluate("() => navigator.clipboard.readText()")
        == page.locator("#launch-command").text_content()
    )


def test_tails_figures_line_up_on_the_right_of_their_columns(
    browse: Browsing, site_pages: dict[str, str]
) -> None:
    # The tails table's cells carry no class (the style sheet aligns its columns): each figure's
    # text ends at its cell's right edge, the context's starts at its left, as with a class each.
    visit = browse.open_kind(site_pages, "run")
    # The rows are made from the run JSON once the detail is open (site.js).
    visit.page.locator("details.tails > summary").click()
    visit.page.locator("table.tails tbody tr").first.wait_for()
    edges = visit.js("""() => {
        return Array.from(document.querySelector("table.tails tbody tr").cells).map((cell) => {
            const range = document.createRange();
            range.selectNodeContents(cell);
            const text = range.getBoundingClientRect(), box = cell.getBoundingClientRect();
            const style = getComputedStyle(cell);
            return [cell.innerText, text.left - box.left - parseFloat(style.paddingLeft),
                    box.right - parseFloat(style.paddingRight) - text.right];
        });
    }""")
    assert len(edges) == 11, edges  # context, requests at once, three statistics of three figures
    context, *figures = edges
    assert abs(context[1]) <= 1, context
    assert all(abs(right) <= 1 for _, _, right in figures), figures
    visit.assert_clean()
