"""The benchmark script runs and prints its table (a smoke test: nothing here is timed)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO


def test_benchmark_script_prints_its_table() -> None:
    result = subprocess.run([sys.executable, str(REPO / "benchmarks" / "bench.py"), "--runs", "3", "--repeat", "1"],
                            capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stderr
    for row in ("collect cold", "build cold (all charts)", "collect + build unchanged", "one run added",
                "one run edited", "run page", "output"):
        assert row in result.stdout
