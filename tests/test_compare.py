"""Comparison logic: ratio matrices, Pareto frontiers, groups and natural pairs."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from sitegen.model import Run, run_from_dict
from sitegen.parse import parse_yaml
from sitegen.site.charts import Series, _frontier, pareto
from sitegen.site.compare_page import ratio_matrix
from sitegen.site.groups import hardware_groups, model_groups, natural_pairs
from tests.conftest import REPO, run_cli

MINIMAL = parse_yaml("minimal.yaml", (REPO / "tests" / "data" / "valid" / "minimal.yaml").read_bytes()).data


def _run(run_id: str, cells: list[tuple[int, int, str, float | None]], **run_info: Any) -> Run:
    data = copy.deepcopy(MINIMAL)
    data["run"].update(run_info)
    data["measurements"]["decode"] = [
        {"context_tokens": ctx, "concurrency": conc, "status": status,
         **({"total_tokens_per_s": total} if total is not None else {})}
        for ctx, conc, status, total in cells
    ]
    return run_from_dict(run_id, data)


def test_ratio_matrix_reads_b_against_a() -> None:
    a = _run("a", [(0, 1, "valid", 100.0), (0, 2, "valid", 200.0), (8192, 1, "valid", 50.0), (8192, 2, "over_capacity", None)])
    b = _run("b", [(0, 1, "valid", 112.0), (0, 2, "valid", 150.0), (8192, 1, "valid", 50.1), (8192, 2, "valid", 90.0)])
    matrix = ratio_matrix(a, b)
    assert matrix is not None
    assert matrix.concurrencies == (1, 2)
    first, second = matrix.rows
    assert (first.cells[0].change, first.cells[0].arrow, first.cells[0].step) == ("+12%", "▲", 1)
    assert first.cells[0].detail == "100.0 → 112.0"
    assert (first.cells[1].change, first.cells[1].arrow, first.cells[1].step) == ("−25%", "▼", -2)
    assert (second.cells[0].change, second.cells[0].arrow, second.cells[0].step) == ("+0%", "=", 0)
    assert not second.cells[1].comparable and second.cells[1].detail == "A Over capacity · B 90.0"
    assert matrix.summary == "B is faster in 1 of 3 cells both runs measured; median change +0%."


def test_frontier_keeps_only_undominated_points() -> None:
    points = [(10.0, 1000.0), (20.0, 900.0), (15.0, 800.0), (30.0, 300.0), (5.0, 950.0)]
    assert _frontier(points) == {(10.0, 1000.0), (20.0, 900.0), (30.0, 300.0)}


def test_pareto_per_device_divides_by_the_device_count() -> None:
    data = copy.deepcopy(MINIMAL)
    data["hardware"]["count"] = 4
    data["measurements"]["decode"][0]["per_request_tokens_per_s"] = 120.5
    run = run_from_dict("x", data)
    spec = pareto([Series("x", run)], per_device=True).spec  # type: ignore[union-attr]
    assert '"total":30.125' in spec and '"tok/s per device"' in spec


def test_groups_and_pairs_are_linear() -> None:
    runs = [_run(f"r{i}", [(0, 1, "valid", 1.0)], model=f"org/Model-{i % 2}", date=f"2026-01-0{i + 1}") for i in range(6)]
    assert [g.slug for g in model_groups(runs)] == ["model-0", "model-1"]
    assert [g.slug for g in hardware_groups(runs)] == ["rtx-4090"]
    pairs = natural_pairs(runs)
    assert [(a.id, b.id) for a, b in pairs] == [("r0", "r2"), ("r1", "r3"), ("r2", "r4"), ("r3", "r5")]


def test_base_model_groups_quantizations_together() -> None:
    runs = [_run("a", [], model="x/Qwen-AWQ", base_model="Qwen/Qwen"), _run("b", [], model="y/Qwen-FP8", base_model="Qwen/Qwen")]
    groups = model_groups(runs)
    assert len(groups) == 1 and groups[0].label == "Qwen/Qwen" and {r.id for r in groups[0].runs} == {"a", "b"}


def test_compare_page_of_two_runs_of_one_model(project: Path) -> None:
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    page = project / "_site" / "compare" / "rtx6kpro4x-vllm-qwen35-397b-awq-mtp--rtx6kpro4x-vllm-qwen35-397b-nvfp4-nomtp"
    html = (page / "index.html").read_text()
    assert 'class="matrix ratio"' in html
    assert html.count('<figure class="chart"') >= 2  # decode curves (both contexts on one), Pareto
    assert html.count('<span class="bar-series">') == 2 * html.count('class="bar-row"') > 0  # prefill, A over B
    assert "B is faster in" in html


def test_compare_page_of_runs_on_different_device_counts_is_per_device() -> None:
    from sitegen.site.common import Site
    from sitegen.site.compare_page import compare_page
    from sitegen.site.render import environment, render

    def run(run_id: str, count: int) -> Run:
        data = copy.deepcopy(MINIMAL)
        data["hardware"]["count"] = count
        data["measurements"]["decode"][0].update({"total_tokens_per_s": 400.0, "per_request_tokens_per_s": 100.0})
        return run_from_dict(run_id, data)

    site = Site("t", "", "/")
    same = compare_page(site, run("a", 2), run("b", 2)).context
    mixed_page = compare_page(site, run("a", 2), run("b", 4))
    mixed = mixed_page.context
    html = render(environment(REPO / "templates", "/"), mixed_page).decode()
    assert "different numbers of accelerators, so throughput is per device" in html
    assert "tok/s per device against per-request tok/s" in html
    assert not same.pareto_per_device and '"total tok/s"' in same.pareto_chart.spec  # type: ignore[attr-defined]
    assert mixed.pareto_per_device  # type: ignore[attr-defined]
    spec = mixed.pareto_chart.spec  # type: ignore[attr-defined]
    assert '"tok/s per device"' in spec and '"total":200.0' in spec and '"total":100.0' in spec
