"""Model and accelerator pages in a real browser, served over HTTP on 127.0.0.1: the page draws
decode at one context itself and group.js draws the others from /data/points/ on load, so that
with JavaScript every context two or more runs share has its chart (issue 15), each legend
listing only the runs drawn and each run's points the figures of its result file (read here
from the YAML in content/runs/, which the test site copies). Without JavaScript the page keeps
its one chart and says where the others are."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from sitegen.parse import parse_yaml
from tests.kit.browser import Browsing
from tests.kit.context_rule import context_label
from tests.kit.group_rule import group_members, measured_contexts, shared_of
from tests.kit.project import REPO

pytestmark = pytest.mark.browser

# Each chart of the decode section as the reader sees it: caption, legend (its own, or the one
# above the grid), and per run its path's hover title and vertex count.
_CHARTS = """() => {
  const section = document.getElementById("decode");
  const above = section.querySelector(":scope > ul.chart-legend");
  return Array.from(section.querySelectorAll("figure.plot")).map((figure) => {
    const legend = figure.querySelector("ul.chart-legend") || above;
    return {
      caption: figure.querySelector("figcaption").textContent,
      legend: Array.from(legend.querySelectorAll("li"))
          .map((li) => [li.dataset.run, li.textContent]),
      lines: Array.from(figure.querySelectorAll("svg path[class^=s]")).map((path) =>
        [path.querySelector("title").textContent, path.getAttribute("d")]),
      width: figure.querySelector("svg").getBoundingClientRect().width,
    };
  });
}"""


def _results() -> dict[str, dict[str, Any]]:
    return {
        path.stem: parse_yaml(path.name, path.read_bytes()).data
        for path in sorted((REPO / "content" / "runs").glob("*.yaml"))
    }


def _rate(value: float) -> str:
    """A throughput as the pages write it (docs: 10.2K, 9,544.0, 228.4)."""
    if value >= 10_000:
        return f"{value / 1000:.1f}".removesuffix(".0") + "K"
    return f"{value:,.1f}"


def _cells(data: dict[str, Any], context: int) -> list[tuple[int, float, str]]:
    """A run's decode cells at ``context`` as its page shows them: one per request count, the one
    at the run's own output length where a source varied it."""
    own = data["run"].get("output_tokens_per_request")
    chosen: dict[int, dict[str, Any]] = {}
    for cell in data["measurements"]["decode"]:
        if cell["context_tokens"] != context:
            continue
        level = cell["concurrency"]
        if level not in chosen or (
            cell.get("output_tokens_per_request") in (None, own)
            and chosen[level].get("output_tokens_per_request") not in (None, own)
        ):
            chosen[level] = cell
    return [
        (level, cell["total_tokens_per_s"], cell["status"])
        for level, cell in sorted(chosen.items())
        if cell["status"] in ("valid", "requests_queued")
        and cell.get("total_tokens_per_s") is not None
    ]


def _words(cells: list[tuple[int, float, str]]) -> str:
    return ", ".join(
        f"{level} → {_rate(total)}" + ("" if status == "valid" else " (requests queued)")
        for level, total, status in cells
    )


def _page_of(site: Path, kind: str, heading: str) -> str:
    pages = [
        p for p in (site / kind).glob("*/index.html") if f"<h1>{heading}</h1>" in p.read_text()
    ]
    assert len(pages) == 1, heading
    return "/" + pages[0].relative_to(site).as_posix()


def test_with_javascript_every_shared_context_has_its_chart_with_the_result_files_figures(
    browse: Browsing, built_site: Path
) -> None:
    results = _results()
    drawn_by_browser = 0
    for kind, groups in group_members(results).items():
        for heading, members in groups.items():
            shared = shared_of(results, members)
            if not shared:
                continue
            page_kind = "model" if kind == "models" else "hardware"
            visit = browse.open_kind({page_kind: _page_of(built_site, kind, heading)}, page_kind)
            charts = visit.js(_CHARTS)
            assert [c["caption"] for c in charts] == [
                f"{context_label(c)} context" for c in shared
            ], heading
            for chart, context in zip(charts, shared, strict=True):
                here = [
                    run_id for run_id in members if context in measured_contexts(results[run_id])
                ]
                # The legend lists only the runs drawn (a group of up to eight runs: all that
                # measured here).
                assert sorted(run_id for run_id, _ in chart["legend"]) == sorted(here), (
                    heading,
                    context,
                )
                assert chart["width"] > 100
                labels = dict(chart["legend"])
                assert len(chart["lines"]) == len(here)
                titles = {title: d for title, d in chart["lines"]}
                for run_id in here:
                    cells = _cells(results[run_id], context)
                    title = f"{labels[run_id]}: {_words(cells)}"
                    assert title in titles, (heading, context, title, list(titles))
                    # One vertex (a marker) per point: the path's coordinates come in pairs.
                    assert len(re.findall(r"-?\d+(?:\.\d+)?", titles[title])) == 2 * len(cells), (
                        heading,
                        context,
                    )
            drawn_by_browser += len(shared) > 1
            visit.assert_clean()
    assert (
        drawn_by_browser >= 4
    )  # Qwen3.5 (model and accelerator), gpt-oss (model and accelerator), one-run pages


@pytest.mark.parametrize("kind", ["models", "hardware"])
def test_without_javascript_the_page_shows_the_default_context_and_says_where_the_others_are(
    browse: Browsing, built_site: Path, kind: str
) -> None:
    results = _results()
    heading, members = next(
        (h, m)
        for h, m in group_members(results)[kind].items()
        if h.startswith("Qwen/Qwen3.5") or h.endswith("RTX PRO 6000 Blackwell Server Edition")
    )
    shared = shared_of(results, members)
    assert len(shared) > 1
    visit = browse.open(_page_of(built_site, kind, heading), javascript=False)
    charts = visit.js(_CHARTS)
    counts = {c: sum(c in measured_contexts(results[r]) for r in members) for c in shared}
    default = min(shared, key=lambda c: (-counts[c], c))  # the most runs, of equals the smallest
    assert [c["caption"] for c in charts] == [f"{context_label(default)} context"]
    note = visit.js("() => document.getElementById('decode-more').innerText")
    others = [context_label(c) for c in shared if c != default]
    assert (
        ", ".join(others[:-1]) + " and " + others[-1] + " context are drawn by your browser" in note
    )
    assert "every run's page has a chart at each of its contexts" in note
    assert (
        visit.js("() => document.getElementById('decode-more').getBoundingClientRect().height") > 0
    )
    visit.assert_clean()
