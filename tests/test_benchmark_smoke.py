"""The benchmark script runs and prints its table (a smoke test: nothing here is timed)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO


def test_benchmark_script_prints_its_table() -> None:
    result = subprocess.run([sys.executable, str(REPO / "benchmarks" / "bench.py"), "--runs", "3", "--repeat", "1"],
                            capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stderr
    for row in ("collect cold", "build cold (all charts)", "collect + build unchanged", "one run added",
                "one run edited", "run page", "output"):
        assert row in result.stdout


def test_the_added_run_alone_on_a_kept_site(tmp_path: Path) -> None:
    folder = tmp_path / "site"
    for _ in range(2):  # made, then found and brought up to date
        result = subprocess.run([sys.executable, str(REPO / "benchmarks" / "bench.py"), "--runs", "3", "--repeat", "1",
                                 "--added-only", "--folder", str(folder)],
                                capture_output=True, text=True, timeout=600, check=False)
        assert result.returncode == 0, result.stderr
        assert re.search(r"^one run added: collect [\d.]+ s \+ build [\d.]+ s = [\d.]+ s", result.stdout, re.M)
    # Three runs, and the added one removed again after it was timed.
    assert sorted(path.name for path in (folder / "content" / "runs").iterdir()) == [
        "run-00000.yaml", "run-00001.yaml", "run-00002.yaml"]
