"""Work done by a forked copy of this process on another core, its result sent back pickled.

For the run pages of a build that keeps nothing (build.SiteWriter.pages), made while the build
makes the listings: a run's page needs what the build worked out from every run, and only a
copy of the process has that without working it out again. Forking a process that has threads
is safe only for a child that takes no lock another thread may hold: the child here renders
templates and writes files, never prints, never uses a worker pool, and ends with os._exit (no
exit handler, no inherited buffer flushed twice).

Whatever goes wrong in the child (an error, a crash, a child that takes far too long) is not
reported from there: ``result`` gives None and the caller does the work itself, where an error
is reported as any other.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import time
import warnings
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


def can_fork() -> bool:
    """Whether this system forks (not Windows), with a core to spare."""
    return hasattr(os, "fork") and (os.cpu_count() or 1) >= 2


class Forked(Generic[T]):
    """``work()`` run in a forked child; ``result`` waits for what it returned."""

    def __init__(self, work: Callable[[], T]) -> None:
        reading, writing = os.pipe()
        with warnings.catch_warnings():
            # Python 3.12 warns about forking a process with threads; see the module's docstring
            # for why this child is safe.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # the child
            os.close(reading)
            status = 1
            try:
                _write_all(writing, pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL))
                status = 0
            finally:
                os._exit(status)
        os.close(writing)
        self._pid: int | None = pid
        self._reading = reading

    def result(self, limit_s: float) -> T | None:
        """What the child's work returned, or None when it failed or did not end within
        ``limit_s`` seconds (it is then stopped)."""
        chunks: list[bytes] = []
        deadline = time.monotonic() + limit_s
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self._reading], [], [], left)[0]:
                    return None  # far too long: stopped by close()
                chunk = os.read(self._reading, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
            if self._wait() != 0:
                return None
            value: T = pickle.loads(b"".join(chunks))
            return value
        except (OSError, pickle.UnpicklingError, EOFError):
            return None
        finally:
            self.close()

    def _wait(self) -> int:
        pid, self._pid = self._pid, None
        if pid is None:
            return 1
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status)

    def close(self) -> None:
        """Stop the child if it still runs, and release what it used (the build failed, or
        ``result`` gave up on it)."""
        if self._pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self._pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                self._wait()
        if self._reading >= 0:
            with contextlib.suppress(OSError):
                os.close(self._reading)
            self._reading = -1


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
