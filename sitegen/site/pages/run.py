"""The speed-test-matrix page of one run, at /runs/<id>/: metadata blocks, launch command,
prefill chart, decode matrix and every measurement."""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from sitegen.config import Price
from sitegen.model import DecodeCell, PrefillPoint, Run, Status
from sitegen.site.draw.bars import BarChart, prefill_bars, prefill_bars_by_prompt
from sitegen.site.figures import labels, numbers
from sitegen.site.figures.build_figures import Analysis
from sitegen.site.figures.capacity import (
    PER_REQUEST,
    TIME_BETWEEN_TOKENS,
    cost_per_million_tokens,
    mirrored_percentile,
)
from sitegen.site.figures.grouping import Group, accelerator_key, model_key
from sitegen.site.figures.launch_settings import speculative_decoding
from sitegen.site.page import (
    Field,
    Page,
    Site,
    engine_summary,
    fields,
    hardware_name,
    model_name,
    repository_link,
)
from sitegen.site.prose import markdown
from sitegen.site.sections.capacity import RunCapacity, money, run_capacity
from sitegen.site.sections.load_points import LoadPointTable, load_point_table
from sitegen.site.sections.receipt import (
    Reproduce,
    matrix_anchor,
    reproduce,
)
from sitegen.site.sections.setups import RunHistory
from sitegen.wording import place

# A status's class on its matrix cell and measurements row (style.css, "Run page"): short, as a
# run page has many rows and cells; a valid one needs none.
STATUS_CLASSES = {
    Status.VALID: "",
    Status.REQUESTS_QUEUED: "rq",
    Status.OVER_CAPACITY: "oc",
    Status.NOT_RUN: "nr",
    Status.FAILED: "fl",
}


@dataclass(frozen=True)
class MatrixCell:
    """One cell of the decode matrix: throughput and TTFT, or the reason there are none."""

    status: Status
    status_label: str
    total: str
    ttft: str
    shade: int  # 0–8: share of the run's peak throughput, for the cell's background
    note: str | None = None
    cost: str = ""  # derived: USD per million output tokens, only where a price is configured

    @property
    def css(self) -> str:
        """The cell's classes: its shade ``h1``–``h8`` (none for 0) and its status's, if any."""
        return " ".join(
            c for c in (f"h{self.shade}" if self.shade else "", STATUS_CLASSES[self.status]) if c
        )


@dataclass(frozen=True)
class MatrixRow:
    """One context length of the decode matrix."""

    context: str
    cells: tuple[MatrixCell | None, ...]  # None: the run has no cell at this position
    anchors: tuple[str, ...] = ()  # each position's id, part of the permalink (receipt_page)


@dataclass(frozen=True)
class Matrix:
    """The decode matrix: rows are context lengths, columns simultaneous requests."""

    concurrencies: tuple[int, ...]
    rows: tuple[MatrixRow, ...]


@dataclass(frozen=True)
class TailTable:
    """What the "All measurements" table's tails, shown in an expandable detail, hold; their head
    and rows are made by the reader's browser from it and the run JSON (run.js, "the tails and
    power tables"), so the page does not carry every statistic twice."""

    figures: tuple[str, ...]  # "TTFT", "Time between tokens", "Per request tok/s"
    statistics: tuple[str, ...]  # "p50", "p90", "p99" (and "mean" when the headline is a median)
    keys: tuple[str, ...]  # the latency figures' names in the run JSON: "ttft_ms", …
    speed: bool  # a last group: per-request speed's slow tail (run.js works it out)
    phase: str  # what the decode rows' Phase says ("Sustained decode")
    with_phase: bool  # prefill and decode rows both: a Phase column tells them apart
    from_gaps: bool = False  # some speed tail is 1000 ÷ the time between tokens (marked †)


@dataclass(frozen=True)
class PowerTable:
    """Power of every measured cell that has it; the best energy figure leads. The table's rows
    are made by the reader's browser from the run JSON when its detail is opened (run.js, "the
    power table"), as the tails are."""

    best: str  # "0.214 J per output token (4.67 tok/J) at 8K × 128 requests"
    measurement: str | None  # run.power_measurement, the file's own words
    measured_energy: bool  # some cells give energy per output token as measured


@dataclass(frozen=True)
class Caveat:
    """An acknowledged plausibility warning: where, which check, and the file's reason."""

    where: str
    check: str
    reason: str


@dataclass(frozen=True)
class Explanation:
    """What a cell status means, shown under the matrix."""

    label: str
    text: str


@dataclass(frozen=True)
class RunPageContext:
    """Everything the speed-test-matrix page (templates/pages/run.html) shows."""

    site: Site
    title: str
    heading: str
    subtitle: str
    summary: str
    hardware: tuple[Field, ...]
    engine: tuple[Field, ...]
    run_fields: tuple[Field, ...]
    launch_command: str | None
    prefill_bars: BarChart | None
    matrix: Matrix | None
    capacity: RunCapacity | None  # derived, per context and service level
    explanations: tuple[Explanation, ...]
    ttft_note: str | None
    latency_note: str
    latency_statistic: str  # what the cells' TTFT is: "mean", "median" or "as reported"
    totals_note: str
    decode_heading: str
    # Whether the run has prefill points or decode cells: "All measurements" shows them (its
    # rows are made by run.js from the run JSON); a run of load points only has none.
    measured: bool
    tails: TailTable | None
    power: PowerTable | None
    caveats: tuple[Caveat, ...]
    notes: Markup | None
    section_notes: tuple[tuple[str, Markup], ...]
    source: tuple[Field, ...]
    provenance: tuple[str, ...]
    result_href: str  # the run's canonical JSON; the CSV is made from it in the browser (run.js)
    related: tuple[Field, ...]
    # Open-loop points (schema 1.2), in their own table and chart; the run's setup over time.
    load_points: LoadPointTable | None = None
    history: RunHistory | None = None
    reproduce: Reproduce | None = None  # "Reproduce this run" and the cite data (receipt_page)


def _hardware_fields(run: Run) -> tuple[Field, ...]:
    hw = run.hardware
    memory = None
    total = hw.total_memory_gb
    if total is not None:
        memory = numbers.gigabytes(total)
        if hw.count > 1 and hw.memory_per_device_gb is not None:
            memory += f" ({hw.count} × {numbers.gigabytes(hw.memory_per_device_gb)})"
    noun = labels.DEVICE_NOUN[hw.type]
    return fields(
        ("Type", labels.HARDWARE_TYPES[hw.type]),
        (noun, hw.accelerator),
        (f"{noun} count", str(hw.count)),
        (labels.MEMORY_NOUN[hw.type], memory),
        ("OS", hw.os),
        ("CPU", hw.cpu),
        ("System memory", numbers.gigabytes(hw.system_memory_gb) if hw.system_memory_gb else None),
        ("Driver", hw.driver),
        ("Interconnect", hw.interconnect),
    )


def _engine_fields(run: Run) -> tuple[Field, ...]:
    engine = run.engine
    result = list(
        fields(
            ("Engine", engine.name),
            ("Version", engine.version),
            ("Quantization", engine.quantization),
            ("Backend", engine.backend),
        )
    )
    if engine.repository:
        result.append(Field("Repository", engine.repository, repository_link(engine.repository)))
    result += fields(
        ("Build", engine.build),
        ("Parallelism", engine.parallelism),
        ("Speculative decoding", speculative_decoding(engine)),
    )
    result += [Field(name, numbers.setting(value)) for name, value in engine.settings]
    return tuple(result)


def _run_fields(run: Run) -> tuple[Field, ...]:
    info = run.info
    tool = info.benchmark_tool
    if tool and info.benchmark_tool_version:
        version = info.benchmark_tool_version
        tool += f" v{version}" if version[:1].isdigit() else f" {version}"
    return fields(
        ("Model", info.model),
        ("Served model", info.served_model_name),
        ("Revision", info.revision),
        ("Benchmark tool", tool),
        ("Decode test", labels.DECODE_MODES.get(info.decode_mode or "")),
        ("Prefill mode", labels.PREFILL_MODES.get(info.prefill_mode or "")),
        (
            "Time per measurement",
            numbers.seconds_setting(info.time_per_measurement_s)
            if info.time_per_measurement_s is not None
            else None,
        ),
        (
            "Max output",
            numbers.tokens(info.max_output_tokens) if info.max_output_tokens is not None else None,
        ),
        (
            "Output per request",
            numbers.tokens(info.output_tokens_per_request)
            if info.output_tokens_per_request is not None
            else None,
        ),
        ("Date", info.date),
    )


def _summary(run: Run) -> str:
    contexts = run.contexts
    levels = run.concurrencies
    parts = []
    if contexts:
        first, last = numbers.context(contexts[0]), numbers.context(contexts[-1])
        parts.append(
            numbers.axis_summary(len(contexts), "context", "contexts", first, last)
            + " × "
            + numbers.axis_summary(
                len(levels),
                "concurrency level",
                "concurrency levels",
                str(levels[0]),
                str(levels[-1]),
            )
        )
    prefill = sorted({p.context_tokens for p in run.prefill})
    if prefill:
        parts.append("prefill at " + ", ".join(numbers.context(c) for c in prefill))
    return " · ".join(parts)


def _shade(cell: DecodeCell, peak: float) -> int:
    if cell.total_tokens_per_s is None or peak <= 0:
        return 0
    return 1 + min(7, int(cell.total_tokens_per_s / peak * 7.999))


def _matrix(run: Run, price: Price | None = None) -> Matrix | None:
    if not run.decode:
        return None
    peak = max((c.total_tokens_per_s or 0.0 for c in run.decode), default=0.0)
    levels = run.concurrencies
    rows = []
    for context in run.contexts:
        cells: list[MatrixCell | None] = []
        for level in levels:
            cell = run.cell(context, level)
            if cell is None:
                cells.append(None)
                continue
            cells.append(
                MatrixCell(
                    status=cell.status,
                    status_label=labels.STATUSES[cell.status],
                    total=numbers.rate(cell.total_tokens_per_s) if cell.status.measured else "",
                    ttft=f"{numbers.milliseconds(cell.ttft_ms)} TTFT"
                    if cell.ttft_ms is not None
                    else "",
                    shade=_shade(cell, peak),
                    note=cell.note,
                    cost=_cell_cost(cell, run.hardware.count, price),
                )
            )
        anchors = tuple(matrix_anchor(context, level) for level in levels)
        rows.append(MatrixRow(numbers.context(context), tuple(cells), anchors))
    return Matrix(tuple(levels), tuple(rows))


def decode_phase(run: Run) -> str:
    """What the run page calls its decode measurements: 'Sustained decode', 'Request-count
    decode'."""
    return labels.DECODE_PHASES.get(run.info.decode_mode or "", labels.DEFAULT_DECODE_PHASE)


def _cell_cost(cell: DecodeCell, accelerators: int, price: Price | None) -> str:
    if price is None or cell.status != Status.VALID:
        return ""
    usd = cost_per_million_tokens(price.usd_per_hour, accelerators, cell.total_tokens_per_s)
    return f"{money(usd)}/M tok" if usd is not None else ""


# The figures with statistics and the words for their column group (run.js writes their values
# as numbers.milliseconds and milliseconds_fine do, and marks a speed tail worked out as 1000 ÷
# the time between tokens there with †).
_TAIL_FIGURES = (("ttft_ms", "TTFT"), ("time_between_tokens_ms", "Time between tokens"))
TAIL_STATISTICS = ("p50", "p90", "p99")
SPEED_TAIL = "Per request tok/s, slow tail"


def _from_gaps(item: PrefillPoint | DecodeCell, statistics: list[str]) -> bool:
    """Whether a speed tail of ``item`` is worked out as 1000 ÷ the time between tokens at that
    percentile (the file gives no such percentile of speed), which the caption then explains."""
    return any(
        name != "mean"
        and item.statistic(PER_REQUEST, mirrored_percentile(name)) is None
        and bool(item.statistic(TIME_BETWEEN_TOKENS, name))
        for name in statistics
    )


def _tails(run: Run) -> TailTable | None:
    """p50/p90/p99 of every latency that has them (and the mean when the headline is a median),
    and beside them the slow tail of per-request speed (p50/p10/p1): the table's head."""
    items: list[tuple[str, PrefillPoint | DecodeCell]] = [
        ("Prefill", p) for p in run.prefill if p.statistics
    ]
    items += [(decode_phase(run), c) for c in run.decode if c.statistics]
    if not items:
        return None
    figures = [
        (key, title) for key, title in _TAIL_FIGURES if any(key in i.statistics for _, i in items)
    ]
    speed = any(
        key in item.statistics for _, item in items for key in (PER_REQUEST, TIME_BETWEEN_TOKENS)
    )
    statistics = list(TAIL_STATISTICS)
    if run.info.latency_statistic != "mean" and any(
        "mean" in values for _, item in items for values in item.statistics.values()
    ):
        statistics.insert(0, "mean")
    titles = tuple(title for _, title in figures) + ((SPEED_TAIL,) if speed else ())
    return TailTable(
        titles,
        tuple(statistics),
        keys=tuple(key for key, _ in figures),
        speed=speed,
        phase=decode_phase(run),
        with_phase=len({phase for phase, _ in items}) > 1,
        from_gaps=speed and any(_from_gaps(item, statistics) for _, item in items),
    )


def _power(run: Run) -> PowerTable | None:
    cells = [
        c
        for c in run.decode
        if c.status.measured and (c.average_power_w or c.energy_per_output_token_j)
    ]
    if not cells:
        return None
    best: tuple[float, DecodeCell] | None = None
    for c in cells:
        energy = c.energy_per_output_token_j
        if energy is None and c.average_power_w and c.total_tokens_per_s:
            energy = c.average_power_w / c.total_tokens_per_s  # derived: W ÷ tok/s = J per token
        if energy and (best is None or energy < best[0]):
            best = (energy, c)
    summary = ""
    if best is not None:
        energy, cell = best
        summary = (
            f"{numbers.joules(energy)} per output token ({numbers.per_joule(1.0 / energy)}) at "
            f"{numbers.context(cell.context_tokens)} × "
            f"{numbers.count_noun(cell.concurrency, 'request')}"
            + (" (measured)" if cell.energy_per_output_token_j else " (derived)")
        )
    return PowerTable(
        summary,
        run.info.power_measurement,
        any(c.energy_per_output_token_j for c in cells),
    )


def _caveats(run: Run) -> tuple[Caveat, ...]:
    return tuple(
        Caveat(place(run.raw, w.pointer), w.check, w.reason) for w in run.info.acknowledged_warnings
    )


def _totals_note(run: Run) -> str:
    if run.prefill:
        return (
            "Total tok/s is output tokens per second across all simultaneous requests; on prefill "
            "rows it is "
            "prompt tokens per second."
        )
    return "Total tok/s is output across all simultaneous requests."


def _explanations(run: Run) -> tuple[Explanation, ...]:
    present = {cell.status for cell in run.decode}
    return tuple(
        Explanation(labels.STATUSES[status], text)
        for status, text in labels.STATUS_EXPLANATIONS.items()
        if status in present
    )


def _source_fields(run: Run) -> tuple[Field, ...]:
    source = run.source
    if source is None:
        return ()
    result = [
        Field("Published by", source.publisher),
        Field("Source", source.title or source.url, source.url),
    ]
    result += fields(
        ("Section", source.section), ("Commit", source.commit), ("Retrieved", source.retrieved)
    )
    result += [Field("Related", url, url) for url in source.related_urls]
    return tuple(result)


def _related(site: Site, run: Run, groups: dict[tuple[str, str], Group]) -> tuple[Field, ...]:
    model_group = groups[("models", model_key(run))]
    hardware_group = groups[("hardware", accelerator_key(run))]
    # No run counts here: a new run would change every page of its group, not just its own.
    return (
        Field(f"All runs of {model_group.label}", model_group.label, site.url(model_group.path)),
        Field(
            f"All runs on {hardware_group.label}",
            hardware_group.label,
            site.url(hardware_group.path),
        ),
    )


# Where a run page's last section (templates/_macros.html's run_links) starts: the only one of its
# kind in the page, and a tag no run's text can put there (every text is escaped, and markdown
# takes no raw HTML). The section ends at the first end of a section after it.
_LINKS_START = b"<section class=card aria-labelledby=downloads-h>"
_SECTION_END = b"</section>"


def run_links(
    site: Site, run: Run, groups: dict[tuple[str, str], Group], comparisons: tuple[Field, ...]
) -> tuple[str, tuple[Field, ...]]:
    """What a run page's last section shows: the address of the run's result file, and the pages
    it links to (its model's and accelerator's, then ``comparisons``)."""
    return site.url(f"runs/{run.id}.json"), _related(site, run, groups) + comparisons


def with_links(page: bytes, links: str) -> bytes | None:
    """The run page ``page`` (as a build wrote it) with ``links`` (run_links, rendered by the
    run_links macro) in place of its last section; None when ``page`` has no such section."""
    start = page.rfind(_LINKS_START)
    end = page.find(_SECTION_END, start) if start >= 0 else -1
    if end < 0:
        return None
    return page[:start] + links.encode() + page[end + len(_SECTION_END) :]


def run_page(
    site: Site,
    run: Run,
    groups: dict[tuple[str, str], Group],
    label: str = "",
    comparisons: tuple[Field, ...] = (),
    analysis: Analysis | None = None,
    history: RunHistory | None = None,
) -> Page:
    """The speed-test-matrix page of one run, at /runs/<id>/; ``label`` tells it from runs of
    the same model, accelerator and engine (labels.distinguishing_labels); ``comparisons``
    link it to comparisons with the other runs of its model and accelerator."""
    analysis = analysis or Analysis()
    result_href, related = run_links(site, run, groups, comparisons)
    section_notes = tuple(
        (name, rendered)
        for name, text in (("Hardware", run.hardware.notes), ("Engine", run.engine.notes))
        if (rendered := markdown(text)) is not None
    )
    context = RunPageContext(
        site=site,
        title=labels.with_label(f"{model_name(run)} on {hardware_name(run)}", label),
        heading=labels.with_label(f"{model_name(run)} on {hardware_name(run)}", label),
        subtitle=engine_summary(run),
        summary=_summary(run),
        hardware=_hardware_fields(run),
        engine=_engine_fields(run),
        run_fields=_run_fields(run),
        launch_command=run.engine.launch_command,
        prefill_bars=prefill_bars_by_prompt(run) or prefill_bars([("", run)]),
        matrix=_matrix(run, analysis.price(run)),
        capacity=run_capacity(site, run, analysis),
        explanations=_explanations(run),
        ttft_note=(
            "TTFT is measured after the benchmark warms the server's prompt cache, so it mostly "
            "excludes prefill."
            if run.info.prefill_mode == "decode-warmup"
            else None
        ),
        latency_note=labels.LATENCY_STATISTICS.get(
            run.info.latency_statistic or "", labels.LATENCY_UNDECLARED
        ),
        latency_statistic=run.info.latency_statistic
        if run.info.latency_statistic in ("mean", "median")
        else "as reported",
        totals_note=_totals_note(run),
        decode_heading=decode_phase(run),
        measured=bool(run.prefill or run.decode),
        tails=_tails(run),
        power=_power(run),
        caveats=_caveats(run),
        notes=markdown(run.info.notes),
        section_notes=section_notes,
        source=_source_fields(run),
        provenance=run.provenance.notes if run.provenance else (),
        result_href=result_href,
        load_points=load_point_table(run),
        history=history,
        related=related,
        reproduce=reproduce(run),
    )
    return Page(f"runs/{run.id}/index.html", "pages/run.html", context)
