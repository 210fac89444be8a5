"""Reading a file that someone else may control: never through a link swapped in after it
was checked, never from a pipe or device (which could block or never end), and never more
than a limit, which is checked before reading and again while reading (a file can grow).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from sitegen.errors import Problem, SitegenError

# Files sitegen itself wrote (collected.json, the build manifest, caches): generous, but bounded.
MAX_STATE_BYTES = 1 << 30
_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def read_bounded(path: Path | str, limit: int, source: str | None = None, what: str = "a result file") -> bytes:
    """The bytes of the plain file at ``path``, at most ``limit`` of them.

    A link (as the last part of the path), pipe, device or socket, or a file over the limit,
    is a SitegenError naming ``source``; other failures to read are OSError.
    """
    data, descriptor = read_bounded_open(path, limit, source, what)
    os.close(descriptor)
    return data


def read_bounded_open(path: Path | str, limit: int, source: str | None = None,
                      what: str = "a result file") -> tuple[bytes, int]:
    """read_bounded, and the file still open (the caller closes it): parts of it can be read
    again later from the very file that was read (os.pread), whatever has been renamed onto
    its name since."""
    shown = source if source is not None else str(path)
    try:
        descriptor = os.open(path, _FLAGS)
    except OSError as exc:
        if exc.errno == getattr(os, "ELOOP", -1) or os.path.islink(path):
            raise SitegenError(Problem(shown, None, "", "is a link (or was replaced by one while sitegen read it); "
                                       "put the file itself here")) from None
        raise
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            # O_NONBLOCK made opening a pipe return at once; reading it is what would block.
            raise SitegenError(Problem(shown, None, "", "is not a plain file (a device, pipe or socket); "
                                       "put a result file here"))
        if status.st_size > limit:
            raise SitegenError(Problem(shown, None, "", _over(status.st_size, limit, what)))
        os.set_blocking(descriptor, True)
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = os.read(descriptor, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise SitegenError(Problem(shown, None, "", _over(size, limit, what, grew=True)))
        return b"".join(chunks), descriptor
    except BaseException:
        os.close(descriptor)
        raise


def _over(size: int, limit: int, what: str, grew: bool = False) -> str:
    if grew:
        return f"file grew past the {limit:,}-byte limit for {what} while being read"
    return f"file is {size:,} bytes, over the {limit:,}-byte limit for {what}"


# --- Telling a file from a changed one without reading it -------------------------------------
# As Make and Git do: a file whose identity (device, inode, size, modification and change times)
# is the one recorded holds what it held. The change time cannot be set by anyone, and every
# write, rename or link moves it to the present, so an edit that keeps the size and the
# modification time (``cp -p``, ``touch -d``) still shows. What it cannot show is an edit in the
# same clock tick as the recording (Git's "racy" files): an identity is recorded only when its
# change time is older than the file system's own clock by more than any file system's
# granularity (FAT keeps two-second times), so a later edit always shows as a new change time.
# Used by collect's manifest (result files) and the build's unchanged check (the site's folders,
# the collected file).

SETTLED_NS = 2_000_000_000

Identity = tuple[int, int, int, int, int]  # device, inode, size, mtime_ns, ctime_ns


def identity(found: os.stat_result) -> Identity:
    return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns


def file_system_now(folder: Path) -> int | None:
    """The file system's own clock, in nanoseconds: the change time of a file made now
    (time.time_ns() runs ahead of the coarse clock file systems stamp files with).
    None when nothing can be made there: then no file is trusted without being read."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=".clock.", dir=folder)
    except OSError:
        return None
    try:
        return os.fstat(handle).st_ctime_ns
    except OSError:
        return None
    finally:
        os.close(handle)
        with contextlib.suppress(OSError):
            os.unlink(name)


def settled(found: os.stat_result, now: int | None) -> bool:
    """Whether a file is old enough for its identity to stand for its content from now on
    (``now``: file_system_now, taken before the file was looked at)."""
    return now is not None and found.st_ctime_ns < now - SETTLED_NS


def all_of_types(values: Iterable[object], *kinds: type) -> bool:
    """Whether the type of every value is exactly one of ``kinds`` (a bool is no int): how the
    long lists of a state file read back are checked, without a Python step per item (map and
    set do the work; a 20,000-run site's manifests hold hundreds of thousands of items)."""
    return set(map(type, values)) <= set(kinds)
