"""The run page's dense markup (issue 18) against each shipped run's JSON: the matrix cells'
short classes say each cell's status and shade (the measurements rows' are made in the browser:
tests/browser/test_browser_measurements.py), and a capacity cell names tok/s per accelerator
only where it differs from the total."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from sitegen.site.figures.numbers import context as context_label
from sitegen.site.figures.numbers import rate
from tests.kit import verdict_rule as rule
from tests.kit.capacity_json import capacity_records
from tests.kit.project import SEED_RUN_ID, copy_site, run_cli
from tests.kit.run_json import published_run

# What each status is called in the page's classes (style.css, "Run page"); a valid cell has none.
STATUS_CLASS = {
    "valid": None,
    "requests_queued": "rq",
    "over_capacity": "oc",
    "not_run": "nr",
    "failed": "fl",
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, shared_cache: Path) -> Path:
    """The shipped runs, and the seed run as if on one accelerator: the shipped one-accelerator
    runs meet no service level, so none of their capacity cells holds a figure."""
    site = copy_site(tmp_path_factory.mktemp("run-page") / "site", shared_cache)
    seed = (site / "content" / "runs" / f"{SEED_RUN_ID}.yaml").read_text(encoding="utf-8")
    assert "\n  count: 2\n" in seed
    (site / "content" / "runs" / "seed-on-one.yaml").write_text(
        seed.replace("\n  count: 2\n", "\n  count: 1\n")
    )
    assert run_cli(site, "collect") == 0
    assert run_cli(site, "build") == 0
    return site / "_site"


def _runs(site: Path) -> list[tuple[dict[str, Any], str]]:
    """Every run with a decode matrix (a run of load points only has none), and its page."""
    found = [
        (
            published_run(path),
            (site / "runs" / path.stem / "index.html").read_text(encoding="utf-8"),
        )
        for path in sorted((site / "runs").glob("*.json"))
    ]
    return [(document, html) for document, html in found if document["measurements"]["decode"]]


def _section(html: str, name: str) -> str:
    return html.split(f"<section id={name} ", 1)[1].split("</section>", 1)[0]


def test_matrix_cells_carry_their_status_and_shade(built: Path) -> None:
    statuses_seen = set()
    for document, html in _runs(built):
        # Where a source varied the output length, the matrix shows the run's own
        # (run.output_tokens_per_request).
        own = document["run"].get("output_tokens_per_request")
        at: dict[tuple[int, int], list[dict[str, Any]]] = {}
        for c in sorted(
            document["measurements"]["decode"],
            key=lambda c: c.get("output_tokens_per_request") or 0,
        ):
            at.setdefault((c["context_tokens"], c["concurrency"]), []).append(c)
        cells = {
            key: next(
                (c for c in found if c.get("output_tokens_per_request") in (None, own)), found[0]
            )
            for key, found in at.items()
        }
        peak = max(c.get("total_tokens_per_s") or 0 for c in document["measurements"]["decode"])
        contexts = sorted({c for c, _ in cells})
        levels = sorted({n for _, n in cells})
        body = _section(html, "decode").split("</thead>", 1)[1]
        rows = body.split("<tr>")[1:]
        assert len(rows) == len(contexts)
        for context, row in zip(contexts, rows, strict=True):
            assert row.startswith(
                f"<th>{context_label(context)}<td"
            )  # a <th> before <td>s heads its row
            cell_tag = r'<td(?: class=(?:"([\w ]+)"|(\w+)))?(?: title="[^"]*")? id=([\w-]+)>'
            found = re.findall(cell_tag, row)
            classes = [set((quoted or bare).split()) for quoted, bare, _ in found]
            assert len(classes) == len(levels)
            # Each position's address (docs/comparisons.md, "Citing a figure").
            anchors = [f"d-{context}-{level}" for level in levels]
            assert [anchor for _, _, anchor in found] == anchors
            for level, got in zip(levels, classes, strict=True):
                cell = cells.get((context, level))
                if cell is None:
                    assert got == {"na"}
                    continue
                total = cell.get("total_tokens_per_s")
                shade = (
                    1 + min(7, int(total / peak * 7.999)) if total is not None and peak > 0 else 0
                )
                want = {f"h{shade}"} if shade else set()
                if STATUS_CLASS[cell["status"]]:
                    want.add(STATUS_CLASS[cell["status"]])
                assert got == want, (document["run"]["model"], context, level, cell["status"])
                statuses_seen.add(cell["status"])
    assert {"valid", "requests_queued", "over_capacity"} <= statuses_seen


def test_capacity_cells_name_per_accelerator_figures_only_where_they_differ(built: Path) -> None:
    checked: dict[bool, int] = {True: 0, False: 0}  # cells of one-accelerator runs, of the others
    for document, html in _runs(built):
        section = _section(html, "capacity")
        count = document["hardware"]["count"]
        # Where a source varied the output length, the run's own stands for the position.
        cells = {
            (context, n): c
            for context, row in rule.own_cells(document).items()
            for n, c in row.items()
        }
        labels = {context_label(c): c for c, _ in cells}
        figures = re.findall(r"<tr><th>([^<]+)((?:<td>[^\n]*?)+)$", section, re.M)
        assert figures
        for label, row in figures:
            # Beneath the users: requests held · total tok/s (· tok/s per accelerator), as the
            # caption names them once.
            for users, held, total, per in re.findall(
                r"<td><b>([\d.]+)</b> <small>(\d+) · ([\d,.K]+)(?: · ([\d,.K]+))?</small>", row
            ):
                cell = cells[(labels[label], int(held))]
                assert total == rate(cell["total_tokens_per_s"])
                assert users == (
                    str(int(held) // count)
                    if int(held) % count == 0
                    else f"{int(held) / count:.1f}"
                )
                if count == 1:
                    assert per == ""  # the total is the per-accelerator figure: said once
                else:
                    assert per == rate(
                        cell["total_tokens_per_s"] / count
                    )  # derived: total ÷ accelerators
                checked[count == 1] += 1
        said = "With one accelerator, tok/s per accelerator is the total." in section
        assert said == (count == 1)
        caption = "beneath them: requests held · total tok/s" + (
            "" if count == 1 else " · tok/s per accelerator"
        )
        assert caption + "</p>" in section
    assert checked[True] and checked[False], checked  # the shipped runs have both


def test_a_pages_links_put_in_place_of_its_old_ones_give_the_page_made_with_them(
    project: Path,
) -> None:
    # run_page.with_links, as a build uses it for a page whose links alone changed: the page
    # made with one set of links, its last section replaced by another set, is the page made
    # with the other set.
    from sitegen.config import load_config
    from sitegen.site.figures.build_figures import Analysis, Settings
    from sitegen.site.figures.grouping import site_groups
    from sitegen.site.incremental.fragments import Fragments
    from sitegen.site.page import Field, Site
    from sitegen.site.pages.run import run_links, run_page, with_links
    from sitegen.site.render import environment, render
    from sitegen.store import read_collected
    from tests.kit.project import REPO

    assert run_cli(project, "collect") == 0
    config = load_config(project / "sitegen.yaml")
    run = next(run for run in read_collected(config.state_dir) if run.id == SEED_RUN_ID)
    groups = site_groups([run])
    site = Site(config.title, config.description, config.site_url).at(f"runs/{run.id}/index.html")
    env = environment(REPO / "templates")
    analysis = Analysis(Settings.of(config))
    fragments = Fragments(None, "", env)
    one = (Field("Compare with a", "a", "../../compare/a--b/"),)
    other = (
        Field("Compare with 2 other runs on X", "on X", "../../compare/?runs=x,<y>&z"),
        Field("Compare with c", "c", "../../compare/c--d/#swapped"),
    )
    with_one = render(env, run_page(site, run, groups, "", one, analysis))
    with_other = render(env, run_page(site, run, groups, "", other, analysis))
    assert with_one != with_other and "&lt;y&gt;" in with_other.decode()
    links = fragments.render("run_links", *run_links(site, run, groups, other))
    assert with_links(with_one, links) == with_other
    assert with_links(with_one.replace(b"aria-labelledby=downloads-h", b""), links) is None


def test_a_verdict_many_capacity_cells_give_is_said_once(built: Path) -> None:
    """Every capacity cell that holds no load says its whole verdict, worked out here from the
    records of data/capacity.json and the fewest requests the run measured at that context; one
    that several cells give is said once, as a numbered note under the table, the cells keeping
    its first words and the note's number."""
    published = json.loads((built / "data" / "capacity.json").read_text())
    levels = [level["name"] for level in published["service_levels"]]
    records = {
        (r["run"], r["service_level"], r["context_tokens"]): r for r in capacity_records(built)
    }
    noted = 0
    for document, html in _runs(built):
        section = _section(html, "capacity")
        run_id = re.search(r'<a href="[./]*runs/([^"/]+)\.json"', html).group(1)  # type: ignore[union-attr]
        legend = re.search(r"<p class=legend><sup>.*?</p>", section)
        parts = re.split(r"<sup>(\d+)</sup> ", legend.group(0)[:-4]) if legend else [""]
        notes = {
            number: text.removesuffix("; ").removesuffix(".")
            for number, text in zip(parts[1::2], parts[2::2], strict=True)
        }
        own_cells = rule.own_cells(document)
        contexts = {context_label(c): c for c in own_cells}
        said: dict[str, int] = {}
        for label, row in re.findall(r"<tr><th>([^<]+)((?:<td>[^\n]*?)+)$", section, re.M):
            context = contexts[label]
            for level, cell in zip(levels, row.split("<td>")[1:], strict=True):
                record = records[(run_id, level, context)]
                if record["max_concurrency"] is not None:
                    continue
                fewest = min(own_cells[context])
                requests = f"{fewest} request{'s' if fewest > 1 else ''}"
                expected = (
                    f"cannot tell: {record['reason']}"
                    if record["state"] == "cannot_tell"
                    else f"does not meet, even at {requests}: {record['reason']}"
                )
                shown = re.match(r"<b>([^<]+)</b>(?:<sup>(\d+)</sup>)?", cell)
                assert shown, cell
                if shown.group(2):
                    assert expected.startswith(shown.group(1))
                    assert notes[shown.group(2)] == expected
                    noted += 1
                else:
                    assert shown.group(1) == expected
                said[expected] = said.get(expected, 0) + 1
        # Said once: a note for each verdict more than one cell gives, and for no other.
        assert sorted(notes.values()) == sorted(v for v, count in said.items() if count > 1)
    assert noted
