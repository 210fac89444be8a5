"""The index, at /: every run with its headline figures."""

from __future__ import annotations

from dataclasses import dataclass

from sitegen.model import Run
from sitegen.site import numbers
from sitegen.site.common import Page, Site, hardware_name, model_name


@dataclass(frozen=True)
class IndexRow:
    """One run on the index, figures formatted."""

    run_id: str
    href: str
    model: str
    hardware: str
    engine: str
    quantization: str
    date: str
    decode_single: str
    decode_peak: str
    prefill_first: str


@dataclass(frozen=True)
class IndexPageContext:
    """The index (templates/pages/index.html): one row of headline figures per run."""

    site: Site
    title: str
    rows: tuple[IndexRow, ...]


def _index_row(site: Site, run: Run) -> IndexRow:
    smallest = run.contexts[0] if run.contexts else None
    single = next((c for c in run.decode if c.context_tokens == smallest and c.concurrency == 1 and c.status.measured), None)
    peak = max((c.total_tokens_per_s for c in run.decode if c.status.measured and c.total_tokens_per_s is not None),
               default=None)
    first_prefill = next((p for p in run.prefill if p.prompt_tokens_per_s is not None), None)
    return IndexRow(
        run_id=run.id,
        href=site.url(f"runs/{run.id}/"),
        model=model_name(run),
        hardware=hardware_name(run, with_memory=False),
        engine=" ".join(p for p in (run.engine.name, run.engine.version) if p),
        quantization=run.engine.quantization or numbers.MISSING,
        date=run.info.date or numbers.MISSING,
        decode_single=numbers.rate(single.total_tokens_per_s) if single else numbers.MISSING,
        decode_peak=numbers.rate(peak),
        prefill_first=numbers.rate(first_prefill.prompt_tokens_per_s) if first_prefill else numbers.MISSING,
    )


def index_page(site: Site, runs: list[Run]) -> Page:
    rows = tuple(_index_row(site, run) for run in sorted(runs, key=lambda r: (r.info.model.lower(), r.id)))
    return Page("index.html", "pages/index.html", IndexPageContext(site, site.title, rows))
