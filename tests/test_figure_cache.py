"""The figures cache (sitegen/site/figure_cache.py): a run a line, read and written back without
touching the entries a build did not change, any doubt a miss."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitegen.config import DEFAULT_SERVICE_LEVELS
from sitegen.model import Run
from sitegen.site.capacity import CellGrid
from sitegen.site.figure_cache import StoredFigures
from sitegen.site.headlines import headlines
from sitegen.store import read_cache, read_collected, write_cache
from tests.conftest import run_cli

LEVELS = DEFAULT_SERVICE_LEVELS


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


def kept(path: Path, runs: list[Run]) -> StoredFigures:
    first = StoredFigures(path, "key", LEVELS)
    first.keep((run.digest, worked_out(run), headlines(run), None) for run in runs)
    return StoredFigures(path, "key", LEVELS)


OUTLINE = (tuple(range(3)), (8192, 16384), (1, 4))


def kept_with_outline(path: Path, runs: list[Run]) -> list[str]:
    """The file's lines once a build kept every run's figures, each with OUTLINE as its outline."""
    StoredFigures(path, "key", LEVELS).keep((run.digest, worked_out(run), headlines(run), OUTLINE) for run in runs)
    return lines(path)


def lines(path: Path) -> list[str]:
    data = read_cache(path)
    assert data is not None
    return data.decode().split("\n")


def entries(text: list[str]) -> set[str]:
    """The entry lines of the file, without their commas."""
    return {line.rstrip(",") for line in text[1:-1]}


def test_figures_are_read_back_by_the_next_build(runs: list[Run], tmp_path: Path) -> None:
    path = tmp_path / "figures.json"
    stored = kept(path, runs)
    for run in runs:
        grid = worked_out(run, stored)
        assert grid.worked_out == 0  # every capacity came from the file
        assert grid.known() == worked_out(run).known()
        assert stored.headlines(run.digest) == headlines(run)
    document = json.loads(read_cache(path) or b"")  # one JSON document
    assert sorted(document["runs"]) == sorted({run.digest for run in runs})
    assert len(lines(path)) == len({run.digest for run in runs}) + 2  # a run a line


def test_nothing_new_writes_nothing(runs: list[Run], tmp_path: Path) -> None:
    path = tmp_path / "figures.json"
    stored = kept(path, runs)
    before = path.stat()
    stored.keep((run.digest, worked_out(run, stored), None, None) for run in runs)
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_an_entry_no_build_asked_for_is_kept_as_it_was(runs: list[Run], tmp_path: Path) -> None:
    # A build that made no grid of a run (its pieces were all kept) keeps its figures for the
    # builds that will need them, without parsing or writing them again.
    path = tmp_path / "figures.json"
    kept(path, runs)
    before = lines(path)
    added, *others = runs
    stored = StoredFigures(path, "key", LEVELS)
    stored.keep([(run.digest, None, None, None) for run in others])
    # The others' lines as they were (the text read back, not made again); the added run's gone.
    assert entries(lines(path)) == {line for line in entries(before) if added.digest not in line}
    again = StoredFigures(path, "key", LEVELS)
    for run in others:
        assert worked_out(run, again).worked_out == 0
        assert again.headlines(run.digest) == headlines(run)


def test_an_added_run_adds_its_line_and_leaves_the_others_as_they_were(runs: list[Run], tmp_path: Path) -> None:
    path = tmp_path / "figures.json"
    added, *others = runs
    kept(path, others)
    before = entries(lines(path))
    stored = StoredFigures(path, "key", LEVELS)
    stored.keep([(run.digest, worked_out(run, stored), headlines(run) if run is added else None, None) for run in runs])
    after = entries(lines(path))
    assert before < after and len(after - before) == 1 and added.digest in next(iter(after - before))


def test_a_file_of_another_layout_is_read_entry_by_entry(runs: list[Run], tmp_path: Path) -> None:
    # Written as one line (by hand or by another tool): parsed whole, each entry still checked.
    path = tmp_path / "figures.json"
    kept(path, runs)
    data = read_cache(path)
    assert data is not None
    document = json.loads(data)
    damaged, *others = runs
    document["runs"][damaged.digest]["capacity"] = [["8K", 0, 1, 2.0]]
    write_cache(path, json.dumps(document).encode())
    stored = StoredFigures(path, "key", LEVELS)
    assert stored.capacities(damaged.digest, 1) == {}
    for run in others:
        if run.digest != damaged.digest:
            assert worked_out(run, stored).worked_out == 0


@pytest.mark.parametrize("damage", ["not JSON", "wrong shape", "another key"])
def test_a_damaged_line_is_a_miss_and_the_others_are_read(runs: list[Run], tmp_path: Path, damage: str) -> None:
    path = tmp_path / "figures.json"
    kept(path, runs)
    text = lines(path)
    damaged = runs[0]
    at = next(index for index, line in enumerate(text) if damaged.digest in line)
    if damage == "not JSON":
        text[at] = f'"{damaged.digest}":{{"capacity":[[' + ("," if at < len(text) - 2 else "")
    elif damage == "wrong shape":
        text[at] = f'"{damaged.digest}":{{"capacity":[[1,99,1,1.0]],"headlines":[true]}}' \
            + ("," if at < len(text) - 2 else "")
    else:
        text[0] = text[0].replace('"key":"key"', '"key":"other"')
    write_cache(path, "\n".join(text).encode())
    stored = StoredFigures(path, "key", LEVELS)
    assert stored.capacities(damaged.digest, 1) == {} and stored.headlines(damaged.digest) is None
    if damage != "another key":
        others = [run for run in runs if run.digest != damaged.digest]
        assert all(worked_out(run, stored).worked_out == 0 for run in others)


def test_each_part_of_a_line_is_checked_on_its_own(runs: list[Run], tmp_path: Path) -> None:
    # A capacity of the wrong shape is a miss of the capacities; the run's headlines and
    # outline, checked when asked for, are still read back (what the file holds for them).
    path = tmp_path / "figures.json"
    text = kept_with_outline(path, runs)
    damaged = runs[0]
    at = next(index for index, line in enumerate(text) if damaged.digest in line)
    entry = json.loads(text[at].rstrip(",").split(":", 1)[1])
    entry["capacity"] = [[1, 99, 1, 1.0]]  # a service level the file's settings do not have
    text[at] = f'"{damaged.digest}":{json.dumps(entry)}' + ("," if at < len(text) - 2 else "")
    write_cache(path, "\n".join(text).encode())
    stored = StoredFigures(path, "key", LEVELS)
    assert stored.capacities(damaged.digest, 1) == {}
    assert stored.headlines(damaged.digest) == headlines(damaged)
    assert stored.outline(damaged.digest) == OUTLINE
    entry["outline"] = [[1], [2]]  # two parts, not three
    text[at] = f'"{damaged.digest}":{json.dumps(entry)}' + ("," if at < len(text) - 2 else "")
    write_cache(path, "\n".join(text).encode())
    assert StoredFigures(path, "key", LEVELS).outline(damaged.digest) is None


def test_an_outline_is_read_from_the_end_of_its_line_alone(runs: list[Run], tmp_path: Path) -> None:
    # A group page asks only for outlines: read from where keep writes them (last), without
    # parsing the capacities before them. So a line whose capacities are damaged still gives its
    # outline, and its capacities are a miss; an outline written elsewhere in an entry (by hand)
    # is read from the whole entry; one of the wrong shape at the end is a miss, never a figure.
    path = tmp_path / "figures.json"
    text = kept_with_outline(path, runs)
    cut, moved, bent = runs[0], runs[1], runs[2]

    def rewrite(run: Run, entry_text: str) -> None:
        at = next(index for index, line in enumerate(text) if run.digest in line)
        text[at] = f'"{run.digest}":{entry_text}' + ("," if at < len(text) - 2 else "")

    def entry_of(run: Run) -> dict[str, object]:
        line = next(line for line in text if run.digest in line)
        return dict(json.loads(line.rstrip(",").split(":", 1)[1]))

    rewrite(cut, '{"capacity":[[8192,0,' + ',"outline":' + json.dumps([list(part) for part in OUTLINE]) + "}")
    moved_entry = entry_of(moved)
    rewrite(moved, json.dumps({"outline": moved_entry["outline"], "capacity": moved_entry["capacity"]}))
    bent_entry = entry_of(bent)
    rewrite(bent, json.dumps({**bent_entry, "outline": [[1], [2], ["3"]]}))
    write_cache(path, "\n".join(text).encode())
    stored = StoredFigures(path, "key", LEVELS)
    assert stored.outline(cut.digest) == OUTLINE
    assert stored.capacities(cut.digest, 1) == {} and stored.headlines(cut.digest) is None
    assert stored.outline(moved.digest) == OUTLINE
    assert stored.outline(bent.digest) is None
    assert stored.headlines(bent.digest) == headlines(bent)
