"""``@record``: a dataclass frozen for the type checker and plain at run time.

Why: a frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``, several
times the cost of a plain one's, and a build makes records per run, per matrix cell and per
planned page (the figures: docs/performance-log.md, issue 42). mypy still refuses every
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
