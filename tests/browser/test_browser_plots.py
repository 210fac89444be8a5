"""The inline plots of the reader's comparison view (compare.js) in chromium: each figure at the
pixel its value gives on the plot's own axes and in its run's title (read from the result files),
the labels where the stylesheet puts them, and each run's markers drawn at its points (on a line
and on a path of movetos alone) in its colour on either theme."""

from __future__ import annotations

import base64
import math
from typing import Any

import pytest

from sitegen.site.draw.chart_specs import PALETTE
from tests.kit.browser import Browsing
from tests.kit.compare_rule import PAIR, model_colour_places, shipped_run, throughput
from tests.kit.plot_axes import BOTTOM_EDGE, TOP, axis, y_label_heights
from tests.kit.project import REPO
from tests.kit.svg_paths import vertices

pytestmark = pytest.mark.browser

# The screen position of each vertex of each run's path in every plot, from the SVG's own
# transform (the test's vertices() reads the path data independently).
POSITIONS = """() => Array.from(document.querySelectorAll("figure.plot > svg")).map((svg) => {
  const m = svg.getScreenCTM();
  return Array.from(svg.querySelectorAll(":scope > path")).map((p) => ({
    d: p.getAttribute("d"), cls: p.getAttribute("class"), a: m.a, d2: m.d, e: m.e, f: m.f }));
})"""

# Pixel colours of a PNG, decoded by the browser itself (no imaging library needed), in a blank
# page.
PIXELS = """async ([png, points]) => {
  const img = new Image();
  img.src = "data:image/png;base64," + png;
  await img.decode();
  const canvas = document.createElement("canvas");
  canvas.width = img.width; canvas.height = img.height;
  const ctx = canvas.getContext("2d");
  ctx.drawImage(img, 0, 0);
  return points.map(([x, y]) => Array.from(ctx.getImageData(x, y, 1, 1).data.slice(0, 3)));
}"""


def _rgb(colour: str) -> list[int]:
    return [int(colour[i : i + 2], 16) for i in (1, 3, 5)]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_markers_are_drawn_at_every_point_in_the_runs_colour(browse: Browsing, scheme: str) -> None:
    context = browse.context(scheme=scheme)
    visit = browse.open(f"/compare/?runs={PAIR[0]},{PAIR[1]}", context=context)
    page = visit.page
    page.locator("#compare-result figure.plot").last.wait_for()
    page.set_viewport_size({"width": 1280, "height": 900})
    plots = page.locator("figure.plot > svg")
    sampled = 0
    for i in (
        0,
        plots.count() - 1,
    ):  # a decode plot (lines) and the frontier (movetos off the line)
        plots.nth(i).scroll_into_view_if_needed()
        paths = visit.js(POSITIONS)[i]
        png = base64.b64encode(page.screenshot()).decode()
        points = []
        for path in paths:
            place = int(path["cls"][1:])
            for x, y in vertices(path["d"]):
                sx, sy = path["a"] * x + path["e"], path["d2"] * y + path["f"]
                if 0 <= sx < 1280 and 0 <= sy < 900:
                    points.append((place, round(sx), round(sy)))
        # Only points no other run's point is near: what shows there is this run's marker.
        alone = [
            (place, x, y)
            for place, x, y in points
            if all(abs(x - ox) + abs(y - oy) > 8 for op, ox, oy in points if op != place)
        ]
        assert alone
        blank = page.context.new_page()  # about:blank: no site CSP to refuse the data: image
        colours = blank.evaluate(PIXELS, [png, [[x, y] for _, x, y in alone]])
        blank.close()
        for (place, x, y), rgb in zip(alone, colours, strict=True):
            want = _rgb(PALETTE[place])
            assert max(abs(a - b) for a, b in zip(rgb, want, strict=True)) <= 40, (
                i,
                place,
                x,
                y,
                rgb,
                want,
            )
            sampled += 1
    assert sampled >= 20
    visit.assert_clean()


def _plot_markup(visit: Any, root: str) -> list[Any]:
    """Every plot under ``root`` as its structure: caption, the text of the frame it uses (grid,
    titles, x ticks, the y axis's 0), y tick labels with the height the browser draws each at
    (in the viewBox's units, the stylesheet's transforms included), each run's class, path
    data and title, and its legend (its own or the grid's); ids left out, since they only have
    to be unique on their page."""
    return visit.js(
        """(root) => Array.from(document.querySelectorAll(root + " figure.plot")).map((f) => {
      const svg = f.querySelector(":scope > svg");
      const height = (t) => Math.round(svg.getScreenCTM().inverse()
          .multiply(t.getScreenCTM()).f * 10) / 10;
      const used = Array.from(svg.querySelectorAll(":scope > use")).map((u) => {
        const def = document.querySelector(u.getAttribute("href"));
        return [def.getAttribute("class"), def.innerHTML.replace(/ id="[^"]*"/g, "")];
      });
      const legend = f.querySelector(".chart-legend") || f.parentElement.previousElementSibling;
      return {
        caption: f.querySelector("figcaption").textContent,
        svg: [svg.getAttribute("viewBox"),
            svg.getAttribute("role"), svg.getAttribute("aria-labelledby").split(" ").length],
        used: used,
        y: Array.from(svg.querySelectorAll(".yl text")).map((t) => [height(t), t.textContent]),
        x: used.length !== 1 ? [] : Array.from(document.querySelector(
            svg.querySelector(":scope > use").getAttribute("href")).querySelectorAll(".xl text"))
          .map((t) => [Number(t.getAttribute("x")), t.textContent]),
        runs: Array.from(svg.querySelectorAll(":scope > path")).map((p) =>
          [p.getAttribute("class"), p.getAttribute("d"), p.querySelector("title").textContent]),
        legend: legend.outerHTML,
        note: (f.querySelector(".plot-note") || {}).textContent || null,
      };
    })""",
        root,
    )


def test_every_figure_of_a_comparison_is_at_its_pixel_and_in_its_runs_title(
    browse: Browsing,
) -> None:
    visit = browse.open(f"/compare/?runs={PAIR[0]},{PAIR[1]}")
    visit.page.locator("#compare-result figure.plot").last.wait_for()
    plots = _plot_markup(visit, "#compare-result")
    visit.assert_clean()
    # The browser draws the four labels above 0 at their grid lines (131.5 … 10, plots.GRID),
    # each 4 units lower so that the line passes through its middle.
    assert {tuple(height for height, _ in p["y"]) for p in plots} == {(135.5, 95, 54.5, 14)}
    heights = y_label_heights()
    runs = [shipped_run(run_id) for run_id in PAIR]
    places = model_colour_places(REPO / "content")
    checked = 0
    for p in plots:
        if not p["caption"].endswith(" context"):
            continue  # the frontier: its points are cells of every context
        caption = p["caption"].removesuffix(" context")
        context = int(caption.rstrip("K")) * (1024 if caption.endswith("K") else 1)
        assert len(p["used"]) == 1  # the frame holds the grid, the titles and the x ticks
        x_ticks = axis(p["x"])
        y_ticks = axis(list(zip(heights, ["0", *[label for _, label in p["y"]]], strict=True)))
        (x0, n0), (x1, n1) = x_ticks[0], x_ticks[-1]
        (y0, v0), (y1, v1) = y_ticks[0], y_ticks[-1]
        assert (y0, v0) == (BOTTOM_EDGE, 0) and y1 == TOP
        # Each run in its colour on its model's page (docs/comparisons.md), read from the files.
        assert [int(cls[1:]) for cls, _, _ in p["runs"]] == [places[run_id] for run_id in PAIR]
        for (letter, run), (_, d, title) in zip(
            zip("AB", runs, strict=True), p["runs"], strict=True
        ):
            drawn = vertices(d)
            assert title.startswith(f"{letter}: ")
            cells = [
                c
                for c in run["measurements"]["decode"]
                if c["context_tokens"] == context
                and c["status"] in ("valid", "requests_queued")
                and c.get("total_tokens_per_s") is not None
            ]
            assert len(drawn) == len(cells) > 0
            for cell in cells:
                n, value = cell["concurrency"], cell["total_tokens_per_s"]
                x = x0 + math.log2(n / n0) / math.log2(n1 / n0) * (x1 - x0)
                y = y0 - value / v1 * (y0 - y1)
                # Points sit at the viewBox's whole unit: within half a unit each way.
                assert min(math.dist((x, y), q) for q in drawn) <= 0.71, (caption, letter, n)
                status = "" if cell["status"] == "valid" else " (requests queued)"
                assert f"{n} → {throughput(value)}{status}" in title, (caption, letter, n)
                checked += 1
    assert checked >= 60
    # The frame's text, placed by the stylesheet (its children's order): the x title centred
    # under the plot, the y title rotated a quarter turn left of it, the 0 at the lowest line.
    placed = visit.js("""() => Array.from(document.querySelectorAll(".sprite .frame")).map((g) =>
      Array.from(g.querySelectorAll(":scope > text")).map((t) => {
        const m = g.ownerSVGElement.getScreenCTM().inverse().multiply(t.getScreenCTM());
        return [m.a, m.b, m.e, m.f].map((v) => Math.round(v * 10) / 10);
      }))""")
    assert placed and all(
        p == [[1, 0, 199, 206], [0, -1, 12, 91], [1, 0, 46, 176]] for p in placed
    ), placed
