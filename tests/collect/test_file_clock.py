"""When a file's identity may stand for its content (files.settled): strictly older than the file
system's clock read on its own device, older by more than any granularity on another."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

from sitegen import files


def _found(ctime_ns: int, device: int) -> os.stat_result:
    return SimpleNamespace(st_ctime_ns=ctime_ns, st_dev=device)  # type: ignore[return-value]


def test_on_the_clocks_device_strictly_older_is_settled() -> None:
    clock = files.Clock(ns=5_000_000_000, device=7)
    assert files.settled(_found(4_999_999_999, 7), clock)
    assert not files.settled(
        _found(5_000_000_000, 7), clock
    )  # the reading's own tick: a later edit may share it
    assert not files.settled(_found(5_000_000_001, 7), clock)


def test_on_another_device_it_must_be_older_than_any_granularity() -> None:
    clock = files.Clock(ns=5_000_000_000, device=7)
    assert not files.settled(
        _found(4_000_000_000, 8), clock
    )  # a second older: FAT keeps two-second times
    assert files.settled(_found(2_999_999_999, 8), clock)


def test_without_a_clock_nothing_is_settled() -> None:
    assert not files.settled(_found(0, 7), None)


def test_a_reading_after_the_tick_is_later_than_every_change_before_it_and_none_after(
    tmp_path: Path,
) -> None:
    changed = tmp_path / "changed"
    changed.write_bytes(b"before")
    clock = files.file_system_now(tmp_path / "clock", after_tick=True)
    assert clock is not None and clock.device == os.stat(changed).st_dev
    assert files.settled(
        os.stat(changed), clock
    )  # changed before the reading, in the tick the reading waited out
    changed.write_bytes(b"after")
    assert not files.settled(
        os.stat(changed), clock
    )  # a change after the reading is never older than it
    assert list((tmp_path / "clock").iterdir()) == []  # the file the clock was read from is gone


def test_an_immediate_reading_does_not_wait_for_the_tick(tmp_path: Path) -> None:
    made = tmp_path / "made"
    made.write_bytes(b"")
    clock = files.file_system_now(tmp_path)
    assert clock is not None and clock.ns >= os.stat(made).st_ctime_ns
