"""The build manifest's record of a site's folders (build_manifest: each folder's name, then its
identity's five numbers or five nulls, one folder after another), read and written as the flat
lists written out by hand here."""

from __future__ import annotations

from typing import Any

import pytest

from sitegen.site.incremental.manifest import _flat_record, _record_of

FLAT = ["", 1, 2, 3, 4, 5, "runs", None, None, None, None, None, "runs/a", 6, 7, 8, 9, 10]
RECORD = {"": (1, 2, 3, 4, 5), "runs": None, "runs/a": (6, 7, 8, 9, 10)}


def test_a_record_is_written_flat_a_folder_after_another() -> None:
    assert _flat_record(RECORD) == FLAT
    assert _flat_record({}) == []


def test_a_flat_record_is_read_back_in_its_order() -> None:
    found = _record_of(FLAT)
    assert found == RECORD
    assert list(found or {}) == ["", "runs", "runs/a"]


@pytest.mark.parametrize(
    "flat",
    [
        ["", 1, None, 3, 4, 5],  # an identity half null
        ["", 1, 2, 3, 4, 5, "runs", 1],  # a folder cut short
        ["", 1, 2, 3, 4, True],  # a bool is no number
        ["", 1, 2, 3, 4, 5.0],  # nor a float
        [7, 1, 2, 3, 4, 5],  # a name that is no string
        {"": [1, 2, 3, 4, 5]},  # not a list at all
    ],
    ids=["half null", "cut short", "bool", "float", "name", "object"],
)
def test_anything_else_is_no_record(flat: Any) -> None:
    assert _record_of(flat) is None


def test_a_folder_named_twice_in_doubt_once_is_in_doubt() -> None:
    # Only a hand-edited manifest names a folder twice: it is then looked at, never trusted.
    assert _record_of(["a", None, None, None, None, None, "a", 1, 2, 3, 4, 5]) == {"a": None}
