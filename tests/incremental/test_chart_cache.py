"""Caches that stay bounded: incremental builds now and then remove the drawn charts the site no
longer shows, and `sitegen clean` empties the caches but keeps the collected runs."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from sitegen.site import build as build_module
from sitegen.site.draw.chart_render import RENDER_VERSION
from tests.kit.project import SEED_RUN_ID, run_cli, site_files


@pytest.fixture
def seed_alone(project: Path) -> Path:
    """The seed run alone, with a chart cache of its own (not the session's shared one)."""
    for path in (project / "content" / "runs").iterdir():
        if path.name != f"{SEED_RUN_ID}.yaml":
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    (project / ".sitegen" / "cache").unlink()
    (project / ".sitegen" / "cache").mkdir()
    return project


def _cache_name(chart_file: Path) -> str:
    """The cache file of a chart of the site: a hash of the drawing's version and its name."""
    return hashlib.sha256(f"{RENDER_VERSION}\0{chart_file.stem}".encode()).hexdigest() + ".svg"


def _starts(record: Path) -> list[float]:
    """The build start times a cache file keeps (after its checksum line)."""
    starts: list[float] = json.loads(record.read_bytes().partition(b"\n")[2])
    return starts


def _build(site: Path) -> None:
    assert run_cli(site, "collect") == 0
    assert run_cli(site, "build") == 0


def _edit_seed(site: Path, old: str, new: str) -> None:
    path = site / "content" / "runs" / f"{SEED_RUN_ID}.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_builds_remove_the_charts_no_longer_shown_now_and_then(
    seed_alone: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(build_module, "PRUNE_EVERY", 3)
    _build(seed_alone)  # 1
    charts = seed_alone / ".sitegen" / "cache" / "charts"
    record = seed_alone / ".sitegen" / "cache" / "chart-prune.json"
    shown = sorted((seed_alone / "_site" / "assets" / "charts").glob("*.svg"))
    assert shown and all((charts / _cache_name(chart)).is_file() for chart in shown)
    two_days_ago = time.time() - 2 * 86_400
    stale, fresh = charts / ("0" * 64 + ".svg"), charts / ("1" * 64 + ".svg")
    for planted in (stale, fresh):
        planted.write_bytes(b"<svg xmlns='http://www.w3.org/2000/svg'/>")
    os.utime(stale, (two_days_ago, two_days_ago))  # drawn long ago by a build of another site
    old_but_shown = charts / _cache_name(shown[0])
    os.utime(old_but_shown, (two_days_ago, two_days_ago))

    before = record.read_bytes()
    assert run_cli(seed_alone, "build") == 0  # unchanged: returns early, and counts for nothing
    assert record.read_bytes() == before and len(_starts(record)) == 1

    _edit_seed(seed_alone, 'date: "2026-07-09"', 'date: "2026-07-10"')
    _build(seed_alone)  # 2
    assert stale.exists() and len(_starts(record)) == 2
    _edit_seed(seed_alone, 'date: "2026-07-10"', 'date: "2026-07-11"')
    _build(seed_alone)  # 3: the one that looks
    assert not stale.exists()
    assert fresh.exists()  # drawn within the last builds (and the grace): kept
    assert old_but_shown.exists()
    shown = sorted((seed_alone / "_site" / "assets" / "charts").glob("*.svg"))
    assert all((charts / _cache_name(chart)).is_file() for chart in shown)
    assert _starts(record) == []  # counting again


def test_clean_empties_the_caches_and_the_next_build_is_the_same_site(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _build(project)
    site = site_files(project / "_site")
    state = project / ".sitegen"
    shared = (state / "cache").resolve()
    build_files = [p for p in (state / "build").rglob("*") if p.is_file() and not p.is_symlink()]
    size = sum(p.lstat().st_size for p in build_files)
    capsys.readouterr()
    assert run_cli(project, "clean") == 0
    assert capsys.readouterr().out == (
        f"removed .sitegen/cache/ and .sitegen/build/: {len(build_files)} files, "
        f"{size / 1e6:.1f} MB; the collected runs are kept\n"
    )
    assert not (state / "cache").exists() and not (state / "build").exists()
    assert shared.is_dir() and any(shared.iterdir())  # a link is removed, never followed
    assert (state / "collected.json").is_file()
    assert run_cli(project, "clean") == 0
    assert capsys.readouterr().out == "nothing to clean\n"
    assert run_cli(project, "build") == 0  # from the collected runs, with no collect in between
    assert site_files(project / "_site") == site
