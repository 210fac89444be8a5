"""Accessibility in a real browser: axe-core finds no serious or critical problem on any kind
of page in either theme; sorting and filtering work from the keyboard with a visible focus
ring; the decode matrix says every cell's status in words, not only in colour."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.kit.browser import PAGE_KINDS, Browsing, Visit, require
from tests.kit.project import REPO

pytestmark = pytest.mark.browser

# Installed from the npm registry by .ci/run (`npm ci --prefix .ci/axe`, pinned in its lockfile).
AXE = REPO / ".ci" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
TAB_LIMIT = 40  # the controls tested here are among the first on their page


@pytest.fixture(scope="module")
def axe_script() -> Path:
    if not AXE.is_file():
        require("axe-core", "run `npm ci --prefix .ci/axe` (.ci/run does)")
    return AXE


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("kind", [*PAGE_KINDS, "capacity", "level", "at", "changes"])
def test_axe_finds_no_serious_violation(
    browse: Browsing, site_pages: dict[str, str], axe_script: Path, kind: str, scheme: str
) -> None:
    # The site's CSP admits only its own scripts, so injecting axe needs the CSP off, in this
    # context only.
    # Besides the kinds every browser test visits: /capacity/, a model's ranked answers at a level,
    # a preset's view and the changes between runs of a setup.
    site_pages = {
        **site_pages,
        "capacity": "/capacity/",
        "at": "/at/32k-16/",
        "level": "/capacity/server/qwen3-5-397b-a17b/index.html",
        "changes": "/changes/",
    }
    visit = browse.open_kind(site_pages, kind, scheme=scheme, bypass_csp=True)
    report = serious_violations(visit, axe_script)
    assert not report, f"{site_pages[kind]} ({scheme}):\n  " + "\n  ".join(report)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_violation_in_a_comparison_turned_round(
    browse: Browsing, site_pages: dict[str, str], axe_script: Path, scheme: str
) -> None:
    """The reader's view after "Make baseline" on its second run: the other direction (its own
    headings, summary and cell colours)."""
    visit = browse.open_kind(site_pages, "compare-app", scheme=scheme, bypass_csp=True)
    first = visit.page.locator("#compare-result table.rt").inner_text()
    visit.page.get_by_role("button", name="Make baseline").first.click()
    visit.page.wait_for_function(
        "(before) => { const t = document.querySelector('#compare-result table.rt');"
        " return t && t.innerText !== before; }",
        arg=first,
    )
    report = serious_violations(visit, axe_script)
    assert not report, f"{visit.page.url} ({scheme}):\n  " + "\n  ".join(report)


def serious_violations(visit: Visit, axe_script: Path) -> list[str]:
    visit.page.add_script_tag(path=axe_script)
    violations: list[dict[str, Any]] = visit.js("""async () => {
        const results = await axe.run(document, { resultTypes: ["violations"] });
        return results.violations
            .filter((v) => v.impact === "serious" || v.impact === "critical")
            .map((v) => ({ id: v.id, impact: v.impact, help: v.help, count: v.nodes.length,
                           examples: v.nodes.slice(0, 3)
                               .map((n) => n.target.join(" ") + " — " + n.failureSummary) }));
    }""")
    return [
        f"{v['impact']} {v['id']} ({v['count']}×): {v['help']}\n      "
        + "\n      ".join(v["examples"])
        for v in violations
    ]


def tab_to(visit: Visit, selector: str) -> dict[str, Any]:
    """Press Tab until the focused element matches ``selector``; return how its focus shows."""
    for _ in range(TAB_LIMIT):
        visit.page.keyboard.press("Tab")
        focus: dict[str, Any] | None = visit.js(
            """(selector) => {
            const el = document.activeElement;
            if (!el || !el.matches(selector)) return null;
            const style = getComputedStyle(el);
            return { text: el.innerText || el.name, focusVisible: el.matches(":focus-visible"),
                     outline: style.outlineStyle, width: parseFloat(style.outlineWidth) };
        }""",
            selector,
        )
        if focus:
            return focus
    pytest.fail(f"no {selector} within {TAB_LIMIT} presses of Tab")


def assert_focus_ring(focus: dict[str, Any]) -> None:
    assert focus["focusVisible"], focus
    assert focus["outline"] != "none" and focus["width"] >= 2, (
        f"no visible focus ring on {focus['text']!r}: {focus}"
    )


# Whether the index shows another number of rows than ``count``; how long a filter may take.
VISIBLE_ROWS_DIFFER = """(count) => Array.from(document.querySelectorAll("table.sortable tbody tr"))
    .filter((row) => !row.hidden).length !== count"""
FILTER_MS = 10_000
# Whether the index's column headed [name] is sorted [direction]: the sort has been applied.
SORTED_BY = """([name, direction]) => Array.from(document.querySelectorAll("thead th"))
    .some((th) => th.innerText.includes(name) && th.getAttribute("aria-sort") === direction)"""


def rows(visit: Visit) -> list[str]:
    """The index's visible rows, top to bottom, by model name and run address."""
    found: list[str] = (
        visit.js("""() => Array.from(document.querySelectorAll("table.sortable tbody tr"))
        .filter((row) => !row.hidden)
        .map((row) => row.querySelector("th a").innerText
            + " " + row.querySelector("th a").getAttribute("href"))""")
    )
    return found


def test_sorting_and_filtering_from_the_keyboard(
    browse: Browsing, site_pages: dict[str, str]
) -> None:
    visit = browse.open_kind(site_pages, "index")
    page = visit.page
    everything = rows(visit)

    assert_focus_ring(tab_to(visit, "#filters select[name=engine]"))
    # Focus makes the script fetch the search index and fill in the options: a key pressed
    # before they are there has nothing to move to, so wait for them (at most FILTER_MS).
    page.wait_for_function(
        "() => document.querySelector('#filters select[name=engine]').options.length > 1",
        timeout=FILTER_MS,
    )
    page.keyboard.press("ArrowDown")  # a closed select takes arrow keys without opening
    # The rows change once the index's script has applied the filter, which may first fetch
    # what it filters by: read them then (on a loaded machine they were read before, once).
    page.wait_for_function(VISIBLE_ROWS_DIFFER, arg=len(everything), timeout=FILTER_MS)
    filtered = rows(visit)
    assert 0 < len(filtered) < len(everything)
    assert "engine=" in page.url

    page.keyboard.press("ArrowUp")  # back to "All"
    page.wait_for_function(
        f"(count) => !({VISIBLE_ROWS_DIFFER})(count)", arg=len(everything), timeout=FILTER_MS
    )
    assert rows(visit) == everything

    focus = tab_to(visit, "thead th button.sort")
    assert_focus_ring(focus)
    assert focus["text"].startswith("Model")
    page.keyboard.press("Enter")  # Model is sorted ascending; Enter turns it round
    page.wait_for_function(SORTED_BY, arg=["Model", "descending"], timeout=FILTER_MS)
    descending = rows(visit)
    assert descending != everything
    names = [row.rsplit(" ", 1)[0].lower() for row in descending]
    assert names == sorted(names, reverse=True)
    assert page.locator("thead th", has_text="Model").get_attribute("aria-sort") == "descending"

    assert_focus_ring(tab_to(visit, "thead th button.sort"))  # the next column, Hardware
    page.keyboard.press("Space")
    page.wait_for_function(SORTED_BY, arg=["Hardware", "ascending"], timeout=FILTER_MS)
    assert page.locator("thead th", has_text="Hardware").get_attribute("aria-sort") == "ascending"
    visit.assert_clean()


def test_matrix_statuses_are_in_words_not_only_colour(
    browse: Browsing, site_pages: dict[str, str]
) -> None:
    visit = browse.open_kind(site_pages, "run")
    cells: list[dict[str, Any]] = (
        visit.js("""() => Array.from(document.querySelectorAll("#decode table.matrix td"))
            .map((td) => {
        const badge = td.querySelector(":scope > i");
        // A valid cell carries only its shade, h1–h8 (run.html keeps the 64 cells small); the
        // others their status's class too: rq, oc, nr, fl, or na where the run has no cell.
        return { status: Array.from(td.classList).find((c) => !/^h[0-9]$/.test(c)) || "valid",
                 label: badge && badge.checkVisibility() ? badge.innerText.trim() : "",
                 text: td.innerText.trim() };
    })""")
    )
    statuses = {cell["status"] for cell in cells}
    assert len(cells) == 64 and {"valid", "oc", "rq"} <= statuses, (
        statuses
    )  # the seed run has all three
    labels: dict[str, set[str]] = {}
    for cell in cells:
        if cell["status"] == "valid":
            assert cell["text"] and not cell["label"], cell  # a figure, no badge
        elif cell["status"] == "na":
            assert cell["text"] == "—", cell
        else:
            assert cell["label"], f"a {cell['status']} cell says so only in colour: {cell}"
            labels.setdefault(cell["status"], set()).add(cell["label"])
    assert all(len(words) == 1 for words in labels.values()), labels
    assert len({words.pop() for words in labels.values()}) == len(labels), (
        "two statuses share one label"
    )
