"""The spare (``.sitegen/build/spare``): the site a swap replaced, kept and brought up to date as
a mirror of the new site, so that the next incremental build stages in it.

Its folders exist and its files are the live site's (hard links), so a build that changes a few
pages makes a few file-system changes, not one per file of the site, and looks at none of the
files it keeps. The spare is only a head start: whatever it holds is checked against the last
build's record or the previous site, never published as it is. The staging folder and the
atomic swap are output.staging's; this module says what the spare holds and keeps it a mirror.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from sitegen import files
from sitegen.site.incremental.folder_records import Record, holds_exactly, record, unchanged_since


@dataclass(frozen=True)
class PreviousSite:
    """What the last build left, from its manifest: every file of its site and its folders, and
    the record (folder_records) of the site's folders and of the spare's (empty when it left no
    mirror)."""

    files: set[str]
    layout: dict[str, set[str]] | None  # folder_records.folders_of(files), worked out once
    folders: Record
    spare_folders: Record


@dataclass
class SpareContents:
    """What a spare taken as the staging folder holds: its files and folders (each replaced,
    made the previous site's file again, or removed before the swap), and whether they are
    known to be exactly the previous site's (``trusted``: kept without looking at them)."""

    stale: set[str] = field(default_factory=set)
    stale_folders: set[str] = field(default_factory=set)
    trusted: bool = False
    standing: Record = field(default_factory=dict)  # its folders found as last recorded


class Spare:
    """The spare at ``path`` and what the last build left there (``previous``), through one
    build: taken as its staging folder (``take``), then left as the new site's mirror, either
    as a copy of a site staged anew (``mirror``) or as the replaced site (``set_aside``) brought
    up to date (``refresh``)."""

    def __init__(self, path: Path, previous: PreviousSite | None) -> None:
        self.path = path
        self.previous = previous
        # What commit left at ``path``: "copy" (this build's files), "previous" (the site it
        # replaced), or None (nothing); refresh makes either the new site's mirror.
        self.left: str | None = None
        self._aside_standing: Record = {}  # see refresh

    def take(self, staging: Path, output_dir: Path) -> SpareContents | None:
        """Move the spare onto the empty folder ``staging`` (one rename); what it holds, or None
        when it cannot be taken (none, a link, another device).

        Why: staging a complete tree in a new folder makes every folder and links every file,
        and deleting the old tree after the swap removes as many again, for a build that
        changes a few files. Nothing is ever written into an existing file of the spare (it may
        be shared with the live site): every name it held is unlinked before its file is
        written or linked."""
        spare = self.path
        try:
            if (
                not spare.is_dir()
                or spare.is_symlink()
                or os.stat(spare).st_dev != os.stat(staging).st_dev
            ):
                return None
            os.rename(spare, staging)  # onto the empty folder mkdtemp made: one step
        except OSError:
            return None
        mirror = self._as_mirror(staging, output_dir)
        return mirror if mirror is not None else _listed(staging)

    def _as_mirror(self, staging: Path, output_dir: Path) -> SpareContents | None:
        """What the spare holds when it is the mirror the last build left (refresh): exactly the
        site's files, each the site's very file (inode); None when that is not known.

        Told as manifest.Manifest.unchanged_site tells the live site's state (folder_records):
        each folder with the identity the last build recorded holds what it held then; any
        other is listed, and the inodes of its files are compared with the live site's."""
        previous = self.previous
        folders = previous.layout if previous is not None and previous.spare_folders else None
        if previous is None or folders is None:
            return None
        try:  # inodes tell files apart only on one device
            if os.stat(output_dir).st_dev != os.stat(staging).st_dev:
                return None
        except OSError:
            return None
        standing = holds_exactly(
            str(staging),
            previous.files,
            folders,
            previous.spare_folders,
            same_as=(str(output_dir), previous.files),
        )
        if standing is None:
            return None
        stale_folders = {folder for folder in folders if folder}
        return SpareContents(set(previous.files), stale_folders, True, standing)

    def mirror(self, staging: Path, written: set[str]) -> bool:
        """Make the spare a copy of the staged site in hard links; False when it cannot be (a
        spare cut short is harmless: whatever it lacks is linked by the build that uses it)."""
        spare = self.path
        try:
            _remove(spare)
            made: set[str] = set()
            for name in sorted(written):
                folder = os.path.dirname(name)
                if folder not in made:
                    os.makedirs(os.path.join(spare, folder), exist_ok=True)
                    made.add(folder)
                os.link(
                    os.path.join(staging, name), os.path.join(spare, name), follow_symlinks=False
                )
        except OSError:
            return False
        self.left = "copy"
        return True

    def set_aside(self, replaced: Path) -> bool:
        """Keep the replaced site as the spare instead of deleting it; False when it cannot be
        (then the caller deletes it)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _remove(self.path)
            os.rename(replaced, self.path)
        except OSError:
            return False
        self.left = "previous"
        return True

    def refresh(self, site: SiteMade, clock: Path) -> Record:
        """After commit: make the spare the new site's mirror (its files, as links to the very
        files of the site just put in place), and return the spare's record (folder_records)
        for the next build's ``take``; empty when it is not known to be one (the next build then
        lists it). ``clock``: a folder to read the file system's clock in.

        A replaced site is brought up to date with what this build changed once it is known to
        be still exactly that site, by the last build's record of its folders: a file a
        stranger put in the live site must not reach the mirror unchecked."""
        if self.left is None or site.layout is None:
            return {}
        spare = str(self.path)
        try:
            if self.left == "previous" and not self._bring_up_to_date(spare, site):
                return {}
            # The folders of the previous site found as the last build recorded them: what this
            # build changed in them shows as changed, as it must.
            now = files.file_system_now(clock, after_tick=True)
            return record(spare, site.layout, now, self._aside_standing)
        except OSError:
            return {}  # a spare cut short is only a head start for the next build, which lists it

    def _bring_up_to_date(self, spare: str, site: SiteMade) -> bool:
        """Make the previous site at ``spare`` the site just made; False when it is not known to
        be exactly the previous site. Raises OSError."""
        previous = self.previous
        before = previous.layout if previous is not None and previous.folders else None
        if previous is None or before is None or site.layout is None:
            return False
        after, live = site.layout, str(site.output_dir)
        # A file this build kept is the previous site's file; in a folder changed since the last
        # build recorded it, each must still be the one the new site has.
        standing = holds_exactly(
            spare,
            previous.files,
            before,
            previous.folders,
            same_as=(live, site.written - site.fresh),
        )
        if standing is None:
            return False
        gone_files = previous.files - site.written
        gone_folders = set(before) - set(after)
        self._aside_standing = unchanged_since(standing, gone_files | gone_folders | site.fresh)
        for name in sorted(gone_files):
            os.unlink(f"{spare}/{name}")
        for folder in sorted(gone_folders, key=lambda name: -name.count("/")):  # deepest first
            shutil.rmtree(f"{spare}/{folder}")
        present = set(before) & set(after)
        for name in sorted(site.fresh):
            target = f"{spare}/{name}"
            if name in previous.files:
                os.unlink(target)  # never written into: the file is the live site's too
            folder = name.rpartition("/")[0]
            if folder not in present:
                os.makedirs(f"{spare}/{folder}", exist_ok=True)
                present.add(folder)
            os.link(f"{live}/{name}", target, follow_symlinks=False)
        return True


@dataclass(frozen=True)
class SiteMade:
    """The site a build put in place, as the spare is brought up to date with it: its folder,
    every file it has (``written``), those written anew (``fresh``) and its folders."""

    output_dir: Path
    written: set[str]
    fresh: set[str]
    layout: dict[str, set[str]] | None


def _listed(staging: Path) -> SpareContents:
    """What a spare not known to be the mirror holds, listed: one scandir per folder (os.walk
    would also stat every folder again to tell a link from a folder)."""
    contents = SpareContents()
    pending = [("", str(staging))]
    while pending:
        prefix, folder = pending.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        contents.stale_folders.add(prefix + entry.name)
                        pending.append((prefix + entry.name + "/", entry.path))
                    else:  # a file, or a link (to a file or a folder: never followed)
                        contents.stale.add(prefix + entry.name)
        except OSError:
            # as os.walk does: a folder that cannot be listed is only removed (_remove_stale)
            continue
    return contents


def _remove(path: Path) -> None:
    """Remove whatever is at ``path`` (a folder, a file or a link). Raises OSError."""
    if os.path.lexists(path):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            os.unlink(path)
