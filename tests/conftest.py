"""Shared fixtures: a throw-away copy of the shipped site to run sitegen against, and for
the browser tests, that site built once, served on 127.0.0.1 and opened in chromium."""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from sitegen import progress
from tests.browser_kit import CHROMIUM_ARGS, Browsing, chromium_path, page_addresses, require, serve

if TYPE_CHECKING:
    from playwright.sync_api import Browser

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"  # every fixture lives here; see tests/data/README.md
SEED_RUN_ID = "h200nvl2-sglang-deepseek-v4-flash-dspark"


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One chart cache for the whole test session: rendering charts is the slow part of a build."""
    return tmp_path_factory.mktemp("sitegen-cache")


@pytest.fixture
def project(tmp_path: Path, shared_cache: Path) -> Path:
    """A copy of the repository's site (sitegen.yaml, content/ and schema/) in a temporary folder,
    sharing the session's chart cache."""
    return copy_site(tmp_path / "site", shared_cache)


def site_files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by its relative path: two builds compared byte for byte."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def forget_builds(project: Path, drawn: bool = False) -> None:
    """Make the next build a cold one: no site, manifest, spare, kept figures or pieces; with
    ``drawn``, no compiled templates or drawn charts either (the session shares those)."""
    shutil.rmtree(project / "_site")
    shutil.rmtree(project / ".sitegen" / "build")
    (project / ".sitegen" / "cache" / "figures.json").unlink()
    (project / ".sitegen" / "cache" / "fragments.json").unlink(missing_ok=True)
    if drawn:
        for kept in ("templates", "charts"):
            shutil.rmtree(project / ".sitegen" / "cache" / kept)


def copy_site(site: Path, shared_cache: Path) -> Path:
    site.mkdir()
    shutil.copy(REPO / "sitegen.yaml", site / "sitegen.yaml")
    shutil.copytree(REPO / "content", site / "content")
    shutil.copytree(
        REPO / "schema", site / "schema"
    )  # as in the repository: result files' modelines point here
    (site / ".sitegen").mkdir()
    (site / ".sitegen" / "cache").symlink_to(shared_cache, target_is_directory=True)
    return site


def collected_entries(project: Path) -> list[dict]:  # type: ignore[type-arg]
    """The collected file's entries as read here, independently of sitegen: each result with
    its measurements read from the file their digest names (.sitegen/measurements/)."""
    state = project / ".sitegen"
    entries = json.loads((state / "collected.json").read_text(encoding="utf-8"))["runs"]
    for entry in entries:
        name = entry["result"]["measurements"]
        entry["result"]["measurements"] = json.loads(
            (state / "measurements" / f"{name}.json").read_text(encoding="utf-8")
        )
    return entries  # type: ignore[no-any-return]


def run_cli(site: Path, *args: str) -> int:
    """Run ``sitegen --config <site>/sitegen.yaml ARGS`` in-process."""
    from sitegen.cli import main

    return main(["--config", str(site / "sitegen.yaml"), *args])


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory, shared_cache: Path) -> Path:
    """The shipped site, built once for every test that only reads it (the browser tests)."""
    site = copy_site(tmp_path_factory.mktemp("built") / "site", shared_cache)
    assert run_cli(site, "collect") == 0
    assert run_cli(site, "build") == 0
    return site / "_site"


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


# How long a command runs before it shows its progress (sitegen/progress.py), as shipped.
SHOW_AFTER_S = progress.SHOW_AFTER_S


@pytest.fixture(autouse=True)
def _progress_never_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    """No progress and no table of times from commands run in this process: a command shows
    them once it has run SHOW_AFTER_S, so how busy the machine is would decide what tests that
    compare a command's output read. Tests of progress set it back (tests/test_progress*.py)."""
    monkeypatch.setattr(progress, "SHOW_AFTER_S", math.inf)
