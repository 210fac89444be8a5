"""How the objects of a command live and end: the cycle collector and the process's exit.

``collect`` and ``build`` make many objects (runs, manifests, kept pieces) that live until
the command is over, and few reference cycles. Python's defaults are tuned for the opposite:
its cycle collector walks the long-lived objects again and again while they are made, and when
the process ends it frees them one by one (the cost: docs/performance-log.md, issue 42):

- ``long_lived_work`` runs the command's work without the cycle collector, and
  ``ends_with_command`` keeps it off to the end of a process that ends with its command, whose
  work then hands what it made to ``left_to_the_end`` instead of freeing it;
- ``end_process`` ends the ``sitegen`` process once its command is over, after the exit
  handlers, without the interpreter's teardown: the system takes the memory back at once.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import sys
import threading
from collections.abc import Iterator
from typing import NoReturn


@contextlib.contextmanager
def long_lived_work() -> Iterator[None]:
    """Run the body without the cycle collector (gc.disable); afterwards it runs again if it
    ran before, and a caller that had turned it off finds it off.

    Why not fewer collections instead: a young collection looks at every object made since the
    last one that is still alive, and what collect and build make mostly lives until they end,
    so the collections' work grows with what they make however seldom they run, and the cycles
    they would reclaim are few. A long-lived caller (`sitegen serve`) collects again once the
    command is over."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# Set by ends_with_command: the process ends once its command is over (cli.run).
_ending = False
# What left_to_the_end holds: never freed, taken back with the process.
_left: list[object] = []


def ends_with_command() -> None:
    """Say that the process ends once its command is over (cli.run: collect and build). The
    cycle collector stays off until then (long_lived_work finds it off and leaves it so), and
    what the command hands to left_to_the_end is never freed.

    Why the collector: turned on again after the work, it soon runs once over everything the
    command made and still holds, none of which it ever looked at, just before the process ends
    and the system takes it all back (end_process)."""
    global _ending
    _ending = True
    gc.disable()


def left_to_the_end(held: object) -> None:
    """Hold ``held`` until the process ends, when it ends with its command (ends_with_command);
    otherwise do nothing, and it is freed as usual (a long-lived caller: `sitegen serve`, tests).

    Why: a command's work returns with many objects only it held (a build's manifest, page
    plan, kept pieces and figures), and returning would free them one at a time, just before
    end_process lets the system take the process's memory back at once."""
    if _ending:
        _left.append(held)


def end_process(code: int) -> NoReturn:
    """Exit with ``code``: flush the standard streams, run the exit handlers (atexit), then end
    without the interpreter's teardown (os._exit): a build leaves many small objects (its runs,
    and what incremental/memo.py remembered of them), which the teardown would free one by one
    just before the system takes them back anyway.

    Ends the usual way (sys.exit) when that is not safe: another thread that is no daemon still
    runs (it is waited for); a profiler or tracer watches (cProfile, a debugger, coverage's
    tracer), which writes what it saw once the program is over; or a stream cannot be flushed
    (a closed pipe, which Python reports)."""
    if (
        sys.getprofile() is not None
        or sys.gettrace() is not None
        or any(
            thread is not threading.main_thread() and not thread.daemon
            for thread in threading.enumerate()
        )
    ):
        sys.exit(code)
    try:
        _flush()
    except (OSError, ValueError):
        sys.exit(code)
    # os._exit skips the exit handlers: run them first, so what libraries registered
    # (multiprocessing's, logging's) still runs. The saving, and its benchmark, are in
    # docs/performance-log.md (issue 42); tests/cli/test_lifetime.py pins the behaviour.
    atexit._run_exitfuncs()
    with contextlib.suppress(OSError, ValueError):
        _flush()  # what the exit handlers printed
    os._exit(code)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
