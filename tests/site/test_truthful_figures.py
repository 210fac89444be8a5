"""Issue 13: the pages say exactly what their figures are.

Schema 1.1 (statistics, latency_statistic, power), the run page's words for each case a real
llm-inference-bench file can be in (means, request-count, older files, no decode_mode), the
tails and power tables, and the plausibility warnings with their acknowledged caveats. Expected
values are read from the raw files or written out here, never taken from sitegen's output.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.kit.html_tables import fields, tables
from tests.kit.project import REPO, SEED_RUN_ID, copy_site, run_cli
from tests.kit.raw_samples import RUN_META, bench

DATA = REPO / "tests" / "data"
SAMPLE = DATA / "upstream" / "sample_benchmark_results.json"
PLANTED = DATA / "plausibility" / "planted.yaml"
MINIMAL = DATA / "valid" / "minimal.yaml"


def _site(tmp_path: Path, shared_cache: Path) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    site = copy_site(tmp_path / "site", shared_cache)
    shutil.rmtree(site / "content" / "runs")
    (site / "content" / "runs").mkdir()
    return site


def _raw_run(
    site: Path, run_id: str, data: dict[str, Any], meta: dict[str, Any] | None = None
) -> None:
    folder = site / "content" / "runs" / run_id
    folder.mkdir()
    (folder / "benchmark_results.json").write_text(json.dumps(data, indent=2))
    (folder / "run.yaml").write_text(yaml.safe_dump(meta or RUN_META, sort_keys=False))


def _build(site: Path) -> None:
    assert run_cli(site, "collect") == 0
    assert run_cli(site, "build") == 0


def _page(site: Path, run_id: str) -> str:
    return (site / "_site" / "runs" / run_id / "index.html").read_text(encoding="utf-8")


def _text(page: str) -> str:
    """The page's words as a reader sees them, one line per block of text."""
    text = re.sub(r"<[^>]+>", "\n", page)
    return html.unescape("\n".join(line.strip() for line in text.splitlines() if line.strip()))


def _fields(page: str) -> dict[str, str]:
    return fields(page)


# --- schema 1 stays as it was -------------------------------------------------------------------


def test_a_schema_1_file_and_its_1_1_twin_render_the_same_run_page(
    tmp_path: Path, shared_cache: Path
) -> None:
    pages = []
    for version in ("1", "1.1"):
        site = _site(tmp_path / version, shared_cache)
        text = MINIMAL.read_text().replace("schema_version: 1\n", f"schema_version: {version}\n")
        assert f"schema_version: {version}\n" in text
        (site / "content" / "runs" / "minimal.yaml").write_text(text)
        _build(site)
        page = _page(site, "minimal")
        # The receipt names the file by its own digest and schema version: the rest is the same.
        head, rest = page.split("<section id=reproduce", 1)
        receipt, tail = rest.split("</section>", 1)
        written = (site / "content" / "runs" / "minimal.yaml").read_bytes()
        digest = hashlib.sha256(written).hexdigest()
        assert f"sha256:{digest}" in receipt and f"result schema {version}</div>" in receipt
        pages.append(head + tail)
    assert pages[0] == pages[1]
    # Nothing declares the statistic, so the page claims none.
    assert "Latencies as the source reports them." in _text(pages[0])


def test_every_schema_is_published(tmp_path: Path, shared_cache: Path) -> None:
    site = _site(tmp_path, shared_cache)
    shutil.copy(MINIMAL, site / "content" / "runs")
    _build(site)
    published = {
        path.name: json.loads(path.read_text())
        for path in (site / "_site" / "schema").glob("result*.json")
    }
    assert published["result.schema.json"]["$id"] == "urn:sitegen:schema:result:1"
    assert published["result-1.1.schema.json"]["$id"] == "urn:sitegen:schema:result:1.1"
    assert published["result-1.2.schema.json"]["$id"] == "urn:sitegen:schema:result:1.2"


# --- the seed run: means, tails, power
# -------------------------------------------------------------


@pytest.fixture(scope="module")
def seed_page(seed_site: Path) -> str:
    return _page(seed_site, SEED_RUN_ID)


def _raw_cell(context: int, concurrency: int) -> dict[str, Any]:
    raw = json.loads(SAMPLE.read_text(encoding="utf-8"))
    [cell] = [
        c
        for c in raw["results"]
        if (c["context_tokens"], c["concurrency"]) == (context, concurrency)
    ]
    return cell


def test_seed_page_says_its_latencies_are_means(seed_page: str) -> None:
    """The headline figures are the raw file's _avg values (tests/site/test_seed_page.py checks them
    against the real page), so the page calls them means, and no word claims medians."""
    text = _text(seed_page)
    assert (
        "TTFT, time between tokens and per-request tok/s are means over each cell's requests. "
        "Total tok/s is "
        "output tokens per second across all simultaneous requests; on prefill rows it is prompt "
        "tokens per "
        "second."
    ) in text
    assert "medians are" not in text.lower() and "are medians" not in text.lower()
    cell = _raw_cell(8192, 128)
    assert (
        f"{cell['ttft_avg'] * 1000:,.0f} ms" == "1,317 ms"
    )  # the figure the table shows is the mean


def test_seed_page_heads_p50_p90_p99_and_says_where_they_are(seed_page: str) -> None:
    # The table's head and rows are made by the reader's browser (run.js) from what the table
    # says it holds: TTFT and time between tokens at p50, p90, p99, and the slow tail of speed
    # (tests/browser/test_browser_tails.py reads the head and rows the browser makes).
    assert re.search(
        r'<table class="data tails" hidden\n data-figures="ttft_ms time_between_tokens_ms" '
        r'data-statistics="p50 p90 p99"\n data-phase="Sustained decode" data-speed>',
        seed_page,
    )
    assert "<thead" not in seed_page.split('table class="data tails', 1)[1].split("</table>")[0]
    assert f'<a href="../../runs/{SEED_RUN_ID}.json">result file (JSON)</a>' in seed_page
    # The detail is closed: a phone sees one line, not a second wide table.
    assert re.search(r'<details class="more tails">\s*<summary>', seed_page)


def test_seed_page_power_and_derived_energy(seed_page: str) -> None:
    raw = _raw_cell(8192, 1)
    watts = raw["hardware_summary"]["power_total_avg_w"]
    joules = watts / raw["aggregate_tps"]
    power = tables(seed_page)["data power"]
    # Its head and rows are made by the reader's browser from the run JSON
    # (tests/browser/test_browser_tails.py checks each against the raw file); the page says where
    # they are, and leads with the least energy, worked out here from the raw file's cells.
    assert power == [] and "id=power-where" in seed_page
    least = min(
        c["hardware_summary"]["power_total_avg_w"] / c["aggregate_tps"]
        for c in json.loads(SAMPLE.read_text(encoding="utf-8"))["results"]
    )
    assert least < min(joules, 1)
    assert f"Least energy: {least:.3f} J per output token" in _text(seed_page)
    text = _text(seed_page)
    assert "Energy per output token is\nderived\n: average power ÷ total tok/s" in text


def test_measurements_table_is_autoescaped() -> None:
    template = (REPO / "templates" / "pages" / "run.html").read_text()
    assert "autoescape false" not in template and "|safe" not in template.replace(" ", "")


# --- llm-inference-bench files of other shapes
# ------------------------------------------------------


def test_request_count_older_and_undeclared_mode_runs_read_correctly(
    tmp_path: Path, shared_cache: Path
) -> None:
    site = _site(tmp_path, shared_cache)
    # A --request-count run with one warm-up request.
    counted = bench(
        decode_mode="request-count",
        primary_decode_layer="burst_e2e_decode",
        request_count=32,
        warmup_request_count=1,
    )
    for cell in counted["results"]:
        cell.update(benchmark_mode="request-count", measurement_wall_seconds=0.0)
    _raw_run(site, "counted", counted)
    # An older file: no decode_mode yet, no queue signals in its cells.
    older = bench(version="0.4.10", duration_per_test=20.0)
    del older["metadata"]["decode_mode"]
    for cell in older["results"]:
        for key in ("avg_queue_reqs", "max_queue_reqs", "queue_fraction"):
            del cell[key]
    _raw_run(site, "older", older)
    _build(site)

    page = _page(site, "counted")
    assert re.search(r'<h2 id="?decode-h"?>Request-count decode</h2>', page)
    # The measurements table's decode rows are called so (run.js writes the rows from data-phase).
    assert re.search(r'<table class="data figures" hidden data-phase="Request-count decode">', page)
    assert "Sustained decode" not in _text(page)
    assert (
        "Each decode cell measured 32 requests after 1 warm-up request (--request-count)."
        in _text(page)
    )
    assert "TTFT, time between tokens and per-request tok/s are means" in _text(page)

    page = _page(site, "older")
    assert _fields(page)["Time per measurement"] == "20 s"
    assert re.search(
        r"4 decode cells of this file have no queue signals .*may have had requests waiting\.",
        _text(page).replace("\n", " "),
    )


def test_a_median_run_says_medians(tmp_path: Path, shared_cache: Path) -> None:
    site = _site(tmp_path, shared_cache)
    data = yaml.safe_load(MINIMAL.read_text())
    data["schema_version"] = 1.1
    data["run"]["latency_statistic"] = "median"
    data["measurements"]["decode"][0].update(
        ttft_ms=67.1,
        statistics={"ttft_ms": {"mean": 140.2, "p50": 67.1, "p90": 301.0, "p99": 512.3}},
    )
    (site / "content" / "runs" / "median.yaml").write_text(yaml.safe_dump(data))
    _build(site)
    page = _page(site, "median")
    assert "per-request tok/s are medians over each cell's requests." in _text(page)
    # The mean is not the headline here, so the detail shows it beside the percentiles (its
    # rows are made in the browser from the run JSON, where the mean is written).
    assert 'data-statistics="mean p50 p90 p99"' in page


# --- plausibility warnings
# ------------------------------------------------------------------------------


def _planted_lines() -> dict[int, set[str]]:
    """Line number → the checks its '# planted:' comment names, read from the file's text."""
    planted = {}
    for number, line in enumerate(PLANTED.read_text().splitlines(), start=1):
        if "# planted:" in line:
            planted[number] = {check.strip() for check in line.split("# planted:")[1].split(",")}
    return planted


def test_planted_contradictions_warn_at_their_lines_and_pass(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = project / "content" / "runs" / "planted.yaml"
    shutil.copy(PLANTED, target)
    capsys.readouterr()
    assert run_cli(project, "check", str(target)) == 0
    captured = capsys.readouterr()
    assert captured.out == "checked 1 run: no problems\n"
    found: dict[int, set[str]] = {}
    for line in captured.err.splitlines():
        match = re.match(
            r"content/runs/planted\.yaml:(\d+): (/measurements/decode/\d+/\w+): warning: .* "
            r"\[([a-z-]+)\]",
            line,
        )
        assert match, line
        found.setdefault(int(match[1]), set()).add(match[3])
    assert found == _planted_lines()

    assert run_cli(project, "check", "--format", "github", str(target)) == 0
    annotations = [line for line in capsys.readouterr().out.splitlines() if line.startswith("::")]
    assert len(annotations) == sum(len(checks) for checks in _planted_lines().values())
    assert all(
        line.startswith("::warning file=content/runs/planted.yaml,line=") for line in annotations
    )
    assert any(
        "title=/measurements/decode/4/total_tokens_per_s::" in line
        and "[jump-from-neighbours]" in line
        for line in annotations
    )

    # collect warns too, and still writes the site's data.
    assert run_cli(project, "collect") == 0
    assert (
        "planted.yaml:31: /measurements/decode/2/time_between_tokens_ms: warning:"
        in capsys.readouterr().err
    )


def test_acknowledged_warnings_are_quiet_and_shown_as_caveats(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = yaml.safe_load(PLANTED.read_text())
    reason = "The server's max-num-seqs was 2 <b>at the time</b>; the tool saw no queue."
    data["run"]["acknowledged_warnings"] = [
        {
            "check": "active-below-requested",
            "pointer": "/measurements/decode/8/average_active_requests",
            "reason": reason,
        },
        {
            "check": "per-request-vs-total",
            "pointer": "/measurements/decode/8/total_tokens_per_s",
            "reason": "Same cause: only 1.5 requests ran on average.",
        },
    ]
    target = project / "content" / "runs" / "planted.yaml"
    target.write_text(yaml.safe_dump(data, sort_keys=False))
    capsys.readouterr()
    assert run_cli(project, "check", str(target)) == 0
    err = capsys.readouterr().err
    assert "decode/8" not in err  # acknowledged: not printed
    assert err.count("warning:") == 3  # the other planted ones still are
    _build(project)
    page = _page(project, "planted")
    text = _text(page)
    assert "Caveats" in text
    assert "4K × 4 requests, average active requests\n(active-below-requested): " + reason in text
    assert "&lt;b&gt;at the time&lt;/b&gt;" in page  # the reason is the file's text, escaped


def test_a_stale_acknowledgement_is_itself_a_warning(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = yaml.safe_load(MINIMAL.read_text())
    data["schema_version"] = 1.1
    data["run"]["acknowledged_warnings"] = [
        {
            "check": "jump-from-neighbours",
            "reason": "was a typo",
            "pointer": "/measurements/decode/0/total_tokens_per_s",
        }
    ]
    target = project / "content" / "runs" / "stale.yaml"
    target.write_text(yaml.safe_dump(data, sort_keys=False))
    capsys.readouterr()
    assert run_cli(project, "check", str(target)) == 0
    lines = target.read_text().splitlines()
    line = next(n for n, text in enumerate(lines, start=1) if "acknowledged_warnings" in text) + 1
    assert capsys.readouterr().err == (
        f"content/runs/stale.yaml:{line}: /run/acknowledged_warnings/0: warning: acknowledges a "
        f"jump-from-neighbours "
        "warning at /measurements/decode/0/total_tokens_per_s that sitegen does not give; remove "
        "it, or correct its "
        "check or pointer\n"
    )


def test_shipped_runs_give_no_plausibility_warning(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert run_cli(project, "check") == 0
    assert "warning:" not in capsys.readouterr().err


# --- distinguishing labels
# -----------------------------------------------------------------------------


def _unique(texts: list[str]) -> bool:
    return len(texts) == len(set(texts))


def test_no_two_shipped_runs_share_a_displayed_name(built_site: Path) -> None:
    """Wherever a reader reads or picks runs: page titles, index rows, the compare picker, the
    ready-made comparisons, chart legends and the feed."""
    run_pages = sorted((built_site / "runs").glob("*/index.html"))
    titles = [re.search(r"<title>(.*?)</title>", p.read_text())[1] for p in run_pages]  # type: ignore[index]
    assert len(titles) == len(list((REPO / "content" / "runs").glob("*.yaml"))) and _unique(titles)
    # The two llama.cpp runs on one DGX Spark, and vLLM with and without MTP, differ as the issue
    # asks.
    assert any(t.startswith("gpt-oss-120b-GGUF on GB10 ×1 · batched ·") for t in titles)
    assert any(
        t.startswith("gpt-oss-120b-GGUF on GB10 ×1 · single stream at depth ·") for t in titles
    )
    assert any("×4 · with MTP ·" in t for t in titles) and any(
        "×4 · no speculative decoding ·" in t for t in titles
    )

    index = (built_site / "index.html").read_text()
    rows = tables(index)["data runs sortable"][1:]
    names = [
        " | ".join(row[:5]).replace("all runs", "") for row in rows
    ]  # model (+ label), hardware, engine, …
    assert _unique(names), names

    picker = (built_site / "compare" / "index.html").read_text()
    select = picker.split('<select name="add"', 1)[1].split("</select>", 1)[0]
    options = [
        html.unescape(o) for o in re.findall(r"<option value=\"[^\"]+\"[^>]*>([^<]*)", select)
    ]
    assert len(options) == len(titles) and _unique(options)
    pairs = [html.unescape(p) for p in re.findall(r'<li><a href="[^"]*">(.*?)</a>', picker)]
    assert _unique(pairs)

    for group in list((built_site / "models").glob("*/index.html")) + list(
        (built_site / "hardware").glob("*/index.html")
    ):
        page = group.read_text()
        for legend in re.findall(r'<ul class="chart-legend">(.*?)</ul>', page, re.S):
            entries = [
                html.unescape(re.sub(r"<[^>]+>", "", e))
                for e in re.findall(r"<li[^>]*>(.*?)</li>", legend, re.S)
            ]
            assert _unique(entries), (group, entries)
            assert not any(
                re.search(r"\((dgxspark|rtx6kpro)[^)]*\)$", e) for e in entries
            )  # no run-id fallback

    feed = (built_site / "feed.xml").read_text()
    entry_titles = re.findall(r"<entry>.*?<title[^>]*>(.*?)</title>", feed, re.S)
    assert len(entry_titles) == len(titles) and _unique(entry_titles)


def test_label_rules() -> None:
    from sitegen.model import run_from_dict
    from sitegen.site.figures.labels import distinguishing_labels

    def run(run_id: str, **run_fields: Any) -> Any:
        data = yaml.safe_load(MINIMAL.read_text())
        engine = run_fields.pop("engine", {})
        data["engine"].update(engine)
        data["run"].update(run_fields)
        return run_from_dict(run_id, data)

    other_model = run("c", model="other/model")
    assert distinguishing_labels([run("a"), other_model]) == {}  # nothing alike: no labels
    assert distinguishing_labels(
        [run("a", engine={"version": "0.5"}), run("b", engine={"version": "0.6"})]
    ) == {"a": "v0.5", "b": "v0.6"}
    assert distinguishing_labels(
        [run("a", label="tuned kernels"), run("b", date="2026-01-02"), run("c", date="2026-01-03")]
    ) == {"a": "tuned kernels", "b": "2026-01-02", "c": "2026-01-03"}
    # Nothing differs at all: the run id is the only thing that tells them apart.
    assert distinguishing_labels([run("a"), run("b")]) == {"a": "a", "b": "b"}
    # One label a publisher gave two runs: kept, and followed by what tells them apart.
    assert distinguishing_labels(
        [
            run("a", label="fa off", engine={"version": "b5863"}),
            run("b", label="fa off", engine={"version": "b6077"}),
            run("c", label="fa on", engine={"version": "b5863"}),
        ]
    ) == {"a": "fa off · b5863", "b": "fa off · b6077", "c": "fa on"}
    # llama-bench's own test parameters tell runs of one build apart (its -fa 0,1 sweep).
    llama = {"name": "llama.cpp", "version": "b5863"}
    assert distinguishing_labels(
        [
            run("a", benchmark_tool="llama-bench", engine={**llama, "settings": {"flash_attn": 0}}),
            run(
                "b",
                benchmark_tool="llama-bench",
                engine={**llama, "settings": {"flash_attn": True, "n_ubatch": 256}},
            ),
        ]
    ) == {"a": "flash attention off", "b": "flash attention on, n_ubatch 256"}


def test_labels_are_worked_out_once_per_collection_of_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A build asks for the labels of all its runs several times: the same run objects are
    labelled once, each caller gets its own copy, and the runs are not kept alive by it."""
    import gc
    import weakref

    from sitegen.model import run_from_dict
    from sitegen.site.figures import labels as labels_module

    def run(run_id: str, version: str) -> Any:
        data = yaml.safe_load(MINIMAL.read_text())
        data["engine"]["version"] = version
        return run_from_dict(run_id, data)

    worked_out: list[int] = []
    real = labels_module.distinguishing_labels_of
    monkeypatch.setattr(
        labels_module, "distinguishing_labels_of", lambda runs: worked_out.append(1) or real(runs)
    )
    runs = [run("a", "0.5"), run("b", "0.6")]
    first = labels_module.distinguishing_labels(runs)
    first["a"] = "changed by a caller"
    again = labels_module.distinguishing_labels(list(runs))  # another list, the same runs
    assert again == {"a": "v0.5", "b": "v0.6"} and len(worked_out) == 1
    # Equal runs that are other objects are worked out again.
    assert labels_module.distinguishing_labels([run("a", "0.5"), run("b", "0.6")]) == again
    assert len(worked_out) == 2
    held = weakref.ref(runs[0])
    del runs
    gc.collect()
    assert held() is None


def test_the_json_export_carries_every_percentile_of_the_raw_file(built_site: Path) -> None:
    exported = json.loads((built_site / "runs" / f"{SEED_RUN_ID}.json").read_text())
    assert exported["schema_version"] == 1.2 and exported["run"]["latency_statistic"] == "mean"
    # Its measurements as rows (docs/result-format.md, "The run JSON"): a statistic is the column
    # "statistics/<figure>/<name>", or the cell's figure itself where "same" says so; a row ends
    # at its last value.
    decode = exported["measurements"]["decode"]
    cells = {}
    for row in decode["rows"]:
        cell = dict(
            zip(decode["fields"], row + [None] * (len(decode["fields"]) - len(row)), strict=True)
        )
        cell |= {name: cell[figure] for name, figure in decode.get("same", {}).items()}
        cells[(cell["context_tokens"], cell["concurrency"])] = cell
    raw = json.loads(SAMPLE.read_text(encoding="utf-8"))
    for raw_cell in raw["results"]:
        cell = cells[(raw_cell["context_tokens"], raw_cell["concurrency"])]
        for suffix in ("p50", "p90", "p99"):
            assert cell[f"statistics/ttft_ms/{suffix}"] == pytest.approx(
                raw_cell[f"ttft_{suffix}"] * 1000, abs=1e-6
            )
            assert cell[f"statistics/time_between_tokens_ms/{suffix}"] == pytest.approx(
                raw_cell[f"inter_token_latency_{suffix}"] * 1000, abs=1e-6
            )
            assert cell[f"statistics/per_request_tokens_per_s/{suffix}"] == pytest.approx(
                raw_cell[f"output_tps_per_user_{suffix}"], abs=1e-6
            )
