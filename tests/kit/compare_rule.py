"""What a comparison shows, worked out again here from the result files (content/runs/*.yaml),
independently of sitegen: the natural pairs, each run's colour place, signed changes and the
per-accelerator figures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sitegen.parse import parse_yaml
from tests.kit.project import REPO


def shipped_run(run_id: str) -> dict[str, Any]:
    """A shipped result file, read independently of the build."""
    path = REPO / "content" / "runs" / f"{run_id}.yaml"
    data: dict[str, Any] = parse_yaml(path.name, path.read_bytes()).data
    return data


def model_colour_places(content: Path) -> dict[str, int]:
    """Each run's colour place read from the result files (docs/comparisons.md): its position
    among its model's runs (its base model if it names one), newest first by date then id, mod 8."""
    members: dict[str, list[tuple[str, str]]] = {}
    for path in sorted((content / "runs").glob("*.yaml")):
        data = parse_yaml(path.name, path.read_bytes()).data
        key = (data["run"].get("base_model") or data["run"]["model"]).lower()
        members.setdefault(key, []).append((str(data["run"].get("date") or ""), path.stem))
    return {
        run_id: index % 8
        for runs in members.values()
        for index, (_, run_id) in enumerate(sorted(runs, reverse=True))
    }


def natural_pairs_from_files(content: Path) -> list[tuple[str, str]]:
    """(older, newer) pairs read from the result files: runs of one model (its base model if it
    names one) on one accelerator, ordered by date then id, each paired with the next; runs
    with neither decode cells nor prefill rows (open-loop load points only, which a comparison
    page does not show) left out."""
    members: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for path in sorted((content / "runs").glob("*.yaml")):
        data = parse_yaml(path.name, path.read_bytes()).data
        measured = data["measurements"]
        if not (measured.get("decode") or measured.get("prefill")):
            continue
        key = (
            (data["run"].get("base_model") or data["run"]["model"]).lower(),
            data["hardware"]["accelerator"].lower(),
        )
        members.setdefault(key, []).append((str(data["run"].get("date") or ""), path.stem))
    pairs = []
    for runs in members.values():
        ordered = [run_id for _, run_id in sorted(runs)]
        pairs += [(ordered[i], ordered[i + 1]) for i in range(len(ordered) - 1)]
    return sorted(pairs)


def signed_percent(change: float) -> str:
    rounded = round(change * 100)
    return "0%" if rounded == 0 else f"{rounded:+d}%".replace("-", "\u2212")


PAIR = ("rtx6kpro4x-vllm-qwen35-397b-awq-mtp", "rtx6kpro4x-vllm-qwen35-397b-nvfp4-nomtp")


def throughput(value: float) -> str:
    """The site's table format for a throughput, written out here: 9,544.0 below 10,000, else
    10.2K."""
    if value >= 10_000:
        return f"{value / 1000:.1f}".removesuffix(".0") + "K"
    return f"{value:,.1f}"


def expected_per_accelerator(a: dict[str, Any], b: dict[str, Any]) -> dict[tuple[int, int], str]:
    """(context, requests) → the per-accelerator line a ratio cell of B against A must show, worked
    out
    from the two result files: total tok/s ÷ accelerators for both valid cells, else each measured
    one."""
    count = a["hardware"]["count"]
    assert count == b["hardware"]["count"] > 1
    cells = [
        {(c["context_tokens"], c["concurrency"]): c for c in run["measurements"]["decode"]}
        for run in (a, b)
    ]

    def share(cell: dict[str, Any] | None) -> str | None:
        if (
            cell is None
            or cell["status"] not in ("valid", "requests_queued")
            or cell.get("total_tokens_per_s") is None
        ):
            return None
        return throughput(cell["total_tokens_per_s"] / count)

    lines = {}
    for key in cells[0].keys() | cells[1].keys():
        x, y = share(cells[0].get(key)), share(cells[1].get(key))
        if x or y:  # each run's figure after its letter, valid or not
            lines[key] = f"per acc. A {x or '—'} · B {y or '—'}"
    return lines
