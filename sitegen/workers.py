"""How sitegen starts worker processes for parallel work (checking files, drawing charts)."""

from __future__ import annotations

import multiprocessing
from multiprocessing.context import BaseContext


def worker_context() -> BaseContext:
    # Forking a process that has threads (a test server, `sitegen serve`, a browser driver) can
    # deadlock the child; a fork server starts workers from a clean single-threaded process.
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    return multiprocessing.get_context(method)
