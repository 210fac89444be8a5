"""Comparisons in a real browser: the reader's view of three unlike runs, of the natural pairs
/compare/ offers ready-made, and of a pair both ways round. Expected values come from the result
files (content/runs/*.yaml) and arithmetic done here."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.kit.browser import Browsing
from tests.kit.compare_rule import (
    PAIR,
    expected_per_accelerator,
    model_colour_places,
    natural_pairs_from_files,
    shipped_run,
    signed_percent,
)
from tests.kit.context_rule import context_label
from tests.kit.project import REPO

pytestmark = pytest.mark.browser

# A ratio table's rows as a reader sees them: each column's text, a cell spanning columns
# (neighbours with the same statuses) repeated in each; only what is displayed counts.
COLUMNS_JS = """(table) => Array.from(table.tBodies[0].rows)
    .map((row) => Array.from(row.cells).slice(1)
    .flatMap((td) => Array(td.colSpan).fill(td.innerText.trim())))"""

# Three models on 2, 4 and 1 accelerators, two engines with launch commands and one without.
THREE = (
    "h200nvl2-sglang-deepseek-v4-flash-dspark",
    "rtx6kpro4x-vllm-qwen35-397b-awq-mtp",
    "dgxspark-llamacpp-gptoss120b-batched",
)


def test_three_unlike_runs_in_the_readers_view(browse: Browsing) -> None:
    visit = browse.open("/compare/?runs=" + ",".join(THREE))
    page = visit.page
    page.locator("#compare-result table.rt").first.wait_for()
    # The caveats come first and name what differs.
    caveats = page.locator("#compare-result .caveats")
    assert caveats.is_visible()
    text = caveats.inner_text()
    assert (
        "Different models" in text
        and "Different numbers of accelerators" in text
        and "(A 2; B 4; C 1)" in text
    )
    # Per-accelerator figures by default: the first valid cell both A and B measured, divided here.
    a, b = (shipped_run(run_id) for run_id in THREE[:2])
    cells_a = {(c["context_tokens"], c["concurrency"]): c for c in a["measurements"]["decode"]}
    both = [
        (key, cell, cells_a[key])
        for cell in b["measurements"]["decode"]
        if (key := (cell["context_tokens"], cell["concurrency"])) in cells_a
        and cell["status"] == "valid"
        and cells_a[key]["status"] == "valid"
    ]
    assert both
    first_table = page.locator("#compare-result table.rt").first
    assert "B against A, tok/s per accelerator" in page.locator("#ratio-h-1").inner_text()
    (context, level), cell_b, cell_a = both[0]
    levels = sorted(
        {c["concurrency"] for c in a["measurements"]["decode"] + b["measurements"]["decode"]}
    )
    contexts = sorted(
        {c["context_tokens"] for c in a["measurements"]["decode"] + b["measurements"]["decode"]}
    )
    shown = first_table.evaluate(COLUMNS_JS)[contexts.index(context)][levels.index(level)]
    per_device = (
        cell_a["total_tokens_per_s"] / a["hardware"]["count"],
        cell_b["total_tokens_per_s"] / b["hardware"]["count"],
    )
    assert f"A {per_device[0]:,.1f} · B {per_device[1]:,.1f}" in shown
    # Every row has a column for each request count, spans counted.
    assert {len(row) for row in first_table.evaluate(COLUMNS_JS)} == {len(levels)}
    # No percentage unless both cells are valid: count them from the files.
    statuses = {}
    for key, cell in cells_a.items():
        statuses[key] = [cell["status"], None]
    for cell in b["measurements"]["decode"]:
        statuses.setdefault((cell["context_tokens"], cell["concurrency"]), [None, None])[1] = cell[
            "status"
        ]
    valid_pairs = sum(1 for s in statuses.values() if s == ["valid", "valid"])
    texts: list[str] = first_table.locator("td").all_inner_texts()
    assert sum("%" in t for t in texts) == valid_pairs
    for t in texts:
        if "queued" in t.lower() or "over capacity" in t.lower():
            assert "%" not in t, t
    # The setup table marks the launch settings that differ, with each run's value.
    row = page.locator("#compare-result table.facts tr", has_text="Launch: Tensor parallel")
    assert row.get_attribute("class") == "df"
    assert row.locator("td").all_inner_texts() == ["2", "4", "no command"]
    speculative = page.locator(
        "#compare-result table.facts tr", has_text="Launch: Speculative decoding"
    )
    assert speculative.locator("td").all_inner_texts() == ["DSPARK", "MTP, 2 tokens", "no command"]
    # Decode curves at every context two or more of the runs measured, from the files.
    measured = [
        {
            c["context_tokens"]
            for c in shipped_run(run_id)["measurements"]["decode"]
            if c["status"] in ("valid", "requests_queued")
            and c.get("total_tokens_per_s") is not None
        }
        for run_id in THREE
    ]
    shared = sorted(c for c in set().union(*measured) if sum(c in m for m in measured) >= 2)
    captions = page.locator("#compare-result .plot-grid figure.plot figcaption").all_inner_texts()
    assert captions == [f"{context_label(c)} context" for c in shared]
    # The y axis's title: the frame the first plot uses (a <use> of the page's sprite).
    frame = page.locator("#compare-result figure.plot > svg > use").first.get_attribute("href")
    assert "per accelerator" in page.locator(f"{frame}y").text_content()
    visit.assert_clean()


def test_readers_view_of_equal_counts_shows_per_accelerator_beside_totals(browse: Browsing) -> None:
    """Two runs on 4 accelerators each: totals are compared, each cell has its per-accelerator
    figures (recomputed from the result files), and the caption says how they are derived."""
    a, b = "rtx6kpro4x-vllm-qwen35-397b-awq-mtp", "rtx6kpro4x-vllm-qwen35-397b-nvfp4-nomtp"
    expected = expected_per_accelerator(shipped_run(a), shipped_run(b))
    decode = shipped_run(a)["measurements"]["decode"] + shipped_run(b)["measurements"]["decode"]
    contexts = sorted({c["context_tokens"] for c in decode})
    levels = sorted({c["concurrency"] for c in decode})

    def ratio_section(page: Any) -> str:
        section = page.locator("section", has=page.locator("#ratio-h-1"))
        text: str = (
            section.inner_text()
            + "\n"
            + page.locator("p.legend", has_text="Colour steps").inner_text()
        )
        return text

    visit = browse.open(f"/compare/?runs={a},{b}")
    page = visit.page
    page.locator("#compare-result table.rt").first.wait_for()
    assert "B against A, total tok/s" in page.locator("#ratio-h-1").inner_text()
    rows = page.locator("#compare-result table.rt").first.evaluate(COLUMNS_JS)
    assert len(rows) == len(contexts)
    for i, context in enumerate(contexts):
        for j, level in enumerate(levels):
            want = expected.get((context, level))
            lines = [line for line in rows[i][j].splitlines() if line.startswith("per acc.")]
            assert lines == ([want] if want else []), (context, level)
    assert "derived: total ÷ 4" in ratio_section(page)
    visit.assert_clean()


def test_every_ready_made_comparison_is_a_natural_pair_the_view_draws(
    browse: Browsing, built_site: Any
) -> None:
    """/compare/ offers each natural pair read from the files (older, then newer), as the
    reader's view of the newer against the older; each draws every section, and "Make baseline"
    turns it round."""
    pairs = natural_pairs_from_files(built_site.parent / "content")
    listing = browse.open("/compare/", javascript=False)
    hrefs = listing.js(
        """() => Array.from(document.querySelectorAll("#pairs-h ~ ul a"))
            .map((a) => new URL(a.href).searchParams.get("runs"))"""
    )
    listing.assert_clean()
    assert sorted(hrefs) == [f"{a},{b}" for a, b in pairs]
    for a, b in pairs:
        results = [
            json.loads((built_site / "runs" / f"{run_id}.json").read_text(encoding="utf-8"))
            for run_id in (a, b)
        ]
        if not all(result["measurements"]["decode"]["rows"] for result in results):
            continue  # a run without decode cells: no matrix (test_readers_view_draws_prefill)
        visit = browse.open(f"/compare/?runs={a},{b}")
        page = visit.page
        page.locator("#compare-result figure.plot").last.wait_for()
        for selector in ("table.facts", "table.rt", "#curves-h", "#pareto-h"):
            assert page.locator(f"#compare-result {selector}").count() >= 1, (a, b, selector)
        plots = page.locator("#compare-result figure.plot > svg")
        assert plots.count() >= 1 and all(
            box and box["width"] > 100
            for box in (plots.nth(i).bounding_box() for i in range(plots.count()))
        )
        heading = page.locator("#ratio-h-1")
        assert heading.inner_text().startswith("Sustained decode, B against A")
        page.get_by_role("button", name="Make baseline").first.click()
        page.wait_for_url(f"**/compare/?runs={b},{a}")
        visit.assert_clean()


def test_every_ratio_of_a_pair_both_ways_round(browse: Browsing) -> None:
    """The shown change of every valid cell is the newer against the older, then with the newer
    as the baseline the older against it: both worked out here from the two result files, as are
    the colour (blue above the baseline, orange below) and the arrow's direction."""
    a, b = PAIR
    raw = [
        {
            (c["context_tokens"], c["concurrency"]): c
            for c in shipped_run(run_id)["measurements"]["decode"]
        }
        for run_id in PAIR
    ]
    contexts = sorted({key[0] for run in raw for key in run})
    levels = sorted({key[1] for run in raw for key in run})
    # Each cell's shown change, its arrow (the ::before of the change) and whether its background is
    # blue or orange.
    shown_js = """(table) => Array.from(table.tBodies[0].rows)
        .map((row) => Array.from(row.cells).slice(1)
        .flatMap((td) => {
        const b = Array.from(td.querySelectorAll("b")).find((el) => el.checkVisibility());
        const bg = getComputedStyle(td).backgroundColor.match(/[0-9.]+/g).map(Number);
        const colour = bg.length > 3 && bg[3] === 0 ? "none" : bg[2] > bg[0] ? "blue" : "orange";
        const arrow = b ? getComputedStyle(b, "::before").content : "";
        return Array(td.colSpan).fill(b ? [b.innerText.trim(), arrow, colour] : null);
    }))"""
    for view, runs in (("B against A", f"{a},{b}"), ("A against B", f"{b},{a}")):
        visit = browse.open(f"/compare/?runs={runs}")
        table = visit.page.locator("#compare-result table.rt")
        table.wait_for()
        shown = table.evaluate(shown_js)
        checked = 0
        for i, context in enumerate(contexts):
            for j, level in enumerate(levels):
                ca, cb = raw[0].get((context, level)), raw[1].get((context, level))
                if not (ca and cb and ca["status"] == cb["status"] == "valid"):
                    assert shown[i][j] is None, (view, context, level)
                    continue
                x, y = ca["total_tokens_per_s"], cb["total_tokens_per_s"]
                change = y / x - 1 if view == "B against A" else x / y - 1
                text, arrow, colour = shown[i][j]
                assert text == signed_percent(change), (view, context, level)
                assert ("▲" in arrow) == (change >= 0.005) and ("▼" in arrow) == (
                    change <= -0.005
                ), (view, arrow)
                if abs(change) >= 0.03:
                    assert colour == ("blue" if change > 0 else "orange"), (
                        view,
                        context,
                        level,
                        colour,
                    )
                checked += 1
        assert checked >= 20
        visit.assert_clean()


def test_an_unknown_run_in_the_address_is_named(browse: Browsing) -> None:
    visit = browse.open(f"/compare/?runs=no-such-run,{THREE[0]}")
    page = visit.page
    page.locator("#compare-warning").wait_for()
    assert page.locator("#compare-warning").inner_text() == "No such run on this site: no-such-run."
    assert page.locator("#compare-result").inner_text() == "Pick at least two runs."
    assert page.url.endswith(f"?runs={THREE[0]}")  # the address keeps only what is shown
    visit.assert_clean()


# The prefill table as a reader meets it: per row its header (and how many rows it spans), each
# cell's text, and the bar's classes (width and colour) with its drawn width in percent of its cell.
PREFILL_JS = """(root) => Array.from(document.querySelectorAll(root + " table.pf tr"))
    .map((tr) => ({
    header: tr.querySelector("th")
        ? [tr.querySelector("th").innerText, tr.querySelector("th").rowSpan] : null,
    cells: Array.from(tr.querySelectorAll("td")).map((td) => td.innerText.trim()),
    bar: (() => { const i = tr.querySelector("td > i"), style = getComputedStyle(i.parentElement);
                  const track = i.parentElement.getBoundingClientRect().width
                    - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
                  return [i.className,
                      Math.round(i.getBoundingClientRect().width / track * 100)]; })(),
  }))"""


def test_readers_view_draws_prefill(browse: Browsing) -> None:
    """The reader's view of a natural pair draws a prefill row for each run at each context it
    measured (A over B), under the context's header, each bar as wide as its class says and the
    longest at 100 %: read from the two result files."""
    measured = [
        {
            p["context_tokens"]: p["prompt_tokens_per_s"]
            for p in shipped_run(run_id)["measurements"]["prefill"]
            if p.get("prompt_tokens_per_s") is not None
        }
        for run_id in PAIR
    ]
    client = browse.open(f"/compare/?runs={PAIR[0]},{PAIR[1]}")
    client.page.locator("#compare-result table.pf").wait_for()
    got = client.js(PREFILL_JS, "#compare-result")
    client.assert_clean()
    want = [
        (f"{context_label(context)} context", letter)
        for context in sorted(set(measured[0]) | set(measured[1]))
        for letter, figures in zip("AB", measured, strict=True)
        if context in figures
    ]
    assert len(got) == len(want) >= 6
    header = None
    for row, (label, letter) in zip(got, want, strict=True):
        header = row["header"][0] if row["header"] else header
        assert (header, row["cells"][0]) == (label, letter), row
        width = int(row["bar"][0].split()[0][1:])
        assert abs(row["bar"][1] - width) <= 1, row
    peak = max(max(figures.values()) for figures in measured)
    widths = [int(row["bar"][0].split()[0][1:]) for row in got]
    assert max(widths) == 100 and peak > 0


def test_changes_in_percent_round_as_python_does(browse: Browsing) -> None:
    # Python's round breaks a true tie to even (12.5 % → 12 %, −13.5 % → −14 %); Math.round goes up.
    changes = [
        0.125,
        0.135,
        -0.125,
        -0.135,
        0.004,
        -0.004,
        0.005,
        -0.005,
        0.015,
        1.5,
        -0.5,
        0.0625,
        2 / 3,
    ]
    visit = browse.open("/compare/?runs=" + ",".join(THREE))
    shown = visit.js("(changes) => changes.map(window.sitegenCompare.percent)", changes)
    expected = []
    for change in changes:
        rounded = round(change * 100)
        expected.append("0%" if rounded == 0 else f"{rounded:+d}%".replace("-", "−"))
    assert shown == expected
    assert shown[0] == "+12%" and shown[3] == "−14%"


LEGEND_JS = """(root) => Array.from(document.querySelectorAll(root + ' .chart-legend li[data-run]'))
    .map((li) => [li.dataset.run, li.querySelector('i').className])"""


def test_the_readers_view_draws_each_run_in_its_model_page_colour(browse: Browsing) -> None:
    """A run's colour in the reader's view is its colour on its model's page (docs/comparisons.md),
    whichever run is the baseline; runs of different models get distinct colours."""
    places = model_colour_places(REPO / "content")
    for runs in (PAIR, PAIR[::-1]):
        visit = browse.open("/compare/?runs=" + ",".join(runs))
        visit.page.locator("#compare-result .chart-legend").first.wait_for()
        keys = dict(visit.js(LEGEND_JS, "#compare-result"))
        assert keys == {run_id: f"k{places[run_id]}" for run_id in runs}
        visit.assert_clean()
    visit = browse.open("/compare/?runs=" + ",".join(THREE))
    visit.page.locator("#compare-result .chart-legend").first.wait_for()
    keys = dict(visit.js(LEGEND_JS, "#compare-result"))
    assert len(keys) == 3 and len(set(keys.values())) == 3
    assert keys[THREE[0]] == f"k{places[THREE[0]]}"
    visit.assert_clean()


def test_the_scripts_write_contexts_as_the_pages_do(browse: Browsing) -> None:
    """site.js's contextLabel (compare, point and capacity views) follows the documented rule,
    checked against this test's own arithmetic over counts below, at and between K steps."""
    counts = [
        0,
        1,
        500,
        1023,
        1024,
        1075,
        1076,
        1536,
        5000,
        8190,
        8192,
        10496,
        67176,
        1043456,
        1048576,
        *range(1024, 40000, 97),
    ]
    visit = browse.open("/")
    shown = visit.js("(counts) => counts.map((n) => window.sitegenNumbers.contextLabel(n))", counts)
    assert shown == [context_label(n) for n in counts]
    visit.assert_clean()


# Two runs of one workload (the office load at 0.3 req/s) on BF16 and NVFP4, and a run of
# another workload (the burst) that shares no load point with them.
LOADS = (
    "dgxspark-vllm-gemma4-26b-bf16-office-baseline-2026-06-22",
    "dgxspark-vllm-gemma4-26b-nvfp4-office-baseline-2026-06-23",
    "dgxspark-vllm-gemma4-26b-bf16-monday-peak-c25-2026-06-22",
)


def test_the_readers_view_sets_load_points_side_by_side(browse: Browsing) -> None:
    """Open-loop runs have no decode cells: the view compares the load points two runs measured
    at one load and workload, read here from the result files."""
    visit = browse.open("/compare/?runs=" + ",".join(LOADS))
    page = visit.page
    page.locator("#loads table").wait_for()
    points = [shipped_run(run_id)["measurements"]["load_points"] for run_id in LOADS]
    (a,), (b,) = points[0], points[1]
    assert a["request_rate"] == b["request_rate"] and a["arrival"] == b["arrival"]
    assert abs(b["input_tokens_per_request"] / a["input_tokens_per_request"] - 1) <= 0.10
    assert all(
        (p["request_rate"], p["arrival"], p.get("burstiness"), p.get("max_concurrency"))
        != (a["request_rate"], a["arrival"], a.get("burstiness"), a.get("max_concurrency"))
        or abs(p["input_tokens_per_request"] / a["input_tokens_per_request"] - 1) > 0.10
        for p in points[2]
    )  # the burst shares nothing with them
    rows = page.locator("#loads tbody tr")
    assert rows.count() == 1
    cells = [rows.nth(0).locator("td").nth(i).inner_text().split("\n") for i in range(3)]
    head = rows.nth(0).locator("th").inner_text()
    burst = a.get("burstiness")
    shape = a["arrival"] + (f" {burst:g}" if burst is not None else "")
    assert head == (
        f"{a['request_rate']:g} req/s ({shape}), {a['input_tokens_per_request']:,} tokens in"
    )
    change = signed_percent(b["total_tokens_per_s"] / a["total_tokens_per_s"] - 1)
    assert cells[0] == [f"{a['total_tokens_per_s']:,.1f}", f"{a['ttft_ms']:,.0f} ms TTFT"]
    assert cells[1] == [
        f"{b['total_tokens_per_s']:,.1f} {change}",
        f"{b['ttft_ms']:,.0f} ms TTFT",
    ]
    assert cells[2] == ["—"]
    # Nothing else to compare: no ratio, curve, frontier or prefill section says so at length.
    assert page.locator("#curves-h").count() == 0 and page.locator("#prefill-h").count() == 0
    assert "None of these runs measured decode cells or prefill" in visit.page.inner_text(
        "#compare-result"
    )
