"""Capacity, operating points and cost (docs/capacity.md).

The site's /data/capacity.json and pages are checked against figures worked out here, in the
test, straight from the published result files (/runs/<id>.json) and sitegen.yaml's service
levels, never by calling sitegen's capacity module; the rules themselves are checked on small
hand-made cells whose answers are worked out by hand."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from sitegen.config import Price, ServiceLevel, load_config
from sitegen.errors import SitegenError
from sitegen.site.figures import capacity as cap
from tests.kit import verdict_rule as rule
from tests.kit.capacity_json import FIELDS, WORD_FIELDS, capacity_records
from tests.kit.context_rule import context_label
from tests.kit.html_tables import tables
from tests.kit.paging_rule import site_pages
from tests.kit.project import REPO, SEED_RUN_ID, load_yaml, run_cli
from tests.kit.run_json import published_run

SERVER = ServiceLevel("server", 5.0, 2000.0)


# --- the rules, on hand-made cells ---------------------------------------------------------


@pytest.mark.parametrize(
    ("actual", "wanted", "matches"),
    [
        (8000, 8192, True),  # 2.4 % apart: one context spelt two ways
        (8192, 8000, True),
        (1043456, 1048576, True),  # sglang's 1019K for 1M: 0.5 %
        (15360, 16384, False),  # 15K is not 16K (6 %)
        (4096, 8192, False),
        (0, 0, True),
        (128, 0, False),
    ],
)
def test_contexts_match_within_three_percent(actual: int, wanted: int, matches: bool) -> None:
    assert cap.context_matches(actual, wanted) is matches


def test_the_nearest_matching_context_stands_for_the_wanted_one() -> None:
    assert cap.match_context([8000, 8192, 16384], 8192) == 8192
    assert cap.match_context([8000, 16384], 8192) == 8000
    assert cap.match_context([4096, 16384], 8192) is None  # never a neighbour further off


def cell(concurrency: int, **figures: Any) -> dict[str, Any]:
    return {"context_tokens": 8192, "concurrency": concurrency, "status": "valid", **figures}


def test_a_cell_meets_a_level_only_with_every_figure_it_limits() -> None:
    assert cap.judge(
        cell(1, per_request_tokens_per_s=5.0, ttft_ms=2000.0), SERVER
    ).met  # limits are inclusive
    slow = cell(1, per_request_tokens_per_s=4.99, ttft_ms=100.0)
    assert cap.judge(slow, SERVER).state == "misses"
    assert (
        cap.judge(cell(1, per_request_tokens_per_s=50.0, ttft_ms=2000.1), SERVER).state == "misses"
    )
    no_speed = cap.judge(cell(1, ttft_ms=100.0), SERVER)  # no per-request speed: cannot tell
    assert (no_speed.state, no_speed.reason) == (
        "cannot_tell",
        "no per-request tok/s nor time between tokens",
    )
    no_ttft = cell(1, per_request_tokens_per_s=50.0)
    assert cap.judge(no_ttft, SERVER).state == "cannot_tell"
    # A figure outside its limit decides, whatever else is missing.
    assert cap.judge(cell(1, ttft_ms=2500.0), SERVER).state == "misses"
    queued = {**cell(1, per_request_tokens_per_s=50.0, ttft_ms=100.0), "status": "requests_queued"}
    judged = cap.judge(queued, SERVER)
    assert (judged.state, judged.reason) == ("misses", "not a valid measurement")
    gaps = ServiceLevel("gaps", 5.0, 2000.0, max_time_between_tokens_ms=40.0)
    no_gaps = cell(1, per_request_tokens_per_s=50.0, ttft_ms=100.0)
    assert cap.judge(no_gaps, gaps).state == "cannot_tell"
    assert cap.judge(
        cell(1, per_request_tokens_per_s=50.0, ttft_ms=100.0, time_between_tokens_ms=40.0), gaps
    ).met


def test_a_percentile_comes_from_the_cells_statistics_or_cannot_tell() -> None:
    p99 = ServiceLevel("p99", 20.0, 1000.0, percentile="p99")
    headline_only = cell(1, per_request_tokens_per_s=50.0, ttft_ms=100.0)
    assert cap.judge(headline_only, SERVER).met
    assert cap.judge(headline_only, p99).state == "cannot_tell"
    assert (
        cap.judge(headline_only, p99).reason
        == "no per-request tok/s (p99) nor time between tokens (p99); no TTFT (p99)"
    )
    # p99 of TTFT is its slow tail; for a speed the slow tail is p1.
    tails = {
        **headline_only,
        "statistics": {"ttft_ms": {"p99": 900.0}, "per_request_tokens_per_s": {"p1": 21.0}},
    }
    assert cap.judge(tails, p99).met
    slow = {
        **tails,
        "statistics": {"ttft_ms": {"p99": 1200.0}, "per_request_tokens_per_s": {"p1": 21.0}},
    }
    assert cap.judge(slow, p99).reason == "TTFT (p99) above 1000 ms"
    assert cap.mirrored_percentile("p99.9") == "p0.1" and cap.mirrored_percentile("p90") == "p10"


def test_capacity_needs_every_smaller_measured_concurrency_to_meet_the_level() -> None:
    good = {"per_request_tokens_per_s": 30.0, "ttft_ms": 500.0}
    row = {
        1: cell(1, **good, total_tokens_per_s=30.0),
        2: cell(2, per_request_tokens_per_s=3.0, ttft_ms=500.0),
        4: cell(4, **good, total_tokens_per_s=120.0),
    }
    held = cap.capacity(8192, row, SERVER, accelerators=2)
    # 4 meets the level but 2 does not: the run was not seen to hold 4.
    assert (held.max_concurrency, held.total_tokens_per_s, held.users_per_accelerator) == (
        1,
        30.0,
        0.5,
    )
    assert held.tokens_per_s_per_accelerator == 15.0
    none = cap.capacity(8192, {1: cell(1, per_request_tokens_per_s=3.0, ttft_ms=1.0)}, SERVER, 1)
    assert none.max_concurrency is None and none.users_per_accelerator is None


def test_cost_per_million_output_tokens() -> None:
    # $2 an accelerator-hour × 4 accelerators = $8 an hour; 1,000 tok/s = 3.6M tokens an hour.
    assert cap.cost_per_million_tokens(2.0, 4, 1000.0) == pytest.approx(8 / 3.6)
    assert cap.cost_per_million_tokens(2.0, 4, None) is None


# --- the built site against an independent reading of its own result files ------------------


def expected_records(site: Path, levels: list[dict[str, Any]]) -> list[dict[str, Any]]:
    records = []
    for path in sorted((site / "runs").glob("*.json")):
        document = {**published_run(path), "_id": path.stem}
        rows = rule.own_cells(document)
        records += [
            rule.record(document, context, level) for level in levels for context in sorted(rows)
        ]
    return records


@pytest.fixture(scope="module")
def built(shipped: Path) -> Path:
    """The shipped site, built once for the session (conftest): read only here."""
    return shipped


def test_capacity_json_matches_a_recomputation_from_the_result_files(built: Path) -> None:
    levels = load_yaml((built / "sitegen.yaml").read_text())["service_levels"]
    text = (built / "_site" / "data" / "capacity.json").read_text()
    published = json.loads(text)
    assert published["format"] == "sitegen-capacity" and published["version"] == 6
    assert published["derived"] is True
    assert [level["name"] for level in published["service_levels"]] == [
        "server",
        "interactive",
        "interactive-cold",
    ]
    # The verdicts only: the figures at a capacity are the run's cells' (data/points/).
    assert published["fields"] == FIELDS
    expected = expected_records(built / "_site", levels)
    published_records = capacity_records(built / "_site")
    assert [{k: v for k, v in r.items() if k != "reason"} for r in published_records] == expected
    # The published figures are the run's own cells', as kept by data/points/: every record of a
    # run at a context meets at a count measured there.
    points = _points_totals(built / "_site")
    for r in published_records:
        if r["max_concurrency"] is not None:
            assert (
                points[(r["run"], r["context_tokens"], r["max_concurrency"])]
                == (r["total_tokens_per_s"])
            )
    # A record says why its ladder stopped, and nothing when every measured load meets the level.
    assert all(bool(r["reason"]) == (r["stopped_at"] is not None) for r in published_records)
    # Compact: one run per line, its id then its records, each ending at its last value; no
    # indentation.
    lines = text.splitlines()
    runs = sorted({r["run"] for r in published_records})
    assert len(lines) == len(runs) + 2 and not any(line.startswith(" ") for line in lines)
    # Each word a record uses written as its number in "words": every verdict of the shipped
    # runs is one the file's words name (none written as itself).
    number = {word: i for i, word in enumerate(published["words"])}
    for line, run in zip(lines[1:-1], runs, strict=True):
        by_level: dict[str, list[list[Any]]] = {}
        for r in published_records:
            if r["run"] == run:
                values = [
                    number[r[name]] if name in WORD_FIELDS and r[name] is not None else r[name]
                    for name in published["fields"]
                ]
                while values[-1] is None:
                    values.pop()
                by_level.setdefault(r["service_level"], []).append(values)
        assert json.loads(line.rstrip(",")) == [run, by_level]
    # Some runs hold a load, some hold none: the check saw both kinds.
    assert any(r["max_concurrency"] for r in expected) and any(
        r["max_concurrency"] is None for r in expected
    )


def _points_totals(site: Path) -> dict[tuple[str, int, int], float]:
    """Every cell's total tok/s in data/points/<context>/<model>.json, by run, its own context and
    requests."""
    totals = {}
    for path in (site / "data" / "points").glob("*/*.json"):
        data = json.loads(path.read_text())
        total = data["columns"].index("total_tokens_per_s")
        for run, _, context, cells, *_ in data["runs"]:
            for concurrency, cell in zip(data["concurrency"], cells, strict=False):
                if cell is not None and len(cell) > total:
                    totals[(run, context, concurrency)] = cell[total]
    return totals


def test_the_seed_run_at_32k_by_hand(built: Path) -> None:
    # Read off the seed run's 32K row: every cell up to 32 requests is valid with TTFT under 2 s
    # and more than 5 tok/s per request; 64 requests takes longer than 2 s to the first token.
    document = published_run(built / "_site" / "runs" / f"{SEED_RUN_ID}.json")
    row = {
        c["concurrency"]: c
        for c in document["measurements"]["decode"]
        if c["context_tokens"] == 32768
    }
    assert row[32]["ttft_ms"] <= 2000 < row[64]["ttft_ms"] and row[32]["status"] == "valid"
    records = capacity_records(built / "_site")
    found = next(
        r
        for r in records
        if r["run"] == SEED_RUN_ID
        and r["service_level"] == "server"
        and r["context_tokens"] == 32768
    )
    assert found["max_concurrency"] == 32 and found["users_per_accelerator"] == 16.0
    assert found["total_tokens_per_s"] == row[32]["total_tokens_per_s"]


def rate(value: float) -> str:
    return f"{value / 1000:.1f}".removesuffix(".0") + "K" if value >= 10_000 else f"{value:,.1f}"


def users(value: float) -> str:
    return str(int(value)) if value % 1 == 0 else f"{value:,.1f}"  # a count, or one decimal


def following_next(first: Path) -> list[Path]:
    """A paginated view's pages, by following its rel="next" links from the first."""
    pages = [first]
    for _ in range(1000):
        found = re.search(r'rel="next" href="([^"]+)"', pages[-1].read_text())
        if not found:
            return pages
        pages.append((pages[-1].parent / found.group(1)).resolve())
    raise AssertionError("the pager did not end")


@dataclass(frozen=True)
class Answer:
    """A run's cell at one context of its model's level page, with the words the page says once
    put back: its row's place, whether marked best, its figures or its verdict in full."""

    place: int
    best: bool
    figures: list[str]  # users per accelerator, requests held, total tok/s, tok/s per accelerator
    verdict: str
    labels: str  # what it judged (its own, or the table's when every cell shares it)


def _cell(
    cell: str, place: int, shared: str, reasons: dict[str, str], numbered_notes: dict[str, str]
) -> Answer:
    notes = re.findall(r"<small>([^<]*)</small>", cell)
    met = re.match(r">(<b>)?([\d.,]+)(?: best</b>)? <small>([^<]*)</small>", cell)
    labels = shared or (notes[-1] if notes else "")
    if met:
        figures = [met.group(2), *met.group(3).split(" · ")[:3]]
        return Answer(place, bool(met.group(1)), figures, "", labels)
    words = re.sub(r"^ class=\w+>", "", cell).split(" <small>")[0]
    numbered = re.fullmatch(r"(.*)<sup>(\d+)</sup>", words)
    full = {"Does not meet": "Does not meet the level"}.get(words, words)
    if numbered:  # a note beneath the table says its verdict in full
        words = numbered_notes[numbered.group(2)]
    elif full in reasons:  # said once beneath the table: the cell has the verdict alone
        words = f"{full}: {reasons[full]}"
    return Answer(place, False, [], words, labels)


def level_pages(site: Path, level: str) -> dict[str, list[tuple[str, dict[int, Answer]]]]:
    """Every model's level page (/capacity/<level>/<model>/): its rows in order, each a run and
    its cells by the column's context (the column head's anchor, c-<tokens>)."""
    pages: dict[str, list[tuple[str, dict[int, Answer]]]] = {}
    for page in sorted((site / "capacity" / level).glob("*/index.html")):
        html = page.read_text()
        if '<table class="data level"' not in html:
            pages[page.parent.name] = []  # no run of the model has a decode matrix (see below)
            continue
        table = html.split('<table class="data level"', 1)[1].split("</table>", 1)[0]
        contexts = [int(c) for c in re.findall(r"<th id=c-(\d+)>", table)]
        judged = re.search(r"every cell judged on: ([^<]*?) · rows are setups", html)
        reasons = dict(re.findall(r"<strong>([^<]+)</strong>, in every such cell: ([^<]*)\.", html))
        # Numbered notes: "<sup>1</sup> Does not meet the level: …; <sup>2</sup> …." (a reason may
        # hold "; " itself, so a note ends where the next number starts).
        legend = re.search(r'<p class="legend">(<sup>1</sup>.*?)</p>', html)
        notes = (
            {
                number: text.strip().removesuffix(";").removesuffix(".")
                for number, text in re.findall(r"<sup>(\d+)</sup> ([^<]*)", legend.group(1))
            }
            if legend
            else {}
        )
        rows = []
        for place, row in enumerate(table.split("\n<tr><th>")[1:]):
            found = re.match(r'<a href="[./]*runs/([^/"]+)/index.html">', row)
            assert found, row
            _, *cells = row.rstrip("\n").split("<td")
            answers = {
                context: _cell(cell, place, judged.group(1) if judged else "", reasons, notes)
                for context, cell in zip(contexts, cells, strict=True)
                if cell != ">—"
            }
            rows.append((found.group(1), answers))
        pages[page.parent.name] = rows
    return pages


NO_MATRIX = "No run of this model measured sustained decode at a set number of simultaneous"


def test_a_level_page_without_rows_says_why_and_only_when_no_run_has_a_matrix(
    built: Path,
) -> None:
    """A model whose runs measured no decode cells (open-loop load points only) has nothing a
    capacity is worked out from: its level pages say so in words, never an empty table; every
    other model's pages have a row for each of its runs with a decode matrix."""
    decode_cells: dict[str, int] = {}
    for path in (built / "content" / "runs").glob("*.yaml"):
        result = load_yaml(path.read_text())
        facts = result["run"]
        model = str(facts.get("base_model") or facts["model"]).lower()
        decode_cells[model] = decode_cells.get(model, 0) + len(
            result["measurements"].get("decode") or []
        )
    levels = load_yaml((built / "sitegen.yaml").read_text())["service_levels"]
    level_names = [level["name"] for level in levels]
    seen_empty = 0
    for level in level_names:
        for page in (built / "_site" / "capacity" / level).glob("*/index.html"):
            html = page.read_text()
            model = re.search(r"<h1>(.*?): ", html).group(1)  # type: ignore[union-attr]
            model = model.replace("&#39;", "'").replace("&amp;", "&").lower()
            if decode_cells.get(model, 0) == 0:
                seen_empty += 1
                # Nor does its summary describe rows and columns it does not have.
                assert NO_MATRIX in html and "<table" not in html, page
                assert "a row each" not in html, page
            else:
                assert NO_MATRIX not in html and "\n<tr><th><a href=" in html, page
                assert "a row each" in html, page
    assert seen_empty > 0, "the shipped site has a model measured at request rates only"


def answers(site: Path, level: str) -> dict[str, dict[int, Answer]]:
    """Every run's cells at ``level``, by the context of their column."""
    shown: dict[str, dict[int, Answer]] = {}
    for rows in level_pages(site, level).values():
        for run, cells in rows:
            assert run not in shown, f"{run} listed twice"
            shown[run] = cells
    return shown


TTFT_WORDS = {
    "warm": "warm TTFT (prompt cached)",
    "cold": "cold TTFT",
    "unknown": "TTFT, prompt cache not stated",
    "cold_estimate": "cold TTFT estimate: at least the measured prefill time",
}


def verdict_labels(record: dict[str, Any], statistic: str = "") -> str:
    """What a capacity cell says it judged: the statistic (the file's mean or median, where the
    caller reads it), the speed's source where not reported, the TTFT."""
    from_gaps = record["per_request_source"] == "time_between_tokens"
    gaps = "speed from time between tokens · " if from_gaps else ""
    said = f"{statistic} latencies · " if statistic else ""
    return said + gaps + TTFT_WORDS[record["ttft_judged"]]


def test_level_pages_rank_every_setup_and_say_they_are_derived(built: Path) -> None:
    site = built / "_site"
    results = {path.stem: published_run(path) for path in (site / "runs").glob("*.json")}
    records = capacity_records(site)
    for level in ("server", "interactive"):
        shown = answers(site, level)
        # Every run with a decode matrix, at each of its contexts (load points have no capacity).
        assert set(shown) == {
            run_id for run_id, result in results.items() if result["measurements"]["decode"]
        }
        for record in (r for r in records if r["service_level"] == level):
            # Its own context's column, or a neighbour's within 3 % (its own context then named).
            context = next(
                c for c in shown[record["run"]] if abs(c - record["context_tokens"]) <= 0.03 * c
            )
            cell = shown[record["run"]][context]
            # What its verdict judged (the record's speed source, TTFT).
            assert cell.labels.endswith(verdict_labels(record)), (record, cell)
            if record["max_concurrency"] is None:
                # Does not meet (even at the fewest requests measured), or cannot tell, and why.
                fewest = record["measured_concurrency"][0]
                words = (
                    f"Cannot tell: {record['reason']}"
                    if record["state"] == "cannot_tell"
                    else f"Does not meet the level: even at {fewest} "
                    f"request{'s' if fewest > 1 else ''}: "
                    f"{record['reason']}"
                )
                assert cell.verdict == words, (record, cell)
                continue
            count = results[record["run"]]["hardware"]["count"]
            total = record["total_tokens_per_s"]
            assert cell.figures == [
                users(record["users_per_accelerator"]),
                str(record["max_concurrency"]),
                rate(total),
                rate(total / count),
            ], (record, cell)
        _best_and_order_as_stated(level_pages(site, level), records, level)
    html = (site / "capacity" / "server" / "deepseek-v4-flash-dspark" / "index.html").read_text()
    assert "not measured goodput" in html and "derived" in html
    assert "Rows are in the order of their users per accelerator at the first context" in html
    # 32 requests on 2 accelerators, the only setup of its model: 16 users per accelerator, and
    # not marked best (none other meets the level).
    seed = answers(site, "server")[SEED_RUN_ID][32768]
    assert (seed.best, seed.figures[0]) == (False, "16")


def _best_and_order_as_stated(
    pages: dict[str, list[tuple[str, dict[int, Answer]]]], records: list[dict[str, Any]], level: str
) -> None:
    """At each context the setup marked best serves the most users per accelerator (then the most
    tok/s per accelerator), marked only where two or more meet the level; and rows are in the
    order the page states: users per accelerator at the first context, then the next…"""
    served = {
        (r["run"], r["context_tokens"]): r
        for r in records
        if r["service_level"] == level and r["max_concurrency"] is not None
    }

    def record(run: str, context: int) -> dict[str, Any] | None:
        near = [
            r for (name, c), r in served.items() if name == run and abs(c - context) <= 0.03 * c
        ]
        return near[0] if near else None

    for rows in pages.values():
        contexts = sorted({c for _, cells in rows for c in cells})
        for context in contexts:
            meeting = [(run, r) for run, _ in rows if (r := record(run, context))]
            marked = [run for run, cells in rows if context in cells and cells[context].best]
            if len(meeting) < 2:
                assert marked == []
                continue
            best = max(
                (r["users_per_accelerator"], r["tokens_per_s_per_accelerator"]) for _, r in meeting
            )
            assert len(marked) == 1, (context, marked)
            chosen = record(marked[0], context)
            assert chosen is not None
            assert (chosen["users_per_accelerator"], chosen["tokens_per_s_per_accelerator"]) == best

        keys = [
            [-((record(run, c) or {}).get("users_per_accelerator") or 0.0) for c in contexts]
            for run, _ in rows
        ]
        assert keys == sorted(keys)


def test_capacity_pages_are_bounded_and_link_each_models_answers(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sitegen.site.sections.capacity.CAPACITY_PAGE_SIZE", 3)
    assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0
    site = project / "_site"
    pages = following_next(site / "capacity" / "index.html")
    expected = site_pages(site, 3)  # 10 runs, 3 a page on average (tests/kit/paging_rule.py)
    assert len(pages) == len(expected) > 1
    for page, parts in zip(pages, expected, strict=True):
        html = page.read_text()
        shown = re.findall(
            r'<section id="m-[^"]+" aria-labelledby="[^"]+">'
            r'<h2 id="[^"]+"><a href="[^"]*">([^<]+)</a>',
            html.replace("\n  ", ""),
        )
        assert [label.lower() for label in shown] == [key for key, _ in parts], page
        # Each context of each model links its ranked answer at each level.
        for slug, section in re.findall(r'<section id="m-([^"]+)"(.*?)</section>', html, re.S):
            if "No run of this model measured a decode matrix" in section:
                continue  # its runs are load points at a request rate: no capacity, and said so
            for level in ("server", "interactive"):
                linked = f"capacity/{level}/{slug}/index.html#c-" in html.replace("../", "")
                assert linked, (page, slug)
                assert (site / "capacity" / level / slug / "index.html").exists()
    # Only the first page explains the rules; the others link to them.
    assert 'id="rules"' in pages[0].read_text() and 'id="rules"' not in pages[1].read_text()
    assert 'href="../../capacity/index.html#rules"' in pages[1].read_text()


def same_model(site: Path, a: str, b: str) -> bool:
    def model(run: str) -> str:
        facts = json.loads((site / "runs" / f"{run}.json").read_text())["run"]
        return str(facts.get("base_model") or facts["model"]).lower()

    return model(a) == model(b)


def _all_tables(html: str) -> list[tuple[str, list[list[str]]]]:
    from tests.kit.html_tables import _Tables

    parser = _Tables()
    parser.feed(html)
    return parser.tables


def test_run_page_has_a_capacity_row_per_context(built: Path) -> None:
    html = (built / "_site" / "runs" / SEED_RUN_ID / "index.html").read_text()
    table = tables(html)["data capacity"]
    document = published_run(built / "_site" / "runs" / f"{SEED_RUN_ID}.json")
    contexts = sorted({c["context_tokens"] for c in document["measurements"]["decode"]})
    assert len(table) - 1 == len(contexts)
    assert (
        "derived"
        in html[html.index("<section id=capacity") : html.index("<section id=measurements")]
    )
    # What a level's verdicts judged, when every context's says the same, heads its column once
    # (the seed run's cells judge the same TTFT at every context of a level).
    section = html[html.index("<section id=capacity") : html.index("<section id=measurements")]
    for level in ("server", "interactive"):
        said = {
            verdict_labels(record, document["run"]["latency_statistic"])
            for record in capacity_records(built / "_site")
            if record["run"] == SEED_RUN_ID and record["service_level"] == level
        }
        assert len(said) == 1
        assert section.count(f"<small>every row: {said.pop()}</small>") >= 1
    assert "<td><b>" in section and "</small> <small>warm TTFT" not in section


def test_preset_view_shows_each_runs_cell_or_not_measured(built: Path) -> None:
    html = (built / "_site" / "at" / "32k-16" / "index.html").read_text()
    rows = [row for row in tables(html)["data point"][1:] if len(row) > 1]
    for path in sorted((built / "_site" / "runs").glob("*.json")):
        document = published_run(path)
        near = [
            c
            for c in document["measurements"]["decode"]
            if abs(c["context_tokens"] - 32768) <= 0.03 * 32768 and c["concurrency"] == 16
        ]
        link = f'href="../../runs/{path.stem}/index.html"'
        assert link in html
        # The row after this run's link (to the next row): its cell's total, or "Not measured".
        segment = html[html.index(link) :].split("<tr", 1)[0]
        if near and near[0]["status"] in ("valid", "requests_queued"):
            total = near[0]["total_tokens_per_s"]
            assert f"{total:,.1f}" in segment or f"{total / 1000:.1f}K" in segment, (
                path.stem,
                segment,
            )
        else:
            assert "Not measured" in segment or not near, (path.stem, segment)
    assert rows


def test_no_cost_anywhere_without_a_price(built: Path) -> None:
    site = built / "_site"
    for page in site.rglob("*.html"):
        text = page.read_text()
        assert not re.search(r"\$\s?\d", text), page  # no dollar figure
        assert "per M tokens" not in text, page
    points = list((site / "data" / "points").glob("*/*.json"))
    assert points and not any("prices" in json.loads(point.read_text()) for point in points)


def test_a_configured_price_gives_cost_by_the_formula(project: Path) -> None:
    config = project / "sitegen.yaml"
    config.write_text(
        config.read_text()
        + (
            "prices:\n  H200 NVL: {usd_per_hour: 3.5, source: 'a test price, not a real one', "
            "date: '2026-01-01'}\n"
        )
    )
    assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0
    records = capacity_records(project / "_site")
    found = next(
        r
        for r in records
        if r["run"] == SEED_RUN_ID
        and r["service_level"] == "server"
        and r["context_tokens"] == 32768
    )
    usd = 3.5 * 2 / (found["total_tokens_per_s"] * 3600) * 1e6  # two accelerators
    html = (project / "_site" / "runs" / SEED_RUN_ID / "index.html").read_text()
    assert f"${usd:,.2f} per M tokens at $3.5/h" in html  # the price it used
    assert "a test price, not a real one" in html
    document = published_run(project / "_site" / "runs" / f"{SEED_RUN_ID}.json")
    single = next(
        c
        for c in document["measurements"]["decode"]
        if (c["context_tokens"], c["concurrency"]) == (32768, 1)
    )
    assert (
        f"${3.5 * 2 / (single['total_tokens_per_s'] * 3600) * 1e6:,.2f}/M tok" in html
    )  # in the matrix
    # The picker's files carry the configured price of the runs on H200 NVL, and only theirs.
    priced = {}
    for point in (project / "_site" / "data" / "points").glob("*/*.json"):
        priced.update(json.loads(point.read_text()).get("prices", {}))
    assert priced and set(priced.values()) == {3.5} and SEED_RUN_ID in priced
    assert all(
        json.loads((project / "_site" / "runs" / f"{run}.json").read_text())["hardware"][
            "accelerator"
        ]
        == "H200 NVL"
        for run in priced
    )
    other = (
        project / "_site" / "runs" / "b200x2-vllm-nemotron3nano30b-fp8" / "index.html"
    ).read_text()
    assert not re.search(r"\$\s?\d", other)  # no price for B200: no cost


def test_config_problems_are_located(project: Path) -> None:
    config = project / "sitegen.yaml"
    text = config.read_text()
    config.write_text(text.replace("service_level: server}", "service_level: nosuch}", 1))
    with pytest.raises(SitegenError) as caught:
        load_config(config)
    problem = caught.value.problems[0]
    assert (
        problem.pointer == "/presets/1/service_level"
        and "no service level is named 'nosuch'" in problem.message
    )
    assert problem.line == next(
        n for n, line in enumerate(text.splitlines(), 1) if "32k-16" in line
    )
    config.write_text(text.replace("- name: interactive", "- name: server", 1))
    with pytest.raises(SitegenError) as caught:
        load_config(config)
    assert caught.value.problems[0].pointer == "/service_levels/1/name"


def test_shipped_defaults_are_the_documented_mlperf_style_levels() -> None:
    levels = load_config(REPO / "sitegen.yaml").service_levels
    assert [(lv.name, lv.min_tokens_per_s_per_request, lv.max_ttft_ms) for lv in levels] == [
        ("server", 5, 2000),
        ("interactive", 25, 450),
        ("interactive-cold", 25, 450),
    ]
    assert [lv.ttft for lv in levels] == [None, None, "cold"]
    assert load_config(REPO / "sitegen.yaml").prices == ()
    docs = (REPO / "docs" / "capacity.md").read_text()
    for name in ("server", "interactive", "CONTEXT_TOLERANCE", "capacity.json"):
        assert name in docs
    assert Price(1.0, "x", "2026-01-01").usd_per_hour == 1.0


def test_headlines_compare_like_with_like(built: Path) -> None:
    # Every run's one-request figure is at 8K (within 3 %) or absent, never at another context.
    index = (built / "_site" / "index.html").read_text()
    for path in sorted((built / "_site" / "runs").glob("*.json")):
        document = published_run(path)
        singles = [
            c
            for c in document["measurements"]["decode"]
            if c["concurrency"] == 1
            and c["status"] in ("valid", "requests_queued")
            and c.get("total_tokens_per_s") is not None
            and abs(c["context_tokens"] - 8192) <= 0.03 * 8192
        ]
        row = index[index.index(f'href="runs/{path.stem}/index.html"') :].split("<tr", 1)[0]
        # The fifth cell after the run's name is the one-request decode at 8K; no figure: no sort
        # value, "—".
        cell = re.match(r"(?: data-sort=([^ >]+))?>([^<]*)", row.split("<td")[5])
        assert cell, row
        if singles:
            assert (
                cell.group(1) is not None
                and float(cell.group(1)) == singles[0]["total_tokens_per_s"]
            )
            # Its own context is said beneath it only where it is not the column's 8K (8192 tokens).
            context = singles[0]["context_tokens"]
            said = re.search(r"at ([\d,.K]+) × 1\b", row.split("<td")[5])
            assert (said.group(1) if said else None) == (
                None if context == 8192 else context_label(context)
            ), row
        else:
            assert cell.group(1) is None and cell.group(2) == "—"


TAIL_RUN = """\
schema_version: 1.1
hardware: {type: discrete-gpu, accelerator: Test GPU, count: 2}
engine: {name: vllm}
run: {model: test/tail-model, latency_statistic: median}
measurements:
  prefill: []
  decode:
    - {context_tokens: 4096, concurrency: 1, status: valid, total_tokens_per_s: 40,
       per_request_tokens_per_s: 40, ttft_ms: 100,
       statistics: {ttft_ms: {p99: 300}, per_request_tokens_per_s: {p1: 35}}}
    - {context_tokens: 4096, concurrency: 2, status: valid, total_tokens_per_s: 76,
       per_request_tokens_per_s: 38, ttft_ms: 120,
       statistics: {ttft_ms: {p99: 900}, per_request_tokens_per_s: {p1: 30}}}
    - {context_tokens: 4096, concurrency: 4, status: valid, total_tokens_per_s: 144,
       per_request_tokens_per_s: 36, ttft_ms: 150,
       statistics: {ttft_ms: {p99: 1500}, per_request_tokens_per_s: {p1: 31}}}
    - {context_tokens: 4096, concurrency: 8, status: valid, total_tokens_per_s: 240,
       per_request_tokens_per_s: 30, ttft_ms: 200}
"""


def test_a_percentile_level_reads_schema_1_1_statistics_end_to_end(project: Path) -> None:
    (project / "content" / "runs" / "tail-test.yaml").write_text(TAIL_RUN)
    (project / "sitegen.yaml").write_text(
        "title: Tail test\n"
        "service_levels:\n"
        "  - {name: median, min_tokens_per_s_per_request: 25, max_ttft_ms: 1000}\n"
        "  - {name: tail, min_tokens_per_s_per_request: 25, max_ttft_ms: 1000, percentile: p99}\n"
        "presets: []\n"
    )
    assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0
    records = {
        r["service_level"]: r
        for r in capacity_records(project / "_site")
        if r["run"] == "tail-test"
    }
    # By the medians every load holds; by p99, 4 requests take 1.5 s to a first token.
    assert (records["median"]["max_concurrency"], records["median"]["users_per_accelerator"]) == (
        8,
        4.0,
    )
    assert records["tail"] == {
        "run": "tail-test",
        "service_level": "tail",
        "context_tokens": 4096,
        "max_concurrency": 2,
        "total_tokens_per_s": 76,
        "tokens_per_s_per_accelerator": 38.0,
        "users_per_accelerator": 1.0,
        "state": "meets",
        "per_request_source": "reported",
        "ttft_judged": "unknown",
        "stopped_at": 4,
        "stopped_state": "misses",
        "reason": "TTFT (p99) above 1000 ms",
        "measured_concurrency": [1, 2, 4, 8],
    }
    assert not (project / "_site" / "at").exists()  # presets: [] gives no static views


def test_point_files_hold_every_cell_exactly_once_per_matching_context(built: Path) -> None:
    """data/points/<context>/<model>.json against the result files: each run's own cells at
    each of its contexts, figures exact (no rounding), statuses by name, nothing else."""
    site = built / "_site" / "data" / "points"
    found: dict[tuple[str, int], dict[int, list[Any]]] = {}
    for path in sorted(site.glob("*/*.json")):
        text = path.read_text()
        data = json.loads(text)
        assert data["fields"] == [
            "run",
            "accelerators",
            "context_tokens",
            "cells",
            "accelerator",
            "ttft_prompt_cache",
            "prefill_ms",
            "latency_statistic",
        ]
        assert data["columns"] == [
            "status",
            "total_tokens_per_s",
            "per_request_tokens_per_s",
            "ttft_ms",
            "time_between_tokens_ms",
        ]
        assert int(path.parent.name) == data["context_tokens"]
        assert len(text.splitlines()) == len(data["runs"]) + 2  # one run per line
        listed = json.loads((site / f"{path.parent.name}.json").read_text())["models"]
        assert path.stem in listed
        for values in data["runs"]:
            # Absent values at a row's end are left out.
            assert len(values) <= len(data["fields"]) and values[-1] is not None
            values = values + [None] * (len(data["fields"]) - len(values))
            run, accelerators, context, cells, accelerator, cache, prefill, statistic = values
            assert abs(context - data["context_tokens"]) <= 0.03 * data["context_tokens"]
            published = published_run(built / "_site" / "runs" / f"{run}.json")
            document = {**published, "_id": run}
            assert statistic == document["run"].get("latency_statistic")
            assert accelerators == document["hardware"]["count"]
            assert accelerator == document["hardware"]["accelerator"]
            assert cache == document["run"].get("ttft_prompt_cache")
            assert prefill == rule.prefill_ms(document, context)  # at the run's own context
            row = {
                n: cell
                for n, cell in zip(data["concurrency"], cells, strict=False)
                if cell is not None
            }
            found[(run, context)] = {
                n: [data["statuses"][cell[0]], *cell[1:]] for n, cell in row.items()
            }
    for path in sorted((built / "_site" / "runs").glob("*.json")):
        rows = rule.own_cells(published_run(path))
        for context, cells in rows.items():
            expected = {}
            for n, c in cells.items():
                values = [
                    c["status"],
                    c.get("total_tokens_per_s"),
                    c.get("per_request_tokens_per_s"),
                    c.get("ttft_ms"),
                    c.get("time_between_tokens_ms"),
                ]
                while values[-1] is None:
                    values.pop()
                expected[n] = values
            assert found.pop((path.stem, context)) == expected, (path.stem, context)
    assert not found  # no run at a context it did not measure
    # Each listing names exactly the models that have a file at that context.
    for listing in site.glob("*.json"):
        models = json.loads(listing.read_text())["models"]
        assert sorted(models) == sorted(p.stem for p in (site / listing.stem).glob("*.json"))


def test_preset_views_are_paged_and_list_every_run_once(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sitegen.site.pages.presets.AT_PAGE_SIZE", 3)
    assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0
    site = project / "_site"
    runs = sorted(path.stem for path in (site / "runs").glob("*.json"))
    pages = following_next(site / "at" / "32k-16" / "index.html")
    assert len(pages) == len(site_pages(site, 3)) > 1
    listed = [
        run
        for page in pages
        for run in re.findall(
            r'<tr(?: class=row-absent)?><th><a href="[./]*runs/([^/"]+)/index.html"',
            page.read_text(),
        )
    ]
    assert sorted(listed) == runs  # every run, once
    # The first page lists every model; a model page's link to #m-<slug> of the first page
    # lands on its section there, or on its entry, which links to the page that has it.
    first = pages[0].read_text()
    entries = re.findall(r'<li(?: id="(m-[^"]+)")?><a href="([^"]*)#(m-[^"]+)">', first)
    assert entries
    for anchor, href, target in entries:
        page = (pages[0].parent / href).resolve() if href else pages[0]
        assert f'<tbody id="{target}">' in page.read_text()
        assert (anchor == target) == bool(href)  # ids only for models of later pages


def test_a_reference_figure_says_its_own_context_only_where_it_is_not_the_columns(
    project: Path,
) -> None:
    # A run measured at 8,000 tokens (within 3 % of 8K) beside the shipped ones at 8192: only its
    # one-request decode and prefill name their context beneath the figure.
    prefill = "prefill: [{context_tokens: 8000, prompt_tokens_per_s: 5000, ttft_ms: 1600}]"
    run = (
        TAIL_RUN.replace("4096", "8000")
        .replace("count: 2", "count: 1")
        .replace("prefill: []", prefill)
    )
    (project / "content" / "runs" / "near-8k.yaml").write_text(run)
    assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0
    index = (project / "_site" / "index.html").read_text()
    rows = {
        re.search(r'<th><a href="runs/([^/"]+)/index.html"', r).group(1): r.split("<td")  # type: ignore[union-attr]
        for r in index.split("<tr ")[1:]
        if '<th><a href="runs/' in r
    }
    assert "near-8k" in rows and len(rows) > 1
    for run_id, cells in rows.items():
        single, prefill = cells[5], cells[7]
        if run_id == "near-8k":
            near = context_label(8000)  # 7.8K: not 8K, so named (docs/result-format.md)
            assert f"at {near} × 1" in single and f"at {near} context" in prefill, cells
        else:
            assert " × 1" not in single and " context" not in prefill, cells
    # On its one accelerator, 8 requests held are 8 users, and the total is per accelerator (the
    # only run of its model: its own context heads its section).
    ((context, cell),) = answers(project / "_site", "server")["near-8k"].items()
    assert context == 8000 and cell.figures == ["8", "8", "240.0", "240.0"], cell
