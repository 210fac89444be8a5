"""Write the site: every file goes into a staging folder beside the output, which takes the
output's place in one step only when the whole build succeeded. At every instant the
output folder is the old site or the new one, never a mix, whatever stops the build (an
error, a full disk, kill -9, a power cut after the swap reached the disk).

An incremental build stages the same complete tree as a cold build, but the files of
unchanged pages are hard links to the previous site's files (copies where links are not
possible), so they cost neither rendering nor disk space. Sitegen never changes a file of a
built site in place, so sharing its data between the two trees is safe. The site a swap
replaces is not deleted but kept as the spare, and the next incremental build stages in it
(incremental.spare: what the spare holds and how it stays the site's mirror).

The swap exchanges the two folder names atomically (Linux ``renameat2`` with
``RENAME_EXCHANGE``), so the output stays a plain folder. Where that is not available, the
old folder is renamed aside and the new one renamed in; a crash between those two renames
leaves no output folder, and the next build puts the old one back before it starts.
Staging and set-aside folders carry the builder's process id, so the next build removes
those of builds that no longer run.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from sitegen.errors import Problem, SitegenError
from sitegen.site.incremental.folder_records import (
    Record,
    changed_folders,
    folders_of,
    plain_relative,
    unchanged_since,
)
from sitegen.site.incremental.spare import SiteMade, Spare

MARKER = ".sitegen-output"
MARKER_TEXT = b"This folder is made by `sitegen build`, which replaces everything in it.\n"
_STAGING = "building"
_ASIDE = "old"


class StagedOutput:
    """Collects the files of one build; ``commit`` puts them in place."""

    def __init__(
        self, output_dir: Path, in_place: bool = False, spare: Spare | None = None
    ) -> None:
        self.output_dir = output_dir
        # in_place: there is a previous site whose unchanged files ``keep`` may share.
        self.in_place = in_place and output_dir.is_dir()
        # spare: where the last build left a mirror of its site (or the site before it), to be
        # this build's staging folder (Spare.take); None to stage in a new folder and delete
        # the old site.
        self.spare = spare
        self.previous = spare.previous if spare is not None else None
        self.written: set[str] = set()
        self.fresh: set[str] = set()  # written anew, not kept
        # True when the reused spare is known to hold exactly the previous site's files
        # (Spare.take): ``keep`` then takes them without looking at them, nor at the site's.
        self.trusted = False
        self._layout: dict[str, set[str]] | None = None
        # The recorded identities found standing in the staged tree at the start, when the
        # spare was the mirror: folder_records.record.
        self._standing: Record = {}
        self._folders: set[str] = set()
        # What the reused spare folder held (files, then folders): each is replaced, made the
        # previous site's file again, or removed before the swap.
        self._stale: set[str] = set()
        self._stale_folders: set[str] = set()
        self._removed: set[str] = set()  # what _remove_stale removed (files and folders)
        if output_dir.exists() and not output_dir.is_dir():
            raise SitegenError(
                Problem(
                    str(output_dir),
                    None,
                    "",
                    "exists but is not a folder; move it away or set output_dir",
                )
            )
        try:
            output_dir.parent.mkdir(parents=True, exist_ok=True)
            clean_leftovers(output_dir)
            self.staging = Path(
                tempfile.mkdtemp(prefix=_prefix(output_dir, _STAGING), dir=output_dir.parent)
            )
            # mkdtemp makes a private (0700) folder, and every build renames it into place:
            # give it the mode any new folder gets (0755 under the usual umask 022), so a web
            # server running as another user can read the site. Files already get 0644 so.
            os.chmod(self.staging, 0o777 & ~_umask())
        except OSError as exc:
            raise SitegenError(
                Problem(
                    str(output_dir), None, "", f"cannot create the output folder: {exc.strerror}"
                )
            ) from None
        if self.in_place and spare is not None:
            self._stage_in(spare)

    def _stage_in(self, spare: Spare) -> None:
        """Stage in the spare: its folders and files are a head start (Spare.take)."""
        contents = spare.take(self.staging, self.output_dir)
        if contents is None:
            return
        with contextlib.suppress(OSError):
            os.chmod(self.staging, 0o777 & ~_umask())
        self._stale, self._stale_folders = contents.stale, contents.stale_folders
        self.trusted, self._standing = contents.trusted, contents.standing

    def _clear(self, relative: str, target: str) -> None:
        """Make room in a reused spare for ``relative``: remove what the spare has there, and any
        file where one of its folders goes."""
        parts = relative.split("/")
        for depth in range(1, len(parts)):
            ancestor = "/".join(parts[:depth])
            if ancestor in self._stale:
                os.unlink(os.path.join(self.staging, ancestor))
                self._stale.discard(ancestor)
        if relative in self._stale:
            os.unlink(target)
            self._stale.discard(relative)
        elif relative in self._stale_folders:
            shutil.rmtree(target)
            self._stale_folders = {
                f for f in self._stale_folders if f != relative and not f.startswith(relative + "/")
            }
            self._stale = {f for f in self._stale if not f.startswith(relative + "/")}

    def _claim(self, relative: str, known_plain: bool = False) -> None:
        """Take ``relative`` for this build's file; ``known_plain``: it was checked plain
        already."""
        if not known_plain and not plain_relative(relative):
            raise SitegenError(
                Problem(relative, None, "", "refusing to write outside the output folder")
            )
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
        self.fresh.add(relative)
        target = f"{self.staging}/{relative}"
        try:
            if self._stale or self._stale_folders:
                self._clear(relative, target)
            self._make_folder(target.rpartition("/")[0])
            # A new file: a name the reused spare held was unlinked above (its file may be the live
            # site's).
            Path(target).write_bytes(data)
        except OSError as exc:
            raise self._cannot_write(relative, exc) from None

    def reserve(self, relative: str) -> str:
        """Claim ``relative`` for a file another process writes (output.run_json_writer), as
        ``write`` would claim it; the path to write it to, in a folder that exists. Only for a
        build that keeps nothing: a reused spare's files are never in the way."""
        assert not (self._stale or self._stale_folders), "reserved names are new in the staging"
        self._claim(relative)
        self.fresh.add(relative)
        target = f"{self.staging}/{relative}"
        try:
            self._make_folder(target.rpartition("/")[0])
        except OSError as exc:
            raise self._cannot_write(relative, exc) from None
        return target

    def write_reserved(self, relative: str, data: bytes) -> None:
        """Write a file ``reserve`` claimed, which the other process did not write."""
        assert relative in self.fresh, "only a reserved name"
        try:
            Path(f"{self.staging}/{relative}").write_bytes(data)
        except OSError as exc:
            raise self._cannot_write(relative, exc) from None

    def adopt(self, written: list[str], fresh: list[str]) -> None:
        """Count as this build's the files a forked copy of it wrote into the staging folder
        (output.forked): ``written`` all it wrote or kept, ``fresh`` those it wrote anew."""
        for relative in written:
            self._claim(relative)
        self.fresh.update(fresh)

    def _cannot_write(self, relative: str, exc: OSError) -> SitegenError:
        return SitegenError(
            Problem(str(self.output_dir / relative), None, "", f"cannot write: {exc.strerror}")
        )

    def keep(self, relative: str, found: os.stat_result | None = None) -> None:
        """Take an unchanged file of the previous site into the new one (incremental builds only,
        which have a previous site whose files the manifest checked); ``found``: its lstat, when
        the caller has just taken it (a build keeps nearly every file of a large site)."""
        assert self.in_place, "only an incremental build keeps files of the previous site"
        if self.trusted and relative in self._stale:
            # The spare mirrors the previous site: this is its file, and its name one of the
            # previous site's, all of them plain (Spare.take): called for nearly every file.
            self._claim(relative, known_plain=True)
            self._stale.discard(relative)
            return
        self._claim(relative)  # the name comes from the manifest, which is not trusted
        # (Joined by hand: os.path.join costs more than the system call.)
        source = f"{self.output_dir}/{relative}"
        target = f"{self.staging}/{relative}"
        try:
            if found is None:
                found = os.lstat(source)
            if not stat.S_ISREG(found.st_mode):  # a link, a folder, a pipe: never taken in
                raise OSError(errno.ENOENT, "not a file of the previous site")
            if relative in self._stale:
                spare = os.lstat(target)
                if (spare.st_ino, spare.st_dev) == (found.st_ino, found.st_dev):
                    self._stale.discard(relative)  # the spare has this very file already
                    return
            if self._stale or self._stale_folders:
                self._clear(relative, target)
            self._make_folder(target.rpartition("/")[0])
            try:
                os.link(source, target, follow_symlinks=False)
            except OSError:  # a file system without hard links: a copy is as good, only slower
                shutil.copyfile(source, target, follow_symlinks=False)
        except OSError as exc:
            raise SitegenError(
                Problem(
                    str(self.output_dir / relative),
                    None,
                    "",
                    f"cannot reuse the previous build's file: {exc.strerror}; "
                    "run `sitegen build` again (it rebuilds what it cannot reuse)",
                )
            ) from None

    def keep_all(self, names: set[str]) -> None:
        """``keep`` for each of ``names``: at once for the files a trusted spare holds (each is
        the previous site's very file, its name plain: Spare.take), one at a time for any other:
        a build that adds a run keeps nearly every file so."""
        ready = names & self._stale if self.trusted else set()
        # (Never one written already: a name leaves _stale as it is written or kept.)
        self.written |= ready
        self._stale -= ready
        for name in sorted(names - ready):
            self.keep(name)

    def commit(self) -> None:
        """Put the staged site in place of the old one, in one step."""
        self.write(MARKER, MARKER_TEXT)
        try:
            self._remove_stale()
            # A build that staged everything anew (the first one, or after sitegen changed) leaves
            # a spare of its own files for the next build: links, a small part of its time. The
            # replaced site shares no file with it, so it is deleted.
            spare = self.spare
            mirrored = (
                not self.in_place and spare is not None and spare.mirror(self.staging, self.written)
            )
            if self.output_dir.exists():
                aside = swap(self.staging, self.output_dir)
                if mirrored or aside != self.staging or spare is None or not spare.set_aside(aside):
                    shutil.rmtree(aside, ignore_errors=True)
            else:
                os.rename(self.staging, self.output_dir)
        except OSError as exc:
            self.discard()
            message = f"cannot replace the output folder: {exc.strerror}"
            raise SitegenError(Problem(str(self.output_dir), None, "", message)) from None

    def known_folders(self) -> Record:
        """The identities of this build's site's folders that it found standing at its start and
        did not change (folder_records.record's ``known``); empty unless the spare was the
        mirror."""
        return unchanged_since(self._standing, self.fresh | self._removed)

    def layout(self) -> dict[str, set[str]] | None:
        """The folders of the site this build made (folder_records.folders_of), worked out once."""
        if self._layout is None:
            previous = self.previous
            if self.in_place and previous is not None and previous.layout is not None:
                self._layout = changed_folders(previous.layout, previous.files, self.written)
            else:
                self._layout = folders_of(self.written)
        return self._layout

    def refresh_spare(self, clock: Path) -> Record:
        """After commit: the spare made the new site's mirror, and its record (Spare.refresh);
        empty without a spare."""
        if self.spare is None:
            return {}
        made = SiteMade(self.output_dir, self.written, self.fresh, self.layout())
        return self.spare.refresh(made, clock)

    def _remove_stale(self) -> None:
        """Remove what a reused spare holds that this build did not write or keep."""
        for relative in sorted(self._stale):
            os.unlink(os.path.join(self.staging, relative))
        # Every folder above a written file: the site's folders, worked out once for the record
        # too (every written name is plain, so layout is never None here).
        wanted = set(self.layout() or ())
        unwanted = self._stale_folders - wanted
        for relative in sorted(unwanted, key=lambda f: -f.count("/")):  # deepest first
            shutil.rmtree(os.path.join(self.staging, relative), ignore_errors=True)
        self._removed |= self._stale | unwanted
        self._stale.clear()
        self._stale_folders.clear()

    def discard(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)


def _umask() -> int:
    # Read by setting it, the only way POSIX offers; put back at once.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _prefix(output_dir: Path, kind: str) -> str:
    # The process id tells the next build whether the folder's builder still runs.
    return f".{output_dir.name}.{kind}-{os.getpid()}-"


def swap(new: Path, live: Path) -> Path:
    """Make ``new`` the folder at ``live``; return where the old folder now is (to delete).

    Raises OSError, with the old folder still at ``live``.
    """
    if exchange(new, live):
        return new  # the old site now has the staging folder's name
    aside = Path(tempfile.mkdtemp(prefix=_prefix(live, _ASIDE), dir=live.parent))
    try:
        os.rename(live, aside / "site")
    except OSError:
        os.rmdir(aside)
        raise
    try:
        os.rename(new, live)
    except OSError:
        os.rename(aside / "site", live)  # put the previous site back
        shutil.rmtree(aside, ignore_errors=True)
        raise
    return aside


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _load_renameat2() -> Callable[..., int] | None:
    try:
        function: Callable[..., int] = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return None  # not glibc 2.28+ on Linux
    return function


_renameat2 = _load_renameat2()


def exchange(first: Path, second: Path) -> bool:
    """Swap two folders' names atomically; False when the system cannot (then nothing changed).

    Raises OSError for other failures.
    """
    if _renameat2 is None:
        return False
    if (
        _renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE)
        == 0
    ):
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False  # an old kernel or a file system without exchange
    raise OSError(code, os.strerror(code), str(second))


def clean_leftovers(output_dir: Path) -> None:
    """Remove the staging and set-aside folders of builds that were stopped (kill -9, power cut),
    first putting the previous site back if a stop between two renames left no output folder."""
    parent = output_dir.parent
    stale: list[Path] = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(parent):
            for kind in (_STAGING, _ASIDE):
                start = f".{output_dir.name}.{kind}-"
                if (
                    entry.name.startswith(start)
                    and entry.is_dir(follow_symlinks=False)
                    and not _running(entry.name[len(start) :].split("-", 1)[0])
                ):
                    stale.append(Path(entry.path))
    for folder in sorted(stale):
        previous = folder / "site"
        if (
            not os.path.lexists(output_dir)
            and folder.name.startswith(f".{output_dir.name}.{_ASIDE}-")
            and previous.is_dir()
        ):
            with contextlib.suppress(OSError):
                os.rename(previous, output_dir)
        shutil.rmtree(folder, ignore_errors=True)


def _running(pid_text: str) -> bool:
    if not pid_text.isdigit():
        return False  # an older sitegen's folder, without a process id: stale
    pid = int(pid_text)
    if pid == os.getpid():
        return False  # a folder of this process is from an earlier build of a long-lived caller
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, owned by someone else
    return True
