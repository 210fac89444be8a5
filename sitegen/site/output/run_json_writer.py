"""The run JSON files of a build that keeps nothing (a first build, a new output folder), made
and written by a worker process on another core while this process makes the pages.

Why a worker: a run's JSON depends on nothing but the run as collected (pages.run_json), and a
full build makes one per run, a good part of its work, which the other core (drawing the
charts, then making the run pages: output.forked) has room for. Why it reads the collected file
itself: sending it the runs would cost about what making their JSON costs. It writes each file
straight into the staging folder, whose names this process has claimed (StagedOutput.reserve),
and says which runs it could not make; this process makes those, so the worker can only ever
save time.
"""

from __future__ import annotations

import hashlib
import os
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sitegen.errors import SitegenError
from sitegen.files import MAX_STATE_BYTES, read_bounded
from sitegen.model import Run
from sitegen.site.output.staging import StagedOutput
from sitegen.site.pages import run_json as exports
from sitegen.store import collected_path, read_collected

if TYPE_CHECKING:  # (imported when a worker is started: most builds start none)
    from concurrent.futures import ProcessPoolExecutor

# Below this many runs, starting a worker costs more than making their JSON here.
MANY_RUNS = 64


def limit_s(runs: int) -> float:
    """How long the build waits for the worker before it makes the JSON itself: far longer than
    it takes on a busy machine (a worker that never ends is a bug, not a wait)."""
    return 120 + 0.05 * runs


def run_json_path(run_id: str) -> str:
    """Where a run's JSON is in the site."""
    return f"runs/{run_id}.json"


@dataclass(frozen=True)
class _Job:
    state_dir: str
    digest: str  # the collected file's sha256, as the build read and checked it
    targets: tuple[tuple[str, str], ...]  # each run's id and the file to write its JSON to


def _write_run_jsons(job: _Job) -> list[str]:
    """In the worker: write each run's JSON to its target; the ids of the runs it did not
    write (every one when the collected file is no longer the one the build read)."""
    state_dir = Path(job.state_dir)
    try:
        data = read_bounded(collected_path(state_dir), MAX_STATE_BYTES)
        if hashlib.sha256(data).hexdigest() != job.digest:
            return [run_id for run_id, _ in job.targets]
        # The very bytes whose entries the build checked: not checked again (each run's
        # measurements file is, when it is read).
        runs = {run.id: run for run in read_collected(state_dir, data=data, as_written=True)}
    except (OSError, SitegenError):
        return [run_id for run_id, _ in job.targets]
    left = []
    for run_id, target in job.targets:
        run = runs.get(run_id)
        try:
            if run is None:
                raise OSError("not in the collected file")
            made = exports.run_json(run)
            with open(target, "xb") as file:  # the name is new in the staging folder
                file.write(made)
        except (OSError, SitegenError):
            left.append(run_id)
    return left


class RunJsonWriter:
    """The run JSON files of a build, written by a worker; ``finish`` makes what it left here.

    Use ``start``, which gives None when the JSON is better made here (a few runs, one core, an
    incremental build whose unchanged runs keep their JSON)."""

    def __init__(
        self, pool: ProcessPoolExecutor, future: Future[list[str]], runs: dict[str, Run]
    ) -> None:
        self._pool = pool
        self._future = future
        self._runs = runs

    @classmethod
    def start(
        cls,
        output: StagedOutput,
        state_dir: Path,
        collected_digest: str,
        runs: list[Run],
    ) -> RunJsonWriter | None:
        if output.in_place or len(runs) < MANY_RUNS or (os.cpu_count() or 1) < 2:
            return None
        from concurrent.futures import ProcessPoolExecutor

        from sitegen.workers import pool_options

        targets = tuple((run.id, output.reserve(run_json_path(run.id))) for run in runs)
        pool = ProcessPoolExecutor(max_workers=1, **pool_options())
        job = _Job(str(state_dir), collected_digest, targets)
        return cls(pool, pool.submit(_write_run_jsons, job), {run.id: run for run in runs})

    def finish(self, output: StagedOutput) -> None:
        """Wait for the worker; make here the JSON of each run it did not write (also every one,
        if the worker itself failed)."""
        try:
            left = self._future.result(timeout=limit_s(len(self._runs)))
        except Exception:  # a worker that died, could not start or never ends: done here
            left = list(self._runs)
        finally:
            self.close()
        for run_id in left:
            output.write_reserved(run_json_path(run_id), exports.run_json(self._runs[run_id]))

    def close(self) -> None:
        """End the worker without waiting for its work (the build failed; a no-op after
        ``finish``)."""
        from sitegen.workers import stop_workers

        if not self._future.done():
            stop_workers(self._pool)
        self._pool.shutdown(wait=True, cancel_futures=True)
