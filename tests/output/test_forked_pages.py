"""A build that keeps nothing has its last run pages made by a forked copy of itself
(build.SiteWriter.pages, output/forked.py): the site, the build's record and the pieces it
keeps are those of a build without it; a copy that fails or never ends costs time, not the
build."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from sitegen.site import build
from sitegen.site.output.forked import Forked
from tests.kit.builds import cold_build
from tests.kit.figure_store import entries as stored_entries
from tests.kit.project import forget_builds, run_cli

_KEPT = ("figures.json", "fragments.json")


def _cold_with_record(project: Path) -> tuple[dict[str, bytes], list[dict[str, str]], bytes]:
    """A cold build's site, the figures and pieces it kept (each by its key, read by the
    files' documented layout: the order pieces were made in may differ), and its record of
    each page."""
    files = cold_build(project)
    cache = project / ".sitegen" / "cache"
    manifest = (project / ".sitegen" / "build" / "manifest.json").read_bytes()
    pages = manifest[manifest.index(b'"entries"') : manifest.index(b'"fingerprint"')]
    return files, [stored_entries(cache / name) for name in _KEPT], pages


def _forked_results(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Fork from one run page on, and note whether each forked copy's pages came back."""
    monkeypatch.setattr(build, "FORK_FROM_PAGES", 1)
    came_back: list[bool] = []
    result = Forked.result

    def noted(self: Forked[object], limit_s: float) -> object:
        made = result(self, limit_s)
        came_back.append(made is not None)
        return made

    monkeypatch.setattr(Forked, "result", noted)
    return came_back


def test_a_forked_copy_makes_the_same_site(
    built_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone = _cold_with_record(built_project)
    came_back = _forked_results(monkeypatch)
    forked = _cold_with_record(built_project)
    assert came_back == [True]  # the copy made its pages, and the build took them
    assert forked[0] == alone[0]
    assert forked[1] == alone[1]  # the same figures and pieces kept for the next build
    assert forked[2] == alone[2]


def test_a_copy_that_fails_leaves_its_pages_to_the_build(
    small_built: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone = cold_build(small_built)
    came_back = _forked_results(monkeypatch)

    def fails(*args: object) -> None:
        raise RuntimeError("only in the copy: the build's process does not call it")

    monkeypatch.setattr(build.SiteWriter, "made_here", fails)
    assert cold_build(small_built) == alone
    assert came_back == [False]


def test_a_copy_that_never_ends_is_stopped(
    small_built: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone = cold_build(small_built)
    came_back = _forked_results(monkeypatch)
    monkeypatch.setattr(build, "forked_limit_s", lambda pages: 1.0)

    def never_ends(*args: object) -> None:
        while True:  # bounded: the build stops the copy after forked_limit_s
            time.sleep(0.05)

    monkeypatch.setattr(build.SiteWriter, "made_here", never_ends)
    started = time.monotonic()
    assert cold_build(small_built) == alone
    assert came_back == [False]
    assert time.monotonic() - started < 60


def test_an_incremental_build_after_a_forked_one_keeps_what_it_can(
    built_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    came_back = _forked_results(monkeypatch)
    forget_builds(built_project)
    assert run_cli(built_project, "build") == 0
    assert came_back == [True]
    before = {p.name: p.stat().st_ino for p in (built_project / "_site" / "runs").glob("*.json")}
    seed = next((built_project / "content" / "runs").glob("*.yaml"))
    seed.write_text(seed.read_text() + "\n# an edit that changes nothing a reader sees\n")
    assert run_cli(built_project, "collect") == 0 and run_cli(built_project, "build") == 0
    after = {p.name: p.stat().st_ino for p in (built_project / "_site" / "runs").glob("*.json")}
    kept = [name for name in before if after.get(name) == before[name]]
    assert len(kept) >= len(before) - 1  # every other run's JSON kept (linked), not made again


def test_forked_work_comes_back() -> None:
    assert Forked(lambda: {"pid": os.getpid()}).result(60) != {"pid": os.getpid()}
    assert Forked(lambda: [1, "two"]).result(60) == [1, "two"]

    def fails() -> None:
        raise ValueError("in the copy")

    assert Forked(fails).result(60) is None
