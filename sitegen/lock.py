"""One sitegen at a time per project: ``collect`` and ``build`` hold ``.sitegen/lock``.

Two builds at once would race on the staging folder swap and the build manifest, and a
collect during a build could hand it a half-changed site. The lock is an exclusive
``fcntl.flock`` on ``.sitegen/lock``: the kernel releases it when the process exits, even
on a crash or kill -9, so a stale lock never needs cleaning up. The file itself is never
removed (removing it would let two processes lock two different files).

A second sitegen waits up to ``wait_s`` seconds (a collect or a build of a normal site takes
a few), then gives up with a clear message instead of hanging a CI job.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from sitegen.errors import Problem, SitegenError

LOCK_NAME = "lock"
WAIT_S = 30.0
_POLL_S = 0.1


@contextlib.contextmanager
def project_lock(state_dir: Path, command: str, wait_s: float | None = None) -> Iterator[None]:
    """Hold the project's lock for the ``with`` block, or raise SitegenError after ``wait_s``."""
    wait = WAIT_S if wait_s is None else wait_s
    path = state_dir / LOCK_NAME
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        # No link followed (a link could make sitegen create a file anywhere), no pipe waited on.
        handle = os.open(
            path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644
        )
    except OSError as exc:
        if os.path.islink(path):
            raise SitegenError(
                Problem(
                    str(path), None, "", "is a link; remove it (sitegen makes its own lock file)"
                )
            ) from None
        raise SitegenError(
            Problem(str(path), None, "", f"cannot create the lock file: {exc.strerror}")
        ) from None
    try:
        deadline = time.monotonic() + wait
        while True:  # bounded by the deadline
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise SitegenError(
                        Problem(
                            str(path),
                            None,
                            "",
                            (
                                f"another sitegen (collect or build) is running in this project; "
                                f"{command} waited "
                                f"{wait:g} s for it. Run again when it has finished"
                            ),
                        )
                    ) from None
                time.sleep(_POLL_S)
            except OSError as exc:  # a file system without locks: say so rather than run unguarded
                raise SitegenError(
                    Problem(str(path), None, "", f"cannot lock: {exc.strerror}")
                ) from None
        yield
    finally:
        os.close(handle)  # closing the descriptor releases the lock
