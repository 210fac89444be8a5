"""Remember checked result files by their content, so an unchanged file is neither parsed
nor validated again: an unchanged collect reads each file and one small cache entry.

The key covers everything the outcome depends on: the file's bytes and name, the schemas
and sitegen's own code (parsing, redaction and validation rules). Entries not used by a full
collect are removed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from functools import cache
from pathlib import Path

from sitegen import __version__
from sitegen.errors import Problem
from sitegen.resources import resource_dir
from sitegen.store import read_cache, write_cache


@cache
def code_salt() -> bytes:
    """A digest of sitegen's code and schemas: what every checked outcome also depends on."""
    digest = hashlib.sha256(__version__.encode())
    package = Path(__file__).resolve().parent.parent
    # A new redaction pattern or check must reach files checked before it existed.
    for path in [*sorted(package.rglob("*.py")), *sorted(resource_dir("schema").glob("*.json"))]:
        digest.update(path.as_posix().encode() + b"\0" + path.read_bytes())
    return digest.digest()


class EntryCache:
    """Checked, redacted result documents and their warnings, keyed by file content."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.used: set[str] = set()

    def key(self, source: str, raw: bytes) -> str:
        return hashlib.sha256(code_salt() + source.encode() + b"\0" + raw).hexdigest()

    def has(self, key: str) -> bool:
        return (self.folder / f"{key}.json").is_file()

    def get(self, key: str) -> tuple[list[Problem], str] | None:
        """The warnings of a checked document, and the document as canonical JSON text (parsed
        only by those who need it: collect copies the text as it is into collected.json)."""
        data = read_cache(self.folder / f"{key}.json")
        if data is None:
            return None  # missing, cut short (caches skip fsync) or edited: check the file again
        try:
            header, text = data.decode().split("\n", 1)
            warnings = [Problem(*warning) for warning in json.loads(header)["warnings"]]
        except (ValueError, KeyError, TypeError):
            return None
        self.used.add(key)
        return warnings, text

    def put(self, key: str, text: str, warnings: list[Problem]) -> None:
        """Keep a checked document, as canonical JSON text (as collected.json stores it)."""
        header = json.dumps(
            {"warnings": [[w.source, w.line, w.pointer, w.message] for w in warnings]}
        )
        self.used.add(key)
        with contextlib.suppress(OSError):  # a cache that cannot be written only costs time
            write_cache(self.folder / f"{key}.json", f"{header}\n{text}".encode())

    def prune(self) -> None:
        """Forget the entries this collect did not use: of files that are gone or changed (called
        after a collect that read a file, or found one gone)."""
        # Listed by name (os.scandir), not as Path objects (glob): the folder holds an entry a
        # result file, and a collect that reads one added file still prunes.
        with contextlib.suppress(OSError), os.scandir(self.folder) as entries:
            for entry in entries:
                if entry.name.endswith(".json") and entry.name[:-5] not in self.used:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(entry.path)
