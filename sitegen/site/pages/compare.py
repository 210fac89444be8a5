"""/compare/: the reader's comparison view of any 2 to 6 runs (``?runs=a,b,c``, drawn in the
browser by templates/static/compare.js from each run's JSON and /data/setups.json), the runs it
offers, and the ready-made comparisons: each natural pair (consecutive runs of one model on one
accelerator), a link to that view.

Every comparison has the same sections, top to bottom: caveats (what makes the runs unlike),
the setup table (facts and launch settings, differences marked), the ratio matrix against a
baseline, the decode curves at every context two runs share, the throughput/interactivity
frontier, and prefill. This module gives the view the words it shares with the rest of the site
(setups.json: the facts, launch settings and caveats' rules) and the links to it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from markupsafe import Markup

from sitegen.model import Run
from sitegen.site.figures import labels, numbers
from sitegen.site.figures.grouping import Group, compare_path, model_key, site_groups
from sitegen.site.figures.launch_settings import (
    SETTINGS,
    parse_launch_command,
    speculative_decoding,
)
from sitegen.site.figures.paging import listed_models
from sitegen.site.figures.run_colours import model_places
from sitegen.site.incremental.fragments import Fragments
from sitegen.site.incremental.joined import Joined
from sitegen.site.json_rows import RunPieces
from sitegen.site.page import Field, Page, Site, hardware_name, model_name

LETTERS = "ABCDEF"
MAX_RUNS = len(LETTERS)


@dataclass(frozen=True)
class CompareAppContext:
    """/compare/: pick any runs (JavaScript), or follow a ready-made comparison. ``options``: the
    picker's runs, an <optgroup> a model (compare_options in templates/_macros.html); ``pairs``:
    the ready-made comparisons, model after model (compare_pairs); each model's a kept piece."""

    site: Site
    title: str
    options: Markup
    pairs: Markup
    max_runs: int


# --- the setup table and the caveats --------------------------------------------------------


def _joined(*parts: str | None) -> str | None:
    return " ".join(p for p in parts if p) or None


FACTS: tuple[tuple[str, Callable[[Run], str | None]], ...] = (
    ("Model", lambda r: r.info.model),
    ("Accelerator", lambda r: hardware_name(r, with_memory=True).rsplit(" ×", 1)[0]),
    ("Accelerators", lambda r: str(r.hardware.count)),
    ("Engine", lambda r: _joined(r.engine.name, r.engine.version)),
    ("Quantization", lambda r: r.engine.quantization),
    ("Parallelism", lambda r: r.engine.parallelism),
    ("Speculative decoding", lambda r: speculative_decoding(r.engine)),
    ("Benchmark tool", lambda r: _joined(r.info.benchmark_tool, r.info.benchmark_tool_version)),
    ("Decode test", lambda r: labels.DECODE_MODES.get(r.info.decode_mode or "")),
    (
        "Time per measurement",
        lambda r: (
            numbers.seconds_setting(r.info.time_per_measurement_s)
            if r.info.time_per_measurement_s is not None
            else None
        ),
    ),
    (
        "Max output",
        lambda r: numbers.tokens(r.info.max_output_tokens) if r.info.max_output_tokens else None,
    ),
    ("Date", lambda r: r.info.date),
)


# Differences that change what a figure means, so the comparison names them at the top.
_CAVEAT_FACTS: tuple[tuple[str, str], ...] = (
    ("Model", "Different models: their tokens are not the same work."),
    ("Quantization", "Different quantizations: the figures include the quantization's effect."),
    (
        "Accelerators",
        "Different numbers of accelerators: figures are per accelerator (total tok/s ÷ "
        "accelerators, "
        "a derived figure) unless a section says otherwise.",
    ),
    ("Benchmark tool", "Different benchmark tools: they load the server differently."),
    (
        "Decode test",
        "Different decode tests: one request at a time, a batch and a sustained load differ.",
    ),
    ("Time per measurement", "Different times per measurement."),
    ("Max output", "Different maximum output lengths per request."),
)


MAX_LINKED = 5  # other runs a run page offers per group, in one side-by-side view (MAX_RUNS in all)


def run_comparisons(
    site: Site, run: Run, groups: list[tuple[str, tuple[Run, ...]]], paired: set[tuple[str, str]]
) -> tuple[Field, ...]:
    """Links from a run's page to the reader's view (compare.js) beside the other runs of its
    model and of its accelerator: one link for each natural pair it is in, then, per group, one
    link to the run beside the group's closest others (one link a group, not one a run, so a
    run page stays small). The run whose page it is is always the baseline."""
    links: list[Field] = []
    seen = {run.id}
    for noun, members in groups:
        others = [other for other in members if other.id != run.id][: min(MAX_LINKED, MAX_RUNS - 1)]
        for other in others:
            if other.id not in seen and _paired(run, other, paired):
                links.append(
                    Field(f"Compare with {other.id}", other.id, site.url(compare_path(run, other)))
                )
        unlinked = [
            other for other in others if other.id not in seen and not _paired(run, other, paired)
        ]
        seen.update(other.id for other in others)
        if not unlinked:
            continue  # every one of them has its own link above
        label = (
            f"Compare with {others[0].id}"
            if len(others) == 1
            else f"Compare with {len(others)} other runs {noun}"
        )
        links.append(Field(label, noun, site.url(compare_path(run, *others))))
    return tuple(links)


def _paired(run: Run, other: Run, paired: set[tuple[str, str]]) -> bool:
    return (run.id, other.id) in paired or (other.id, run.id) in paired


SETUPS_FORMAT = "sitegen-setups"


def setups_json(runs: list[Run], fragments: Fragments | None = None) -> bytes:
    """/data/setups.json: what the reader's comparison view (compare.js) needs beyond each
    run's result file: its facts and launch settings as the run pages word them, and the
    caveats' rules, so the view and the pages built here never disagree on either.

    Written as ``json.dumps(document, sort_keys=True)`` would write it, with each run's entry a
    piece kept between builds (json_rows.run_piece): an added run makes only its own."""
    return setups_joined(runs, fragments).join()[0]


def setups_joined(runs: list[Run], fragments: Fragments | None = None) -> Joined:
    """``setups_json`` as a file a build splices from its last one (joined.Joined)."""
    head = _setups_dumps(
        {
            "format": SETUPS_FORMAT,
            "facts": [label for label, _ in FACTS],
            "launch": [[key, label] for key, label in SETTINGS],
            "caveats": [[label, text] for label, text in _CAVEAT_FACTS],
            # The words of a decode mode, for a reader's own file (ownfile.js works out its facts).
            "decode_modes": labels.DECODE_MODES,
        }
    )
    # Sorted keys put "runs" after "launch" and before "version", and the runs by id. Each
    # run's colour place on its model's page (run_colours) is an input of its piece.
    places = model_places(site_groups(runs).values())
    ordered = sorted(runs, key=lambda r: r.id)
    pieces = RunPieces(fragments, _setup_entry, ordered, [(places[run.id],) for run in ordered])
    return Joined(
        f'{head[:-1]},"runs":{{'.encode(),
        b",",
        b'},"version":1}\n',
        pieces.keys,
        pieces.piece,
        pieces.scope,
    )


def _setups_dumps(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _setup_entry(run: Run, place: int = 0) -> str:
    """A run's member of setups.json's ``runs``: its id, then its entry (``colour``: its colour
    place on its model's page, which compare.js gives it where free)."""
    parsed = parse_launch_command(run.engine.launch_command)
    entry = {
        "colour": place,
        "facts": [get(run) or numbers.MISSING for _, get in FACTS],
        "command": bool(run.engine.launch_command),
        "launch": dict(parsed.settings),
        "other_flags": " ".join(parsed.other_flags) or "none",
        "settings": {key: numbers.setting(value) for key, value in run.engine.settings},
        "count": run.hardware.count,
    }
    return f"{_setups_dumps(run.id)}:{_setups_dumps(entry)}"


def short_label(run: Run, run_labels: Mapping[str, str] | None = None) -> str:
    """'Qwen3-8B · RTX 4090 ×1 · vLLM 0.9', with the run's distinguishing label where it has one."""
    engine = " ".join(p for p in (run.engine.name, run.engine.version) if p)
    name = f"{model_name(run)} · {hardware_name(run, with_memory=False)} · {engine}"
    return labels.with_label(name, (run_labels or {}).get(run.id))


def compare_app_page(
    site: Site,
    runs: list[Run],
    pairs: list[tuple[Run, Run]],
    run_labels: Mapping[str, str] | None = None,
    fragments: Fragments | None = None,
    groups: Mapping[tuple[str, str], Group] | None = None,
) -> Page:
    """/compare/, its links relative to ``site`` (placed at compare/index.html). The runs and
    pairs of each model are two pieces kept between builds (``fragments``), made from the
    model's group (the plan's ``groups`` carry their digests), its runs' distinguishing labels
    and its pairs, so that adding a run makes its model's pieces and joins the others (the page
    has an option a run and a link a pair)."""
    fragments = fragments or Fragments(None, "")
    pairs_of: dict[str, list[tuple[str, str]]] = {}
    for a, b in pairs:  # a pair's runs are of one model
        pairs_of.setdefault(model_key(a), []).append((a.id, b.id))
    options, links = [], []
    for group in listed_models(dict(groups) if groups is not None else site_groups(runs)):
        shown_pairs = tuple(pairs_of.get(group.key, ()))
        labels = tuple((run_labels or {}).get(run.id) for run in group.runs)
        options.append(fragments.cached(_compare_options, group, labels, build=fragments))
        if shown_pairs:
            links.append(
                fragments.cached(_compare_pairs, site, group, labels, shown_pairs, build=fragments)
            )
    context = CompareAppContext(
        site=site,
        title="Compare runs",
        options=Markup("".join(options)),
        pairs=Markup("".join(links)),
        max_runs=MAX_RUNS,
    )
    return Page("compare/index.html", "pages/compare_app.html", context)


def _compare_options(fragments: Fragments, group: Group, labels: tuple[str | None, ...]) -> str:
    """A model's options of /compare/: its runs in order of id, each named by short_label with
    its distinguishing label (``labels``, in the group's order)."""
    label_of = {run.id: label for run, label in zip(group.runs, labels, strict=True) if label}
    return fragments.render(
        "compare_options",
        group.label,
        [Field(short_label(run, label_of), run.id) for run in _by_id(group)],
    )


def _compare_pairs(
    fragments: Fragments,
    site: Site,
    group: Group,
    labels: tuple[str | None, ...],
    pairs: tuple[tuple[str, str], ...],
) -> str:
    """A model's natural pairs on /compare/ (``pairs``: their runs' ids, older first), each
    linking to the reader's view of the newer against the older (the baseline) on ``site``; the
    runs named as in _compare_options."""
    by_id = {run.id: run for run in group.runs}
    label_of = {run_id: label for run_id, label in zip(by_id, labels, strict=True) if label}
    return fragments.render(
        "compare_pairs",
        [
            Field(
                f"{short_label(by_id[a], label_of)} → {short_label(by_id[b], label_of)}",
                f"{a} → {b}",
                site.url(compare_path(by_id[a], by_id[b])),
            )
            for a, b in pairs
        ],
    )


def _by_id(group: Group) -> list[Run]:
    return sorted(group.runs, key=lambda run: run.id)


__all__ = [
    "FACTS",
    "MAX_LINKED",
    "MAX_RUNS",
    "compare_app_page",
    "run_comparisons",
    "setups_json",
]
