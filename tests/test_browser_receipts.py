"""Citable figures in chromium: every decode cell of every shipped run, read here from its YAML,
has an address on its run page that lands on that cell (``:target``), showing the file's figure;
a click gives a citation with the figure, the cell, the date and that address."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.browser_kit import Browsing
from tests.conftest import REPO, SEED_RUN_ID

pytestmark = pytest.mark.browser

RUNS = sorted((REPO / "content" / "runs").glob("*.yaml"))


def shown_rate(value: float) -> str:
    """numbers.rate as docs/architecture.md states it: 10.2K from 10,000 up, else one decimal, grouped."""
    if value >= 999950:
        return f"{value / 1e6:.1f}".removesuffix(".0") + "M"
    if value >= 10000:
        return f"{value / 1000:.1f}".removesuffix(".0") + "K"
    return f"{value:,.1f}"


# Goes to each address in turn (a hash change, no reload) and reports what :target is there.
TARGETS_JS = """
(ids) => ids.map((id) => {
  location.hash = id;
  const target = document.querySelector(":target");
  const figure = target && target.querySelector("b");
  return [id, target ? target.id : null, target ? target.tagName : null, figure ? figure.textContent : null,
          target ? !!target.closest("table.matrix") : false];
})
"""


def cells(path: Path) -> list[dict[str, Any]]:
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    decode: list[dict[str, Any]] = data["measurements"]["decode"]
    return decode


def test_every_matrix_cell_address_lands_on_that_cell(browse: Browsing) -> None:
    context = browse.context()
    for path in RUNS:
        decode = cells(path)
        if not decode:
            continue
        visit = browse.open(f"/runs/{path.stem}/", context=context)
        contexts = sorted({c["context_tokens"] for c in decode})
        levels = sorted({c["concurrency"] for c in decode})
        ids = [f"d-{ctx}-{level}" for ctx in contexts for level in levels]
        assert visit.js("() => Array.from(document.querySelectorAll('table.matrix td')).map((td) => td.id)") == ids
        found = {row[0]: row[1:] for row in visit.js(TARGETS_JS, ids)}
        for cell in decode:
            anchor = f"d-{cell['context_tokens']}-{cell['concurrency']}"
            target, tag, figure, in_matrix = found[anchor]
            assert (target, tag, in_matrix) == (anchor, "TD", True), (path.name, anchor)
            if cell["status"] in ("valid", "requests_queued") and len({(c["context_tokens"], c["concurrency"])
                                                                       for c in decode}) == len(decode):
                assert figure == shown_rate(cell["total_tokens_per_s"]), (path.name, anchor)
        visit.assert_clean()
        visit.page.close()


def test_a_click_on_a_cell_gives_its_citation(browse: Browsing) -> None:
    decode = {(c["context_tokens"], c["concurrency"]): c for c in cells(REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml")}
    data = yaml.safe_load((REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml").read_text(encoding="utf-8"))
    visit = browse.open(f"/runs/{SEED_RUN_ID}/")
    visit.page.click("#d-32768-16")
    text = visit.page.locator(".cite p.command").text_content() or ""
    total = shown_rate(decode[(32768, 16)]["total_tokens_per_s"])
    assert f"{total} tok/s total; 32K context × 16 simultaneous requests" in text
    assert f"measured {data['run']['date']}" in text and "latencies: mean" in text
    assert text.endswith(f"{browse.origin}/runs/{SEED_RUN_ID}/#d-32768-16")
    assert visit.page.evaluate("location.hash") == "#d-32768-16"
    visit.page.click("#p-8192")
    assert "prefill, 8192 context tokens" in (visit.page.locator(".cite p.command").text_content() or "")
    visit.assert_clean()
