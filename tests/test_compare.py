"""Comparison logic: ratio matrices, Pareto frontiers, groups and natural pairs."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

from sitegen.model import Run, run_from_dict
from sitegen.parse import parse_yaml
from sitegen.site.charts import Series, _frontier, pareto
from sitegen.site.compare_page import ratio_matrix
from sitegen.site.groups import hardware_groups, model_groups, natural_pairs
from tests.conftest import REPO, run_cli

MINIMAL = parse_yaml("minimal.yaml", (REPO / "tests" / "data" / "valid" / "minimal.yaml").read_bytes()).data


def _run(run_id: str, cells: list[tuple[int, int, str, float | None]], **run_info: Any) -> Run:
    data = copy.deepcopy(MINIMAL)
    data["run"].update(run_info)
    data["measurements"]["decode"] = [
        {"context_tokens": ctx, "concurrency": conc, "status": status,
         **({"total_tokens_per_s": total} if total is not None else {})}
        for ctx, conc, status, total in cells
    ]
    return run_from_dict(run_id, data)


def test_ratio_matrix_reads_b_against_a() -> None:
    a = _run("a", [(0, 1, "valid", 100.0), (0, 2, "valid", 200.0), (8192, 1, "valid", 50.0), (8192, 2, "over_capacity", None)])
    b = _run("b", [(0, 1, "valid", 112.0), (0, 2, "valid", 150.0), (8192, 1, "valid", 50.1), (8192, 2, "valid", 90.0)])
    matrix = ratio_matrix(a, b)
    assert matrix is not None
    assert matrix.concurrencies == (1, 2)
    first, second = matrix.rows
    assert (first.cells[0].change, first.cells[0].arrow, first.cells[0].step) == ("+12%", "▲", 1)
    assert first.cells[0].detail == "100.0 → 112.0"
    assert (first.cells[1].change, first.cells[1].arrow, first.cells[1].step) == ("−25%", "▼", -2)
    # 50.0 → 50.1 is +0.2 %: rounds to zero, written without a sign.
    assert (second.cells[0].change, second.cells[0].arrow, second.cells[0].step) == ("0%", "=", 0)
    assert not second.cells[1].comparable and second.cells[1].detail == "A Over capacity · B 90.0"
    # Changes +12 %, −25 %, +0.2 %: only +12 % is faster (within half a percent is not); the median is +0.2 %.
    assert matrix.summary == "B is faster in 1 of 3 cells both runs measured as valid; median change 0%."


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
    runs = [_run(f"r{i}", [(0, 1, "valid", 1.0)], model=f"org/Model-{i % 2}", date=f"2026-01-0{i + 1}") for i in range(6)]
    assert [g.slug for g in model_groups(runs)] == ["model-0", "model-1"]
    assert [g.slug for g in hardware_groups(runs)] == ["rtx-4090"]
    pairs = natural_pairs(runs)
    assert [(a.id, b.id) for a, b in pairs] == [("r0", "r2"), ("r1", "r3"), ("r2", "r4"), ("r3", "r5")]


def test_base_model_groups_quantizations_together() -> None:
    runs = [_run("a", [], model="x/Qwen-AWQ", base_model="Qwen/Qwen"), _run("b", [], model="y/Qwen-FP8", base_model="Qwen/Qwen")]
    groups = model_groups(runs)
    assert len(groups) == 1 and groups[0].label == "Qwen/Qwen" and {r.id for r in groups[0].runs} == {"a", "b"}


def shipped_run(run_id: str) -> dict[str, Any]:
    """A shipped result file, read independently of the build."""
    path = REPO / "content" / "runs" / f"{run_id}.yaml"
    data: dict[str, Any] = parse_yaml(path.name, path.read_bytes()).data
    return data


def context_label(tokens: int) -> str:
    """A context as the pages write it: '8K' for a multiple of 1,024 tokens, else '5,000'."""
    return f"{tokens // 1024}K" if tokens >= 1024 and tokens % 1024 == 0 else f"{tokens:,}"


def test_static_compare_pages_are_complete_and_swap_to_each_other(project: Path) -> None:
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    a, b = "rtx6kpro4x-vllm-qwen35-397b-awq-mtp", "rtx6kpro4x-vllm-qwen35-397b-nvfp4-nomtp"
    html = (project / "_site" / "compare" / f"{a}--{b}" / "index.html").read_text()
    swapped = project / "_site" / "compare" / f"{b}--{a}" / "index.html"
    # The swap is a plain link to the static page of the pair the other way round, which exists.
    # Relative, from /compare/<a>--<b>/index.html.
    assert f'<a href="../../compare/{b}--{a}/index.html" id="swap-link">' in html and swapped.is_file()
    assert f'<a href="../../compare/{a}--{b}/index.html" id="swap-link">' in swapped.read_text()
    # Every section is in the HTML itself: no script needed.
    assert 'class="data facts"' in html and 'class="matrix ratio"' in html and "B against A" in html
    # One decode chart per context both runs measured (read from the result files).
    measured = [{c["context_tokens"] for c in shipped_run(run_id)["measurements"]["decode"]
                 if c["status"] in ("valid", "requests_queued") and c.get("total_tokens_per_s") is not None}
                for run_id in (a, b)]
    shared = sorted(measured[0] & measured[1])
    assert len(shared) >= 3
    captions = re.findall(r'<figure class="plot">\s*<figcaption[^>]*>([^<]*)</figcaption>', html)
    assert captions == [f"{context_label(c)} context" for c in shared] + ["Throughput against interactivity"]
    bar_rows = re.findall(r"<div class=bar-row>(.*?)</div>", html, re.DOTALL)  # prefill, A over B
    assert bar_rows and all(re.findall(r"<p><span>(\w)</span>", row) == ["A", "B"] for row in bar_rows)
    # The launch commands differ only in --speculative-config: that row, and no other launch row, is marked.
    marked = re.findall(r'<tr class="differs"><th scope="row">Launch: ([^<]*)<', html)
    assert marked == ["Speculative decoding"]
    assert "Launch settings differ: Speculative decoding." in html


def _throughput(value: float) -> str:
    """The site's table format for a throughput, written out here: 9,544.0 below 10,000, else 10.2K."""
    if value >= 10_000:
        return f"{value / 1000:.1f}".removesuffix(".0") + "K"
    return f"{value:,.1f}"


def expected_per_accelerator(a: dict[str, Any], b: dict[str, Any]) -> dict[tuple[int, int], str]:
    """(context, requests) → the per-accelerator line a ratio cell of B against A must show, worked out
    from the two result files: total tok/s ÷ accelerators for both valid cells, else each measured one."""
    count = a["hardware"]["count"]
    assert count == b["hardware"]["count"] > 1
    cells = [{(c["context_tokens"], c["concurrency"]): c for c in run["measurements"]["decode"]} for run in (a, b)]

    def share(cell: dict[str, Any] | None) -> str | None:
        if cell is None or cell["status"] not in ("valid", "requests_queued") or cell.get("total_tokens_per_s") is None:
            return None
        return _throughput(cell["total_tokens_per_s"] / count)

    lines = {}
    for key in cells[0].keys() | cells[1].keys():
        ca, cb = cells[0].get(key), cells[1].get(key)
        x, y = share(ca), share(cb)
        if ca and cb and ca["status"] == cb["status"] == "valid" and x and y:
            lines[key] = f"per acc. {x} → {y}"
        elif x or y:
            lines[key] = f"per acc. A {x or '—'} · B {y or '—'}"
    return lines


def test_static_compare_page_shows_per_accelerator_figures_beside_totals(project: Path) -> None:
    """Equal accelerator counts: totals are compared, and every cell with a total has its
    per-accelerator figures beneath it (recomputed here from the result files), labelled derived."""
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    a, b = "rtx6kpro4x-vllm-qwen35-397b-awq-mtp", "rtx6kpro4x-vllm-qwen35-397b-nvfp4-nomtp"
    html = (project / "_site" / "compare" / f"{a}--{b}" / "index.html").read_text()
    raw_a, raw_b = shipped_run(a), shipped_run(b)
    expected = expected_per_accelerator(raw_a, raw_b)
    assert len(expected) >= 30
    decode = raw_a["measurements"]["decode"] + raw_b["measurements"]["decode"]
    contexts = sorted({c["context_tokens"] for c in decode})
    levels = sorted({c["concurrency"] for c in decode})
    table = html.split('class="matrix ratio"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr><th scope=\"row\">([^<]*)</th>(.*?)</tr>", table, re.S)
    assert [label for label, _ in rows] == [context_label(c) for c in contexts]
    for context, (_, row) in zip(contexts, rows, strict=True):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        assert len(cells) == len(levels)
        for level, cell in zip(levels, cells, strict=True):
            shown = re.findall(r'<small class="per-device">([^<]*)</small>', cell)
            want = expected.get((context, level))
            assert shown == ([want] if want else []), (context, level)
    assert "then per acc.: tok/s per accelerator (derived: total ÷ 4)" in html
    assert "Per acc. is tok/s per accelerator (total tok/s ÷ accelerators), a derived figure." in html


def test_ratio_cells_never_divide_queued_or_over_capacity_cells() -> None:
    a = _run("a", [(0, 1, "valid", 100.0), (0, 2, "requests_queued", 150.0), (0, 4, "valid", 300.0)])
    b = _run("b", [(0, 1, "requests_queued", 90.0), (0, 2, "valid", 200.0), (0, 4, "over_capacity", None)])
    cells = ratio_matrix(a, b).rows[0].cells  # type: ignore[union-attr]
    assert not any(cell.comparable or "%" in cell.change + cell.detail for cell in cells)
    assert [cell.detail for cell in cells] == [
        "A 100.0 · B Requests queued (90.0)", "A Requests queued (150.0) · B 200.0", "A 300.0 · B Over capacity"]


def test_a_run_with_per_request_figures_at_one_request_is_left_off_the_frontier() -> None:
    from sitegen.site.common import Site
    from sitegen.site.compare_page import compare_context

    def run(run_id: str, levels: tuple[int, ...]) -> Run:
        data = copy.deepcopy(MINIMAL)
        data["measurements"]["decode"] = [
            {"context_tokens": 0, "concurrency": level, "status": "valid", "total_tokens_per_s": 100.0 * level,
             **({"per_request_tokens_per_s": 100.0} if level in levels else {})} for level in (1, 2, 4)]
        return run_from_dict(run_id, data)

    context = compare_context(Site("t", ""), [run("one", (1,)), run("all", (1, 2, 4))])
    assert context.pareto_plot is not None
    assert [line.label for line in context.pareto_plot.lines] == ["B: all"]
    assert context.pareto_note == ("Left out, for lack of per-request figures at two or more request counts: "
                                   "A: one (per-request tok/s: only at 1 request).")


def test_compare_page_of_runs_on_different_device_counts_is_per_device() -> None:
    from sitegen.site.common import Site
    from sitegen.site.compare_page import compare_page
    from sitegen.site.render import environment, render

    def run(run_id: str, count: int) -> Run:
        data = copy.deepcopy(MINIMAL)
        data["hardware"]["count"] = count
        data["measurements"]["decode"] = [
            {"context_tokens": 0, "concurrency": level, "status": "valid", "total_tokens_per_s": 400.0 * level,
             "per_request_tokens_per_s": 400.0} for level in (1, 2)]
        return run_from_dict(run_id, data)

    site = Site("t", "")
    same = compare_page(site, run("a", 2), run("b", 2)).context
    mixed_page = compare_page(site, run("a", 2), run("b", 4))
    mixed = mixed_page.context
    html = render(environment(REPO / "templates"), mixed_page).decode()
    assert "Different numbers of accelerators" in html and "(A 2; B 4)" in html
    assert not same.per_device and mixed.per_device
    # The frontier is per accelerator either way: 800 tok/s at 2 requests on 2 devices is 400 per device.
    assert same.pareto_plot.frame.y_title == mixed.pareto_plot.frame.y_title == "tok/s per accelerator"
    assert "400.0 per request, 400.0" in same.pareto_plot.lines[0].title
    # 800 tok/s on 2 devices is 400 per device; on 4 devices, 200: B is half of A per device.
    assert [c.change for c in mixed.ratios[0].rows[0].cells] == ["−50%", "−50%"]
    assert mixed.ratios[0].rows[0].cells[1].detail == "400.0 → 200.0"


def test_inline_plots_cost_little_beyond_their_figures(project: Path) -> None:
    """Issue 18's byte budget: a run is one path (its vertices carry its marker) and one title
    holding its figures; frames and markers are defined once per page; the plot's text
    alternative reads those titles (aria-labelledby) instead of repeating them."""
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    a, b = "rtx6kpro4x-vllm-qwen35-397b-awq-mtp", "rtx6kpro4x-vllm-qwen35-397b-nvfp4-nomtp"
    html = (project / "_site" / "compare" / f"{a}--{b}" / "index.html").read_text()
    svgs = re.findall(r'<svg class="plot-svg".*?</svg>', html, re.S)
    assert len(svgs) >= 4
    cells = [c for run_id in (a, b) for c in shipped_run(run_id)["measurements"]["decode"]]
    for svg in svgs:
        titles = re.findall(r'<title id="([^"]+)">(.*?)</title>', svg)
        assert len(titles) == 2 == svg.count("<path ")  # one path and one title per run
        assert "aria-label=" not in svg
        names = re.search(r'aria-labelledby="([^"]*)"', svg).group(1).split()  # type: ignore[union-attr]
        assert [title_id for title_id, _ in titles] == names[3:]  # each title read once
        # Everything but the titles: the frame and x ticks (<use>), the y tick labels and, per point, its
        # coordinates (at most 12 bytes: "L123.4 56.7").
        points = sum(len(re.findall(r"-?[\d.]+", d)) // 2 for d in re.findall(r'<path class="s\d" d="([^"]*)"', svg))
        markup = len(svg) - sum(len(f'<title id="{i}">{t}</title>') for i, t in titles)
        assert markup <= 480 + 12 * points, (markup, points)
    # Decode and frontier points together: every measured cell of both runs is a vertex somewhere.
    vertices = sum(len(re.findall(r"-?[\d.]+", d)) // 2
                   for svg in svgs for d in re.findall(r'<path class="s\d" d="([^"]*)"', svg))
    valid = sum(1 for c in cells if c["status"] == "valid" and c.get("per_request_tokens_per_s") is not None)
    assert vertices >= valid
    # Defined once for the page: one sprite, a marker per run, no frame twice.
    assert html.count('<svg class="sprite"') == 1
    assert re.findall(r'<marker id="(pm\d)"', html) == ["pm0", "pm1"]
    frames = re.findall(r'<g id="pf\d+" class="frame">(.*?)</g>', html)
    assert len(frames) == len(set(frames)) >= 1
