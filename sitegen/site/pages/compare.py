"""Compare runs: /compare/<older>--<newer>/ for the natural pairs, and /compare/ for any 2 to 6
runs the reader picks (``?runs=a,b,c``, drawn by templates/static/compare.js).

Every comparison has the same sections, top to bottom: caveats (what makes the runs unlike),
the setup table (facts and launch settings, differences marked), the ratio matrix against a
baseline, the decode curves at every context two runs share, the throughput/interactivity
frontier, and prefill.

The ratio matrix reads "B against A": +12 % means B's decode throughput is 12 % above A's
in that cell. A static page holds its pair's matrix both ways round in one table (each cell
carries both changes, the figures once, letters bound to runs): the link "#a-against-b" turns
it to A against B with CSS ``:target`` alone, so the swap works without JavaScript and one page
serves the pair. Only two valid cells are divided: a queued, over-capacity, failed or
unmeasured cell shows both statuses instead. Runs on different numbers of accelerators are
compared per accelerator (total tok/s ÷ accelerators, a derived figure) everywhere.
"""

from __future__ import annotations

import dataclasses
import json
import statistics
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from markupsafe import Markup

from sitegen.model import DecodeCell, Run, Status
from sitegen.site.draw.bars import BarChart, prefill_bars
from sitegen.site.draw.chart_specs import PALETTE
from sitegen.site.draw.plots import Plot
from sitegen.site.figures import labels, numbers
from sitegen.site.figures.grouping import Group, compare_path, model_key, site_groups
from sitegen.site.figures.launch_settings import (
    SETTINGS,
    parse_launch_command,
    speculative_decoding,
)
from sitegen.site.figures.paging import listed_models
from sitegen.site.figures.run_colours import chart_places, model_places
from sitegen.site.incremental.fragments import Fragments
from sitegen.site.json_rows import run_piece
from sitegen.site.page import Field, Page, Site, hardware_name, model_name
from sitegen.site.sections.curves import decode_plot, pareto_plot, shared_contexts

LETTERS = "ABCDEF"
MAX_RUNS = len(LETTERS)
NOT_SET = "not set"


@dataclass(frozen=True)
class RatioCell:
    """A run against the baseline in one cell: the change, both figures, a colour step from -3 to
    +3.
    ``back_*``: the baseline against the run in the same cell (the static page's swapped view)."""

    change: str
    arrow: str
    detail: str  # both runs' figures, each after its letter: "A 105.5 · B 23.0"
    step: int
    comparable: bool
    # derived, beside the totals: "A 617 · B 728" (total ÷ the runs' shared accelerator count)
    per_device: str = ""
    back_change: str = ""
    back_arrow: str = ""
    back_step: int = 0

    @property
    def css(self) -> str:
        """Its class, one word: the arrow and colour step of each direction, the other way round
        in capitals ("d3U3": down by 40 % or more; the other way round, up as much). One word
        needs no quotes, in some sixty cells a page; the stylesheet draws the arrow and colour."""

        def one(arrow: str, step: int) -> str:
            return "e" if arrow == "=" else f"{'u' if arrow == '▲' else 'd'}{abs(step)}"

        if not self.comparable:
            return ""
        return one(self.arrow, self.step) + (
            one(self.back_arrow, self.back_step).upper() if self.back_arrow else ""
        )


@dataclass(frozen=True)
class RatioRow:
    context: str
    cells: tuple[RatioCell, ...]

    @property
    def spans(self) -> tuple[tuple[RatioCell, int], ...]:
        """The cells with how many columns each spans: a run of neighbours that show the same
        statuses ("A Over capacity · B Over capacity") is written once, across them."""
        merged: list[tuple[RatioCell, int]] = []
        for cell in self.cells:
            if merged and not cell.comparable and merged[-1][0] == cell:
                merged[-1] = (cell, merged[-1][1] + 1)
            else:
                merged.append((cell, 1))
        return tuple(merged)


@dataclass(frozen=True)
class RatioMatrix:
    """The decode matrices of two runs as ratios, on the union of their axes."""

    heading: str
    concurrencies: tuple[int, ...]
    rows: tuple[RatioRow, ...]
    summary: str
    shared_count: int = 1  # > 1: totals shown, each with its per-accelerator figure (÷ this)
    back_heading: str = ""  # the same matrix the other way round (a static page's swap), if made
    back_summary: str = ""


@dataclass(frozen=True)
class SetupRow:
    """One fact or launch setting of every compared run; ``differs`` marks the row."""

    label: str
    values: tuple[str, ...]
    differs: bool


@dataclass(frozen=True)
class ComparedRun:
    letter: str
    run: Run
    label: str
    href: str
    colour: str


@dataclass(frozen=True)
class ComparePageContext:
    """A comparison of runs (templates/pages/compare.html)."""

    site: Site
    title: str
    runs: tuple[ComparedRun, ...]
    two_way: bool  # a static page of two runs: each way round, the swap a link within the page
    caveats: tuple[str, ...]
    setup: tuple[SetupRow, ...]
    per_device: bool
    ratios: tuple[RatioMatrix, ...]
    decode_plots: tuple[Plot, ...]
    decode_note: str | None
    pareto_plot: Plot | None
    pareto_note: str | None
    prefill_bars: BarChart | None
    prefill_note: str | None


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


# --- the ratio matrix ---------------------------------------------------------------------


def _step(ratio: float) -> int:
    # ±3 %, ±15 %, ±40 %: small, clear and large differences.
    change = ratio - 1.0
    size = 0 if abs(change) < 0.03 else 1 if abs(change) < 0.15 else 2 if abs(change) < 0.40 else 3
    return size if change > 0 else -size


def percent(change: float) -> str:
    """A change in percent, signed, with a true minus; what rounds to zero is "0%", never "−0%"."""
    rounded = round(change * 100)
    if rounded == 0:
        return "0%"
    return f"{rounded:+d}%".replace("-", "−")


def _state(cell: DecodeCell | None, value: float | None) -> str:
    if cell is None:
        return "not measured"
    label = labels.STATUSES[cell.status]
    if value is None:
        return label
    return (
        numbers.rate(value) if cell.status is Status.VALID else f"{label} ({numbers.rate(value)})"
    )


def _ratio_cell(
    base: DecodeCell | None,
    other: DecodeCell | None,
    base_count: int,
    other_count: int,
    names: tuple[str, str],
    shared_count: int = 1,
) -> tuple[RatioCell, float | None]:
    """``shared_count`` > 1 (totals compared, both runs on that many accelerators) adds each
    total's per-accelerator figure beside it."""

    def value(cell: DecodeCell | None, count: int) -> float | None:
        if cell is None or cell.total_tokens_per_s is None or not cell.status.measured:
            return None
        return cell.total_tokens_per_s / count

    base_value, other_value = value(base, base_count), value(other, other_count)
    both_valid = (
        base is not None
        and other is not None
        and base.status is Status.VALID
        and other.status is Status.VALID
    )
    if both_valid and base_value and other_value is not None:
        ratio = other_value / base_value
        change = ratio - 1.0
        arrow = "▲" if change >= 0.005 else "▼" if change <= -0.005 else "="
        detail = f"{names[0]} {numbers.rate(base_value)} · {names[1]} {numbers.rate(other_value)}"
        per_device = (
            f"{names[0]} {numbers.rate(base_value / shared_count)} · "
            f"{names[1]} {numbers.rate(other_value / shared_count)}"
            if shared_count > 1
            else ""
        )
        return RatioCell(percent(change), arrow, detail, _step(ratio), True, per_device), change
    if base is None and other is None:
        return RatioCell(
            "", "", numbers.MISSING, 0, False
        ), None  # neither run measured here: one dash
    # A queued or over-capacity cell is not divided by a valid one: both statuses are shown.
    detail = f"{names[0]} {_state(base, base_value)} · {names[1]} {_state(other, other_value)}"
    per_device = ""
    if shared_count > 1 and (base_value is not None or other_value is not None):

        def share(v: float | None) -> str:
            return numbers.MISSING if v is None else numbers.rate(v / shared_count)

        per_device = f"{names[0]} {share(base_value)} · {names[1]} {share(other_value)}"
    return RatioCell("", "", detail, 0, False, per_device), None


def ratio_matrix(
    a: Run, b: Run, per_device: bool = False, names: tuple[str, str] = ("A", "B")
) -> RatioMatrix | None:
    """``b`` against ``a`` in every cell either measured."""
    contexts = sorted(set(a.contexts) | set(b.contexts))
    levels = sorted(set(a.concurrencies) | set(b.concurrencies))
    if not contexts:
        return None
    counts = (a.hardware.count, b.hardware.count) if per_device else (1, 1)
    # Totals are compared only when the counts are equal; each then gets its per-accelerator figure.
    shared = a.hardware.count if not per_device and a.hardware.count == b.hardware.count else 1
    rows = []
    changes = []
    for context in contexts:
        cells = []
        for level in levels:
            cell, change = _ratio_cell(
                a.cell(context, level), b.cell(context, level), *counts, names, shared
            )
            cells.append(cell)
            if change is not None:
                changes.append(change)
        rows.append(RatioRow(numbers.context(context), tuple(cells)))
    unit = "tok/s per accelerator" if per_device else "total tok/s"
    same = model_key(a) == model_key(b)
    summary = _summary(names[1], changes) if same else _across_models(a, b, names)
    heading = f"{names[1]} against {names[0]}, {unit}"
    return RatioMatrix(heading, tuple(levels), tuple(rows), summary, shared)


def _across_models(a: Run, b: Run, names: tuple[str, str]) -> str:
    """Like with like: runs of different models are set side by side, never summed up as a
    change."""
    models = f"{b.info.base_model or b.info.model}, {a.info.base_model or a.info.model}"
    return (
        f"{names[1]} and {names[0]} are runs of different models ({models}): each cell sets "
        f"their figures side by side, and no change across models is summed up. Compare runs "
        f"of the same model to read a change."
    )


def _summary(name: str, changes: list[float]) -> str:
    if not changes:
        return "The two runs have no valid cell in common."
    faster = sum(change >= 0.005 for change in changes)
    return (
        f"{name} is faster in {faster} of {len(changes)} cells both runs measured as valid; "
        f"median change {percent(statistics.median(changes))}."
    )


def two_way_matrix(a: Run, b: Run, per_device: bool = False) -> RatioMatrix | None:
    """B against A, each cell also holding A against B (its ``back_*`` fields), with the heading
    and summary of both directions: one table serves a static page's view and its swap."""
    forward = ratio_matrix(a, b, per_device, ("A", "B"))
    backward = ratio_matrix(b, a, per_device, ("B", "A"))
    if forward is None or backward is None:
        return forward
    rows = tuple(
        RatioRow(
            row.context,
            tuple(
                dataclasses.replace(
                    cell, back_change=back.change, back_arrow=back.arrow, back_step=back.step
                )
                for cell, back in zip(row.cells, back_row.cells, strict=True)
            ),
        )
        for row, back_row in zip(forward.rows, backward.rows, strict=True)
    )
    return dataclasses.replace(
        forward, rows=rows, back_heading=backward.heading, back_summary=backward.summary
    )


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


def setup_rows(runs: list[Run]) -> tuple[SetupRow, ...]:
    """Facts, then every launch setting any run's command gives, then the engine settings
    of the result files, then the flags sitegen does not know, verbatim."""
    rows = []
    for label, get in FACTS:
        values = tuple(get(run) or numbers.MISSING for run in runs)
        rows.append(SetupRow(label, values, len(set(values)) > 1))
    parsed = [parse_launch_command(run.engine.launch_command) for run in runs]
    with_command = [p for run, p in zip(runs, parsed, strict=True) if run.engine.launch_command]
    for key, label in SETTINGS:
        if any(p.get(key) for p in parsed):
            values = tuple(
                (p.get(key) or NOT_SET) if run.engine.launch_command else "no command"
                for run, p in zip(runs, parsed, strict=True)
            )
            rows.append(SetupRow(f"Launch: {label}", values, len(set(values)) > 1))
    each_settings = [dict(run.engine.settings) for run in runs]
    for key in sorted({name for settings in each_settings for name in settings}):
        values = tuple(
            numbers.setting(settings[key]) if key in settings else numbers.MISSING
            for settings in each_settings
        )
        rows.append(SetupRow(f"Setting: {key}", values, len(set(values)) > 1))
    if any(p.other_flags for p in with_command):
        values = tuple(
            " ".join(p.other_flags) or "none" if run.engine.launch_command else "no command"
            for run, p in zip(runs, parsed, strict=True)
        )
        rows.append(SetupRow("Launch: other flags", values, len(set(values)) > 1))
    return tuple(rows)


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


def caveats(runs: list[ComparedRun], setup: tuple[SetupRow, ...]) -> tuple[str, ...]:
    by_label = {row.label: row for row in setup}
    result = []
    for label, text in _CAVEAT_FACTS:
        row = by_label[label]
        if row.differs:
            values = "; ".join(
                f"{run.letter} {value}" for run, value in zip(runs, row.values, strict=True)
            )
            result.append(f"{text} ({values})")
    launch = [
        row.label.removeprefix("Launch: ")
        for row in setup
        if row.differs and row.label.startswith("Launch: ")
    ]
    if launch:
        result.append(f"Launch settings differ: {', '.join(launch)}. See the setup table.")
    return tuple(result)


# --- curves, frontier and prefill --------------------------------------------------------


def speed_title(compared: Iterable[ComparedRun]) -> str:
    """The frontier's x axis, naming the statistic of its per-request figures: the runs' one, or
    each run's after its letter where they differ ("A mean, B as reported")."""
    kinds = [
        (
            c.letter,
            c.run.info.latency_statistic
            if c.run.info.latency_statistic in ("mean", "median")
            else "as reported",
        )
        for c in compared
    ]
    if len({kind for _, kind in kinds}) == 1:
        return f"per-request tok/s ({kinds[0][1]})"
    return f"per-request tok/s ({', '.join(f'{letter} {kind}' for letter, kind in kinds)})"


def compare_context(
    site: Site,
    runs: list[Run],
    two_way: bool = False,
    run_labels: Mapping[str, str] | None = None,
    places: Mapping[str, int] | None = None,
) -> ComparePageContext:
    """Everything a comparison of 2 to 6 runs shows; the first run is the baseline. ``two_way``
    (two runs): the ratios each way round, for a page whose swap link turns the baseline.
    ``places``: each run's colour place on its model's page (run_colours)."""
    shown = runs[:MAX_RUNS]
    colours = chart_places([run.id for run in shown], places)
    compared = tuple(
        ComparedRun(
            LETTERS[i],
            run,
            short_label(run, run_labels),
            site.url(f"runs/{run.id}/"),
            PALETTE[colours[i]],
        )
        for i, run in enumerate(shown)
    )
    plain = [c.run for c in compared]
    setup = setup_rows(plain)
    per_device = len({run.hardware.count for run in plain}) > 1
    # Legends name runs by letter and name (legend_names), never cut.
    names = legend_names(plain)
    named = [
        (f"{c.letter}: {name}", colours[i], c.run)
        for i, (c, name) in enumerate(zip(compared, names, strict=True))
    ]
    # A point's hover title names its run by letter only: the heading, the legend and every
    # table of the page say which run a letter is, and the titles are most of a plot's bytes.
    letters = {label: c.letter for (label, _, _), c in zip(named, compared, strict=True)}
    base = compared[0]
    if two_way and len(compared) == 2:
        ratios: tuple[RatioMatrix, ...] = tuple(
            m for m in [two_way_matrix(plain[0], plain[1], per_device)] if m
        )
    else:
        ratios = tuple(
            m
            for other in compared[1:]
            if (m := ratio_matrix(base.run, other.run, per_device, (base.letter, other.letter)))
            is not None
        )
    contexts = shared_contexts(plain)
    plots = tuple(
        p
        for context in contexts
        if (p := decode_plot(named, context, per_device, letters)) is not None
    )
    alone = sorted(set().union(*(set(r.contexts) for r in plain)) - set(contexts))
    decode_note = (
        f"Contexts only one run measured are in the matrices above, not drawn: "
        f"{', '.join(numbers.context(c) for c in alone)}."
        if alone and len(plain) > 1
        else None
    )
    pareto, pareto_note = pareto_plot(named, point_names=letters, x_title=speed_title(compared))
    no_prefill = [
        c.letter
        for c in compared
        if not any(p.prompt_tokens_per_s is not None for p in c.run.prefill)
    ]
    return ComparePageContext(
        site=site,
        title=" vs ".join(run.id for run in plain),
        runs=compared,
        two_way=two_way and len(compared) == 2,
        caveats=caveats(list(compared), setup),
        setup=setup,
        per_device=per_device,
        ratios=ratios,
        decode_plots=plots,
        decode_note=decode_note,
        pareto_plot=pareto,
        pareto_note=pareto_note,
        # Each run in its place's colour, as in every other section, whoever is left out.
        prefill_bars=prefill_bars(
            [(c.letter, c.run) for c in compared if c.letter not in no_prefill],
            [colours[i] for i, c in enumerate(compared) if c.letter not in no_prefill],
        ),
        prefill_note=(f"No prefill figures: {', '.join(no_prefill)}." if no_prefill else None),
    )


# the fragment that turns a static page to A against B (the newer run as baseline)
SWAPPED = "a-against-b"
UNSWAPPED = "b-against-a"  # the default view's own fragment, for the link back

MAX_LINKED = 5  # other runs a run page offers per group, in one side-by-side view (MAX_RUNS in all)


def run_comparisons(
    site: Site, run: Run, groups: list[tuple[str, tuple[Run, ...]]], paired: set[tuple[str, str]]
) -> tuple[Field, ...]:
    """Links from a run's page to comparisons with the other runs of its model and of its
    accelerator: the static page of each natural pair, then, per group, one link to the
    reader's view of the run beside the group's closest others (issue 18: one link a group,
    not one a run, so a run page stays small). Either way the run whose page it is is the
    baseline: the newer run of a pair links to its page's swapped view (``#a-against-b``)."""
    links: list[Field] = []
    seen = {run.id}
    for noun, members in groups:
        others = [other for other in members if other.id != run.id][: min(MAX_LINKED, MAX_RUNS - 1)]
        for other in others:
            if other.id in seen:
                continue
            if (run.id, other.id) in paired:
                links.append(
                    Field(f"Compare with {other.id}", other.id, site.url(compare_path(run, other)))
                )
            elif (other.id, run.id) in paired:
                links.append(
                    Field(
                        f"Compare with {other.id}",
                        other.id,
                        site.url(compare_path(other, run)) + f"#{SWAPPED}",
                    )
                )
        unlinked = [
            other for other in others if other.id not in seen and not _paired(run, other, paired)
        ]
        seen.update(other.id for other in others)
        if not unlinked:
            continue  # every one of them has its static page (or a link above)
        href = site.url("compare/") + "?runs=" + ",".join(r.id for r in (run, *others))
        label = (
            f"Compare with {others[0].id}"
            if len(others) == 1
            else f"Compare with {len(others)} other runs {noun}"
        )
        links.append(Field(label, noun, href))
    return tuple(links)


def _paired(run: Run, other: Run, paired: set[tuple[str, str]]) -> bool:
    return (run.id, other.id) in paired or (other.id, run.id) in paired


SETUPS_FORMAT = "sitegen-setups"


def setups_json(runs: list[Run], fragments: Fragments | None = None) -> bytes:
    """/data/setups.json: what the reader's comparison view (compare.js) needs beyond each
    run's result file: its facts and launch settings as the static pages word them, and the
    caveats' rules, so the view and the static pages never disagree on either.

    Written as ``json.dumps(document, sort_keys=True)`` would write it, with each run's entry a
    piece kept between builds (json_rows.run_piece): an added run makes only its own."""
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
    entries = b",".join(
        run_piece(fragments, _setup_entry, run, places[run.id])
        for run in sorted(runs, key=lambda r: r.id)
    )
    return f'{head[:-1]},"runs":{{'.encode() + entries + b'},"version":1}\n'


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


def legend_names(runs: list[Run]) -> list[str]:
    """What a comparison's legends call each run: its model's own name · accelerator ×count ·
    engine, as compare.js writes them from the setups' facts; a name two runs share gets its id."""

    def engine(run: Run) -> str:
        return " ".join(p for p in (run.engine.name, run.engine.version) if p) or numbers.MISSING

    names = [
        f"{run.info.model.rsplit('/', 1)[-1]} · {hardware_name(run, with_memory=True)} · "
        f"{engine(run)}"
        for run in runs
    ]
    return [
        f"{name} ({run.id})" if names.count(name) > 1 else name
        for name, run in zip(names, runs, strict=True)
    ]


def short_label(run: Run, run_labels: Mapping[str, str] | None = None) -> str:
    """'Qwen3-8B · RTX 4090 ×1 · vLLM 0.9', with the run's distinguishing label where it has one."""
    engine = " ".join(p for p in (run.engine.name, run.engine.version) if p)
    name = f"{model_name(run)} · {hardware_name(run, with_memory=False)} · {engine}"
    return labels.with_label(name, (run_labels or {}).get(run.id))


def compare_page(
    site: Site,
    a: Run,
    b: Run,
    run_labels: Mapping[str, str] | None = None,
    places: Mapping[str, int] | None = None,
) -> Page:
    """The static page of a pair (older, newer): B against A, and A against B behind its swap link,
    each run in its colour on its model's page (``places``, run_colours)."""
    context = compare_context(site, [a, b], two_way=True, run_labels=run_labels, places=places)
    return Page(f"{compare_path(a, b)}index.html", "pages/compare.html", context)


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
    """A model's natural pairs on /compare/ (``pairs``: their runs' ids), linking to their pages
    on ``site``; the runs named as in _compare_options."""
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
    "SWAPPED",
    "UNSWAPPED",
    "ComparePageContext",
    "compare_app_page",
    "compare_context",
    "compare_page",
    "ratio_matrix",
    "setup_rows",
    "two_way_matrix",
]
