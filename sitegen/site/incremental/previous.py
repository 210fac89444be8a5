"""The last build, as this one uses it: the one object through which a build skips work.

A build asks it whether the site is unchanged (``unchanged_site``: then it stops there),
stages in the spare it left (``stage``), keeps what is as it was (``keep_unchanged`` for many
entries at once, ``reuse`` for one), patches a run page whose links alone changed (``patch``),
records each page's key and files as it goes (``record``), and leaves the record for the next
build (``save``). The build itself then reads as plan → render or keep → write.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from itertools import chain
from pathlib import Path

from sitegen.errors import SitegenError
from sitegen.files import MAX_STATE_BYTES, read_bounded
from sitegen.site.incremental.joined import Joined, JoinedFiles
from sitegen.site.incremental.manifest import BuildRecord, Entries, Manifest
from sitegen.site.incremental.spare import Spare
from sitegen.site.output.staging import MARKER, StagedOutput

# Each half of a two-part key (plan.KEY_HALF): the first 128 bits of a sha256.
KEY_HALF = 32

Found = dict[str, os.stat_result | None]


class Previous:
    """The last build's manifest and site (``old_site``), and this build's record
    (``entries``: each page's or data file's key and files, by its path)."""

    def __init__(self, manifest: Manifest, old_site: Path) -> None:
        self.manifest = manifest
        self.old_site = old_site
        self.entries: Entries = {}
        self._output: StagedOutput | None = None
        self._deferred: set[str] = set()  # kept at once by keep_deferred
        # The data files joined from pieces, spliced from the last build's (joined.Joined).
        self.joined = JoinedFiles(manifest.path.with_name("joined.json"))

    @property
    def output(self) -> StagedOutput:
        """The staged site of this build (``stage``)."""
        assert self._output is not None, "stage() first"
        return self._output

    @property
    def groups(self) -> dict[str, str]:
        """Each group's digest as the last build's plan left it (plan.PlanMemory)."""
        return self.manifest.groups

    def key(self, path: str) -> str | None:
        """The key the last build gave the page at ``path``, if it planned one."""
        return self.manifest.key(path)

    def unchanged_site(self, inputs: str) -> bool:
        """Whether the last build was made from exactly ``inputs`` and its site is in place."""
        return self.manifest.unchanged_site(inputs, self.old_site)

    def summary(self) -> tuple[int, int, int]:
        """The pages, charts and files the last build counted."""
        page_count, chart_count, file_count = self.manifest.summary
        return page_count, chart_count, file_count

    def stage(self, spare: Path) -> StagedOutput:
        """Start this build's site: with a manifest to go by, only changed files are staged and
        the others kept; the spare the last build left (the site before last, brought up to
        date) is the staging folder's head start."""
        self._output = StagedOutput(
            self.old_site,
            in_place=bool(self.manifest.entries),
            spare=Spare(spare, self.manifest.previous_site()),
        )
        return self._output

    def recorded(self, path: str) -> bool:
        """Whether this build has recorded ``path`` already."""
        return path in self.entries

    def record(self, path: str, key: str, files: list[str]) -> None:
        """Record that ``path`` has ``key`` in this build and stands for ``files``."""
        self.entries[path] = (key, files)

    def keep_unchanged(self, wanted: dict[str, str]) -> set[str]:
        """When the build stages in a spare that holds the previous site (StagedOutput.trusted),
        take every entry of ``wanted`` (its path → its key now) whose key is the one the last
        build recorded, with its files, at once; return their paths (none without such a spare).

        Why: an added run leaves nearly every page and export as it was, and taking each on its
        own (``reuse``) costs a lookup and a system call a file. A file another entry took
        already (a chart several pages show) is not taken again."""
        output = self.output
        if not output.trusted:
            return set()
        recorded = self.manifest.entries
        same = {
            path: entry
            for path, key in wanted.items()
            if key and (entry := recorded.get(path)) is not None and entry[0] == key
        }  # (no key: always made)
        output.keep_all(
            {name for _, entry_files in same.values() for name in entry_files} - output.written
        )
        self.entries.update(same)
        return set(same)

    def reuse(self, path: str, key: str, defer: bool = False) -> list[str] | None:
        """Keep the files the last build recorded for ``path`` when its key is ``key`` and they
        are all still in place, and record them; their names, or None when they must be made.
        ``defer``: files of a trusted spare are taken at once by ``keep_deferred``."""
        output = self.output
        found = self.manifest.reusable(path, key, self.old_site, output.trusted) if key else None
        if found is None:
            return None
        if defer and output.trusted:
            self._deferred.update(found)
        else:
            for name, status in found.items():
                if name not in output.written:  # a chart may belong to several pages
                    output.keep(name, status)
        names = list(found)
        self.record(path, key, names)
        return names

    def keep_deferred(self) -> None:
        """Take the files ``reuse`` deferred, at once."""
        self.output.keep_all(self._deferred)
        self._deferred = set()

    def write_or_keep(self, path: str, key: str, make: Callable[[], bytes]) -> None:
        """Keep the file at ``path`` when its key is ``key`` as before, else write ``make()``."""
        files = (
            self.manifest.reusable(path, key, self.old_site, self.output.trusted) if key else None
        )
        if files and path in files:
            self.output.keep(path, files[path])
        else:
            self.output.write(path, make())
        self.record(path, key, [path])

    def write_or_splice(self, path: str, key: str, make: Callable[[], Joined]) -> None:
        """``write_or_keep`` for a data file joined from pieces: when its key changed, spliced
        from the last build's file (JoinedFiles.make), only its changed pieces made."""
        self.write_or_keep(path, key, lambda: self.joined.make(path, self.old_site, make()))

    def patch(
        self, path: str, key: str, patch: Callable[[bytes], bytes | None] | None
    ) -> bytes | None:
        """The page at ``path`` made by ``patch`` from the one the last build wrote, when only
        the second half of its key changed and that page is still a plain file of the site;
        else None.

        Why: adding a run changes only the links of the run pages beside it; putting the new
        links in place of the old ones costs a small part of making each page anew. The last
        build's page is believed as a page it kept would be (manifest.all_in_place)."""
        entry = self.manifest.entries.get(path)
        if (
            patch is None
            or entry is None
            or entry[0] == key
            or entry[0][:KEY_HALF] != key[:KEY_HALF]
            or list(entry[1]) != [path]
        ):
            return None
        try:
            page = read_bounded(self.old_site / path, MAX_STATE_BYTES, what="a page of the site")
        except (OSError, SitegenError):
            return None
        return patch(page)

    def forget(self) -> None:
        """Drop the last build's record while the site changes: a crash costs a full build."""
        self.manifest.forget()

    def unnamed_files(self) -> list[str]:
        """The files this build wrote that no entry names (assets, schemas), by set operations."""
        named: Iterable[str] = chain.from_iterable(files for _, files in self.entries.values())
        return sorted(self.output.written - set(named) - {MARKER})

    def save(
        self, inputs: str, summary: tuple[int, int, int], cache: Path, groups: dict[str, str]
    ) -> None:
        """After commit: leave the spare as the new site's mirror and record this build for the
        next one (``cache``: a folder to read the file system's clock in)."""
        output = self.output
        others = self.unnamed_files()
        spare_folders = output.refresh_spare(cache)
        self.manifest.save(
            BuildRecord(
                entries=self.entries,
                inputs=inputs,
                summary=summary,
                other_files=others,
                output_dir=self.old_site,
                clock=cache,
                spare_folders=spare_folders,
                layout=output.layout(),
                known=output.known_folders(),
                groups=groups,
            )
        )
        self.joined.save(self.old_site, cache)
