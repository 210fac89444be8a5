"""The collected file: the versioned hand-over from ``collect`` to ``build``.

``.sitegen/collected.json`` holds every valid run as its canonical (redacted) result
document, sorted by id, with sorted keys, so the same content gives the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitegen import __version__
from sitegen.errors import Problem, SitegenError
from sitegen.model import Run, run_from_dict

FORMAT_NAME = "sitegen-collected"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class CollectedRun:
    id: str
    origin: str
    result: dict[str, Any] | None  # None when ``canonical`` is given
    canonical: str | None = None  # the result as canonical JSON, when already known (the collect cache)


def collected_path(state_dir: Path) -> Path:
    return state_dir / "collected.json"


# One encoder for every document: json.dumps with options makes a new one per call.
_canonical = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


def encode(runs: list[CollectedRun]) -> bytes:
    """The collected file: the same as ``_canonical`` of the whole document, but each run's
    result is serialised once and serves for both its digest and the file."""
    entries = []
    for run in sorted(runs, key=lambda r: r.id):
        result = run.canonical if run.canonical is not None else _canonical(run.result)
        fingerprint = hashlib.sha256(result.encode()).hexdigest()
        entries.append(f'{{"digest":"{fingerprint}","id":{_canonical(run.id)},"origin":{_canonical(run.origin)},'
                       f'"result":{result}}}')
    return (f'{{"format":{_canonical(FORMAT_NAME)},"runs":[{",".join(entries)}],'
            f'"version":{FORMAT_VERSION}}}\n').encode()


def canonical(value: Any) -> str:
    """The one JSON text of a value: sorted keys, no spaces, no NaN."""
    return _canonical(value)


def digest(result: dict[str, Any]) -> str:
    """A fingerprint of a run's content: build re-renders a run's pages only when it changes."""
    return hashlib.sha256(_canonical(result).encode()).hexdigest()


def write_atomic(path: Path, data: bytes, durable: bool = True) -> None:
    """Write ``data`` to ``path`` so readers see the old bytes or the new, never a mix.

    ``durable=False`` skips the flush to disk, for caches: after a power cut a cache file
    may be empty, which costs a rebuild of that entry, while a build writes thousands.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            if durable:
                stream.flush()
                os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_collected(state_dir: Path, runs: list[CollectedRun]) -> Path:
    path = collected_path(state_dir)
    data = encode(runs)
    try:
        if path.is_file() and path.read_bytes() == data:
            return path  # unchanged: keep the file (and its time stamp) as it is
        write_atomic(path, data)
    except OSError as exc:
        raise SitegenError(Problem(str(path), None, "", f"cannot write the collected file: {exc.strerror}")) from None
    return path


def read_collected(state_dir: Path, display: str = ".sitegen/collected.json") -> list[Run]:
    """Load the collected runs; a missing, foreign or outdated file asks for a new collect."""
    path = collected_path(state_dir)
    try:
        document = json.loads(path.read_bytes())
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
    return [run_from_dict(entry["id"], entry["result"], entry["origin"], entry.get("digest") or digest(entry["result"]))
            for entry in document["runs"]]
