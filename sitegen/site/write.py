"""Write the site: every file goes into a staging folder beside the output, which is
put in place only when the whole build succeeded, so a failed build leaves the
previous site untouched. Paths are checked so nothing lands outside the output.

A full build swaps the whole staged folder in. An incremental build (``in_place``) stages
only the files that changed, keeps the others where they are, and then moves the staged
files in one by one, old files set aside until all are in: if a move fails, every moved
file goes back, so the previous site is what remains.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from sitegen.errors import Problem, SitegenError


class StagedOutput:
    """Collects the files of one build; ``commit`` puts them in place."""

    def __init__(self, output_dir: Path, in_place: bool = False) -> None:
        self.output_dir = output_dir
        self.in_place = in_place and output_dir.is_dir()
        self.written: set[str] = set()
        self._kept: set[str] = set()  # in place: files of the previous site that stay as they are
        self._folders: set[str] = set()
        if output_dir.exists() and not output_dir.is_dir():
            raise SitegenError(Problem(str(output_dir), None, "", "exists but is not a folder; move it away or set output_dir"))
        try:
            output_dir.parent.mkdir(parents=True, exist_ok=True)
            self.staging = Path(tempfile.mkdtemp(prefix=f".{output_dir.name}.building-", dir=output_dir.parent))
            # mkdtemp makes a private (0700) folder, and a full build renames it into place:
            # give it the mode any new folder gets (0755 under the usual umask 022), so a web
            # server running as another user can read the site. Files already get 0644 so.
            os.chmod(self.staging, 0o777 & ~_umask())
        except OSError as exc:
            raise SitegenError(Problem(str(output_dir), None, "", f"cannot create the output folder: {exc.strerror}")) from None

    def _claim(self, relative: str) -> None:
        path = PurePosixPath(relative)
        if path.is_absolute() or ".." in path.parts or not path.parts or relative != path.as_posix():
            raise SitegenError(Problem(relative, None, "", "refusing to write outside the output folder"))
        if relative in self.written:
            raise SitegenError(Problem(relative, None, "", "two pages want the same output file"))
        self.written.add(relative)

    def _make_folder(self, folder: str) -> None:
        # Remembered: a build writes thousands of files into a few folders.
        if folder not in self._folders:
            os.makedirs(folder, exist_ok=True)
            self._folders.add(folder)

    def write(self, relative: str, data: bytes) -> None:
        """Write one file; refuse paths that leave the output folder or repeat another file."""
        self._claim(relative)
        target = os.path.join(self.staging, relative)
        try:
            self._make_folder(os.path.dirname(target))
            Path(target).write_bytes(data)
        except OSError as exc:
            raise SitegenError(Problem(str(self.output_dir / relative), None, "", f"cannot write: {exc.strerror}")) from None

    def keep(self, relative: str) -> None:
        """Keep an unchanged file of the previous site where it is (incremental builds only,
        which have a previous site whose files the manifest checked)."""
        assert self.in_place, "only an incremental build keeps files of the previous site"
        # No path check: nothing is written, and a file not in the site is removed at commit.
        if relative in self.written:
            raise SitegenError(Problem(relative, None, "", "two pages want the same output file"))
        self.written.add(relative)
        self._kept.add(relative)

    def commit(self) -> None:
        """Put the staged site in place of the old one."""
        if self.in_place:
            self._commit_in_place()
            return
        old = None
        try:
            if self.output_dir.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{self.output_dir.name}.old-", dir=self.output_dir.parent))
                os.replace(self.output_dir, old / "site")
            os.replace(self.staging, self.output_dir)
        except OSError as exc:
            if old is not None and (old / "site").exists() and not self.output_dir.exists():
                os.replace(old / "site", self.output_dir)  # put the previous site back
            message = f"cannot replace the output folder: {exc.strerror}"
            raise SitegenError(Problem(str(self.output_dir), None, "", message)) from None
        finally:
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)

    def _commit_in_place(self) -> None:
        aside = tempfile.mkdtemp(prefix=f".{self.output_dir.name}.old-", dir=self.output_dir.parent)
        live_root = str(self.output_dir)
        moved: list[tuple[str, str | None]] = []  # (live path, where its old file was set aside)

        def set_aside(live: str, relative: str) -> str | None:
            if not os.path.lexists(live):
                return None
            saved = os.path.join(aside, relative)
            os.makedirs(os.path.dirname(saved), exist_ok=True)
            os.replace(live, saved)
            return saved

        try:
            for relative in sorted(self.written - self._kept):
                live = os.path.join(live_root, relative)
                saved = set_aside(live, relative)
                moved.append((live, saved))
                os.makedirs(os.path.dirname(live), exist_ok=True)
                os.replace(os.path.join(self.staging, relative), live)
            # Files the new site no longer has: gone, as a full build would leave them.
            for relative, live in list(_files_under(live_root)):
                if relative not in self.written:
                    moved.append((live, set_aside(live, relative)))
        except OSError as exc:
            for live, saved in reversed(moved):  # put the previous site back as it was
                with contextlib.suppress(OSError):
                    if saved is None:
                        os.remove(live)
                    else:
                        os.replace(saved, live)
            message = f"cannot replace the output folder: {exc.strerror}"
            raise SitegenError(Problem(str(self.output_dir), None, "", message)) from None
        finally:
            shutil.rmtree(aside, ignore_errors=True)
            shutil.rmtree(self.staging, ignore_errors=True)
        for folder, _, _ in os.walk(live_root, topdown=False):
            if folder != live_root and not os.listdir(folder):
                with contextlib.suppress(OSError):
                    os.rmdir(folder)  # emptied by removed pages

    def discard(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)


def _umask() -> int:
    # Read by setting it, the only way POSIX offers; put back at once.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _files_under(root: str) -> Iterator[tuple[str, str]]:
    """Every file (or link) below ``root``: its path relative to root with '/', and its full path."""
    folders = [("", root)]
    while folders:
        prefix, folder = folders.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    folders.append((f"{prefix}{entry.name}/", entry.path))
                else:
                    yield prefix + entry.name, entry.path
