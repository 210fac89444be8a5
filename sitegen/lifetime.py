"""How the objects of a command live and end.

``collect`` and ``build`` read millions of objects (runs, manifests, kept pieces) that live
until the command is over, and make few reference cycles. Python's defaults are tuned for the
opposite: its cycle collector walks the long-lived objects again and again while they are
made, and when the process ends it frees them one by one. At 20,000 runs the two cost about
a second of a collect and build that add one run (docs/performance.md):

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
    so the collections' work grows with what they make however seldom they run. Measured (the
    collector timed with gc.callbacks): with thresholds (10000, 20, 100) and what the build had
    read frozen (gc.freeze), the collections still took 0.43 s of a build that adds a run at
    20,000 runs and 0.1 s of an unchanged collect. The cycles they would reclaim are few: the
    largest resident set of a cold build of 5,000 runs was 591,740 KB without them against
    591,800 KB with them, and of a build that adds a run at 20,000 runs 392,508 KB against
    392,596 KB (docs/performance.md). A long-lived caller (`sitegen serve`) collects again once the
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
    command made and still holds, none of which it ever looked at: 0.09–0.23 s after a build
    that adds a run at 20,000 runs, just before the process ends and the system takes it all
    back (end_process)."""
    global _ending
    _ending = True
    gc.disable()


def left_to_the_end(held: object) -> None:
    """Hold ``held`` until the process ends, when it ends with its command (ends_with_command);
    otherwise do nothing, and it is freed as usual (a long-lived caller: `sitegen serve`, tests).

    Why: a command's work returns with millions of objects only it held (a build's manifest,
    page plan, kept pieces and figures at 20,000 runs), and returning freed them one at a time,
    0.07–0.09 s of a build that adds a run, just before end_process lets the system take the
    process's memory back at once."""
    if _ending:
        _left.append(held)


def end_process(code: int) -> NoReturn:
    """Exit with ``code``: flush the standard streams, run the exit handlers (atexit), then end
    without the interpreter's teardown (os._exit). A build of 20,000 runs leaves 280 MB of
    small objects (its runs, and what was remembered of them for the build, remembered.py),
    which took 0.4 s and more to free one by one just before the system took them back anyway.

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
    atexit._run_exitfuncs()  # what libraries registered (multiprocessing's, logging's) still runs
    with contextlib.suppress(OSError, ValueError):
        _flush()  # what the exit handlers printed
    os._exit(code)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
