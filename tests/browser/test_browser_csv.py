"""The run CSV, made by the reader's browser from the run's JSON (site.js): clicked on a run page
served over HTTP in chromium, under the site's Content-Security-Policy, the download is the CSV
the site used to ship as /runs/<id>.csv. Each is compared cell by cell with a CSV this file
works out itself from the contributor's YAML (content/runs/*.yaml), by the rules
docs/result-format.md ("The run CSV") states; without JavaScript, or from disk, the page says
how the CSV is made and that the JSON holds the same figures."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.kit.browser import Browsing, Visit
from tests.kit.project import REPO, SEED_RUN_ID
from tests.kit.run_json import published_measurements

pytestmark = pytest.mark.browser

# The columns in order, as docs/result-format.md lists them (written out here, not imported).
ALL_COLUMNS = [
    "phase",
    "context_tokens",
    "concurrency",
    "status",
    "total_tokens_per_s",
    "per_request_tokens_per_s",
    "ttft_ms",
    "time_between_tokens_ms",
    "average_active_requests",
    "completed_requests",
    "output_tokens",
    "measured_s",
    "prompt_tokens",
    "prompt_chunk_tokens",
    "output_tokens_per_request",
    *(
        f"{figure}_{name}"
        for figure in ("ttft_ms", "time_between_tokens_ms", "per_request_tokens_per_s")
        for name in ("mean", "p50", "p90", "p99")
    ),
]
DECODE_COLUMNS = set(ALL_COLUMNS[1:12]) | {"output_tokens_per_request"}


def _statistics(point: dict[str, Any]) -> dict[str, Any]:
    return {
        f"{figure}_{name}": value
        for figure, values in point.get("statistics", {}).items()
        for name, value in values.items()
    }


def _text(value: Any) -> str:
    """A number exactly as JSON writes it (so 10211.0 stays 10211.0), words as they are, a
    formula-like word defused with a leading quote, nothing where there is nothing."""
    if value is None:
        return ""
    if isinstance(value, str):
        return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value
    return json.dumps(value)


def expected_csv(document: dict[str, Any]) -> list[list[str]]:
    """The run's CSV as rows of cell texts: prefill first, then decode, each by context, then
    prefill chunk or requests at once and output length; only the columns some row fills."""
    measurements = document["measurements"]
    prefill = sorted(
        measurements.get("prefill", []),
        key=lambda p: (p["context_tokens"], p.get("prompt_chunk_tokens") or 0),
    )
    decode = sorted(
        measurements.get("decode", []),
        key=lambda c: (
            c["context_tokens"],
            c["concurrency"],
            c.get("output_tokens_per_request") or 0,
        ),
    )
    rows: list[dict[str, Any]] = []
    for p in prefill:
        rows.append(
            {
                "phase": "prefill",
                "context_tokens": p["context_tokens"],
                "concurrency": 1,
                "status": "valid",
                "total_tokens_per_s": p.get("prompt_tokens_per_s"),
                "ttft_ms": p.get("ttft_ms"),
                "completed_requests": p.get("samples"),
                "prompt_tokens": p.get("prompt_tokens"),
                "prompt_chunk_tokens": p.get("prompt_chunk_tokens"),
                **_statistics(p),
            }
        )
    for c in decode:
        rows.append(
            {
                "phase": "decode",
                **{k: v for k, v in c.items() if k in DECODE_COLUMNS},
                **_statistics(c),
            }
        )
    header = (
        [c for c in ALL_COLUMNS if any(_text(row.get(c)) for row in rows)] if rows else ALL_COLUMNS
    )
    return [header] + [[_text(row.get(c)) for c in header] for row in rows]


def _download(visit: Visit) -> tuple[str, list[list[str]]]:
    """Click the page's CSV control; the file's suggested name and its rows as a CSV reader reads
    them."""
    button = visit.page.locator("#csv button")
    assert button.inner_text() == "All measurements (CSV)"
    with visit.page.expect_download() as info:
        button.click()
    download = info.value
    path = download.path()
    assert path is not None, download.failure()
    text = Path(path).read_text(encoding="utf-8")
    assert text.endswith("\n") and "\r" not in text  # one "\n" a line, as the shipped files had
    return download.suggested_filename, list(csv.reader(io.StringIO(text, newline="")))


def test_the_csv_control_downloads_each_runs_csv_made_from_its_json(browse: Browsing) -> None:
    sources = sorted((REPO / "content" / "runs").glob("*.yaml"))
    assert len(sources) >= 5
    dropped: set[str] = set()
    context = browse.context()
    for source in sources:
        run_id = source.stem
        visit = browse.open(f"/runs/{run_id}/", context=context)
        name, rows = _download(visit)
        assert name == f"{run_id}.csv"
        # The CSV is made from the run JSON: its figures at the published precision.
        want = expected_csv(published_measurements(yaml.safe_load(source.read_text("utf-8"))))
        assert rows[0] == want[0], run_id
        assert len(rows) == len(want), run_id
        for number, (got, expected) in enumerate(zip(rows[1:], want[1:], strict=True), start=1):
            assert got == expected, (run_id, number)
        dropped |= set(ALL_COLUMNS) - set(rows[0])
        # The download is a blob the page made: nothing refused by the CSP, nothing but the JSON
        # fetched.
        visit.assert_clean()
        assert visit.requested(f"/runs/{run_id}.json")
        assert not visit.requested(".csv")
        visit.page.close()
    # The shipped runs exercise both sides: some leave statistics and per-cell output lengths out.
    assert {"ttft_ms_p99", "output_tokens_per_request"} <= dropped


def test_the_seed_csv_keeps_its_statistics_columns(browse: Browsing) -> None:
    _, rows = _download(browse.open(f"/runs/{SEED_RUN_ID}/"))
    header = rows[0]
    assert {"ttft_ms_p50", "ttft_ms_p90", "ttft_ms_p99", "per_request_tokens_per_s_p99"} <= set(
        header
    )
    assert (
        "output_tokens_per_request" not in header
    )  # no cell of the seed run has its own output length
    assert len(rows) == 1 + 9 + 64
    assert ",".join(rows[1]).startswith(
        "prefill,8192,1,valid,10211.0,"
    )  # the float as the file writes it
    # The file's own statistics (most decode cells of the seed have them) fill their columns.
    statistics = [
        i
        for i, name in enumerate(header)
        if name.rsplit("_", 1)[-1] in ("mean", "p50", "p90", "p99")
    ]
    assert sum(1 for row in rows[1:] if row[0] == "decode" for i in statistics if row[i]) >= 40 * 12


def test_words_are_quoted_and_formulas_defused_as_pythons_csv_module_does(browse: Browsing) -> None:
    """Words in a cell (here forged into the run's JSON as the browser fetches it) come out as
    Python's csv.writer wrote them: quoted where they hold a comma, quote or line break, and a
    leading quote before what a spreadsheet would run as a formula."""
    document = yaml.safe_load(
        (REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml").read_text(encoding="utf-8")
    )
    words = ['=HYPERLINK("x")', 'a "quoted", word', "two\nlines", "@SUM(1)", "-1+2", "plain"]
    for cell, word in zip(document["measurements"]["decode"], words, strict=False):
        cell["status"] = word
    context = browse.context()
    context.route(
        f"**/runs/{SEED_RUN_ID}.json",
        lambda route: route.fulfill(
            status=200, content_type="application/json", body=json.dumps(document)
        ),
    )
    visit = browse.open(f"/runs/{SEED_RUN_ID}/", context=context)
    _, rows = _download(visit)
    want = expected_csv(document)
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(want)
    assert rows == list(csv.reader(io.StringIO(out.getvalue(), newline="")))
    statuses = [row[rows[0].index("status")] for row in rows if row[0] == "decode"]
    assert {
        '\'=HYPERLINK("x")',
        'a "quoted", word',
        "two\nlines",
        "'@SUM(1)",
        "'-1+2",
        "plain",
    } <= set(statuses)


def test_when_the_json_cannot_be_fetched_the_page_says_so(browse: Browsing) -> None:
    context = browse.context()
    context.route(
        f"**/runs/{SEED_RUN_ID}.json", lambda route: route.fulfill(status=503, body="busy")
    )
    page = context.new_page()
    page.goto(f"{browse.origin}/runs/{SEED_RUN_ID}/", wait_until="load")
    page.locator("#csv button").click()
    page.wait_for_function("() => !document.querySelector('#csv button')")
    text = page.locator("#csv").inner_text()
    assert "made by your browser" in text and "503" in text


def _says_how_the_csv_is_made(text: str) -> None:
    assert text.startswith(
        "All measurements (CSV): made by your browser from the result file (JSON)"
    ), text
    assert "which holds the same figures" in text


def test_without_javascript_the_page_says_how_the_csv_is_made(browse: Browsing) -> None:
    visit = browse.open(f"/runs/{SEED_RUN_ID}/", javascript=False)
    _says_how_the_csv_is_made(visit.page.locator("#csv").inner_text())
    assert visit.page.locator("#csv button, #csv a").count() == 0
    result = visit.page.locator("a#json")
    assert result.inner_text() == "Result file (JSON)"
    assert result.get_attribute("href") == f"../../runs/{SEED_RUN_ID}.json"
    visit.assert_clean()


def test_from_disk_the_page_says_how_the_csv_is_made(browse: Browsing, built_site: Path) -> None:
    # Browsers refuse fetch() on file://: there the page keeps its words instead of a button that
    # would fail.
    page = browse.context().new_page()
    page.goto(
        (built_site / "runs" / SEED_RUN_ID / "index.html").as_uri(), wait_until="load"
    )  # site.js has run (defer)
    _says_how_the_csv_is_made(page.locator("#csv").inner_text())
    assert page.locator("#csv button").count() == 0


def test_the_site_ships_no_csv(built_site: Path) -> None:
    assert not list(built_site.rglob("*.csv"))
    page = (built_site / "runs" / SEED_RUN_ID / "index.html").read_text(encoding="utf-8")
    assert ".csv" not in page
