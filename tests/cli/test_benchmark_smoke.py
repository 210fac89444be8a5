"""The benchmark script runs and prints its table (a smoke test: nothing here is timed)."""

from __future__ import annotations

import importlib.util
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.kit.project import REPO, load_yaml, run_cli

HUGO = shutil.which("hugo") is not None


@pytest.fixture(scope="module")
def bench_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """What bench.py prints for sites of three runs, and the site it leaves with --folder
    (collected and built): run once for the tests below. Where Hugo is installed, two
    measurements a figure, each cold build paired with Hugo's (the pairing test reads their
    median); else one, which is all the table's rows need."""
    folder = tmp_path_factory.mktemp("bench") / "site"
    result = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "bench.py"),
            "--runs",
            "3",
            "--repeat",
            "2" if HUGO else "1",
            "--folder",
            str(folder),
            *(["--hugo"] if HUGO else []),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout, folder


@pytest.fixture(scope="module")
def bench_table(bench_run: tuple[str, Path]) -> str:
    return bench_run[0]


def test_benchmark_script_prints_its_table(bench_table: str) -> None:
    for row in (
        "collect cold",
        "build cold (all charts)",
        "collect + build cold (all charts)",
        "collect + build unchanged",
        "one run added",
        "one run edited",
        "run page",
        "output",
    ):
        assert row in bench_table
    # A cold site is a cold collect then a cold build: with two tries each median is a mean, so
    # the pair's median is the two medians added (each printed to a hundredth).
    seconds = {
        name: float(found.group(1))
        for name in ("collect cold", "build cold (all charts)", "collect + build cold (all charts)")
        if (found := re.search(rf"^{re.escape(name)}\s+([\d.]+) s", bench_table, re.M))
    }
    assert len(seconds) == 3, bench_table
    together = seconds["collect cold"] + seconds["build cold (all charts)"]
    assert abs(seconds["collect + build cold (all charts)"] - together) <= 0.015


def test_the_table_leaves_its_site_in_the_folder_it_was_given(kept_bench_site: Path) -> None:
    assert sorted(path.name for path in (kept_bench_site / "content" / "runs").iterdir()) == [
        f"{_bench_module().run_id(i)}.yaml" for i in range(3)
    ]
    assert (kept_bench_site / "_site" / "runs" / _bench_module().run_id(2) / "index.html").is_file()


def test_a_folder_that_is_there_already_is_refused(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench.py"), "--runs", "3", "--folder", "."],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert "needs one --runs and a folder not there yet" in result.stderr
    assert list(tmp_path.iterdir()) == []


def _bench_added_only(folder: Path) -> str:
    """bench.py timing an added run on a site of three at ``folder`` (made there when missing);
    what it prints."""
    result = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "bench.py"),
            "--runs",
            "3",
            "--repeat",
            "1",
            "--added-only",
            "--folder",
            str(folder),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


ADDED_ALONE = r"^one run added: collect [\d.]+ s \+ build [\d.]+ s = [\d.]+ s"


@pytest.fixture(scope="module")
def kept_bench_site(bench_run: tuple[str, Path]) -> Path:
    """The site of three runs the table's run of bench.py left (each test works on a copy)."""
    return bench_run[1]


def _copy_of(kept: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "site"
    shutil.copytree(kept, folder, symlinks=True)
    return folder


def test_the_added_run_alone_on_a_kept_site(kept_bench_site: Path, tmp_path: Path) -> None:
    folder = _copy_of(kept_bench_site, tmp_path)
    assert re.search(ADDED_ALONE, _bench_added_only(folder), re.M)  # found and brought up to date
    # Three runs, and the added one removed again after it was timed.
    assert sorted(path.name for path in (folder / "content" / "runs").iterdir()) == [
        f"{_bench_module().run_id(i)}.yaml" for i in range(3)
    ]


def test_the_stages_of_an_added_runs_build(kept_bench_site: Path, tmp_path: Path) -> None:
    # On a site bench.py made: every step of the build named with its share, and the site as
    # it was afterwards (the added run gone, its pages and JSON gone from the site again).
    folder = _copy_of(kept_bench_site, tmp_path)
    before = sorted(path.relative_to(folder).as_posix() for path in (folder / "_site").rglob("*"))
    result = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "stages.py"), "--folder", str(folder)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    shares = dict(re.findall(r"^(.+?)\s{2,}[\d.]+ s\s+([\d.]+)%$", result.stdout, re.M))
    for step in (
        "plan",
        "pages: made and written",
        "manifest: load",
        "manifest: save",
        "start-up and imports",
    ):
        assert step in shares
    assert abs(sum(float(share) for share in shares.values()) - 100) < 1
    assert re.search(r"^whole build\s+[\d.]+ s$", result.stdout, re.M)
    assert (
        sorted(path.relative_to(folder).as_posix() for path in (folder / "_site").rglob("*"))
        == before
    )


def _bench_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sitegen_bench", REPO / "benchmarks" / "bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up there)
    spec.loader.exec_module(module)
    return module


SPEEDS = {"prompt_tokens_per_s", "total_tokens_per_s", "per_request_tokens_per_s"}
LATENCIES = {"ttft_ms", "time_between_tokens_ms"}


def _assert_scaled(real: Any, copy: Any, name: str, factor: float) -> None:
    """A figure of the copy is the real one × factor (speeds), ÷ factor (latencies), × factor
    rounded to a whole number (output tokens), or the real one (power, counts, statuses)."""
    if name in SPEEDS:
        assert copy == pytest.approx(real * factor, rel=1e-6, abs=1e-6), name
    elif name in LATENCIES:
        assert copy == pytest.approx(real / factor, rel=1e-6, abs=1e-6), name
    elif name == "output_tokens":
        assert abs(copy - real * factor) <= 0.5, name
    else:
        assert copy == real, name


def test_synthetic_runs_are_the_real_run_scaled_and_warn_of_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _bench_module()
    real = load_yaml(
        (REPO / "content" / "runs" / "h200nvl2-sglang-deepseek-v4-flash-dspark.yaml").read_text()
    )
    rng = random.Random(5)
    texts = [bench.synthetic_run(index, 2, rng) for index in range(4)]
    factors = []
    for text in texts:
        copy = load_yaml(text)
        factor = (
            copy["measurements"]["prefill"][0]["prompt_tokens_per_s"]
            / real["measurements"]["prefill"][0]["prompt_tokens_per_s"]
        )
        factors.append(factor)
        for phase, items in real["measurements"].items():
            assert len(copy["measurements"][phase]) == len(items)
            for item, copied in zip(items, copy["measurements"][phase], strict=True):
                assert copied.keys() == item.keys()
                for name, value in item.items():
                    if name != "statistics":
                        _assert_scaled(value, copied[name], name, factor)
                        continue
                    for figure, values in value.items():
                        assert copied[name][figure].keys() == values.keys()
                        for statistic, number in values.items():
                            _assert_scaled(number, copied[name][figure][statistic], figure, factor)
    assert len({round(factor, 6) for factor in factors}) == 4 and all(
        0.5 <= f <= 2 for f in factors
    ), factors
    # The copies agree with themselves as the real run does: collect warns of nothing.
    (tmp_path / "content" / "runs").mkdir(parents=True)
    (tmp_path / "sitegen.yaml").write_text("title: Copies\n")
    for index, text in enumerate(texts):
        (tmp_path / "content" / "runs" / f"copy-{index}.yaml").write_text(text)
    capsys.readouterr()
    assert run_cli(tmp_path, "collect") == 0
    said = capsys.readouterr()
    assert "collected 4 runs" in said.out + said.err
    assert "warning" not in said.out + said.err


def test_bytes_by_part_add_up_to_the_site(tmp_path: Path) -> None:
    bench = _bench_module()
    sizes = {
        "runs/a/index.html": 3000,
        "runs/a.json": 2000,
        "models/m/index.html": 500,
        "data/points/m/8192.json": 700,
        "assets/style.css": 100,
        "index.html": 200,
    }
    for name, size in sizes.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"x" * size)
    line = bench.bytes_by_part(tmp_path, [tmp_path / name for name in sizes], 1)
    assert line == (
        "run pages 3.0 · run JSON 2.0 · group and listing pages 0.7 · data files 0.7 · assets 0.1 "
        "(KB a run)"
    )


@pytest.mark.skipif(not HUGO, reason="needs Hugo (Debian: apt-get install -y hugo)")
def test_each_cold_build_is_paired_with_hugos_just_before(bench_table: str) -> None:
    paired = re.search(
        r"^collect \+ build cold ÷ Hugo's just before\s+N = 3: ([\d.]+) × \(median of 2 pairs: "
        r"([\d.]+), "
        r"([\d.]+)\)",
        bench_table,
        re.M,
    )
    assert paired, bench_table
    median, low, high = (float(value) for value in paired.groups())
    assert 0 < low <= high and abs(median - (low + high) / 2) <= 0.01
    assert re.search(r"^hugo cold \(as many pages\)\s+[\d.]+ s", bench_table, re.M)
