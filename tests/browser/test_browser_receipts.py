"""Citable figures and a reader's own file, in chromium. Every decode cell of every shipped run,
read here from its YAML, has an address on its run page that lands on that cell (``:target``),
showing the file's figure; a click gives a citation. On /compare/, a held-out result file opened
from disk is shown beside published runs with the figures it holds (divided here), checked as
`sitegen check` checks it, and no request after load carries anything but the site's own files."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.kit.browser import Browsing, Visit
from tests.kit.project import DATA, REPO, SEED_RUN_ID, run_cli

pytestmark = pytest.mark.browser

RUNS = sorted((REPO / "content" / "runs").glob("*.yaml"))


def shown_rate(value: float) -> str:
    """numbers.rate as docs/architecture.md states it: 10.2K from 10,000 up, else 1 decimal."""
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
  return [id, target ? target.id : null, target ? target.tagName : null,
          figure ? figure.textContent : null,
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
        assert (
            visit.js(
                "() => Array.from(document.querySelectorAll('table.matrix td')).map((td) => td.id)"
            )
            == ids
        )
        found = {row[0]: row[1:] for row in visit.js(TARGETS_JS, ids)}
        for cell in decode:
            anchor = f"d-{cell['context_tokens']}-{cell['concurrency']}"
            target, tag, figure, in_matrix = found[anchor]
            assert (target, tag, in_matrix) == (anchor, "TD", True), (path.name, anchor)
            if cell["status"] in ("valid", "requests_queued") and len(
                {(c["context_tokens"], c["concurrency"]) for c in decode}
            ) == len(decode):
                assert figure == shown_rate(cell["total_tokens_per_s"]), (path.name, anchor)
        visit.assert_clean()
        visit.page.close()


def test_a_click_on_a_cell_gives_its_citation(browse: Browsing) -> None:
    decode = {
        (c["context_tokens"], c["concurrency"]): c
        for c in cells(REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml")
    }
    data = yaml.safe_load(
        (REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml").read_text(encoding="utf-8")
    )
    visit = browse.open(f"/runs/{SEED_RUN_ID}/")
    visit.page.click("#d-32768-16")
    text = visit.page.locator(".cite p.command").text_content() or ""
    total = shown_rate(decode[(32768, 16)]["total_tokens_per_s"])
    assert f"{total} tok/s total; 32K context × 16 simultaneous requests" in text
    assert f"measured {data['run']['date']}" in text and "latencies: mean" in text
    assert text.endswith(f"{browse.origin}/runs/{SEED_RUN_ID}/#d-32768-16")
    assert visit.page.evaluate("location.hash") == "#d-32768-16"
    visit.page.click("#p-8192")
    assert "prefill, 8192 context tokens" in (
        visit.page.locator(".cite p.command").text_content() or ""
    )
    visit.assert_clean()


# --- a reader's own file on /compare/ ---------------------------------------------------------

PAIR_IDS = ("h200nvl2-sglang-deepseek-v4-flash-dspark", "b200x2-vllm-nemotron3nano30b-fp8")
# A ratio table's rows as a reader sees them (as tests/browser/test_browser_compare.py reads them).
COLUMNS_JS = """(table) => Array.from(table.tBodies[0].rows)
    .map((row) => Array.from(row.cells).slice(1)
    .flatMap((td) => Array(td.colSpan).fill(td.innerText.trim())))"""


def held_out(project: Path, tmp_path: Path) -> Path:
    """A run no site ships: the five vLLM load points of tests/data/samples/vllm, imported here."""
    sweep = tmp_path / "sweep"
    sweep.mkdir()
    for path in sorted((DATA / "samples" / "vllm").glob("scicom-b200x8-*.json")):
        (sweep / path.name).write_bytes(path.read_bytes())
    (sweep / "run.yaml").write_text(
        "hardware: {type: discrete-gpu, accelerator: B200, count: 8}\n"
        "engine: {name: vLLM, version: '0.9.1'}\nrun: {model: Qwen/Qwen3-32B}\n",
        encoding="utf-8",
    )
    assert run_cli(project, "import", str(sweep), "--id", "held-out") == 0
    return project / "content" / "runs" / "held-out.yaml"


def open_own_file(
    browse: Browsing, path: Path, runs: tuple[str, ...] = PAIR_IDS
) -> tuple[Visit, list[str]]:
    """/compare/ with published runs, then the file opened; every request made after load."""
    visit = browse.open("/compare/?runs=" + ",".join(runs))
    visit.page.locator("#compare-result table.rt").first.wait_for()
    after: list[str] = []
    visit.page.on("request", lambda request: after.append(f"{request.method} {request.url}"))
    visit.page.set_input_files("#own-file", str(path))
    visit.page.wait_for_function(
        "() => document.getElementById('compare-chosen').textContent.includes('Your file')"
        " || !document.getElementById('own-problems').hidden"
    )
    return visit, after


def assert_only_site_assets(requests: list[str], origin: str, file_text: str) -> None:
    allowed = re.compile(
        r"GET " + re.escape(origin) + r"/(assets/[\w/.-]+\?v=[0-9a-f]{10}|schema/result(-1\.[12])?"
        r"\.schema\.json|data/setups\.json|runs/[a-z0-9_-]+\.json)$"
    )
    assert requests, "opening a file loads its reader"
    for request in requests:
        assert allowed.match(request), request
    assert f"GET {origin}/assets/vendor/js-yaml.min.js" in " ".join(
        requests
    ) or not file_text.startswith("#")
    published = {request.rsplit("/", 1)[-1] for request in requests if "/runs/" in request}
    assert published <= {f"{run_id}.json" for run_id in PAIR_IDS}, published


def test_a_held_out_file_is_compared_beside_two_published_runs(
    browse: Browsing, project: Path, tmp_path: Path
) -> None:
    path = held_out(project, tmp_path)
    visit, requests = open_own_file(browse, path)
    page = visit.page
    assert page.locator("#own-problems").is_hidden()
    assert page.locator("#compare-chosen li").all_inner_texts()[2].startswith("C Your file")
    page.wait_for_function(
        "() => document.querySelectorAll('#compare-result table.rt').length === 2"
    )
    mine = yaml.safe_load(path.read_text(encoding="utf-8"))
    base = yaml.safe_load(
        (REPO / "content" / "runs" / f"{PAIR_IDS[0]}.yaml").read_text(encoding="utf-8")
    )
    # C against A, per accelerator (the counts differ: 8 and 2): each valid cell, divided here.
    assert "C against A, tok/s per accelerator" in page.locator("#ratio-h-2").inner_text()
    table = page.locator("#compare-result table.rt").nth(1).evaluate(COLUMNS_JS)
    cells = mine["measurements"]["decode"] + base["measurements"]["decode"]
    contexts = sorted({c["context_tokens"] for c in cells})
    levels = sorted({c["concurrency"] for c in cells})
    for cell in mine["measurements"]["decode"]:
        shown = table[contexts.index(cell["context_tokens"])][levels.index(cell["concurrency"])]
        assert f"C {shown_rate(cell['total_tokens_per_s'] / 8)}" in shown, shown
    # The setup table and the caveats name the file's facts.
    row = page.locator("#compare-result table.facts tr", has_text="Accelerators")
    assert row.locator("td").all_inner_texts() == ["2", "2", "8"]
    assert "(A 2; B 2; C 8)" in page.locator("#compare-result .caveats").inner_text()
    # Nothing read from the file left the page: only the site's own files were asked for.
    assert_only_site_assets(requests, browse.origin, path.read_text(encoding="utf-8"))
    assert not any("held-out" in request or "Qwen3-32B" in request for request in requests)
    visit.assert_clean()


def test_a_published_run_json_is_a_file_too(
    browse: Browsing, built_site: Path, tmp_path: Path
) -> None:
    downloaded = tmp_path / "downloaded.json"
    downloaded.write_bytes(
        (built_site / "runs" / "ttp300-vllm-qwen3-4b.json").read_bytes()
    )  # with its receipt
    visit, requests = open_own_file(browse, downloaded)
    assert visit.page.locator("#own-problems").is_hidden()
    assert visit.page.locator("#compare-chosen li").all_inner_texts()[2].startswith("C Your file")
    assert_only_site_assets(requests, browse.origin, "")
    assert not any("vendor/js-yaml" in request for request in requests), (
        "a JSON file needs no YAML parser"
    )
    visit.assert_clean()


def test_an_own_files_switches_read_as_the_pages_word_them(
    browse: Browsing, built_site: Path, tmp_path: Path
) -> None:
    """A switch of a reader's own file reads yes or no in the setup table, as the published
    runs' do (numbers.setting), from the file's true and false."""
    run_id = "dgxspark-vllm-gemma4-26b-bf16-office-baseline-2026-06-22"
    downloaded = tmp_path / "downloaded.json"
    downloaded.write_bytes((built_site / "runs" / f"{run_id}.json").read_bytes())
    settings = yaml.safe_load(downloaded.read_text(encoding="utf-8"))["engine"]["settings"]
    switches = {key: value for key, value in settings.items() if isinstance(value, bool)}
    assert switches  # async_scheduling true, enable_prefix_caching false
    visit, _ = open_own_file(browse, downloaded)
    for key, value in switches.items():
        row = visit.page.locator("#compare-result table.facts tr", has_text=f"Setting: {key}")
        assert row.locator("td").all_inner_texts()[2] == ("yes" if value else "no"), key
    visit.assert_clean()


def test_a_bad_file_is_refused_with_what_sitegen_check_says(
    browse: Browsing, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = held_out(project, tmp_path).read_text(encoding="utf-8")
    bad = project / "content" / "runs" / "bad.yaml"
    bad.write_text(
        text.replace("  type: discrete-gpu\n", "  type: discrete-gpu\n  typo: 1\n")
        .replace("  count: 8\n", "  count: eight\n")
        .replace("  model: Qwen/Qwen3-32B\n", ""),
        encoding="utf-8",
    )
    capsys.readouterr()
    assert run_cli(project, "check", str(bad)) == 1
    expected = [
        line.replace("content/runs/bad.yaml", "bad.yaml")
        for line in capsys.readouterr().err.splitlines()
        if line.startswith("content/runs/bad.yaml")
    ]
    assert len(expected) == 3, expected
    visit, requests = open_own_file(browse, bad)
    shown = visit.page.locator("#own-problems li").all_inner_texts()
    assert sorted(shown) == sorted(expected)
    assert visit.page.locator("#compare-chosen").inner_text().count("Your file") == 0
    assert_only_site_assets(requests, browse.origin, "#")
