"""Where a listing of runs model by model (the index, /capacity/, the preset views) breaks into
pages, so that adding a run changes the pages of its own model, not every page.

Why not a page every ``size`` runs: all three listings show the runs model after model, so a
run added to one model would push one row of every later page onto the next, and every page of
every listing would be made and written again by a build that adds one run. Here a page ends
after a model that the model itself chooses: after model
``m`` when a number drawn from its key (``draw``: sha256, uniform in [0, 1)) is below its share
of a page, ``len(m.runs) / size``. That choice depends on nothing but the model, so a run added
to a model leaves every other page as it was, except in two cases that renumber the pages after
it (about one added run in ``size``): its model's draw falls between its old and its new share,
or its page grows past ``2 × size`` runs. A page holds ``size`` runs on average and never more
than ``2 × size``: a stretch between two chosen ends that is longer is cut every ``2 × size``
runs, within a model if need be (its part on the next page is "continued"). This is the idea of
content-defined chunking (as rsync and backup tools cut files), applied to a list of models.

The first page is the exception: it ends at the first model end from ``size`` runs on (or at
``2 × size``), so the page every visitor loads first weighs about the same on every site. A run
added to one of its models can move its end, and so the start of the second page.

The rule is deterministic: the same runs give the same pages, whatever the builds before.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from sitegen.site.figures.grouping import Group

_DRAW_SCALE = 2.0**64


def draw(model_key: str) -> float:
    """The model's number in [0, 1): the first 8 bytes of the sha256 of its key."""
    return (
        int.from_bytes(hashlib.sha256(b"page end\0" + model_key.encode()).digest()[:8], "big")
        / _DRAW_SCALE
    )


@dataclass(frozen=True)
class Paging:
    """The pages of one listing: each page's first and last + 1 positions in the listing (every
    model's runs, one model after another, in the models' order)."""

    bounds: tuple[tuple[int, int], ...]

    @property
    def count(self) -> int:
        return len(self.bounds)

    def slices(self, models: Sequence[Group], number: int) -> list[tuple[Group, int, int]]:
        """The parts of the models that page ``number`` (from 1) holds: (model, first, last + 1),
        positions within the model."""
        return self.parts(models)[number - 1]

    def parts(self, models: Sequence[Group]) -> list[list[tuple[Group, int, int]]]:
        """Every page's slices, in one pass over the models."""
        pages: list[list[tuple[Group, int, int]]] = [[] for _ in self.bounds]
        number = offset = 0
        for group in models:
            size = len(group.runs)
            while number < len(self.bounds):
                start, end = self.bounds[number]
                first, last = max(start, offset), min(end, offset + size)
                if first < last:
                    pages[number].append((group, first - offset, last - offset))
                if end >= offset + size:
                    break
                number += 1
            offset += size
        return pages

    def page_of(self, position: int) -> int:
        """The number of the page that holds the run at ``position`` of the listing."""
        return max(1, bisect.bisect_right([start for start, _ in self.bounds], position))


def listed_models(groups: dict[tuple[str, str], Group]) -> list[Group]:
    """The models of a site's groups (site_groups) in the listings' order: by the model's own
    name, its organisation prefix aside ("openai/gpt-oss-120b" as "gpt-oss-120b"), then key."""
    models = (group for (kind, _), group in groups.items() if kind == "models")
    return sorted(models, key=model_listing_order)


def model_listing_order(group: Group) -> tuple[str, str]:
    """A model group's place in listings: its own name (after the last "/"), then its key."""
    return group.key.rsplit("/", 1)[-1], group.key


def paging(models: Sequence[Group], size: int) -> Paging:
    """The pages of a listing of ``models`` (in its order), ``size`` runs a page on average."""
    limit = 2 * size
    bounds: list[tuple[int, int]] = []
    start = offset = 0
    for group in models:
        offset += len(group.runs)
        while offset - start > limit:  # a stretch no model ended soon enough
            bounds.append((start, start + limit))
            start += limit
        # The first page (the listing's front door, whose weight should not depend on which
        # models happen to come first) ends at the first model end from ``size`` runs on.
        ends = offset - start >= size if not bounds else draw(group.key) < len(group.runs) / size
        if offset > start and ends:
            bounds.append((start, offset))
            start = offset
    if offset > start or not bounds:
        bounds.append((start, offset))
    return Paging(tuple(bounds))
