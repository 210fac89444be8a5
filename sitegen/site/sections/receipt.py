"""A run page's receipt and citable figures: the "Reproduce this run" block
(templates/_receipt.html) and the stable anchors of the matrix cells and measurement rows.

Anchors are part of the permalink promise (docs/comparisons.md, "Citing a figure"): a decode
cell is ``d-<context tokens>-<requests>`` in the matrix and ``r-<context>-<requests>`` in the
measurements table (``-o<output tokens>`` where the source varied the output length), a
prefill row ``p-<context tokens>`` (``-k<prompt chunk>`` for a chunk at a depth). run.js's "cite"
reads the figure, its cell and the run from the page.
"""

from __future__ import annotations

from dataclasses import dataclass

from sitegen.model import DecodeCell, PrefillPoint, Run
from sitegen.receipts import Receipt, receipt_of

# A sweep may hold hundreds of raw files; the page lists this many, the run's JSON every one.
SHOWN_RAW_FILES = 40


def matrix_anchor(context: int, concurrency: int) -> str:
    return f"d-{context}-{concurrency}"


def row_anchor(cell: DecodeCell) -> str:
    anchor = f"r-{cell.context_tokens}-{cell.concurrency}"
    return (
        f"{anchor}-o{cell.output_tokens_per_request}" if cell.output_tokens_per_request else anchor
    )


def prefill_anchor(point: PrefillPoint) -> str:
    anchor = f"p-{point.context_tokens}"
    return f"{anchor}-k{point.prompt_chunk_tokens}" if point.prompt_chunk_tokens else anchor


@dataclass(frozen=True)
class Reproduce:
    """The "Reproduce this run" block: the receipt, and what a citation of a figure says."""

    receipt: Receipt
    raw_files: tuple[dict[str, object], ...]  # the first SHOWN_RAW_FILES of them
    more_raw_files: int  # how many more the run's JSON lists
    verify_command: str  # the command that checks the receipt against the files
    date: str  # the run's date, for citations
    statistic: str  # what its latency figures are (mean, median), for citations


def reproduce(run: Run) -> Reproduce:
    receipt = receipt_of(run.document)
    raw = receipt.raw_files
    return Reproduce(
        receipt=receipt,
        raw_files=raw[:SHOWN_RAW_FILES],
        more_raw_files=max(0, len(raw) - SHOWN_RAW_FILES),
        verify_command=f"sitegen verify {run.id}",
        date=run.info.date or "",
        statistic=run.info.latency_statistic or "as the source reports it",
    )
