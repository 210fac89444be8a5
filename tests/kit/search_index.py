"""data/index.json read here, independently of sitegen's code (version 2: a part a model, each with
its own table of texts; each run a list of positions in its part's texts, a figure being
[text, sort value, where measured, per accelerator])."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def search_runs(site: Path) -> list[list[Any]]:
    """Every run of the search index in its order, each position replaced by its text."""
    document = json.loads((site / "data" / "index.json").read_bytes())
    assert document["format"] == "sitegen-index" and document["version"] == 2
    runs = []
    for part in document["parts"]:
        strings = part["strings"]
        for run in part["runs"]:

            def figure(cell: list[Any]) -> list[Any]:
                return [strings[cell[0]], cell[1], strings[cell[2]], strings[cell[3]]]  # noqa: B023

            runs.append(
                [
                    *(strings[i] for i in run[:8]),
                    *(figure(cell) for cell in run[8:12]),
                    [[strings[a], strings[b]] for a, b in run[12]],
                    strings[run[13]],
                ]
            )
    return runs


def search_strings(site: Path) -> set[str]:
    """Every text the search index holds."""
    document = json.loads((site / "data" / "index.json").read_bytes())
    return {text for part in document["parts"] for text in part["strings"]}
