"""Write the site: every file goes into a staging folder beside the output, which takes the
output's place in one step only when the whole build succeeded. At every instant the
output folder is the old site or the new one, never a mix, whatever stops the build (an
error, a full disk, kill -9, a power cut after the swap reached the disk).

An incremental build stages the same complete tree as a cold build, but the files of
unchanged pages are hard links to the previous site's files (copies where links are not
possible), so they cost neither rendering nor disk space. Sitegen never changes a file of a
built site in place, so sharing its data between the two trees is safe. The site a swap
replaces is not deleted but kept as the spare (``.sitegen/build/spare``), brought up to date as
a mirror of the new site (StagedOutput.refresh_spare; a build that staged every file anew links
its own files there instead), and the next incremental build stages in it: its folders exist
and its files are the live site's, so a build that changes a few pages makes a few file-system
changes, not thousands, and looks at none of the files it keeps (StagedOutput._reuse_spare).

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
from dataclasses import dataclass
from pathlib import Path

from sitegen import files
from sitegen.errors import Problem, SitegenError
from sitegen.site.incremental.folder_records import (
    Record,
    changed_folders,
    folders_of,
    holds_exactly,
    plain_relative,
    record,
    unchanged_since,
)

MARKER = ".sitegen-output"
MARKER_TEXT = b"This folder is made by `sitegen build`, which replaces everything in it.\n"
_STAGING = "building"
_ASIDE = "old"


@dataclass(frozen=True)
class PreviousSite:
    """What the last build left, from its manifest: every file of its site and its folders, and
    the record (site_folders) of the site's folders and of the spare's (empty when it left no
    mirror)."""

    files: set[str]
    layout: dict[str, set[str]] | None  # site_folders.folders_of(files), worked out once
    folders: Record
    spare_folders: Record


class StagedOutput:
    """Collects the files of one build; ``commit`` puts them in place."""

    def __init__(
        self,
        output_dir: Path,
        in_place: bool = False,
        spare: Path | None = None,
        previous: PreviousSite | None = None,
    ) -> None:
        self.output_dir = output_dir
        # in_place: there is a previous site whose unchanged files ``keep`` may share.
        self.in_place = in_place and output_dir.is_dir()
        # spare: where the last build left a mirror of its site (or the site before it), to be
        # this build's staging folder (see _reuse_spare); None to stage in a new folder and
        # delete the old site. previous: what the last build's manifest says it left.
        self.spare = spare
        self.previous = previous
        self.written: set[str] = set()
        self.fresh: set[str] = set()  # written anew, not kept
        # True when the reused spare is known to hold exactly the previous site's files (see
        # _reuse_spare): ``keep`` then takes them without looking at them, nor at the site's.
        self.trusted = False
        # What commit left at ``spare``: "copy" (this build's files), "previous" (the site it
        # replaced), or None (nothing); refresh_spare makes either the new site's mirror.
        self._spare_left: str | None = None
        self._layout: dict[str, set[str]] | None = None
        # The recorded identities found standing in the staged tree (at the start, when the
        # spare was the mirror) and in the site set aside (refresh_spare): site_folders.record.
        self._standing: Record = {}
        self._aside_standing: Record = {}
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
            self._reuse_spare(spare)

    def _reuse_spare(self, spare: Path) -> None:
        """Stage in the spare folder: the site the last build replaced, set aside by its commit
        instead of being deleted and made a mirror of the site it published (refresh_spare).

        Why: a site of 1,000 runs is some 1,500 folders and 4,500 files. Staging a complete tree
        in a new folder makes every folder and links every file, and deleting the old tree after
        the swap removes as many again: thousands of file-system writes, seconds on a busy disk,
        for a build that changes a hundred files. The spare already has the folders and, as
        hard links, the previous site's files. When it is known to be exactly the previous site
        (_spare_is_the_mirror), its files are kept as they are; otherwise it is listed, and a
        file that is still the previous site's (the same inode) stays and any other is replaced
        or removed. Nothing is ever written into an existing file (it may be shared with the live
        site): every name the spare held is unlinked before its file is written or linked. The
        spare is only a head start: whatever it holds is checked against the last build's record
        or the previous site, never published as it is."""
        try:
            if (
                not spare.is_dir()
                or spare.is_symlink()
                or os.stat(spare).st_dev != os.stat(self.staging).st_dev
            ):
                return
            os.rename(spare, self.staging)  # onto the empty folder mkdtemp made: one step
        except OSError:
            return
        with contextlib.suppress(OSError):
            os.chmod(self.staging, 0o777 & ~_umask())
        if self._spare_is_the_mirror():
            return
        # One scandir per folder (os.walk would also stat every folder again to tell a link
        # from a folder, and work out each one's relative path): 1,500 folders at 1,000 runs.
        pending = [("", str(self.staging))]
        while pending:
            prefix, folder = pending.pop()
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        if entry.is_dir(follow_symlinks=False):
                            self._stale_folders.add(prefix + entry.name)
                            pending.append((prefix + entry.name + "/", entry.path))
                        else:  # a file, or a link (to a file or a folder: never followed)
                            self._stale.add(prefix + entry.name)
            except OSError:
                # as os.walk does: a folder that cannot be listed is only removed (_remove_stale)
                continue

    def _spare_is_the_mirror(self) -> bool:
        """Whether the reused spare is the mirror the last build left of its site (refresh_spare):
        exactly the site's files, each the site's very file (inode). Then every name in it is
        known without listing it, and ``keep`` takes each file as it is.

        Told as build_manifest.Manifest.unchanged_site tells the live site's state (site_folders):
        each
        folder with the identity the last build recorded holds what it held then; any other is
        listed, and the inodes of its files are compared with the live site's (a listing gives
        them without a system call per file). Any difference, and the spare is listed instead."""
        previous = self.previous
        folders = previous.layout if previous is not None and previous.spare_folders else None
        if previous is None or folders is None:
            return False
        try:  # inodes tell files apart only on one device
            if os.stat(self.output_dir).st_dev != os.stat(self.staging).st_dev:
                return False
        except OSError:
            return False
        standing = holds_exactly(
            str(self.staging),
            previous.files,
            folders,
            previous.spare_folders,
            same_as=(str(self.output_dir), previous.files),
        )
        if standing is None:
            return False
        self._standing = standing
        self._stale = set(previous.files)
        self._stale_folders = {folder for folder in folders if folder}
        self.trusted = True
        return True

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
            raise SitegenError(
                Problem(str(self.output_dir / relative), None, "", f"cannot write: {exc.strerror}")
            ) from None

    def keep(self, relative: str, found: os.stat_result | None = None) -> None:
        """Take an unchanged file of the previous site into the new one (incremental builds only,
        which have a previous site whose files the manifest checked); ``found``: its lstat, when
        the caller has just taken it (a build keeps some 70,000 files at 20,000 runs)."""
        assert self.in_place, "only an incremental build keeps files of the previous site"
        if self.trusted and relative in self._stale:
            # The spare mirrors the previous site: this is its file, and its name one of the
            # previous site's, all of them plain (_spare_is_the_mirror). 70,000 calls at 20,000
            # runs.
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
        the previous site's very file, its name plain: _spare_is_the_mirror), one at a time for
        any other. 48,000 files at 20,000 runs, for a build that adds a run."""
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
            mirrored = not self.in_place and self.spare is not None and self._mirror(self.spare)
            if self.output_dir.exists():
                aside = swap(self.staging, self.output_dir)
                if (
                    mirrored
                    or aside != self.staging
                    or self.spare is None
                    or not self._set_aside(aside, self.spare)
                ):
                    shutil.rmtree(aside, ignore_errors=True)
                else:
                    self._spare_left = "previous"
            else:
                os.rename(self.staging, self.output_dir)
            if mirrored:
                self._spare_left = "copy"
        except OSError as exc:
            self.discard()
            message = f"cannot replace the output folder: {exc.strerror}"
            raise SitegenError(Problem(str(self.output_dir), None, "", message)) from None

    def known_folders(self) -> Record:
        """The identities of this build's site's folders that it found standing at its start and
        did not change (site_folders.record's ``known``); empty unless the spare was the mirror."""
        return unchanged_since(self._standing, self.fresh | self._removed)

    def layout(self) -> dict[str, set[str]] | None:
        """The folders of the site this build made (site_folders.folders_of), worked out once."""
        if self._layout is None:
            previous = self.previous
            if self.in_place and previous is not None and previous.layout is not None:
                self._layout = changed_folders(previous.layout, previous.files, self.written)
            else:
                self._layout = folders_of(self.written)
        return self._layout

    def refresh_spare(self, clock: Path) -> Record:
        """After commit: make the spare the new site's mirror (its files, as links to the very
        files of the site just put in place), and return the spare's record (site_folders) for
        the next build's _spare_is_the_mirror; empty when it is not known to be one (the next
        build then lists it). ``clock``: a folder to read the file system's clock in.

        The site that commit set aside is the previous one: it is brought up to date with what
        this build changed (a few hundred links and removals for an added run) once it is known
        to be still exactly that site, by the last build's record of its folders. A file a
        stranger put in the live site must not reach the mirror unchecked."""
        after = self.layout()
        if self._spare_left is None or self.spare is None or after is None:
            return {}
        spare = str(self.spare)
        try:
            if self._spare_left == "previous" and not self._bring_up_to_date(spare, after):
                return {}
            # The folders of the previous site found as the last build recorded them: what this
            # build changed in them shows as changed, as it must.
            return record(
                spare, after, files.file_system_now(clock, after_tick=True), self._aside_standing
            )
        except OSError:
            return {}  # a spare cut short is only a head start for the next build, which lists it

    def _bring_up_to_date(self, spare: str, after: dict[str, set[str]]) -> bool:
        """Make the previous site at ``spare`` this build's site (``after``: its folders); False
        when it is not known to be exactly the previous site. Raises OSError."""
        previous = self.previous
        before = previous.layout if previous is not None and previous.folders else None
        if previous is None or before is None:
            return False
        live = str(self.output_dir)
        # A file this build kept is the previous site's file; in a folder changed since the last
        # build recorded it, each must still be the one the new site has.
        standing = holds_exactly(
            spare,
            previous.files,
            before,
            previous.folders,
            same_as=(live, self.written - self.fresh),
        )
        if standing is None:
            return False
        gone_files = previous.files - self.written
        gone_folders = set(before) - set(after)
        self._aside_standing = unchanged_since(standing, gone_files | gone_folders | self.fresh)
        for name in sorted(gone_files):
            os.unlink(f"{spare}/{name}")
        for folder in sorted(gone_folders, key=lambda name: -name.count("/")):  # deepest first
            shutil.rmtree(f"{spare}/{folder}")
        present = set(before) & set(after)
        for name in sorted(self.fresh):
            target = f"{spare}/{name}"
            if name in previous.files:
                os.unlink(target)  # never written into: the file is the live site's too
            folder = name.rpartition("/")[0]
            if folder not in present:
                os.makedirs(f"{spare}/{folder}", exist_ok=True)
                present.add(folder)
            os.link(f"{live}/{name}", target, follow_symlinks=False)
        return True

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

    def _mirror(self, spare: Path) -> bool:
        """Make ``spare`` a copy of the staged site in hard links; False when it cannot be (a
        spare cut short is harmless: whatever it lacks is linked by the build that uses it)."""
        try:
            if os.path.lexists(spare):
                shutil.rmtree(spare) if spare.is_dir() and not spare.is_symlink() else os.unlink(
                    spare
                )
            made: set[str] = set()
            for name in sorted(self.written):
                folder = os.path.dirname(name)
                if folder not in made:
                    os.makedirs(os.path.join(spare, folder), exist_ok=True)
                    made.add(folder)
                os.link(
                    os.path.join(self.staging, name),
                    os.path.join(spare, name),
                    follow_symlinks=False,
                )
        except OSError:
            return False
        return True

    @staticmethod
    def _set_aside(previous: Path, spare: Path) -> bool:
        """Keep the replaced site as the next build's spare (see _reuse_spare) instead of
        deleting it; False when it cannot be, and it is deleted as before."""
        try:
            spare.parent.mkdir(parents=True, exist_ok=True)
            if os.path.lexists(spare):
                shutil.rmtree(spare) if spare.is_dir() and not spare.is_symlink() else os.unlink(
                    spare
                )
            os.rename(previous, spare)
        except OSError:
            return False
        return True

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
