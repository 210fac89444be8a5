"""The inline plots in chromium: each run's markers are drawn at its points (on a line and on a
path of movetos alone), in its colour on either theme; and the reader's comparison view
(compare.js) draws the same plot markup as the static page of the same two runs."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from sitegen.site.draw.chart_specs import PALETTE
from tests.kit.browser import Browsing
from tests.kit.compare_rule import PAIR
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
    context = browse.context(javascript=False, scheme=scheme)
    visit = browse.open(f"/compare/{PAIR[0]}--{PAIR[1]}/", javascript=False, context=context)
    page = visit.page
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
        runs: Array.from(svg.querySelectorAll(":scope > path")).map((p) =>
          [p.getAttribute("class"), p.getAttribute("d"), p.querySelector("title").textContent]),
        legend: legend.outerHTML,
        note: (f.querySelector(".plot-note") || {}).textContent || null,
      };
    })""",
        root,
    )


def test_the_readers_view_draws_the_static_plot_markup(browse: Browsing) -> None:
    static = browse.open(f"/compare/{PAIR[0]}--{PAIR[1]}/", javascript=False)
    want = _plot_markup(static, "main")
    static.assert_clean()
    # The browser draws the four labels above 0 at their grid lines (131.5 … 10, plots.GRID),
    # each 4 units lower so that the line passes through its middle.
    assert {tuple(height for height, _ in p["y"]) for p in want} == {(135.5, 95, 54.5, 14)}
    # The frame's text, placed by the stylesheet (its children's order): the x title centred
    # under the plot, the y title rotated a quarter turn left of it, the 0 at the lowest line.
    placed = static.js("""() => Array.from(document.querySelectorAll(".sprite .frame")).map((g) =>
      Array.from(g.querySelectorAll(":scope > text")).map((t) => {
        const m = g.ownerSVGElement.getScreenCTM().inverse().multiply(t.getScreenCTM());
        return [m.a, m.b, m.e, m.f].map((v) => Math.round(v * 10) / 10);
      }))""")
    assert placed and all(
        p == [[1, 0, 199, 206], [0, -1, 12, 91], [1, 0, 46, 176]] for p in placed
    ), placed
    client = browse.open(f"/compare/?runs={PAIR[0]},{PAIR[1]}")
    client.page.locator("#compare-result figure.plot").last.wait_for()
    got = _plot_markup(client, "#compare-result")
    assert len(got) == len(want) >= 5
    for mine, theirs in zip(got, want, strict=True):
        assert mine == theirs, mine["caption"]
    client.assert_clean()
