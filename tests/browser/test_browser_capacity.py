"""The operating-point picker and the static preset views in real chromium (docs/capacity.md).

Expected figures are read here from the built site's own result files (/runs/<id>.json),
not from the page's data files or sitegen's code."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.kit.browser import Browsing, Visit
from tests.kit.project import SEED_RUN_ID
from tests.kit.run_json import published_run

pytestmark = pytest.mark.browser


def results(site: Path) -> dict[str, dict[str, Any]]:
    return {path.stem: published_run(path) for path in sorted((site / "runs").glob("*.json"))}


def cell_at(document: dict[str, Any], context: int, concurrency: int) -> dict[str, Any] | None:
    near = [
        c
        for c in document["measurements"]["decode"]
        if abs(c["context_tokens"] - context) <= 0.03 * context and c["concurrency"] == concurrency
    ]
    near.sort(key=lambda c: (abs(c["context_tokens"] - context), c["context_tokens"]))
    return near[0] if near else None


def op_cells(visit: Visit) -> dict[str, list[str]]:
    """The operating-point columns of each row, by run id."""
    # A row's run is its first link's: runs/<id>/index.html.
    return visit.js(r"""() => Object.fromEntries(
        Array.from(document.querySelectorAll("table.runs tbody tr"))
        .map((row) => [decodeURIComponent(/runs\/([^/]+)\/index\.html$/
            .exec(row.querySelector("th a").href)[1]),
                       Array.from(row.querySelectorAll("td.op-col"))
                           .map((td) => td.innerText.trim())]))""")


def point_requests(visit: Visit, site: Path, context: int) -> list[str]:
    """What the picker should fetch for the index's runs at a context: the listing, then the
    file of each listed model that has a run within 3 % of it (worked out from the runs)."""
    models = set()
    for document in results(site).values():
        if any(
            abs(c["context_tokens"] - context) <= 0.03 * context
            for c in document["measurements"]["decode"]
        ):
            key = (
                (document["run"].get("base_model") or document["run"]["model"])
                .lower()
                .rsplit("/", 1)[-1]
            )
            models.add(re.sub(r"[^a-z0-9]+", "-", key).strip("-"))
    return sorted(
        [
            f"{visit.origin}/data/points/{context}.json",
            *(f"{visit.origin}/data/points/{context}/{slug}.json" for slug in models),
        ]
    )


def rate(value: float) -> str:
    return f"{value / 1000:.1f}".removesuffix(".0") + "K" if value >= 10_000 else f"{value:,.1f}"


# Where JavaScript's rounding and Python's part: true ties at the digit shown (an odd multiple
# of 2^-(d+1), which Python breaks to even and toFixed up), values just above a tie in binary
# though not in decimal (51.85), the K and M forms, thousands separators.
AWKWARD = [
    51.85,
    135.25,
    0.75,
    2.25,
    2.5,
    3.5,
    0.125,
    0.375,
    0.03125,
    0.09375,
    1316.5,
    1234.125,
    1234.565,
    10250.0,
    10350.0,
    12345.65,
    999949.9,
    1250000.0,
    1350000.0,
    7.0,
    1 / 3,
    9544.0,
    228.386789,
    16.0,
]


def _python_rate(value: float) -> str:
    # numbers.rate's rules, written with Python's own format: the reading both sides must match.
    if value >= 999_950:
        return f"{value / 1e6:.1f}".removesuffix(".0") + "M"
    if value >= 10_000:
        return f"{value / 1000:.1f}".removesuffix(".0") + "K"
    return f"{value:,.1f}"


def test_the_picker_writes_figures_as_python_does(browse: Browsing, built_site: Path) -> None:
    visit = browse.open("/")
    shown = visit.js(
        """(values) => values.map((v) => [window.sitegenPoint.rate(v), window.sitegenPoint.ms(v),
            window.sitegenPoint.users(v), window.sitegenPoint.money(v)])""",
        AWKWARD,
    )
    expected = [
        [
            _python_rate(v),
            f"{v:,.0f} ms",
            f"{v:,.1f}" if v % 1 else str(int(v)),
            f"${v:,.2f}" if v >= 0.1 else f"${v:.4f}",
        ]
        for v in AWKWARD
    ]
    assert shown == expected
    by_value = dict(zip(AWKWARD, shown, strict=True))
    assert (
        by_value[51.85][0] == "51.9"
        and by_value[135.25][0] == "135.2"
        and by_value[10250.0][0] == "10.2K"
    )
    assert (
        by_value[2.25][2] == "2.2"
        and by_value[0.125][3] == "$0.12"
        and by_value[1316.5][1] == "1,316 ms"
    )


def test_the_group_plots_write_figures_as_python_does(browse: Browsing, built_site: Path) -> None:
    model_page = (
        sorted((built_site / "models").glob("*/index.html"))[0].relative_to(built_site).as_posix()
    )
    visit = browse.open("/" + model_page)
    shown = visit.js(
        "(values) => values.map((v) => [window.sitegenPlots.rate(v), "
        "window.sitegenPlots.rateShort(v)])",
        AWKWARD,
    )
    short = [_python_rate(v) if v >= 10_000 else f"{v:,.0f}" for v in AWKWARD]
    assert shown == [[_python_rate(v), s] for v, s in zip(AWKWARD, short, strict=True)]


def test_index_at_an_operating_point_from_the_address(browse: Browsing, built_site: Path) -> None:
    visit = browse.open("/?context=32768&concurrency=16")
    visit.page.wait_for_selector("td.op-col")
    shown = op_cells(visit)
    documents = results(built_site)
    assert set(shown) == set(documents)
    measured = 0
    for run_id, document in documents.items():
        cell = cell_at(document, 32768, 16)
        first = shown[run_id][0]
        if cell is None:
            assert first == "not measured", run_id
            continue
        measured += 1
        total = cell["total_tokens_per_s"]
        assert first.startswith(rate(total)), (run_id, first)
        count = document["hardware"]["count"]
        if count > 1:
            assert f"{rate(total / count)} per accelerator" in first, (run_id, first)
    assert measured >= 2  # the seed run and others have a 32K × 16 cell
    # Only the context's listing and its models' files were fetched, and only because the
    # address asked for it: one file per model the page lists.
    assert sorted(u for u in visit.requests if "/data/" in u) == point_requests(
        visit, built_site, 32768
    )
    visit.assert_clean()


def test_first_load_fetches_no_operating_point_data(browse: Browsing) -> None:
    visit = browse.open("/")
    # point.js shows the form once it has set up (and started any fetch an address asks for);
    # then the page falls quiet, with every request it made seen.
    visit.page.locator("#point-form").wait_for(state="visible")
    visit.page.wait_for_load_state("networkidle")
    assert not visit.requested("/data/")
    visit.assert_clean()


def test_own_thresholds_and_price_are_kept_in_the_address(
    browse: Browsing, built_site: Path
) -> None:
    visit = browse.open("/")
    page = visit.page
    page.select_option("#point-form select[name=context]", "8192")
    page.select_option("#point-form select[name=concurrency]", "1")
    page.select_option("#point-form select[name=level]", "custom")
    page.fill("#point-form input[name=min_tps]", "20")
    page.fill("#point-form input[name=max_ttft]", "1000")
    page.fill("#point-form input[name='price.h200 nvl']", "2")  # the seed run's accelerator
    page.locator("#point-form button[type=submit]").click()
    page.wait_for_selector("td.op-col")
    query = parse_qs(urlsplit(page.url).query)
    assert query == {
        "context": ["8192"],
        "concurrency": ["1"],
        "level": ["custom"],
        "min_tps": ["20"],
        "max_ttft": ["1000"],
        "price.h200 nvl": ["2"],
    }

    # The shared address alone gives the same view, figures worked out here from the result file.
    shared = browse.open("/?" + urlsplit(page.url).query)
    shared.page.wait_for_selector("td.op-col")
    assert shared.page.locator("#point-form input[name=min_tps]").input_value() == "20"
    document = results(built_site)[SEED_RUN_ID]
    row = {
        c["concurrency"]: c
        for c in document["measurements"]["decode"]
        if c["context_tokens"] == 8192
    }
    best = None
    for concurrency in sorted(row):
        c = row[concurrency]
        if not (
            c["status"] == "valid"
            and c.get("per_request_tokens_per_s", 0) >= 20
            and c.get("ttft_ms", 1e9) <= 1000
        ):
            break
        best = c
    assert best is not None
    cells = op_cells(shared)[SEED_RUN_ID]
    count = document["hardware"]["count"]
    users = best["concurrency"] / count
    capacity = cells[4]
    assert capacity.startswith(f"{users:g}") and f"{best['concurrency']} requests" in capacity, (
        capacity
    )
    # The reader's own thresholds are worked out in the browser from the context's files.
    assert shared.requested("/data/points/8192.json")
    single = row[1]["total_tokens_per_s"]
    cost = 2 * count / (single * 3600) * 1e6
    assert cells[5].startswith(f"${cost:.2f}"), cells[5]
    visit.assert_clean()
    shared.assert_clean()


def test_named_level_capacity_from_the_one_point_file(browse: Browsing, built_site: Path) -> None:
    visit = browse.open("/?context=32768&concurrency=16&level=server")
    visit.page.wait_for_selector("td.op-col")
    assert sorted(u for u in visit.requests if "/data/" in u) == point_requests(
        visit, built_site, 32768
    )
    capacity = op_cells(visit)[SEED_RUN_ID][4]
    # Read off the seed run's 32K row: up to 32 requests every cell meets TTFT ≤ 2 s and ≥ 5 tok/s.
    row = {
        c["concurrency"]: c
        for c in results(built_site)[SEED_RUN_ID]["measurements"]["decode"]
        if c["context_tokens"] == 32768
    }
    assert all(
        row[n]["ttft_ms"] <= 2000 and row[n]["per_request_tokens_per_s"] >= 5
        for n in (1, 2, 4, 8, 16, 32)
    )
    assert row[64]["ttft_ms"] > 2000
    assert (
        capacity.startswith("16")
        and "32 requests" in capacity
        and rate(row[32]["total_tokens_per_s"]) in capacity
    )
    visit.assert_clean()


def test_no_cost_column_without_a_price(browse: Browsing) -> None:
    visit = browse.open("/?context=32768&concurrency=16&level=server")
    visit.page.wait_for_selector("td.op-col")
    headers = visit.js(
        "() => Array.from(document.querySelectorAll('th.op-col')).map((th) => th.innerText)"
    )
    assert not any("USD" in h for h in headers)
    assert "$" not in visit.js("() => document.querySelector('table.runs').innerText")
    visit.assert_clean()


def test_preset_links_work_without_javascript(browse: Browsing, built_site: Path) -> None:
    visit = browse.open("/", javascript=False)
    page = visit.page
    assert not page.locator("#point-form").is_visible()
    page.get_by_role("link", name="32K context × 16 requests, server").click()
    page.wait_for_url("**/at/32k-16/index.html")
    text = page.locator("table.point").inner_text()
    for run_id, document in results(built_site).items():
        cell = cell_at(document, 32768, 16)
        if cell and cell["status"] == "valid":
            assert rate(cell["total_tokens_per_s"]) in text, run_id
    assert "Not measured" in text
    visit.assert_clean()


def test_with_javascript_a_preset_reads_this_page_in_place(
    browse: Browsing, built_site: Path
) -> None:
    visit = browse.open("/")
    page = visit.page
    assert (
        page.locator("#point-form select[name=context]").input_value() == "8192"
    )  # the first preset, offered
    assert not visit.requested("/data/")
    page.get_by_role("link", name="32K context × 16 requests, server").click()
    page.wait_for_selector("td.op-col")
    assert urlsplit(page.url).path == "/"
    assert parse_qs(urlsplit(page.url).query) == {
        "context": ["32768"],
        "concurrency": ["16"],
        "level": ["server"],
    }
    cell = cell_at(results(built_site)[SEED_RUN_ID], 32768, 16)
    assert cell and op_cells(visit)[SEED_RUN_ID][0].startswith(rate(cell["total_tokens_per_s"]))
    visit.assert_clean()


def test_the_picker_on_a_group_page_fetches_from_the_site_root_under_a_sub_path(
    browser: Any, built_site: Path
) -> None:
    # point.js builds data/points/… from the page's data-root ("../../" on a model page), so the
    # fetch lands in the site's own folder wherever it is served; built with no base setting.
    from tests.kit.network import served_under

    model = next(
        page
        for page in sorted((built_site / "models").glob("*/index.html"))
        if f'href="../../runs/{SEED_RUN_ID}/index.html"' in page.read_text()
    )
    relative = model.relative_to(built_site).as_posix()
    with served_under(built_site, "/deep/sub/path/") as address:
        browsing = Browsing(browser, address.removesuffix("/deep/sub/path/"))
        try:
            visit = browsing.open(f"/deep/sub/path/{relative}?context=32768&concurrency=16")
            visit.page.wait_for_selector("td.op-col")
            # The picker's files, and group.js's for the decode charts at the page's other
            # contexts (data/points/<context>/<model>.json, built from the same data-root).
            fetched = [u for u in visit.requests if "/data/" in u]
            assert address + "data/points/32768.json" in fetched
            assert any(u.startswith(address + "data/points/32768/") for u in fetched)
            assert all(u.startswith(address + "data/points/") for u in fetched), fetched
            cell = cell_at(results(built_site)[SEED_RUN_ID], 32768, 16)
            assert cell and op_cells(visit)[SEED_RUN_ID][0].startswith(
                rate(cell["total_tokens_per_s"])
            )
            visit.assert_clean()
        finally:
            browsing.close()


def rows_at_point(visit: Visit) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """The table's visible headers, and each row's run with its visible cells' texts, once
    every row has the point's columns; the rows sorted by run."""
    visit.page.wait_for_function("""() => {
        const rows = Array.from(document.querySelectorAll("table.runs tbody tr"));
        return rows.length > 0 && rows.every((row) => row.querySelector("td.op-col"));
    }""")
    headers, rows = visit.js(r"""() => {
        const shown = (node) => getComputedStyle(node).display !== "none";
        const table = document.querySelector("table.runs");
        const headers = Array.from(table.tHead.rows[0].cells).filter(shown)
            .map((th) => th.innerText.trim());
        const rows = Array.from(table.tBodies[0].rows).map((row) => [
            decodeURIComponent(
                /runs\/([^/]+)\/index\.html$/.exec(row.querySelector("th a").href)[1]),
            Array.from(row.cells).filter(shown).map((cell) => cell.innerText.trim())]);
        return [headers, rows];
    }""")
    return headers, sorted((run, cells) for run, cells in rows)


def model_choice(documents: dict[str, dict[str, Any]]) -> tuple[str, set[str]]:
    """A model with two or more runs, as the filter's value (its base model, else itself, lower
    case), and its runs (from the files)."""
    by_model: dict[str, set[str]] = {}
    for run_id, document in documents.items():
        model = document["run"].get("base_model") or document["run"]["model"]
        by_model.setdefault(model.lower(), set()).add(run_id)
    model = max(sorted(by_model), key=lambda name: len(by_model[name]))
    assert len(by_model[model]) >= 2 and len(by_model) >= 2
    return model, by_model[model]


SHOWN = "() => document.getElementById('shown-count').innerText.includes('shown')"


def test_a_point_and_a_filter_combine_in_either_order(browse: Browsing, built_site: Path) -> None:
    model, runs = model_choice(results(built_site))
    # A point, then a filter: the filtered rows get the point's cells under its headers.
    first = browse.open("/?context=32768&concurrency=16&level=server")
    first.page.wait_for_selector("td.op-col")
    first.page.locator("#filters select[name=model]").focus()
    first.page.wait_for_function(
        "() => document.querySelectorAll('#filters select[name=model] option').length > 1"
    )
    first.page.select_option("#filters select[name=model]", model)
    first.page.wait_for_function(SHOWN)
    point_then_filter = rows_at_point(first)
    # A filter, then a point.
    second = browse.open("/?model=" + model)
    second.page.wait_for_function(SHOWN)
    page = second.page
    page.select_option("#point-form select[name=context]", "32768")
    page.select_option("#point-form select[name=concurrency]", "16")
    page.select_option("#point-form select[name=level]", "server")
    page.locator("#point-form button[type=submit]").click()
    filter_then_point = rows_at_point(second)

    assert point_then_filter == filter_then_point
    headers, rows = point_then_filter
    assert {run for run, _ in rows} == runs
    assert any(h.startswith("Capacity at 32K, server") for h in headers)
    for run, cells in rows:
        assert len(cells) == len(headers), (run, headers, cells)
    # Every run's total at the point is under the "Total tok/s at 32K × 16" header.
    column = next(i for i, h in enumerate(headers) if h.startswith("Total tok/s at 32K × 16"))
    documents = results(built_site)
    for run, cells in rows:
        cell = cell_at(documents[run], 32768, 16)
        expected = "not measured" if cell is None else rate(cell["total_tokens_per_s"])
        assert cells[column].startswith(expected), (run, cells[column])
    assert parse_qs(urlsplit(first.page.url).query)["model"] == [model]
    first.assert_clean()
    second.assert_clean()


def test_capacity_needs_no_number_of_requests(browse: Browsing, built_site: Path) -> None:
    visit = browse.open("/?context=32768&level=server")
    visit.page.wait_for_selector("td.op-col")
    headers = visit.js(
        "() => Array.from(document.querySelectorAll('th.op-col')).map((th) => th.innerText.trim())"
    )
    assert headers == ["Capacity at 32K, server: users per accelerator (derived)"]
    assert visit.page.locator("#point-form select[name=concurrency]").input_value() == ""
    # The seed run's 32K row, read here: every cell up to 32 requests meets TTFT ≤ 2 s, 5 tok/s.
    document = results(built_site)[SEED_RUN_ID]
    row = {
        c["concurrency"]: c
        for c in document["measurements"]["decode"]
        if c["context_tokens"] == 32768
    }
    held = max(
        n
        for n in row
        if all(
            row[m]["status"] == "valid"
            and row[m]["ttft_ms"] <= 2000
            and row[m]["per_request_tokens_per_s"] >= 5
            for m in row
            if m <= n
        )
    )
    capacity = op_cells(visit)[SEED_RUN_ID][0]
    users = held / document["hardware"]["count"]
    assert capacity.startswith(f"{users:g}") and f"{held} requests" in capacity, capacity
    visit.assert_clean()
