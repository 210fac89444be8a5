"""How the objects of a command live and end.

``collect`` and ``build`` read millions of objects (runs, manifests, kept pieces) that live
until the command is over, and make few reference cycles. Python's defaults are tuned for the
opposite: its cycle collector walks the long-lived objects again and again while they are
made, and when the process ends it frees them one by one. At 20,000 runs the two cost about
a second of a collect and build that add one run (docs/performance.md):

- ``long_lived_work`` runs the command's work with fewer collections, and lets it freeze what
  it read so that the collections left do not walk it;
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
from collections.abc import Callable, Iterator
from typing import NoReturn

# The cycle collector's thresholds while collect or build runs; Python's are (700, 10, 10).
# Young collections run a fourteenth as often, and a full one waits for ten times as many of
# them: at 20,000 runs a cold build's collections took 11 s instead of 80 s (no full one
# instead of 64), and an unchanged collect's 0.1 s instead of 0.5 s (six full ones), the peak
# memory the same.
LONG_LIVED_THRESHOLDS = (10_000, 20, 100)


@contextlib.contextmanager
def long_lived_work() -> Iterator[Callable[[], None]]:
    """Run the body with LONG_LIVED_THRESHOLDS; give it ``freeze``, to call once what it read
    lives as long as it does (gc.freeze: the collections no longer walk those objects).

    Afterwards the caller's thresholds are back and what was frozen can be collected again;
    a caller that froze objects of its own (gc.freeze) keeps them so: then nothing is frozen."""
    may_freeze = gc.get_freeze_count() == 0
    thresholds = gc.get_threshold()
    gc.set_threshold(*LONG_LIVED_THRESHOLDS)

    def freeze() -> None:
        if may_freeze:
            gc.freeze()

    try:
        yield freeze
    finally:
        gc.set_threshold(*thresholds)
        if may_freeze:
            gc.unfreeze()


def end_process(code: int) -> NoReturn:
    """Exit with ``code``: flush the standard streams, run the exit handlers (atexit), then end
    without the interpreter's teardown (os._exit). A build of 20,000 runs leaves 280 MB of
    small objects (its runs, and what was remembered of them for the build, remembered.py),
    which took 0.4 s and more to free one by one just before the system took them back anyway.

    Ends the usual way (sys.exit) when that is not safe: another thread that is no daemon still
    runs (it is waited for); a profiler or tracer watches (cProfile, a debugger, coverage's
    tracer), which writes what it saw once the program is over; or a stream cannot be flushed
    (a closed pipe, which Python reports)."""
    if sys.getprofile() is not None or sys.gettrace() is not None \
            or any(thread is not threading.main_thread() and not thread.daemon for thread in threading.enumerate()):
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
