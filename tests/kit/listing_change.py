"""Changes to a copy of the shipped site after which a listing's pieces of runs whose own content
is unchanged must change too: shared by the tests of listings built from kept pieces
(tests/incremental/test_incremental_build.py) and of the plan's memory
(tests/incremental/test_plan_memory.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.kit.project import DATA, SEED_RUN_ID

MINIMAL = DATA / "valid" / "minimal.yaml"

QWEN3_4B = "ttp300-vllm-qwen3-4b"  # the only run of its model, accelerator and engine


def listing_change(project: Path, change: str) -> None:
    """Change the site so that a listing's pieces of runs whose own content is unchanged must
    change too (their group's path or label, their distinguishing label, the settings), or so
    that every listing's pieces move between its pages."""
    runs, config = project / "content" / "runs", project / "sitegen.yaml"
    original = (runs / f"{QWEN3_4B}.yaml").read_text()
    if change == "add":
        shutil.copy(MINIMAL, runs / "added-run.yaml")
    elif change == "remove":
        (runs / "b200x2-vllm-nemotron3nano30b-fp8.yaml").unlink()
    elif change == "edit":
        seed = runs / f"{SEED_RUN_ID}.yaml"
        seed.write_text(
            seed.read_text().replace(
                "total_tokens_per_s: 228.386789", "total_tokens_per_s: 230.5", 1
            )
        )
    elif change == "sibling":  # the unchanged run gets a distinguishing label
        (runs / "p300-again.yaml").write_text(
            original.replace('date: "2026-08-20"', 'date: "2026-09-01"', 1)
        )
    elif change == "group path":  # a model whose short name is the same: both groups' paths change
        (runs / "other-qwen.yaml").write_text(
            MINIMAL.read_text().replace("Qwen/Qwen3-8B", "Other/Qwen3-4B")
        )
    elif change == "group label":  # the newest run of the model names the group: spelled anew
        newer = runs / "p300-again.yaml"
        assert newer.is_file()
        newer.write_text(
            newer.read_text().replace("model: Qwen/Qwen3-4B", "model: QWEN/Qwen3-4B", 1)
        )
    elif change == "service level":
        config.write_text(
            config.read_text()
            .replace("  - name: server\n", "  - name: srv\n", 1)
            .replace("service_level: server}", "service_level: srv}")
        )
    else:
        assert change == "price"
        config.write_text(
            config.read_text() + "prices:\n  Blackhole P300: {usd_per_hour: 2.5, source: test, "
            "date: 2026-01-15}\n"
        )
