"""How a build's charts are drawn: a few by one worker process beside the page making (started
at the first chart the cache lacks, so the build does not wait for vl-convert at its end), many
by worker processes on every core, with one core here when asked; the same drawings either
way, and a chart that cannot be drawn fails the build as before."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from sitegen.model import run_from_dict
from sitegen.parse import parse_yaml
from sitegen.site.draw import chart_render
from sitegen.site.draw.chart_render import (
    ChartRenderer,
    ChartTemplates,
    render_svg,
)
from sitegen.site.draw.chart_specs import ChartSpec, Series, decode_overlay
from sitegen.workers import pool_options
from tests.kit.project import REPO, SEED_RUN_ID, forget_builds, run_cli


def _charts(count: int) -> list[ChartSpec]:
    """``count`` different charts: the seed run beside copies of it 1 %, 2 %, … faster."""
    seed = parse_yaml(
        "seed.yaml", (REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml").read_bytes()
    ).data
    charts = []
    for step in range(1, count + 1):
        other = json.loads(json.dumps(seed))
        for cell in other["measurements"]["decode"]:
            if cell.get("total_tokens_per_s") is not None:
                cell["total_tokens_per_s"] *= 1 + step / 100
        chart = decode_overlay(
            [Series("A", run_from_dict("a", seed)), Series("B", run_from_dict("b", other))],
            [8192, 65536],
        )
        assert chart is not None
        charts.append(chart)
    assert len({chart.path() for chart in charts}) == count
    return charts


def _with_bundle(folder: Path, shared_cache: Path) -> Path:
    """``folder`` holding the session's Vega bundle (a cache beside ``folder / "charts"`` has it
    there): without it the early worker makes one before the charts (test_damaged_state.py)."""
    folder.mkdir(parents=True, exist_ok=True)
    for bundle in shared_cache.glob("vega-*.js"):
        shutil.copyfile(bundle, folder / bundle.name)
    return folder


@pytest.fixture
def renderer(tmp_path: Path, shared_cache: Path) -> ChartRenderer:
    # The session's templates (compiling them imports Altair) and Vega bundle, a chart cache of
    # this test's own.
    charts = _with_bundle(tmp_path, shared_cache) / "charts"
    return ChartRenderer(charts, workers=2, templates=ChartTemplates(shared_cache))


_BROKEN = '{"marks":[{"type":"no-such-mark"}]}'  # JSON that vl-convert cannot draw


def test_a_few_charts_are_drawn_while_the_build_goes_on(renderer: ChartRenderer) -> None:
    charts = _charts(3)
    expected = {
        chart.path(): render_svg(renderer._vega(chart)) for chart in charts
    }  # drawn here, one by one
    with renderer.batch() as batch:
        for chart in charts:
            batch.add(chart)
        assert batch._pool is None, "too few charts for worker processes on every core"
        assert isinstance(batch._early, ProcessPoolExecutor) and batch._early._max_workers == 1
        # Drawn before anyone asks for them: the futures finish with no result() called.
        for _, _, _, future in batch._early_charts:
            future.result(timeout=120)
        assert batch.result() == expected  # the same drawings, byte for byte
    assert renderer.rendered == 3
    assert sorted(p.name for p in renderer.cache_dir.iterdir()) == sorted(
        renderer._path(c).name for c in charts
    )
    # A second batch takes them from the cache and starts no process.
    with renderer.batch() as again:
        for chart in charts:
            again.add(chart)
        assert again._early is None and again.result() == expected


def test_with_one_core_charts_are_drawn_when_asked_for(
    tmp_path: Path, shared_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    renderer = ChartRenderer(tmp_path / "charts", workers=1, templates=ChartTemplates(shared_cache))
    drawn: list[str] = []
    monkeypatch.setattr(
        chart_render, "render_svg", lambda vega: drawn.append(vega) or render_svg(vega)
    )
    charts = _charts(2)
    with renderer.batch() as batch:
        for chart in charts:
            batch.add(chart)
        assert drawn == [] and batch._pool is None  # nothing drawn yet, no process started
        svgs = batch.result()
    assert len(drawn) == 2 and svgs == {
        chart.path(): render_svg(renderer._vega(chart)) for chart in charts
    }


@pytest.mark.parametrize("workers", [1, 2])
def test_a_chart_that_cannot_be_drawn_fails_the_batch(
    tmp_path: Path, shared_cache: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    renderer = ChartRenderer(
        tmp_path / "charts", workers=workers, templates=ChartTemplates(shared_cache)
    )
    monkeypatch.setattr(renderer, "_vega", lambda chart, compile_with=None: _BROKEN)
    with renderer.batch() as batch:
        for chart in _charts(2):
            batch.add(chart)
        with pytest.raises(ValueError, match="Vega to SVG conversion failed"):
            batch.result()
    assert not renderer.cache_dir.exists() or not list(renderer.cache_dir.iterdir())


def test_a_build_whose_chart_cannot_be_drawn_keeps_the_old_site(
    project: Path, shared_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sitegen.site import build

    assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0
    before = {
        p.relative_to(project).as_posix(): p.read_bytes()
        for p in (project / "_site").rglob("*")
        if p.is_file()
    }
    monkeypatch.setattr(ChartRenderer, "_vega", lambda self, chart, compile_with=None: _BROKEN)
    # Every chart missing from the cache: a cache of this test's own, and no manifest to link by.
    monkeypatch.setattr(
        build,
        "ChartRenderer",
        lambda folder, templates: ChartRenderer(
            _with_bundle(project / "own", shared_cache) / "charts", templates=templates
        ),
    )
    (project / ".sitegen" / "build" / "manifest.json").unlink()
    with pytest.raises(ValueError, match="Vega to SVG conversion failed"):
        run_cli(project, "build")
    after = {
        p.relative_to(project).as_posix(): p.read_bytes()
        for p in (project / "_site").rglob("*")
        if p.is_file()
    }
    assert after == before
    assert [p.name for p in project.iterdir() if p.name.startswith("._site.")] == []


def test_with_two_cores_many_charts_are_drawn_by_the_one_early_worker(
    renderer: ChartRenderer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build's own process makes pages on one core: more than one chart process would only
    take turns with it on the other."""
    monkeypatch.setattr(chart_render, "PARALLEL_THRESHOLD", 4)  # "many": fewer charts to draw
    charts = _charts(chart_render.PARALLEL_THRESHOLD + 2)
    monkeypatch.setattr(renderer, "_start_pool", lambda: pytest.fail("no pool with two cores"))
    with renderer.batch() as batch:
        for chart in charts:
            batch.add(chart)
        assert batch._pool is None and len(batch._early_charts) == len(charts)
        svgs = batch.result()
    assert svgs == {chart.path(): render_svg(renderer._vega(chart)) for chart in charts}


def test_with_more_cores_many_charts_are_drawn_by_worker_processes(
    tmp_path: Path, shared_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    renderer = ChartRenderer(
        _with_bundle(tmp_path, shared_cache) / "charts",
        workers=chart_render.POOL_FROM_CORES,
        templates=ChartTemplates(shared_cache),
    )
    monkeypatch.setattr(chart_render, "PARALLEL_THRESHOLD", 4)  # "many": fewer charts to draw
    charts = _charts(chart_render.PARALLEL_THRESHOLD + 2)
    started: list[int] = []
    original = renderer._start_pool
    monkeypatch.setattr(renderer, "_start_pool", lambda: started.append(1) or original())
    with renderer.batch() as batch:
        for chart in charts:
            batch.add(chart)
        assert started == [1] and batch._pool is not None
        # The early worker keeps only what it had begun or queued; the rest are the pool's.
        assert len(batch._early_charts) < chart_render.PARALLEL_THRESHOLD
        svgs = batch.result()
    assert svgs == {chart.path(): render_svg(renderer._vega(chart)) for chart in charts}


def test_a_full_build_removes_old_drawings_no_page_asks_for(project: Path) -> None:
    """The chart cache, which the Pages workflow saves after every push, does not only grow: a
    full build removes the drawings none of its charts asked for once they are older than
    CHART_CACHE_KEEP_DAYS. Recent ones stay (another configuration of the folder may want them),
    as do old ones it used; a build that kept pages (and so did not ask for every chart)
    removes nothing."""
    assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0
    cache = project / ".sitegen" / "cache" / "charts"
    site_charts = {path.stem for path in (project / "_site" / "assets" / "charts").glob("*.svg")}
    drawn = sorted(path for path in cache.glob("*.svg"))
    assert drawn and site_charts
    old = time.time() - (chart_render.CHART_CACHE_KEEP_DAYS + 1) * 86_400
    stale, recent = cache / f"{'0' * 63}a.svg", cache / f"{'0' * 63}b.svg"
    stale.write_bytes(b"<svg>nobody's</svg>")
    recent.write_bytes(b"<svg>nobody's lately</svg>")
    os.utime(stale, (old, old))

    # A drawing of this site, old: its file name is the hash of its chart's name (RENDER_VERSION).
    def cache_name(name: str) -> str:
        return hashlib.sha256(f"{chart_render.RENDER_VERSION}\0{name}".encode()).hexdigest()

    used = [cache / f"{cache_name(name)}.svg" for name in sorted(site_charts)]
    assert all(path.is_file() for path in used)
    os.utime(used[0], (old, old))
    seed = project / "content" / "runs" / f"{SEED_RUN_ID}.yaml"
    seed.write_text(
        seed.read_text().replace("total_tokens_per_s: 228.386789", "total_tokens_per_s: 230.5", 1)
    )
    # The count of builds that makes every PRUNE_EVERY-th one look for unused drawings is kept in
    # the cache this session's sites share: started afresh, so that this build is not that one
    # whichever tests ran before it.
    (project / ".sitegen" / "cache" / "chart-prune.json").unlink(missing_ok=True)
    assert run_cli(project, "collect") == 0 and run_cli(project, "build") == 0  # incremental
    assert stale.is_file()
    forget_builds(project)
    assert run_cli(project, "build") == 0  # full
    assert not stale.exists()
    assert recent.is_file() and used[0].is_file()
    recent.unlink()


def _slow_start() -> None:
    """A start of vl-convert that takes longer than any test: in the worker process."""
    time.sleep(600)


def test_a_warmed_up_worker_draws_the_first_charts(renderer: ChartRenderer) -> None:
    """warm_up starts the early worker, and vl-convert in it, before any chart is added; the
    charts added afterwards are drawn by that worker, the same drawings as drawn here."""
    charts = _charts(2)
    expected = {chart.path(): render_svg(renderer._vega(chart)) for chart in charts}
    with renderer.batch() as batch:
        batch.warm_up()
        batch._started()  # the thread that starts the worker has started it
        early = batch._early
        assert isinstance(early, ProcessPoolExecutor) and batch._warming is not None
        assert batch._warming.result(timeout=120) is None  # vl-convert started, in the worker
        (worker,) = early._processes
        for chart in charts:
            batch.add(chart)
        assert batch._early is early and batch._pool is None
        assert batch.result() == expected
        assert list(early._processes) == [worker]  # the one worker, warmed up, drew them
    assert renderer.rendered == 2


def test_a_warm_up_no_chart_needed_is_not_waited_for(renderer: ChartRenderer) -> None:
    """A build that draws no chart after all ends the warming worker instead of waiting for it."""
    started = time.monotonic()
    with renderer.batch() as batch:
        batch.warm_up(_slow_start)
        batch._started()
        assert batch._early is not None
        processes = list(batch._early._processes.values())  # type: ignore[attr-defined]
        assert len(processes) == 1
    assert time.monotonic() - started < 300  # not the ten minutes of _slow_start
    processes[0].join(timeout=30)
    assert not processes[0].is_alive()


def test_with_one_core_a_warm_up_starts_nothing(tmp_path: Path, shared_cache: Path) -> None:
    renderer = ChartRenderer(tmp_path / "charts", workers=1, templates=ChartTemplates(shared_cache))
    with renderer.batch() as batch:
        batch.warm_up()
        assert batch._starting is None and batch._early is None and batch._warming is None


def test_a_chart_added_while_the_worker_is_being_started_waits_for_it(
    renderer: ChartRenderer,
) -> None:
    """warm_up starts the worker from a thread; a chart added at once goes to that worker, not
    to a second one started beside it."""
    charts = _charts(1)
    with renderer.batch() as batch:
        batch.warm_up()
        batch.add(charts[0])  # no _started() first: add waits for the thread itself
        assert batch._starting is None and batch._pool is None
        early = batch._early
        assert isinstance(early, ProcessPoolExecutor) and len(early._processes) == 1  # type: ignore[attr-defined]
        assert batch.result() == {charts[0].path(): render_svg(renderer._vega(charts[0]))}


def test_a_worker_the_warm_up_cannot_start_is_started_at_the_first_chart(
    renderer: ChartRenderer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the warm-up's thread cannot start the worker, it lets no error out of the thread
    (threading.excepthook would print it as a traceback); the first chart tries again, and its
    error is the build's."""

    def no_processes() -> ProcessPoolExecutor:
        raise OSError(11, "Resource temporarily unavailable")

    escaped: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: escaped.append(args.exc_value))
    monkeypatch.setattr(renderer, "_start_early", no_processes)
    with renderer.batch() as batch:
        batch.warm_up()
        batch._started()
        assert batch._early is None and batch._warming is None
        assert escaped == []
        with pytest.raises(OSError, match="Resource temporarily unavailable"):
            batch.add(_charts(1)[0])


def test_vl_convert_s_slow_starts_are_left_to_the_worker(
    renderer: ChartRenderer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """vl-convert holds Python's lock while it starts and compiles: a template the cache lacks is
    compiled by the early worker, and the bundle's cache (whose name imports vl-convert) is
    looked for there, so the build's progress line is not held up (it once waited 1.5 s)."""
    submitted: list[object] = []

    class Recorder(ProcessPoolExecutor):
        def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def]
            submitted.append(fn)
            return super().submit(fn, *args, **kwargs)

    # (A fork server's worker: vl-convert cannot start in a forked copy of a process it runs in.)
    with Recorder(max_workers=1, **pool_options()) as executor:
        compiled = renderer._compiled_template("decode", executor)
        assert json.loads(compiled)["$schema"].startswith("https://vega.github.io/schema/vega/")
        renderer._compiled_template("decode", executor)  # known now: not compiled again
        renderer._bundle_beside(executor)
        renderer._bundle_beside(executor)  # once on its way, not asked again
    assert submitted == [chart_render._compile_template, chart_render._bundle_unless_cached]
