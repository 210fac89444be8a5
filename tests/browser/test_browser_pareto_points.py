"""Issue 41 item 4, in real chromium: with JavaScript, each point of a model page's frontier
chart names its own run, requests and figures on hover (pareto.js). What each point should say
is read here from the chart's own figures table and checked against where the point is drawn:
the path data is parsed here, and a point further right must have a higher per-request speed,
a point higher up a higher throughput per accelerator."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import FloatRect, Locator

from tests.kit.browser import PHONE, Browsing, Visit
from tests.kit.svg_paths import vertices

pytestmark = pytest.mark.browser

QWEN = "/models/qwen3-5-397b-a17b/index.html"
DEEPSEEK = "deepseek-v4-flash-dspark"
TIP = re.compile(
    r"^(?P<run>.+): (?P<requests>\d+) requests? at once → (?P<speed>[\d,.]+) tok/s per request"
    r"(?: \([^)]*\))?, (?P<per_accelerator>[\d,.]+) tok/s per accelerator \(derived\)"
    r"(?P<off>; off its frontier)?$"
)


def number(text: str) -> float:
    """A figure as the page writes it ("1,507.1") as a number."""
    return float(text.replace(",", ""))


def _opened(browse: Browsing, **options: Any) -> tuple[Visit, Locator, FloatRect]:
    """The model page once group.js has drawn its decode charts at the other contexts (they go
    in above the frontier charts, so a point's place on the screen is known only after), with
    its default frontier chart in view and that chart's drawing's box."""
    visit = browse.open(QWEN, **options)
    visit.page.wait_for_function("() => !document.getElementById('decode-more')")
    chart = visit.page.locator(".pareto-default")
    svg = chart.locator("figure.plot svg")
    svg.scroll_into_view_if_needed()
    box = svg.bounding_box()
    assert box is not None
    return visit, chart, box


def test_each_frontier_point_names_its_own_figures_on_hover(browse: Browsing) -> None:
    visit, chart, box = _opened(browse)
    page = visit.page
    rows = visit.js(
        """() => Array.from(document.querySelectorAll(
            ".pareto-default table.frontier-figures tbody tr"))
            .map((tr) => Array.from(tr.cells).map((td) => [td.tagName, td.textContent]))"""
    )
    # A run's name heads its first row (a header cell spanning its rows), as a reader sees it.
    table = set()
    run = ""
    for cells in rows:
        if cells[0][0] == "TH":
            run = cells.pop(0)[1]
        table.add((run, cells[0][1], cells[1][1], cells[2][1]))
    seen: dict[tuple[str, str, str, str], tuple[float, float]] = {}
    paths = chart.locator("figure.plot svg path[class]")
    assert paths.count() >= 2
    for n in range(paths.count()):
        for x, y in vertices(paths.nth(n).get_attribute("d") or ""):
            page.mouse.move(box["x"] + x / 360 * box["width"], box["y"] + y / 210 * box["height"])
            tip = chart.locator(".plot-tip")
            tip.wait_for(state="visible")
            said = TIP.match(tip.inner_text())
            assert said, tip.inner_text()
            key = (said["run"], said["requests"], said["speed"], said["per_accelerator"])
            assert key in table, key
            seen[key] = (x, y)
            page.mouse.move(box["x"] + 2, box["y"] + 2)  # off every point: the tip goes
            tip.wait_for(state="hidden")
    assert set(seen) == table  # every row is a point, and every point a row
    for a, (ax, ay) in seen.items():
        for b, (bx, by) in seen.items():
            if number(a[2]) < number(b[2]):
                assert ax <= bx, (a, b)
            if number(a[3]) < number(b[3]):
                assert ay >= by, (a, b)  # SVG y grows downwards
    visit.assert_clean()


def test_a_points_figures_stay_inside_a_phones_width(browse: Browsing) -> None:
    """At 390 px, the point furthest right shows its figures without the page scrolling
    sideways: the tip stays inside its figure."""
    visit, chart, box = _opened(browse, width=PHONE)
    page = visit.page
    points = [
        point
        for n in range(chart.locator("figure.plot svg path[class]").count())
        for point in vertices(
            chart.locator("figure.plot svg path[class]").nth(n).get_attribute("d") or ""
        )
    ]
    x, y = max(points)
    page.mouse.move(box["x"] + x / 360 * box["width"], box["y"] + y / 210 * box["height"])
    chart.locator(".plot-tip").wait_for(state="visible")
    widths = visit.js(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert widths[0] <= widths[1], widths
    tip = chart.locator(".plot-tip").bounding_box()
    assert tip is not None and tip["x"] + tip["width"] <= PHONE


def _lines_and_tables(visit: Visit) -> list[dict[str, Any]]:
    """Each frontier chart's lines' titles and its figures table's rows, as the page has them."""
    return list(
        visit.js(
            """() => Array.from(document.querySelectorAll("section.pareto .pareto-at")).map(
            (chart) => ({
              caption: (chart.querySelector("figcaption") || {}).textContent || null,
              titles: Array.from(chart.querySelectorAll("svg path[class] title"))
                .map((t) => t.textContent),
              rows: Array.from(chart.querySelectorAll("table.frontier-figures tbody tr"))
                .map((tr) => Array.from(tr.cells).map((td) => [td.tagName, td.textContent])),
            }))"""
        )
    )


def _rows_by_run(rows: list[list[list[str]]]) -> dict[str, list[list[str]]]:
    """A figures table's rows under the run whose name heads them: [requests, speed, per
    accelerator, on the frontier]."""
    runs: dict[str, list[list[str]]] = {}
    run = ""
    for cells in rows:
        if cells[0][0] == "TH":
            run = cells.pop(0)[1]
        runs.setdefault(run, []).append([text for _, text in cells])
    return runs


def test_a_lines_title_counts_its_frontier_and_script_names_its_points(browse: Browsing) -> None:
    """The page says each figure once, in the table: a line's own title counts its frontier's
    points (what a reader without JavaScript hovers), and pareto.js writes them into it from
    the table, each point in words, fewest requests' speed first."""
    # Without JavaScript the charts the page leaves to the browser are not there (no caption);
    # with it, pareto.js has drawn them too, and every chart's titles are written the same way.
    static = [
        chart
        for chart in _lines_and_tables(browse.open(QWEN, javascript=False))
        if chart["caption"]
    ]
    visit = browse.open(QWEN)
    visit.page.wait_for_function("() => !document.querySelector('.frontier-wait')")
    scripted = _lines_and_tables(visit)
    assert static and len(static) < len(scripted)
    plain_of = {chart["caption"]: chart for chart in static}
    for full in scripted:
        # "… at 8K context", or "… at context 0 (…)" for runs without an earlier context.
        context = re.search(r" at (?:(\S+) context$|context (0) \()", full["caption"])
        assert context, full["caption"]
        where = context[1] or context[2]
        plain = plain_of.get(full["caption"])
        assert plain is None or plain["rows"] == full["rows"]
        runs = _rows_by_run(full["rows"])
        assert len(runs) == len(full["titles"]) and (
            plain is None or len(plain["titles"]) == len(runs)
        )
        for n, written in enumerate(full["titles"]):
            run = next(name for name in runs if written.startswith(name + ", frontier: "))
            rows = runs[run]
            on = [r for r in rows if r[3] == "yes"]
            cells = f"{len(rows)} cell{'s' if len(rows) != 1 else ''}"
            if plain is not None:
                assert plain["titles"][n] == f"{run}, frontier: {len(on)} of {cells}"
            on.sort(key=lambda r: (number(r[1]), number(r[2])))
            words = "; ".join(f"{where} × {r[0]} → {r[1]} per request, {r[2]}" for r in on)
            assert written == f"{run}, frontier: {words} ({cells} in all: see the run's page)"


# Each frontier chart of a model page as its structure: its context's anchor, caption, the frame
# it uses (ids left out: they only have to be unique on their page), y labels, each run's class,
# path data and title, its legend and note, and its figures table's head and rows.
_FRONTIERS = """() => Array.from(document.querySelectorAll("section.pareto .pareto-at"))
  .map((at) => {
  const figure = at.querySelector("figure.plot"), svg = figure.querySelector("svg");
  const frame = document.querySelector(svg.querySelector("use").getAttribute("href"));
  const table = at.querySelector("table.frontier-figures");
  const legend = figure.querySelector(".chart-legend");
  return {
    at: at.id,
    caption: figure.querySelector("figcaption").textContent,
    frame: frame.innerHTML.replace(/ id="[^"]*"/g, ""),
    y: Array.from(svg.querySelectorAll(".yl text")).map((t) => t.textContent),
    runs: Array.from(svg.querySelectorAll(":scope > path")).map((p) =>
      [p.getAttribute("class"), p.getAttribute("d"), p.querySelector("title").textContent]),
    legend: legend ? legend.outerHTML : null,
    note: (figure.querySelector(".plot-note") || {}).textContent || null,
    head: table.tHead.innerText,
    rows: Array.from(table.tBodies[0].rows).map((tr) =>
      Array.from(tr.cells).map((td) => [td.tagName, td.rowSpan, td.textContent])),
  };
})"""


def test_the_script_draws_each_frontier_left_to_it_as_the_build_would(
    browse: Browsing, small_project: Path, built_site: Path
) -> None:
    """pareto.js draws the frontier charts and figures tables a model page leaves to it with the
    markup and figures the build would have written: the DeepSeek run's model page (a frontier
    at seven contexts, six left to the browser), built once more with every chart drawn in the
    page (pages/group.py _browser_draws off, in a process of its own) and opened from disk,
    against the served page once the script has drawn."""
    code = (
        "import sys\n"
        "import sitegen.site.pages.group as group\n"
        "group._browser_draws = lambda runs, context: False\n"
        "from sitegen.cli import main\n"
        "config = sys.argv[1]\n"
        "sys.exit(main(['--config', config, 'collect']) or main(['--config', config, 'build']))\n"
    )
    subprocess.run(
        [sys.executable, "-c", code, str(small_project / "sitegen.yaml")],
        check=True,
        capture_output=True,
        timeout=300,
    )
    page = f"models/{DEEPSEEK}/index.html"
    built = (small_project / "_site" / page).read_text(encoding="utf-8")
    assert "frontier-wait" not in built and built.count('class="pareto-at') == 7
    served = (built_site / page).read_text(encoding="utf-8")
    assert served.count("frontier-wait") == 6  # what the script draws
    reference = browse.context().new_page()
    reference.goto((small_project / "_site" / page).as_uri(), wait_until="load")
    want = reference.evaluate(_FRONTIERS)
    visit = browse.open(f"/{page}")
    visit.page.wait_for_function("() => !document.querySelector('.frontier-wait')")
    got = visit.js(_FRONTIERS)
    visit.assert_clean()
    assert len(got) == len(want) == 7
    for mine, theirs in zip(got, want, strict=True):
        assert mine == theirs, mine["at"]
