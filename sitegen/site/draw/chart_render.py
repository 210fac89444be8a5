"""Render charts to SVG with vl-convert, cached on disk by the hash of their Vega-Lite spec.

Charts missing from the cache are drawn in worker processes on the cores the build's own
process leaves free while it makes the pages (ChartBatch). Each kind of chart is compiled from
Vega-Lite to Vega once (and kept on disk); a chart is that Vega spec with its own values filled
in, so vl-convert only draws, which saves a fifth of its time per chart.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sitegen.site.draw.chart_specs import (
    FONT,
    FONT_SIZE,
    KINDS,
    TEMPLATE_SOURCE,
    THEMES,
    ChartSpec,
    _canonical,
    fill,
)
from sitegen.store import read_cache, write_cache

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

T = TypeVar("T")

# Imported where they are used, not here: a build that draws a chart or two needs neither
# worker processes (multiprocessing) nor, until a chart is drawn, the SVG compactor (ElementTree).

_CLIP_ID = re.compile(r"\bclip(\d+)\b")
# One file serves both colour schemes: the drawing is made in the light theme, and a style
# inside the SVG recolours its text and grid lines on a dark screen (paper keeps the light
# colours). An SVG in an <img> follows the reader's colour scheme like the page around it.
_LIGHT_TO_DARK = {light: THEMES["dark"][role] for role, light in THEMES["light"].items()}
_SCHEME_STYLE = "".join(
    f'[{paint}="{light}"]{{{paint}:{dark}}}'
    for light, dark in _LIGHT_TO_DARK.items()
    for paint in ("fill", "stroke")
)
CHART_STYLE = (
    f"text{{font:{FONT_SIZE}px {FONT.replace(chr(39), chr(34))}}}"
    f"@media screen and (prefers-color-scheme:dark){{{_SCHEME_STYLE}}}"
)
# The same recolouring for the interactive upgrade, which draws from the light spec (site.js).
DARK_COLOURS_JSON = json.dumps(_LIGHT_TO_DARK, sort_keys=True).encode()
# Part of every cache key: change it when drawing changes, so no stale drawing is reused.
RENDER_VERSION = "5"
# Below this many charts to render, starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 16
# With fewer cores the early worker draws every chart: the build's own process keeps one core
# busy making pages, and two chart processes would only take turns on the other.
POOL_FROM_CORES = 3
# Drawn charts no full build asked for are removed once they are this old (ChartRenderer.prune).
CHART_CACHE_KEEP_DAYS = 7


def _stable_ids(svg: str) -> str:
    """Number clip-path ids from 1 in each file: vl-convert counts them across the process,
    so the same chart would otherwise differ from build to build."""
    numbering: dict[str, str] = {}

    def renumber(match: re.Match[str]) -> str:
        return "clip" + numbering.setdefault(match.group(1), str(len(numbering) + 1))

    return _CLIP_ID.sub(renumber, svg)


_GEOMETRY = re.compile(r'(\s(?:d|transform|x|y|x1|x2|y1|y2|width|height)=")([^"]*)"')
_LONG_NUMBER = re.compile(r"(-?\d+\.\d)\d+")


def _short_numbers(svg: str) -> str:
    """Coordinates to a tenth of a pixel: invisible on screen, a third of the file."""
    return _GEOMETRY.sub(lambda m: m.group(1) + _LONG_NUMBER.sub(r"\1", m.group(2)) + '"', svg)


def render_svg(vega_json: str) -> bytes:
    import vl_convert

    from sitegen.site.draw.svg import compact_svg

    svg = _short_numbers(_stable_ids(vl_convert.vega_to_svg(json.loads(vega_json))))
    return compact_svg(svg, CHART_STYLE).encode()


def _without_tooltips(node: Any) -> Any:
    """The spec without tooltip encodings: an SVG file shows no tooltips, and Vega spends a
    sixth of a chart's time preparing them. The interactive chart keeps them (its own spec)."""
    if isinstance(node, dict):
        return {key: _without_tooltips(value) for key, value in node.items() if key != "tooltip"}
    if isinstance(node, list):
        return [_without_tooltips(value) for value in node]
    return node


def _vl_convert_version() -> str:
    import vl_convert

    return f"{vl_convert.get_vega_version()}-{getattr(vl_convert, '__version__', 'x')}"


class ChartTemplates:
    """The Vega-Lite template of each kind of chart (chart_templates), kept in ``folder``:
    Altair is slow to import, which a build that adds one run would otherwise spend every
    time. Loaded on first use; one object per build."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._texts: dict[str, str] = {}

    def text(self, kind: str) -> str:
        if not self._texts:
            self._texts = self._load()
        return self._texts[kind]

    def spec(self, chart: ChartSpec) -> str:
        """The chart's whole Vega-Lite spec (canonical JSON text)."""
        return fill(self.text(chart.kind), dict(chart.fills), f'{{"values":{chart.rows}}}')

    def _load(self) -> dict[str, str]:
        path = self.folder / f"chart-templates-{TEMPLATE_SOURCE[:32]}.json"
        with contextlib.suppress(ValueError):
            cached = json.loads(read_cache(path) or b"")  # checked: a damaged cache file is a miss
            if (
                isinstance(cached, dict)
                and set(cached) == set(KINDS)
                and all(isinstance(t, str) for t in cached.values())
            ):
                return cached
        from sitegen.site.draw.vega_templates import template

        built = {kind: template(kind) for kind in KINDS}
        with contextlib.suppress(OSError):  # without the file the next build imports Altair again
            write_cache(path, json.dumps(built, sort_keys=True).encode())
        return built


class ChartRenderer:
    """Turns charts into SVG; an unchanged chart is never rendered twice."""

    def __init__(
        self, cache_dir: Path, workers: int | None = None, templates: ChartTemplates | None = None
    ) -> None:
        self.cache_dir = cache_dir
        self.workers = workers or os.cpu_count() or 1
        self.templates = templates or ChartTemplates(cache_dir.parent)
        self.rendered = 0
        self.started = time.time()  # charts drawn from now on are later (build's pruning)
        self._compiled: dict[str, str] = {}
        self._bundle_future: Future[bytes | None] | None = None

    def _compiled_template(self, kind: str, compile_with: Executor | None = None) -> str:
        """The light Vega-Lite template of a kind of chart compiled to Vega (canonical JSON text),
        placeholders kept; compiled, when the cache lacks it, by a worker of ``compile_with``:
        vl-convert holds Python's lock while it starts and compiles, which in this process would
        stop the progress line's thread for as long (a second or more on a busy machine)."""
        if kind not in self._compiled:
            source = self.templates.text(kind)
            digest = hashlib.sha256(
                f"{RENDER_VERSION}\0{_vl_convert_version()}\0{source}".encode()
            ).hexdigest()
            path = self.cache_dir.parent / f"vega-template-{digest[:32]}.json"
            try:
                compiled = (read_cache(path) or b"").decode()
                json.loads(compiled)  # a damaged or missing cache file is a miss
            except ValueError:
                if compile_with is None:
                    compiled = _compile_template(source)
                else:
                    compiled = compile_with.submit(_compile_template, source).result()
                self._store(path, compiled.encode())
            self._compiled[kind] = compiled
        return self._compiled[kind]

    def _vega(self, chart: ChartSpec, compile_with: Executor | None = None) -> str:
        """What vl-convert draws for a chart: its kind's compiled template (_compiled_template)
        with its values and rows."""
        data = f'{{"name":"@data","values":{chart.rows}}}'
        return fill(self._compiled_template(chart.kind, compile_with), dict(chart.fills), data)

    def _path(self, chart: ChartSpec) -> Path:
        # The name hashes the chart's values and the templates' source; the version of
        # vl-convert is pinned by the package, so it is left out (importing it costs time).
        return self._path_of(chart.name)

    def _path_of(self, chart_name: str) -> Path:
        key = f"{RENDER_VERSION}\0{chart_name}"
        return self.cache_dir / f"{hashlib.sha256(key.encode()).hexdigest()}.svg"

    def _store(self, path: Path, data: bytes) -> None:
        with contextlib.suppress(OSError):  # a cache that cannot be written only costs time
            write_cache(path, data)

    def prune(
        self, used: set[str], now: float | None = None, drawn_before: float | None = None
    ) -> int:
        """Remove the drawn charts that ``used`` (cache file names) does not name and that were
        drawn more than CHART_CACHE_KEEP_DAYS ago (or before the time ``drawn_before``); how many
        went. For a build that asked for every chart of its site (a full one): the others are of
        runs and groups the site no longer shows, or of older settings. Without this the cache,
        which the Pages workflow saves after every push, would only grow. The days spare what
        was drawn lately for another configuration of the same folder (settings tried and put
        back, test sites that share one cache)."""
        limit = (time.time() if now is None else now) - CHART_CACHE_KEEP_DAYS * 86_400
        if drawn_before is not None:
            limit = drawn_before
        removed = 0
        with contextlib.suppress(OSError), os.scandir(self.cache_dir) as entries:
            for entry in entries:
                if not entry.name.endswith(".svg") or entry.name in used:
                    continue
                with contextlib.suppress(OSError):
                    if (
                        entry.is_file(follow_symlinks=False)
                        and entry.stat(follow_symlinks=False).st_mtime < limit
                    ):
                        os.unlink(entry.path)
                        removed += 1
        return removed

    def cache_name(self, chart_name: str) -> str:
        """The cache file of the chart the site names ``chart_name`` (ChartSpec.name)."""
        return self._path_of(chart_name).name

    def batch(self) -> ChartBatch:
        """A batch to add charts to as pages are made; see ChartBatch."""
        return ChartBatch(self)

    def _start_pool(self) -> ProcessPoolExecutor:
        from concurrent.futures import ProcessPoolExecutor

        from sitegen.workers import pool_options

        # One core fewer than the machine has: the build's own process makes pages meanwhile.
        pool = ProcessPoolExecutor(max_workers=self.workers - 1, **pool_options())
        self._bundle_beside(pool)
        return pool

    def _bundle_beside(self, executor: Executor) -> None:
        """Have a worker of ``executor`` make the JavaScript bundle, unless its cache holds it
        or it is on its way: making it holds a process long, so a worker makes it beside the
        charts. The worker looks at the cache itself: the bundle's name imports vl-convert
        (a large library), which this process leaves until it writes the bundle."""
        if self._bundle_future is None:
            self._bundle_future = executor.submit(_bundle_unless_cached, self.cache_dir.parent)

    def _start_early(self) -> Executor:
        """Where the first charts of a build are drawn (see ChartBatch)."""
        if self.workers <= 1:
            return _WhenAsked()  # one core: a worker process would only add its start-up
        from concurrent.futures import ProcessPoolExecutor

        from sitegen.workers import pool_options

        return ProcessPoolExecutor(max_workers=1, **pool_options())

    def _bundle_path(self) -> Path:
        return _bundle_file(self.cache_dir.parent)

    def javascript_bundle(self) -> bytes:
        """Vega, Vega-Lite and vega-embed in one file, so interactive charts need no CDN."""
        path = self._bundle_path()
        future, self._bundle_future = self._bundle_future, None
        bundle = future.result() if future and not future.cancelled() else None
        if bundle is None:  # the worker found it cached, or none was asked
            cached = read_cache(path)
            if cached is not None:  # checked: a bundle cut short would break every chart
                return cached
            bundle = _make_javascript_bundle()
        self._store(path, bundle)
        return bundle


def _compile_template(source: str) -> str:
    """A Vega-Lite template compiled to Vega (canonical JSON text), without its tooltips."""
    import vl_convert

    return _canonical(vl_convert.vegalite_to_vega(_without_tooltips(json.loads(source))))


def _bundle_file(folder: Path) -> Path:
    """Where a build's cache in ``folder`` keeps the bundle of this vl-convert."""
    return folder / f"vega-{_vl_convert_version()}.js"


def _bundle_unless_cached(folder: Path) -> bytes | None:
    """In a worker: the bundle, made, unless the cache in ``folder`` holds it (None)."""
    return None if read_cache(_bundle_file(folder)) is not None else _make_javascript_bundle()


def _make_javascript_bundle() -> bytes:
    import vl_convert

    return vl_convert.javascript_bundle().encode()  # type: ignore[call-arg, no-any-return]


def _render_many(vega_specs: list[str]) -> list[bytes]:
    return [render_svg(spec) for spec in vega_specs]


# The least Vega draws: enough to start vl-convert's JavaScript engine and load Vega.
_WARM_UP_SPEC = json.dumps(
    {"$schema": "https://vega.github.io/schema/vega/v5.json", "width": 1, "height": 1}
)


def start_vl_convert() -> None:
    """Start vl-convert in this process (its JavaScript engine and Vega: slow to start),
    and import what drawing needs, by drawing the least chart there is."""
    render_svg(_WARM_UP_SPEC)


class ChartBatch:
    """Charts drawn while the caller goes on: a build adds each page's charts as it makes
    the page, and they are drawn while it makes and writes the others. ``result`` waits and
    stores them in the cache.

    A few charts (an added run changes one to four) are drawn by one worker process, started
    at the first chart the cache lacks, or before by ``warm_up``: starting vl-convert alone
    takes long, and drawing in this process, even in a thread, would add to the
    build's time (vl-convert holds Python's lock while it starts and draws: measured, a thread
    drawing beside page making finished no sooner than drawing after it). On the other core, the
    drawing is done by the time the build asks for it. On a machine of POOL_FROM_CORES cores or
    more, once there are PARALLEL_THRESHOLD charts to draw, worker processes on every core but
    one draw the rest, and the early worker's charts it has not started on go to them; with
    fewer, the early worker draws them all. With one core, charts are drawn here when asked.
    """

    CHUNK = 8  # charts per task: small enough to balance the workers, big enough to pay the trip

    def __init__(self, renderer: ChartRenderer) -> None:
        self._renderer = renderer
        self._svgs: dict[str, bytes] = {}  # by the chart's path in the site
        self._waiting: list[
            tuple[str, Path, str]
        ] = []  # (path, cache file, Vega spec) not yet sent
        self._sent: list[tuple[list[tuple[str, Path]], Future[list[bytes]]]] = []
        self._seen: set[str] = set()
        self.used: set[str] = set()  # the cache files of every chart added (ChartRenderer.prune)
        self._pool: ProcessPoolExecutor | None = None
        self._early: Executor | None = None
        # Charts given to the early worker, each with its future: (path, cache file, Vega spec,
        # future).
        self._early_charts: list[tuple[str, Path, str, Future[list[bytes]]]] = []
        self._warming: Future[None] | None = None  # warm_up's start of vl-convert
        self._starting: threading.Thread | None = None  # warm_up's start of the early worker
        self._early_drew = False  # whether a chart was given to the early worker
        # How many charts each finished task drew, and when the last finished (time.monotonic),
        # added by the pools' own threads as tasks end: what the build's progress shows.
        self._drawn: list[int] = []
        self.last_drawn: float | None = None

    def warm_up(self, start: Callable[[], None] = start_vl_convert) -> None:
        """Start the early worker, and vl-convert in it (``start``), before the first chart is
        added: a build that adds a run to a large site makes its first new chart late in the
        build, and then waited for vl-convert to start after its pages were written.
        Started at the build's start, on another core, the worker is ready by then. When no
        chart is drawn after all, ``close`` ends the worker without waiting for it. With one
        core, nothing: vl-convert starts in this process when the first chart is asked for.

        The worker is started by a thread of its own: starting it waits for the fork server
        to start, which the build spends reading instead. Whatever the batch
        does next waits for that thread first (_started)."""
        if (
            self._early is None
            and self._pool is None
            and self._starting is None
            and self._renderer.workers > 1
        ):

            def start_worker() -> None:
                # A worker that cannot be started now (no processes left, say) is started again
                # at the first chart, which says why in the build's own error; a thread would
                # print it as a traceback.
                with contextlib.suppress(Exception):
                    self._early = self._renderer._start_early()
                    self._warming = self._early.submit(start)

            self._starting = threading.Thread(
                target=start_worker, name="sitegen-chart-worker", daemon=True
            )
            self._starting.start()

    def _started(self) -> None:
        """Wait for warm_up's thread, if it is still starting the early worker (when it could
        not, the first chart starts one as without warm_up, and says why it cannot)."""
        if self._starting is not None:
            self._starting.join()
            self._starting = None

    def __enter__(self) -> ChartBatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add(self, chart: ChartSpec) -> None:
        self._started()
        path = chart.path()
        if path in self._seen:
            return
        self._seen.add(path)
        cache_file = self._renderer._path(chart)
        self.used.add(cache_file.name)
        cached = read_cache(cache_file)
        if cached is not None:  # checked: not a file cut short (caches skip fsync) or edited
            self._svgs[path] = cached
            return
        if self._early is None and self._pool is None:
            self._early = self._renderer._start_early()
        # Compiled, if need be, by the early worker (with one core, here: _WhenAsked).
        vega = self._renderer._vega(chart, self._early)
        self._renderer.rendered += 1
        if (
            self._pool is None
            and self._renderer.workers > POOL_FROM_CORES - 1
            and len(self._early_charts) + len(self._waiting) + 1 >= PARALLEL_THRESHOLD
        ):
            self._pool = self._renderer._start_pool()
            self._take_back_early()
        if self._pool is None:
            assert self._early is not None
            # One chart a task, drawn as soon as it is added; the bundle after the first.
            self._early_drew = True
            future = self._early.submit(_render_many, [vega])
            future.add_done_callback(self._count_drawn)
            self._renderer._bundle_beside(self._early)
            self._early_charts.append((path, cache_file, vega, future))
            return
        self._waiting.append((path, cache_file, vega))
        if len(self._waiting) >= self.CHUNK:
            self._send()

    def _take_back_early(self) -> None:
        """Give the charts the early worker has not started on to the worker processes instead."""
        kept = []
        for path, cache_file, vega, future in self._early_charts:
            if future.cancel():
                self._waiting.append((path, cache_file, vega))
            else:  # being drawn or drawn: the early worker's
                kept.append((path, cache_file, vega, future))
        self._early_charts = kept

    def _send(self) -> None:
        assert self._pool is not None
        for start in range(0, len(self._waiting), self.CHUNK):
            chunk = self._waiting[start : start + self.CHUNK]
            future = self._pool.submit(_render_many, [spec for _, _, spec in chunk])
            future.add_done_callback(self._count_drawn)
            self._sent.append(([(path, cache_file) for path, cache_file, _ in chunk], future))
        self._waiting = []

    def _count_drawn(self, future: Future[list[bytes]]) -> None:
        # (list.append, not +=: the early worker's and the pool's threads both call this)
        if not future.cancelled() and future.exception() is None:
            self._drawn.append(len(future.result()))
            self.last_drawn = time.monotonic()

    def progress(self) -> tuple[int, int | None]:
        """Charts drawn so far, and charts to draw (those the cache lacked) added so far."""
        return sum(self._drawn), self._renderer.rendered

    def result(self) -> dict[str, bytes]:
        """Every added chart's SVG, by its path in the site. A chart that could not be drawn
        raises here, whichever process drew it."""
        self._started()
        if self._pool is not None:
            self._send()
        self._sent = [
            ([(path, cache_file)], future) for path, cache_file, _, future in self._early_charts
        ] + self._sent
        self._early_charts = []
        for charts, future in self._sent:
            for (path, cache_file), svg in zip(charts, future.result(), strict=True):
                self._svgs[path] = svg
                self._renderer._store(cache_file, svg)
        self._sent = []
        return self._svgs

    def close(self) -> None:
        self._started()
        if self._early is not None:
            if not self._early_drew and self._warming is not None and not self._warming.done():
                from sitegen.workers import stop_workers

                stop_workers(self._early)  # only starting vl-convert, for nothing: not waited for
            self._early.shutdown(wait=True, cancel_futures=True)
            self._early = None
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class _WhenAsked(Executor):
    """Calls each function submitted when its result is first asked for, in this process."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        return _Deferred(lambda: fn(*args, **kwargs))


class _Deferred(Future[T]):
    def __init__(self, call: Callable[[], T]) -> None:
        super().__init__()
        self._call = call

    def result(self, timeout: float | None = None) -> T:
        if not self.done() and not self.running() and self.set_running_or_notify_cancel():
            try:
                self.set_result(self._call())
            except BaseException as exc:  # raised again by result(), as a worker's would be
                self.set_exception(exc)
        return super().result(timeout)
