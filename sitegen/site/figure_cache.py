"""Each run's derived figures kept between builds, by the run's digest (.sitegen/cache/figures.json).

Every listing (the index, /capacity/, the preset views, capacity.json) shows figures of every
run, so a build after one run is added needs the capacity and headline figures of all of them.
Working them out again (about 16,000 capacities at 1,000 runs, each judging a column of
cells) cost more than half a second; reading them back costs a few milliseconds. An entry
belongs to a run's content (its digest), and the whole file to one version of sitegen's code
and templates and one set of service levels (``key``): anything else is a miss, and the
figures are worked out as before. The file is a cache file (store.write_cache: a checksum,
read without following links), and an entry of the wrong shape is a miss, never a figure.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import fields
from pathlib import Path
from typing import Any

from sitegen.config import ServiceLevel
from sitegen.site.capacity import Capacity
from sitegen.site.headlines import Headlines
from sitegen.store import read_cache, write_cache

FIGURES_FORMAT = "sitegen-figures"
_HEADLINE_FIELDS = tuple(field.name for field in fields(Headlines))


def _number(value: Any) -> bool:
    return value is None or (type(value) in (int, float))


def _capacity_entry(value: Any, levels: int) -> bool:
    return isinstance(value, list) and len(value) == 4 and type(value[0]) is int and type(value[1]) is int \
        and 0 <= value[1] < levels and (value[2] is None or type(value[2]) is int) and _number(value[3])


class StoredFigures:
    """The figures of the previous build's runs, and what this build adds to them."""

    def __init__(self, path: Path, key: str, levels: tuple[ServiceLevel, ...]) -> None:
        self.path = path
        self.key = key
        self.levels = levels
        self._level_index = {level: index for index, level in enumerate(levels)}
        self._entries: dict[str, dict[str, Any]] = {}
        self._loaded = ""  # the entries as read, to write the file only when they change
        data = read_cache(path)
        if data is None:
            return
        try:
            document = json.loads(data)
        except ValueError:
            return
        if isinstance(document, dict) and document.get("format") == FIGURES_FORMAT and document.get("key") == key \
                and isinstance(document.get("runs"), dict):
            self._entries = {digest: entry for digest, entry in document["runs"].items() if self._well_formed(entry)}
            self._loaded = json.dumps(self._entries, sort_keys=True)

    def _well_formed(self, entry: Any) -> bool:
        if not isinstance(entry, dict) or set(entry) - {"capacity", "headlines"}:
            return False
        headlines = entry.get("headlines")
        if headlines is not None and not (isinstance(headlines, list) and len(headlines) == len(_HEADLINE_FIELDS)
                                          and all(_number(value) for value in headlines)
                                          and type(headlines[-1]) is int):
            return False
        capacity = entry.get("capacity", [])
        return isinstance(capacity, list) and all(_capacity_entry(item, len(self.levels)) for item in capacity)

    def capacities(self, digest: str, accelerators: int) -> dict[tuple[int, ServiceLevel], Capacity]:
        """The stored capacities of a run's content, by its own context and level."""
        return {(context, self.levels[level]): Capacity(context, accelerators, held, total)
                for context, level, held, total in self._entries.get(digest, {}).get("capacity", [])}

    def headlines(self, digest: str) -> Headlines | None:
        stored = self._entries.get(digest, {}).get("headlines")
        return Headlines(*stored) if stored is not None else None

    def keep(self, figures: dict[str, tuple[dict[tuple[int, ServiceLevel], Capacity] | None, Headlines | None]]) -> None:
        """Write what this build's runs have (by digest; the figures of runs gone are dropped),
        when it differs from what was read. None is a figure this build did not ask for (a run
        whose listing pieces were all kept needs none): what was stored for it stays. A cache
        that cannot be written is only a miss next time."""
        entries: dict[str, dict[str, Any]] = {}
        for digest, (capacities, headlines) in figures.items():
            entry: dict[str, Any] = {}
            stored = self._entries.get(digest, {})
            if capacities is None:
                if "capacity" in stored:
                    entry["capacity"] = stored["capacity"]
            else:
                known = [[context, self._level_index[level], found.max_concurrency, found.total_tokens_per_s]
                         for (context, level), found in capacities.items() if level in self._level_index]
                if known:
                    entry["capacity"] = sorted(known, key=lambda item: (item[0], item[1]))
            if headlines is not None:
                entry["headlines"] = [getattr(headlines, name) for name in _HEADLINE_FIELDS]
            elif "headlines" in stored:
                entry["headlines"] = stored["headlines"]
            entries[digest] = entry
        if json.dumps(entries, sort_keys=True) == self._loaded:
            return
        document = {"format": FIGURES_FORMAT, "key": self.key, "runs": entries}
        with contextlib.suppress(OSError):
            write_cache(self.path, json.dumps(document, separators=(",", ":")).encode())
