"""The shipped history in headless chromium: a setup's page draws its timelines with points that
link to their runs, the run page shows its load points apart from any matrix and its changes,
and the model page links to its setups; no console error, failed request or CSP violation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.kit.browser import Browsing
from tests.kit.project import DATA

pytestmark = pytest.mark.browser

REGRESSED = "dgxspark-vllm-gemma4-26b-bf16-monday-peak-c25-2026-08-06"
RAW = (
    DATA
    / "history"
    / "dgxspark1-vllm-gemma4-26b-a4b-bf16-monday-peak-c25"
    / "2026-08-06_vllm-0.26.0__10-monday-peak.json"
)


def test_a_setup_page_links_each_point_to_its_run(browse: Browsing, built_site: Path) -> None:
    records = json.loads((built_site / "data" / "changes.json").read_text(encoding="utf-8"))[
        "changes"
    ]
    setup = next(r["setup"] for r in records if r["run"] == REGRESSED)
    visit = browse.open(f"/setups/{setup}/")
    visit.assert_clean()
    page = visit.page
    chart = page.locator("figure.timeline", has_text="total tok/s at 1.5 req/s")
    assert chart.locator("circle").count() == 4
    hrefs = chart.locator("a").evaluate_all("els => els.map(a => a.getAttribute('href'))")
    assert f"../../runs/{REGRESSED}/index.html" in hrefs
    assert chart.locator("text", has_text="0.26.0").count() == 1  # the version change, marked once
    row = page.locator("table tr", has_text="total tok/s").first
    assert "regression" in row.inner_text() and "-6.5 %" in row.inner_text()
    chart.locator("a").nth(2).click()
    page.wait_for_url(f"**/runs/{REGRESSED}/index.html")


def test_a_run_of_load_points_shows_them_and_its_changes(browse: Browsing) -> None:
    raw = json.loads(RAW.read_text(encoding="utf-8"))
    visit = browse.open(f"/runs/{REGRESSED}/")
    visit.assert_clean()
    page = visit.page
    assert page.locator("#decode").count() == 0  # no matrix: nothing was measured at a concurrency
    cells = (
        page.locator("#load-points tbody tr, #load-points table tr")
        .last.locator("td")
        .all_inner_texts()
    )
    assert cells[0] == f"{raw['request_rate']:g}/s" and cells[2] == str(raw["max_concurrency"])
    assert cells[6] == f"{raw['output_throughput']:.1f}"
    changes = page.locator("#changes")
    assert "this setup over time" in changes.inner_text()
    assert "regression" in changes.locator("table").inner_text()


def test_the_model_page_links_to_its_setups(browse: Browsing) -> None:
    visit = browse.open("/models/gemma-4-26b-a4b-it/")
    visit.assert_clean()
    links = visit.page.locator("#setups-h + ul a")
    assert links.count() == 4
    assert all(
        href.startswith("../../setups/")
        for href in links.evaluate_all("els => els.map(a => a.getAttribute('href'))")
    )
