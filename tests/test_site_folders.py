"""A site's folders worked out from the last site's and what changed (site_folders.changed_folders)
are the folders worked out anew, here by walking a real tree of those files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitegen.site.site_folders import all_plain_relative, changed_folders, folders_of, plain_relative

# Names over a small alphabet, so that trees share folders and a name is a file in one and a
# folder in the other.
names = st.lists(st.sampled_from("abc"), min_size=1, max_size=4).map("/".join)
trees = st.sets(names, max_size=12).map(lambda found: {n for n in found if not any(o.startswith(n + "/") for o in found)})


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


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=trees, after=trees)
def test_the_folders_of_a_changed_site_are_its_folders(before: set[str], after: set[str],
                                                       tmp_path_factory: pytest.TempPathFactory) -> None:
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
risky_names = st.lists(st.sampled_from(["a", "..a", ".b.", "", ".", "..", "\0", "c\0"]), min_size=1, max_size=4) \
    .map("/".join) | st.sampled_from(["/a", "a/", "//", "/", "a//b"])


def _plain(name: str) -> bool:
    """A plain relative name, read from its parts: not empty, no NUL, no empty, "." or ".." part."""
    return bool(name) and "\0" not in name and all(part not in ("", ".", "..") for part in name.split("/"))


@settings(max_examples=500, deadline=None)
@given(found=st.lists(risky_names, max_size=6))
def test_names_checked_all_at_once_are_checked_as_one_by_one(found: list[str]) -> None:
    assert [plain_relative(name) for name in found] == [_plain(name) for name in found]
    assert all_plain_relative(found) == all(_plain(name) for name in found)
    assert (folders_of(found) is None) == (not all(_plain(name) for name in found))
