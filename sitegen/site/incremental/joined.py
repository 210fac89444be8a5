"""Data files joined from many pieces (json_rows), spliced from the file the last build wrote.

A data file of every run (data/runs.json, data/capacity.json, ...) is a head, one piece per run
(or per setup, per model) joined by a separator, and a tail. Adding a run changes one piece and
leaves the others as they were, in the same order. A build that joins the file anew still asks
for every piece (a lookup and a slice of the kept pieces each) and copies all of them; here the
last build's file is taken as it stands instead: the pieces whose key is the last build's are
cut from it in runs as long as they stay in order, and only the others are made.

Each piece is known by the key the kept pieces know it by (``fragments.Fragments``, the one
place keys are made), in the pieces' scope (sitegen's code and templates, the settings, the
site): a piece spliced here is the piece the kept pieces would have given. The record of each
file (``.sitegen/build/joined.json``: its scope, the length of its head and tail, its pieces'
keys and lengths) is believed only while the file in the site is the very file the last build
wrote (its identity, recorded once it had settled: files.settled, as the kept pieces and the
folder records are); any doubt joins the file anew.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from sitegen import files
from sitegen.errors import SitegenError
from sitegen.files import MAX_STATE_BYTES, all_of_types, read_bounded, read_bounded_open
from sitegen.site.incremental.fragments import Piece
from sitegen.store import write_atomic

JOINED_FORMAT = "sitegen-joined-1"


@dataclass
class Joined:
    """A file as ``head``, then each item's piece (``piece(i)`` of the i-th of ``keys``; an empty
    one holds nothing and takes no separator) joined by ``separator``, then ``tail``. ``scope``:
    what the keys are keys in (fragments.Fragments.scope)."""

    head: bytes
    separator: bytes
    tail: bytes
    keys: list[str]
    piece: Callable[[int], Piece]
    scope: str

    def join(self) -> tuple[bytes, list[int]]:
        """The file made from every piece, and each piece's length."""
        pieces = [self.piece(at) for at in range(len(self.keys))]
        return self._file([piece for piece in pieces if piece]), [len(p) for p in pieces]

    def _file(self, parts: list[Piece]) -> bytes:
        """The head, ``parts`` apart by the separator, the tail: in one join (a data file of a
        large site is the largest file a build writes, and each copy of it counts)."""
        joined: list[Piece] = [self.separator] * (2 * len(parts) + 1)
        joined[0], joined[-1] = self.head, self.tail
        joined[1:-1:2] = parts
        return b"".join(joined) if parts else self.head + self.tail

    def splice(self, last: _Last, data: bytes) -> tuple[bytes, list[int]]:
        """The file made from ``data``, the last build's file as ``last`` records it: each piece
        whose key it holds cut from it (pieces that follow each other there, in one cut), the
        others made. The same bytes as ``join``."""
        gap, lengths = len(self.separator), last.lengths
        # Where each piece of the last file starts: after the head, each non-empty piece
        # followed by a separator (the first one's stands in the head's place).
        starts = list(
            itertools.accumulate((n + gap if n else 0 for n in lengths), initial=last.head)
        )
        cuts = _Cuts(data, gap)

        def cut(first: int, end: int) -> None:  # the last file's pieces first to end, in one
            if starts[end] > starts[first]:
                cuts.old(starts[first], starts[end] - gap)

        # The keys alike at both ends (most of them) are compared as lists, not one by one.
        same_start = _alike_at_start(last.keys, self.keys)
        room = min(len(last.keys), len(self.keys)) - same_start
        same_end = _alike_at_end(last.keys, self.keys, room)
        cut(0, same_start)
        made = lengths[:same_start]
        where = dict(zip(last.keys, range(len(lengths)), strict=True))
        for at in range(same_start, len(self.keys) - same_end):
            found = where.get(self.keys[at])
            if found is not None:
                made.append(lengths[found])
                cut(found, found + 1)
                continue
            piece = self.piece(at)
            made.append(len(piece))
            if piece:
                cuts.new(piece)
        cut(len(lengths) - same_end, len(lengths))
        made += lengths[len(lengths) - same_end :]
        return self._file(cuts.parts()), made


class _Cuts:
    """The parts of a spliced file, in order: stretches of the last file (one that follows the
    one before there extends it) and pieces made anew."""

    def __init__(self, data: bytes, gap: int) -> None:
        self.view, self.gap = memoryview(data), gap
        self._parts: list[Piece] = []
        self.start = self.end = -1  # the stretch being extended, if any

    def old(self, start: int, end: int) -> None:
        """The last file's bytes from ``start`` to ``end`` (whole pieces and the separators
        between them)."""
        if self.start >= 0 and start == self.end + self.gap:
            self.end = end
            return
        self._close()
        self.start, self.end = start, end

    def new(self, piece: Piece) -> None:
        self._close()
        self._parts.append(piece)

    def _close(self) -> None:
        if self.start >= 0:
            self._parts.append(self.view[self.start : self.end])
            self.start = -1

    def parts(self) -> list[Piece]:
        self._close()
        return self._parts


def _alike_at_start(old: list[str], new: list[str]) -> int:
    """How many keys the two lists share at their start (halving the span in doubt)."""
    low, high = 0, min(len(old), len(new))
    while low < high:
        middle = (low + high + 1) // 2
        if old[low:middle] == new[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _alike_at_end(old: list[str], new: list[str], room: int) -> int:
    """How many keys the two lists share at their end, at most ``room``."""
    low, high = 0, room
    while low < high:
        middle = (low + high + 1) // 2
        if old[len(old) - middle : len(old) - low] == new[len(new) - middle : len(new) - low]:
            low = middle
        else:
            high = middle - 1
    return low


@dataclass(frozen=True)
class _Last:
    """A file as the last build recorded it: its identity, its scope, its separator, the lengths
    of its head and tail, and each piece's key and length."""

    identity: files.Identity
    scope: str
    separator: bytes
    head: int
    tail: int
    keys: list[str]
    lengths: list[int]

    @classmethod
    def of(cls, joined: Joined, identity: files.Identity, lengths: list[int]) -> _Last:
        """The record of ``joined`` as written, its pieces ``lengths`` long, at ``identity``."""
        return cls(
            identity,
            joined.scope,
            joined.separator,
            len(joined.head),
            len(joined.tail),
            joined.keys,
            lengths,
        )

    def size(self) -> int:
        """How long the file it records is."""
        pieces = [length for length in self.lengths if length]
        body = sum(pieces) + len(self.separator) * (len(pieces) - 1) if pieces else 0
        return self.head + body + self.tail

    def as_json(self) -> list[Any]:
        return [
            list(self.identity),
            self.scope,
            self.separator.decode("latin-1"),
            self.head,
            self.tail,
            self.keys,
            self.lengths,
        ]


def _last_of(value: Any) -> _Last | None:
    """A file's record from its JSON form, or None when it has another shape."""
    if not isinstance(value, list) or len(value) != 7:
        return None
    identity, scope, separator, head, tail, keys, lengths = value
    if not (
        isinstance(identity, list)
        and len(identity) == 5
        and all_of_types(identity, int)
        and isinstance(scope, str)
        and isinstance(separator, str)
        and type(head) is int
        and type(tail) is int
        and min(head, tail) >= 0
        and isinstance(keys, list)
        and isinstance(lengths, list)
        and len(keys) == len(lengths)
        and all_of_types(keys, str)
        and all_of_types(lengths, int)
        and (not lengths or min(lengths) >= 0)
    ):
        return None
    try:
        gap = separator.encode("latin-1")
    except UnicodeEncodeError:
        return None
    return _Last(tuple(identity), scope, gap, head, tail, keys, lengths)  # type: ignore[arg-type]


class JoinedFiles:
    """The joined files of the last build (read from ``path`` when one is first asked for) and
    of this one (``write``), recorded for the next build by ``save``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._last: dict[str, Any] | None = None
        self._made: dict[str, tuple[Joined, list[int]]] = {}

    def _recorded(self, name: str) -> _Last | None:
        if self._last is None:
            try:
                document = orjson.loads(read_bounded(self.path, MAX_STATE_BYTES, what="a cache"))
            except (OSError, ValueError, SitegenError):
                document = None
            valid = isinstance(document, dict) and document.get("format") == JOINED_FORMAT
            found = document.get("files") if valid else None  # type: ignore[union-attr]
            self._last = found if isinstance(found, dict) else {}
        return _last_of(self._last.get(name))

    def make(self, name: str, site: Path, joined: Joined) -> bytes:
        """The file ``name`` of the site being built: spliced from the one at ``name`` in
        ``site`` (the last build's) when that is the file the last build recorded, in the same
        scope and with the same separator; else joined from every piece."""
        last = self._recorded(name)
        data = None
        if last is not None and last.scope == joined.scope and last.separator == joined.separator:
            data = _read_if(site / name, last)
        if last is not None and data is not None:
            made, lengths = joined.splice(last, data)
        else:
            made, lengths = joined.join()
        self._made[name] = (joined, lengths)
        return made

    def save(self, site: Path, clock: Path) -> None:
        """Record the files this build made, as they stand in ``site`` (after the swap and the
        spare's refresh, which links them), each only once it has settled, with the records of
        the files it kept; the record is left as it is when this build made none. Nothing
        recorded is only a full join next time."""
        if not self._made:
            return
        now = files.file_system_now(clock, after_tick=True)
        recorded = self._kept_records()
        for name, (joined, lengths) in sorted(self._made.items()):
            try:
                found = os.lstat(site / name)
            except OSError:
                continue
            if not files.settled(found, now):
                continue
            last = _Last.of(joined, files.identity(found), lengths)
            if last.size() == found.st_size:
                recorded[name] = last.as_json()
        with contextlib.suppress(OSError):
            document = {"format": JOINED_FORMAT, "files": recorded}
            write_atomic(self.path, orjson.dumps(document), durable=False)

    def _kept_records(self) -> dict[str, Any]:
        """The last build's records of the files this build kept (did not make): each is
        believed only while its file is the one it records, which _read_if checks."""
        last = self._last or {}
        return {name: last[name] for name in sorted(last.keys() - self._made.keys())}


def _read_if(path: Path, last: _Last) -> bytes | None:
    """The file at ``path`` when it is the very file ``last`` records (its identity, checked on
    the open file after reading it); else None."""
    try:
        data, descriptor = read_bounded_open(path, MAX_STATE_BYTES, what="a file of the site")
    except (OSError, SitegenError):
        return None
    try:
        found = os.fstat(descriptor)
    except OSError:
        return None
    finally:
        os.close(descriptor)
    if files.identity(found) != last.identity or len(data) != last.size():
        return None
    return data
