"""What the folders of a built tree held when a build left them, told without listing them.

A build records each folder's identity (files.identity: inode, size, modification and change
times) once it is done with it. A later build that finds a folder with the identity it recorded
knows the folder holds the same names as then: adding, removing, renaming or replacing an entry
(by a link, a folder) changes its folder's modification time. A folder changed too recently to
be told from a later change in the same clock tick (files.settled) is recorded as None; it, and
any folder whose identity differs, is listed and its entries checked one by one.

Why: a large site has tens of thousands of folders and more files. Looking at each folder once
is a fraction of listing each one and looking at every file. Two trees are recorded so: the live
site (manifest.Manifest.unchanged_site: may a build stop early?) and the spare kept as its mirror
(spare.Spare.take: may a build keep the spare's files without looking at each?).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable

from sitegen import files as file_identity

# Each folder of a tree ("" for its root) with its identity as JSON keeps it, or None.
Record = dict[str, file_identity.Identity | None]
_NO_NAMES: frozenset[str] = frozenset()


def plain_relative(name: str) -> bool:
    """Whether ``name`` is a path inside a folder written the one way (``a/b.html``): not
    absolute, no ``..``, ``.`` or empty part, no NUL. The same test as comparing it with its
    PurePosixPath form, in a fraction of the time: a build checks every file name it keeps."""
    wrapped = f"/{name}/"  # an empty, "." or ".." part shows as "//", "/./" or "/../" in it
    return (
        bool(name)
        and "\0" not in name
        and "//" not in wrapped
        and "/./" not in wrapped
        and "/../" not in wrapped
    )


def all_plain_relative(names: list[str]) -> bool:
    """Whether every one of ``names`` is plain_relative: the same test on all of them at once
    (joined by NUL, which no plain name holds), at the speed of a few substring searches of
    one string instead of a call a name (a build checks every name of its site)."""
    if not names:
        return True
    joined = "/" + "/\0/".join(names) + "/"
    return (
        joined.count("\0") == len(names) - 1
        and "//" not in joined
        and "/./" not in joined
        and "/../" not in joined
    )


def folders_of(files: Iterable[str]) -> dict[str, set[str]] | None:
    """Every folder of the tree that holds ``files`` ("" for its root), with the names directly
    in it (files and folders); None when a name is not plain_relative (a name from a manifest,
    which is not trusted, that would leave the tree)."""
    names = list(files)
    if not all_plain_relative(names):
        return None
    folders: dict[str, set[str]] = {"": set()}
    for name in names:
        _add(folders, name)
    return folders


def _add(folders: dict[str, set[str]], name: str) -> None:
    """Put the plain name ``name`` in ``folders`` (a folders_of), with the folders above it."""
    folder, _, leaf = name.rpartition("/")
    names = folders.get(folder)
    if names is not None:  # its parents are known already
        names.add(leaf)
        return
    folders[folder] = {leaf}
    while folder:  # each folder is named in its parent
        parent, _, leaf = folder.rpartition("/")
        known = parent in folders
        folders.setdefault(parent, set()).add(leaf)
        if known:
            break
        folder = parent


def changed_folders(
    before: dict[str, set[str]], files_before: set[str], files: set[str]
) -> dict[str, set[str]] | None:
    """folders_of(``files``), from ``before`` (folders_of(``files_before``), left as it is) and
    what changed: a build that adds a run changes a few hundred of the site's files, and a copy
    of the folders it changes is a fraction of working out every folder anew."""
    added = files - files_before
    if not all(plain_relative(name) for name in added):
        return None
    # Each folder's names are shared with ``before`` until they change, and copied then: copying
    # every folder's set costs more than the rest.
    folders = dict(before)
    copied: set[str] = set()

    def names_in(folder: str) -> set[str]:
        """The names of ``folder``, this call's own to change (a new folder's: a new set)."""
        names = folders.get(folder)
        if names is None or folder not in copied:
            copied.add(folder)
            names = folders[folder] = set(names or ())
        return names

    for name in files_before - files:
        folder, _, leaf = name.rpartition("/")
        names_in(folder).discard(leaf)
        while (
            folder and not folders[folder]
        ):  # a folder left empty is gone, and named no more above
            del folders[folder]
            folder, _, leaf = folder.rpartition("/")
            names_in(folder).discard(leaf)
    for name in added:
        folder, _, leaf = name.rpartition("/")
        # As _add places a name, each folder named in its parent, but into names_in's copies
        # (_add taking names_in would make folders_of, its main caller, slower).
        while True:
            known = folder in folders
            names_in(folder).add(leaf)
            if known or not folder:
                break
            folder, _, leaf = folder.rpartition("/")
    return folders


def folders_above(names: Iterable[str]) -> set[str]:
    """Every folder that holds one of ``names`` (plain names), directly or further up, with the
    tree's root (""): the folders whose entries changed when those names were added or removed."""
    above: set[str] = set()
    for name in names:
        folder = name.rpartition("/")[0]
        while folder not in above:
            above.add(folder)
            if not folder:
                break
            folder = folder.rpartition("/")[0]
    return above


def unchanged_since(standing: Record, changed: Iterable[str]) -> Record:
    """The identities of ``standing`` (found as recorded) of the folders not above one of the
    names ``changed`` since (added, replaced or removed): to record as they were (``record``'s
    ``known``). A changed folder's identity is read anew instead, once its change has settled;
    kept as it was, it would differ, and the next build would list the folder for nothing."""
    touched = folders_above(changed)
    return {folder: identity for folder, identity in standing.items() if folder not in touched}


def found_entry(path: str, folder: bool) -> os.stat_result | None:
    """The file (or folder) at ``path``, not following a link; None when it is missing or of
    the other kind."""
    try:
        found = os.lstat(path)
    except (OSError, ValueError):
        return None
    return (
        found if (stat.S_ISDIR(found.st_mode) if folder else stat.S_ISREG(found.st_mode)) else None
    )


def current_identity(path: str, folder: bool = False) -> file_identity.Identity | None:
    """A file's (or folder's) identity as it is now (files.identity)."""
    found = found_entry(path, folder)
    return file_identity.identity(found) if found is not None else None


def settled_identity(
    path: str, now: file_identity.Clock | None, folder: bool = False
) -> file_identity.Identity | None:
    """The identity to record: None where it was changed too recently to be told from a later
    change (files.settled), which the next build then checks instead of trusting."""
    found = found_entry(path, folder)
    return (
        file_identity.identity(found)
        if found is not None and file_identity.settled(found, now)
        else None
    )


def record(
    root: str, folders: Iterable[str], now: file_identity.Clock | None, known: Record | None = None
) -> Record:
    """The identity of each of ``folders`` of the tree at ``root``, for a later build to trust;
    ``now``: files.file_system_now, taken before any folder is looked at.

    ``known``: identities this tree's folders were found to have (what holds_exactly found
    standing). Each is kept as it is, without looking at the folder again: a folder changed
    since then has a later change time, so the next build finds it differs, lists it, and
    records it anew. Kept, an identity can cost a listing, never trust a change nobody checked."""
    # The known ones at once, without a Python step per folder (every folder of the site, twice
    # a build); only the others are looked at, one by one.
    identities: Record = dict.fromkeys(folders)
    if known:
        shared = known.keys() & identities.keys()
        identities.update(zip(shared, map(known.__getitem__, shared), strict=True))
    for folder in [folder for folder, identity in identities.items() if identity is None]:
        identities[folder] = settled_identity(
            f"{root}/{folder}" if folder else root, now, folder=True
        )
    return identities


def holds_exactly(
    root: str,
    files: set[str],
    folders: dict[str, set[str]],
    recorded: Record,
    same_as: tuple[str, set[str]] | None = None,
) -> Record | None:
    """Whether the tree at ``root`` holds exactly ``files`` (plain files) and ``folders`` (their
    folders_of: folders, not links to them), and nothing besides: when it does, the identities
    of ``recorded`` that still stand (the folders found as recorded, taken as they were), else
    None. Any other folder is listed.

    ``same_as``: another tree, and the names whose file must be the very file (the same inode)
    that tree has; checked in each folder that is listed (in one recorded as it was, the files
    are the ones it held then). The two trees must be on one device."""
    if set(folders) != set(recorded):
        return None  # recorded for other files
    try:
        if os.path.islink(root):
            return None
    except (OSError, ValueError):
        return None
    standing: Record = {}
    listed: list[str] = []
    # Each folder's identity, in one loop with no call of ours per folder: a build does this for
    # every folder twice, and a call of current_identity a folder is a large part of it.
    prefix, identity_of, is_folder = f"{root}/", file_identity.identity, stat.S_ISDIR
    for folder, identity in recorded.items():
        if identity is not None:
            try:
                found = os.lstat(prefix + folder if folder else root)
            except (OSError, ValueError):
                listed.append(folder)
                continue
            if is_folder(found.st_mode) and identity_of(found) == identity:
                standing[folder] = identity
                continue
        listed.append(folder)
    linked = same_as[1] if same_as is not None else _NO_NAMES
    for folder in sorted(listed, key=lambda name: name.count("/")):  # parents first
        path = f"{root}/{folder}" if folder else root
        inodes = lists_exactly(path, folders[folder], files, folder, linked)
        if inodes is None:
            return None
        if inodes and same_as is not None and not _same_files(inodes, same_as[0], folder):
            return None
    return standing


def lists_exactly(
    path: str,
    names: set[str],
    files: set[str],
    folder: str,
    linked: set[str] | frozenset[str] = _NO_NAMES,
) -> dict[str, int] | None:
    """Whether the folder at ``path`` holds exactly ``names``: the tree's files as plain files,
    its folders as folders (not links to them). When it does, the inode of each of its files
    that ``linked`` names (empty when none is asked for: ``is None`` tells); else None."""
    prefix = f"{folder}/" if folder else ""
    found = 0
    inodes: dict[str, int] = {}
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                found += 1
                if entry.name not in names:
                    return None  # a stray entry
                full = prefix + entry.name
                if full in files:
                    if not entry.is_file(follow_symlinks=False):
                        return None
                    if full in linked:
                        inodes[entry.name] = entry.inode()  # comes with the listing: no system call
                elif not entry.is_dir(follow_symlinks=False):
                    return None
    except OSError:
        return None
    return inodes if found == len(names) else None


def _same_files(inodes: dict[str, int], other_root: str, folder: str) -> bool:
    """Whether each file named in ``inodes`` is the very file the same folder of ``other_root``
    has (a plain file there too)."""
    other_path = f"{other_root}/{folder}" if folder else other_root
    try:
        with os.scandir(other_path) as entries:
            theirs = {
                entry.name: entry.inode()
                for entry in entries
                if entry.name in inodes and entry.is_file(follow_symlinks=False)
            }
    except OSError:
        return False
    return inodes == theirs
