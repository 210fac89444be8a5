"""Model and accelerator pages: a decode chart at every context two runs share, legends that
list only the runs drawn, in full. Expected values are read from the result files."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from typing import Any

from sitegen.parse import parse_yaml
from tests.kit.context_rule import context_label
from tests.kit.frontier_rule import frontier_contexts, frontier_runs, left_to_browser
from tests.kit.group_rule import group_members, measured_contexts, shared_of
from tests.kit.project import run_cli


def _runs(project: Path) -> dict[str, dict[str, Any]]:
    return {
        path.stem: parse_yaml(path.name, path.read_bytes()).data
        for path in sorted((project / "content" / "runs").glob("*.yaml"))
    }


LEGEND = r'<ul class="chart-legend">((?:<li data-run="[^"]*"><i class="k\d"></i>[^<]*</li>)+)</ul>'
KEY = r'<li data-run="([^"]*)"><i class="k\d"></i>([^<]*)</li>'


def _figures(html: str) -> list[tuple[str, list[str]]]:
    """Each chart of a grid of small multiples: its caption and the run ids of its legend, its
    own or the one legend drawn above the grid when every chart of it draws the same runs."""
    result = []
    for shared, grid in re.findall(
        r"(?:" + LEGEND + r'\s*)?<div class="plot-grid">(.*?)</div>', html, re.S
    ):
        for figure in re.findall(r"<figure class=plot>(.*?)</figure>", grid, re.S):
            own = re.search(LEGEND, figure)
            assert bool(own) != bool(shared), figure[:200]  # one legend, its own or the grid's
            caption = re.search(r"<figcaption[^>]*>([^<]*)</figcaption>", figure)
            result.append(
                (
                    caption.group(1) if caption else "",
                    [run_id for run_id, _ in re.findall(KEY, own.group(1) if own else shared)],
                )
            )
    return result


def test_group_pages_draw_the_default_context_and_name_the_others(shipped: Path) -> None:
    """Without JavaScript a model or accelerator page draws decode at one context, the one the most
    of its runs measured (of equals the smallest), and says where the charts at the other shared
    contexts are; tests/browser/test_browser_group_plots.py checks that the browser draws those."""
    runs = _runs(shipped)
    checked = others = 0
    for kind, groups in group_members(runs).items():
        for heading, members in groups.items():
            shared = shared_of(runs, members)
            pages = [
                p
                for p in (shipped / "_site" / kind).glob("*/index.html")
                if f"<h1>{heading}</h1>" in p.read_text()
            ]
            assert len(pages) == 1, heading
            html = pages[0].read_text()
            figures = _figures(html)
            if not shared:
                assert not figures, heading
                continue
            counts = {
                c: sum(c in measured_contexts(runs[run_id]) for run_id in members) for c in shared
            }
            default = min(shared, key=lambda c: (-counts[c], c))
            assert [caption for caption, _ in figures] == [f"{context_label(default)} context"], (
                heading
            )
            # Only the runs drawn, nothing extra.
            assert sorted(figures[0][1]) == sorted(
                r for r in members if default in measured_contexts(runs[r])
            ), heading
            rest = [c for c in shared if c != default]
            note = re.search(r'<p class="legend" id="decode-more">([^<]*)</p>', html)
            if not rest:
                assert note is None and "data-plots" not in html, heading
                continue
            assert note, heading
            words = [context_label(c) for c in rest]
            listed = ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else words[0]
            assert f"at {listed} context are drawn by your browser" in note.group(1), heading
            assert "every run's page has a chart at each of its contexts" in note.group(1)
            plots = re.search(r"data-plots='([^']*)'", html)
            assert plots and json.loads(plots.group(1))["contexts"] == shared, heading
            others += 1
            checked += 1
    assert (
        checked >= 3 and others >= 3
    )  # the Qwen3.5 model and accelerator pages, gpt-oss, a one-run page


def test_no_legend_label_is_cut_and_prefill_legends_list_only_runs_with_prefill(
    shipped: Path,
) -> None:
    runs = _runs(shipped)
    with_prefill = {
        run_id
        for run_id, data in runs.items()
        if any(p.get("prompt_tokens_per_s") is not None for p in data["measurements"]["prefill"])
    }
    pages = [
        *(shipped / "_site" / "models").glob("*/index.html"),
        *(shipped / "_site" / "hardware").glob("*/index.html"),
        *(shipped / "_site" / "compare").glob("*/index.html"),
    ]
    for page in pages:
        html = page.read_text()
        labels = re.findall(
            r'<li(?: data-run="[^"]*")?><i class="k\d"></i>([^<]*)</li>', html, re.S
        )
        assert labels or "plot" not in html
        for label in labels:  # whole: no ellipsis, however long (legends wrap)
            assert "…" not in label, (page, label)
        for legend in re.findall(LEGEND, html):
            names = [name for _, name in re.findall(KEY, legend)]
            assert len(set(names)) == len(names), (page, names)  # each run told apart
        prefill = re.search(r'<section id="?prefill\b.*?</section>', html, re.S)
        if prefill and '<figure class="chart"' in prefill.group(0):
            drawn = re.findall(r'<li><i class="k\d"></i>([^<]*)</li>', prefill.group(0), re.S)
            # As many entries as runs of the page with prefill figures (the page's table links each
            # run).
            listed = set(re.findall(r'<a href="\.\./\.\./runs/([^/"]+)/index\.html">', html))
            assert drawn and len(drawn) == len(listed & with_prefill), page


def test_legend_names_are_whole_and_tell_alike_runs_apart() -> None:
    import copy

    from sitegen.model import run_from_dict
    from sitegen.site.pages.group import series_labels
    from tests.kit.project import REPO

    minimal = parse_yaml(
        "minimal.yaml", (REPO / "tests" / "data" / "valid" / "minimal.yaml").read_bytes()
    ).data
    long_quantization = "MXFP4 (GGUF ggml-org/gpt-oss-120b-GGUF, 59.02 GiB, 116.83 B params)"

    def run(run_id: str, label: str | None = None, quantization: str = long_quantization) -> Any:
        data = copy.deepcopy(minimal)
        data["engine"]["quantization"] = quantization
        if label:
            data["run"]["label"] = label
        return run_from_dict(run_id, data)

    names = series_labels(
        [run("a", "tuned kernels"), run("b"), run("c", quantization="FP8")], "models"
    )
    # What differs (the quantization: engine and hardware are the same for all three), in full,
    # then the label that tells alike runs apart (a's own).
    assert names["a"] == f"{long_quantization} · tuned kernels"
    # b and c differ by quantization, which their names already spell out: no clipped repeat of it.
    assert names["b"] == long_quantization
    assert names["c"] == "FP8"
    assert not any("…" in name for name in names.values())


def test_a_context_shared_only_by_the_oldest_runs_of_a_big_group_is_charted() -> None:
    import copy

    from sitegen.model import run_from_dict
    from sitegen.site.figures.grouping import hardware_groups, model_groups
    from sitegen.site.page import Site
    from sitegen.site.pages.group import group_page
    from tests.kit.project import REPO

    minimal = parse_yaml(
        "minimal.yaml", (REPO / "tests" / "data" / "valid" / "minimal.yaml").read_bytes()
    ).data
    runs = []
    for i in range(10):  # r0 and r1 are the oldest; only they measured 64K
        data = copy.deepcopy(minimal)
        data["run"]["date"] = f"2026-01-{i + 10}"
        contexts = [0, 65536] if i < 2 else [0]
        data["measurements"]["decode"] = [
            {
                "context_tokens": c,
                "concurrency": level,
                "status": "valid",
                "total_tokens_per_s": 10.0 * level,
            }
            for c in contexts
            for level in (1, 2)
        ]
        runs.append(run_from_dict(f"r{i}", data))
    groups = {(g.kind, g.key): g for g in model_groups(runs) + hardware_groups(runs)}
    page = group_page(Site("t", ""), groups[("models", "qwen/qwen3-8b")], groups, [])
    # The page draws 0 (all ten measured it) and leaves 64K to the browser, naming its runs.
    plots = {p.caption: p for p in page.context.decode_plots}
    assert sorted(plots) == ["0 context"]
    assert len(plots["0 context"].legend) == 8  # the eight newest: r9 … r2
    assert set(plots["0 context"].legend_runs) == {f"r{i}" for i in range(2, 10)}
    data = json.loads(str(page.context.decode_data))
    assert data["contexts"] == [0, 65536] and data["default"] == 0 and not data["each"]
    assert sorted(data["runs"][i][0] for i in data["at"]["65536"]) == ["r0", "r1"]


def test_group_tables_are_the_index_table_without_its_filter_keys(shipped: Path) -> None:
    """Model and hardware pages show the index's runs table (the stylesheet names its cells on a
    phone by their place, checked in a browser by tests/browser/test_browser_index.py), without the
    index's per-row filter keys: the same header, eight cells a row, no per-cell labels."""
    index = (shipped / "_site" / "index.html").read_text()
    head = re.search(r'<table class="data runs.*?</thead>', index, re.S)
    assert head
    index_headers = re.findall(r'<th scope="col"[^>]*>([^<]*)</th>', head.group(0))
    pages = [
        *(shipped / "_site" / "models").glob("*/index.html"),
        *(shipped / "_site" / "hardware").glob("*/index.html"),
    ]
    assert pages
    for page in pages:
        html = page.read_text()
        table = re.search(r'<table class="data runs sortable".*?</table>', html, re.S)
        assert table, page
        headers = re.findall(r'<th scope="col"[^>]*>([^<]*)</th>', table.group(0))
        assert headers == index_headers, page
        rows = table.group(0).split("<tr><th>")[1:]
        assert rows and "data-label" not in table.group(0) and "data-f=" not in table.group(0)
        for row in rows:
            assert row.count("<td") == len(headers) - 1 == 8
            # A row links to its run, its model and its accelerator, but not to the group page it
            # is on: on an accelerator page its hardware is text, on a model page it has no
            # "all runs" link (the page's legend says what that link opens where it is).
            own = f'href="../../{page.parent.parent.name}/{page.parent.name}/index.html"'
            kind = page.parent.parent.name
            assert 'href="../../runs/' in row and own not in row, (page, row[:200])
            if kind == "hardware":
                assert 'href="../../hardware/' not in row and 'href="../../models/' in row, (
                    page,
                    row[:200],
                )
                assert ">all runs</a>" in row, (page, row[:200])
            else:
                assert 'href="../../hardware/' in row and 'href="../../models/' not in row, (
                    page,
                    row[:200],
                )
                assert "all runs" not in row, (page, row[:200])
        says_all_runs = "“all runs” link opens all runs of this model" in html
        assert says_all_runs is (page.parent.parent.name == "hardware"), page
    assert "“all runs” link opens all runs of this model" in index


def test_the_groups_of_the_same_runs_are_worked_out_once(project: Path, monkeypatch: Any) -> None:
    """The plan, the search index and the picker's files ask for the groups of the same runs:
    worked out once, each caller its own dict, and every run in its model's and accelerator's
    group as its result file says."""
    from sitegen import store
    from sitegen.site.figures import grouping as groups_module

    assert run_cli(project, "collect") == 0
    runs = store.read_collected(project / ".sitegen")
    worked_out: list[int] = []
    real = groups_module.model_groups
    monkeypatch.setattr(
        groups_module, "model_groups", lambda runs, *rest: worked_out.append(1) or real(runs, *rest)
    )
    first = groups_module.site_groups(runs)
    first.clear()  # a caller's own dict
    found = groups_module.site_groups(list(runs))  # another list of the same runs
    assert len(worked_out) == 1 and found
    files = _runs(project)
    for run in runs:
        data = files[run.id]
        model = (data["run"].get("base_model") or data["run"]["model"]).lower()
        assert run in found[("models", model)].runs
        assert run in found[("hardware", data["hardware"]["accelerator"].lower())].runs
    assert sum(len(group.runs) for group in found.values()) == 2 * len(runs)
    groups_module.site_groups(
        store.read_collected(project / ".sitegen")
    )  # equal runs, other objects
    assert len(worked_out) == 2


def _best_peak_rows(html: str) -> dict[str, str]:
    """/models/ or /hardware/: each group's link and its best peak decode (the fourth column; on
    /hardware/, each model's, the last model's figure ending its only figure column)."""
    rows = {
        href: peak
        for href, peak in re.findall(
            r'<tr><th scope="row"><a href="([^"]*)">[^<]*</a></th><td class="num">[^<]*</td>'
            r'<td class="num">[^<]*</td><td class="num">([^<]*)</td>',
            html,
        )
    }
    rows.update(
        {
            href: models.rsplit(" ", 1)[-1]
            for href, models in re.findall(
                r'<tr><th scope="row"><a href="([^"]*)">[^<]*</a></th><td class="num">[^<]*</td>'
                r'<td class="wrap-text">([^<]*)</td>',
                html,
            )
        }
    )
    return rows


def test_a_group_index_shows_a_changed_runs_new_best_after_an_incremental_build(
    project: Path,
) -> None:
    """The best figures of /models/ and /hardware/ are kept between builds (keyed by each group's
    digest from the plan): a run whose peak becomes 7,654,321 tok/s (shown 7.7M) changes its
    model's row and its accelerator's, and no other, in the next build."""
    from tests.kit.project import SEED_RUN_ID

    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    site = project / "_site"
    before = {
        kind: _best_peak_rows((site / kind / "index.html").read_text())
        for kind in ("models", "hardware")
    }
    assert all(rows and "7.7M" not in rows.values() for rows in before.values()), before
    seed = project / "content" / "runs" / f"{SEED_RUN_ID}.yaml"
    text = seed.read_text()
    assert text.count("total_tokens_per_s: 228.386789") == 1
    seed.write_text(text.replace("total_tokens_per_s: 228.386789", "total_tokens_per_s: 7654321.0"))
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    # The run's own page links to its model's and its accelerator's page.
    run_page = (site / "runs" / SEED_RUN_ID / "index.html").read_text()
    for kind in ("models", "hardware"):
        slugs = set(re.findall(rf'href="\.\./\.\./{kind}/([^/"]+)/index\.html"', run_page))
        assert len(slugs) == 1, slugs
        own = f"../{kind}/{slugs.pop()}/index.html"
        after = _best_peak_rows((site / kind / "index.html").read_text())
        assert after[own] == "7.7M"
        assert {href: peak for href, peak in after.items() if href != own} == {
            href: peak for href, peak in before[kind].items() if href != own
        }


def test_a_group_index_makes_again_only_the_rows_of_changed_groups(
    project: Path, monkeypatch: Any
) -> None:
    # Each row of /models/ and /hardware/ is a piece kept by its group's runs: a run changed
    # makes its model's row and its accelerator's again, and each page joins the others as kept.
    from sitegen.site.incremental.fragments import Fragments
    from tests.kit.project import SEED_RUN_ID

    # (The session's builds share one cache folder, where another test made these rows already.)
    (project / ".sitegen" / "cache" / "fragments.json").unlink(missing_ok=True)
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    seed = project / "content" / "runs" / f"{SEED_RUN_ID}.yaml"
    seed.write_text(
        seed.read_text().replace(
            "total_tokens_per_s: 228.386789", "total_tokens_per_s: 7654321.0", 1
        )
    )
    rows: list[str] = []
    real = Fragments.render

    def counted(self: Fragments, macro: str, *args: Any) -> str:
        if macro == "group_row":
            rows.append(args[0].label)
        return real(self, macro, *args)

    monkeypatch.setattr(Fragments, "render", counted)
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    model = _runs(project)[SEED_RUN_ID]["run"]
    assert len(rows) == 2 and any(
        label in (model.get("base_model"), model["model"]) for label in rows
    ), rows
    for kind in ("models", "hardware"):  # every group still has its row
        page = (project / "_site" / kind / "index.html").read_text()
        assert page.count('<tr><th scope="row">') == len(
            set(re.findall(rf'href="\.\./{kind}/([^/"]+)/index\.html"', page))
        )


def test_a_model_page_explains_a_peak_decode_at_context_0(shipped: Path) -> None:
    """A run whose best decode cell (read from its file) is at context 0 shows "at 0 × n" on its
    model's page: the legend under the table says what context 0 is there, and only there."""
    runs = _runs(shipped)
    explained = (
        "Peak decode is at the context × requests shown beneath it; context 0 (no earlier context"
    )
    checked = {True: 0, False: 0}
    for page in (shipped / "_site" / "models").glob("*/index.html"):
        html = page.read_text()
        ids = set(re.findall(r'<a href="\.\./\.\./runs/([^/]+)/index\.html">', html))
        peaks = []
        for run_id in ids & runs.keys():
            cells = [
                c
                for c in runs[run_id]["measurements"]["decode"]
                if c["status"] == "valid" and c.get("total_tokens_per_s") is not None
            ]
            if cells:
                best = max(cells, key=lambda c: c["total_tokens_per_s"])
                peaks.append(best["context_tokens"] == 0)
        at_zero = any(peaks)
        assert (explained in html) == at_zero, page
        assert bool(re.search(r"[>\s]at 0 × \d", html)) == at_zero, page
        checked[at_zero] += 1
    assert checked[True] >= 1 and checked[False] >= 1


def test_a_model_page_counts_hardware_and_engine_combinations_not_setups(shipped: Path) -> None:
    # "Setup" names a history (/setups/): the summary counts accelerator × count × engine, worked
    # out here from the shipped files of the model with both histories of one combination.
    runs = [  # a model's page holds the runs of its quantizations too (run.base_model)
        data
        for data in _runs(shipped).values()
        if (data["run"].get("base_model") or data["run"]["model"]).lower()
        == "google/gemma-4-26b-a4b-it"
    ]
    combinations = {
        (d["hardware"]["accelerator"].lower(), d["hardware"]["count"], d["engine"]["name"].lower())
        for d in runs
    }
    page = (shipped / "_site" / "models" / "gemma-4-26b-a4b-it" / "index.html").read_text()
    noun = "combination" if len(combinations) == 1 else "combinations"
    summary = f"{len(runs)} runs on this model, {len(combinations)} hardware and engine {noun}"
    assert f'<p class="summary">{summary}</p>' in page
    assert page.count("../../setups/") >= 2  # its histories, linked as setups


def test_a_model_page_leaves_its_other_frontiers_to_the_browser_where_the_points_hold_them(
    shipped: Path,
) -> None:
    """A model page draws its default frontier chart (and its figures table) itself; of its other
    contexts, those whose cells /data/points/ holds one a request count (tests/kit/frontier_rule:
    worked out from the result files) it leaves to pareto.js, with a note in its place and what
    the script draws them from in ``data-frontiers``: per context, the runs with a frontier
    there. The others it draws itself, as before."""
    site = shipped / "_site"
    left_in_all = 0
    for page in sorted((site / "models").glob("*/index.html")):
        html = page.read_text(encoding="utf-8")
        sections = re.split(r'<div class="pareto-at', html)[1:]
        if not sections:
            continue
        heading = re.search(r"<h1[^>]*>([^<]+)</h1>", html)
        assert heading
        model = unescape(heading[1]).strip()
        default, offered = frontier_contexts(site, model)
        shown = [int(re.search(r'id="pareto-(\d+)"', s)[1]) for s in sections]  # type: ignore[index]
        assert sorted(shown) == offered and shown[0] == default, page
        left = [c for c, s in zip(shown, sections, strict=True) if "frontier-wait" in s]
        assert left == [c for c in offered if c != default and left_to_browser(site, model, c)], (
            page
        )
        for context, section in zip(shown, sections, strict=True):
            # A chart left to the browser has no drawing in the page; the others have theirs.
            assert ("<svg" in section.split("</div>")[0]) != (context in left), (page, context)
        left_in_all += len(left)
        attribute = re.search(r"data-frontiers='([^']*)'", html)
        assert (attribute is not None) == bool(left), page
        if attribute is None:
            continue
        data = json.loads(unescape(attribute[1]))
        assert sorted(data["at"]) == sorted(str(c) for c in left)
        for context in left:
            drawn = {data["runs"][i][0] for i in data["at"][str(context)]}
            assert drawn == frontier_runs(site, model, context), (page, context)
    assert left_in_all >= 6  # the DeepSeek run's model page, at least
