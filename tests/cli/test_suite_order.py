"""The suite's own scheduling list (tests/conftest.py LONGEST_FIRST) names test modules that
exist: a module renamed or removed would silently fall back to the collection order."""

from __future__ import annotations

from tests.conftest import LONGEST_FIRST
from tests.kit.project import REPO


def test_every_module_started_first_exists() -> None:
    missing = [name for name in LONGEST_FIRST if not (REPO / name).is_file()]
    assert missing == []
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)
