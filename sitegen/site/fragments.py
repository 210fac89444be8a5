"""Pieces of listing pages and data files kept between builds (.sitegen/cache/fragments.json).

Why: a listing (the index pages, /capacity/, the preset views, the data files of every run)
shows every run, so adding one run changes every page of it, while each piece of it (a run's
row, a model's section, a run's record in a data file) is made from a few runs that did not
change. A build asks for a piece by a key of everything it is made from; a piece the previous
build made under the same key is read back as text, and only the others are made. Joining
kept pieces costs microseconds where making them costs milliseconds.

The key is the caller's: it must name every input of the piece (run digests, labels, the
page's depth for relative links...). The whole file belongs to one ``scope`` (sitegen's code
and templates, the settings and the site), so a change of any of those misses every piece.
The file keeps only the pieces the last build that made any used, so it never outgrows the
site by more than one build's leftovers, and it is a cache file (store.write_cache: a
checksum, read without following links): any doubt is a miss, and the piece is made again.

The file is a line of JSON (the keys, and each piece's length in characters), then the pieces'
text end to end, each read back as a slice: at 1,000 runs (3,000 pieces, 1.9 MB) reading and
writing them as JSON strings cost about 25 ms a build, escaping and unescaping every quote of
every piece, where slicing them costs a few.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jinja2 import Environment

from sitegen.model import Run
from sitegen.resources import resource_dir
from sitegen.site.render import environment
from sitegen.store import digest, read_cache, write_cache

FRAGMENTS_FORMAT = "sitegen-fragments"


class Fragments:
    """The pieces of the previous build, and those of this one as they are asked for."""

    def __init__(self, path: Path | None, scope: str, templates: Environment | None = None) -> None:
        self.path = path
        self.scope = scope
        # The build's templates, which render the pieces of pages (``render``); without them
        # (tests, tools) the ones sitegen ships.
        self.templates = templates
        self._macros: Any = None
        self._kept: dict[str, str] = {}
        self._used: dict[str, str] = {}
        self.made = 0  # pieces made (not found) in this build
        data = read_cache(path) if path is not None else None
        if data is None:
            return
        head, _, body = data.partition(b"\n")
        try:
            document = json.loads(head)
            text = body.decode()
        except ValueError:  # UnicodeDecodeError is one
            return
        if not (isinstance(document, dict) and document.get("format") == FRAGMENTS_FORMAT
                and document.get("scope") == scope):
            return
        keys, lengths = document.get("keys"), document.get("lengths")
        if not (isinstance(keys, list) and isinstance(lengths, list) and len(keys) == len(lengths)
                and all(isinstance(key, str) for key in keys)
                and all(type(length) is int and length >= 0 for length in lengths) and sum(lengths) == len(text)):
            return
        at = 0
        for key, length in zip(keys, lengths, strict=True):
            self._kept[key] = text[at:at + length]
            at += length

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
        found = self._used.get(key)
        if found is None:
            found = self._kept.get(key)
            if found is None:
                found = make()
                self.made += 1
            self._used[key] = found
        return found

    def render(self, macro: str, *args: object) -> str:
        """The HTML of templates/_macros.html's ``macro`` called with ``args``: a piece of a page,
        as the page's template would have written it in place."""
        if self._macros is None:
            if self.templates is None:
                self.templates = environment(resource_dir("templates"))
            self._macros = self.templates.get_template("_macros.html").module
        return str(getattr(self._macros, macro)(*args))

    def save(self) -> None:
        """Keep this build's pieces (only them) for the next build, when it made any. A build
        that made none keeps the file as it is: one that rebuilt no listing (the pages were
        still in place) used few pieces, and dropping the others would make the next listing
        build a cold one. A cache that cannot be written is only a miss next time."""
        if self.path is None or self.made == 0:
            return
        texts = list(self._used.values())
        head = json.dumps({"format": FRAGMENTS_FORMAT, "scope": self.scope, "keys": list(self._used),
                           "lengths": [len(text) for text in texts]}, separators=(",", ":"))
        with contextlib.suppress(OSError):
            write_cache(self.path, f"{head}\n{''.join(texts)}".encode())
