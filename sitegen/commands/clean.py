"""``sitegen clean``: empty sitegen's caches, so that they take no room and the next build starts
cold.

Removed: ``.sitegen/cache/`` (drawn charts, the last good copies of remote sources, compiled
templates and schema checks, kept figures and pieces of pages) and ``.sitegen/build/`` (the
last build's records and its spare copy of the site). Kept: the collected runs
(``.sitegen/collected.json`` and ``.sitegen/measurements/``), so ``sitegen build`` works at once,
and the output folder. A folder that is a link is unlinked, never followed.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from sitegen.config import Config
from sitegen.errors import Problem, SitegenError

CLEANED = ("cache", "build")


@dataclass(frozen=True)
class Cleaned:
    folders: tuple[Path, ...]  # the folders removed
    files: int
    size: int  # bytes


def clean(config: Config) -> Cleaned:
    """Remove the cache folders of ``config``'s .sitegen/; raises SitegenError if one cannot be."""
    removed: list[Path] = []
    files = size = 0
    for name in CLEANED:
        folder = config.state_dir / name
        if folder.is_symlink():
            folder.unlink()
            removed.append(folder)
            continue
        if not folder.is_dir():
            continue
        count, total = _measure(folder)
        try:
            shutil.rmtree(folder)
        except OSError as exc:
            raise SitegenError(
                Problem(config.display(folder), None, "", f"cannot remove: {exc.strerror or exc}")
            ) from None
        removed.append(folder)
        files, size = files + count, size + total
    return Cleaned(tuple(removed), files, size)


def _measure(folder: Path) -> tuple[int, int]:
    """How many files ``folder`` holds and their bytes, links not followed."""
    count = total = 0
    for root, _, names in os.walk(folder):
        for name in names:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
            count += 1
    return count, total
