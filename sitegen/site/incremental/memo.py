"""Work done once per collection of runs, not once per stage that asks.

A build asks several stages (its plan, the search index, the data files) for the same
groupings of the same run objects, and each asking costs a pass over every run.
What is remembered is keyed by the identity of the runs, in order, and held with weak
references to them, which prove that an identity still belongs to the run it was taken from.
The key never keeps a run alive, but a remembered value that holds runs does (the groups of
groups.site_groups do): the last ``kept`` collections asked about stay in memory until newer
ones push them out (a large site's runs take much memory). A `sitegen` command ends its process
without freeing them (gc_and_exit.end_process); a long-lived process that builds again and again
(`sitegen serve`) holds at most ``kept`` of them.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

from sitegen.model import Run

T = TypeVar("T")


class ByRuns(Generic[T]):
    """``compute(runs)``, remembered for the last ``kept`` collections of runs asked about
    (the same run objects in the same order)."""

    def __init__(self, compute: Callable[[tuple[Run, ...]], T], kept: int = 4) -> None:
        self.compute = compute
        self.kept = kept
        self.recent: list[tuple[tuple[int, ...], tuple[weakref.ref[Run], ...], T]] = []

    def __call__(self, runs: Iterable[Run]) -> T:
        members = tuple(runs)
        key = tuple(map(id, members))
        for known, alive, value in self.recent:
            if known == key and all(ref() is not None for ref in alive):
                return value
        value = self.compute(members)
        self.recent.insert(0, (key, tuple(map(weakref.ref, members)), value))
        del self.recent[self.kept :]
        return value
