"""Write the site: every file goes into a staging folder beside the output, which is
swapped in only when the whole build succeeded, so a failed build leaves the
previous site untouched. Paths are checked so nothing lands outside the output.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path, PurePosixPath

from sitegen.errors import Problem, SitegenError


class StagedOutput:
    """Collects the files of one build; ``commit`` puts them in place."""

    def __init__(self, output_dir: Path) -> None:
        self.output_dir = output_dir
        self.written: set[str] = set()
        self._folders: set[str] = set()
        if output_dir.exists() and not output_dir.is_dir():
            raise SitegenError(Problem(str(output_dir), None, "", "exists but is not a folder; move it away or set output_dir"))
        try:
            output_dir.parent.mkdir(parents=True, exist_ok=True)
            self.staging = Path(tempfile.mkdtemp(prefix=f".{output_dir.name}.building-", dir=output_dir.parent))
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

    def link(self, relative: str, source: Path) -> None:
        """Put an unchanged file from the previous site in place: a hard link, or a copy."""
        self._claim(relative)
        # Plain strings and a memo of made folders: an unchanged build links thousands of files.
        target = os.path.join(self.staging, relative)
        try:
            self._make_folder(os.path.dirname(target))
            try:
                os.link(source, target)
            except OSError:
                shutil.copyfile(source, target)  # another file system, or no hard links
        except OSError as exc:
            raise SitegenError(Problem(str(self.output_dir / relative), None, "", f"cannot write: {exc.strerror}")) from None

    def commit(self) -> None:
        """Swap the staged site in for the old one."""
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

    def discard(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)
