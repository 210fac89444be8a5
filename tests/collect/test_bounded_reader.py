"""files.read_bounded, the one reader of files someone else controls (collect's result files
and its own collected file alike): the bytes the file holds, never more than the limit, even
when the file grows while it is read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sitegen import files
from sitegen.errors import SitegenError


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 3 * (1 << 20) + 17])
def test_it_reads_what_the_file_holds(tmp_path: Path, size: int) -> None:
    path = tmp_path / "result.json"
    path.write_bytes(bytes(i % 251 for i in range(size)))
    assert files.read_bounded(path, size) == path.read_bytes()


def test_a_file_over_the_limit_is_refused_with_its_size(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_bytes(b"x" * 1001)
    with pytest.raises(SitegenError) as raised:
        files.read_bounded(path, 1000, "content/runs/result.json")
    assert str(raised.value) == (
        "content/runs/result.json: file is 1,001 bytes, over the 1,000-byte limit for a result file"
    )


def _seen_smaller(monkeypatch: pytest.MonkeyPatch, path: Path, seen: int) -> None:
    """Make the file look ``seen`` bytes long when opened, as if it grew after fstat."""
    real_fstat = os.fstat
    inode = path.stat().st_ino

    def fstat(descriptor: int) -> os.stat_result:
        found = real_fstat(descriptor)
        if found.st_ino != inode:
            return found
        fields = list(found)
        fields[6] = seen  # st_size
        return os.stat_result(fields)

    monkeypatch.setattr(os, "fstat", fstat)


def test_a_file_that_grew_while_read_is_read_to_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "result.json"
    path.write_bytes(b"0123456789" * 300_000)
    _seen_smaller(monkeypatch, path, 10)
    assert files.read_bounded(path, 3_000_000) == b"0123456789" * 300_000


def test_a_file_that_grew_past_the_limit_while_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "result.json"
    path.write_bytes(b"y" * 5000)
    _seen_smaller(monkeypatch, path, 100)
    with pytest.raises(SitegenError) as raised:
        files.read_bounded(path, 4096, "content/runs/result.json")
    assert "grew past the 4,096-byte limit" in str(raised.value)


def test_a_link_and_a_pipe_are_refused(tmp_path: Path) -> None:
    target = tmp_path / "target.json"
    target.write_bytes(b"{}")
    (tmp_path / "link.json").symlink_to(target)
    with pytest.raises(SitegenError, match="is a link"):
        files.read_bounded(tmp_path / "link.json", 100)
    os.mkfifo(tmp_path / "pipe.json")
    with pytest.raises(SitegenError, match="not a plain file"):
        files.read_bounded(tmp_path / "pipe.json", 100)
