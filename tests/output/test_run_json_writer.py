"""A build that keeps nothing has each run's JSON made and written by a worker process
(output/run_json_writer.py): the files are the same as those made in the build's process, a
later incremental build keeps them, and whatever the worker did not write is made here."""

from __future__ import annotations

import shutil
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

import pytest

from sitegen.site.output import run_json_writer
from sitegen.site.output.run_json_writer import RunJsonWriter, _Job, _write_run_jsons
from sitegen.site.output.staging import StagedOutput
from sitegen.site.pages import run_json as exports
from sitegen.store import read_collected
from tests.kit.builds import MINIMAL
from tests.kit.project import run_cli
from tests.kit.run_json import check_run_jsons


def _without_site(project: Path) -> Path:
    """``project`` as a first build finds it: collected, no site, no record of a build."""
    shutil.rmtree(project / "_site")
    shutil.rmtree(project / ".sitegen" / "build")
    return project


def test_a_first_build_has_the_worker_write_every_run_json(
    built_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _without_site(built_project)
    monkeypatch.setattr(run_json_writer, "MANY_RUNS", 1)

    def not_here(run: object) -> bytes:
        raise AssertionError("the worker writes the run JSON of a first build")

    # Only this process's function: the worker, a process of its own, makes them.
    monkeypatch.setattr(exports, "run_json", not_here)
    assert run_cli(project, "build") == 0
    runs = read_collected(project / ".sitegen")
    assert sorted(p.name for p in (project / "_site" / "runs").glob("*.json")) == sorted(
        f"{run.id}.json" for run in runs
    )
    assert check_run_jsons(project / "_site") >= 20


def test_an_incremental_build_after_it_keeps_the_worker_s_files(
    built_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _without_site(built_project)
    monkeypatch.setattr(run_json_writer, "MANY_RUNS", 1)
    assert run_cli(project, "build") == 0
    runs = project / "_site" / "runs"
    before = {path.name: path.stat().st_ino for path in runs.glob("*.json")}
    shutil.copy(MINIMAL, project / "content" / "runs" / "added-run.yaml")
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    after = {path.name: path.stat().st_ino for path in runs.glob("*.json")}
    assert set(after) == set(before) | {"added-run.json"}
    # Every other run's JSON is the file the first build's worker wrote, kept (linked), not made.
    assert all(after[name] == inode for name, inode in before.items())
    assert check_run_jsons(project / "_site") >= 20


def test_a_worker_that_does_not_end_in_time_leaves_the_json_to_the_build(
    built_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _without_site(built_project)
    monkeypatch.setattr(run_json_writer, "MANY_RUNS", 1)
    monkeypatch.setattr(run_json_writer, "limit_s", lambda runs: 0.0)  # never in time
    assert run_cli(project, "build") == 0
    assert check_run_jsons(project / "_site") >= 20


def test_a_collected_file_changed_since_the_build_read_it_is_not_used(built: Path) -> None:
    state = built / ".sitegen"
    runs = read_collected(state)[:2]
    targets = tuple((run.id, str(built / f"{run.id}.out")) for run in runs)
    left = _write_run_jsons(_Job(str(state), "0" * 64, targets))
    assert left == [run.id for run in runs]
    assert not any(Path(target).exists() for _, target in targets)


def test_what_the_worker_did_not_write_is_made_here(built: Path, tmp_path: Path) -> None:
    runs = read_collected(built / ".sitegen")[:3]
    output = StagedOutput(tmp_path / "out")
    try:
        paths = [output.reserve(f"runs/{run.id}.json") for run in runs]
        pool = ProcessPoolExecutor(max_workers=1)  # started by nothing: no process
        failed: Future[list[str]] = Future()
        failed.set_exception(RuntimeError("the worker died"))
        RunJsonWriter(pool, failed, {run.id: run for run in runs}).finish(output)
        assert all(Path(path).is_file() for path in paths)
        # Each is the run's file as the contributor wrote it (read independently).
        assert check_run_jsons(output.staging) == len(runs)
    finally:
        output.discard()


def test_a_name_is_reserved_once(tmp_path: Path) -> None:
    output = StagedOutput(tmp_path / "out")
    try:
        output.reserve("runs/a.json")
        with pytest.raises(Exception, match="two pages want the same output file"):
            output.write("runs/a.json", b"{}")
    finally:
        output.discard()
