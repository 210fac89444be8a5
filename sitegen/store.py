"""The collected file: the versioned hand-over from ``collect`` to ``build``.

``.sitegen/collected.json`` holds every valid run as its canonical (redacted) result
document, sorted by id, with sorted keys, so the same content gives the same bytes, except
for the measurements: nine tenths of a result's bytes, and what a build needs of few runs.
Each run's measurements are a file of their own, ``.sitegen/measurements/<sha256>.json``
named by the sha256 of their canonical JSON, and the result holds that digest in their place.
The collected file is then a few hundred bytes a run, and a collect that adds a run writes
that file and one measurements file, where it used to write every run's measurements again
(and a build read, hashed and searched them).

A run's digest, the fingerprint every cache and page key goes by, is the sha256 of its
result as the collected file holds it: measurements included, through their digest.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from sitegen import __version__
from sitegen.errors import Problem, SitegenError
from sitegen.files import MAX_STATE_BYTES, read_bounded
from sitegen.record_decorator import record

if TYPE_CHECKING:
    from sitegen.model import Run

FORMAT_NAME = "sitegen-collected"
FORMAT_VERSION = 2  # 1: measurements inside the collected file
# The run id rule of collect.local (not imported: collect imports this module).
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,99}\Z")


@record
class CollectedRun:
    id: str
    origin: str
    result: dict[str, Any] | None  # None when ``canonical`` is given
    canonical: str | None = (
        None  # the result as canonical JSON, when already known (the collect cache)
    )
    # The digest of its entry, for a run whose text collect did not load (its file is as the
    # last collect read it, collect/manifest.py): collect copies its entry from the collected file.
    digest: str | None = None
    # Its result as stored, when the worker that checked it made that already (stored_and_canonical)
    stored: StoredResult | None = None


def collected_path(state_dir: Path) -> Path:
    return state_dir / "collected.json"


def written_record_path(state_dir: Path) -> Path:
    """Collect's record of the collected file it wrote last: the sha256 of its bytes."""
    return state_dir / "cache" / "collected-written"


def measurements_dir(state_dir: Path) -> Path:
    """Where each run's measurements are kept, one file each, named by their digest."""
    return state_dir / "measurements"


# One encoder for every document: json.dumps with options makes a new one per call.
_canonical = json.JSONEncoder(
    sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
).encode


_HEAD_BYTES = f'{{"format":{_canonical(FORMAT_NAME)},"runs":['.encode()
_TAIL_BYTES = f'],"version":{FORMAT_VERSION}}}\n'.encode()


@dataclass(frozen=True)
class StoredResult:
    """A result as the collected file holds it: ``text``, its canonical JSON with the
    measurements' digest in their place, and ``digest``, the sha256 of that text; and the
    measurements file (its digest and bytes), when the result has measurements."""

    text: str
    digest: str
    measurements: tuple[str, bytes] | None


def stored_result(result: dict[str, Any]) -> StoredResult:
    return stored_and_canonical(result)[0]


def stored_and_canonical(result: dict[str, Any]) -> tuple[StoredResult, str]:
    """``stored_result(result)`` and ``canonical(result)``, each member's JSON made once: what a
    collect worker hands back, so that writing the collected file makes nothing again. (The
    canonical text of an object is its members' texts in key order: json sorts the keys.)"""
    if "measurements" not in result:
        text = _canonical(result)
        return StoredResult(text, hashlib.sha256(text.encode()).hexdigest(), None), text
    members = {key: _canonical(value) for key, value in result.items()}
    data = members["measurements"].encode()
    name = hashlib.sha256(data).hexdigest()
    keys = sorted(members)
    text = _joined(keys, {**members, "measurements": f'"{name}"'})
    stored = StoredResult(text, hashlib.sha256(text.encode()).hexdigest(), (name, data))
    return stored, _joined(keys, members)


def _joined(keys: list[str], members: dict[str, str]) -> str:
    return "{" + ",".join(f"{_canonical(key)}:{members[key]}" for key in keys) + "}"


def encode(runs: list[CollectedRun]) -> tuple[bytes, dict[str, bytes]]:
    """The collected file of these runs, and the measurements files it names (by digest)."""
    entries: list[bytes | memoryview] = []
    measurements: dict[str, bytes] = {}
    for run in sorted(runs, key=lambda r: r.id):
        entry, stored = run_entry(run)
        entries.append(entry)
        if stored.measurements is not None:
            measurements[stored.measurements[0]] = stored.measurements[1]
    return assemble(entries)[0], measurements


def run_entry(run: CollectedRun) -> tuple[bytes, StoredResult]:
    """One run's entry in the collected file (what ``_canonical`` gives for it), and its result as
    stored."""
    stored = run.stored or stored_result(
        run.result if run.result is not None else json.loads(run.canonical or "null")
    )
    return (
        f'{{"digest":"{stored.digest}","id":{_canonical(run.id)},"origin":{_canonical(run.origin)},'
        f'"result":{stored.text}}}'
    ).encode(), stored


def assemble(entries: list[bytes | memoryview]) -> tuple[bytes, list[tuple[int, int]]]:
    """The collected file of these run entries (in id order), and where each lies in it: so a
    later collect can copy an unchanged run's entry from the file instead of making it again."""
    parts, spans = layout(entries)
    return b"".join(parts), spans


def layout(
    entries: list[bytes | memoryview],
) -> tuple[list[bytes | memoryview], list[tuple[int, int]]]:
    """assemble() before the join: the file's parts in order, and each entry's place."""
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
    """A fingerprint of a run's content (its digest in the collected file): build re-renders a
    run's pages only when it changes."""
    return stored_result(result).digest


def write_atomic(
    path: Path, data: bytes | Iterable[bytes | memoryview], durable: bool = True
) -> None:
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


def state_json(value: Any, sort_keys: bool = False) -> bytes:
    """``value`` as compact JSON for one of sitegen's state files, by orjson: the same JSON as
    ``json.dumps(value, sort_keys=sort_keys, separators=(",", ":"))`` (text beyond ASCII written
    as UTF-8, not escaped), several times faster for a large site's manifests. A value orjson
    refuses (an integer beyond 64 bits, a
    key that is not a string) is written by the json module."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS if sort_keys else 0)
    except orjson.JSONEncodeError:
        return json.dumps(value, sort_keys=sort_keys, separators=(",", ":")).encode()


# Every cache file starts with the checksum of what follows: a file cut short (caches skip
# fsync), hand-edited or replaced is a miss that is made again, never content.
_CACHE_HEADER = b"sitegen-cache sha256="


def write_cache(path: Path, data: bytes) -> None:
    """Keep ``data`` in a cache file, with its checksum; raises OSError."""
    write_atomic(
        path,
        _CACHE_HEADER + hashlib.sha256(data).hexdigest().encode() + b"\n" + data,
        durable=False,
    )


def read_cache(path: Path, limit: int = MAX_STATE_BYTES) -> bytes | None:
    """The data of a cache file, or None when it is missing or in any doubt (no follow, no pipe)."""
    try:
        raw = read_bounded(path, limit)
    except (OSError, SitegenError):
        return None
    header, _, data = raw.partition(b"\n")
    if (
        not header.startswith(_CACHE_HEADER)
        or header[len(_CACHE_HEADER) :] != hashlib.sha256(data).hexdigest().encode()
    ):
        return None
    return data


def write_collected(state_dir: Path, runs: list[CollectedRun]) -> Path:
    data, measurements = encode(runs)
    stored = stored_measurements(state_dir)
    write_measurements(state_dir, measurements, stored.digests)
    path = write_collected_bytes(state_dir, data)
    prune_measurements(state_dir, set(measurements), stored)
    return path


def write_collected_bytes(
    state_dir: Path, data: bytes, compare: bool = True, sha256: str | None = None
) -> Path:
    """Write the collected file; with ``compare``, not when it already holds ``data`` (False:
    the caller knows it differs, and reading it to compare would only cost time). The
    measurements files it names are written first (write_measurements). ``sha256``: the data's,
    when the caller has worked it out already (not hashed twice)."""
    path = collected_path(state_dir)
    try:
        if not (
            compare and path.is_file() and path.read_bytes() == data
        ):  # else keep it and its time stamp
            write_atomic(path, data)
    except OSError as exc:
        raise SitegenError(
            Problem(str(path), None, "", f"cannot write the collected file: {exc.strerror}")
        ) from None
    # After the file: a record naming bytes that never reached the disk is only a miss.
    with contextlib.suppress(
        OSError
    ):  # without it the next build checks every entry: slower, never wrong
        write_cache(
            written_record_path(state_dir), (sha256 or hashlib.sha256(data).hexdigest()).encode()
        )
    return path


def written_by_collect(state_dir: Path, sha256: str) -> bool:
    """Whether the collected file whose bytes have this sha256 is the very one collect wrote
    last, each entry's digest its own work: a build then need not check them again
    (read_collected's ``as_written``). A file edited, cut short or put there by hand differs."""
    return bool(sha256) and read_cache(written_record_path(state_dir)) == sha256.encode()


# Up to this many new measurements files are flushed to disk one by one; more (a first
# collect: one a run) with one os.sync(), far cheaper than an fsync each.
_FLUSHED_ONE_BY_ONE = 64
_MEASUREMENTS_NAME = re.compile(r"^([0-9a-f]{64})\.json\Z")


@dataclass(frozen=True)
class StoredMeasurements:
    """What one listing of the measurements folder found: the digests of its measurements
    files, and the temporary files a stopped collect left there."""

    digests: set[str]
    leftovers: list[str]


def stored_measurements(state_dir: Path) -> StoredMeasurements:
    """The measurements files there are, from one listing of their folder (a collect lists it
    once: it holds a file a run)."""
    found = StoredMeasurements(set(), [])
    with contextlib.suppress(OSError), os.scandir(measurements_dir(state_dir)) as listing:
        for entry in listing:
            named = _MEASUREMENTS_NAME.match(entry.name)
            if named and entry.is_file(follow_symlinks=False):
                found.digests.add(named.group(1))
            elif entry.name.startswith(".") and entry.name.endswith(".tmp"):
                found.leftovers.append(entry.name)
    return found


def write_measurements(state_dir: Path, measurements: dict[str, bytes], present: set[str]) -> None:
    """Write each measurements file not ``present`` already, on disk before the collected file
    that names them is written (so a power cut cannot leave it naming files that were lost)."""
    folder = measurements_dir(state_dir)
    new = sorted(name for name in measurements if name not in present)
    if not new:
        return
    one_by_one = len(new) <= _FLUSHED_ONE_BY_ONE or not hasattr(os, "sync")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name in new:
            write_atomic(folder / f"{name}.json", measurements[name], durable=one_by_one)
    except OSError as exc:
        raise SitegenError(
            Problem(str(folder), None, "", f"cannot write the measurements: {exc.strerror}")
        ) from None
    if not one_by_one:
        os.sync()


def prune_measurements(state_dir: Path, keep: set[str], stored: StoredMeasurements) -> None:
    """Remove the measurements files the collected file no longer names, and any left half
    written by a collect that was stopped (only collect and build, one at a time, use them):
    those of ``stored``, the listing taken before this collect wrote any."""
    folder = measurements_dir(state_dir)
    for name in [*(f"{digest}.json" for digest in stored.digests - keep), *stored.leftovers]:
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(folder, name))


# How many runs of a collected file hold their decoded measurements at once (model.DecodedRuns):
# more than any group of runs a page shows all of, and few enough to fit in memory.
DECODED_RUNS = 4000


def read_collected(
    state_dir: Path,
    display: str = ".sitegen/collected.json",
    data: bytes | None = None,
    as_written: bool = False,
) -> list[Run]:
    """Load the collected runs; a missing, foreign, outdated or damaged file asks for a new collect.

    The file is sitegen's own, but it sits in the project where anyone can edit or cut it
    short, so every entry is checked against its digest before it is believed, and each run's
    measurements against theirs when they are first read (_Measurements). ``as_written``: the
    caller found ``data`` to be the very bytes collect wrote (written_by_collect), whose digests
    collect worked out itself; they are taken as they stand instead of worked out again.
    Everything else is checked as always.
    """
    from sitegen.model import DecodedRuns, run_from_dict  # here: collect only writes the file

    document = _collected_document(collected_path(state_dir), display, data)
    entries = document.get("runs")
    if not isinstance(entries, list):
        raise SitegenError(Problem(display, None, "", _DAMAGED))
    folder = measurements_dir(state_dir)
    shown = f"{display.rpartition('/')[0] or '.'}/{folder.name}"
    decoded = DecodedRuns(DECODED_RUNS)
    runs = []
    for index, entry in enumerate(entries):
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("id"), str)
            or not ID_PATTERN.match(entry["id"])
            or not isinstance(entry.get("origin"), str)
            or not isinstance(entry.get("result"), dict)
        ):
            raise SitegenError(Problem(display, None, f"/runs/{index}", _DAMAGED))
        result, fingerprint = entry["result"], entry.get("digest")
        if not as_written:
            try:
                fingerprint = hashlib.sha256(_canonical(result).encode()).hexdigest()
            except (TypeError, ValueError):  # NaN or a value JSON cannot hold
                raise SitegenError(Problem(display, None, f"/runs/{index}", _DAMAGED)) from None
        if (
            entry.get("digest") != fingerprint
            or not isinstance(fingerprint, str)
            or not _SHA256.match(fingerprint)
        ):
            raise SitegenError(
                Problem(
                    display,
                    None,
                    f"/runs/{index}",
                    "does not match its checksum (edited by hand?); run `sitegen collect` again",
                )
            )
        measurements = None
        if "measurements" in result:
            stored = result["measurements"]
            if not isinstance(stored, str) or not _SHA256.match(stored):
                raise SitegenError(
                    Problem(display, None, f"/runs/{index}/result/measurements", _DAMAGED)
                )
            measurements = _Measurements(folder, stored, f"{shown}/{stored}.json")
        try:
            runs.append(
                run_from_dict(
                    entry["id"], result, entry["origin"], fingerprint, measurements, decoded
                )
            )
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            raise SitegenError(Problem(display, None, f"/runs/{index}", _DAMAGED)) from None
    return runs


_SHA256 = re.compile(r"^[0-9a-f]{64}\Z")


def _collected_document(path: Path, display: str, data: bytes | None) -> dict[str, Any]:
    """The collected file's document, once its format and version are this sitegen's."""
    try:
        # ``data``: the file's bytes when the caller has read them already (build hashes them
        # first).
        if data is None:
            data = read_bounded(path, MAX_STATE_BYTES, display, "the collected file")
        document = json.loads(data)
    except FileNotFoundError:
        raise SitegenError(
            Problem(display, None, "", "not found; run `sitegen collect` first")
        ) from None
    except (OSError, ValueError) as exc:
        raise SitegenError(
            Problem(display, None, "", f"unreadable ({exc}); run `sitegen collect` again")
        ) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT_NAME:
        raise SitegenError(
            Problem(display, None, "", "is not a sitegen collected file; run `sitegen collect`")
        )
    version = document.get("version")
    if not isinstance(version, int) or version < FORMAT_VERSION:
        raise SitegenError(
            Problem(
                display,
                None,
                "",
                f"was written by an older sitegen (format {version}); run `sitegen collect` to "
                f"upgrade it",
            )
        )
    if version > FORMAT_VERSION:
        raise SitegenError(
            Problem(
                display,
                None,
                "",
                f"was written by a newer sitegen (format {version}, this is "
                f"sitegen {__version__}); upgrade sitegen",
            )
        )
    return document


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")  # NaN or Infinity: canonical JSON never holds them


# strict: no control characters in strings; parse_constant: no NaN or Infinity.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant, strict=True)


class _Measurements:
    """A run's measurements, read from their file in ``measurements/`` when first asked for
    (Run.raw) and checked against the digest that names them: the decoded measurements of
    every run of a large site would not fit in memory, and a build that adds a run needs few.

    A file that does not hold what its name says is removed (its name promises content it
    does not have, so nothing is lost) before the build stops: the next collect, finding it
    missing, writes it again from the result file."""

    __slots__ = ("display", "folder", "sha256")

    def __init__(self, folder: Path, sha256: str, display: str) -> None:
        self.folder, self.sha256, self.display = folder, sha256, display

    def __call__(self) -> Any:
        path = self.folder / f"{self.sha256}.json"
        try:
            data = read_bounded(path, MAX_STATE_BYTES, self.display, "a measurements file")
        except FileNotFoundError:
            raise SitegenError(
                Problem(self.display, None, "", "is missing; run `sitegen collect` again")
            ) from None
        except SitegenError as error:  # a link, pipe or device (collect writes a file in its place)
            raise SitegenError(
                Problem(
                    self.display,
                    None,
                    "",
                    f"cannot be read ({error.problems[0].message}); run `sitegen collect` again",
                )
            ) from None
        except OSError as exc:
            raise SitegenError(
                Problem(
                    self.display,
                    None,
                    "",
                    f"cannot be read ({exc.strerror}); run `sitegen collect` again",
                )
            ) from None
        if hashlib.sha256(data).hexdigest() != self.sha256:
            problem = "does not match its checksum (edited by hand?)"
        else:
            try:
                return _DECODER.decode(data.decode())
            except (
                ValueError,
                UnicodeDecodeError,
            ):  # matches its name, but is not what collect writes
                problem = "is damaged (not what sitegen collect writes)"
        with contextlib.suppress(OSError):
            path.unlink()
        raise SitegenError(
            Problem(self.display, None, "", f"{problem}; run `sitegen collect` again")
        )


_DAMAGED = "is damaged (not what sitegen collect writes); run `sitegen collect` again"
