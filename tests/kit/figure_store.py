"""The figures cache's file (sitegen/site/incremental/figure_cache.py) read and written by hand,
by its documented layout (a JSON line saying each piece's key and length, the body's size and its
sha256, then the pieces end to end), not through the code under test: for the tests of the cache,
of damaged state and of what a build keeps."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from sitegen.site.incremental.figure_cache import FIGURES_FORMAT

SCOPE = f"{FIGURES_FORMAT}:key"  # the store's scope: the format's name and the key it was kept for


def segments(path: Path) -> list[tuple[dict[str, object], bytes]]:
    """Each segment of the file: its head and its body."""
    data = path.read_bytes()
    found, at = [], 0
    while at < len(data):
        end = data.index(b"\n", at)
        head = json.loads(data[at:end])
        found.append((head, data[end + 1 : end + 1 + head["bytes"]]))
        at = end + 1 + head["bytes"]
    return found


def entries(path: Path) -> dict[str, str]:
    """Each run's entry as the file holds it last (a later segment's in place of an earlier
    one's)."""
    found: dict[str, str] = {}
    for head, body in segments(path):
        start = 0
        for key, length in zip(head["keys"], head["lengths"], strict=True):  # type: ignore[call-overload]
            found[key] = body[start : start + length].decode()
            start += length
    return found


def write_entries(path: Path, held: dict[str, str], scope: str = SCOPE) -> None:
    """A file of one segment holding ``held`` (entry text by digest), as a hand would write it."""
    pieces = [text.encode() for text in held.values()]
    body = b"".join(pieces)
    head = {
        "format": "sitegen-fragments-3",
        "scope": scope,
        "keys": list(held),
        "lengths": [len(piece) for piece in pieces],
        "bytes": len(body),
        "sha256": hashlib.sha256(body).hexdigest(),
    }
    path.write_bytes(json.dumps(head).encode() + b"\n" + body)
