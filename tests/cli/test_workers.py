"""sitegen's worker processes end with the process that started them, however it ends: a build
or collect killed by a signal shuts down no pool, and its workers must not wait for work for
ever, holding their memory and the killed command's output streams (workers.pool_options)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.kit.project import REPO

# A process that starts a pool of two workers, makes sure both run, says their process ids and
# kills itself: no clean-up of any kind runs.
_KILLED = """
import os, signal, time
from concurrent.futures import ProcessPoolExecutor
from sitegen.workers import pool_options

if __name__ == "__main__":
    pool = ProcessPoolExecutor(max_workers=2, **pool_options())
    pids = set()
    deadline = time.monotonic() + 60
    while len(pids) < 2 and time.monotonic() < deadline:  # both workers, each busy for a moment
        pids |= {future.result(timeout=60) for future in [pool.submit(os.getpid) for _ in range(8)]}
    print(" ".join(str(pid) for pid in sorted(pids)), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
"""


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not ended (a zombie has ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status and "\nState:\tX" not in status


def test_workers_end_when_the_process_that_started_them_is_killed(tmp_path: Path) -> None:
    # The workers inherit the killed process's standard streams: run() returns (its output
    # read to the end) only once every worker has ended, and would time out without the lifeline.
    done = subprocess.run(
        [sys.executable, "-c", _KILLED],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == -9, done.stderr
    pids = [int(word) for word in done.stdout.split()]
    assert len(pids) == 2 and os.getpid() not in pids
    deadline = time.monotonic() + 30
    while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_running(pid) for pid in pids)
