"""The inline plots (sitegen/site/draw/plots.py, templates/_macros.html, compare.js): each point at
the pixel its value gives on the plot's own axes, each figure in its run's title, the page's
markers and frames defined once, and the stylesheet's keys in each run's colour. Positions are
worked out here from the axis labels and the result files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sitegen.site.draw.chart_specs import PALETTE
from tests.kit.html_tables import quoted
from tests.kit.plot_axes import BOTTOM_EDGE, LEFT, y_label_heights
from tests.kit.project import REPO
from tests.kit.svg_paths import vertices


def flat(points: list[tuple[float, float]]) -> list[float]:
    return [v for point in points for v in point]


def test_a_plot_puts_each_point_where_its_axes_say() -> None:
    from sitegen.site.draw.plots import PlotSeries, plot

    series = [
        PlotSeries("A", 0, ((1, 100.0, "1 → 100"), (2, 150.0, "2 → 150"), (4, 300.0, "4 → 300"))),
        PlotSeries("B", 1, ((1, 50.0, "1 → 50"), (4, 75.0, "4 → 75")), run_id="b"),
        PlotSeries("C", 2, ()),
    ]
    p = plot("0 context", series, x_log=True, x_title="requests", y_title="tok/s")
    assert p is not None
    # 300 over four steps is 75 a step: the next step of 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10ⁿ is 80.
    assert [t.label for t in p.y_ticks] == ["0", "80", "160", "240", "320"]
    assert [t.at for t in p.y_ticks] == [172, 131.5, 91, 50.5, 10]
    assert [(t.label, t.at) for t in p.x_ticks] == [("1", 52), ("2", 199), ("4", 346)]
    # One path a run (C has no points: no path, no legend entry); every point a vertex.
    assert [line.label for line in p.lines] == ["A", "B"] and [k.label for k in p.legend] == [
        "A",
        "B",
    ]
    y = lambda v: BOTTOM_EDGE - v / 320 * 162  # noqa: E731
    assert flat(vertices(p.lines[0].path)) == pytest.approx(
        flat([(52, y(100)), (199, y(150)), (346, y(300))]), abs=0.5
    )
    assert flat(vertices(p.lines[1].path)) == pytest.approx(
        flat([(52, y(50)), (346, y(75))]), abs=0.5
    )
    assert p.lines[0].title == "A: 1 → 100, 2 → 150, 4 → 300"
    assert p.legend_runs == ("", "b")


def test_points_off_the_line_are_movetos_of_the_same_path() -> None:
    from sitegen.site.draw.plots import PlotSeries, plot

    cells = ((10.0, 100.0, "a"), (20.0, 80.0, "b"), (5.0, 40.0, "c"), (15.0, 90.0, "d"))
    p = plot(
        "f",
        [PlotSeries("A", 3, cells, joined=((10.0, 100.0), (20.0, 80.0)), title="A, frontier")],
        x_log=False,
        x_title="x",
        y_title="y",
    )
    assert p is not None
    line = p.lines[0]
    assert line.css_class == "s3" and line.title == "A, frontier"
    # The frontier is drawn (lineto), then each other cell is a moveto: no segment reaches it.
    assert re.fullmatch(r"M[^Mml]*l[^Mm]*m[^Mml]*m[^Mml]*", line.path), line.path
    # x: 20 is the last value, 5 a step: 0 … 20 over the width; y: 100 in four steps of 25.
    x = lambda v: LEFT + v / 20 * 294  # noqa: E731
    y = lambda v: BOTTOM_EDGE - v / 100 * 162  # noqa: E731
    assert flat(vertices(line.path)) == pytest.approx(
        flat([(x(10), y(100)), (x(20), y(80)), (x(5), y(40)), (x(15), y(90))]), abs=0.5
    )


def test_points_off_the_line_go_left_to_right_and_each_pixel_once() -> None:
    from sitegen.site.draw.plots import PlotSeries, plot

    # Off the frontier, in no order: one at the same pixel as a frontier point (20, 80) and two
    # at the same value (a marker drawn twice over itself shows nothing more).
    cells = (
        (10.0, 100.0, "a"),
        (20.0, 80.0, "b"),
        (15.0, 30.0, "c"),
        (20.0, 80.0, "d"),
        (5.0, 40.0, "e"),
        (15.0, 30.0, "f"),
        (5.0, 60.0, "g"),
    )
    p = plot(
        "f",
        [PlotSeries("A", 0, cells, joined=((10.0, 100.0), (20.0, 80.0)))],
        x_log=False,
        x_title="x",
        y_title="y",
    )
    assert p is not None
    x = lambda v: LEFT + v / 20 * 294  # noqa: E731
    y = lambda v: BOTTOM_EDGE - v / 100 * 162  # noqa: E731
    drawn = vertices(p.lines[0].path)
    # The frontier, then (5, 60), (5, 40), (15, 30) by pixel: x rising, then y (downwards) rising.
    assert flat(drawn) == pytest.approx(
        flat([(x(10), y(100)), (x(20), y(80)), (x(5), y(60)), (x(5), y(40)), (x(15), y(30))]),
        abs=0.5,
    )
    assert p.lines[0].title == "A: a, b, c, d, e, f, g"  # every cell's words stay in its title


def test_the_stylesheet_puts_each_y_label_at_its_grid_line() -> None:
    from sitegen.site.draw.plots import GRID

    lines = sorted((float(y) for y in re.findall(r"M52 ([\d.]+)H346", GRID)), reverse=True)
    assert lines == [172, 131.5, 91, 50.5, 10]  # the plot area, 162 high from 10, in four steps
    assert y_label_heights() == lines


def test_markers_and_frames_are_defined_once_and_every_reference_resolves(shipped: Path) -> None:
    pages = [
        p for p in (shipped / "_site").rglob("*.html") if "<figure class=plot>" in p.read_text()
    ]
    assert len(pages) >= 10  # model and accelerator pages
    for page in pages:
        html = quoted(page.read_text())
        assert html.count('<svg class="sprite"') == 1, page
        ids = re.findall(r'\sid="([^"]+)"', html)
        assert len(ids) == len(set(ids)), (page, [i for i in ids if ids.count(i) > 1])
        known = set(ids)
        for ref in re.findall(r'<use href="#([^"]+)"/>', html):
            assert ref in known, (page, ref)
        for names in re.findall(r'aria-labelledby="([^"]+)"', html):
            assert set(names.split()) <= known, (page, names)
        # A marker for each run's place a path draws, and no marker nothing uses.
        places = set(re.findall(r'<path class="s(\d)"', html))
        assert (
            set(re.findall(r'<marker id="pm(\d)" markerUnits="userSpaceOnUse">', html)) == places
        ), page
        frames = re.findall(r'<g id="pf\d+" class="frame">(.*?</g>)</g>', html)
        assert frames and len(frames) == len(set(frames)), page
        # Each plot uses one frame; no plot repeats its titles as an aria-label; no point has a
        # title of its own.
        plots = re.findall(
            r'<figure class="plot"><figcaption '
            r'id="[^"]+">[^<]*</figcaption>(<svg[^>]*>)(.*?)</svg>',
            html,
        )
        assert plots and len(plots) == html.count('<figure class="plot">'), page
        for tag, body in plots:
            assert "aria-label=" not in tag and 'role="img" aria-labelledby="' in tag, (page, tag)
            assert len(re.findall("<use ", body)) == 1 and body.startswith('<use href="#pf'), (
                page,
                body[:80],
            )
        assert html.count("<title id=") == html.count('<path class="s')


def test_the_stylesheet_draws_each_place_in_its_palette_colour_and_marker() -> None:
    css = (REPO / "templates" / "static" / "style.css").read_text()
    for place, colour in enumerate(PALETTE):
        assert re.search(rf"\.s{place}, #pm{place}, \.k{place} {{ --c: {colour};", css), place
        assert f".s{place} {{ marker: url(#pm{place}); }}" in css
    # The markers' shapes are the legend's: plots.js (compare.js, group.js) draws the same symbols
    # as plots.py.
    from sitegen.site.draw.plots import MARKERS

    js = (REPO / "templates" / "static" / "plots.js").read_text()
    for shape, symbol in MARKERS.items():
        assert f'"{shape}": "{symbol}"' in js
