"""Comparison pages for a group of runs: /models/<model>/ and /hardware/<accelerator>/."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sitegen.model import Run
from sitegen.site import numbers
from sitegen.site.charts import MAX_SERIES, ChartSpec, Series, decode_overlay, prefill_overlay
from sitegen.site.common import Field, Page, Site, hardware_name, model_name
from sitegen.site.groups import Group, compare_path
from sitegen.site.index_page import RunRow, run_row
from sitegen.site.labels import distinguishing_labels

# Charts cost most of a cold build: a few contexts, spread from the shortest to the longest, tell the story.
MAX_CONTEXT_CHARTS = 2


@dataclass(frozen=True)
class ContextChart:
    """One overlay chart of decode throughput at one context length."""

    context: str
    chart: ChartSpec


@dataclass(frozen=True)
class GroupPageContext:
    """A model page or an accelerator page (templates/pages/group.html)."""

    site: Site
    title: str
    eyebrow: str
    heading: str
    summary: str
    rows: tuple[RunRow, ...]
    decode_charts: tuple[ContextChart, ...]
    prefill_chart: ChartSpec | None
    charted_note: str | None
    comparisons: tuple[Field, ...]


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def series_label(run: Run, group_kind: str, label: str = "") -> str:
    """What a legend calls a run: what most often differs within the group comes first, and
    the run's distinguishing label where its group has runs like it."""
    engine = " ".join(p for p in (run.engine.name, run.engine.version) if p)
    quantization = _clip(run.engine.quantization or "", 22)
    if group_kind == "models":
        parts = [engine, quantization, hardware_name(run, with_memory=False)]
    else:
        parts = [f"{model_name(run)} ×{run.hardware.count}", engine, quantization]
    if label:
        # The label is what tells two otherwise identical lines apart: it must survive the clip.
        head = _clip(" · ".join(p for p in parts if p), 63 - len(label))
        return re.sub(r"[…· ]+…$", "…", head) + " · " + label  # one ellipsis where two clips meet
    return _clip(" · ".join(p for p in parts if p), 64)


def unique_series(runs: list[Run], kind: str, run_labels: dict[str, str] | None = None) -> list[Series]:
    seen: dict[str, int] = {}
    result = []
    for run in runs:
        label = series_label(run, kind, (run_labels or {}).get(run.id, ""))
        seen[label] = seen.get(label, 0) + 1
        result.append(Series(label if seen[label] == 1 else f"{label} ({run.id})", run))
    return result


def shared_contexts(runs: list[Run], limit: int) -> list[int]:
    """Contexts measured by at least two of ``runs`` (all contexts for one run), at most ``limit``, spread out."""
    counts: dict[int, int] = {}
    for run in runs:
        for context in {c.context_tokens for c in run.decode if c.status.measured}:
            counts[context] = counts.get(context, 0) + 1
    needed = 2 if len(runs) > 1 else 1
    contexts = sorted(c for c, n in counts.items() if n >= needed)
    if len(contexts) <= limit:
        return contexts
    step = (len(contexts) - 1) / (limit - 1)
    return sorted({contexts[round(i * step)] for i in range(limit)})


def group_page(site: Site, group: Group, groups: dict[tuple[str, str], Group],
               pairs: list[tuple[Run, Run]]) -> Page:
    runs = list(group.runs)
    # A group holds every run like each of its runs (same model, or same accelerator), so its
    # own runs label them as the whole site does.
    run_labels = distinguishing_labels(runs)
    charted = runs[:MAX_SERIES]
    series = unique_series(charted, group.kind, run_labels)
    decode_charts = tuple(
        ContextChart(numbers.context(context), chart)
        for context in shared_contexts(charted, MAX_CONTEXT_CHARTS)
        if (chart := decode_overlay(series, [context])) is not None
    )
    prefill = prefill_overlay(series)
    members = {run.id for run in runs}
    comparisons = tuple(
        Field(f"{a.id} → {b.id}", f"{series_label(a, group.kind, run_labels.get(a.id, ''))} → "
                                  f"{series_label(b, group.kind, run_labels.get(b.id, ''))}",
              site.url(compare_path(a, b)))
        for a, b in pairs if a.id in members and b.id in members
    )
    noun = "model" if group.kind == "models" else "accelerator"
    count = numbers.count_noun(len(runs), "run")
    configurations = len({(r.hardware.accelerator.lower(), r.hardware.count, r.engine.name.lower()) for r in runs})
    context = GroupPageContext(
        site=site,
        title=f"{group.label} · all runs",
        eyebrow="Model" if group.kind == "models" else "Accelerator",
        heading=group.label,
        summary=f"{count} on this {noun}, {numbers.count_noun(configurations, 'setup')}",
        rows=tuple(run_row(site, run, groups, run_labels.get(run.id, "")) for run in runs),
        decode_charts=decode_charts,
        prefill_chart=prefill,
        charted_note=(f"Charts show the {MAX_SERIES} newest runs; the table lists all {len(runs)}."
                      if len(runs) > MAX_SERIES else None),
        comparisons=comparisons,
    )
    charts = tuple(c.chart for c in decode_charts) + ((prefill,) if prefill else ())
    return Page(f"{group.path}index.html", "pages/group.html", context, charts)
