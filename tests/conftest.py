"""Shared fixtures: the sites the tests only read (the shipped site, the same with short index
pages, the seed run alone, three of its runs), built once for the whole test run and shared by
its worker processes; a fresh copy of the shipped site (or of its three runs) for each test
that changes a site, either as it is in the repository (``project``, ``small_project``) or
collected and built (``built_project``, ``small_built``); and for the browser tests
that site served on 127.0.0.1 and opened in chromium. A session is one worker process's (see
pytest_cmdline_main); each worker has its own chart cache, which starts from what the read-only
sites' builds left."""

from __future__ import annotations

import compileall
import contextlib
import fcntl
import functools
import gc
import math
import os
import shutil
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings

from sitegen import progress
from tests.kit.browser import CHROMIUM_ARGS, Browsing, chromium_path, page_addresses, require, serve
from tests.kit.project import (
    PAGED_INDEX_SIZE,
    REPO,
    SEED_RUN_ID,
    copy_built,
    copy_site,
    run_cli,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser

# Property tests the same on every run, whatever the machine's load: the same examples each time
# (derandomize), and no deadline or too-slow check that a busy machine alone would fail. A test's
# own @settings still sets how many examples it tries.
settings.register_profile(
    "sitegen", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("sitegen")

# Worker processes when the command line names none (or says -n auto): four a core, since a
# test often waits (for a server, a subprocess, chromium, the file system's clock), and on a
# machine busy with other work the scheduler shares the cores out by process, so each worker more
# is a larger share for the suite (docs/performance-log.md, 2026-12-05: under two busy processes
# on two cores, eight workers beat six, and ten were no better); at most this many, as each
# collects every test module.
WORKERS_PER_CORE = 4
MAX_WORKERS = 8
# Where the tests' temporary folders go when neither --basetemp nor PYTEST_DEBUG_TEMPROOT says:
# a file system in memory, when the machine has one with this much room. The tests write and
# remove hundreds of thousands of small files; on a disk's file system its journal costs more
# system time than the tests' own work, and another process's disk traffic slows them down
# (docs/performance-log.md). A passed test's folder is removed as it ends, a passed run's at the
# end (tmp_path_retention_policy in pyproject.toml): what a failure leaves stays, to look at.
MEMORY_TEMP = Path("/dev/shm")
MEMORY_TEMP_ROOM = 8 * 2**30


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Run the tests on worker processes (pytest-xdist), each test module wholly on one of them
    so that its module fixtures are made once, unless the command line says how (``-n 0``:
    one process, to debug; ``-p no:xdist`` works too). Set here rather than in addopts, which
    ``-p no:xdist`` would refuse. Runs before xdist's own hook, which reads these options.

    Also: files not yet on disk written out, the temporary folders in memory (MEMORY_TEMP), and
    compiled bytecode kept even where the shell says not to write it (PYTHONDONTWRITEBYTECODE,
    set on the development machines): without it every worker and every ``python`` a test
    starts compiles sitegen and rewrites every test module again (benchmarks/bench.py drops it
    for the same reason)."""
    if hasattr(config, "workerinput"):
        return  # a worker: its options, environment and temporary folder are the controller's
    # Files written and not yet on disk (a fresh clone's install leaves most of a gigabyte) are
    # written out now, before the workers start, rather than by the kernel during the run, which
    # slowed a run on a busy machine by seconds (docs/performance-log.md).
    os.sync()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    # Compiled once here, before the workers start, rather than in each of them and each
    # ``python`` a test starts (a test module is compiled by the worker that rewrites it).
    for package in ("sitegen", "tests/kit"):
        compileall.compile_dir(REPO / package, quiet=1)
    if (
        config.option.basetemp is None
        and "PYTEST_DEBUG_TEMPROOT" not in os.environ
        and _room_in(MEMORY_TEMP) >= MEMORY_TEMP_ROOM
    ):
        os.environ["PYTEST_DEBUG_TEMPROOT"] = str(MEMORY_TEMP)
    if not config.pluginmanager.has_plugin("xdist"):
        return  # not installed, or blocked with -p no:xdist
    if config.option.numprocesses is None:
        config.option.numprocesses = "auto"
    if config.option.dist == "no":
        config.option.dist = "loadfile"
        config.option.loadscopereorder = False  # the modules in the order of LONGEST_MODULES


def pytest_sessionstart(session: pytest.Session) -> None:
    """Rewrite the test modules' asserts before collecting them (rewrite_test_modules): each
    worker from its own place in the list, the one process of a run without workers from the
    start; not the controller of workers, which collects nothing."""
    config = session.config
    worker = getattr(config, "workerinput", None)
    if worker is not None:  # worker "gw<N>" of "workercount"
        part = int(worker["workerid"].removeprefix("gw"))
        rewrite_test_modules(config, part=part, parts=worker["workercount"])
    elif not config.pluginmanager.has_plugin("dsession"):
        rewrite_test_modules(config)


def rewrite_test_modules(
    config: pytest.Config, folder: Path = REPO / "tests", part: int = 0, parts: int = 1
) -> int:
    """Rewrite the asserts of every test module and conftest under ``folder`` that pytest has not
    kept already, as pytest does when it imports one, and keep the result where pytest looks for
    it (its own cache file beside the module); the list starts at ``part`` of ``parts`` equal
    parts and wraps around. Why: every worker collects every test module, so on a fresh clone
    each of them rewrote all of them, the same work once a worker; starting at different places,
    the workers each rewrite a part and find the rest kept by the others
    (docs/performance-log.md, 2026-12-05). pytest's own functions do it, two private ones: where
    a pytest version lacks them, nothing is done here and pytest rewrites as before. How many
    modules were rewritten here."""
    try:
        from _pytest.assertion import rewrite
        from _pytest.assertion.rewrite import _read_pyc, _rewrite_test, _write_pyc
    except ImportError:
        return 0
    state = config.stash.get(rewrite.assertstate_key, None)
    if state is None:  # assertion rewriting is off (--assert=plain)
        return 0
    modules = [
        module
        for module in sorted(folder.rglob("*.py"))
        if module.name.startswith("test_") or module.name == "conftest.py"
    ]
    start = len(modules) * part // max(parts, 1)
    rewritten = 0
    for module in modules[start:] + modules[:start]:
        pyc = rewrite.get_cache_dir(module) / (module.name[:-3] + rewrite.PYC_TAIL)
        if _read_pyc(module, pyc) is not None:
            continue  # rewritten already, from this very source
        with contextlib.suppress(OSError, SyntaxError):
            pyc.parent.mkdir(exist_ok=True)
            source_hash, code = _rewrite_test(module, config)
            rewritten += _write_pyc(state, code, source_hash, pyc)
    return rewritten


# The test modules that take longest (docs/performance-log.md), longest first, run before the
# others: the workers then end at about the same time, none left with one of them alone at the
# end (a lone worker gets a small share of a busy machine's cores). The others follow by their
# number of tests, most first, as pytest-xdist orders them when left to (--loadscope-reorder).
LONGEST_MODULES = (
    "tests/incremental/test_incremental_build.py",
    "tests/output/test_crash_safety.py",
    "tests/cli/test_benchmark_smoke.py",
    "tests/site/test_chart_batch.py",
    "tests/incremental/test_damaged_state.py",
    "tests/collect/test_hostile.py",
    "tests/collect/test_hostile_properties.py",
    "tests/collect/test_redact.py",
    "tests/incremental/test_spare.py",
    "tests/collect/test_remote_server.py",
    "tests/cli/test_progress_output.py",
    "tests/cli/test_lifetime.py",
    "tests/site/test_history.py",
    "tests/site/test_links.py",
    "tests/collect/test_verify.py",
    "tests/collect/test_validate_agreement.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The test modules in the order the workers take them (LONGEST_MODULES); each module's
    tests stay together and in their order."""
    module = {id(item): item.nodeid.split("::", 1)[0] for item in items}
    tests = Counter(module.values())
    first = {name: rank for rank, name in enumerate(LONGEST_MODULES)}
    items.sort(key=lambda item: (first.get(module[id(item)], len(first)), -tests[module[id(item)]]))


def _room_in(folder: Path) -> int:
    """The bytes free on the file system of ``folder`` when it is in memory (tmpfs), else 0."""
    try:
        mounts = Path("/proc/self/mounts").read_text(encoding="utf-8").splitlines()
        in_memory = any(line.split()[1:3] == [str(folder), "tmpfs"] for line in mounts)
        found = os.statvfs(folder)
    except (OSError, IndexError):
        return 0
    return found.f_bavail * found.f_frsize if in_memory and os.access(folder, os.W_OK) else 0


# The cycle collector's first generation runs after this many allocations, not Python's 700:
# a test process holds every collected test, fixture and Hypothesis strategy, and the
# collector walked them again and again (docs/performance-log.md). sitegen's own commands run
# without it (gc_and_exit).
GC_FIRST_GENERATION = 50_000


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection made lives to the end: set it aside from the cycle collector's passes
    (gc.freeze), and let it run less often (GC_FIRST_GENERATION)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_FIRST_GENERATION, *gc.get_threshold()[1:])


@pytest.hookimpl(optionalhook=True)  # (a hook of xdist's: unknown under -p no:xdist)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """How many workers ``-n auto`` (the default, above) starts: see WORKERS_PER_CORE."""
    return min(WORKERS_PER_CORE * len(os.sched_getaffinity(0)), MAX_WORKERS)


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One chart cache for the whole test session: rendering charts is the slow part of a build.
    It starts with the JavaScript bundle of Vega (vega_bundle), made once for the test run."""
    cache = tmp_path_factory.mktemp("sitegen-cache")
    bundle = vega_bundle(_run_folder(tmp_path_factory))
    shutil.copyfile(bundle, cache / bundle.name)
    return cache


def vega_bundle(run: Path) -> Path:
    """The cache file of Vega's JavaScript bundle (``vega-<version>.js``, as a build keeps it in
    its cache), made once for the test run by the first worker that asks, by ChartRenderer as a
    build makes it: each worker's first build made its own, a second and more of processor time
    (docs/performance-log.md). tests/incremental/test_damaged_state.py checks a build's own
    making of it against vl-convert's."""
    from sitegen.site.draw.chart_render import ChartRenderer

    folder = run / "vega-bundle"
    with _held(run / "vega-bundle.lock"):
        made = sorted(folder.glob("vega-*.js")) if (folder / "complete").is_file() else []
        if not made:
            shutil.rmtree(folder, ignore_errors=True)  # what a worker that failed here left
            (folder / "charts").mkdir(parents=True)
            ChartRenderer(folder / "charts", workers=1).javascript_bundle()
            made = sorted(folder.glob("vega-*.js"))
            (folder / "complete").touch()
    [bundle] = made
    return bundle


@pytest.fixture
def project(tmp_path: Path, shared_cache: Path) -> Path:
    """A copy of the repository's site (sitegen.yaml, content/ and schema/) in a temporary folder,
    sharing the session's chart cache."""
    return copy_site(tmp_path / "site", shared_cache)


def build_cold(site: Path) -> None:
    """Collect and build ``site`` without the figures and pieces earlier builds of the session
    kept in the shared cache (only the drawn charts and compiled templates are shared): what the
    session's read-only sites show does not depend on which tests ran before."""
    for kept in ("figures.json", "fragments.json"):
        (site / ".sitegen" / "cache" / kept).unlink(missing_ok=True)
    assert run_cli(site, "collect") == 0
    assert run_cli(site, "build") == 0


def _run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of this test run that all its workers share: the base folder the worker folders
    are in (xdist gives worker gwN ``<base>/popen-gwN``), or without workers the base folder."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def _held(lock: Path) -> Iterator[None]:
    """Hold ``lock`` (flock) while the body runs: a worker waits here while another builds. The
    lock ends with the process that holds it, however it ends."""
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# The read-only sites, in the order they are built (one cache, so the later find the charts the
# earlier drew; the small ones first, so that a worker that needs one of them waits for no
# other), and the cache's own subfolders that a worker's cache takes (drawn charts, compiled
# templates and schemas, checked result files: content-addressed, so any site may use them).
SESSION_SITES = ("small", "seed", "shipped", "paged")
# The runs of the "small" site, three of the shipped ones (which tests edit, keep or remove), for
# tests of build machinery (the atomic swap, the spare, damaged state) whose subject is the same
# at three runs as at all the shipped ones: each of their many builds costs a fraction of theirs.
SMALL_SITE_RUNS = {
    f"{SEED_RUN_ID}.yaml",
    "ttp300-vllm-qwen3-4b.yaml",
    "mi100x4-vllm-qwen3coder30b-gptq4.yaml",
}
DRAWN = ("charts", "templates", "validators", "collect")


@pytest.fixture(scope="session")
def session_sites(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of the read-only sites (SESSION_SITES), each built once for the whole test run
    by a worker that asks for it or a later one (_built_through): each worker building them
    took more than a worker waiting for another's build (docs/performance-log.md). Beside each
    site, what its build left in the top folder of its cache (``<name>.cache/``: kept figures
    and pieces, collect's records). Here: their shared cache, with the run's Vega bundle."""
    run = _run_folder(tmp_path_factory)
    sites = run / "session-sites"
    with _held(run / "session-sites.lock"):
        if not (sites / "cache-ready").is_file():
            shutil.rmtree(sites, ignore_errors=True)  # what a worker that failed here left
            (sites / "cache").mkdir(parents=True)
            bundle = vega_bundle(run)
            shutil.copyfile(bundle, sites / "cache" / bundle.name)
            (sites / "cache-ready").touch()
    return sites


def _built_through(sites: Path, name: str) -> None:
    """Build, in the order of SESSION_SITES, every read-only site up to ``name`` that no worker
    has built yet, one at a time (the lock is taken for each: a worker waiting for an earlier
    site goes on as soon as that one is built)."""
    for each in SESSION_SITES[: SESSION_SITES.index(name) + 1]:
        with _held(sites.parent / "session-sites.lock"):
            if not (sites / f"{each}.complete").is_file():
                _build_session_site(sites, each)
                (sites / f"{each}.complete").touch()


def _build_session_site(sites: Path, name: str) -> None:
    cache = sites / "cache"
    for left in (sites / name, sites / f"{name}.cache"):  # what a worker whose build failed left
        shutil.rmtree(left, ignore_errors=True)
    site = copy_site(sites / name, cache)
    with pytest.MonkeyPatch.context() as patch:
        if name == "paged":
            patch.setattr("sitegen.site.pages.index.PAGE_SIZE", PAGED_INDEX_SIZE)
        if name in ("seed", "small"):
            _keep_only(site, SMALL_SITE_RUNS if name == "small" else {f"{SEED_RUN_ID}.yaml"})
        build_cold(site)
    kept = sites / f"{name}.cache"
    kept.mkdir()
    for path in cache.iterdir():
        if path.is_file():
            shutil.copyfile(path, kept / path.name)


def _keep_only(site: Path, runs: set[str]) -> None:
    """Remove every result file of ``site`` but ``runs`` (file names)."""
    for path in (site / "content" / "runs").iterdir():
        if path.name not in runs:
            path.unlink()


def _take_drawn(sites: Path, shared_cache: Path) -> None:
    """Put in this worker's cache what the read-only sites' builds drew and compiled (DRAWN),
    as building them in it did: its later builds then draw only new charts."""
    for folder in DRAWN:
        source, target = sites / "cache" / folder, shared_cache / folder
        if not source.is_dir():
            continue
        target.mkdir(exist_ok=True)
        for name in {path.name for path in source.iterdir()} - {p.name for p in target.iterdir()}:
            shutil.copyfile(source / name, target / name)


def _take_kept(sites: Path, name: str, shared_cache: Path) -> None:
    """Leave in this worker's cache what the build of the read-only site ``name`` left in the top
    folder of its own (kept figures and pieces, collect's records), as if it had built there;
    not the count of builds that decides when drawings are pruned, which stays this worker's."""
    for path in (sites / f"{name}.cache").iterdir():
        if path.name != "chart-prune.json":
            shutil.copyfile(path, shared_cache / path.name)


def _session_site(sites: Path, name: str, shared_cache: Path) -> Path:
    _built_through(sites, name)
    _take_drawn(sites, shared_cache)
    _take_kept(sites, name, shared_cache)
    return sites / name


@pytest.fixture(scope="session")
def shipped(session_sites: Path, shared_cache: Path) -> Path:
    """A copy of the repository's site, collected and built once for the test run: for every test
    that only reads it (its content/, .sitegen/ and _site/). A test that changes a site takes
    ``project`` or ``built_project``."""
    return _session_site(session_sites, "shipped", shared_cache)


@pytest.fixture(scope="session")
def built_site(shipped: Path) -> Path:
    """The shipped site's output folder (``shipped``'s _site/), read only."""
    return shipped / "_site"


@pytest.fixture(scope="session")
def shipped_paged(session_sites: Path, shared_cache: Path, shipped: Path) -> Path:
    """The shipped site built once for the test run with index pages of PAGED_INDEX_SIZE runs,
    read only. Built after ``shipped``, in its cache: it draws no chart, so asking for it never
    forks a process (which must not happen once the browser tests' threads run)."""
    return _session_site(session_sites, "paged", shared_cache)


@pytest.fixture(scope="session")
def seed_site(session_sites: Path, shared_cache: Path) -> Path:
    """A copy of the repository's site with the shipped seed run alone, collected and built once
    for the test run: read by the tests of the seed page, and copied by those that change it
    (copy_built)."""
    return _session_site(session_sites, "seed", shared_cache)


@pytest.fixture
def small_project(tmp_path: Path, shared_cache: Path) -> Path:
    """``project`` with only the runs of SMALL_SITE_RUNS: for tests of build machinery."""
    site = copy_site(tmp_path / "site", shared_cache)
    _keep_only(site, SMALL_SITE_RUNS)
    return site


@pytest.fixture(scope="session")
def small_site(session_sites: Path, shared_cache: Path) -> Path:
    """A copy of the repository's site with three runs (SMALL_SITE_RUNS), collected and built once
    for the test run, read only: copied by ``small_built``."""
    return _session_site(session_sites, "small", shared_cache)


@pytest.fixture
def small_built(tmp_path: Path, session_sites: Path, shared_cache: Path, small_site: Path) -> Path:
    """``built_project`` for the three runs of ``small_site``: for tests of build machinery."""
    _take_kept(session_sites, "small", shared_cache)
    return copy_built(small_site, tmp_path / "site", shared_cache)


@pytest.fixture
def built_project(tmp_path: Path, session_sites: Path, shared_cache: Path, shipped: Path) -> Path:
    """``project`` as ``sitegen collect`` and ``sitegen build`` leave it, made as a copy of the
    built shipped site (copy_built), with the figures and pieces its build kept put back in the
    shared cache: for tests that start from a built site, at a fraction of a build's cost."""
    _take_kept(session_sites, "shipped", shared_cache)
    return copy_built(shipped, tmp_path / "site", shared_cache)


@pytest.fixture
def built(built_project: Path) -> Path:
    """``built_project``, by the name the tests of builds use: for tests that start from a built
    site and whose subject is not what the last build recorded of its files' identities (a copy
    has other inodes: copy_built)."""
    return built_project


@pytest.fixture(scope="session")
def site_pages(built_site: Path) -> dict[str, str]:
    """An address of every kind of page of the built site, by kind ("run", "compare-app", …)."""
    return page_addresses(built_site, SEED_RUN_ID)


@pytest.fixture(scope="session")
def site_origin(built_site: Path) -> Iterator[str]:
    """The built site served over HTTP on 127.0.0.1, e.g. http://127.0.0.1:41234."""
    with serve(built_site) as origin:
        yield origin


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Debian's chromium, headless, launched once for the session."""
    executable = chromium_path()
    if executable is None:
        require(
            "chromium",
            "install it with `apt-get install chromium` (.ci/run does) or set SITEGEN_CHROMIUM",
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        require("playwright", "install the test extra: pip install -e '.[test]'")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=executable, args=CHROMIUM_ARGS, timeout=30_000
        )
        yield launched
        launched.close()


@pytest.fixture
def browse(site_origin: str, browser: Browser) -> Iterator[Browsing]:
    """Open pages of the built site; every context a test opens is closed after it."""
    # site_origin first: building forks worker processes, which must happen before Playwright
    # and the server start their threads (forking a threaded process can deadlock the child).
    browsing = Browsing(browser, site_origin)
    yield browsing
    browsing.close()


@pytest.fixture(scope="session", autouse=True)
def _charts_drawn_in_this_process() -> Iterator[None]:
    """The builds run in this process draw the charts they lack here, as sitegen does on a
    machine of one core (ChartRenderer's ``workers``), rather than in worker processes: each of
    those starts vl-convert anew, for the one or two charts a test's build lacks, and every
    build started one to warm it up (ChartBatch.warm_up). Here vl-convert starts once in each
    test process. The drawings and every file a build writes are the same. Set for the whole
    session, before any other fixture: the read-only sites' builds (session_sites) and the
    builds of module fixtures draw here too (each pool they started cost a fork server, a worker
    and vl-convert's start in it: docs/performance-log.md). The worker processes are tested as
    such in tests/site/test_chart_batch.py (its own ChartRenderers), and commands run as a
    process (tests/cli, benchmarks/) draw as shipped."""
    from sitegen.site import build
    from sitegen.site.draw.chart_render import ChartRenderer

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(build, "ChartRenderer", functools.partial(ChartRenderer, workers=1))
        yield


@pytest.fixture(autouse=True)
def _progress_never_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    """No progress and no table of times from commands run in this process: a command shows
    them once it has run SHOW_AFTER_S, so how busy the machine is would decide what tests that
    compare a command's output read. Tests of progress set it back (tests/cli/test_progress*.py)."""
    monkeypatch.setattr(progress, "SHOW_AFTER_S", math.inf)
