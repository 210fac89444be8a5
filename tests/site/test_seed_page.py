"""The shipped seed run, built, reproduces the real speed-test-matrix page row by row."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from tests.kit.html_tables import fields, seed_table, tables
from tests.kit.project import REPO, SEED_RUN_ID

SEED = (REPO / "tests" / "data" / "seed" / "speed-test-matrix.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def page(seed_site: Path) -> str:
    return (seed_site / "_site" / "runs" / SEED_RUN_ID / "index.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def style() -> str:
    return (REPO / "templates" / "static" / "style.css").read_text(encoding="utf-8")


def test_decode_matrix_matches_the_seed_cell_by_cell(page: str) -> None:
    expected = seed_table(SEED, "Context")
    built = tables(page)["matrix"]
    assert built == expected
    cells = [cell for row in built[1:] for cell in row[1:]]
    assert sum(cell == "Over capacity" for cell in cells) == 21
    assert sum("Requests queued" in cell for cell in cells) == 1


def _text(html: str) -> str:
    import html as html_module

    text = re.sub(r"<[^>]+>", "\n", html)
    return html_module.unescape(
        "\n".join(line.strip() for line in text.splitlines() if line.strip())
    )


def test_title_and_summary_lines(page: str) -> None:
    text = _text(page)
    assert "DeepSeek-V4-Flash-DSpark on H200 NVL 141GB ×2" in text
    assert "sglang · 0.5.16 · MXFP4+FP8" in text
    assert (
        "8 contexts (8K–1019K) × 8 concurrency levels (1–128) · prefill at 8K, 16K, 32K, 64K, "
        "128K, 256K, "
        "512K, 1019K, 1024K"
    ) in text


def _seed_blocks() -> dict[str, list[tuple[str, str]]]:
    """The seed's Hardware / Engine / Run blocks: '- Label' and '- Value' lines in pairs."""
    blocks: dict[str, list[str]] = {}
    current = None
    for line in SEED.splitlines():
        if line in ("Hardware", "Engine", "Run"):
            current = blocks.setdefault(line, [])
        elif current is not None and line.startswith("- "):
            current.append(line[2:])
        else:
            current = None
    return {name: list(zip(items[::2], items[1::2], strict=True)) for name, items in blocks.items()}


def test_metadata_blocks_hold_every_seed_field(page: str) -> None:
    pairs = fields(page)
    blocks = _seed_blocks()
    assert [len(block) for block in blocks.values()] == [5, 6, 7]
    for block in blocks.values():
        for label, value in block:
            assert pairs.get(label) == value, label


def test_launch_command_is_shown_whole_with_the_secret_redacted(page: str) -> None:
    seed_command = SEED.split("Launch command\n", 1)[1].split("\n", 1)[0]
    assert (
        seed_command.replace("&", "&amp;")
        .replace('"', "&#34;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        in page
    )
    assert "--api-key &lt;redacted&gt;" in page


def _prefill_lines(page: str) -> list[str]:
    """The prefill section's text, one line per block, as a browser's text extraction reads it."""
    section = page.split("<section id=prefill", 1)[1].split("</section>", 1)[0]
    caption = re.search(r"<figcaption>(.*?)</figcaption>", section)
    assert caption is not None
    rows = re.findall(r"<div class=bar-row>(.*?)</div>", section, re.DOTALL)
    return [caption.group(1)] + [re.sub(r"<[^>]+>", "", row).strip() for row in rows]


def test_prefill_section_reads_as_the_seed_does(page: str) -> None:
    # The seed shows "prompt tok/s by context length8K context10.2K803 ms TTFT", then a row per
    # context.
    seed = SEED.split("\nPrefill\n", 1)[1].split("\nSustained decode\n", 1)[0].splitlines()
    assert len(seed) == 9
    lines = _prefill_lines(page)
    assert [lines[0] + lines[1], *lines[2:]] == seed


def _bar_widths(page: str) -> list[int]:
    """Each prefill bar's length in percent of its track: its class w<n>, checked against the
    stylesheet."""
    return [
        int(w)
        for w in re.findall(
            r"<i class=\"?w(\d+)", page.split("<section id=prefill", 1)[1].split("</section>")[0]
        )
    ]


def test_prefill_bars_are_drawn_in_the_page_to_scale(page: str, style: str) -> None:
    widths = _bar_widths(page)
    rates = [
        10.2,
        14.8,
        15.0,
        14.7,
        13.8,
        12.0,
        9.544,
        6.762,
        6.686,
    ]  # thousands of prompt tok/s, from the seed
    assert len(widths) == len(rates)
    assert max(widths) == 100
    for width, rate in zip(widths, rates, strict=True):
        assert abs(width - rate / max(rates) * 100) <= 1.0, (
            width,
            rate,
        )  # whole percent, of the seed's rounded figures
        # The class draws that length: the stylesheet's rule for it, read back.
        rule = re.search(rf"\.bars \.w{width}\s*\{{\s*width:\s*([\d.]+)(%)?\s*;?\s*\}}", style)
        assert rule is not None, width
        assert float(rule.group(1)) == width and (rule.group(2) or width == 0), rule.group(0)
    # Against the result file's own figures: each bar within half a step (1 %) of its exact length.
    raw = yaml.safe_load(
        (REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml").read_text(encoding="utf-8")
    )
    exact = [p["prompt_tokens_per_s"] for p in raw["measurements"]["prefill"]]
    assert [
        abs(width - rate / max(exact) * 100) <= 0.5
        for width, rate in zip(widths, exact, strict=True)
    ] == [True] * 9
    assert (
        "<svg" not in page.split("<section id=prefill", 1)[1].split("</section>")[0]
    )  # no drawing per bar
    assert "assets/charts/" not in page  # no image to fetch: the run page draws no vl-convert chart


def test_status_explanations_are_the_seeds(page: str) -> None:
    explanation = (
        "Requests queued: the server could not run all requests at once, so some waited in a "
        "queue. "
        "Over capacity: not run because this many requests at this context would exceed the "
        "server's KV cache."
    )
    assert explanation in re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page)).replace("&#39;", "'")
    assert (
        "TTFT is measured after the benchmark warms the server&#39;s prompt cache, so it mostly "
        "excludes prefill." in page
    )


def test_the_table_reader_fills_spanned_cells_as_browsers_do() -> None:
    # tests/browser/test_browser_measurements.py reads the measurements table with it.
    # A spanned cell is in every row it spans, at its column, and no further.
    html = (
        "<table class=t><thead><tr><th>A<th>B<th>C</thead><tr><th rowspan=2>x<th rowspan=3>y<td>1"
        "<tr><td>2<tr><th>z<td>3</table>"
    )
    assert tables(html)["t"] == [["A", "B", "C"], ["x", "y", "1"], ["x", "y", "2"], ["z", "y", "3"]]
