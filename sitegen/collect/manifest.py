"""What the last ``sitegen collect`` saw, so the next one reads only what changed.

``.sitegen/cache/collect-manifest.json`` holds, for each result file, the identity of the
file as it was read (device, inode, size, modification and change times, in nanoseconds)
with its entry-cache key, the digest of its checked text and its warnings; and, for the
collected file, its checksum, where each run's entry lies in it, and (once it is old enough
to be trusted) its own identity. As Make and Git do, a file whose identity is unchanged is
taken to hold what it held, without being read.

What could make that wrong, and why it does not:

- An edit that keeps the size and the modification time (``cp -p``, ``touch -d``, an edit
  within the time stamps' granularity): the change time cannot be set by anyone, and every
  write or rename moves it to the present.
- An edit in the same clock tick as the read, so that even the change time stays the same
  (Git's "racy" files): a file is recorded only when its change time is older, by more than
  any file system's granularity (FAT's two seconds), than a time stamp this collect took from
  the file system's own clock before it looked at any file. A newer file is read again next
  time, until it is old enough to be recorded.
- A file replaced by another (a rename over it, a new link): its inode or device differs.
- Files added, removed or renamed: the runs folder is listed on every collect; the manifest is
  only asked about the names found.
- sitegen's code, its schemas or sitegen.yaml changing: the manifest names the entry cache's
  salt (sitegen's code and schemas) and sitegen.yaml's bytes, and is ignored when either differs.
- The manifest or the collected file edited, cut short or replaced: the manifest is a cache
  file with a checksum (store.read_cache), and the collected file is believed only when its
  checksum (or, once old enough, its identity) is what was recorded.

Raw-output folders and remote sources are not recorded: they are checked as before, by
their own rules, on every collect.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from sitegen import files
from sitegen.errors import Problem
from sitegen.files import Identity
from sitegen.store import read_cache, state_json, write_cache

MANIFEST_NAME = "collect-manifest.json"
# 1: before the collected file's measurements had files of their own; 2: an object a file;
# 3: flat lists, a column read at a time (faster to load than an object a file).
FORMAT = 3
_FILE_ITEMS = 8  # name, the five numbers of its identity, its entry-cache key, its digest
_RUN_ITEMS = 6  # CollectedEntry's fields


class KnownFile(NamedTuple):
    """A valid result file as a collect read it."""

    identity: Identity
    key: str  # its entry-cache key (collect/cache.py)
    digest: str  # the sha256 of its checked, canonical text: the digest in the collected file
    warnings: tuple[Problem, ...]


class CollectedEntry(NamedTuple):
    """One run as the collected file holds it: its entry's bytes are ``data[start:end]``, and
    its measurements are in the file named by their digest (store.measurements_dir)."""

    id: str
    origin: str
    digest: str
    start: int
    end: int
    measurements: str = ""  # their digest; "" for a result without measurements


@dataclass
class Manifest:
    files: dict[str, KnownFile] = field(
        default_factory=dict
    )  # by the entry's name in content/runs/
    collected_sha256: str | None = None
    collected_identity: Identity | None = None  # recorded only once old enough to be trusted
    collected: list[CollectedEntry] = field(default_factory=list)

    def trusted(self, name: str, found: os.stat_result | None) -> KnownFile | None:
        """What ``name`` held when it was read, if its identity is still the one recorded."""
        known = self.files.get(name)
        if known is None or found is None or files.identity(found) != known.identity:
            return None
        return known

    def to_json(self, fingerprint: str) -> bytes:
        flat_files: list[Any] = []
        warnings = {}
        for name, known in sorted(self.files.items()):
            flat_files += (name, *known.identity, known.key, known.digest)
            if known.warnings:
                warnings[name] = [[w.source, w.line, w.pointer, w.message] for w in known.warnings]
        runs: list[Any] = []
        for entry in self.collected:
            runs += entry
        return state_json(
            {
                "format": FORMAT,
                "fingerprint": fingerprint,
                "files": flat_files,
                "warnings": warnings,
                "collected": {
                    "sha256": self.collected_sha256,
                    "identity": list(self.collected_identity) if self.collected_identity else None,
                    "runs": runs,
                },
            }
        )


def fingerprint(salt: bytes, config_bytes: bytes, runs_shown: str) -> str:
    """What every recorded outcome depends on besides the files: sitegen's code and schemas
    (the entry cache's salt), sitegen.yaml, and how the runs folder is named in messages."""
    digest = hashlib.sha256(salt)
    for part in (config_bytes, runs_shown.encode()):
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


def load(path: Path, expected: str) -> Manifest | None:
    """The manifest at ``path``, or None when missing, damaged or made for other code or
    settings."""
    data = read_cache(path)
    if data is None:
        return None
    try:
        document: Any = json.loads(data)
        if document.get("format") != FORMAT or document.get("fingerprint") != expected:
            return None
        flat, warned = document["files"], document["warnings"]
        columns = _columns(flat, _FILE_ITEMS, (str, int, int, int, int, int, str, str))
        if columns is None or not isinstance(warned, dict):
            return None
        names, identities = columns[0], zip(*columns[1:6], strict=True)
        found = dict(
            zip(
                names,
                map(
                    KnownFile._make,
                    zip(identities, columns[6], columns[7], [()] * len(names), strict=True),
                ),
                strict=True,
            )
        )
        for name, warnings in warned.items():
            found[name] = found[name]._replace(warnings=tuple(Problem(*w) for w in warnings))
        collected = document["collected"]
        runs = _columns(collected["runs"], _RUN_ITEMS, (str, str, str, int, int, str))
        if runs is None:
            return None
        entries = list(map(CollectedEntry._make, zip(*runs, strict=True)))
        sha = collected["sha256"]
        ident = collected["identity"]
        return Manifest(
            found,
            sha if isinstance(sha, str) else None,
            _identity(ident) if ident is not None else None,
            entries,
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _columns(flat: Any, width: int, kinds: tuple[type, ...]) -> list[list[Any]] | None:
    """The columns of a flat list of records of ``width`` items, each item of its column's type
    (exactly: a bool is no int); None when it is not that."""
    if not isinstance(flat, list) or len(flat) % width:
        return None
    columns = [flat[at::width] for at in range(width)]
    for column, kind in zip(columns, kinds, strict=True):
        if not files.all_of_types(column, kind):
            return None
    return columns


def _identity(value: Any) -> Identity:
    if (
        type(value) is not list
        or len(value) != 5
        or not all(type(number) is int for number in value)
    ):
        raise ValueError("not a file identity")
    device, inode, size, mtime, ctime = value
    return device, inode, size, mtime, ctime


def save(path: Path, manifest: Manifest, expected: str) -> None:
    """Keep the manifest; a manifest that cannot be written only costs the next collect time."""
    with contextlib.suppress(OSError):
        write_cache(path, manifest.to_json(expected))
