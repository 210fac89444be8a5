"""The run page's "All measurements" table, made by the reader's browser from the run JSON when
the page loads (run.js): in chromium, the seed run's table row by row against the real
speed-test-matrix page it reproduces, every shipped run's rows (status class, address) against
its JSON, an address naming a row landing on it, and without JavaScript the words that say where
the figures are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.kit.browser import Browsing, Visit
from tests.kit.html_tables import seed_table, tables
from tests.kit.project import REPO, SEED_RUN_ID
from tests.kit.run_json import published_run

pytestmark = pytest.mark.browser

SEED = (REPO / "tests" / "data" / "seed" / "speed-test-matrix.txt").read_text(encoding="utf-8")

# What each status is called in the rows' classes (style.css, "Run page"); a valid row has none.
STATUS_CLASS = {
    "valid": "",
    "requests_queued": "rq",
    "over_capacity": "oc",
    "not_run": "nr",
    "failed": "fl",
}


def _built_table(visit: Visit) -> list[list[str]]:
    """The table once its rows are in, read as the HTML table model has it (rowspans filled)."""
    visit.page.locator("table.figures tbody tr").first.wait_for()
    html: str = visit.page.locator("table.figures").evaluate("(table) => table.outerHTML")
    return tables(html)["data figures"]


def test_the_seed_runs_table_matches_the_seed_page_row_by_row(browse: Browsing) -> None:
    visit = browse.open(f"/runs/{SEED_RUN_ID}/")
    built = _built_table(visit)
    expected = seed_table(SEED, "Phase")
    assert len(expected) == 74  # header + 9 prefill + 64 decode rows
    assert built[0] == expected[0]
    assert len(built) == len(expected)
    for number, (want, got) in enumerate(zip(expected[1:], built[1:], strict=True), start=1):
        assert got == want, f"row {number}"
    # Each phase and each context is one row header spanning its rows (issue 18): the seed's 9
    # prefill contexts one row each, its 8 decode contexts 8 rows each; a header reaching the
    # table's end draws no line under it (class end).
    heads = visit.js(
        """() => Array.from(document.querySelectorAll("table.figures tbody th"))
            .map((th) => [th.textContent, th.rowSpan, th.className])"""
    )
    prefill = [["Prefill", 9, ""]] + [[row[1], 1, ""] for row in expected[1:10]]
    decode = [["Sustained decode", 64, "end"]] + [
        [row[1], 8, "end" if row[1] == "1019K" else ""] for row in expected[10::8]
    ]
    assert heads[:10] == prefill and heads[10:] == decode
    # The words for readers without JavaScript, gone once the rows are in.
    assert visit.page.locator("#measurements-where").count() == 0
    visit.assert_clean()


def _rows_said(visit: Visit) -> list[list[str]]:
    """Each row's class, id and number of cells (<th> and <td>)."""
    visit.page.locator("table.figures tbody tr").first.wait_for()
    rows: list[list[str]] = visit.js(
        """() => Array.from(document.querySelectorAll("table.figures tbody tr"))
            .map((row) => [row.className, row.id, String(row.cells.length)])"""
    )
    return rows


# The fields that set a row apart beside its context and requests (and name it: -k, -o).
CHUNK, OUTPUT = "prompt_chunk_tokens", "output_tokens_per_request"


def _in_table_order(document: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """The file's prefill rows and decode cells in the table's order: by context (then prompt
    chunk), and by context, requests and output length."""
    prefill = sorted(
        document["measurements"]["prefill"], key=lambda p: (p["context_tokens"], p.get(CHUNK, 0))
    )
    decode = sorted(
        document["measurements"]["decode"],
        key=lambda c: (c["context_tokens"], c["concurrency"], c.get(OUTPUT, 0)),
    )
    return prefill, decode


def _expected_rows(document: dict[str, Any]) -> list[tuple[str, str]]:
    """Each row's class and address (docs/comparisons.md, "Citing a figure") from the file."""
    prefill, decode = _in_table_order(document)
    rows = [
        ("", f"p-{p['context_tokens']}" + (f"-k{p[CHUNK]}" if p.get(CHUNK) else ""))
        for p in prefill
    ]
    rows += [
        (
            STATUS_CLASS[c["status"]],
            f"r-{c['context_tokens']}-{c['concurrency']}"
            + (f"-o{c[OUTPUT]}" if c.get(OUTPUT) else ""),
        )
        for c in decode
    ]
    return rows


def test_every_shipped_runs_rows_carry_their_status_and_address(
    browse: Browsing, built_site: Path
) -> None:
    documents = [
        (path.stem, published_run(path)) for path in sorted((built_site / "runs").glob("*.json"))
    ]
    measured = [(name, d) for name, d in documents if d["measurements"].get("decode")]
    assert len(measured) > 10
    for name, document in measured:
        visit = browse.open(f"/runs/{name}/")
        shown = _rows_said(visit)
        expected = _expected_rows(document)
        assert [(css, anchor) for css, anchor, _ in shown] == expected, name
        assert len({anchor for _, anchor in expected}) == len(expected), "an address names a row"
        # Phase and context cells span their rows, so a row has at most two cells more.
        heads = visit.js("() => document.querySelectorAll('table.figures thead th').length")
        assert all(heads - 2 <= int(cells) <= heads for _, _, cells in shown), name
        _optional_columns_hold_the_files_figures(visit, document, name)
        visit.assert_clean()
        visit.page.context.close()


def _optional_columns_hold_the_files_figures(
    visit: Visit, document: dict[str, Any], name: str
) -> None:
    """A run whose cells have their own output length, or whose prefill measured several prompt
    sizes, shows a column of them: each row's, from the file ("—" where it has none)."""
    table = tables(visit.page.locator("table.figures").evaluate("(table) => table.outerHTML"))
    rows = table["data figures"]
    prefill, decode = _in_table_order(document)

    def said(value: int | None) -> str:
        return f"{value:,}" if value else "—"

    columns = {
        "Output tokens per request": (
            any(c.get(OUTPUT) for c in decode),
            ["—"] * len(prefill) + [said(c.get(OUTPUT)) for c in decode],
        ),
        "Prompt tokens": (
            len({p[CHUNK] for p in prefill if p.get(CHUNK)}) > 1,
            [said(p.get(CHUNK)) for p in prefill] + ["—"] * len(decode),
        ),
    }
    for title, (wanted, values) in columns.items():
        assert (title in rows[0]) == wanted, (name, title)
        if wanted:
            at = rows[0].index(title)
            assert [row[at] for row in rows[1:]] == values, (name, title)


def test_an_address_naming_a_row_lands_on_it(browse: Browsing) -> None:
    visit = browse.open(f"/runs/{SEED_RUN_ID}/#r-524288-64")
    row = visit.page.locator("#r-524288-64")
    row.wait_for()
    visit.page.wait_for_function(
        "() => document.querySelector(':target') === document.getElementById('r-524288-64')"
    )
    # Scrolled to it: the row is in the window (its top at the window's, to a fraction of a pixel).
    visit.page.wait_for_function(
        """() => { const box = document.getElementById('r-524288-64').getBoundingClientRect();
                   return box.top > -1 && box.bottom <= innerHeight && scrollY > 0; }"""
    )
    assert row.locator("td").nth(1).inner_text() == "Over capacity"
    visit.assert_clean()


def test_without_javascript_the_page_says_where_the_measurements_are(browse: Browsing) -> None:
    visit = browse.open(f"/runs/{SEED_RUN_ID}/", javascript=False)
    page = visit.page
    assert page.locator("table.figures").is_hidden()
    where = page.locator("#measurements-where")
    assert where.is_visible()
    assert "result file (JSON)" in where.inner_text()
    assert where.locator("a").get_attribute("href") == f"../../runs/{SEED_RUN_ID}.json"
    # The headline figures stay in the page: the decode matrix and the prefill bars.
    assert page.locator("table.matrix").is_visible()
    assert page.locator("figure.bars").first.is_visible()
