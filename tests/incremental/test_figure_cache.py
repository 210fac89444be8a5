"""The figures cache (sitegen/site/incremental/figure_cache.py): a run's entry a piece of a store
of kept pieces (fragments.Fragments), read back without parsing what a build does not ask for,
appended to rather than rewritten, any doubt a miss.

The file is read and written here by hand, by its documented layout (a JSON line saying each
piece's key and length, the body's size and its sha256, then the pieces end to end), not through
the code under test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitegen.config import DEFAULT_SERVICE_LEVELS
from sitegen.model import Run
from sitegen.site.figures.capacity import CellGrid
from sitegen.site.figures.headlines import headlines
from sitegen.site.incremental.figure_cache import FIGURES_FORMAT, StoredFigures
from sitegen.store import read_collected, write_cache
from tests.kit.figure_store import entries, segments, write_entries
from tests.kit.project import run_cli

LEVELS = DEFAULT_SERVICE_LEVELS
OUTLINE = (tuple(range(3)), (8192, 16384), (1, 4))


@pytest.fixture
def runs(project: Path) -> list[Run]:
    assert run_cli(project, "collect") == 0
    return read_collected(project / ".sitegen")


def worked_out(run: Run, stored: StoredFigures | None = None) -> CellGrid:
    """A grid with every capacity asked for, as the listings ask (remembering ``stored``'s)."""
    grid = CellGrid(run)
    if stored is not None:
        grid.remember(stored.capacities(run.digest, grid.accelerators))
    for context in grid.contexts:
        for level in LEVELS:
            grid.capacity_at(context, level)
    return grid


def kept(
    path: Path, runs: list[Run], outline: tuple[tuple[int, ...], ...] | None = None
) -> StoredFigures:
    """The store as the next build reads it, once a build kept every run's figures."""
    StoredFigures(path, "key", LEVELS).keep(
        (run.digest, worked_out(run), headlines(run), outline) for run in runs
    )
    return StoredFigures(path, "key", LEVELS)


def test_figures_are_read_back_by_the_next_build(runs: list[Run], tmp_path: Path) -> None:
    path = tmp_path / "figures.json"
    stored = kept(path, runs)
    for run in runs:
        grid = worked_out(run, stored)
        assert grid.worked_out == 0  # every capacity came from the file
        assert grid.known() == worked_out(run).known()
        assert stored.headlines(run.digest) == headlines(run)
    held = entries(path)
    assert sorted(held) == sorted({run.digest for run in runs})  # an entry a run's content
    with_cells = {run.digest for run in runs if run.decode}
    assert all(
        set(json.loads(text)) == {"capacity", "headlines"}
        for digest, text in held.items()
        if digest in with_cells
    )


def test_nothing_new_writes_nothing(runs: list[Run], tmp_path: Path) -> None:
    path = tmp_path / "figures.json"
    stored = kept(path, runs)
    before = path.stat()
    stored.keep((run.digest, worked_out(run, stored), None, None) for run in runs)
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns, after.st_size) == (
        before.st_ino,
        before.st_mtime_ns,
        before.st_size,
    )


def test_an_added_run_appends_its_entry_and_leaves_the_others_as_they_were(
    runs: list[Run], tmp_path: Path
) -> None:
    path = tmp_path / "figures.json"
    added, *others = runs
    kept(path, others)
    before = path.read_bytes()
    stored = StoredFigures(path, "key", LEVELS)
    stored.keep(
        [
            (run.digest, worked_out(run, stored), headlines(run) if run is added else None, None)
            for run in runs
        ]
    )
    after = path.read_bytes()
    assert after.startswith(before) and len(after) > len(
        before
    )  # appended: the others' bytes as they were
    last_head, last_body = segments(path)[-1]
    assert last_head["keys"] == [added.digest] and json.loads(last_body)["headlines"]
    again = StoredFigures(path, "key", LEVELS)
    assert all(worked_out(run, again).worked_out == 0 for run in runs)
    assert again.headlines(added.digest) == headlines(added)


def test_an_entry_that_gains_figures_is_appended_in_place_of_the_old_one(
    runs: list[Run], tmp_path: Path
) -> None:
    # A run whose grid worked out more capacities (a page asked for other contexts): its new
    # entry is appended, and the next build reads the new one.
    path = tmp_path / "figures.json"
    run = runs[0]
    StoredFigures(path, "key", LEVELS).keep([(run.digest, None, headlines(run), None)])
    assert "capacity" not in json.loads(entries(path)[run.digest])
    stored = StoredFigures(path, "key", LEVELS)
    stored.keep([(run.digest, worked_out(run, stored), None, None)])
    assert len(segments(path)) == 2
    again = StoredFigures(path, "key", LEVELS)
    assert worked_out(run, again).worked_out == 0 and again.headlines(run.digest) == headlines(run)


def test_entries_of_runs_gone_go_when_the_file_is_rewritten(
    runs: list[Run], tmp_path: Path
) -> None:
    # Once as many bytes of the file are no longer used as are (here: a build of one run of
    # many, with one new entry), the file is rewritten with what the build used alone.
    path = tmp_path / "figures.json"
    kept(path, runs)
    stored = StoredFigures(path, "key", LEVELS)
    remaining = runs[0]
    stored.keep(
        [(remaining.digest, None, None, None), ("f" * 64, None, headlines(remaining), None)]
    )
    assert len(segments(path)) == 1 and sorted(entries(path)) == sorted(
        [remaining.digest, "f" * 64]
    )


def test_a_file_of_another_layout_is_a_miss_and_is_written_anew(
    runs: list[Run], tmp_path: Path
) -> None:
    # The one JSON document earlier versions wrote (or any other file): nothing read from it.
    path = tmp_path / "figures.json"
    kept(path, runs)
    document = {
        "format": FIGURES_FORMAT,
        "key": "key",
        "runs": {digest: json.loads(text) for digest, text in entries(path).items()},
    }
    write_cache(path, json.dumps(document).encode())
    stored = StoredFigures(path, "key", LEVELS)
    assert all(
        stored.capacities(run.digest, 1) == {} and stored.headlines(run.digest) is None
        for run in runs
    )
    stored.keep((run.digest, worked_out(run, stored), headlines(run), None) for run in runs)
    assert sorted(entries(path)) == sorted({run.digest for run in runs})


@pytest.mark.parametrize("damage", ["checksum", "cut short", "another key"])
def test_a_damaged_segment_is_a_miss_and_the_segments_before_it_are_read(
    runs: list[Run], tmp_path: Path, damage: str
) -> None:
    path = tmp_path / "figures.json"
    added, *others = runs
    kept(path, others)
    first = len(path.read_bytes())
    stored = StoredFigures(path, "key", LEVELS)
    stored.keep(
        [
            (run.digest, worked_out(run, stored), headlines(run) if run is added else None, None)
            for run in runs
        ]
    )
    data = bytearray(path.read_bytes())
    if damage == "checksum":
        data[-2] ^= 1  # a byte of the added run's entry
        path.write_bytes(bytes(data))
    elif damage == "cut short":
        path.write_bytes(bytes(data[:-5]))
    else:
        write_entries(path, entries(path), scope=f"{FIGURES_FORMAT}:other")
    stored = StoredFigures(path, "key", LEVELS)
    assert stored.capacities(added.digest, 1) == {} and stored.headlines(added.digest) is None
    if damage == "another key":
        assert all(stored.capacities(run.digest, 1) == {} for run in others)
    else:
        assert first < len(data) and all(worked_out(run, stored).worked_out == 0 for run in others)


def test_each_part_of_an_entry_is_checked_on_its_own(runs: list[Run], tmp_path: Path) -> None:
    # A capacity of the wrong shape is a miss of the capacities; the run's headlines and
    # outline, checked when asked for, are still read back (what the file holds for them).
    path = tmp_path / "figures.json"
    kept(path, runs, OUTLINE)
    held = entries(path)
    damaged = runs[0]
    entry = json.loads(held[damaged.digest])
    entry["capacity"] = [[1, 99, 1, 1.0]]  # a service level the file's settings do not have
    write_entries(path, {**held, damaged.digest: json.dumps(entry)})
    stored = StoredFigures(path, "key", LEVELS)
    assert stored.capacities(damaged.digest, 1) == {}
    assert stored.headlines(damaged.digest) == headlines(damaged)
    assert stored.outline(damaged.digest) == OUTLINE
    entry["outline"] = [[1], [2]]  # two parts, not three
    write_entries(path, {**held, damaged.digest: json.dumps(entry)})
    assert StoredFigures(path, "key", LEVELS).outline(damaged.digest) is None
    headlines_wrong = {**json.loads(held[damaged.digest]), "headlines": [True]}
    write_entries(path, {**held, damaged.digest: json.dumps(headlines_wrong)})
    assert StoredFigures(path, "key", LEVELS).headlines(damaged.digest) is None


def test_an_outline_is_read_from_the_end_of_its_entry_alone(
    runs: list[Run], tmp_path: Path
) -> None:
    # A group page asks only for outlines: read from where keep writes them (last), without
    # parsing the capacities before them. So an entry whose capacities are damaged still gives its
    # outline, and its capacities are a miss; an outline written elsewhere in an entry (by hand)
    # is read from the whole entry; one of the wrong shape at the end is a miss, never a figure.
    path = tmp_path / "figures.json"
    kept(path, runs, OUTLINE)
    held = entries(path)
    cut, moved, bent = runs[0], runs[1], runs[2]
    outline_json = json.dumps([list(part) for part in OUTLINE])
    moved_entry, bent_entry = json.loads(held[moved.digest]), json.loads(held[bent.digest])
    assert held[cut.digest].endswith(
        f',"outline":{outline_json.replace(" ", "")}}}'
    )  # written last
    write_entries(
        path,
        {
            **held,
            cut.digest: '{"capacity":[[8192,0,' + ',"outline":' + outline_json + "}",
            moved.digest: json.dumps(
                {"outline": moved_entry["outline"], "capacity": moved_entry["capacity"]}
            ),
            bent.digest: json.dumps({**bent_entry, "outline": [[1], [2], ["3"]]}),
        },
    )
    stored = StoredFigures(path, "key", LEVELS)
    assert stored.outline(cut.digest) == OUTLINE
    assert stored.capacities(cut.digest, 1) == {} and stored.headlines(cut.digest) is None
    assert stored.outline(moved.digest) == OUTLINE
    assert stored.outline(bent.digest) is None
    assert stored.headlines(bent.digest) == headlines(bent)


def test_two_runs_of_the_same_content_keep_one_entry(runs: list[Run], tmp_path: Path) -> None:
    # A result file copied under another name: the same digest, the same figures.
    path = tmp_path / "figures.json"
    run = runs[0]
    stored = kept(path, runs)
    stored.keep(
        [
            (run.digest, worked_out(run, stored), headlines(run), OUTLINE),
            (run.digest, worked_out(run, stored), headlines(run), OUTLINE),
        ]
    )
    assert segments(path)[-1][0]["keys"] == [
        run.digest
    ]  # its entry (gaining the outline) appended once
    assert StoredFigures(path, "key", LEVELS).outline(run.digest) == OUTLINE
