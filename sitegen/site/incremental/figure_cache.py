"""Each run's derived figures kept between builds, by the run's digest
(.sitegen/cache/figures.json):
its capacities, its headlines and its decode outline (where its matrix has figures, which group
pages read instead of decoding every run's cells; capacity.Outline).

Every listing (the index, /capacity/, the preset views, capacity.json) shows figures of every
run, so a build after one run is added needs the capacity and headline figures of all of them.
Working them out again (a capacity judges a column of cells) costs far more than reading them
back (docs/performance-log.md). An entry
belongs to a run's content (its digest), and the whole file to one version of sitegen's code
and templates and one set of service levels (``key``): anything else is a miss, and the
figures are worked out as before. A part of the file in any doubt (its checksum, its scope) is
a miss, and an entry (or a part of one: its capacities, headlines or outline) of the wrong shape
is a miss, never a figure.

The file is a store of kept pieces (fragments.Fragments: segments of pieces, each checked
against its checksum, appended to), a piece a run: its entry's JSON text, by its digest, the
whole file in the scope of ``key``. A build after one run is added appends that run's entry
(and those of runs whose entries gained figures) and reads the others back as slices of the
file, rather than rewriting and checking every entry, or reading them line by line. An entry is
parsed only when a build asks for that run's figures, each part checked when it is asked for. An
outline, all a group page asks of its runs, is read alone from the end of its entry, where it is
written. Entries of runs no longer in the site go when the store is next rewritten
(Fragments.save: once as many bytes are no longer used as are).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import fields
from itertools import chain
from pathlib import Path
from typing import Any

from sitegen.config import ServiceLevel
from sitegen.files import all_of_types
from sitegen.site.figures.capacity import (
    Capacity,
    CellGrid,
    Outline,
    Remembered,
    stored_capacity_like,
)
from sitegen.site.figures.headlines import Headlines
from sitegen.site.incremental.fragments import Fragments

FIGURES_FORMAT = "sitegen-figures"
_HEADLINE_FIELDS = tuple(field.name for field in fields(Headlines))
_PARTS = frozenset({"capacity", "headlines", "outline"})
_OUTLINE_KEY = '"outline":'
_DECODER = json.JSONDecoder()


def _number(value: Any) -> bool:
    return value is None or (type(value) in (int, float))


def _capacity_entry(value: Any, levels: int) -> bool:
    # [context, level index, *Capacity.stored()]
    return (
        isinstance(value, list)
        and len(value) > 2
        and type(value[0]) is int
        and type(value[1]) is int
        and 0 <= value[1] < levels
        and stored_capacity_like(value[2:])
    )


class StoredFigures:
    """The figures of the previous build's runs, and what this build adds to them."""

    def __init__(self, path: Path | None, key: str, levels: tuple[ServiceLevel, ...]) -> None:
        self.key = key
        self.levels = levels
        self._level_index = {level: index for index, level in enumerate(levels)}
        self._store = Fragments(path, f"{FIGURES_FORMAT}:{key}", every_build_asks_all=True)
        self._parsed: dict[
            str, dict[str, Any] | None
        ] = {}  # those asked for: the entry, or None if malformed
        # The headlines this build was given back: others it has were worked out, and keep()
        # makes the entry again (a grid counts its own capacities worked out).
        self._served_headlines: set[str] = set()
        self._served_outlines: set[str] = set()  # likewise, each run's decode outline
        self._part_checks = {
            "capacity": self._capacity_like,
            "headlines": self._headlines_like,
            "outline": self._outline_like,
        }

    def _text(self, digest: str) -> str | None:
        """A run's entry as kept, as text; None when there is none (or it is not UTF-8)."""
        piece = self._store.found(digest)
        if piece is None:
            return None
        try:
            return str(piece, "utf-8")
        except UnicodeDecodeError:
            return None

    @staticmethod
    def _outline_like(outline: Any) -> bool:
        return (
            isinstance(outline, list)
            and len(outline) == 3
            and all_of_types(outline, list)
            and all_of_types(chain.from_iterable(outline), int)
        )

    @staticmethod
    def _headlines_like(headlines: Any) -> bool:
        return (
            isinstance(headlines, list)
            and len(headlines) == len(_HEADLINE_FIELDS)
            and all(_number(value) for value in headlines)
            and type(headlines[-1]) is int
        )

    def _capacity_like(self, capacity: Any) -> bool:
        return isinstance(capacity, list) and all(
            _capacity_entry(item, len(self.levels)) for item in capacity
        )

    def _entry(self, digest: str) -> dict[str, Any] | None:
        """The stored entry of a run's content, parsed on first use; None when there is none or
        it is not an entry (see _part for its parts)."""
        if digest in self._parsed:
            return self._parsed[digest]
        text = self._text(digest)
        entry: dict[str, Any] | None = None
        if text is not None:
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None
            entry = parsed if isinstance(parsed, dict) and not set(parsed) - _PARTS else None
        self._parsed[digest] = entry
        return entry

    def _part(self, digest: str, name: str) -> Any:
        """One part of a run's stored entry, checked when it is asked for: a group page asks for
        the outlines of all an accelerator's runs, and checking their capacities too would
        double its time. A part of the wrong shape is None (a miss)."""
        value = (self._entry(digest) or {}).get(name)
        return value if value is not None and self._part_checks[name](value) else None

    def _outline_alone(self, digest: str) -> Any:
        """The outline at the end of a run's entry, where keep writes it, read without parsing the
        rest of the entry: an accelerator's page asks for its runs' outlines and for nothing
        else of them, and parsing their whole entries (capacities mostly) is slow. None when the
        entry does not end with an outline of the right shape (the whole entry is parsed then,
        as for any other part)."""
        text = self._text(digest)
        if text is None or not text.endswith("]]}"):
            return None
        at = text.rfind(_OUTLINE_KEY)
        if at < 1 or text[at - 1] not in "{,":
            return None
        try:
            value, end = _DECODER.raw_decode(text, at + len(_OUTLINE_KEY))
        except ValueError:
            return None
        return value if end == len(text) - 1 and self._outline_like(value) else None

    def capacities(
        self, digest: str, accelerators: int
    ) -> dict[tuple[int, ServiceLevel], Capacity]:
        """The stored capacities of a run's content, by its own context and level."""
        return {
            (item[0], self.levels[item[1]]): Capacity.restored(item[0], accelerators, item[2:])
            for item in self._part(digest, "capacity") or []
        }

    def headlines(self, digest: str) -> Headlines | None:
        stored = self._part(digest, "headlines")
        if stored is None:
            return None
        self._served_headlines.add(digest)
        return Headlines(*stored)

    def outline(self, digest: str) -> Outline | None:
        stored = self._outline_alone(digest) if digest not in self._parsed else None
        if stored is None:
            stored = self._part(digest, "outline")
        if stored is None:
            return None
        self._served_outlines.add(digest)
        return Outline(*(tuple(part) for part in stored))

    def keep(
        self,
        figures: Iterable[
            tuple[str, CellGrid | Remembered | None, Headlines | None, Outline | None]
        ],
    ) -> None:
        """Keep what this build's runs have (by digest, with the run's grid if the build made one
        and its headlines if it had them) for the next build: the entries that gained figures
        are appended to the file, the others stay as they were read. A cache that cannot be
        written is only a miss next time (Fragments.save)."""
        store = self._store
        seen: set[str] = set()
        for digest, grid, headlines, outline in figures:
            if digest in seen:
                continue  # two runs of the same content: the same figures
            seen.add(digest)
            old = store.found(digest)
            if (
                old is not None
                and (grid is None or not grid.worked_out)
                and (headlines is None or digest in self._served_headlines)
                and (outline is None or digest in self._served_outlines)
            ):
                store.use(digest, old)  # nothing new: as read
                continue
            entry = self._made(
                digest, grid.known() if grid is not None else {}, headlines, outline
            ).encode()
            if old is not None and entry == old:
                store.use(digest, old)
            else:
                store.put(digest, entry)
        store.save()

    def _made(
        self,
        digest: str,
        known: dict[tuple[int, ServiceLevel], Capacity],
        headlines: Headlines | None,
        outline: Outline | None = None,
    ) -> str:
        """A run's entry: what the file had for it (when well formed), with this build's figures."""
        by_position = {(item[0], item[1]): item for item in self._part(digest, "capacity") or []}
        for (context, level), found in known.items():
            if level in self._level_index:
                by_position[(context, self._level_index[level])] = [
                    context,
                    self._level_index[level],
                    *found.stored(),
                ]
        entry: dict[str, Any] = {}
        if by_position:
            entry["capacity"] = [by_position[position] for position in sorted(by_position)]
        if headlines is not None:
            entry["headlines"] = [getattr(headlines, name) for name in _HEADLINE_FIELDS]
        elif (stored_headlines := self._part(digest, "headlines")) is not None:
            entry["headlines"] = stored_headlines
        if outline is not None:
            entry["outline"] = [list(part) for part in outline]
        elif (stored_outline := self._part(digest, "outline")) is not None:
            entry["outline"] = stored_outline
        return json.dumps(entry, separators=(",", ":"))
