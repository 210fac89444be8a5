"""/data/capacity.json's records read as objects (docs/capacity.md), with the capacity's figures
that versions 4 to 6 leave to the run's cells put back, each worked out here from the run's
published JSON: the total tok/s of the cell at ``max_concurrency``, it and the requests held ÷
the run's accelerators, and the request counts measured at that context."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.kit.run_json import published_run
from tests.kit.verdict_rule import own_cells

# What versions 5 and 6 write: the verdicts, not the figures the run's cells (data/points/) hold; a
# run's records on its line, after its id, by service level, each ending at its last value.
FIELDS = [
    "context_tokens",
    "max_concurrency",
    "state",
    "per_request_source",
    "ttft_judged",
    "stopped_at",
    "stopped_state",
    "reason",
]


# Version 6 writes these fields' words as their number in the file's "words" (a word not
# there as itself).
WORD_FIELDS = {"state", "per_request_source", "ttft_judged", "stopped_state", "reason"}


def capacity_records(site: Path) -> list[dict[str, Any]]:
    published = json.loads((site / "data" / "capacity.json").read_text(encoding="utf-8"))
    assert published["version"] == 6 and published["fields"] == FIELDS
    words = published["words"]
    assert len(set(words)) == len(words) and all(isinstance(w, str) and w for w in words)
    documents: dict[str, dict[str, Any]] = {}
    records = []
    levels = [level["name"] for level in published["service_levels"]]
    flat: list[tuple[str, str, list[Any]]] = []
    for run, by_level in published["runs"]:
        assert list(by_level) == [level for level in levels if level in by_level]  # in order
        flat += [
            (run, level, values) for level, of_level in by_level.items() for values in of_level
        ]
    assert [run for run, _, _ in flat] == sorted(run for run, _, _ in flat)  # by run id
    for run, level, values in flat:
        assert len(values) <= len(FIELDS) and values[-1] is not None
        values = values + [None] * (len(FIELDS) - len(values))
        record = {
            "run": run,
            "service_level": level,
            **{
                name: words[value] if name in WORD_FIELDS and isinstance(value, int) else value
                for name, value in zip(published["fields"], values, strict=True)
            },
        }
        if run not in documents:
            documents[run] = published_run(site / "runs" / f"{run}.json")
        document = documents[run]
        count = document["hardware"]["count"]
        row = own_cells(document)[record["context_tokens"]]
        held = record["max_concurrency"]
        total = row[held].get("total_tokens_per_s") if held is not None else None
        record["total_tokens_per_s"] = total
        record["tokens_per_s_per_accelerator"] = total / count if total is not None else None
        record["users_per_accelerator"] = held / count if held is not None else None
        record["measured_concurrency"] = sorted(row)
        records.append(record)
    return records
