"""Model and accelerator pages' groups worked out again from the result files: each group's runs
and the contexts they measured and share."""

from __future__ import annotations

from collections import defaultdict
from typing import Any


def measured_contexts(data: dict[str, Any]) -> set[int]:
    """The contexts at which a result file has a decode figure (valid or requests queued)."""
    return {
        c["context_tokens"]
        for c in data["measurements"]["decode"]
        if c["status"] in ("valid", "requests_queued") and c.get("total_tokens_per_s") is not None
    }


def group_members(runs: dict[str, dict[str, Any]]) -> dict[str, dict[str, list[str]]]:
    """Run ids by model (its <h1>, the base model's name) and by accelerator, from the result
    files."""
    members: dict[str, dict[str, list[str]]] = {
        "models": defaultdict(list),
        "hardware": defaultdict(list),
    }
    for run_id, data in runs.items():
        members["models"][data["run"].get("base_model") or data["run"]["model"]].append(run_id)
        hardware = data["hardware"]
        members["hardware"][
            " ".join(p for p in (hardware.get("vendor"), hardware["accelerator"]) if p)
        ].append(run_id)
    return members


def shared_of(runs: dict[str, dict[str, Any]], members: list[str]) -> list[int]:
    """Contexts two or more of ``members`` measured (each of a single run's)."""
    measured = [measured_contexts(runs[run_id]) for run_id in members]
    needed = 2 if len(members) > 1 else 1
    return sorted(c for c in set().union(*measured) if sum(c in m for m in measured) >= needed)
