"""Reading a file that someone else may control: never through a link swapped in after it
was checked, never from a pipe or device (which could block or never end), and never more
than a limit, which is checked before reading and again while reading (a file can grow).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from sitegen.errors import Problem, SitegenError

# Files sitegen itself wrote (collected.json, the build manifest, caches): generous, but bounded.
MAX_STATE_BYTES = 1 << 30
_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


def read_bounded(
    path: Path | str, limit: int, source: str | None = None, what: str = "a result file"
) -> bytes:
    """The bytes of the plain file at ``path``, at most ``limit`` of them.

    A link (as the last part of the path), pipe, device or socket, or a file over the limit,
    is a SitegenError naming ``source``; other failures to read are OSError.
    """
    data, descriptor = read_bounded_open(path, limit, source, what)
    os.close(descriptor)
    return data


def read_bounded_open(
    path: Path | str, limit: int, source: str | None = None, what: str = "a result file"
) -> tuple[bytes, int]:
    """read_bounded, and the file still open (the caller closes it): parts of it can be read
    again later from the very file that was read (os.pread), whatever has been renamed onto
    its name since."""
    shown = source if source is not None else str(path)
    descriptor, status = open_bounded(path, limit, source, what)
    try:
        data = _read_all(descriptor, status.st_size, limit)
        if len(data) > limit:
            raise SitegenError(Problem(shown, None, "", _over(len(data), limit, what, grew=True)))
        return data, descriptor
    except BaseException:
        os.close(descriptor)
        raise


def open_bounded(
    path: Path | str, limit: int, source: str | None = None, what: str = "a result file"
) -> tuple[int, os.stat_result]:
    """The plain file at ``path`` opened for reading (the caller closes it), and its status,
    once it is found to be at most ``limit`` bytes: read_bounded's checks without the reading,
    for a file read in parts (os.pread)."""
    shown = source if source is not None else str(path)
    try:
        descriptor = os.open(path, _FLAGS)
    except OSError as exc:
        if exc.errno == getattr(os, "ELOOP", -1) or os.path.islink(path):
            raise SitegenError(
                Problem(
                    shown,
                    None,
                    "",
                    "is a link (or was replaced by one while sitegen read it); "
                    "put the file itself here",
                )
            ) from None
        raise
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            # O_NONBLOCK made opening a pipe return at once; reading it is what would block.
            raise SitegenError(
                Problem(
                    shown,
                    None,
                    "",
                    "is not a plain file (a device, pipe or socket); put a result file here",
                )
            )
        if status.st_size > limit:
            raise SitegenError(Problem(shown, None, "", _over(status.st_size, limit, what)))
        os.set_blocking(descriptor, True)
        return descriptor, status
    except BaseException:
        os.close(descriptor)
        raise


def _read_all(descriptor: int, size: int, limit: int) -> bytes:
    """What is left to read, at most ``limit`` + 1 bytes: one read of the size the file had and
    one byte more (a file that grew shows at once), straight into the bytes returned (a large
    state file is neither read into a zeroed buffer nor copied out of it), then on in chunks
    if it was read short or grew."""
    chunks = [os.read(descriptor, size + 1)]
    done = len(chunks[0])
    while done <= limit:
        chunk = os.read(descriptor, min(max(size + 1 - done, 1 << 20), limit + 1 - done))
        if not chunk:
            break
        chunks.append(chunk)
        done += len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


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
# change time is older than the file system's own clock (``Clock``: the change time of a file
# made then). That reading comes from the clock that stamps the file, in the same steps (every
# file system stamps its files with one granularity: nanoseconds, a kernel tick, FAT's two
# seconds), when the clock was read on the file's own device: strictly older is then enough, as
# in Git's rule, because a later edit is stamped at least the reading. For a file on another
# device the stamps may be coarser than the reading, so it must be older by more than any
# file system's granularity (SETTLED_NS).
# Used by collect's manifest (result files) and the build's unchanged check (the site's folders,
# the collected file).

Identity = tuple[int, int, int, int, int]  # device, inode, size, mtime_ns, ctime_ns


def identity(found: os.stat_result) -> Identity:
    return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns


class Clock(NamedTuple):
    """The file system's clock as read in a folder (file_system_now)."""

    ns: int  # the change time of a file made there then
    device: int  # the folder's device: its files are stamped by this clock, in its steps


# How much older than the clock's reading a file's change time must be, on the clock's device
# and on another one (see above).
SAME_DEVICE_SETTLED_NS = 0
SETTLED_NS = 2_000_000_000
# How long file_system_now(after_tick=True) waits at most for the clock to move on: a kernel
# tick is 1 to 10 ms; a coarser clock (FAT's two seconds) is not waited for.
_TICK_WAIT_S = 0.05


def file_system_now(folder: Path, after_tick: bool = False) -> Clock | None:
    """The file system's own clock (time.time_ns() runs ahead of the coarse clock file systems
    stamp files with). None when nothing can be made there: then no file is trusted unread.

    ``after_tick``: wait (up to _TICK_WAIT_S) until the clock moves on from where it was when
    called, so that whatever changed before the call is stamped older than the reading: a
    build records the folders it has just changed, and without the wait those changed in the
    current tick would be listed again by the next build (a listing of ``runs/``, twice)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=".clock.", dir=folder)
    except OSError:
        return None
    try:
        found = os.fstat(handle)
        now = Clock(found.st_ctime_ns, found.st_dev)
        deadline = time.monotonic() + _TICK_WAIT_S
        while after_tick and time.monotonic() < deadline:
            time.sleep(0.001)
            os.write(handle, b".")  # stamps the file with the clock's time now
            later = os.fstat(handle).st_ctime_ns
            if later > now.ns:
                return Clock(later, now.device)
        return now
    except OSError:
        return None
    finally:
        os.close(handle)
        with contextlib.suppress(OSError):
            os.unlink(name)


def settled(found: os.stat_result, now: Clock | None) -> bool:
    """Whether a file is old enough for its identity to stand for its content from now on
    (``now``: file_system_now, taken before the file was looked at)."""
    if now is None:
        return False
    margin = SAME_DEVICE_SETTLED_NS if found.st_dev == now.device else SETTLED_NS
    return found.st_ctime_ns < now.ns - margin


def all_of_types(values: Iterable[object], *kinds: type) -> bool:
    """Whether the type of every value is exactly one of ``kinds`` (a bool is no int): how the
    long lists of a state file read back are checked, without a Python step per item (map and
    set do the work; a large site's manifests hold many items)."""
    return set(map(type, values)) <= set(kinds)
