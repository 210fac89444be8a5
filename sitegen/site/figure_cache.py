"""Each run's derived figures kept between builds, by the run's digest (.sitegen/cache/figures.json):
its capacities, its headlines and its decode outline (where its matrix has figures, which group
pages read instead of decoding every run's cells; capacity.Outline).

Every listing (the index, /capacity/, the preset views, capacity.json) shows figures of every
run, so a build after one run is added needs the capacity and headline figures of all of them.
Working them out again (about 16,000 capacities at 1,000 runs, each judging a column of
cells) cost more than half a second; reading them back costs a few milliseconds. An entry
belongs to a run's content (its digest), and the whole file to one version of sitegen's code
and templates and one set of service levels (``key``): anything else is a miss, and the
figures are worked out as before. The file is a cache file (store.write_cache: a checksum,
read without following links), and an entry (or a part of one: its capacities, headlines or
outline) of the wrong shape is a miss, never a figure.

The file is one JSON document, written one run a line, so that a build after one run is added
reads and writes it without parsing or serialising the other runs' figures: parsing and
writing every entry cost 25 ms at 1,000 runs, more than the rest of keeping them. An entry is
parsed only when a build asks for that run's figures, each part checked when it is asked for,
and an entry nobody asked for is written back as the text it was read as. An outline, all a
group page asks of its runs, is read alone from the end of its line, where it is written. A
file of another layout (a hand-edited one) is parsed whole, and each entry still checked before
it is believed.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable
from dataclasses import fields
from itertools import chain
from pathlib import Path
from typing import Any

from sitegen.config import ServiceLevel
from sitegen.files import all_of_types
from sitegen.site.capacity import Capacity, CellGrid, Outline, Remembered
from sitegen.site.headlines import Headlines
from sitegen.store import read_cache, write_cache

FIGURES_FORMAT = "sitegen-figures"
_HEADLINE_FIELDS = tuple(field.name for field in fields(Headlines))
_PARTS = frozenset({"capacity", "headlines", "outline"})
_OUTLINE_KEY = '"outline":'
_DECODER = json.JSONDecoder()


def _number(value: Any) -> bool:
    return value is None or (type(value) in (int, float))


def _capacity_entry(value: Any, levels: int) -> bool:
    return isinstance(value, list) and len(value) == 4 and type(value[0]) is int and type(value[1]) is int \
        and 0 <= value[1] < levels and (value[2] is None or type(value[2]) is int) and _number(value[3])


def _text(entry: dict[str, Any]) -> str:
    return json.dumps(entry, separators=(",", ":"))


class StoredFigures:
    """The figures of the previous build's runs, and what this build adds to them."""

    def __init__(self, path: Path, key: str, levels: tuple[ServiceLevel, ...]) -> None:
        self.path = path
        self.key = key
        self.levels = levels
        self._level_index = {level: index for index, level in enumerate(levels)}
        self._head = f'{{"format":"{FIGURES_FORMAT}","key":{json.dumps(key)},"runs":{{'
        self._texts: dict[str, str] = {}  # each entry as read, by digest
        self._parsed: dict[str, dict[str, Any] | None] = {}  # those asked for: the entry, or None if malformed
        # The headlines this build was given back: others it has were worked out, and keep()
        # makes the entry again (a grid counts its own capacities worked out).
        self._served_headlines: set[str] = set()
        self._served_outlines: set[str] = set()  # likewise, each run's decode outline
        self._part_checks = {"capacity": self._capacity_like, "headlines": self._headlines_like,
                             "outline": self._outline_like}
        data = read_cache(path)
        if data is None:
            return
        try:
            text = data.decode()
        except UnicodeDecodeError:
            return
        lines = text.split("\n")
        if len(lines) >= 2 and lines[0] == self._head and lines[-1] == "}}":
            texts = self._lines(lines[1:-1])
            if texts is not None:
                self._texts = texts
                return
        self._read_whole(text)

    @staticmethod
    def _lines(lines: list[str]) -> dict[str, str] | None:
        """``"<digest>":<entry>`` a line, a comma after each but the last; None otherwise."""
        texts: dict[str, str] = {}
        last = len(lines) - 1
        for number, line in enumerate(lines):
            if number < last:
                if not line.endswith(","):
                    return None
                line = line[:-1]
            end = line.find('":')
            if not line.startswith('"') or end < 1 or line.find('"', 1) != end:
                return None
            texts[line[1:end]] = line[end + 2:]
        return texts

    def _read_whole(self, text: str) -> None:
        try:
            document = json.loads(text)
        except ValueError:
            return
        if isinstance(document, dict) and document.get("format") == FIGURES_FORMAT and document.get("key") == self.key \
                and isinstance(document.get("runs"), dict):
            for digest, entry in document["runs"].items():
                well_formed = self._well_formed(entry)
                self._parsed[digest] = entry if well_formed else None
                self._texts[digest] = _text(entry) if well_formed else "{}"

    def _well_formed(self, entry: Any) -> bool:
        return isinstance(entry, dict) and not set(entry) - _PARTS \
            and all(entry.get(part) is None or self._part_checks[part](entry[part]) for part in _PARTS)

    @staticmethod
    def _outline_like(outline: Any) -> bool:
        return isinstance(outline, list) and len(outline) == 3 and all_of_types(outline, list) \
            and all_of_types(chain.from_iterable(outline), int)

    @staticmethod
    def _headlines_like(headlines: Any) -> bool:
        return isinstance(headlines, list) and len(headlines) == len(_HEADLINE_FIELDS) \
            and all(_number(value) for value in headlines) and type(headlines[-1]) is int

    def _capacity_like(self, capacity: Any) -> bool:
        return isinstance(capacity, list) and all(_capacity_entry(item, len(self.levels)) for item in capacity)

    def _entry(self, digest: str) -> dict[str, Any] | None:
        """The stored entry of a run's content, parsed on first use; None when there is none or
        it is not an entry (see _part for its parts)."""
        if digest in self._parsed:
            return self._parsed[digest]
        text = self._texts.get(digest)
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
        the outlines of an accelerator's 1,700 runs at 20,000 runs, and checking their
        capacities too was half of its time. A part of the wrong shape is None (a miss)."""
        value = (self._entry(digest) or {}).get(name)
        return value if value is not None and self._part_checks[name](value) else None

    def _outline_alone(self, digest: str) -> Any:
        """The outline at the end of a run's line, where keep writes it, read without parsing the
        rest of the line: an accelerator's page asks for 1,700 runs' outlines at 20,000 runs and
        for nothing else of them, and parsing their whole entries (capacities mostly) was a third
        of its time. None when the line does not end with an outline of the right shape (the
        whole entry is parsed then, as for any other part)."""
        text = self._texts.get(digest)
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

    def capacities(self, digest: str, accelerators: int) -> dict[tuple[int, ServiceLevel], Capacity]:
        """The stored capacities of a run's content, by its own context and level."""
        return {(context, self.levels[level]): Capacity(context, accelerators, held, total)
                for context, level, held, total in self._part(digest, "capacity") or []}

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

    def keep(self, figures: Iterable[tuple[str, CellGrid | Remembered | None, Headlines | None, Outline | None]]) -> None:
        """Write what this build's runs have (by digest, with the run's grid if the build made
        one and its headlines if it had them; the figures of runs gone are dropped), when it
        differs from what was read. An entry whose figures all came from the file, or that the
        build did not ask for, is written back as it was read. A cache that cannot be written
        is only a miss next time."""
        texts: dict[str, str] = {}
        changed = False
        for digest, grid, headlines, outline in figures:
            if digest in texts:
                continue  # two runs of the same content: the same figures
            old = self._texts.get(digest)
            if old is not None and (grid is None or not grid.worked_out) \
                    and (headlines is None or digest in self._served_headlines) \
                    and (outline is None or digest in self._served_outlines):
                texts[digest] = old  # nothing new: as read
                continue
            entry = self._made(digest, grid.known() if grid is not None else {}, headlines, outline)
            texts[digest] = entry
            changed = changed or entry != old
        if not changed and texts.keys() == self._texts.keys():
            return
        lines = ",\n".join(f'"{digest}":{text}' for digest, text in texts.items())
        with contextlib.suppress(OSError):
            write_cache(self.path, f"{self._head}\n{lines}\n}}}}".encode())

    def _made(self, digest: str, known: dict[tuple[int, ServiceLevel], Capacity], headlines: Headlines | None,
              outline: Outline | None = None) -> str:
        """A run's entry: what the file had for it (when well formed), with this build's figures."""
        by_position = {(item[0], item[1]): item for item in self._part(digest, "capacity") or []}
        for (context, level), found in known.items():
            if level in self._level_index:
                by_position[(context, self._level_index[level])] = \
                    [context, self._level_index[level], found.max_concurrency, found.total_tokens_per_s]
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
        return _text(entry)
