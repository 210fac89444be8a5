"""Pieces of listing pages and data files kept between builds (.sitegen/cache/fragments.json);
the store also keeps each run's figures (figure_cache: .sitegen/cache/figures.json).

Why: a listing (the index pages, /capacity/, the preset views, the data files of every run)
shows every run, so adding one run changes every page of it, while each piece of it (a run's
row, a model's section, a run's record in a data file) is made from a few runs that did not
change. A build asks for a piece by a key of everything it is made from; a piece the previous
build made under the same key is read back as text, and only the others are made: joining
kept pieces costs a small part of making them.

A piece's key is made here, from its maker's name and arguments (``cached``, ``cached_bytes``,
``render_cached``): the maker is a plain function whose arguments are all it is made from, so no
input can be left out of the key. A run stands for its content's digest, a group for the plan's
digest of it (figures.grouping.Group). The whole file belongs to one ``scope`` (sitegen's code
and templates, the settings and the site), so a change of any of those misses every piece.

The file is a series of segments, each a line of JSON (its keys, each piece's length in
bytes, the checksum and size of its text) and then its pieces' UTF-8 text end to end, read back
as slices of the file's bytes, each made when its piece is first asked for: a data file of every
run joins them as they are (get_bytes, cached_run_bytes), and a page's piece is decoded when
it is asked for. (Not the whole file decoded and its text sliced: one character beyond
Latin-1 makes a Python string two bytes a character, and each slice of it a copy that is
scanned again.) When the file is the very file a build checked or wrote (see below), only
its segments' heads are read, and each piece from the file when it is asked for: a build
asks for a small part of a large site's pieces.

A build that made pieces appends them as one segment: the file holds every listing's pieces
and an added run makes a small part of them anew, so appending costs a small part of
rewriting the whole file (docs/performance-log.md). Once the appended pieces outweigh the
last whole write and the last build's pieces together, the file is rewritten with those two,
dropping the appended pieces no build asked for since (pieces made again in their place).
Any doubt (a checksum, a segment cut short by a crash, another scope) is a miss for that
segment and every one after it, and the next save rewrites the file. The checksums are not
checked again while the file is the very file a build checked, wrote or appended to (its
identity, recorded in fragments-checked.json once it had settled), as the build's collected
digest is kept.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import itertools
import json
import os
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jinja2 import Environment

from sitegen import files
from sitegen.errors import SitegenError
from sitegen.files import MAX_STATE_BYTES, all_of_types, open_bounded, read_bounded_open
from sitegen.model import Run
from sitegen.resources import resource_dir
from sitegen.site.figures.grouping import Group
from sitegen.site.render import environment
from sitegen.store import digest, read_cache, write_atomic, write_cache

FRAGMENTS_FORMAT = "sitegen-fragments-3"
# A piece's UTF-8 text: a slice of the file read (kept), or the bytes of one made in this build.
Piece = bytes | memoryview
_APPEND_FLAGS = (
    os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
)


class Fragments:
    """The pieces of the previous build, and those of this one as they are asked for."""

    def __init__(
        self,
        path: Path | None,
        scope: str,
        templates: Environment | None = None,
        every_build_asks_all: bool = False,
    ) -> None:
        self.path = path
        self.scope = scope
        # Whether every build asks for every live piece (the figure cache: each run's entry), so
        # a rewrite keeps only what the build asked for; else the last whole write's stay (save).
        self.every_build_asks_all = every_build_asks_all
        # The build's templates, which render the pieces of pages (``render``); without them
        # (tests, tools) the ones sitegen ships.
        self.templates = templates
        self._macros: Any = None
        # Each kept piece by its key: where it lies in the body of its segment (the body, its
        # start and its end there), sliced when it is asked for (_kept_piece).
        self._kept: dict[str, tuple[memoryview | _FileBody, int, int]] = {}
        self._used: dict[str, Piece] = {}
        self._new: set[str] = set()  # the keys of pieces made or put in this build
        self.made = 0  # pieces made (not found) in this build
        # The file as read, when all of it was whole segments of this scope: its identity (None:
        # no file to append to, or one in doubt); and the bytes of its pieces.
        self._file: files.Identity | None = None
        self._file_bytes = 0
        # The keys and bytes of its first segment: the pieces of the last build that wrote it
        # whole, kept by a rewrite whether or not this build asked for them (see save).
        self._first_keys: list[str] = []
        self._first_bytes = 0
        # Where the identity of the file as last checked (or written) is kept (see _read).
        self._checked = path.with_name(f"{path.stem}-checked.json") if path is not None else None
        if path is not None:
            self._read(path)

    def _read(self, path: Path) -> None:
        """Read the pieces of the file's whole segments. Each segment's checksum is checked,
        unless the file is the very file a build checked or wrote whole before (its identity,
        recorded once it had settled: files.settled), which then cannot have changed since:
        checking the whole file is a noticeable part of a build that adds a run."""
        now = files.file_system_now(path.parent)  # before the file is looked at
        # (os.pread: on every POSIX system; elsewhere the whole file is read, as before)
        if not self.every_build_asks_all and hasattr(os, "pread") and self._read_heads(path):
            return
        try:
            data, descriptor = read_bounded_open(path, MAX_STATE_BYTES, what="a cache file")
        except (OSError, SitegenError):
            return
        try:
            found = os.fstat(descriptor)  # after reading: a change while it was read shows
        except OSError:
            return
        finally:
            os.close(descriptor)
        identity = files.identity(found)
        checked = self._recorded() == identity
        view = memoryview(data)
        at = 0
        while at < len(data):
            segment = self._segment(data, view, at, verify=not checked)
            if segment is None:
                return  # in doubt from here on: what follows is a miss, and save rewrites the file
            at = segment
        self._file = identity
        if not checked and files.settled(found, now):
            self._record(identity)

    def _read_heads(self, path: Path) -> bool:
        """When the file is the very file a build checked or wrote whole before, the heads of
        its segments alone, each piece read from the file when it is asked for (_FileBody): a
        build asks for a small part of the pieces of a large site. Whether it was that file."""
        try:
            descriptor, found = open_bounded(path, MAX_STATE_BYTES, what="a cache file")
        except (OSError, SitegenError):
            return False
        identity = files.identity(found)
        if self._recorded() != identity:
            os.close(descriptor)
            return False
        weakref.finalize(self, os.close, descriptor)  # open while pieces may be asked for
        at = 0
        while at < found.st_size:
            line = _line_at(descriptor, at, found.st_size) or b""
            start = at + len(line) + 1
            head = self._head(line, found.st_size - start)
            if head is None:
                return True  # in doubt from here on: what follows is a miss, and save rewrites
            keys, lengths, size, _ = head
            self._keep(keys, lengths, _FileBody(descriptor, start, size), first=at == 0)
            at = start + size
        self._file = identity
        return True

    def _recorded(self) -> files.Identity | None:
        """The identity of the file as a build last checked or wrote it, if one is recorded."""
        assert self._checked is not None
        try:
            found = json.loads(read_cache(self._checked) or b"null")
        except ValueError:
            return None
        if isinstance(found, list) and len(found) == 5 and all_of_types(found, int):
            return tuple(found)  # type: ignore[return-value]
        return None

    def _record(self, identity: files.Identity | None) -> None:
        """Record ``identity`` as the file's checked (None: forget any); only a miss if it fails."""
        assert self._checked is not None
        with contextlib.suppress(OSError):
            if identity is None:
                self._checked.unlink(missing_ok=True)
            else:
                write_cache(self._checked, json.dumps(list(identity)).encode())

    def _segment(self, data: bytes, view: memoryview, at: int, verify: bool = True) -> int | None:
        """Read the segment at ``at`` into the kept pieces; where the next one starts, or None
        when it is not a whole segment of this scope (``verify``: check its checksum)."""
        end = data.find(b"\n", at)
        if end < 0:
            return None
        head = self._head(data[at:end], len(data) - end - 1)
        if head is None:
            return None
        keys, lengths, size, checksum = head
        body = view[end + 1 : end + 1 + size]
        if verify and hashlib.sha256(body).hexdigest() != checksum:
            return None
        self._keep(keys, lengths, body, first=at == 0)
        return end + 1 + size

    def _head(self, line: bytes, room: int) -> tuple[list[str], list[int], int, str] | None:
        """A segment's head (its line): its pieces' keys and lengths, the size and checksum of
        its body; None unless it is the head of a segment of this scope whose body fits in the
        ``room`` left in the file."""
        try:
            head = json.loads(line)
        except ValueError:  # UnicodeDecodeError is one
            return None
        if not (
            isinstance(head, dict)
            and head.get("format") == FRAGMENTS_FORMAT
            and head.get("scope") == self.scope
        ):
            return None
        keys, lengths, size, checksum = (
            head.get("keys"),
            head.get("lengths"),
            head.get("bytes"),
            head.get("sha256"),
        )
        if not (
            isinstance(keys, list)
            and isinstance(lengths, list)
            and len(keys) == len(lengths)
            and type(size) is int
            and 0 <= size <= room
            and isinstance(checksum, str)
            and all_of_types(keys, str)
            and all_of_types(lengths, int)
            and (not lengths or min(lengths) >= 0)
            and sum(lengths) == size
        ):
            return None
        return keys, lengths, size, checksum

    def _keep(
        self, keys: list[str], lengths: list[int], body: memoryview | _FileBody, first: bool
    ) -> None:
        """Each key with its place in ``body``, without a Python step per piece (a large site
        has many); a piece is sliced when it is asked for. ``first``: the file's first segment."""
        offsets = list(itertools.accumulate(lengths, initial=0))
        places = zip(itertools.repeat(body, len(keys)), offsets[:-1], offsets[1:], strict=True)
        self._kept.update(zip(keys, places, strict=True))
        if first:
            self._first_keys, self._first_bytes = keys, offsets[-1]
        self._file_bytes += offsets[-1]

    @staticmethod
    def key(kind: str, *inputs: object) -> str:
        """The key of a piece of ``kind`` made from ``inputs`` (their repr: plain values, tuples
        and frozen dataclasses only, whose repr says everything they hold)."""
        return hashlib.sha256(repr((kind, inputs)).encode()).hexdigest()

    @staticmethod
    def content(run: Run) -> tuple[str, str]:
        """A run as a key names it: its id and its content's digest (worked out here for a run
        made without one, as tests and tools make them; a build's runs all have theirs)."""
        return run.id, run.digest or digest(run.raw)

    def get(self, key: str, make: Callable[[], str]) -> str:
        """The piece kept under ``key``, or the one ``make`` makes (kept for the next build)."""
        found = self._found(key)
        if found is not None:
            try:
                text = str(found, "utf-8")
            except UnicodeDecodeError:  # not text, though its segment's checksum holds: made again
                pass
            else:
                self._used[key] = found
                return text
        text = make()
        self.put(key, text.encode())
        return text

    def get_bytes(self, key: str, make: Callable[[], str]) -> Piece:
        """``get``'s piece as its UTF-8 bytes, for a data file that joins thousands of them."""
        found = self._found(key)
        if found is None:
            found = make().encode()
            self.put(key, found)
        else:
            self._used[key] = found
        return found

    def _found(self, key: str) -> Piece | None:
        """The piece this build used under ``key`` already, or else the one the file kept."""
        found = self._used.get(key)
        return found if found is not None else self._kept_piece(key)

    def _kept_piece(self, key: str) -> Piece | None:
        """The piece the file kept under ``key``, if any."""
        place = self._kept.get(key)
        if place is None:
            return None
        body, start, end = place
        if isinstance(body, memoryview):
            return body[start:end]
        return body.piece(start, end)

    def found(self, key: str) -> Piece | None:
        """The piece under ``key``, this build's or the file's, without counting it as used."""
        return self._found(key)

    def use(self, key: str, found: Piece | None = None) -> None:
        """Count the piece under ``key`` as used by this build (the file's, unless this build has
        one already): the next build keeps it. ``found``: what ``found`` gave for the key just
        before, when the caller has it (not sliced from the file again)."""
        if key not in self._used:
            piece = found if found is not None else self._kept_piece(key)
            if piece is None:
                raise KeyError(key)
            self._used[key] = piece

    def used_keys(self) -> set[str]:
        """The keys of the pieces this build used so far (for ``used_since``)."""
        return set(self._used)

    def used_since(self, keys: set[str]) -> list[tuple[str, bytes, bool]]:
        """The pieces used since ``used_keys`` gave ``keys``: each key, piece and whether this
        build made it (what a forked copy of the build hands back, see ``adopt``)."""
        return [
            (key, bytes(piece), key in self._new)
            for key, piece in self._used.items()
            if key not in keys
        ]

    def adopt(self, pieces: list[tuple[str, bytes, bool]]) -> None:
        """Count as this build's the pieces a forked copy used (``used_since``)."""
        for key, piece, made in pieces:
            if made:
                self.put(key, piece)
            elif key not in self._used:
                self._used[key] = piece

    def put(self, key: str, piece: bytes) -> None:
        """Keep ``piece`` under ``key`` for the next build, in place of the file's if it has one."""
        self._used[key] = piece
        self._new.add(key)
        self.made += 1

    def render(self, macro: str, *args: object) -> str:
        """The HTML of templates/_macros.html's ``macro`` called with ``args``: a piece of a page,
        as the page's template would have written it in place."""
        if self._macros is None:
            if self.templates is None:
                self.templates = environment(resource_dir("templates"))
            self._macros = self.templates.get_template("_macros.html").module
        return str(getattr(self._macros, macro)(*args))

    def render_cached(self, macro: str, *args: object) -> str:
        """``render(macro, *args)``, kept between builds under a key made from the macro's name
        and its arguments: the arguments are all the piece is made from, so no input can be
        left out of its key. For arguments whose repr is cheap and whole (contexts of a few
        fields); see ``cached`` for pieces whose context costs more than its key."""
        return self.get(self.key(f"macro {macro}", *args), lambda: self.render(macro, *args))

    def cached_bytes(self, make: Callable[..., str], *args: object, build: object = None) -> Piece:
        """``cached``'s piece as its UTF-8 bytes (``get_bytes``), for a data file that joins
        many of them."""
        key = key_of(make, *args)
        if build is None:
            return self.get_bytes(key, lambda: make(*args))
        return self.get_bytes(key, lambda: make(build, *args))

    def cached_run_bytes(
        self, make: Callable[..., str], run: Run, *inputs: object, build: object = None
    ) -> Piece:
        """``cached_bytes(make, run, *inputs)`` for a collected run (one with its digest), under
        a key cheaper to make, as a data file asks for a piece of every run: the digest is a
        hash of the run's content already, so the key is the maker's name, the run's id and
        digest and the inputs' repr as they are, apart by NUL (in no run id, name or digest,
        and never in a hashed key's hex)."""
        if not run.digest:  # made by hand (tests, tools): its content hashed here
            return self.cached_bytes(make, run, *inputs, build=build)
        key = self.run_key(make, run, *inputs)
        if build is None:
            return self.get_bytes(key, lambda: make(run, *inputs))
        return self.get_bytes(key, lambda: make(build, run, *inputs))

    def cached_run(self, make: Callable[..., str], run: Run, *inputs: object) -> str:
        """``cached(make, run, *inputs)`` under ``run_key``'s cheaper key, for a piece asked for
        of every run of a large site (as ``cached_run_bytes``)."""
        return self.get(self.run_key(make, run, *inputs), lambda: make(run, *inputs))

    @staticmethod
    def run_key(make: Callable[..., str], run: Run, *inputs: object) -> str:
        """The key ``cached_run_bytes`` keeps ``make(run, *inputs)``'s piece under (``key_of``'s
        for a run without a digest), for a data file spliced from the last build's
        (joined.Joined)."""
        if not run.digest:
            return key_of(make, run, *inputs)
        key = f"{_checked_maker_name(make)}\0{run.id}\0{run.digest}"
        return f"{key}\0{inputs!r}" if inputs else key

    def cached(self, make: Callable[..., str], *args: object, build: object = None) -> str:
        """``make(*args)`` (``make(build, *args)`` with ``build``), kept between builds under a
        key made from ``make``'s name and ``args``: every input of the piece is an argument of
        ``make``, which must be a plain function of its module (no closure, lambda, partial or
        bound method: what they hold would not be in the key). A run stands for its content
        (``content``), a group for its digest (``_identity``). ``build``: what every piece of a
        build shares (its Analysis: the settings and the runs' figures worked out from the
        runs), which the store's scope covers."""
        key = key_of(make, *args)
        if build is None:
            return self.get(key, lambda: make(*args))
        return self.get(key, lambda: make(build, *args))

    def save(self) -> None:
        """Keep this build's pieces for the next build, when it made any: appended to the file,
        or, once the appended pieces outweigh the first segment and this build's together, the
        file rewritten with this build's pieces and the first segment's. The first segment is
        the last whole write (a build after a change of sitegen, or the last rewrite): a build
        that adds a run asks only for the pieces of the pages it makes again, and dropping the
        others would make the next build that makes those pages a cold one. A build that made
        none keeps the file as it is. A cache that cannot be written is only a miss next time."""
        if self.path is None or self.made == 0:
            return
        # Made in this build: a key the file lacks, or a piece put in place of the file's.
        new = {key: piece for key, piece in self._used.items() if key in self._new}
        used = sum(len(piece) for piece in self._used.values())
        added = sum(len(piece) for piece in new.values())
        first = 0 if self.every_build_asks_all else self._first_bytes
        with contextlib.suppress(OSError):
            if (
                self._file is not None
                and self._file_bytes + added <= 2 * (used + first)
                and self._append(new)
            ):
                return
            for body, _, _ in self._kept.values() if first else ():
                if isinstance(body, _FileBody):
                    body.load()  # (each segment's body read once, not a piece at a time)
            kept = {key: self._kept_piece(key) for key in self._first_keys if first}
            pieces = {key: piece for key, piece in kept.items() if piece is not None}
            pieces.update(self._used)
            # Rewritten: recorded as checked once the clock has moved past it, as an appended
            # file is (else the next build reads all of it to check its checksum).
            self._record(None)
            write_atomic(self.path, self._encode(pieces), durable=False)
            written = os.stat(self.path)
            if files.settled(written, files.file_system_now(self.path.parent, after_tick=True)):
                self._record(files.identity(written))

    def _encode(self, pieces: dict[str, Piece]) -> bytes:
        body = b"".join(pieces.values())
        head = json.dumps(
            {
                "format": FRAGMENTS_FORMAT,
                "scope": self.scope,
                "keys": list(pieces),
                "lengths": [len(piece) for piece in pieces.values()],
                "bytes": len(body),
                "sha256": hashlib.sha256(body).hexdigest(),
            },
            separators=(",", ":"),
        )
        return head.encode() + b"\n" + body

    def _append(self, pieces: dict[str, Piece]) -> bool:
        """Append ``pieces`` as a segment to the very file that was read, as it was read (its
        identity unchanged); False when it is not that file any more (then the caller rewrites
        it). The file with its new segment is recorded as checked once the clock has moved past
        it (files.file_system_now), so the next build need not check it again. Raises OSError."""
        assert self.path is not None and self._file is not None
        self._record(None)  # while the file changes
        descriptor = os.open(self.path, _APPEND_FLAGS)
        try:
            if files.identity(os.fstat(descriptor)) != self._file:
                return False
            # A crash part way leaves a segment cut short at the end: a miss, and a rewrite.
            segment = memoryview(self._encode(pieces)) if pieces else memoryview(b"")
            while segment:
                segment = segment[os.write(descriptor, segment) :]
            written = os.fstat(descriptor)
        finally:
            os.close(descriptor)
        if files.settled(written, files.file_system_now(self.path.parent, after_tick=True)):
            self._record(files.identity(written))
        return True


class _FileBody:
    """A segment's pieces as they stand in the file read (``descriptor``, from ``start``, ``size``
    bytes): each read from it when asked for (os.pread), all of them once a rewrite needs
    every one (``piece`` after ``load``)."""

    def __init__(self, descriptor: int, start: int, size: int) -> None:
        self.descriptor, self.start, self.size = descriptor, start, size
        self.loaded: memoryview | None = None

    def piece(self, start: int, end: int) -> Piece | None:
        """The body's bytes from ``start`` to ``end``; None when they cannot be read whole."""
        if self.loaded is not None:
            return self.loaded[start:end]
        try:
            found = os.pread(self.descriptor, end - start, self.start + start)
        except OSError:
            return None
        return found if len(found) == end - start else None

    def load(self) -> None:
        """Read the whole body, if it can be (else each piece is still read alone)."""
        if self.loaded is None:
            with contextlib.suppress(OSError):
                found = os.pread(self.descriptor, self.size, self.start)
                if len(found) == self.size:
                    self.loaded = memoryview(found)


def _line_at(descriptor: int, at: int, size: int) -> bytes | None:
    """The file's bytes from ``at`` up to its next newline (without it), in reads of growing
    size; None when the file (of ``size`` bytes) has none after ``at``."""
    chunks: list[bytes] = []
    step = 1 << 16
    while at < size:
        chunk = os.pread(descriptor, min(step, size - at), at)
        if not chunk:
            return None
        end = chunk.find(b"\n")
        if end >= 0:
            chunks.append(chunk[:end])
            return b"".join(chunks)
        chunks.append(chunk)
        at += len(chunk)
        step = min(step * 2, 1 << 24)
    return None


def key_of(make: Callable[..., object], *args: object) -> str:
    """The key of what ``make(*args)`` makes: ``make``'s name and its arguments (``_identity``),
    as ``Fragments.cached`` keeps a piece; also the key of a build's output files made that way
    (the picker's files of a model: build.SiteWriter.points)."""
    return Fragments.key(maker_name(make), *(_identity(arg) for arg in args))


def maker_name(make: Callable[..., object]) -> str:
    """``make``'s module and name, refused (TypeError) unless ``make`` is a plain function of its
    module: a closure, lambda, partial or bound method holds inputs its arguments do not show."""
    name = getattr(make, "__qualname__", "")
    if not inspect.isfunction(make) or make.__closure__ is not None or "<" in name or "." in name:
        raise TypeError(f"a kept piece is made by a plain function of its module, not {make!r}")
    return f"{make.__module__}.{name}"


# Checked once per maker: a data file asks for a piece of every run (cached_run_bytes).
_checked_maker_name = functools.cache(maker_name)


# Values that stand for themselves in a key (a subclass of one, such as an enum, is not one).
_PLAIN = frozenset({str, int, float, bool, type(None), bytes})


def _identity(value: object) -> object:
    """What a key names of ``value``: a run by its id and content digest, a group by the plan's
    digest (which names its runs' content, groups and labels, the site and the settings), or
    else by its own fields and its runs, anything else by its repr, which must say everything
    it holds (plain values, tuples, frozen dataclasses)."""
    if type(value) in _PLAIN:  # (most values of a key: asked first)
        return value
    if type(value) is tuple and all(type(item) in _PLAIN for item in value):
        return value  # the tuple of its items' identities: the items themselves
    if isinstance(value, Run):
        return ("run", *Fragments.content(value))
    if isinstance(value, Group):
        if value.digest:
            return ("group", value.digest)
        members = tuple(Fragments.content(run) for run in value.runs)
        return ("group", value.kind, value.key, value.slug, value.label, members)
    if isinstance(value, list | tuple):
        return tuple(_identity(item) for item in value)
    if type(value).__repr__ is object.__repr__:
        raise TypeError(f"{type(value).__name__} has no repr to key a kept piece by")
    return value
