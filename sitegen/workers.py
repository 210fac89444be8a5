"""How sitegen starts worker processes for parallel work (checking files, drawing charts)."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
from concurrent.futures import Executor
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from typing import Any


def worker_context() -> BaseContext:
    # Forking a process that has threads (a test server, `sitegen serve`, a browser driver) can
    # deadlock the child; a fork server starts workers from a clean single-threaded process.
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    return multiprocessing.get_context(method)


# This process's end of every worker's lifeline (pool_options): the reading end, handed to each
# worker, and the writing end, which only this process holds and nobody writes to.
_lifeline: tuple[Connection, Connection] | None = None


def pool_options() -> dict[str, Any]:
    """The keyword arguments of a ProcessPoolExecutor of sitegen's workers: started by
    worker_context, each ends as soon as this process ends, however it ends.

    Why: a process killed by a signal (a stopped CI job, Ctrl-C twice, the OOM killer) shuts
    down no pool, and its workers would wait for work for ever, holding their memory (a chart
    worker's JavaScript engine) and the standard streams they inherited, so that whoever reads
    the killed command's output waits for ever too. Each worker watches a pipe whose only
    writing end is this process's: when this process ends, the system closes it, and the
    worker reads the end of the pipe and ends too."""
    global _lifeline
    context = worker_context()
    if _lifeline is None:
        _lifeline = context.Pipe(duplex=False)
    return {"mp_context": context, "initializer": _end_with, "initargs": (_lifeline[0],)}


def _end_with(lifeline: Connection) -> None:
    """A worker's initializer: end this worker once ``lifeline``'s writing end is closed."""

    def watch() -> None:
        with contextlib.suppress(EOFError, OSError):
            lifeline.recv_bytes()  # nothing is ever sent: returns only at the end of the pipe
        os._exit(1)

    threading.Thread(target=watch, name="sitegen-lifeline", daemon=True).start()


def stop_workers(pool: Executor) -> None:
    """End the worker processes of ``pool`` (a ProcessPoolExecutor) now, whatever they are
    doing: its shutdown would wait for them. Python 3.14 has a method for it; before, the
    executor's own table of its processes (a private name: without it, shutdown waits)."""
    kill = getattr(pool, "kill_workers", None)
    if kill is not None:
        kill()
        return
    # A private name, on purpose: without it a build that needs no chart waits for vl-convert to
    # start in the warmed worker, and a failed build for its run JSON worker (pinned by
    # test_chart_batch.py's test_a_warm_up_no_chart_needed_is_not_waited_for).
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.kill()
