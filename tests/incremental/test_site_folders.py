"""A site's folders worked out from the last site's and what changed (site_folders.changed_folders)
are the folders worked out anew, here by walking a real tree of those files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitegen.files import file_system_now
from sitegen.site.incremental.folder_records import (
    all_plain_relative,
    changed_folders,
    folders_of,
    plain_relative,
    record,
)

# Names over a small alphabet, so that trees share folders and a name is a file in one and a
# folder in the other.
names = st.lists(st.sampled_from("abc"), min_size=1, max_size=4).map("/".join)
trees = st.sets(names, max_size=12).map(
    lambda found: {n for n in found if not any(o.startswith(n + "/") for o in found)}
)


def _walked(files: set[str], root: Path) -> dict[str, set[str]]:
    """Every folder of a tree of ``files`` made on disk, with what it holds, read by os.walk."""
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"")
    found = {}
    for folder, subfolders, leaves in os.walk(root):
        relative = Path(folder).relative_to(root).as_posix()
        found["" if relative == "." else relative] = set(subfolders) | set(leaves)
    return found


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(before=trees, after=trees)
def test_the_folders_of_a_changed_site_are_its_folders(
    before: set[str], after: set[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    earlier = folders_of(before)
    assert earlier is not None
    copy = {folder: set(held) for folder, held in earlier.items()}
    changed = changed_folders(earlier, before, after)
    assert changed == folders_of(after) == _walked(after, tmp_path_factory.mktemp("tree"))
    assert earlier == copy  # the last site's folders are left as they were


def test_a_name_that_would_leave_the_site_is_refused() -> None:
    earlier = folders_of({"a/b.html"})
    assert earlier is not None
    assert changed_folders(earlier, {"a/b.html"}, {"a/b.html", "../c.html"}) is None


# Names made of the pieces that make a name leave its folder or repeat another's: empty, "." and
# ".." parts, a leading or doubled "/", a NUL; and harmless look-alikes ("..a", ".b.").
risky_names = st.lists(
    st.sampled_from(["a", "..a", ".b.", "", ".", "..", "\0", "c\0"]), min_size=1, max_size=4
).map("/".join) | st.sampled_from(["/a", "a/", "//", "/", "a//b"])


def _plain(name: str) -> bool:
    """A plain relative name, read from its parts: not empty, no NUL, no empty, "." or ".." part."""
    return (
        bool(name)
        and "\0" not in name
        and all(part not in ("", ".", "..") for part in name.split("/"))
    )


@settings(max_examples=500, deadline=None)
@given(found=st.lists(risky_names, max_size=6))
def test_names_checked_all_at_once_are_checked_as_one_by_one(found: list[str]) -> None:
    assert [plain_relative(name) for name in found] == [_plain(name) for name in found]
    assert all_plain_relative(found) == all(_plain(name) for name in found)
    assert (folders_of(found) is None) == (not all(_plain(name) for name in found))


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(before=trees, after=trees)
def test_every_folder_a_change_touches_is_above_a_changed_name(
    before: set[str], after: set[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Read on disk: the folders whose identity (files.identity) changes when the files of
    ``before`` become those of ``after`` are all among folders_above of the names added or
    removed (files replaced in place count as both), so unchanged_since keeps no stale identity."""
    from sitegen import files
    from sitegen.site.incremental.folder_records import folders_above, unchanged_since

    root = tmp_path_factory.mktemp("tree")
    _walked(before, root)
    earlier = folders_of(before)
    assert earlier is not None
    # Past the clock's tick: a change from here on shows in the change time.
    assert files.file_system_now(root.parent / f"{root.name}-clock", after_tick=True) is not None
    identities = {folder: files.identity(os.lstat(root / folder)) for folder in earlier}
    for name in sorted(before - after, key=lambda n: -n.count("/")):
        (root / name).unlink()
    for folder in sorted(set(earlier) - set(folders_of(after) or {}), key=lambda n: -n.count("/")):
        (root / folder).rmdir()
    for name in sorted(after):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"new")  # a name in both is written anew: the build's ``fresh``
    changed = (before ^ after) | (before & after)
    touched = {
        folder
        for folder, identity in identities.items()
        if not (root / folder).is_dir() or files.identity(os.lstat(root / folder)) != identity
    }
    assert touched <= folders_above(changed)
    kept = unchanged_since(identities, changed)
    assert all(
        files.identity(os.lstat(root / folder)) == identity for folder, identity in kept.items()
    )


def test_a_record_takes_the_identities_it_is_given_and_looks_at_the_other_folders(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    for folder in ("a", "b/c"):
        (site / folder).mkdir(parents=True)
    # The clock read in a folder of its own (reading it makes a file there), after every folder
    # above.
    now = file_system_now(tmp_path / "clock", after_tick=True)
    given = {
        "a": (1, 2, 3, 4, 5),
        "gone": (6, 7, 8, 9, 10),
    }  # "a" is not as on disk; "gone" not in the tree
    made = record(str(site), ["", "a", "b", "b/c"], now, given)
    assert list(made) == ["", "a", "b", "b/c"]
    assert made["a"] == (1, 2, 3, 4, 5)  # taken as given, not looked at
    for folder in ("", "b", "b/c"):
        found = os.lstat(site / folder)
        assert made[folder] == (
            found.st_dev,
            found.st_ino,
            found.st_size,
            found.st_mtime_ns,
            found.st_ctime_ns,
        )
    # Without a clock nothing looked at is settled: those folders are in doubt (None), the given
    # kept.
    assert record(str(site), ["a", "b"], None, given) == {"a": (1, 2, 3, 4, 5), "b": None}
