"""A build that fails or is killed at any step while it swaps the new site in leaves the old
site or the new one, never a mix, and the next build cleans up and gets it right."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.kit.builds import MINIMAL, cold_build_copy
from tests.kit.project import REPO, SEED_RUN_ID, run_cli, site_files


@pytest.fixture
def built(small_built: Path) -> Path:
    """The site these tests build: three runs (conftest's SMALL_SITE_RUNS), among them the seed
    run, which they edit, and one they remove, so that a build both rewrites and removes files.
    The swap is of whole trees, as safe at three runs as at all the shipped ones."""
    return small_built


@pytest.mark.parametrize("failure", ["exchange", "rename-in"])
def test_incremental_build_that_fails_while_swapping_in_keeps_the_old_site(
    built: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], failure: str
) -> None:
    import errno
    import os

    from sitegen.site.output import staging as write

    before = site_files(built / "_site")
    runs = built / "content" / "runs"
    seed = runs / f"{SEED_RUN_ID}.yaml"
    seed.write_text(
        seed.read_text().replace("total_tokens_per_s: 228.386789", "total_tokens_per_s: 230.5", 1)
    )
    (runs / "ttp300-vllm-qwen3-4b.yaml").unlink()  # so files are also removed
    assert run_cli(built, "collect") == 0
    original_rename = os.rename

    def failing_exchange(first: Path, second: Path) -> bool:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    def rename(source: object, target: object) -> None:
        # Without an atomic exchange: the old site is set aside, then moving the new one in fails.
        if ".building-" in str(source):
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        original_rename(source, target)  # type: ignore[arg-type]

    if failure == "exchange":
        monkeypatch.setattr(write, "exchange", failing_exchange)
    else:
        monkeypatch.setattr(write, "exchange", lambda first, second: False)
        monkeypatch.setattr(os, "rename", rename)
    capsys.readouterr()
    assert run_cli(built, "build") == 1
    assert "cannot replace the output folder: Input/output error" in capsys.readouterr().err
    assert site_files(built / "_site") == before
    assert [p.name for p in built.iterdir() if p.name.startswith("._site.")] == []
    monkeypatch.undo()
    assert run_cli(built, "build") == 0  # and the next build gets it right
    assert "230.5" in (built / "_site" / "runs" / SEED_RUN_ID / "index.html").read_text()


# Run as `python - <crash at call N> <config>`: a build that dies (os._exit, as kill -9 does: no
# cleanup, no finally) at the Nth file-system step that moves, links or removes files. It draws
# the charts it lacks in its own process, as the tests' in-process builds do (conftest's
# _charts_drawn_in_this_process): the first draws the few the edit needs and the others find
# them in the shared cache, where each used to start a fork server and a worker to warm up
# vl-convert for charts it then never drew.
_CRASHING_BUILD = """
import functools, os, shutil, sys
from sitegen.site import build
from sitegen.site.output import staging as write
build.ChartRenderer = functools.partial(build.ChartRenderer, workers=1)
if sys.argv[3] == "no-exchange":
    write.exchange = lambda first, second: False
crash_at, calls = int(sys.argv[1]), [0]
def counted(original):
    def step(*args, **kwargs):
        calls[0] += 1
        if calls[0] == crash_at:
            os._exit(137)
        return original(*args, **kwargs)
    return step
os.link, os.rename, shutil.rmtree = counted(os.link), counted(os.rename), counted(shutil.rmtree)
write.exchange = counted(write.exchange)
from sitegen.cli import main
code = main(["--config", sys.argv[2], "build"])
print("steps", calls[0])
sys.exit(code)
"""


def _crashing_build(project: Path, crash_at: int, mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _CRASHING_BUILD, str(crash_at), str(project / "sitegen.yaml"), mode],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


@pytest.mark.parametrize("mode", ["exchange", "no-exchange", "exchange, staged in the spare"])
def test_a_build_killed_at_any_step_leaves_the_old_site_or_the_new(
    built: Path, tmp_path: Path, mode: str
) -> None:
    from sitegen.site.output.staging import clean_leftovers

    if mode.endswith("spare"):  # one more build, so that the next one stages in the site set aside
        shutil.copy(MINIMAL, built / "content" / "runs" / "added-run.yaml")
        assert run_cli(built, "collect") == 0 and run_cli(built, "build") == 0
        assert (built / ".sitegen" / "build" / "spare" / "index.html").is_file()
    old = site_files(built / "_site")
    seed = built / "content" / "runs" / f"{SEED_RUN_ID}.yaml"
    seed.write_text(
        seed.read_text().replace("total_tokens_per_s: 228.386789", "total_tokens_per_s: 230.5", 1)
    )
    (built / "content" / "runs" / "ttp300-vllm-qwen3-4b.yaml").unlink()
    assert run_cli(built, "collect") == 0
    pristine = tmp_path / "pristine"
    shutil.copytree(built, pristine, symlinks=True)
    finished = _crashing_build(
        built, 0, mode
    )  # never crashes: counts the steps, makes the new site
    assert finished.returncode == 0, finished.stderr
    steps = int(finished.stdout.split("steps ")[1])
    new = site_files(built / "_site")
    assert new != old and "230.5" in new[f"runs/{SEED_RUN_ID}/index.html"].decode()
    assert new == site_files(
        cold_build_copy(pristine, tmp_path / "cold")
    )  # an incremental build is a cold one
    # A step while staging, and every step of the swap and the clean-up at the end (the last
    # three: exchange or two renames, then removing the old tree).
    points = sorted({steps // 2, *range(max(1, steps - 3), steps + 1)})
    for point in points:
        trial = tmp_path / f"crash-{point}"
        shutil.copytree(pristine, trial, symlinks=True)
        crashed = _crashing_build(trial, point, mode)
        assert crashed.returncode == 137, (point, crashed.stdout, crashed.stderr)
        if (trial / "_site").exists():
            assert site_files(trial / "_site") in (old, new), (
                f"a mixed site after a crash at step {point}"
            )
        else:  # only without an atomic exchange, between its two renames: the old site is set aside
            assert mode == "no-exchange", point
            clean_leftovers(trial / "_site")  # what the next build does first
            assert site_files(trial / "_site") == old
        assert run_cli(trial, "build") == 0  # the next build cleans up and gets it right
        assert site_files(trial / "_site") == new
        assert [p.name for p in trial.iterdir() if p.name.startswith("._site.")] == []
