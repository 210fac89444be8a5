"""What the last build wrote (``.sitegen/build/manifest.json``): each planned page's key and the
files that key stands for, what the build was made from, and the record of its site's folders
(folder_records) and of the spare it left (spare.Spare.refresh).

The file is JSON made of flat lists: a page whose one file is the page itself (most entries)
is two strings of ``pages`` (its path, its key), and a folder's identity six items of
``folders`` (its name and the five numbers, or five nulls). Read, a list of strings is one scan
of the parser and one type test per item; an object per entry and per folder, as version 1
had, was a large part of a build that adds one run (docs/performance-log.md).

The file is not trusted: anything of the wrong shape, of another version or of other code
(``fingerprint``) is no manifest at all, and the build is a full one.
"""

from __future__ import annotations

import contextlib
import json
import operator
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain, compress, repeat
from pathlib import Path
from typing import Any, TypeGuard

from sitegen import files as file_identity
from sitegen.errors import SitegenError
from sitegen.files import MAX_STATE_BYTES, read_bounded
from sitegen.site.incremental.folder_records import (
    Record,
    folders_of,
    holds_exactly,
    plain_relative,
    record,
)
from sitegen.site.incremental.spare import PreviousSite
from sitegen.site.output.staging import MARKER
from sitegen.store import state_json, write_atomic

MANIFEST_VERSION = 2

# A planned page's key and the files it stands for (the page, its charts; a folder of files for
# an entry such as data/points/<model>/), by the page's path.
Entry = tuple[str, Sequence[str]]
Entries = dict[str, Entry]

_NO_IDENTITY = (None,) * 5  # how a folder recorded as None (folder_records.record) is written


def _strings(value: Any) -> TypeGuard[list[str]]:
    return isinstance(value, list) and file_identity.all_of_types(value, str)


def _entries_of(pages: Any, others: Any) -> Entries | None:
    """The entries of a version-2 document, or None when either part has the wrong shape."""
    if not _strings(pages) or len(pages) % 2 or not isinstance(others, dict):
        return None
    paths = pages[0::2]
    # (zip(paths) gives each path as a tuple of its one file; all of it without a Python loop.)
    entries: Entries = dict(zip(paths, zip(pages[1::2], zip(paths), strict=True), strict=True))
    for path, entry in others.items():
        if not _strings(entry) or not entry:
            return None
        entries[path] = (entry[0], entry[1:])
    return entries


def _record_of(flat: Any) -> Record | None:
    """A folder record from its flat form (name, then five integers or five nulls, a folder
    after another), or None when it has another shape. Checked a column at a time: one entry
    a folder of the site."""
    if not isinstance(flat, list) or len(flat) % 6 or not _strings(flat[0::6]):
        return None
    columns = [flat[at::6] for at in range(1, 6)]
    if not file_identity.all_of_types(chain.from_iterable(columns), int, type(None)):
        return None
    names = flat[0::6]
    identities: list[Any] = list(zip(*columns, strict=True))
    found: Record = dict(zip(names, identities, strict=True))
    # The folders recorded as None (five nulls; any other identity holding one is no record):
    # found without a Python step per folder, which would be most of reading them.
    for at in compress(range(len(identities)), map(operator.contains, identities, repeat(None))):
        if identities[at] != _NO_IDENTITY:
            return None
        found[names[at]] = None  # (a name twice, in doubt either time, is listed: never trusted)
    return found


def _flat_record(folders: Record) -> list[Any]:
    """``folders`` in the flat form _record_of reads, a column at a time as it reads it."""
    flat: list[Any] = [None] * (6 * len(folders))
    flat[0::6] = folders
    rows = [identity if identity is not None else _NO_IDENTITY for identity in folders.values()]
    for at, column in enumerate(zip(*rows, strict=True), start=1):
        flat[at::6] = column
    return flat


def all_in_place(
    names: Sequence[str], output_dir: Path, spare_has_them: bool = False
) -> dict[str, os.stat_result | None] | None:
    """Each name with its file, when every one is a plain file inside ``output_dir``; else None
    (the names come from the manifest, which is not trusted: one that would leave the folder
    counts as missing). The files are looked at here once: StagedOutput.keep takes them so.

    ``spare_has_them``: the build stages in a spare that holds the previous site's files
    (StagedOutput.trusted), so none is looked at (each name comes with None), nor checked again:
    the spare is trusted only when every name of the manifest is plain (site_files' folders)."""
    if spare_has_them:
        return dict.fromkeys(names)
    folder = str(output_dir) + "/"  # (joined by hand: os.path.join costs more than the lstat)
    found: dict[str, os.stat_result | None] = {}
    for name in names:
        if not plain_relative(name):
            return None
        try:
            status = os.lstat(folder + name)
        except (OSError, ValueError):
            return None
        if not stat.S_ISREG(status.st_mode):  # a link is not a file here
            return None
        found[name] = status
    return found


class Manifest:
    """What the previous build wrote: page keys and the files each key stands for, and what it
    was built from (``inputs``) with the summary it printed."""

    def __init__(self, path: Path, fingerprint: str) -> None:
        self.path = path
        self.fingerprint = fingerprint
        self.entries: Entries = {}
        self.inputs = ""
        self.summary: list[int] = []
        self.other_files: list[
            str
        ] = []  # written by every build, outside the entries: assets, schemas
        self._site: tuple[set[str], dict[str, set[str]] | None] | None = None  # see site_files
        # Each folder of the last build's site as it was left (folder_records.record), and of the
        # spare it left as the site's mirror (empty when it left none: spare.Spare.refresh).
        self.folders: Record = {}
        self.spare_folders: Record = {}
        # Each group's digest as the last build's plan left it (plan.PlanMemory).
        self.groups: dict[str, str] = {}
        try:
            document = json.loads(read_bounded(path, MAX_STATE_BYTES))
        except (OSError, ValueError, SitegenError):
            return
        # Hand-edited or cut short: any doubt makes this a full build, never a traceback.
        if (
            not isinstance(document, dict)
            or document.get("version") != MANIFEST_VERSION
            or document.get("fingerprint") != fingerprint
        ):
            return
        entries = _entries_of(document.get("pages"), document.get("entries"))
        if entries is None:
            return
        self.entries = entries
        inputs, summary, others = (
            document.get("inputs"),
            document.get("summary"),
            document.get("other_files"),
        )
        if (
            isinstance(inputs, str)
            and isinstance(summary, list)
            and len(summary) == 3
            and all(type(count) is int and count >= 0 for count in summary)
            and _strings(others)
        ):
            self.inputs, self.summary, self.other_files = inputs, summary, others
        groups = document.get("groups")
        if isinstance(groups, dict) and file_identity.all_of_types(groups.values(), str):
            self.groups = groups
        folders = _record_of(document.get("folders"))
        if folders is not None:
            self.folders = folders
            self.spare_folders = _record_of(document.get("spare_folders")) or {}

    def reusable(
        self, path: str, key: str, output_dir: Path, spare_has_them: bool = False
    ) -> dict[str, os.stat_result | None] | None:
        """The files of an unchanged entry (each with its file as found), when all of them are
        still plain files in the previous site (a name that would leave it means the manifest is
        not sitegen's: rebuild); ``spare_has_them``: see all_in_place."""
        entry = self.entries.get(path)
        if entry is None or entry[0] != key:
            return None
        return all_in_place(entry[1], output_dir, spare_has_them)

    def key(self, path: str) -> str | None:
        """The key the last build gave the page at ``path``, if it planned one."""
        entry = self.entries.get(path)
        return entry[0] if entry is not None else None

    def site_files(self) -> tuple[set[str], dict[str, set[str]] | None]:
        """Every file of the last build's site, and its folders (folder_records.folders_of):
        worked out once, for the unchanged check and then for the staging."""
        if self._site is None:
            names = {MARKER, *self.other_files}
            for _, entry_files in self.entries.values():
                names.update(entry_files)
            self._site = (names, folders_of(names))
        return self._site

    def previous_site(self) -> PreviousSite | None:
        """What an incremental build stages from (spare.Spare); None without a manifest."""
        if not self.entries:
            return None
        names, layout = self.site_files()
        return PreviousSite(names, layout, self.folders, self.spare_folders)

    def forget(self) -> None:
        """Drop the manifest while the site changes, so a crash can only cost a full build."""
        with contextlib.suppress(OSError):
            self.path.unlink(missing_ok=True)

    def unchanged_site(self, inputs: str, output_dir: Path) -> bool:
        """True when the last build was made from exactly ``inputs`` and the output folder holds
        exactly its files: every one still a plain file, and none besides them. Told folder by
        folder from the identities the last build recorded, not by a walk of the site (a system
        call a file): see folder_records."""
        if not self.inputs or self.inputs != inputs or not self.folders:
            return False
        names, folders = self.site_files()
        return (
            folders is not None
            and holds_exactly(str(output_dir), names, folders, self.folders) is not None
        )

    def save(self, build: BuildRecord) -> None:
        """Record ``build`` for the next build; its folders are recorded for the next build's
        unchanged check only when it names the site's folder and a clock (without them, the
        next build cannot stop early)."""
        folders = _folders_of(build)
        entries = build.entries
        pages: list[str] = []
        others: dict[str, list[str]] = {}
        for path, (key, entry_files) in entries.items():
            if len(entry_files) == 1 and entry_files[0] == path:
                pages += (path, key)
            else:
                others[path] = [key, *entry_files]
        document = {
            "version": MANIFEST_VERSION,
            "fingerprint": self.fingerprint,
            "pages": pages,
            "entries": others,
            "inputs": build.inputs,
            "summary": list(build.summary),
            "other_files": build.other_files,
            "folders": _flat_record(folders),
            "spare_folders": _flat_record(build.spare_folders),
            "groups": build.groups,
        }
        with contextlib.suppress(OSError):  # without a manifest the next build is simply a full one
            write_atomic(self.path, state_json(document, sort_keys=True))


@dataclass(frozen=True)
class BuildRecord:
    """What a build leaves for the next one (Manifest.save).

    ``entries``: each page's or data file's key and files; ``inputs``: the digest of what it was
    built from; ``summary``: its pages, charts and files; ``other_files``: files written by every
    build, outside the entries (assets, schemas); ``output_dir``: the site just put in place;
    ``clock``: a folder to read the file system's clock in (files.file_system_now);
    ``spare_folders``: the record of the spare left as the site's mirror, if any; ``layout``: the
    site's folders (folder_records.folders_of), when the caller has them; ``known``: identities
    its folders were checked to have (folder_records.record); ``groups``: each group's digest as
    this build's plan left it (plan.PlanMemory)."""

    entries: Entries
    inputs: str = ""
    summary: tuple[int, int, int] = (0, 0, 0)
    other_files: list[str] = field(default_factory=list)
    output_dir: Path | None = None
    clock: Path | None = None
    spare_folders: Record = field(default_factory=dict)
    layout: dict[str, set[str]] | None = None
    known: Record | None = None
    groups: dict[str, str] = field(default_factory=dict)


def _folders_of(build: BuildRecord) -> Record:
    """The record of the site's folders as ``build`` left them (empty without its folder)."""
    if build.output_dir is None or build.clock is None:
        return {}
    now = file_identity.file_system_now(build.clock, after_tick=True)  # before any folder is read
    layout = build.layout
    if layout is None:
        names = {
            MARKER,
            *build.other_files,
            *(name for _, entry_files in build.entries.values() for name in entry_files),
        }
        layout = folders_of(names)
    return record(str(build.output_dir), layout or {}, now, build.known)
