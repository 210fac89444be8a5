"""What the tests of builds share: the smallest valid run to add, a cold build to compare an
incremental one with, and builds that trust what the last one recorded however recent."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.kit.project import REPO, forget_builds, run_cli, site_files

MINIMAL = REPO / "tests" / "data" / "valid" / "minimal.yaml"


def cold_build(project: Path) -> dict[str, bytes]:
    """The site as a build from nothing kept makes it (the chart cache stays: it is checked by
    the content of each chart)."""
    forget_builds(project)
    assert run_cli(project, "build") == 0
    return site_files(project / "_site")


def cold_build_copy(project: Path, copy: Path) -> Path:
    """The output folder of a build of a copy of ``project`` at ``copy``, without its site and
    manifest: what a build from the same collected runs makes from nothing."""
    shutil.copytree(project, copy, symlinks=True)
    shutil.rmtree(copy / "_site")
    (copy / ".sitegen" / "build" / "manifest.json").unlink()
    assert run_cli(copy, "build") == 0
    return copy / "_site"


def trust_recorded_identities(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the builds record every identity (files.identity) however recent, then wait out the
    clock's resolution: the next build trusts what the last one recorded instead of listing
    folders and reading the collected file, the path large sites take. (With the real margin,
    files.SETTLED_NS, only what changed in the last seconds is listed or read again.)"""
    from sitegen import files

    # "settled" however recent, even in the same tick
    monkeypatch.setattr(files, "SETTLED_NS", -(10**15))
    monkeypatch.setattr(files, "SAME_DEVICE_SETTLED_NS", -(10**15))
