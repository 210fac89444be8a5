"""The collected file: the versioned hand-over from ``collect`` to ``build``.

``.sitegen/collected.json`` holds every valid run as its canonical (redacted) result
document, sorted by id, with sorted keys, so the same content gives the same bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sitegen import __version__
from sitegen.errors import Problem, SitegenError
from sitegen.files import MAX_STATE_BYTES, read_bounded, read_bounded_open

if TYPE_CHECKING:
    from sitegen.model import Run

FORMAT_NAME = "sitegen-collected"
FORMAT_VERSION = 1
# The run id rule of collect.local (not imported: collect imports this module).
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,99}\Z")


@dataclass(frozen=True)
class CollectedRun:
    id: str
    origin: str
    result: dict[str, Any] | None  # None when ``canonical`` is given
    canonical: str | None = None  # the result as canonical JSON, when already known (the collect cache)
    # The sha256 of ``canonical``, for a run whose text collect did not load (its file is as the
    # last collect read it, collect/manifest.py): collect copies its entry from the collected file.
    digest: str | None = None


def collected_path(state_dir: Path) -> Path:
    return state_dir / "collected.json"


# One encoder for every document: json.dumps with options makes a new one per call.
_canonical = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


_HEAD_BYTES = f'{{"format":{_canonical(FORMAT_NAME)},"runs":['.encode()
_TAIL_BYTES = f'],"version":{FORMAT_VERSION}}}\n'.encode()


def encode(runs: list[CollectedRun]) -> bytes:
    """The collected file: the same as ``_canonical`` of the whole document, but each run's
    result is serialised once and serves for both its digest and the file."""
    return assemble([run_entry(run)[0] for run in sorted(runs, key=lambda r: r.id)])[0]


def run_entry(run: CollectedRun) -> tuple[bytes, str]:
    """One run's entry in the collected file (what ``_canonical`` gives for it), and its digest."""
    result = run.canonical if run.canonical is not None else _canonical(run.result)
    fingerprint = hashlib.sha256(result.encode()).hexdigest()
    return (f'{{"digest":"{fingerprint}","id":{_canonical(run.id)},"origin":{_canonical(run.origin)},'
            f'"result":{result}}}').encode(), fingerprint


def assemble(entries: list[bytes | memoryview]) -> tuple[bytes, list[tuple[int, int]]]:
    """The collected file of these run entries (in id order), and where each lies in it: so a
    later collect can copy an unchanged run's entry from the file instead of making it again."""
    parts, spans = layout(entries)
    return b"".join(parts), spans


def layout(entries: list[bytes | memoryview]) -> tuple[list[bytes | memoryview], list[tuple[int, int]]]:
    """assemble() before the join: the file's parts in order (write_collected_parts writes them
    without making the whole file in memory once more), and each entry's place."""
    spans: list[tuple[int, int]] = []
    parts: list[bytes | memoryview] = [_HEAD_BYTES]
    at = len(_HEAD_BYTES)
    for entry in entries:
        if len(parts) > 1:
            parts.append(b",")
            at += 1
        parts.append(entry)
        spans.append((at, at + len(entry)))
        at += len(entry)
    parts.append(_TAIL_BYTES)
    return parts, spans


def canonical(value: Any) -> str:
    """The one JSON text of a value: sorted keys, no spaces, no NaN."""
    return _canonical(value)


def digest(result: dict[str, Any]) -> str:
    """A fingerprint of a run's content: build re-renders a run's pages only when it changes."""
    return hashlib.sha256(_canonical(result).encode()).hexdigest()


def write_atomic(path: Path, data: bytes | Iterable[bytes | memoryview], durable: bool = True) -> None:
    """Write ``data`` (bytes, or parts written one after the other) to ``path`` so readers see
    the old bytes or the new, never a mix.

    ``durable=False`` skips the flush to disk, for caches: after a power cut a cache file
    may be empty, which costs a rebuild of that entry, while a build writes thousands.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb", buffering=1 << 22) as stream:  # parts may be small: buffered
            for part in (data,) if isinstance(data, bytes) else data:
                stream.write(part)
            if durable:
                stream.flush()
                os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# Every cache file starts with the checksum of what follows: a file cut short (caches skip
# fsync), hand-edited or replaced is a miss that is made again, never content.
_CACHE_HEADER = b"sitegen-cache sha256="


def write_cache(path: Path, data: bytes) -> None:
    """Keep ``data`` in a cache file, with its checksum; raises OSError."""
    write_atomic(path, _CACHE_HEADER + hashlib.sha256(data).hexdigest().encode() + b"\n" + data, durable=False)


def read_cache(path: Path, limit: int = MAX_STATE_BYTES) -> bytes | None:
    """The data of a cache file, or None when it is missing or in any doubt (no follow, no pipe)."""
    try:
        raw = read_bounded(path, limit)
    except (OSError, SitegenError):
        return None
    header, _, data = raw.partition(b"\n")
    if not header.startswith(_CACHE_HEADER) or header[len(_CACHE_HEADER):] != hashlib.sha256(data).hexdigest().encode():
        return None
    return data


def write_collected(state_dir: Path, runs: list[CollectedRun]) -> Path:
    return write_collected_bytes(state_dir, encode(runs))


def write_collected_bytes(state_dir: Path, data: bytes, compare: bool = True) -> Path:
    """Write the collected file; with ``compare``, not when it already holds ``data`` (False:
    the caller knows it differs, and reading it to compare would only cost time)."""
    path = collected_path(state_dir)
    try:
        if compare and path.is_file() and path.read_bytes() == data:
            return path  # unchanged: keep the file (and its time stamp) as it is
        write_atomic(path, data)
    except OSError as exc:
        raise SitegenError(Problem(str(path), None, "", f"cannot write the collected file: {exc.strerror}")) from None
    return path


def write_collected_parts(state_dir: Path, parts: list[bytes | memoryview]) -> str:
    """Write the collected file from its parts (layout()), as write_atomic() does: the sha256
    of what was written. At 20,000 runs the file is 300 MB: joined first, it would be copied
    and held in memory once more, and hashed in a second pass."""
    path = collected_path(state_dir)
    digest = hashlib.sha256()

    def hashed() -> Iterator[bytes | memoryview]:
        for part in parts:
            digest.update(part)
            yield part

    try:
        write_atomic(path, hashed())
    except OSError as exc:
        raise SitegenError(Problem(str(path), None, "", f"cannot write the collected file: {exc.strerror}")) from None
    return digest.hexdigest()


# How many runs of a collected file hold their decoded measurements at once (model.DecodedRuns):
# 4,000 are about 300 MB, and more than any group of runs a page shows all of at 20,000 runs.
DECODED_RUNS = 4000


def read_collected(state_dir: Path, display: str = ".sitegen/collected.json", data: bytes | None = None,
                   descriptor: int | None = None) -> list[Run]:
    """Load the collected runs; a missing, foreign, outdated or damaged file asks for a new collect.

    The file is sitegen's own, but it sits in the project where anyone can edit or cut it
    short, so every entry is checked against its digest before it is believed.
    """
    from sitegen.model import DecodedRuns, run_from_dict  # here: collect only writes the file

    path = collected_path(state_dir)
    try:
        # ``data``: the file's bytes when the caller has read them already (build hashes them
        # first), with ``descriptor``, the file they were read from, still open (this takes it).
        if data is None:
            data, descriptor = read_bounded_open(path, MAX_STATE_BYTES, display, "the collected file")
        source = _OpenFile(descriptor) if descriptor is not None else None
        written = _entries_as_written(data, display, source)
        if written is not None:
            decoded = DecodedRuns(DECODED_RUNS)
            with contextlib.suppress(KeyError, TypeError, ValueError, AttributeError, IndexError):
                # (an entry the model cannot take: the general path below says which)
                return [run_from_dict(run_id, result, origin, fingerprint, measurements, decoded)
                        for run_id, origin, result, fingerprint, measurements in written]
        document = json.loads(data)
    except FileNotFoundError:
        raise SitegenError(Problem(display, None, "", "not found; run `sitegen collect` first")) from None
    except (OSError, ValueError) as exc:
        raise SitegenError(Problem(display, None, "", f"unreadable ({exc}); run `sitegen collect` again")) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT_NAME:
        raise SitegenError(Problem(display, None, "", "is not a sitegen collected file; run `sitegen collect`"))
    version = document.get("version")
    if not isinstance(version, int) or version < FORMAT_VERSION:
        raise SitegenError(Problem(display, None, "",
                                   f"was written by an older sitegen (format {version}); run `sitegen collect` to upgrade it"))
    if version > FORMAT_VERSION:
        raise SitegenError(Problem(display, None, "", f"was written by a newer sitegen (format {version}, this is "
                                                      f"sitegen {__version__}); upgrade sitegen"))
    entries = document.get("runs")
    if not isinstance(entries, list):
        raise SitegenError(Problem(display, None, "", _DAMAGED))
    runs = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) or not ID_PATTERN.match(entry["id"]) \
                or not isinstance(entry.get("origin"), str) or not isinstance(entry.get("result"), dict):
            raise SitegenError(Problem(display, None, f"/runs/{index}", _DAMAGED))
        try:
            fingerprint = digest(entry["result"])
        except (TypeError, ValueError):  # NaN or a value JSON cannot hold
            raise SitegenError(Problem(display, None, f"/runs/{index}", _DAMAGED)) from None
        if entry.get("digest") != fingerprint:
            raise SitegenError(Problem(display, None, f"/runs/{index}", "does not match its checksum (edited by "
                                       "hand?); run `sitegen collect` again"))
        try:
            runs.append(run_from_dict(entry["id"], entry["result"], entry["origin"], fingerprint))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            raise SitegenError(Problem(display, None, f"/runs/{index}", _DAMAGED)) from None
    return runs


class _NotAsWritten(Exception):
    """The collected file is not exactly in encode()'s form: read_collected's general path decides."""


def _reject_constant(name: str) -> None:
    raise _NotAsWritten(name)  # NaN or Infinity: canonical JSON never holds them


# strict: no control characters in strings; parse_constant: no NaN or Infinity.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant, strict=True)
_HEAD = '{"format":' + _canonical(FORMAT_NAME) + ',"runs":['
_TAIL = '],"version":' + str(FORMAT_VERSION) + '}\n'


# The result schemas' top-level fields that can follow "measurements" in sorted order: "provenance"
# when there is one, else "run", which every result has (tests/test_damaged_state.py checks this
# against the schemas; a result without them is decoded whole).
_AFTER_MEASUREMENTS = ('},"provenance":', '},"run":')
# Where an entry of the collected file ends and the next begins.
_NEXT_ENTRY = '},{"digest":"'


class _OpenFile:
    """The collected file as it was read, kept open so that a run's text can be read from it
    again (os.pread): the very file, whatever is renamed onto its name meanwhile. Closed when
    the last run made from it is gone."""

    __slots__ = ("descriptor",)

    def __init__(self, descriptor: int) -> None:
        self.descriptor = descriptor

    def read(self, start: int, stop: int) -> bytes:
        parts = []
        while start < stop:
            part = os.pread(self.descriptor, stop - start, start)
            if not part:
                break  # cut short since it was read: the caller's digest check says so
            parts.append(part)
            start += len(part)
        return b"".join(parts)

    def __del__(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.descriptor)


class _Measurements:
    """A run's measurements as the collected file holds them, canonical JSON text checked with
    the result's digest, decoded when first asked for (Run.raw): at 20,000 runs the decoded
    measurements of every run would be gigabytes, and a build that adds a run needs few.

    Where the file is still open, the text is not kept either (300 MB at 20,000 runs): the
    result is read from the file again (``result``: where its bytes are; ``start`` and ``end``
    then count characters from its start) and checked against its digest once more, so what is
    decoded is what was checked."""

    __slots__ = ("display", "end", "fingerprint", "index", "result", "source", "start", "text")

    def __init__(self, start: int, end: int, display: str, index: int, text: str = "",
                 source: _OpenFile | None = None, result: tuple[int, int] = (0, 0), fingerprint: str = "") -> None:
        self.start, self.end, self.display, self.index, self.text = start, end, display, index, text
        self.source, self.result, self.fingerprint = source, result, fingerprint  # the result's span, its digest

    def __call__(self) -> Any:
        text, start, end = self.text, self.start, self.end
        if self.source is not None:
            data = self.source.read(*self.result)
            if hashlib.sha256(data).hexdigest() != self.fingerprint:
                raise SitegenError(Problem(self.display, None, f"/runs/{self.index}", "changed while sitegen was "
                                           "reading it; run `sitegen build` again"))
            text = data.decode()
        try:
            value, at = _DECODER.raw_decode(text, start)
        except (ValueError, _NotAsWritten):
            at = -1
        if at != end:  # text that matches its digest but is not one JSON value: not collect's
            raise SitegenError(Problem(self.display, None, f"/runs/{self.index}", _DAMAGED))
        return value


Entry = tuple[str, str, dict[str, Any], str, "_Measurements | None"]


def _entries_as_written(data: bytes, display: str = "", source: _OpenFile | None = None) -> list[Entry] | None:
    """Each run (id, origin, result, digest, measurements) of a collected file in exactly the
    form encode() writes, or None for any other file (read_collected's general path then finds
    what is wrong). ``measurements``, when not None, gives the result's measurements, which the
    result holds as a placeholder (None) until then.

    Why: the general path parses the document, then serialises every result again to check
    it against its digest, which costs as much as the parsing. Here each result's digest is
    checked against the result's own text in the file, the bytes collect hashed: an edit by
    hand or a file cut short no longer matches. (Someone who writes a matching digest on
    purpose gets their content read either way: re-serialising would not stop that either.)
    And only the fields around the measurements are decoded now (see _split_result)."""
    try:
        text = data.decode()
    except UnicodeDecodeError:
        return None
    if not text.startswith(_HEAD) or not text.endswith(_TAIL):
        return None
    end = len(text) - len(_TAIL)
    view = memoryview(data) if len(text) == len(data) else None  # all ASCII: hash the bytes in place

    def hashed(start: int, stop: int) -> str:
        return hashlib.sha256(view[start:stop] if view is not None else text[start:stop].encode()).hexdigest()

    # Where a place in the text is in the file: the same, unless some character before it takes
    # more than a byte. Asked for in order, so each stretch of the text is measured once.
    shift = [0, 0]  # the place measured up to, bytes beyond characters there

    def byte_at(place: int) -> int:
        if view is None:
            shift[1] += len(text[shift[0]:place].encode()) - (place - shift[0])
            shift[0] = place
        return place + shift[1]

    at = len(_HEAD)
    entries: list[Entry] = []
    try:
        while at < end:
            if entries:
                if text[at] != ",":
                    return None
                at += 1
            if not text.startswith('{"digest":"', at):
                return None
            fingerprint = text[at + 11:at + 75]
            at += 75
            if not text.startswith('","id":', at):
                return None
            run_id, at = _DECODER.raw_decode(text, at + 7)
            if not text.startswith(',"origin":', at):
                return None
            origin, at = _DECODER.raw_decode(text, at + 10)
            if not text.startswith(',"result":{', at):
                return None
            start = at + 10
            if not isinstance(run_id, str) or not ID_PATTERN.match(run_id) or not isinstance(origin, str):
                return None
            # Where this result ends, unless the text of a result holds what looks like the next
            # entry's start: then the split below finds no end that matches, and the result is
            # decoded whole. Either way each result's text is searched and hashed once or twice.
            stop = text.find(_NEXT_ENTRY, start)
            stop = end - 1 if stop < 0 else stop
            split = _split_result(text, start, stop)
            if split is not None and hashed(start, stop) == fingerprint:
                result, m_start, m_end = split
                at = stop
                if source is not None:  # read from the file again when needed, offsets within the result
                    span = (byte_at(start), byte_at(stop))
                    measurements: _Measurements | None = _Measurements(
                        m_start - start, m_end - start, display, len(entries), source=source, result=span,
                        fingerprint=fingerprint)
                else:
                    measurements = _Measurements(m_start, m_end, display, len(entries), text=text)
            else:  # not in the form _split_result reads: decoded whole, as the general path would
                result, at = _DECODER.raw_decode(text, start)
                if not isinstance(result, dict) or not text.startswith("}", at) or hashed(start, at) != fingerprint:
                    return None
                measurements = None
            entries.append((run_id, origin, result, fingerprint, measurements))
            at += 1
    except (ValueError, IndexError, _NotAsWritten):
        return None
    if at != end:
        return None
    return entries


def _split_result(text: str, start: int, stop: int) -> tuple[dict[str, Any], int, int] | None:
    """The result object whose text is ``text[start:stop]``, with its measurements left as text:
    its fields ("measurements" a placeholder) and where the measurements' text starts and ends;
    None when it is not that, and the caller decodes the result whole.

    The fields before the measurements are decoded in turn. Where the measurements end is
    found without decoding them: at the first ``},"provenance":`` or ``},"run":`` from which
    the rest parses as the result's last fields, ending at ``stop``. Such text inside the
    measurements (a nested mapping with those keys) fails that test, its parse ending at the
    mapping's own end, and the next one is tried. (The caller then checks the digest of the
    whole text: what the fast path reads is what collect hashed.)"""
    fields: dict[str, Any] = {}
    at = start + 1
    while True:
        if text[at] != '"':
            return None
        key, at = _DECODER.raw_decode(text, at)
        if text[at] != ":" or key in fields:
            return None
        at += 1
        if key == "measurements":
            break
        fields[key], at = _DECODER.raw_decode(text, at)
        if text[at] != ",":
            return None
        at += 1
    fields["measurements"] = None  # in its place among the fields; Run.raw puts the value there
    m_start = search = at
    provenance, run = _AFTER_MEASUREMENTS
    while (found := text.find(run, search, stop)) >= 0:
        before = text.find(provenance, search, found)
        m_end = (before if before >= 0 else found) + 1
        tail = _last_fields(text, m_end, fields)
        if tail is not None and tail[1] == stop:
            return tail[0], m_start, m_end
        search = m_end
    return None


def _last_fields(text: str, at: int, before: dict[str, Any]) -> tuple[dict[str, Any], int] | None:
    """The fields ``,"key":value…}`` at ``at`` added to a copy of ``before``, and where the
    closing brace ends; None when the text there is not that."""
    fields = dict(before)
    try:
        while text[at] == ",":
            if text[at + 1] != '"':
                return None
            key, at = _DECODER.raw_decode(text, at + 1)
            if text[at] != ":" or key in fields:
                return None
            fields[key], at = _DECODER.raw_decode(text, at + 1)
    except (ValueError, IndexError):
        return None
    return (fields, at + 1) if text.startswith("}", at) else None


_DAMAGED = "is damaged (not what sitegen collect writes); run `sitegen collect` again"
