"""Comparison logic: ratio matrices, Pareto frontiers, groups and natural pairs."""

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
from sitegen.site.pages.compare import ratio_matrix
from tests.kit.compare_rule import (
    PAIR,
    expected_per_accelerator,
    model_colour_places,
    natural_pairs_from_files,
    shipped_run,
    signed_percent,
    throughput,
)
from tests.kit.context_rule import context_label
from tests.kit.html_tables import quoted, tables
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


def test_ratio_matrix_reads_b_against_a() -> None:
    a = _run(
        "a",
        [
            (0, 1, "valid", 100.0),
            (0, 2, "valid", 200.0),
            (8192, 1, "valid", 50.0),
            (8192, 2, "over_capacity", None),
        ],
    )
    b = _run(
        "b",
        [
            (0, 1, "valid", 112.0),
            (0, 2, "valid", 150.0),
            (8192, 1, "valid", 50.1),
            (8192, 2, "valid", 90.0),
        ],
    )
    matrix = ratio_matrix(a, b)
    assert matrix is not None
    assert matrix.concurrencies == (1, 2)
    first, second = matrix.rows
    assert (first.cells[0].change, first.cells[0].arrow, first.cells[0].step) == ("+12%", "▲", 1)
    assert first.cells[0].detail == "A 100.0 · B 112.0"
    assert (first.cells[1].change, first.cells[1].arrow, first.cells[1].step) == ("−25%", "▼", -2)
    # 50.0 → 50.1 is +0.2 %: rounds to zero, written without a sign.
    assert (second.cells[0].change, second.cells[0].arrow, second.cells[0].step) == ("0%", "=", 0)
    assert not second.cells[1].comparable and second.cells[1].detail == "A Over capacity · B 90.0"
    # Changes +12 %, −25 %, +0.2 %: only +12 % is faster (within half a percent is not); the median
    # is +0.2 %.
    assert (
        matrix.summary
        == "B is faster in 1 of 3 cells both runs measured as valid; median change 0%."
    )


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


def ratio_table(html: str) -> dict[tuple[str, int], tuple[str, list[str], str]]:
    """The static page's ratio table, read from its markup: (row label, column) → (the cell's
    classes, its <b> texts, the rest of its text), a cell spanning columns repeated in each."""
    table = html.split('<table class="rt"', 1)[1].split("</table>", 1)[0]
    cells: dict[tuple[str, int], tuple[str, list[str], str]] = {}
    for row in table.split("<tr>")[2:]:  # [0] before the head, [1] the head
        label, *tds = re.split(r"<td", row.split("<th>", 1)[1])
        column = 0
        for td in tds:
            attrs, body = td.split(">", 1)
            span = int(m.group(1)) if (m := re.search(r'colspan="(\d+)"', attrs)) else 1
            classes = m.group(1) if (m := re.search(r'class="([^"]*)"', attrs)) else ""
            changes = re.findall(r"<b>([^<]*)</b>", body)
            rest = re.sub(r"<[^>]+>", "", re.sub(r"<b>[^<]*</b>", "", body)).strip()
            for _ in range(span):
                cells[(label.strip(), column)] = (classes, changes, rest)
                column += 1
    return cells


def arrow_and_step(change: float) -> str:
    """The class a cell gets for a change, by the legend's rules: ▲/▼ beyond half a percent, colour
    steps at 3, 15 and 40 %."""
    if abs(change) < 0.005:
        return "e"
    size = sum(abs(change) >= limit for limit in (0.03, 0.15, 0.40))
    return f"{'u' if change > 0 else 'd'}{size}"


def test_one_static_page_per_natural_pair_whose_swap_is_a_link_within_it(shipped: Path) -> None:
    pairs = natural_pairs_from_files(shipped / "content")
    assert PAIR in pairs
    built = sorted(
        tuple(p.parent.name.split("--"))
        for p in (shipped / "_site" / "compare").glob("*--*/index.html")
    )
    # (older, newer) only: no page the other way round.
    assert built == pairs
    a, b = PAIR
    html = quoted((shipped / "_site" / "compare" / f"{a}--{b}" / "index.html").read_text())
    # The swap is a link to a fragment of the page itself, which the page holds, and back.
    assert '<div id="b-against-a"><div id="a-against-b" class="two-way">' in html
    assert '<a href="#a-against-b" class="fwd" id="swap-link">Swap: A against B</a>' in html
    assert '<a href="#b-against-a" class="rev" id="swap-back">Swap: B against A</a>' in html
    # Every section is in the HTML itself: no script needed.
    assert 'class="data facts"' in html and '<table class="rt"' in html
    assert (
        '<span class="fwd">B against A, total tok/s</span><span class="rev">A against B, total '
        "tok/s</span>" in html
    )
    # One decode chart per context both runs measured (read from the result files).
    measured = [
        {
            c["context_tokens"]
            for c in shipped_run(run_id)["measurements"]["decode"]
            if c["status"] in ("valid", "requests_queued")
            and c.get("total_tokens_per_s") is not None
        }
        for run_id in (a, b)
    ]
    shared = sorted(measured[0] & measured[1])
    assert len(shared) >= 3
    captions = re.findall(r'<figure class="plot">\s*<figcaption[^>]*>([^<]*)</figcaption>', html)
    assert captions == [f"{context_label(c)} context" for c in shared] + [
        "Throughput against interactivity"
    ]
    places = model_colour_places(REPO / "content")
    _check_prefill_table(html, [shipped_run(run_id) for run_id in PAIR], [places[a], places[b]])
    # Each run's lines and keys in its colour on its model's page (a pair of one model: two).
    assert places[a] != places[b]
    assert set(re.findall(r'<path class="s(\d)"', html)) == {str(places[a]), str(places[b])}
    # The launch commands differ only in --speculative-config: that row, and no other launch row, is
    # marked.
    marked = re.findall(r'<tr class="df"><th>Launch: ([^<]*)<', html)
    assert marked == ["Speculative decoding"]
    assert "Launch settings differ: Speculative decoding." in html


def _check_prefill_table(html: str, raw: list[dict[str, Any]], colours: list[int]) -> None:
    """The prefill table, against the result files: at each context either run measured, a row
    per run (A over B) with its letter, bar (width in percent of the peak, at least 1; colour
    ``colours``, each run's on its model's page), figure and TTFT; the context's header spans
    the runs' rows."""
    table = tables(html)["pf"]
    firsts = [
        {
            p["context_tokens"]: p
            for p in reversed(run["measurements"]["prefill"])
            if p.get("prompt_tokens_per_s") is not None
        }
        for run in raw
    ]
    contexts = sorted(firsts[0].keys() | firsts[1].keys())
    assert len(contexts) >= 3 and len(table) == 2 * len(contexts)
    peak = max(p["prompt_tokens_per_s"] for run in firsts for p in run.values())
    bars = re.findall(r'<td><i class="w(\d+) c(\d)"></i>', html.split('<table class="pf"', 1)[1])
    for i, context in enumerate(contexts):
        for place, letter in enumerate("AB"):
            row = table[2 * i + place]
            point = firsts[place].get(context)
            # The table model repeats a spanned header in each row it heads.
            assert row[0] == f"{context_label(context)} context"
            row = row[1:]
            width, colour = bars[2 * i + place]
            assert int(colour) == colours[place]
            if point is None:
                assert row == [letter, "", "—", "not measured"] and width == "0"
                continue
            rate = point["prompt_tokens_per_s"]
            shown = (
                f"{rate / 1000:.1f}".removesuffix(".0") + "K" if rate >= 10_000 else f"{rate:,.0f}"
            )
            ttft = f"{point['ttft_ms']:,.0f} ms TTFT" if point.get("ttft_ms") is not None else ""
            assert row == [letter, "", shown, ttft], (context, letter)
            assert abs(int(width) - max(1, rate / peak * 100)) <= 0.5, (context, letter)
    assert f'<th rowspan="2">{context_label(contexts[0])} context' in html


def test_a_static_page_holds_both_directions_ratios(shipped: Path) -> None:
    """Each valid pair of cells carries B against A, then A against B, with the arrow and colour
    of each; the summary of each direction counts and takes the median of its own changes. All
    worked out here from the two result files."""
    a, b = PAIR
    html = quoted((shipped / "_site" / "compare" / f"{a}--{b}" / "index.html").read_text())
    raw = [
        {
            (c["context_tokens"], c["concurrency"]): c
            for c in shipped_run(run_id)["measurements"]["decode"]
        }
        for run_id in PAIR
    ]
    contexts = sorted({key[0] for run in raw for key in run})
    levels = sorted({key[1] for run in raw for key in run})
    shown = ratio_table(html)
    forward, backward = [], []
    for context in contexts:
        for column, level in enumerate(levels):
            ca, cb = raw[0].get((context, level)), raw[1].get((context, level))
            classes, changes, rest = shown[(context_label(context), column)]
            if ca and cb and ca["status"] == cb["status"] == "valid":
                x, y = ca["total_tokens_per_s"], cb["total_tokens_per_s"]
                forward.append(y / x - 1)
                backward.append(x / y - 1)
                assert changes == [signed_percent(y / x - 1), signed_percent(x / y - 1)], (
                    context,
                    level,
                )
                # One word: B against A's arrow and step, then A against B's in capitals.
                assert classes == arrow_and_step(y / x - 1) + arrow_and_step(x / y - 1).upper(), (
                    context,
                    level,
                )
                assert rest.startswith(f"A {throughput(x)} · B {throughput(y)}"), (context, level)
            else:
                assert changes == [] and classes == "" and "%" not in rest, (context, level)
    assert (
        len(forward) >= 20 and any(c > 0.005 for c in forward) and any(c < -0.005 for c in forward)
    )
    for name, changes, view in (("B", forward, "fwd"), ("A", backward, "rev")):
        faster = sum(change >= 0.005 for change in changes)
        ordered = sorted(changes)
        middle = len(ordered) // 2
        median = (
            ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
        )
        sentence = (
            f"{name} is faster in {faster} of {len(changes)} cells both runs measured as valid; "
            f"median change {signed_percent(median)}."
        )
        assert re.findall(rf'<p class="{view}">([^<]*)', html) == [sentence], sentence


def test_both_runs_of_a_pair_link_to_its_one_page(shipped: Path) -> None:
    """The older run's page links to the pair's page; the newer's to the same page turned to it
    as the baseline (#a-against-b), so either page compares the other run against its own."""
    pairs = natural_pairs_from_files(shipped / "content")
    assert pairs
    for older, newer in pairs:
        for run_id, other, fragment in ((older, newer, ""), (newer, older, "#a-against-b")):
            page = (shipped / "_site" / "runs" / run_id / "index.html").read_text()
            assert (
                f'<a href="../../compare/{older}--{newer}/index.html{fragment}">Compare with '
                f"{other}</a>" in page
            ), (run_id, other)
            assert f"compare/{newer}--{older}/" not in page


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
    """A static comparison page shows decode curves, frontiers and prefill, none of which an
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
    for path in (shipped / "_site" / "compare").glob("*--*"):
        assert not set(path.name.split("--")) & open_loop, path.name
    offered_with_loads = 0
    for page in (shipped / "_site" / "runs").glob("*/index.html"):
        run_id = page.parent.name
        text = page.read_text()
        assert not (run_id in open_loop and re.search(r'compare/[^"/]+--', text)), run_id
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


def test_static_compare_page_shows_per_accelerator_figures_beside_totals(shipped: Path) -> None:
    """Equal accelerator counts: totals are compared, and every cell with a total has its
    per-accelerator figures beneath it (recomputed here from the result files), labelled derived."""
    a, b = "rtx6kpro4x-vllm-qwen35-397b-awq-mtp", "rtx6kpro4x-vllm-qwen35-397b-nvfp4-nomtp"
    html = quoted((shipped / "_site" / "compare" / f"{a}--{b}" / "index.html").read_text())
    raw_a, raw_b = shipped_run(a), shipped_run(b)
    expected = expected_per_accelerator(raw_a, raw_b)
    assert len(expected) >= 30
    decode = raw_a["measurements"]["decode"] + raw_b["measurements"]["decode"]
    contexts = sorted({c["context_tokens"] for c in decode})
    levels = sorted({c["concurrency"] for c in decode})
    shown = ratio_table(html)
    assert sorted(
        {label for label, _ in shown}, key=[context_label(c) for c in contexts].index
    ) == [context_label(c) for c in contexts]
    for context in contexts:
        for column, level in enumerate(levels):
            _, _, rest = shown[(context_label(context), column)]
            want = expected.get((context, level))
            got = re.findall(r"per acc\. .*$", rest)
            assert got == ([want] if want else []), (context, level)
    assert "then per acc.: tok/s per accelerator (derived: total ÷ 4)" in html
    assert (
        "Per acc. is tok/s per accelerator (total tok/s ÷ accelerators), a derived figure." in html
    )


def test_ratio_cells_never_divide_queued_or_over_capacity_cells() -> None:
    a = _run(
        "a", [(0, 1, "valid", 100.0), (0, 2, "requests_queued", 150.0), (0, 4, "valid", 300.0)]
    )
    b = _run(
        "b",
        [(0, 1, "requests_queued", 90.0), (0, 2, "valid", 200.0), (0, 4, "over_capacity", None)],
    )
    cells = ratio_matrix(a, b).rows[0].cells  # type: ignore[union-attr]
    assert not any(cell.comparable or "%" in cell.change + cell.detail for cell in cells)
    assert [cell.detail for cell in cells] == [
        "A 100.0 · B Requests queued (90.0)",
        "A Requests queued (150.0) · B 200.0",
        "A 300.0 · B Over capacity",
    ]


def test_a_run_with_per_request_figures_at_one_request_is_left_off_the_frontier() -> None:
    from sitegen.site.page import Site
    from sitegen.site.pages.compare import compare_context

    def run(run_id: str, levels: tuple[int, ...]) -> Run:
        data = copy.deepcopy(MINIMAL)
        data["measurements"]["decode"] = [
            {
                "context_tokens": 0,
                "concurrency": level,
                "status": "valid",
                "total_tokens_per_s": 100.0 * level,
                **({"per_request_tokens_per_s": 100.0} if level in levels else {}),
            }
            for level in (1, 2, 4)
        ]
        return run_from_dict(run_id, data)

    context = compare_context(Site("t", ""), [run("one", (1,)), run("all", (1, 2, 4))])
    assert context.pareto_plot is not None
    # Legends name runs (model · hardware · engine); the two share a name, so each gets its id.
    named = "Qwen3-8B · RTX 4090 ×1 · llama.cpp"
    assert [line.label for line in context.pareto_plot.lines] == [f"B: {named} (all)"]
    assert context.pareto_note == (
        "Left out, for lack of per-request figures at two or more request counts: "
        f"A: {named} (one) (per-request tok/s: only at 1 request)."
    )


def test_compare_page_of_runs_on_different_device_counts_is_per_device() -> None:
    from sitegen.site.page import Site
    from sitegen.site.pages.compare import compare_page
    from sitegen.site.render import environment, render

    def run(run_id: str, count: int) -> Run:
        data = copy.deepcopy(MINIMAL)
        data["hardware"]["count"] = count
        data["measurements"]["decode"] = [
            {
                "context_tokens": 0,
                "concurrency": level,
                "status": "valid",
                "total_tokens_per_s": 400.0 * level,
                "per_request_tokens_per_s": 400.0,
            }
            for level in (1, 2)
        ]
        return run_from_dict(run_id, data)

    site = Site("t", "")
    same = compare_page(site, run("a", 2), run("b", 2)).context
    mixed_page = compare_page(site, run("a", 2), run("b", 4))
    mixed = mixed_page.context
    html = render(environment(REPO / "templates"), mixed_page).decode()
    assert "Different numbers of accelerators" in html and "(A 2; B 4)" in html
    assert not same.per_device and mixed.per_device
    # The frontier is per accelerator either way: 800 tok/s at 2 requests on 2 devices is 400 per
    # device.
    assert (
        same.pareto_plot.frame.y_title == mixed.pareto_plot.frame.y_title == "tok/s per accelerator"
    )
    assert "400.0 per request, 400.0" in same.pareto_plot.lines[0].title
    # 800 tok/s on 2 devices is 400 per device; on 4 devices, 200: B is half of A per device.
    assert [c.change for c in mixed.ratios[0].rows[0].cells] == ["−50%", "−50%"]
    assert mixed.ratios[0].rows[0].cells[1].detail == "A 400.0 · B 200.0"


def test_inline_plots_cost_little_beyond_their_figures(shipped: Path) -> None:
    """Issue 18's byte budget: a run is one path (its vertices carry its marker) and one title
    holding its figures; frames and markers are defined once per page; the plot's text
    alternative reads those titles (aria-labelledby) instead of repeating them."""
    a, b = "rtx6kpro4x-vllm-qwen35-397b-awq-mtp", "rtx6kpro4x-vllm-qwen35-397b-nvfp4-nomtp"
    html = quoted((shipped / "_site" / "compare" / f"{a}--{b}" / "index.html").read_text())
    svgs = re.findall(
        r'<figure class="plot"><figcaption[^>]*>[^<]*</figcaption>(<svg.*?</svg>)', html, re.S
    )
    assert len(svgs) >= 4
    cells = [c for run_id in (a, b) for c in shipped_run(run_id)["measurements"]["decode"]]
    for svg in svgs:
        titles = re.findall(r'<title id="([^"]+)">(.*?)</title>', svg)
        assert len(titles) == 2 == svg.count("<path ")  # one path and one title per run
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
        assert markup <= 480 + 12 * points, (markup, points)
    # Decode and frontier points together: every measured cell of both runs is a vertex somewhere.
    vertices = sum(
        len(re.findall(r"-?[\d.]+", d)) // 2
        for svg in svgs
        for d in re.findall(r'<path class="s\d" d="([^"]*)"', svg)
    )
    valid = sum(
        1 for c in cells if c["status"] == "valid" and c.get("per_request_tokens_per_s") is not None
    )
    assert vertices >= valid
    # Defined once for the page: one sprite, a marker per run, no frame twice.
    assert html.count('<svg class="sprite"') == 1
    assert re.findall(r'<marker id="(pm\d)"', html) == ["pm0", "pm1"]
    frames = re.findall(r'<g id="pf\d+" class="frame">(.*?</g>)</g>', html)
    assert len(frames) == len(set(frames)) >= 1


def test_two_way_cells_carry_both_directions_and_like_neighbours_share_one_cell() -> None:
    from sitegen.site.pages.compare import two_way_matrix

    a = _run(
        "a",
        [
            (0, 1, "valid", 100.0),
            (0, 2, "valid", 86.0),
            (0, 4, "over_capacity", None),
            (0, 8, "over_capacity", None),
            (0, 16, "valid", 50.0),
        ],
    )
    b = _run(
        "b",
        [
            (0, 1, "valid", 100.2),
            (0, 2, "valid", 100.0),
            (0, 4, "over_capacity", None),
            (0, 8, "over_capacity", None),
            (0, 16, "over_capacity", None),
        ],
    )
    matrix = two_way_matrix(a, b)
    assert matrix is not None
    assert (matrix.heading, matrix.back_heading) == (
        "B against A, total tok/s",
        "A against B, total tok/s",
    )
    # Forward +0.2 % and +16 %; backward −0.2 % and −14 % (86 / 100): each direction its own step.
    level, up = matrix.rows[0].cells[:2]
    assert (level.change, level.back_change, level.css) == ("0%", "0%", "eE")
    assert (up.change, up.back_change, up.css) == ("+16%", "−14%", "u2D1")
    assert up.detail == "A 86.0 · B 100.0"
    # Two neighbours over capacity in both runs: one cell across two columns; the next differs.
    assert [(cell.detail, span) for cell, span in matrix.rows[0].spans[2:]] == [
        ("A Over capacity · B Over capacity", 2),
        ("A 50.0 · B Over capacity", 1),
    ]
    assert (
        matrix.summary
        == "B is faster in 1 of 2 cells both runs measured as valid; median change +8%."
    )
    assert (
        matrix.back_summary
        == "A is faster in 0 of 2 cells both runs measured as valid; median change −7%."
    )


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


def test_a_run_keeps_its_colour_in_prefill_when_the_other_has_no_prefill_figures() -> None:
    """B's bars are B's colour (place 1, as its line and key), even when A has no prefill to
    show."""
    from sitegen.site.page import Site
    from sitegen.site.pages.compare import compare_context

    without = copy.deepcopy(MINIMAL)
    without["measurements"]["prefill"] = []
    with_prefill = copy.deepcopy(MINIMAL)
    with_prefill["measurements"]["prefill"] = [
        {"context_tokens": 8192, "prompt_tokens_per_s": 5000.0, "ttft_ms": 1600.0}
    ]
    context = compare_context(
        Site("t", ""), [run_from_dict("a", without), run_from_dict("b", with_prefill)]
    )
    assert context.prefill_note == "No prefill figures: A."
    assert context.prefill_bars is not None
    [[bar]] = [row.bars for row in context.prefill_bars.rows]
    assert (bar.series, bar.colour, bar.value, bar.width) == ("B", 1, "5,000", 100)


def _legend_colours(html: str) -> list[dict[str, str]]:
    """Each legend of a page: its runs' colour classes (k<place>), by run id."""
    return [
        dict(re.findall(r'<li data-run="([^"]+)"><i class="k(\d)"', legend))
        for legend in re.findall(r'<ul class="chart-legend">(.*?)</ul>', html, re.S)
    ]


def test_a_run_has_one_colour_on_its_model_page_and_its_compare_pages(shipped: Path) -> None:
    """docs/comparisons.md's rule, on the built pages: a run's colour is its position among its
    model's runs (newest first) mod 8, on its model's page and on every static compare page;
    no legend gives two runs one colour."""
    places = model_colour_places(shipped / "content")
    site = shipped / "_site"
    seen: dict[str, set[str]] = {}
    legends = {"models": 0, "compare": 0}
    for folder in legends:
        for page in (site / folder).glob("*/index.html"):
            for legend in _legend_colours(quoted(page.read_text())):
                assert len(set(legend.values())) == len(legend), (page, legend)
                legends[folder] += 1
                for run_id, colour in legend.items():
                    seen.setdefault(run_id, set()).add(colour)
    # Pairs of load-point runs draw no chart: the others do, on both kinds of page.
    assert legends["models"] >= 5 and legends["compare"] >= 5 and len(seen) >= 10
    for run_id, colours in seen.items():
        assert colours == {str(places[run_id])}, run_id
    for page in (site / "hardware").glob("*/index.html"):
        for legend in _legend_colours(quoted(page.read_text())):
            assert len(set(legend.values())) == len(legend), (page, legend)


def test_settings_read_as_the_run_pages_word_them(shipped: Path) -> None:
    """A switch reads yes or no on a comparison's setup table and in /data/setups.json, as on
    the run pages' Engine card (it read True and False), from the result files' values."""
    import json

    def words(value: Any) -> str:
        return ("yes" if value else "no") if isinstance(value, bool) else str(value)

    seen_switch = False
    for page in sorted((shipped / "_site" / "compare").glob("*--*/index.html")):
        a, b = page.parent.name.split("--")
        files = [shipped_run(run_id)["engine"].get("settings") or {} for run_id in (a, b)]
        rows = {
            row[0].removesuffix("(differs)").strip(): row[1:]
            for row in tables(page.read_text())["data facts"][1:]
        }
        for key in {*files[0], *files[1]}:
            expected = [words(s[key]) if key in s else "—" for s in files]
            assert rows[f"Setting: {key}"][:2] == expected, (page, key)
            seen_switch |= any(isinstance(s.get(key), bool) for s in files)
    assert seen_switch
    setups = json.loads((shipped / "_site" / "data" / "setups.json").read_text())
    for run_id, entry in setups["runs"].items():
        settings = shipped_run(run_id)["engine"].get("settings") or {}
        assert entry["settings"] == {key: words(value) for key, value in settings.items()}
