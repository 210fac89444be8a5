"""Data files spliced from the last build's (sitegen/site/incremental/joined.py): the same bytes
as joined from every piece, only the changed pieces made, and any doubt about the last file a
join from every piece."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

from sitegen.site.incremental.joined import Joined, JoinedFiles
from tests.kit.builds import MINIMAL, cold_build
from tests.kit.clock import past_the_file_system_tick
from tests.kit.project import SEED_RUN_ID, run_cli, site_files

SEPARATORS = [b",\n", b","]


def _joined(items: list[tuple[str, bytes]], separator: bytes, made: list[str]) -> Joined:
    """A file of ``items`` (key, piece); each piece made is named in ``made``."""

    def piece(at: int) -> bytes:
        made.append(items[at][0])
        return items[at][1]

    return Joined(b'{"head":[\n', separator, b"\n]}\n", [k for k, _ in items], piece, "scope")


def _changed(items: list[tuple[str, bytes]], rng: random.Random) -> list[tuple[str, bytes]]:
    """``items`` with some added, removed, edited (a new key) or emptied, the order kept."""
    changed = []
    for key, piece in items:
        roll = rng.random()
        if roll < 0.1:
            continue  # removed
        if roll < 0.2:
            changed.append((f"{key}+", piece + b"+"))  # edited
        elif roll < 0.25:
            changed.append((f"{key}-", b""))  # now empty
        else:
            changed.append((key, piece))
        if rng.random() < 0.1:
            changed.append((f"{key}/added", f'["added {key}"]'.encode()))
    return changed


def _items(rng: random.Random, count: int) -> list[tuple[str, bytes]]:
    return [
        (f"k{at:04}", b"" if rng.random() < 0.1 else f'["piece {at}", {rng.random()}]'.encode())
        for at in range(count)
    ]


@pytest.mark.parametrize("separator", SEPARATORS)
@pytest.mark.parametrize("seed", range(30))
def test_a_spliced_file_is_the_file_joined_from_every_piece(separator: bytes, seed: int) -> None:
    rng = random.Random(seed)
    items = _items(rng, rng.choice([0, 1, 2, 5, 40]))
    joined_before, lengths = _joined(items, separator, []).join()
    last = _last(_joined(items, separator, []), lengths)
    after = _changed(items, rng)
    made: list[str] = []
    spliced, spliced_lengths = _joined(after, separator, made).splice(last, joined_before)
    expected, expected_lengths = _joined(after, separator, []).join()
    assert spliced == expected and spliced_lengths == expected_lengths
    kept = {key for key, _ in items}
    assert made == [key for key, _ in after if key not in kept]  # only the new ones made


def _last(joined: Joined, lengths: list[int]) -> object:
    from sitegen.site.incremental.joined import _Last

    return _Last.of(joined, (0, 0, 0, 0, 0), lengths)


def _recorded(tmp_path: Path, items: list[tuple[str, bytes]]) -> tuple[JoinedFiles, Path]:
    """A site whose data/x.json was made from ``items`` and recorded, settled."""
    site = tmp_path / "site"
    (site / "data").mkdir(parents=True)
    store = JoinedFiles(tmp_path / "build" / "joined.json")
    made = store.make("data/x.json", site, _joined(items, b",", []))
    (site / "data" / "x.json").write_bytes(made)
    past_the_file_system_tick(tmp_path)
    store.save(site, tmp_path / "cache")
    return JoinedFiles(tmp_path / "build" / "joined.json"), site


def test_the_next_build_splices_the_recorded_file(tmp_path: Path) -> None:
    items = _items(random.Random(1), 50)
    store, site = _recorded(tmp_path, items)
    after = [*items[:10], ("new", b'["new"]'), *items[10:]]
    made: list[str] = []
    assert (
        store.make("data/x.json", site, _joined(after, b",", made))
        == (_joined(after, b",", []).join()[0])
    )
    assert made == ["new"]


@pytest.mark.parametrize(
    "doubt", ["edited in place", "replaced", "another scope", "another separator", "no record"]
)
def test_any_doubt_about_the_last_file_joins_every_piece(tmp_path: Path, doubt: str) -> None:
    items = _items(random.Random(2), 20)
    store, site = _recorded(tmp_path, items)
    path = site / "data" / "x.json"
    separator = b","
    joined = _joined(items, separator, made := [])
    if doubt == "edited in place":  # the same size and modification time: the change time shows
        status = path.stat()
        data = bytearray(path.read_bytes())
        data[-5:-4] = b"X"
        with open(path, "r+b") as stream:
            stream.write(bytes(data))
        os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    elif doubt == "replaced":
        copy = path.with_name("copy")
        shutil.copy(path, copy)
        os.replace(copy, path)
    elif doubt == "another scope":
        joined.scope = "other"
    elif doubt == "another separator":
        joined = _joined(items, b",\n", made)
    else:
        (tmp_path / "build" / "joined.json").unlink()
    assert store.make("data/x.json", site, joined) == joined.join()[0]
    assert sorted(made) == sorted([key for key, _ in items] * 2)  # every piece, joined anew


def test_a_damaged_record_joins_every_piece(tmp_path: Path) -> None:
    items = _items(random.Random(3), 10)
    _, site = _recorded(tmp_path, items)
    record = tmp_path / "build" / "joined.json"
    record.write_bytes(record.read_bytes().replace(b'"k0003"', b"3"))
    made: list[str] = []
    assert JoinedFiles(record).make("data/x.json", site, _joined(items, b",", made))
    assert len(made) == len(items)


DATA_FILES = [
    "data/runs.json",
    "data/setups.json",
    "data/capacity.json",
    "data/changes.json",
    "data/index.json",
]


def _change(runs: Path, change: str) -> None:
    if change == "added":
        shutil.copy(MINIMAL, runs / "added-run.yaml")
    elif change == "edited":
        seed = runs / f"{SEED_RUN_ID}.yaml"
        seed.write_text(
            seed.read_text().replace(
                "total_tokens_per_s: 228.386789", "total_tokens_per_s: 230.5", 1
            )
        )
    else:
        (runs / "ttp300-vllm-qwen3-4b.yaml").unlink()


@pytest.mark.parametrize("change", ["added", "edited", "removed"])
def test_an_incremental_build_splices_its_data_files_and_equals_a_cold_build(
    built: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    runs = built / "content" / "runs"
    # A build of the copy first (its files have other inodes than the ones recorded), which
    # records its data files once they have settled.
    shutil.copy(runs / "ttp300-vllm-qwen3-4b.yaml", runs / "ttp300-vllm-qwen3-4b-again.yaml")
    assert run_cli(built, "collect") == 0 and run_cli(built, "build") == 0
    before = site_files(built / "_site")
    past_the_file_system_tick(built)
    _change(runs, change)
    assert run_cli(built, "collect") == 0
    joined_anew: list[bytes] = []
    spliced: list[bytes] = []
    original_join, original_splice = Joined.join, Joined.splice

    def counted_join(self: Joined) -> tuple[bytes, list[int]]:
        made = original_join(self)
        joined_anew.append(made[0])
        return made

    def counted_splice(self: Joined, *args: object) -> tuple[bytes, list[int]]:
        made = original_splice(self, *args)  # type: ignore[arg-type]
        spliced.append(made[0])
        return made

    monkeypatch.setattr(Joined, "join", counted_join)
    monkeypatch.setattr(Joined, "splice", counted_splice)
    assert run_cli(built, "build") == 0
    monkeypatch.undo()
    incremental = site_files(built / "_site")
    changed = [name for name in DATA_FILES if incremental[name] != before[name]]
    assert joined_anew == [] and len(changed) >= 2
    assert all(incremental[name] in spliced for name in changed)
    assert cold_build(built) == incremental
