"""Issue 41: a context of 0 is explained wherever the index shows one, without JavaScript: a run
whose longest measured context is 0 (llama-bench's generation at depth 0) and a peak measured at
context 0 each say "no earlier context" beside their 0."""

from __future__ import annotations

import re
from pathlib import Path

from tests.kit.html_tables import tables
from tests.kit.project import REPO, load_yaml


def _row_cells(html: str) -> dict[str, list[str]]:
    """Each index row's cell texts (as a reader sees them) by the run id its link names."""
    body = html.split("<tbody", 1)[1].split("</tbody>", 1)[0]
    ids = re.findall(r'<tr[^>]*><th><a href="runs/([^/"]+)/', body)
    rows = tables(html)["data runs sortable"][1:]
    assert len(ids) == len(rows)
    return dict(zip(ids, rows, strict=True))


def _contexts_measured(run_id: str) -> set[int]:
    """Every context the result file has a figure at, read from the file itself."""
    path = REPO / "content" / "runs" / f"{run_id}.yaml"
    measurements = load_yaml(path.read_text(encoding="utf-8"))["measurements"]
    cells = measurements.get("decode") or []
    points = measurements.get("prefill") or []
    return {
        item["context_tokens"]
        for item in [*cells, *points]
        if item.get("status", "valid") in ("valid", "requests_queued")
    }


def test_a_zero_context_on_the_index_says_what_it_is(built_site: Path) -> None:
    rows = _row_cells((built_site / "index.html").read_text(encoding="utf-8"))
    largest_zero = {run for run, cells in rows.items() if cells[8].startswith("0")}
    peak_at_zero = {run for run, cells in rows.items() if "at 0 ×" in cells[6]}
    assert largest_zero and peak_at_zero, "the shipped runs include both cases"
    for run in largest_zero:
        assert _contexts_measured(run) == {0}, run
        assert rows[run][8] == "0no earlier context", rows[run]
    for run in peak_at_zero:
        assert 0 in _contexts_measured(run), run
        assert re.search(r"at 0 × \d+ \(no earlier context\)$", rows[run][6]), rows[run]
    others = [cells for run, cells in rows.items() if run not in largest_zero]
    assert all("no earlier context" not in cells[8] for cells in others)
