"""Comparison logic: Pareto frontiers, groups and natural pairs, and the links to the reader's
view (its ratios, curves and prefill are checked in the browser: tests/browser/)."""

from __future__ import annotations

import copy
import random
import re
from pathlib import Path
from typing import Any

from sitegen.model import Run, run_from_dict
from sitegen.parse import parse_yaml
from sitegen.site.draw.chart_specs import Series, _frontier, pareto
from sitegen.site.figures.grouping import hardware_groups, model_groups, natural_pairs
from tests.kit.compare_rule import (
    model_colour_places,
    natural_pairs_from_files,
    shipped_run,
)
from tests.kit.html_tables import quoted
from tests.kit.project import REPO

MINIMAL = parse_yaml(
    "minimal.yaml", (REPO / "tests" / "data" / "valid" / "minimal.yaml").read_bytes()
).data


def _run(run_id: str, cells: list[tuple[int, int, str, float | None]], **run_info: Any) -> Run:
    data = copy.deepcopy(MINIMAL)
    data["run"].update(run_info)
    data["measurements"]["decode"] = [
        {
            "context_tokens": ctx,
            "concurrency": conc,
            "status": status,
            **({"total_tokens_per_s": total} if total is not None else {}),
        }
        for ctx, conc, status, total in cells
    ]
    return run_from_dict(run_id, data)


def test_frontier_keeps_only_undominated_points() -> None:
    points = [(10.0, 1000.0), (20.0, 900.0), (15.0, 800.0), (30.0, 300.0), (5.0, 950.0)]
    assert _frontier(points) == {(10.0, 1000.0), (20.0, 900.0), (30.0, 300.0)}


def test_pareto_per_device_divides_by_the_device_count() -> None:
    data = copy.deepcopy(MINIMAL)
    data["hardware"]["count"] = 4
    data["measurements"]["decode"][0]["per_request_tokens_per_s"] = 120.5
    run = run_from_dict("x", data)
    chart = pareto([Series("x", run)], per_device=True)
    assert chart is not None
    assert '"total":30.1}' in chart.rows  # 120.5 / 4, to the tenth a chart draws
    assert dict(chart.fills)["@y-title"] == '"tok/s per device"'


def test_groups_and_pairs_are_linear() -> None:
    runs = [
        _run(f"r{i}", [(0, 1, "valid", 1.0)], model=f"org/Model-{i % 2}", date=f"2026-01-0{i + 1}")
        for i in range(6)
    ]
    assert [g.slug for g in model_groups(runs)] == ["model-0", "model-1"]
    assert [g.slug for g in hardware_groups(runs)] == ["rtx-4090"]
    pairs = natural_pairs(runs)
    assert [(a.id, b.id) for a, b in pairs] == [
        ("r0", "r2"),
        ("r1", "r3"),
        ("r2", "r4"),
        ("r3", "r5"),
    ]


def test_base_model_groups_quantizations_together() -> None:
    runs = [
        _run("a", [], model="x/Qwen-AWQ", base_model="Qwen/Qwen"),
        _run("b", [], model="y/Qwen-FP8", base_model="Qwen/Qwen"),
    ]
    groups = model_groups(runs)
    assert (
        len(groups) == 1
        and groups[0].label == "Qwen/Qwen"
        and {r.id for r in groups[0].runs} == {"a", "b"}
    )


def test_both_runs_of_a_pair_link_to_its_comparison(shipped: Path) -> None:
    """Each run of a natural pair links to the reader's view of the two with itself as the
    baseline, so either page compares the other run against its own; /compare/ offers the
    newer against the older."""
    pairs = natural_pairs_from_files(shipped / "content")
    assert pairs
    listing = (shipped / "_site" / "compare" / "index.html").read_text()
    for older, newer in pairs:
        for run_id, other in ((older, newer), (newer, older)):
            page = (shipped / "_site" / "runs" / run_id / "index.html").read_text()
            assert (
                f'<a href="../../compare/index.html?runs={run_id},{other}">Compare with '
                f"{other}</a>" in page
            ), (run_id, other)
        assert f'href="../compare/index.html?runs={older},{newer}"' in listing, (older, newer)


def _load_keys(point: dict[str, Any]) -> tuple[Any, ...]:
    return (
        point["request_rate"],
        point["arrival"],
        point.get("burstiness"),
        point.get("max_concurrency"),
    )


def _share_a_load_point(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> bool:
    """One load and input lengths within 10 % (docs/comparisons.md), read from the files."""
    return any(
        _load_keys(p) == _load_keys(q)
        and abs(p["input_tokens_per_request"] / q["input_tokens_per_request"] - 1) <= 0.10
        for p in a
        for q in b
    )


def test_runs_with_load_points_only_are_in_no_natural_pair(shipped: Path) -> None:
    """A natural pair's comparison shows decode curves, frontiers and prefill, none of which an
    open-loop run has: the shipped history's runs at their own loads (a burst and an office
    workload on one day) were paired, each pair's page saying there was nothing to compare.
    They are in no pair now; their pages offer the reader's view with runs that measured a load
    point of theirs (which it sets side by side), and no other run's page offers them."""
    points: dict[str, list[dict[str, Any]]] = {}
    for path in sorted((shipped / "content" / "runs").glob("*.yaml")):
        measured = parse_yaml(path.name, path.read_bytes()).data["measurements"]
        if measured.get("load_points") and not (measured.get("decode") or measured.get("prefill")):
            points[path.stem] = measured["load_points"]
    open_loop = set(points)
    assert len(open_loop) >= 8, open_loop  # the DGX Spark Gemma-4-26B history
    paired = {run_id for pair in natural_pairs_from_files(shipped / "content") for run_id in pair}
    assert paired and not paired & open_loop
    listing = (shipped / "_site" / "compare" / "index.html").read_text()
    for listed in re.findall(r"\?runs=([^\"]+)\"", listing):
        assert not set(listed.split(",")) & open_loop, listed
    offered_with_loads = 0
    for page in (shipped / "_site" / "runs").glob("*/index.html"):
        run_id = page.parent.name
        text = page.read_text()
        for listed in re.findall(r'compare/index\.html\?runs=([^"]+)"', text):
            first, *others = listed.split(",")
            assert first == run_id and others
            for other in others:
                if run_id in open_loop:
                    assert other in open_loop and _share_a_load_point(
                        points[run_id], points[other]
                    ), (run_id, other)
                    offered_with_loads += 1
                else:
                    assert other not in open_loop, (run_id, other)
        if run_id in open_loop:
            assert "/setups/" in text  # "this setup over time"
    assert offered_with_loads


def test_natural_pairs_skip_runs_a_comparison_cannot_show() -> None:
    runs = [
        _run(f"r{i}", [(0, 1, "valid", 1.0)], model="org/Model", date=f"2026-01-0{i + 1}")
        for i in range(5)
    ]
    shown = {"r0", "r2", "r4"}
    pairs = natural_pairs(runs, lambda run: run.id in shown)
    assert [(a.id, b.id) for a, b in pairs] == [("r0", "r2"), ("r2", "r4")]


def test_inline_plots_cost_little_beyond_their_figures(shipped: Path) -> None:
    """Issue 18's byte budget, on every model page: a run is one path (its vertices carry its
    marker) and one title; frames and markers are defined once per page; the plot's text
    alternative reads those titles (aria-labelledby) instead of repeating them."""
    checked = 0
    for page in sorted((shipped / "_site" / "models").glob("*/index.html")):
        html = quoted(page.read_text())
        svgs = re.findall(
            r'<figure class="plot"><figcaption[^>]*>[^<]*</figcaption>(<svg.*?</svg>)', html, re.S
        )
        for svg in svgs:
            titles = re.findall(r'<title id="([^"]+)">(.*?)</title>', svg)
            assert len(titles) == svg.count("<path ") >= 1  # one path and one title per run
            assert "aria-label=" not in svg
            names = re.search(r'aria-labelledby="([^"]*)"', svg).group(1).split()  # type: ignore[union-attr]
            assert [title_id for title_id, _ in titles] == names[3:]  # each title read once
            # Everything but the titles: the frame (<use>), the y tick labels and, per point, its
            # coordinates (at most 12 bytes: "L123.4 56.7").
            points = sum(
                len(re.findall(r"-?[\d.]+", d)) // 2
                for d in re.findall(r'<path class="s\d" d="([^"]*)"', svg)
            )
            markup = len(svg) - sum(len(f'<title id="{i}">{t}</title>') for i, t in titles)
            assert markup <= 480 + 12 * points, (page, markup, points)
            checked += 1
        if svgs:
            # Defined once for the page: one sprite, no frame twice.
            assert html.count('<svg class="sprite"') == 1
            frames = re.findall(r'<g id="pf\d+" class="frame">(.*?</g>)</g>', html)
            assert len(frames) == len(set(frames)) >= 1
    assert checked >= 10


def test_a_run_page_links_to_its_pair_partners_then_its_nearest_runs() -> None:
    """A run page's comparison links: its natural pair partners first, then the runs beside it in
    its group's order, so adding the newest run changes the links of the runs beside it only."""
    from sitegen.site.figures.grouping import closest_runs

    members = tuple(_run(f"r{i}", []) for i in range(12))  # newest first, as a group orders them
    place = {run.id: index for index, run in enumerate(members)}
    ids = [run.id for run in closest_runs(members, place, members[6], {"r0"}, 4)]
    assert ids == ["r0", "r5", "r7", "r4"]  # the partner, then distance 1 (newer first), then 2
    assert [run.id for run in closest_runs(members, place, members[0], set(), 3)] == [
        "r1",
        "r2",
        "r3",
    ]
    # A new newest run (r0 here) is among the nearest of the first few runs only.
    assert all(
        "r0" not in [r.id for r in closest_runs(members, place, members[i], set(), 4)]
        for i in range(5, 12)
    )
    # Against the rule done by hand on every member: partners first, then by distance, the newer
    # first.
    rng = random.Random(5)
    for _ in range(200):
        size = rng.randrange(1, 12)
        group = members[:size]
        at = {run.id: index for index, run in enumerate(group)}
        own = rng.randrange(size)
        partners = {f"r{rng.randrange(size)}" for _ in range(rng.randrange(3))} - {f"r{own}"}
        count = rng.randrange(1, 8)
        expected = sorted(
            (r for r in group if r.id != f"r{own}"),
            key=lambda r: (r.id not in partners, abs(at[r.id] - own), at[r.id]),
        )[:count]
        assert closest_runs(group, at, group[own], partners, count) == tuple(expected)


def _legend_colours(html: str) -> list[dict[str, str]]:
    """Each legend of a page: its runs' colour classes (k<place>), by run id."""
    return [
        dict(re.findall(r'<li data-run="([^"]+)"><i class="k(\d)"', legend))
        for legend in re.findall(r'<ul class="chart-legend">(.*?)</ul>', html, re.S)
    ]


def test_a_run_has_one_colour_on_its_model_page(shipped: Path) -> None:
    """docs/comparisons.md's rule, on the built pages: a run's colour is its position among its
    model's runs (newest first) mod 8 on its model's page (the reader's view: tests/browser/
    test_browser_compare.py); no legend gives two runs one colour."""
    places = model_colour_places(shipped / "content")
    site = shipped / "_site"
    seen: dict[str, set[str]] = {}
    legends = {"models": 0}
    for folder in legends:
        for page in (site / folder).glob("*/index.html"):
            for legend in _legend_colours(quoted(page.read_text())):
                assert len(set(legend.values())) == len(legend), (page, legend)
                legends[folder] += 1
                for run_id, colour in legend.items():
                    seen.setdefault(run_id, set()).add(colour)
    assert legends["models"] >= 5 and len(seen) >= 10
    for run_id, colours in seen.items():
        assert colours == {str(places[run_id])}, run_id
    for page in (site / "hardware").glob("*/index.html"):
        for legend in _legend_colours(quoted(page.read_text())):
            assert len(set(legend.values())) == len(legend), (page, legend)


def test_settings_read_as_the_run_pages_word_them(shipped: Path) -> None:
    """A switch reads yes or no in /data/setups.json, whose words the reader's view shows in its
    setup table, as on the run pages' Engine card (it read True and False), from the result
    files' values."""
    import json

    def words(value: Any) -> str:
        return ("yes" if value else "no") if isinstance(value, bool) else str(value)

    seen_switch = False
    setups = json.loads((shipped / "_site" / "data" / "setups.json").read_text())
    for run_id, entry in setups["runs"].items():
        settings = shipped_run(run_id)["engine"].get("settings") or {}
        assert entry["settings"] == {key: words(value) for key, value in settings.items()}
        seen_switch |= any(isinstance(value, bool) for value in settings.values())
    assert seen_switch
