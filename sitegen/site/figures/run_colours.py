"""One colour per run on every page: a run's colour place (PALETTE[place], class ``s<place>``).

The rule: a run's place is its position among its model's runs in the model page's order
(newest first), modulo the palette's size. Any eight runs next to each other in that order have
eight colours, so a model page and the reader's view of runs of one model draw each run in the
same colour. Where two runs of one chart would share a place (runs of
different models, or more than eight runs apart) the later one takes the next free place, so no
chart of up to eight runs repeats a colour; docs/comparisons.md says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from sitegen.site.draw.chart_specs import PALETTE
from sitegen.site.figures.grouping import Group


def model_places(groups: Iterable[Group]) -> dict[str, int]:
    """Each run's preferred place, by run id, from the model groups among ``groups``."""
    return {
        run.id: index % len(PALETTE)
        for group in groups
        if group.kind == "models"
        for index, run in enumerate(group.runs)
    }


def chart_places(run_ids: Sequence[str], places: Mapping[str, int] | None) -> list[int]:
    """The places of the runs one chart or comparison draws, in order: each its own preferred
    place where free, else the next free one after it. Without ``places``, or beyond the
    palette's size, their positions on the chart."""
    if places is None or len(run_ids) > len(PALETTE):
        return [index % len(PALETTE) for index in range(len(run_ids))]
    taken: set[int] = set()
    chosen = []
    for run_id in run_ids:
        place = places.get(run_id, 0)
        while place in taken:
            place = (place + 1) % len(PALETTE)
        taken.add(place)
        chosen.append(place)
    return chosen
