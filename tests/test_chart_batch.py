"""How a build's charts are drawn: a few in one thread beside the page making (started at the
first chart the cache lacks, so the build does not wait for vl-convert at its end), many in
worker processes; the same drawings either way, and a chart that cannot be drawn fails the
build as before."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from sitegen.model import run_from_dict
from sitegen.parse import parse_yaml
from sitegen.site import chart_render
from sitegen.site.chart_render import PARALLEL_THRESHOLD, ChartRenderer, ChartTemplates, render_svg
from sitegen.site.charts import ChartSpec, Series, decode_overlay
from tests.conftest import REPO, SEED_RUN_ID, run_cli


def _charts(count: int) -> list[ChartSpec]:
    """``count`` different charts: the seed run beside copies of it 1 %, 2 %, … faster."""
    seed = parse_yaml("seed.yaml", (REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml").read_bytes()).data
    charts = []
    for step in range(1, count + 1):
        other = json.loads(json.dumps(seed))
        for cell in other["measurements"]["decode"]:
            if cell.get("total_tokens_per_s") is not None:
                cell["total_tokens_per_s"] *= 1 + step / 100
        chart = decode_overlay([Series("A", run_from_dict("a", seed)), Series("B", run_from_dict("b", other))],
                               [8192, 65536])
        assert chart is not None
        charts.append(chart)
    assert len({chart.path() for chart in charts}) == count
    return charts


@pytest.fixture
def renderer(tmp_path: Path, shared_cache: Path) -> ChartRenderer:
    # The session's templates (compiling them imports Altair), a chart cache of this test's own.
    return ChartRenderer(tmp_path / "charts", workers=2, templates=ChartTemplates(shared_cache))


def _recording(monkeypatch: pytest.MonkeyPatch, gate: threading.Event | None = None) -> list[tuple[str, int]]:
    """Record which thread of this process draws each chart (worker processes import the module
    afresh, unpatched); with ``gate``, the first chart waits for it before it is drawn."""
    calls: list[str] = []

    def drawing(vega_json: str) -> bytes:
        calls.append(threading.current_thread().name)
        if gate is not None and len(calls) == 1:
            assert gate.wait(120)
        return render_svg(vega_json)

    monkeypatch.setattr(chart_render, "render_svg", drawing)
    return calls


def test_a_few_charts_are_drawn_while_the_build_goes_on(renderer: ChartRenderer,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    charts = _charts(3)
    expected = {chart.path(): render_svg(renderer._vega(chart)) for chart in charts}  # drawn here, one by one
    calls = _recording(monkeypatch)
    with renderer.batch() as batch:
        for chart in charts:
            batch.add(chart)
        assert batch._pool is None, "too few charts for worker processes"
        # Drawn before anyone asks for them: waiting for the last one's future waits for drawing only.
        batch._threaded[-1][3].result(timeout=120)
        assert len(calls) == 3 and threading.main_thread().name not in calls
        assert batch.result() == expected  # the same drawings, byte for byte
    assert renderer.rendered == 3
    assert sorted(p.name for p in (renderer.cache_dir).iterdir()) == sorted(renderer._path(c).name for c in charts)
    # A second batch takes them from the cache and starts no thread.
    with renderer.batch() as again:
        for chart in charts:
            again.add(chart)
        assert again._thread is None and again.result() == expected


def _broken(vega_json: str) -> bytes:
    raise RuntimeError("vl-convert failed")


def test_a_chart_that_cannot_be_drawn_fails_the_batch(renderer: ChartRenderer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chart_render, "render_svg", _broken)
    with renderer.batch() as batch:
        for chart in _charts(2):
            batch.add(chart)
        with pytest.raises(RuntimeError, match="vl-convert failed"):
            batch.result()
    assert not renderer.cache_dir.exists() or not list(renderer.cache_dir.iterdir())


def test_a_build_whose_chart_cannot_be_drawn_keeps_the_old_site(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sitegen.site import build

    assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0
    before = {p.relative_to(project).as_posix(): p.read_bytes() for p in (project / "_site").rglob("*") if p.is_file()}
    monkeypatch.setattr(chart_render, "render_svg", _broken)
    monkeypatch.setattr(chart_render, "PARALLEL_THRESHOLD", 10_000)  # all in the thread, which is patched
    # Every chart missing from the cache: a cache of this test's own, and no manifest to link by.
    monkeypatch.setattr(build, "ChartRenderer", lambda folder, templates: ChartRenderer(
        project / "own-charts", templates=templates))
    (project / ".sitegen" / "build" / "manifest.json").unlink()
    with pytest.raises(RuntimeError, match="vl-convert failed"):
        run_cli(project, "build")
    after = {p.relative_to(project).as_posix(): p.read_bytes() for p in (project / "_site").rglob("*") if p.is_file()}
    assert after == before
    assert [p.name for p in project.iterdir() if p.name.startswith("._site.")] == []


def test_many_charts_are_drawn_by_worker_processes(renderer: ChartRenderer, monkeypatch: pytest.MonkeyPatch) -> None:
    charts = _charts(PARALLEL_THRESHOLD + 2)
    gate = threading.Event()
    calls = _recording(monkeypatch, gate)  # the thread's first chart waits until the pool has started
    started: list[Any] = []
    original = renderer._start_pool
    monkeypatch.setattr(renderer, "_start_pool", lambda: started.append(1) or original())
    with renderer.batch() as batch:
        for chart in charts:
            batch.add(chart)
        assert started == [1] and batch._pool is not None
        # The thread keeps only the chart it had begun; the ones it had not are the workers'.
        assert [path for path, _, _, _ in batch._threaded] == [charts[0].path()]
        gate.set()
        svgs = batch.result()
    assert len(calls) == 1 and calls[0] != threading.main_thread().name
    assert svgs == {chart.path(): render_svg(renderer._vega(chart)) for chart in charts}

