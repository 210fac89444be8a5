"""Records: dataclasses frozen for the type checker and plain at run time.

Why: a frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``, three times
the cost of a plain one's. A build makes five model records per run (100,000 at 20,000 runs: 0.3 s
of a build that adds one run), one per cell of every run it decodes (a cold build: 1.5 million)
and one per page it plans; a collect makes three per result file. mypy still refuses every
assignment to a record's field, as it does for ``dataclass(frozen=True)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar, dataclass_transform

_Record = TypeVar("_Record")


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(cls: type[_Record]) -> type[_Record]:
    """``cls`` as a dataclass frozen for the type checker and plain at run time, with the
    equality, hash and repr a frozen one has (fields with ``hash=False`` or ``compare=False``
    left out of them alike)."""
    return dataclass(unsafe_hash=True)(cls)
