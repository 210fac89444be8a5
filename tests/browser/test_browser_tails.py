"""The run page's "Medians and tails" and "Power and energy" tables, made by the reader's browser
from the run JSON when their detail is opened (run.js): checked in chromium on the shipped seed
run against the raw benchmark file it was imported from, figure by figure, with the formatting
worked out here. Without JavaScript the page says where the figures are instead."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.kit.browser import Browsing
from tests.kit.project import DATA, SEED_RUN_ID

pytestmark = pytest.mark.browser

SAMPLE = DATA / "upstream" / "sample_benchmark_results.json"  # the seed run's raw file


def _context(tokens: int) -> str:
    """The seed's contexts are whole multiples of 1,024 tokens: 8K, 1019K."""
    assert tokens % 1024 == 0
    return f"{tokens // 1024}K"


def _expected_rows() -> list[list[str]]:
    """Every measured cell of the raw file (seconds there), by context and requests at once:
    TTFT p50/p90/p99 in whole ms, time between tokens p50/p90/p99 to 0.1 ms, then per-request
    speed's p50 as the file gives it and its p10 and p1 as 1000 ÷ the time between tokens at p90
    and p99 (the file has no such percentile of speed), marked † as derived."""
    cells = json.loads(SAMPLE.read_text(encoding="utf-8"))["results"]
    rows = []
    for cell in sorted(cells, key=lambda c: (c["context_tokens"], c["concurrency"])):
        row = [_context(cell["context_tokens"]), str(cell["concurrency"])]
        row += [f"{cell[f'ttft_{p}'] * 1000:,.0f} ms" for p in ("p50", "p90", "p99")]
        row += [f"{cell[f'inter_token_latency_{p}'] * 1000:,.1f} ms" for p in ("p50", "p90", "p99")]
        row += [f"{cell['output_tps_per_user_p50']:,.1f}"]
        row += [f"{1 / cell[f'inter_token_latency_{p}']:,.1f}†" for p in ("p90", "p99")]
        rows.append(row)
    return rows


def _shown_rows(browse: Browsing, table: str) -> tuple[list[list[str]], int]:
    visit = browse.open(f"/runs/{SEED_RUN_ID}/")
    page = visit.page
    page.locator("table.figures tbody tr").first.wait_for()  # "All measurements" read the JSON
    page.locator(f"details:has(table.{table}) > summary").click()
    page.locator(f"table.{table} tbody tr").first.wait_for()
    rows: list[list[str]] = page.evaluate(
        """(table) => Array.from(document.querySelectorAll(`table.${table} tbody tr`))
            .map((row) => Array.from(row.cells).map((cell) => cell.textContent))""",
        table,
    )
    # The words for readers without JavaScript, gone.
    assert page.locator(f"#{table}-where").count() == 0
    visit.assert_clean()
    # Read once for every table of the page, not again when a detail opens.
    fetched = sum(url.endswith(f"/runs/{SEED_RUN_ID}.json") for url in visit.requests)
    return rows, fetched


def test_the_tails_table_is_the_raw_files_statistics(browse: Browsing) -> None:
    rows, fetched = _shown_rows(browse, "tails")
    assert fetched == 1
    expected = _expected_rows()
    assert len(expected) == 43
    assert rows == expected


def test_without_javascript_the_page_says_where_the_tails_are(browse: Browsing) -> None:
    visit = browse.open(f"/runs/{SEED_RUN_ID}/", javascript=False)
    page = visit.page
    page.locator("details.tails > summary").click()
    assert page.locator("table.tails").is_hidden()
    where = page.locator("#tails-where")
    assert where.is_visible()
    assert "result file (JSON)" in where.inner_text()
    assert where.locator("a").get_attribute("href") == f"../../runs/{SEED_RUN_ID}.json"


def _headers(browse: Browsing, table: str) -> Any:
    """A table's head, made by run.js as the page loads (the page carries none)."""
    visit = browse.open(f"/runs/{SEED_RUN_ID}/")
    return visit.js(
        """(table) => Array.from(document.querySelectorAll(`table.${table} thead tr`))
            .map((row) => Array.from(row.cells).map((cell) => cell.textContent))""",
        table,
    )


def test_the_head_names_each_column_the_rows_fill(browse: Browsing) -> None:
    assert _headers(browse, "power") == [
        [
            "Context",
            "Requests at once",
            "Total tok/s",
            "Average power",
            "Energy per output token (derived)",
            "Output tokens per joule (derived)",
        ]
    ]
    assert _headers(browse, "tails") == [
        [
            "Context",
            "Requests at once",
            "TTFT",
            "Time between tokens",
            "Per request tok/s, slow tail",
        ],
        ["p50", "p90", "p99", "p50", "p90", "p99", "p50", "p10", "p1"],
    ]


def _rate(value: float) -> str:
    """Total tok/s as the pages write it: 228.4, 9,544.0, 10.2K."""
    if value >= 10_000:
        return f"{value / 1000:.1f}".removesuffix(".0") + "K"
    return f"{value:,.1f}"


def _three_digits(value: float) -> str:
    digits = 0 if value >= 100 else 1 if value >= 10 else 2 if value >= 1 else 3
    return f"{value:,.{digits}f}"


def test_the_power_table_is_the_raw_files_power_and_derived_energy(browse: Browsing) -> None:
    """Each measured cell's average power as the raw file's hardware summary gives it, and the
    energy per output token derived from it and the cell's total tok/s."""
    rows, fetched = _shown_rows(browse, "power")
    assert fetched == 1
    cells = json.loads(SAMPLE.read_text(encoding="utf-8"))["results"]
    expected = []
    for cell in sorted(cells, key=lambda c: (c["context_tokens"], c["concurrency"])):
        watts = cell["hardware_summary"]["power_total_avg_w"]
        joules = watts / cell["aggregate_tps"]
        expected.append(
            [
                _context(cell["context_tokens"]),
                str(cell["concurrency"]),
                _rate(cell["aggregate_tps"]),
                f"{watts:,.0f} W",
                f"{_three_digits(joules)} J",
                f"{_three_digits(1 / joules)} tok/J",
            ]
        )
    assert len(expected) == 43
    assert rows == expected
    assert rows[0][4:] == ["3.67 J", "0.273 tok/J"]  # the seed's first cell, worked out by hand
