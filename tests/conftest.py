"""Shared fixtures: a throw-away copy of the shipped site to run sitegen against."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
SEED_RUN_ID = "h200nvl2-sglang-deepseek-v4-flash-dspark"


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One chart cache for the whole test session: rendering charts is the slow part of a build."""
    return tmp_path_factory.mktemp("sitegen-cache")


@pytest.fixture
def project(tmp_path: Path, shared_cache: Path) -> Path:
    """A copy of the repository's site (sitegen.yaml and content/) in a temporary folder,
    sharing the session's chart cache."""
    site = tmp_path / "site"
    site.mkdir()
    shutil.copy(REPO / "sitegen.yaml", site / "sitegen.yaml")
    shutil.copytree(REPO / "content", site / "content")
    (site / ".sitegen").mkdir()
    (site / ".sitegen" / "cache").symlink_to(shared_cache, target_is_directory=True)
    return site


def run_cli(site: Path, *args: str) -> int:
    """Run ``sitegen --config <site>/sitegen.yaml ARGS`` in-process."""
    from sitegen.cli import main

    return main(["--config", str(site / "sitegen.yaml"), *args])
