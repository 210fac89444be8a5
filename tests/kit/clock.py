"""The file system's clock as tests wait on it: not a fixed sleep, but until a file written now
is stamped later than one written before, so that what was written before counts as older."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

# The clock ticks every few milliseconds; a file system stamping coarser than this fails loudly.
TICK_WAIT_S = 10.0


def past_the_file_system_tick(folder: Path) -> None:
    """Return once the file system clock in ``folder`` has moved on from its reading at the
    call: every file changed before the call is then stamped strictly older than any change
    after it."""
    handle, name = tempfile.mkstemp(prefix=".tick.", dir=folder)
    try:
        first = os.fstat(handle).st_ctime_ns
        deadline = time.monotonic() + TICK_WAIT_S
        while time.monotonic() < deadline:
            os.write(handle, b".")  # stamps the file with the clock's time now
            if os.fstat(handle).st_ctime_ns > first:
                return
            time.sleep(0.001)  # a poll interval, not a guess at the tick
        raise AssertionError(f"the file system clock in {folder} did not move in {TICK_WAIT_S} s")
    finally:
        os.close(handle)
        os.unlink(name)
