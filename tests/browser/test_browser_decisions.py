"""Decision pages a reader can use (issue 41), in real chromium: the model page's frontier at
one context at a time, and no decision view scrolling sideways at a desk or on a phone.

What each page should show is worked out here from the built site's result files
(/runs/<id>.json), not from sitegen's code."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.kit.browser import DESKTOP, PHONE, Browsing, Visit
from tests.kit.capacity_json import capacity_records
from tests.kit.context_rule import context_label
from tests.kit.frontier_rule import documents, frontier_contexts, left_to_browser

pytestmark = pytest.mark.browser

QWEN = "/models/qwen3-5-397b-a17b/index.html"


def shown_frontiers(visit: Visit) -> list[str]:
    """The caption of each frontier chart shown, or the note that stands in its place for a
    chart the page leaves to the browser, without JavaScript."""
    return visit.js("""() => Array.from(document.querySelectorAll(".pareto-at"))
        .filter((d) => getComputedStyle(d).display !== "none")
        .map((d) => (d.querySelector("figcaption") || d.querySelector(".frontier-wait"))
            .innerText)""")


@pytest.mark.parametrize("javascript", [True, False])
def test_the_frontier_shows_one_context_and_offers_the_others(
    browse: Browsing, built_site: Path, javascript: bool
) -> None:
    default, offered = frontier_contexts(built_site, "Qwen/Qwen3.5-397B-A17B")
    assert len(offered) >= 3 and default != 0  # the shipped runs: 0, 16K, 32K … shared
    visit = browse.open(QWEN, javascript=javascript)
    assert shown_frontiers(visit) == [
        f"Throughput against interactivity at {context_label(default)} context"
    ]
    nav = visit.page.locator(f"#pareto-{default} .context-pick")
    assert nav.inner_text().split(":", 1)[1].split() == [context_label(c) for c in offered]
    other = next(c for c in offered if c not in (default, 0))
    nav.get_by_role("link", name=context_label(other), exact=True).click()
    visit.page.wait_for_function(f"() => location.hash === '#pareto-{other}'")
    if javascript:
        visit.page.wait_for_function("() => !document.querySelector('.frontier-wait')")
    assert shown_frontiers(visit) == [
        f"The chart at {context_label(other)} context and its figures are drawn by your browser "
        "with JavaScript, from the site's data; every run's page has all its figures."
        if not javascript and left_to_browser(built_site, "Qwen/Qwen3.5-397B-A17B", other)
        else f"Throughput against interactivity at {context_label(other)} context"
    ]
    # Context 0 is said what it is where it is offered.
    visit.page.locator(f"#pareto-{other} .context-pick").get_by_role(
        "link", name="0", exact=True
    ).click()
    assert shown_frontiers(visit) == [
        "Throughput against interactivity at context 0 (no earlier context: "
        "each request's own short prompt only)"
    ]
    visit.assert_clean()


def test_the_frontier_names_each_point_without_javascript(
    browse: Browsing, built_site: Path
) -> None:
    default, _ = frontier_contexts(built_site, "Qwen/Qwen3.5-397B-A17B")
    visit = browse.open(QWEN, javascript=False)
    chart = visit.page.locator(f"#pareto-{default}")
    chart.locator("summary").click()
    # A run's name heads its rows once (th rowspan): each row's figures are its td cells.
    rows = chart.locator("table.frontier-figures tbody tr").evaluate_all(
        "(rows) => rows.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText))"
    )
    expected = set()
    for document in documents(built_site).values():
        if document["run"].get("base_model") != "Qwen/Qwen3.5-397B-A17B":
            continue
        count = document["hardware"]["count"]
        cells = [
            cell
            for cell in document["measurements"]["decode"]
            if cell["context_tokens"] == default
            and cell["status"] == "valid"
            and cell.get("per_request_tokens_per_s") is not None
        ]
        if len({cell["concurrency"] for cell in cells}) < 2:
            continue  # no trade-off to draw: named under the chart instead
        expected |= {
            (
                str(cell["concurrency"]),
                f"{cell['per_request_tokens_per_s']:,.1f}",
                f"{cell['total_tokens_per_s'] / count:,.1f}",
            )
            for cell in cells
        }
    shown = {tuple(row[0:3]) for row in rows}
    assert shown == expected and len(rows) == len(expected)
    header = chart.locator("table.frontier-figures thead").inner_text()
    assert (
        "Requests at once" in header
        and "Per-request tok/s (" in header
        and "per accelerator (derived)" in header
    )
    # The figures line up on the right like their headers; the run and the mark do not.
    aligned = chart.locator("table.frontier-figures tbody tr").first.evaluate(
        "(tr) => [...tr.cells].map((td) => getComputedStyle(td).textAlign)"
    )
    assert aligned[1:4] == ["right"] * 3 and "right" not in (aligned[0], aligned[4])
    visit.assert_clean()


def overflow(visit: Visit) -> dict[str, Any]:
    """How far the page reaches past the viewport, and any figure cell of the runs table that
    sits outside it or without a label (a header above it, or its card's label)."""
    return visit.js("""() => {
        const width = document.documentElement.clientWidth;
        const outside = [];
        document.querySelectorAll("table.runs td.op-col").forEach((td) => {
            const box = td.getBoundingClientRect();
            if (box.width && (box.left < 0 || box.right > width + 0.5)) outside.push(td.innerText);
            if (!td.getAttribute("data-label")) outside.push("unlabelled: " + td.innerText);
        });
        return {scroll: document.documentElement.scrollWidth - width, outside: outside};
    }""")


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_index_at_an_operating_point_fits_the_screen(
    browse: Browsing, width: int, scheme: str
) -> None:
    visit = browse.open(
        "/?context=32768&concurrency=16&level=server&price=2", width=width, scheme=scheme
    )
    visit.page.wait_for_selector("td.op-col")
    found = overflow(visit)
    assert found == {"scroll": 0, "outside": []}
    # The figures' region does not scroll sideways either: capacity and cost are in view.
    region = visit.js("""() => { const r = document.querySelector(".runs-scroll");
                                 return r.scrollWidth - r.clientWidth; }""")
    assert region <= 1
    headers = visit.js(
        "() => Array.from(document.querySelectorAll('th.op-col')).map((th) => th.innerText)"
    )
    assert any(h.startswith("Capacity at 32K, server") for h in headers)
    assert any(h.startswith("USD per million output tokens") for h in headers)
    visit.assert_clean()


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_a_model_page_does_not_scroll_sideways(browse: Browsing, width: int) -> None:
    visit = browse.open(QWEN, width=width)
    assert (
        visit.js(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        == 0
    )
    visit.assert_clean()


def test_a_comparison_of_different_models_headlines_no_change(
    browse: Browsing, built_site: Path
) -> None:
    runs = documents(built_site)
    unlike = ("h200nvl2-sglang-deepseek-v4-flash-dspark", "rtx6kpro4x-vllm-qwen35-397b-awq-mtp")
    like = ("rtx6kpro4x-vllm-qwen35-397b-nvfp4-nomtp", "rtx6kpro4x-vllm-qwen35-397b-awq-mtp")
    model = {
        run_id: runs[run_id]["run"].get("base_model") or runs[run_id]["run"]["model"]
        for run_id in unlike + like
    }
    assert model[unlike[0]] != model[unlike[1]] and model[like[0]] == model[like[1]]
    visit = browse.open("/compare/?runs=" + ",".join(unlike))
    visit.page.locator("#compare-result table.rt").first.wait_for()
    summary = visit.page.locator("#ratio-h-1 + p").inner_text()
    assert "median change" not in summary and "faster" not in summary
    assert f"runs of different models ({model[unlike[1]]}, {model[unlike[0]]})" in summary
    same = browse.open("/compare/?runs=" + ",".join(like))
    same.page.locator("#compare-result table.rt").first.wait_for()
    assert "median change" in same.page.locator("#ratio-h-1 + p").inner_text()
    visit.assert_clean()
    same.assert_clean()


def test_each_figure_names_its_statistic_at_an_operating_point(
    browse: Browsing, built_site: Path
) -> None:
    runs = documents(built_site)
    statistic = {
        run_id: d["run"].get("latency_statistic") or "as reported" for run_id, d in runs.items()
    }
    assert len(set(statistic.values())) > 1  # the shipped runs mix them: each figure says its own
    visit = browse.open("/?context=32768&concurrency=16")
    visit.page.wait_for_selector("td.op-col")
    headers = visit.js(
        "() => Array.from(document.querySelectorAll('th.op-col')).map((th) => th.innerText.trim())"
    )
    assert (
        "Per request tok/s (each run's statistic)" in headers
        and "TTFT (each run's statistic)" in headers
    )
    cells = visit.js(r"""() => Object.fromEntries(
        Array.from(document.querySelectorAll("table.runs tbody tr")).map((row) => [
            decodeURIComponent(/runs\/([^/]+)\/index\.html$/
                .exec(row.querySelector("th a").href)[1]),
            Array.from(row.querySelectorAll("td.op-col")).map((td) => td.innerText.trim())]))""")
    named = 0
    for run_id, texts in cells.items():
        if texts[1] not in ("—", "not measured"):
            assert f"({statistic[run_id]})" in texts[1] and texts[2].endswith(
                f"({statistic[run_id]})"
            ), texts
            named += 1
    assert named >= 2
    visit.assert_clean()


ANSWER_FITS = """() => {
    const width = document.documentElement.clientWidth;
    const problems = [];
    document.querySelectorAll("table.answer tbody td").forEach((td) => {
        const box = td.getBoundingClientRect();
        if (!box.width) return;
        if (box.left < 0 || box.right > width + 0.5) problems.push("outside: " + td.innerText);
        // Its label: the column's header at a desk; on a phone, shown before it, its data-label
        // or (the shipped pages' cells carry none) the same column's header text.
        const head = td.closest("table").tHead;
        const header = head.rows[0].cells[td.cellIndex];
        const headerShown = header && getComputedStyle(head).display !== "none";
        // A verdict's cell spans the figures' columns: the style sheet labels it (td.state).
        const label = td.getAttribute("data-label") ||
            (td.classList.contains("state") ? "Capacity" : header ? header.innerText : "");
        const shown = getComputedStyle(td, "::before").content;
        const labelShown = label !== "" && shown.includes(label);
        if (!headerShown && !labelShown) problems.push("unlabelled: " + td.innerText);
    });
    const meeting = "table.answer tbody tr:not(.none_meets):not(.cannot_tell)";
    const figures = [...document.querySelectorAll(meeting)]
        .reduce((count, tr) => count + tr.querySelectorAll("td").length - 1, 0);
    return {scroll: document.documentElement.scrollWidth - width, problems: problems,
            figures: figures};
}"""


# A level page (a row a setup, a column a context): the page itself never scrolls sideways; its
# table scrolls in its region, each cell under its context's head, the setup column kept in view
# when the region is scrolled to its far end.
LEVEL_FITS = """() => {
    const width = document.documentElement.clientWidth;
    const problems = [];
    const table = document.querySelector("table.level"), region = table.closest(".scroll");
    const heads = table.tHead.rows[0].cells;
    if (getComputedStyle(table.tHead).display === "none") problems.push("no head");
    table.querySelectorAll("tbody td").forEach((td) => {
        if (!heads[td.cellIndex] || !heads[td.cellIndex].innerText.trim()) {
            problems.push("unlabelled: " + td.innerText);
        }
    });
    region.scrollLeft = region.scrollWidth;
    const edge = region.getBoundingClientRect().left;
    table.querySelectorAll("tbody th").forEach((th) => {
        const box = th.getBoundingClientRect();
        if (Math.abs(box.left - edge) > 2) problems.push("setup out of view: " + th.innerText);
    });
    region.scrollLeft = 0;
    const figures = [...table.querySelectorAll("tbody td:not([class])")]
        .filter((td) => td.innerText.trim() !== "—").length;
    return {scroll: document.documentElement.scrollWidth - width, problems: problems,
            figures: figures};
}"""


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_capacity_pages_fit_the_screen_with_every_figure_labelled(
    browse: Browsing, width: int, scheme: str
) -> None:
    overview = browse.open("/capacity/", width=width, scheme=scheme)
    assert (
        overview.js(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        == 0
    )
    level = browse.open("/capacity/server/qwen3-5-397b-a17b/index.html", width=width, scheme=scheme)
    found = level.js(LEVEL_FITS)
    assert found["scroll"] == 0 and found["problems"] == [] and found["figures"] >= 8
    asked = browse.open(
        "/capacity/?model=qwen3-5-397b-a17b&context=32768&level=interactive&users=20"
        "&price.rtx%20pro%206000%20blackwell%20server%20edition=2",
        width=width,
        scheme=scheme,
    )
    asked.page.wait_for_selector("#capacity-answer table.answer")
    found = asked.js(ANSWER_FITS)
    assert found["scroll"] == 0 and found["problems"] == [] and found["figures"] >= 1
    for visit in (overview, level, asked):
        visit.assert_clean()


def test_a_readers_question_is_answered_from_the_front_page_in_three_links(
    browse: Browsing, built_site: Path
) -> None:
    # "Which setup serves the most users per accelerator of Qwen3.5-397B at 32K within the server
    # level?": the site's nav, the model's 32K line on /capacity/, the answer, best first.
    visit = browse.open("/")
    page = visit.page
    page.locator("header.site-header nav a", has_text="Capacity").click()
    page.wait_for_url("**/capacity/index.html")
    page.locator("#m-qwen3-5-397b-a17b li", has_text="32K").get_by_role(
        "link", name="server"
    ).click()
    page.wait_for_url("**/capacity/server/qwen3-5-397b-a17b/index.html#c-32768")
    # The column of 32K (its head is the address's target): the cell marked best in it.
    best_href = page.evaluate(
        """() => {
            const column = document.getElementById("c-32768").cellIndex;
            const rows = [...document.querySelectorAll("table.level tbody tr")].filter((row) =>
                /^\\S+ best$/.test((row.cells[column].querySelector("b") || {}).textContent || ""));
            return rows.map((row) => row.querySelector("th a").getAttribute("href"));
        }"""
    )
    assert len(best_href) == 1, best_href
    best_run = re.search(r"runs/([^/]+)/index\.html", best_href[0])
    # The best by the records: the most users per accelerator at 32K within server, of this model.
    rows = capacity_records(built_site)  # with their figures, from the run JSON
    model = {
        p.stem: json.loads(p.read_text())["run"].get("base_model")
        for p in (built_site / "runs").glob("*.json")
    }
    held = [
        r
        for r in rows
        if r["service_level"] == "server"
        and r["context_tokens"] == 32768
        and model[r["run"]] == "Qwen/Qwen3.5-397B-A17B"
        and r["users_per_accelerator"] is not None
    ]
    best = max(held, key=lambda r: (r["users_per_accelerator"], r["tokens_per_s_per_accelerator"]))
    assert best_run and best_run.group(1) == best["run"]
    visit.assert_clean()
