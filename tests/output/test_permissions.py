"""The built site is readable by a web server running as another user: folders 0755 and files
0644 under the usual umask (022), after a full build and after an incremental one. The modes
follow the umask as any new file's do, so a stricter umask keeps the site private."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kit.project import SEED_RUN_ID, run_cli


@pytest.fixture
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    mask: int = request.param
    previous = os.umask(mask)
    try:
        yield mask
    finally:
        os.umask(previous)


def _modes(site: Path) -> dict[str, set[int]]:
    modes: dict[str, set[int]] = {"folders": {stat.S_IMODE(site.stat().st_mode)}, "files": set()}
    for folder, folders, files in os.walk(site):
        for name in folders:
            modes["folders"].add(stat.S_IMODE(os.stat(os.path.join(folder, name)).st_mode))
        for name in files:
            modes["files"].add(stat.S_IMODE(os.stat(os.path.join(folder, name)).st_mode))
    return modes


@pytest.mark.parametrize(
    ("umask", "folders", "files"),
    [(0o022, 0o755, 0o644), (0o027, 0o750, 0o640)],
    indirect=["umask"],
    ids=["umask-022", "umask-027"],
)
def test_site_modes_after_full_and_incremental_builds(
    project: Path, umask: int, folders: int, files: int
) -> None:
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    site = project / "_site"
    assert stat.S_IMODE(site.stat().st_mode) == folders  # as `stat -c %a _site` prints it
    assert _modes(site) == {"folders": {folders}, "files": {files}}

    run_file = project / "content" / "runs" / f"{SEED_RUN_ID}.yaml"
    run_file.write_text(run_file.read_text().replace("  revision: main\n", "  revision: edited\n"))
    (project / "content" / "runs" / "copy-of-seed.yaml").write_text(
        run_file.read_text()
    )  # new folders too
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    assert "edited" in (site / "runs" / SEED_RUN_ID / "index.html").read_text()
    assert (site / "runs" / "copy-of-seed" / "index.html").is_file()
    assert _modes(site) == {"folders": {folders}, "files": {files}}
