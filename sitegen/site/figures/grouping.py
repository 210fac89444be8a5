"""Group runs for the comparison pages: by model, by accelerator, and the natural pairs.

Every grouping is linear in the number of runs: one page per group, and within a group
of one model on one accelerator each run is paired only with the run before it, so the
ready-made comparisons grow with the runs, not with their square.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from sitegen.model import Run
from sitegen.site.incremental.memo import ByRuns


@dataclass(frozen=True)
class Group:
    """Runs that share a model or an accelerator, and the page that shows them. ``digest``: the
    plan's (plan._group_digests: the site, the settings, and each run's content, groups and
    distinguishing label), what a kept piece made from the group is keyed by; "" outside a plan
    (the piece is then keyed by the group's own fields and its runs' content)."""

    kind: str  # "models" or "hardware"
    key: str
    slug: str
    label: str
    runs: tuple[Run, ...]
    digest: str = field(default="", compare=False, repr=False)

    @property
    def path(self) -> str:
        return f"{self.kind}/{self.slug}/"


def slugify(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:80].strip("-") or "unnamed"


def model_key(run: Run) -> str:
    """Runs of one model (or of quantizations of one base model) share this key."""
    return (run.info.base_model or run.info.model).lower()


# One accelerator, several names: what tools print for it (llama-bench's gpu_info names the
# device as the driver does) → the name its runs are grouped under. Keys in lower case.
# docs/comparisons.md lists them; sitegen.yaml's accelerator_aliases adds to them.
ACCELERATOR_ALIASES: dict[str, str] = {
    "radeon 8060s graphics": "Radeon 8060S",
    "radeon 8060s graphics (radv gfx1151)": "Radeon 8060S",
    "radeon 8050s graphics": "Radeon 8050S",
    "radeon 890m graphics": "Radeon 890M",
    "geforce rtx 4090": "RTX 4090",
    "geforce rtx 5090": "RTX 5090",
    "geforce rtx 3090": "RTX 3090",
    "rx 7900 xtx": "Radeon RX 7900 XTX",
}
_aliases = dict(ACCELERATOR_ALIASES)


def use_accelerator_aliases(extra: Iterable[tuple[str, str]]) -> None:
    """Group by the shipped aliases and ``extra`` ((lower-case alias, name) pairs, from
    sitegen.yaml): set once by each build, before anything is grouped. The build's Settings
    hold ``extra`` too, so that a changed table changes every page key."""
    global _aliases
    _aliases = {**ACCELERATOR_ALIASES, **dict(extra)}
    _alias_of.cache_clear()


def accelerator_name(run: Run) -> str:
    """The name the run's accelerator is grouped and listed under (an alias's, else its own)."""
    return _alias_of(run.hardware.accelerator)


@functools.lru_cache(maxsize=4096)
def _alias_of(name: str) -> str:
    """``name``'s alias, else ``name``: worked out once for each of a site's few accelerator
    names (a build asks for every run's several times); forgotten when the aliases change."""
    return _aliases.get(" ".join(name.lower().split()), name)


def accelerator_key(run: Run) -> str:
    return accelerator_name(run).lower()


def _newest_first(run: Run) -> tuple[str, str]:
    return (run.info.date or "", run.id)


def _groups(
    kind: str,
    runs: list[Run],
    key: Callable[[Run], str],
    label: Callable[[Run], str],
    short: Callable[[str], str],
    newest_first: bool = False,
) -> list[Group]:
    """The groups of ``runs`` by ``key``; ``newest_first``: the runs come in their groups' order
    already (newest first), so that each group keeps it instead of being sorted."""
    members: dict[str, list[Run]] = defaultdict(list)
    for run in runs:
        members[key(run)].append(run)
    # Short slugs read better; a short slug two groups would share falls back to the full key.
    shorts = defaultdict(list)
    for group_key in members:
        shorts[slugify(short(group_key))].append(group_key)
    groups = []
    for group_key, group_runs in members.items():
        slug = slugify(short(group_key))
        if len(shorts[slug]) > 1:
            slug = slugify(group_key)
        ordered = (
            tuple(group_runs)
            if newest_first
            else tuple(sorted(group_runs, key=_newest_first, reverse=True))
        )
        groups.append(Group(kind, group_key, slug, label(ordered[0]), ordered))
    return sorted(groups, key=lambda g: g.slug)


def model_groups(runs: list[Run], newest_first: bool = False) -> list[Group]:
    return _groups(
        "models",
        runs,
        model_key,
        lambda r: r.info.base_model or r.info.model,
        lambda key: key.rsplit("/", 1)[-1],
        newest_first,
    )


def hardware_groups(runs: list[Run], newest_first: bool = False) -> list[Group]:
    def label(run: Run) -> str:
        vendor, name = run.hardware.vendor, accelerator_name(run)
        return f"{vendor} {name}" if vendor else name

    return _groups("hardware", runs, accelerator_key, label, lambda key: key, newest_first)


def _site_groups(runs: tuple[Run, ...]) -> dict[tuple[str, str], Group]:
    # Sorted once, newest first, and each group takes its runs in that order (no ties: run ids
    # differ): sorting each group of each kind on its own cost twice as much.
    members = sorted(runs, key=_newest_first, reverse=True)
    return {
        (g.kind, g.key): g for g in model_groups(members, True) + hardware_groups(members, True)
    }


_RECENT_GROUPS = ByRuns(_site_groups)


def site_groups(runs: Iterable[Run]) -> dict[tuple[str, str], Group]:
    """Every model and accelerator group of ``runs`` by (kind, key), worked out once for the
    same run objects however many stages of a build ask (the caller gets its own dict)."""
    return dict(_RECENT_GROUPS(runs))


def natural_pairs(
    runs: list[Run], compares: Callable[[Run], bool] = lambda run: True
) -> list[tuple[Run, Run]]:
    """(older, newer) pairs of consecutive runs of one model on one accelerator, among those a
    comparison page has something of to show (``compares``: decode cells or prefill rows, which
    two open-loop runs at their own loads would not; sections.setups.SiteHistory.compares)."""
    # From the model groups, whose runs are in order already (newest first): a build asks for
    # both, and sorting the runs again cost half as much as this.
    pairs: list[tuple[Run, Run]] = []
    for (kind, _), group in site_groups(runs).items():
        if kind != "models":
            continue
        on: dict[str, list[Run]] = defaultdict(list)
        for run in reversed(group.runs):  # oldest first
            if compares(run):
                on[accelerator_key(run)].append(run)
        for members in on.values():
            pairs += itertools.pairwise(members)
    return sorted(pairs, key=lambda pair: (pair[0].id, pair[1].id))


def closest_runs(
    members: tuple[Run, ...], place: dict[str, int], run: Run, partners: set[str], count: int
) -> tuple[Run, ...]:
    """At most ``count`` other runs of a group, for a run page's comparison links: its natural
    pair partners first, then the runs nearest it in the group's order (newest first; ``place``
    is each member's index there). Nearest, not newest, so a new run changes the links of the
    few runs beside it, not of every page of its model and accelerator (each such page would
    be built again)."""
    own = place[run.id]
    # Partners by distance (of equals the earlier), then the others outward from the run, the
    # earlier side first: a walk of at most ``count`` steps each way, not a sort of the window
    # (asked for twice for each run by every plan).
    first = sorted(
        (place[i] for i in partners if i in place and i != run.id),
        key=lambda at: (abs(at - own), at),
    )
    chosen = [members[at] for at in first[:count]]
    taken = set(first)
    for distance in range(1, len(members)):
        if len(chosen) >= count or (own - distance < 0 and own + distance >= len(members)):
            break
        for at in (own - distance, own + distance):
            if 0 <= at < len(members) and at not in taken and len(chosen) < count:
                chosen.append(members[at])
    return tuple(chosen)


def compare_path(*runs: Run) -> str:
    """The reader's comparison view of ``runs``, the first the baseline (compare.js draws it)."""
    return "compare/?runs=" + ",".join(run.id for run in runs)
