"""A model page's frontier charts by the rules of docs/comparisons.md and pages/group.py, worked
out from a built site's published result files (/runs/<id>.json), not from sitegen's code: which
contexts it offers, its default, and which it leaves to the browser (pareto.js)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from tests.kit.run_json import published_run


def documents(site: Path) -> dict[str, dict[str, Any]]:
    return {path.stem: published_run(path) for path in sorted((site / "runs").glob("*.json"))}


def frontier_contexts(site: Path, base_model: str) -> tuple[int, list[int]]:
    """The default context of a model page's frontier chart and every context it offers, by the
    rule of the page's legend: contexts two or more runs (a lone run: the run) have per-request
    figures at two or more request counts at; the default the one most runs have, of equals not
    0 and nearest 8K. (For a model of at most eight runs: a page charts the newest eight.)"""
    runs: dict[int, int] = {}
    members = [
        document
        for document in documents(site).values()
        if (document["run"].get("base_model") or document["run"]["model"]) == base_model
    ]
    for document in members:
        levels: dict[int, set[int]] = {}
        for cell in document["measurements"]["decode"]:
            if (
                cell["status"] == "valid"
                and cell.get("per_request_tokens_per_s") is not None
                and cell.get("total_tokens_per_s") is not None
            ):
                levels.setdefault(cell["context_tokens"], set()).add(cell["concurrency"])
        for context, counts in levels.items():
            runs[context] = runs.get(context, 0) + (len(counts) >= 2)
    needed = 2 if len(members) > 1 else 1
    offered = sorted(c for c, n in runs.items() if n >= needed)
    if not offered:
        return 0, []
    default = min(
        offered, key=lambda c: (-runs[c], c == 0, abs(math.log2(c / 8192)) if c else 0, c)
    )
    return default, offered


def frontier_levels(document: dict[str, Any], context: int) -> list[int]:
    """The request counts of a run's cells a frontier at ``context`` is drawn from, in the file's
    order: valid, with a total and a per-request figure."""
    return [
        cell["concurrency"]
        for cell in document["measurements"]["decode"]
        if cell["context_tokens"] == context
        and cell["status"] == "valid"
        and cell.get("per_request_tokens_per_s") is not None
        and cell.get("total_tokens_per_s") is not None
    ]


def _of_model(document: dict[str, Any], base_model: str) -> bool:
    return (document["run"].get("base_model") or document["run"]["model"]) == base_model


def left_to_browser(site: Path, base_model: str, context: int) -> bool:
    """Whether the model page leaves its frontier at ``context`` (not its default) to pareto.js,
    by the rule of pages/group.py: not context 0, and each run with a frontier there has one
    valid per-request cell a request count there, in the file in that order (the points files
    the script reads keep one a request count)."""
    if context == 0:
        return False
    for document in documents(site).values():
        levels = frontier_levels(document, context) if _of_model(document, base_model) else []
        if len(set(levels)) >= 2 and levels != sorted(set(levels)):
            return False
    return True


def frontier_runs(site: Path, base_model: str, context: int) -> set[str]:
    """The runs of a model with a frontier at ``context``: valid cells with a total and a
    per-request figure there at two or more request counts."""
    return {
        run_id
        for run_id, document in documents(site).items()
        if _of_model(document, base_model) and len(set(frontier_levels(document, context))) >= 2
    }
