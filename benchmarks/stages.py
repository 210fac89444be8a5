#!/usr/bin/env python3
"""Where the build of one added run goes, stage by stage, on a site made by bench.py.

    python benchmarks/stages.py --folder /tmp/site-20k                  # seconds a stage
    python benchmarks/stages.py --folder /tmp/site-20k --instructions   # instructions a stage

Adds a synthetic run to the site in --folder (made, and brought up to date with the code, by
``bench.py --runs N --added-only --folder``), runs ``sitegen collect``, then ``sitegen build``
with each step of sitegen/site/build.py's ``_build`` timed, and prints each step's share; then
removes the run and collects and builds again, so the site is as it was. ``--warm-up`` adds and
removes a run once first, so that caches a build records as it goes are in place.

Seconds move with the machine's load (on the 2-core development machine by a third from one
minute to the next). Instructions, counted by valgrind's callgrind (Debian: ``apt-get install
valgrind``; the build is 50 times slower under it), do not: they are the figure to compare two
versions of the code by. SHA-256 counts high there, since valgrind's CPU lacks the SHA
extensions the real one uses. Run by hand, like bench.py.
"""

from __future__ import annotations

import argparse
import functools
import glob
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import _INSTALLED, compile_sitegen, sitegen, synthetic_run

# The steps of _build, each (module, attribute, name); a step called inside another is counted
# there.
STAGES = [
    ("sitegen.site.build", "_fingerprint", "code fingerprint"),
    ("sitegen.site.build", "Manifest", "manifest: load"),
    ("sitegen.site.build", "_read_collected_bytes", "collected file: read"),
    ("sitegen.site.build", "read_collected", "collected runs: decode"),
    ("sitegen.site.build", "StoredFigures", "kept figures: load"),
    ("sitegen.site.build", "environment", "templates: loaded"),
    ("sitegen.site.build", "Fragments", "kept pieces: load"),
    ("sitegen.site.build", "plan", "plan"),
    (
        "sitegen.site.incremental.manifest",
        "Manifest.previous_site",
        "previous site: its files and folders",
    ),
    ("sitegen.site.incremental.previous", "StagedOutput", "staging: the spare checked"),
    ("sitegen.site.incremental.previous", "Previous.keep_unchanged", "unchanged files: kept"),
    ("sitegen.site.build", "SiteWriter.pages", "pages: made and written"),
    ("sitegen.site.build", "SiteWriter.data_files", "data files"),
    ("sitegen.site.draw.chart_render", "ChartBatch.result", "charts: drawing waited for"),
    ("sitegen.site.build", "write_charts", "charts: written"),
    ("sitegen.site.output.staging", "StagedOutput.commit", "swap"),
    ("sitegen.site.incremental.spare", "Spare.refresh", "spare: brought up to date"),
    ("sitegen.site.incremental.manifest", "Manifest.save", "manifest: save"),
    ("sitegen.site.figures.build_figures", "Analysis.keep_figures", "kept figures: save"),
    ("sitegen.site.incremental.fragments", "Fragments.save", "kept pieces: save"),
    ("sitegen.site.draw.chart_render", "ChartBatch.close", "chart workers: ended"),
]
BETWEEN = "between the steps"
START = "start-up and imports"


def _instrumented_build(report: Path, dump: bool) -> None:
    """``sitegen build`` in this process, each step of STAGES timed (or, under callgrind with
    ``dump``, its instructions dumped); the figures by step, summed, written to ``report``."""
    seconds: dict[str, float] = {}
    started = time.perf_counter()

    def mark(name: str, since: float) -> float:
        now = time.perf_counter()
        if dump:
            subprocess.run(
                ["callgrind_control", "-d", name, str(os.getpid())],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
            )
        seconds[name] = seconds.get(name, 0.0) + now - since
        return time.perf_counter()

    import importlib

    from sitegen import cli, gc_and_exit

    last = [mark(START, started)]
    inside = [0]

    def wrap(module_name: str, attribute: str, name: str) -> None:
        owner: Any = importlib.import_module(module_name)
        *path, leaf = attribute.split(".")
        for part in path:
            owner = getattr(owner, part)
        real: Callable[..., Any] = getattr(owner, leaf)

        @functools.wraps(real)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if inside[0]:
                return real(*args, **kwargs)
            last[0] = mark(BETWEEN, last[0])
            inside[0] += 1
            try:
                return real(*args, **kwargs)
            finally:
                inside[0] -= 1
                last[0] = mark(name, last[0])

        setattr(owner, leaf, timed)

    for module_name, attribute, name in STAGES:
        wrap(module_name, attribute, name)
    gc_and_exit.ends_with_command()
    try:
        cli.main(["build"])
    finally:
        mark(BETWEEN, last[0])
        report.write_text(json.dumps(seconds))


def _instructions(dumps: str) -> dict[str, float]:
    """Instructions by step, from callgrind's dump files (each holds those since the one before)."""
    counted: dict[str, float] = {}
    for path in glob.glob(dumps):
        head = Path(path).read_text(errors="replace")[:4000]
        trigger = re.search(
            r"^desc: Trigger: (?:Client Request: |Program termination)?(?:dump )?(.*)$", head, re.M
        )
        total = re.search(r"^(?:summary|totals): (\d+)", head, re.M)
        if trigger and total:
            name = trigger.group(1).strip() or BETWEEN
            counted[name] = counted.get(name, 0.0) + int(total.group(1))
    return counted


def measure(folder: Path, instructions: bool, seed: int) -> dict[str, float]:
    """Add a run, collect, build it instrumented; then put the site back. The figures by step."""
    added = folder / "content" / "runs" / "stages-added.yaml"
    runs = sum(1 for _ in (folder / "content" / "runs").glob("*.yaml"))
    added.write_text(synthetic_run(runs, max(1, runs // 10), random.Random(seed)))
    try:
        sitegen(folder, "collect")
        with tempfile.TemporaryDirectory(prefix="sitegen-stages-") as scratch:
            report = Path(scratch) / "report.json"
            command = [sys.executable, __file__, "--inner", str(report)]
            if instructions:
                command = [
                    "valgrind",
                    "--tool=callgrind",
                    f"--callgrind-out-file={scratch}/cg.%p",
                    *command,
                    "--dump",
                ]
            subprocess.run(
                command,
                cwd=folder,
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                env=_INSTALLED,
            )
            figures = (
                _instructions(f"{scratch}/cg.*") if instructions else json.loads(report.read_text())
            )
    finally:
        added.unlink(missing_ok=True)
        sitegen(folder, "collect")
        sitegen(folder, "build")
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--folder", type=Path, help="a site made by bench.py --added-only --folder")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions under valgrind's callgrind"
    )
    parser.add_argument(
        "--warm-up", action="store_true", help="add and remove a run once before measuring"
    )
    parser.add_argument("--seed", type=int, default=36, help="of the added run's numbers")
    parser.add_argument("--inner", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--dump", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner is not None:
        _instrumented_build(args.inner, args.dump)
        return 0
    if args.folder is None or not (args.folder / "sitegen.yaml").is_file():
        parser.error("--folder must be a site made by bench.py (it holds sitegen.yaml)")
    compile_sitegen()  # start-up as an installed sitegen's, from compiled modules (as bench.py)
    if args.warm_up:
        measure(args.folder, False, args.seed)
    figures = measure(args.folder, args.instructions, args.seed)
    total = sum(figures.values())
    unit = "M instructions" if args.instructions else "s"
    scale = 1e-6 if args.instructions else 1.0
    width = max(map(len, figures))
    for name, value in sorted(figures.items(), key=lambda item: -item[1]):
        print(
            f"{name:{width}}  {value * scale:10.{0 if args.instructions else 3}f} {unit}  "
            f"{value / total:6.1%}"
        )
    print(f"{'whole build':{width}}  {total * scale:10.{0 if args.instructions else 3}f} {unit}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
