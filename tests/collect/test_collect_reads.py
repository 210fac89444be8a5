"""How collect reads its input: each file once per collect, cold or cached, and the parallel
path (worker processes, used when many files are new) gives what the files hold."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import sitegen.collect
from sitegen.collect import _check_entries, gather
from sitegen.collect.cache import EntryCache
from sitegen.collect.local import discover
from sitegen.config import load_config
from tests.kit.project import DATA, REPO, load_yaml
from tests.kit.reads import count_opens

INVALID = REPO / "tests" / "data" / "invalid" / "bad-status.yaml"


def test_each_file_is_read_once_per_collect(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = (project / "content" / "runs").resolve()
    names = sorted(path.name for path in runs.iterdir())
    assert len(names) >= 10
    raw = runs / "h200-raw"  # a raw-output folder too: its two files
    raw.mkdir()
    shutil.copy(DATA / "upstream" / "sample_benchmark_results.json", raw / "benchmark_results.json")
    shutil.copy(DATA / "import" / "seed-run.yaml", raw / "run.yaml")
    config = load_config(project / "sitegen.yaml")
    for state in ("cold", "cached"):
        opened = count_opens(monkeypatch, runs)
        report = gather(config)
        monkeypatch.undo()
        assert len(report.runs) == len(names) + 1, state
        assert opened == Counter(
            {name: 1 for name in [*names, "benchmark_results.json", "run.yaml"]}
        ), state


def _serial_and_parallel(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[Any], list[Any], list[str]]:
    config = load_config(project / "sitegen.yaml")
    entries, _ = discover(config.runs_dir, config.content_dir, config.display)
    work = [(entry, config.display(entry.path)) for entry in entries]
    pools: list[str] = []

    class RecordingPool(ProcessPoolExecutor):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pools.append("started")
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(sitegen.collect, "ProcessPoolExecutor", RecordingPool)
    monkeypatch.setattr(
        os, "cpu_count", lambda: 2
    )  # the pool is used on one core too, for this test
    serial = _check_entries(work, None, parallel_threshold=len(work) + 1)
    assert pools == []
    cache = EntryCache(project / "parallel-cache")
    parallel = _check_entries(work, cache, parallel_threshold=1)
    return serial, parallel, pools


def test_the_parallel_path_gives_what_the_files_hold(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = project / "content" / "runs"
    (runs / "bad-status.yaml").write_bytes(INVALID.read_bytes())
    serial, parallel, pools = _serial_and_parallel(project, monkeypatch)
    assert pools == ["started"], "the worker processes were not used"
    assert [item.source for item in parallel] == sorted(
        f"content/runs/{path.name}" for path in runs.iterdir()
    )
    for item in parallel:
        path = project / item.source
        if path.name == "bad-status.yaml":
            assert item.canonical is None
            # The first problem the file's own expectations name (tests/data/invalid/*.expected).
            expected = (INVALID.with_suffix(".expected")).read_text().splitlines()[0]
            assert str(item.problems[0]) == expected
            continue
        assert item.problems == [], item.source
        # The shipped files hold no secrets, so the checked document is the file's data itself.
        checked = json.loads(item.canonical or "")
        # Collect adds the file's receipt: its name and the digest of its bytes (worked out here).
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        named = {"file": item.source, "bytes": path.stat().st_size, "sha256": digest}
        assert checked.pop("receipt") == {"result_file": named}
        assert checked == load_yaml(path.read_text(encoding="utf-8")), item.source
    assert parallel == serial
    # What the workers checked is remembered by the main process, so the next collect reads the
    # cache.
    assert len(list((project / "parallel-cache").glob("*.json"))) == len(parallel) - 1
