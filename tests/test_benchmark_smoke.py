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


def test_the_stages_of_an_added_runs_build(tmp_path: Path) -> None:
    # On a site bench.py made: every step of the build named with its share, and the site as
    # it was afterwards (the added run gone, its pages and JSON gone from the site again).
    folder = tmp_path / "site"
    made = subprocess.run([sys.executable, str(REPO / "benchmarks" / "bench.py"), "--runs", "3", "--repeat", "1",
                           "--added-only", "--folder", str(folder)], capture_output=True, text=True, timeout=600,
                          check=False)
    assert made.returncode == 0, made.stderr
    before = sorted(path.relative_to(folder).as_posix() for path in (folder / "_site").rglob("*"))
    result = subprocess.run([sys.executable, str(REPO / "benchmarks" / "stages.py"), "--folder", str(folder)],
                            capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, result.stderr
    shares = dict(re.findall(r"^(.+?)\s{2,}[\d.]+ s\s+([\d.]+)%$", result.stdout, re.M))
    for step in ("plan", "pages: made and written", "manifest: load", "manifest: save", "start-up and imports"):
        assert step in shares
    assert abs(sum(float(share) for share in shares.values()) - 100) < 1
    assert re.search(r"^whole build\s+[\d.]+ s$", result.stdout, re.M)
    assert sorted(path.relative_to(folder).as_posix() for path in (folder / "_site").rglob("*")) == before
