#!/usr/bin/env python3
"""Speed and size of sitegen on synthetic sites of N runs.

    python benchmarks/bench.py                 # N = 1,000 and 5,000, medians of 3
    python benchmarks/bench.py --runs 200 --repeat 1
    python benchmarks/bench.py --runs 1000 --runs 5000 --runs 20000 --repeat 1 --hugo
    python benchmarks/bench.py --runs 20000 --added-only --folder /tmp/site-20k --repeat 4
    python benchmarks/bench.py --runs 1000 --folder /tmp/site-1k   # and leave the site there

With ``--hugo`` (and Hugo installed) a Hugo site of as many pages, each with a table as long
as a run page's, is built cold in the same run, so sitegen's times can be read as ratios of
Hugo's: a baseline that does not depend on how busy the machine is.

Each run is a copy of a real shipped run (the DeepSeek run: 9 prefill rows, 64 decode cells
with mean, p50, p90 and p99 of their latencies and per-request speed, power, the same statuses),
its speeds × f and latencies ÷ f for a seeded random f per copy, so that its figures agree with
each other as the real ones do; about ten runs a model, twelve accelerators, three engines, so
that the model, hardware and compare pages exist in realistic proportions. Synthetic data is
written to a temporary folder only, never to content/.

Every figure is the median of --repeat runs of the real command line in a fresh process;
peak memory is the largest resident set of those processes. Targets (issue 7) are printed
beside the figures; they are goals, never timed tests.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import functools
import gzip
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
ACCELERATORS = [
    ("H200 NVL", 141),
    ("H100 SXM", 80),
    ("B200", 179),
    ("MI300X", 192),
    ("RTX PRO 6000", 96),
    ("L40S", 48),
    ("A100 SXM", 80),
    ("GB200", 186),
    ("MI325X", 256),
    ("RTX 5090", 32),
    ("H20", 96),
    ("GH200", 96),
]
ENGINES = [("sglang", "0.5.16"), ("vLLM", "0.17.0"), ("llama.cpp", "b6918")]


# The real runs the synthetic ones are copies of: the shipped DeepSeek run by default, with its
# per-cell statistics (mean, p50, p90, p99), power and statuses (docs/performance.md).
TEMPLATE = REPO / "content" / "runs" / "h200nvl2-sglang-deepseek-v4-flash-dspark.yaml"
# Figures that grow with a faster server (× f) and that shrink with it (÷ f); a statistic
# (statistics.<name>.p90...) follows its figure's name. Everything else (power, counts of
# requests, context lengths, statuses) is kept as the real run measured it.
SPEEDS = frozenset(
    {"prompt_tokens_per_s", "total_tokens_per_s", "per_request_tokens_per_s", "output_tokens"}
)
LATENCIES = frozenset({"ttft_ms", "time_between_tokens_ms"})


def _scaled(name: str, value: Any, factor: float) -> Any:
    """A figure of a measurement scaled as a server ``factor`` times as fast would measure it,
    at the source's precision (six decimals; counts stay whole)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    if name in SPEEDS:
        return round(value * factor) if isinstance(value, int) else round(value * factor, 6)
    if name in LATENCIES:
        return round(value / factor, 6)
    return value


def _scaled_measurement(item: dict[str, Any], factor: float) -> dict[str, Any]:
    copy = {name: _scaled(name, value, factor) for name, value in item.items()}
    if isinstance(item.get("statistics"), dict):
        copy["statistics"] = {
            name: {statistic: _scaled(name, value, factor) for statistic, value in figures.items()}
            for name, figures in item["statistics"].items()
        }
    return copy


def _template(path: Path) -> dict[str, Any]:
    loaded = yaml.safe_load(path.read_text())
    if not isinstance(loaded, dict):
        raise SystemExit(f"{path}: not a result file")
    return loaded


def synthetic_run(index: int, models: int, rng: random.Random, template: Path = TEMPLATE) -> str:
    """One result file: a copy of a real run with its speeds × f and its latencies ÷ f for a
    random f, so its figures stay consistent with each other (no plausibility warning), under
    another model, accelerator and engine, so that group pages exist in realistic proportions."""
    document = copy.deepcopy(_template_cached(template))
    family = index % models
    # As long as real names (the shipped runs' models: 27 characters on average).
    model = f"org{family % 7}-ai/Model-{family}-{'30B-A3B' if family % 3 else '70B'}-Instruct"
    accelerator, memory = ACCELERATORS[rng.randrange(len(ACCELERATORS))]
    engine, version = ENGINES[rng.randrange(len(ENGINES))]
    factor = rng.uniform(0.5, 2.0)
    document["hardware"].update(
        {
            "accelerator": accelerator,
            "memory_per_device_gb": memory,
            "vendor": "AMD" if accelerator.startswith("MI") else "NVIDIA",
        }
    )
    document["engine"].update(
        {
            "name": engine,
            "version": version,
            "launch_command": f"serve {model} --tp {document['hardware']['count']} --port 8000",
        }
    )
    document["run"].update(
        {"model": model, "date": f"2026-{1 + index % 12:02d}-{1 + index % 28:02d}"}
    )
    document["run"].pop("served_model_name", None)
    document["measurements"] = {
        phase: [_scaled_measurement(item, factor) for item in items]
        for phase, items in document["measurements"].items()
    }
    # libyaml's emitter: several times as fast as PyYAML's own for a document of this size.
    text = yaml.dump(document, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True)
    return "# Synthetic run for benchmarks/bench.py\n" + text


@functools.cache
def _template_cached(path: Path) -> dict[str, Any]:
    return _template(path)


def run_id(index: int) -> str:
    """A synthetic run's id (its file's name): as long as real ones (the shipped runs': 48
    characters on average), since an id is in every link to the run and in every data file."""
    return f"synthetic-copy-of-the-h200nvl2-dspark-run-{index:05d}"


def make_site(folder: Path, runs: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    (folder / "content" / "runs").mkdir(parents=True)
    (folder / "sitegen.yaml").write_text("title: Benchmark site\n")
    models = max(1, runs // 10)
    for index in range(runs):
        (folder / "content" / "runs" / f"{run_id(index)}.yaml").write_text(
            synthetic_run(index, models, rng)
        )


@dataclass
class Measure:
    seconds: float
    peak_mb: float


def _tree_rss_mb(root: int) -> float:
    """Resident memory of a process and all its descendants (Linux /proc), in MB."""
    children: dict[int, list[int]] = {}
    resident: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            resident[int(entry.name)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
            children.setdefault(int(fields[1]), []).append(int(entry.name))
        except (OSError, IndexError, ValueError):
            continue  # the process ended while we looked
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += resident.get(pid, 0)
        stack.extend(children.get(pid, []))
    return total / 1e6


# sitegen as an installed program runs: from compiled bytecode (pip writes it on install). A
# shell with PYTHONDONTWRITEBYTECODE set would otherwise make every process compile every module
# from source again, a few hundred milliseconds that no user's command pays.
_INSTALLED = {
    name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"
}


def compile_sitegen() -> None:
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(REPO / "sitegen")],
        check=True,
        env=_INSTALLED,
        stdout=subprocess.DEVNULL,
    )


def sitegen(folder: Path, *args: str) -> Measure:
    """Run the real command line in a fresh process; its wall time and peak memory: the largest
    resident set of the whole process tree (main process and its workers together), sampled
    every 50 ms by a thread of this process, or the main process's own peak if that is larger.

    The wall time ends when the process does (a blocking wait): the sampling loop's own sleep
    used to be in it, up to 50 ms a command."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "sitegen", "--config", str(folder / "sitegen.yaml"), *args],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=_INSTALLED,
    )
    ended = threading.Event()
    tree_peak = [0.0]

    def sample() -> None:
        while not ended.wait(0.05):
            tree_peak[0] = max(tree_peak[0], _tree_rss_mb(process.pid))

    said: list[bytes] = []  # its standard error, read as it comes: a full pipe would stop it

    def read_errors() -> None:
        if process.stderr is not None:
            said.append(process.stderr.read())

    helpers = [
        threading.Thread(target=sample, daemon=True),
        threading.Thread(target=read_errors, daemon=True),
    ]
    for helper in helpers:
        helper.start()
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    ended.set()
    for helper in helpers:
        helper.join(timeout=60)  # (the stream ends when the command's workers have ended too)
    stderr = b"".join(said).decode()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"sitegen {' '.join(args)} failed:\n{stderr}")
    # ru_maxrss is in KiB on Linux.
    return Measure(elapsed, max(tree_peak[0], usage.ru_maxrss / 1024))


# Where a cold step puts what it takes away, removed once the cold figures are measured
# (clear_set_aside). Deleting thousands of files just before a build would measure the file
# system: ext4 without a journal (as on the benchmark's machine) skips, at every new file, each
# inode freed in the last 30 seconds (find_inode_bit → recently_deleted in the kernel), which
# cost a cold build 3 s of system time at 1,000 runs (docs/performance-log.md, 2026-12-05). A
# new clone's first build, which the cold figures stand for, finds no such inodes.
SET_ASIDE = ".bench-set-aside"


def set_aside(folder: Path, path: Path) -> None:
    """Move ``path`` (inside ``folder``) out of the way, if it exists, to be removed later."""
    aside = folder / SET_ASIDE
    aside.mkdir(exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        path.rename(aside / str(len(os.listdir(aside))))


def clear_set_aside(folder: Path) -> None:
    shutil.rmtree(folder / SET_ASIDE, ignore_errors=True)


def cold(folder: Path, what: str) -> None:
    if what == "collect":
        set_aside(folder, folder / ".sitegen")
    else:
        # A cold build: no site, no rendered charts, no manifest, none of the build's caches (kept
        # figures and listing pieces, compiled templates); the collect cache stays, since it
        # belongs to collect and later figures measure an unchanged collect.
        set_aside(folder, folder / "_site")
        set_aside(folder, folder / ".sitegen" / "cache" / "charts")
        cache = folder / ".sitegen" / "cache"
        for made in [
            *cache.glob("vega-*"),
            *cache.glob("chart-templates-*"),  # bundle, chart templates
            *cache.glob("fragments.json"),
            *cache.glob("figures.json"),
            *cache.glob("collected-digest.json"),
        ]:
            made.unlink()
        set_aside(folder, cache / "templates")  # compiled page templates
        set_aside(folder, folder / ".sitegen" / "build")


def cold_run(folder: Path, what: str) -> Measure:
    cold(folder, what)
    return sitegen(folder, what)


def median(measures: list[Measure]) -> Measure:
    return Measure(statistics.median(m.seconds for m in measures), max(m.peak_mb for m in measures))


def both(folder: Path) -> Measure:
    return _sum(sitegen(folder, "collect"), sitegen(folder, "build"))


def _sum(first: Measure, second: Measure) -> Measure:
    """Two commands run one after the other: their times added, the larger peak."""
    return Measure(first.seconds + second.seconds, max(first.peak_mb, second.peak_mb))


_LOADED = re.compile(
    rb'<(?:link[^>]*rel="(?:stylesheet|icon)"[^>]*href|script[^>]*src|img[^>]*src)="([^"]+)"'
)
_FETCHED_ON_LOAD = re.compile(rb'data-load="([^"]+)"')  # data a page's script fetches as it loads


def first_load(site: Path, page: str) -> int:
    """Bytes (gzip, as servers send them) of a page and everything it loads before a reader
    does anything: style sheet, scripts, icon, images, data its script fetches on load."""
    html = (site / page).read_bytes()
    total = len(gzip.compress(html))
    base = (site / page).parent
    for url in sorted(set(_LOADED.findall(html)) | set(_FETCHED_ON_LOAD.findall(html))):
        path = url.decode().split("?")[0].split("#")[0]
        target = site / path.lstrip("/") if path.startswith("/") else base / path
        if target.is_file():
            total += len(gzip.compress(target.read_bytes()))
    return total


def bytes_by_area(site: Path, files: list[Path], runs: int) -> str:
    """KB per run of each part of the site, largest first: run pages and run JSON apart,
    each folder of data/ apart, every other top-level folder or file as one."""
    areas: dict[str, int] = {}
    for path in files:
        parts = path.relative_to(site).parts
        if parts[0] == "runs":
            key = f"runs/*{path.suffix}" if len(parts) == 2 else "run pages"
        elif parts[0] == "data" and len(parts) > 1:
            key = f"data/{parts[1]}"
        else:
            key = parts[0]
        areas[key] = areas.get(key, 0) + path.stat().st_size
    ranked = sorted(areas.items(), key=lambda item: -item[1])
    return (
        " · ".join(f"{key} {size / runs / 1000:.1f}" for key, size in ranked if size / runs >= 50)
        + " (KB a run)"
    )


# The parts of the site a change aims at, by the first folder of a path (anything else: the
# group and listing pages, the feed, the sitemap).
PARTS = {"runs": "run pages", "data": "data files", "assets": "assets"}


def bytes_by_part(site: Path, files: list[Path], runs: int) -> str:
    """KB per run of the five parts of the site: run pages, run JSON, group and listing pages,
    data files (data/), assets."""
    parts = dict.fromkeys(
        ["run pages", "run JSON", "group and listing pages", "data files", "assets"], 0
    )
    for path in files:
        relative = path.relative_to(site).parts
        part = PARTS.get(relative[0], "group and listing pages")
        if relative[0] == "runs" and len(relative) == 2 and path.suffix == ".json":
            part = "run JSON"
        parts[part] += path.stat().st_size
    return (
        " · ".join(f"{name} {size / runs / 1000:.1f}" for name, size in parts.items())
        + " (KB a run)"
    )


def hugo_cold(folder: Path, pages: int) -> Measure:
    """Hugo building a site of as many pages, each a table of 73 rows × 12 columns like a run
    page's measurements, from nothing (no resources cache)."""
    site = folder / "hugo"
    if not site.exists():
        (site / "content" / "runs").mkdir(parents=True)
        (site / "layouts" / "_default").mkdir(parents=True)
        (site / "hugo.toml").write_text(
            'baseURL = "/"\ntitle = "baseline"\ndisableKinds = ["taxonomy", "term"]\n'
        )
        (site / "layouts" / "_default" / "baseof.html").write_text(
            '<!doctype html><html><head><title>{{ .Title }}</title></head><body>{{ block "main" . '
            "}}{{ end }}</body></html>"
        )
        (site / "layouts" / "_default" / "single.html").write_text(
            '{{ define "main" }}<h1>{{ .Title }}</h1>{{ .Content }}{{ end }}'
        )
        (site / "layouts" / "_default" / "list.html").write_text(
            '{{ define "main" }}<ul>{{ range .Paginator.Pages }}<li><a href="{{ .RelPermalink '
            '}}">{{ .Title }}</a></li>'
            "{{ end }}</ul>{{ end }}"
        )
        rng = random.Random(7)
        header = "| " + " | ".join(f"c{i}" for i in range(12)) + " |\n|" + "---|" * 12 + "\n"
        for index in range(pages):
            rows = "".join(
                "| " + " | ".join(f"{rng.uniform(1, 9999):,.1f}" for _ in range(12)) + " |\n"
                for _ in range(73)
            )
            (site / "content" / "runs" / f"run-{index:05d}.md").write_text(
                f'---\ntitle: "run {index}"\ndate: 2026-01-01\n---\n\n{header}{rows}'
            )
    set_aside(folder, site / "public")
    set_aside(folder, site / "resources")
    start = time.perf_counter()
    process = subprocess.Popen(
        ["hugo", "--quiet", "--source", str(site), "--cacheDir", str(site / "cache")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(
            f"hugo failed:\n{process.stderr.read().decode() if process.stderr else ''}"
        )
    return Measure(elapsed, usage.ru_maxrss / 1024)


def added_only(folder: Path, runs: int, repeat: int) -> None:
    """Only ``collect && build`` with one run added (and removed again after each), on a site
    kept in ``folder`` between invocations: made there if missing and brought up to date first
    (a cold collect and build of 20,000 runs take many minutes; the added run takes seconds)."""
    if not (folder / "content" / "runs").is_dir():
        make_site(folder, runs)
    compile_sitegen()
    both(folder)  # up to date with this sitegen (after a change of its code: every page again)
    rng = random.Random(99)
    added = folder / "content" / "runs" / "added-0.yaml"
    for _ in range(repeat):
        added.write_text(synthetic_run(runs, max(1, runs // 10), rng))
        first, second = sitegen(folder, "collect"), sitegen(folder, "build")
        added.unlink()
        both(folder)
        print(
            f"one run added: collect {first.seconds:.2f} s + build {second.seconds:.2f} s = "
            f"{first.seconds + second.seconds:.2f} s, peak "
            f"{max(first.peak_mb, second.peak_mb):.0f} MB",
            flush=True,
        )


@contextlib.contextmanager
def _site_folder(kept: Path | None) -> Iterator[Path]:
    """``kept`` (made, and left afterwards), or a temporary folder removed afterwards."""
    if kept is not None:
        kept.mkdir(parents=True)
        yield kept
        return
    with tempfile.TemporaryDirectory(prefix="sitegen-bench-") as tmp:
        yield Path(tmp)


def bench(
    runs: int, repeat: int, hugo: bool = False, kept: Path | None = None
) -> dict[str, object]:
    """Every figure of the table for a site of ``runs`` runs, made in ``kept`` (left there,
    collected and built) or in a temporary folder."""
    with _site_folder(kept) as folder:
        make_site(folder, runs)
        results: dict[str, object] = {}
        # A cold site is a cold collect and then a cold build, as a new clone's first
        # `sitegen collect && sitegen build`. With --hugo, Hugo's cold build is timed just before
        # each: on a shared machine the load moves from one minute to the next, and a pair sees
        # the same minute.
        hugo_builds: list[Measure] = []
        collects, builds, colds = [], [], []
        for _ in range(repeat):
            if hugo:
                hugo_builds.append(hugo_cold(folder, runs))
            collects.append(cold_run(folder, "collect"))
            builds.append(cold_run(folder, "build"))
            colds.append(_sum(collects[-1], builds[-1]))
            if hugo:  # each pair as it is measured: the table shows only medians
                print(
                    f"pair: Hugo {hugo_builds[-1].seconds:.2f} s, collect "
                    f"{collects[-1].seconds:.2f} s + build {builds[-1].seconds:.2f} s = "
                    f"{colds[-1].seconds / hugo_builds[-1].seconds:.2f} ×",
                    flush=True,
                )
        clear_set_aside(folder)
        results["collect cold"] = median(collects)
        results["build cold (all charts)"] = median(builds)
        results[COLD] = median(colds)
        results["collect unchanged"] = median([sitegen(folder, "collect") for _ in range(repeat)])
        results["build unchanged"] = median([sitegen(folder, "build") for _ in range(repeat)])
        results["collect + build unchanged"] = median([both(folder) for _ in range(repeat)])

        rng = random.Random(99)
        measures = []
        for attempt in range(repeat):
            added = folder / "content" / "runs" / f"added-{attempt}.yaml"
            added.write_text(synthetic_run(runs + attempt, max(1, runs // 10), rng))
            measures.append(both(folder))
            added.unlink()
            both(folder)  # back to the base site before the next attempt
        results["collect + build, one run added"] = median(measures)

        edited = folder / "content" / "runs" / f"{run_id(0)}.yaml"
        original = edited.read_text()
        measures = []
        for attempt in range(repeat):
            edited.write_text(
                original.replace("prompt_tokens_per_s: ", f"prompt_tokens_per_s: {attempt + 1}", 1)
            )
            measures.append(both(folder))
            edited.write_text(original)
            both(folder)
        results["collect + build, one run edited"] = median(measures)

        site = folder / "_site"
        files = [p for p in site.rglob("*") if p.is_file()]
        total = sum(p.stat().st_size for p in files)
        results["output"] = f"{len(files):,} files, {total / 1e6:,.1f} MB"
        results["bytes by part"] = bytes_by_part(site, files, runs)
        results["where the bytes go"] = bytes_by_area(site, files, runs)
        results["bytes per run"] = (
            f"{total / runs / 1000:,.1f} KB (apparent size of every file ÷ runs)"
        )
        second = (
            f"; /page/2/: {first_load(site, 'page/2/index.html') / 1000:,.1f} KB"
            if (site / "page" / "2" / "index.html").is_file()
            else ""
        )
        results["index first load"] = (
            f"{first_load(site, 'index.html') / 1000:,.1f} KB gzip (HTML and what it loads{second})"
        )
        page = (site / "runs" / run_id(0) / "index.html").read_bytes()
        results["run page"] = (
            f"{len(page) / 1000:,.1f} KB HTML, {len(gzip.compress(page)) / 1000:,.1f} KB gzip; "
            f"with what it loads {first_load(site, f'runs/{run_id(0)}/index.html') / 1000:,.1f} KB "
            f"gzip"
        )
        if hugo:
            results["hugo cold (as many pages)"] = median(hugo_builds)
            ratios = sorted(
                ours.seconds / theirs.seconds
                for ours, theirs in zip(colds, hugo_builds, strict=True)
            )
            results[PAIRED] = (
                f"{statistics.median(ratios):.2f} × (median of {len(ratios)} pairs: "
                + ", ".join(f"{ratio:.2f}" for ratio in ratios)
                + ")"
            )
        return results


# A new clone's first `sitegen collect && sitegen build` (issue 47 times the two together).
COLD = "collect + build cold (all charts)"
# Each cold collect and build of sitegen as a multiple of Hugo's cold build just before it, the
# median of the pairs.
PAIRED = "collect + build cold ÷ Hugo's just before"

# Issue 18: sitegen's times as a multiple of Hugo's cold build of as many pages.
RATIO_TARGETS = {
    "collect + build unchanged": "≤ 0.45 ×",
    "collect + build, one run added": "≤ 0.9 ×",
    COLD: "≤ 9 ×",
}

TARGETS = {
    "collect cold": "< 10 s at 1,000",
    "build cold (all charts)": "< 30 s at 1,000",
    "collect + build unchanged": "< 1.5 s at 1,000",
    "collect + build, one run added": "< 3 s at 1,000",
    "run page": "< 60 KB gzip",
    "bytes per run": "≤ 50 KB at 1,000 and 5,000",
    "index first load": "≤ 100 KB gzip at any N",
    PAIRED: "≤ 9 ×",
}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--runs", type=int, action="append", help="site sizes to measure (default 1000 and 5000)"
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="measurements per figure; the median is shown"
    )
    parser.add_argument(
        "--hugo", action="store_true", help="also time Hugo building as many pages (needs hugo)"
    )
    parser.add_argument(
        "--folder",
        type=Path,
        help=(
            "with --added-only: keep the site here between invocations; else: make the site of "
            "the one --runs size here and leave it, collected and built (a new folder)"
        ),
    )
    parser.add_argument(
        "--added-only",
        action="store_true",
        help=(
            "time only collect + build with one run added (--repeat times), on the site in --folder"
        ),
    )
    args = parser.parse_args()
    if args.added_only:
        if args.folder is None or len(args.runs or []) != 1:
            parser.error("--added-only needs --folder and one --runs")
        added_only(args.folder, args.runs[0], args.repeat)
        return 0
    if args.hugo and shutil.which("hugo") is None:
        parser.error("--hugo needs Hugo on PATH (Debian: apt-get install hugo)")
    sizes = args.runs or [1000, 5000]
    if args.folder is not None and (len(sizes) != 1 or args.folder.exists()):
        parser.error("--folder without --added-only needs one --runs and a folder not there yet")
    compile_sitegen()
    table = {size: bench(size, args.repeat, args.hugo, args.folder) for size in sizes}
    names = list(next(iter(table.values())))
    width = max(map(len, names))
    print(f"{'':{width}}  " + "  ".join(f"{f'N = {size:,}':>24}" for size in sizes) + "  target")
    for name in names:
        cells = []
        for size in sizes:
            value = table[size][name]
            cells.append(
                f"{value.seconds:7.2f} s {value.peak_mb:7.0f} MB"
                if isinstance(value, Measure)
                else str(value)
            )
        if all(isinstance(table[s][name], Measure) for s in sizes):
            print(
                f"{name:{width}}  "
                + "  ".join(f"{c:>24}" for c in cells)
                + f"  {TARGETS.get(name, '')}"
            )
        else:
            for size, cell in zip(sizes, cells, strict=True):
                print(f"{name:{width}}  N = {size:,}: {cell}  {TARGETS.get(name, '')}")
    if args.hugo:
        print(
            "\nAgainst Hugo's cold build of as many pages (same run, same machine; medians of "
            "each, the cold"
            " build's pairs above):"
        )
        for name, target in RATIO_TARGETS.items():
            ratios = []
            for size in sizes:
                ours, hugo = table[size][name], table[size]["hugo cold (as many pages)"]
                assert isinstance(ours, Measure) and isinstance(hugo, Measure)
                ratios.append(f"N = {size:,}: {ours.seconds / hugo.seconds:5.2f} ×")
            print(f"  {name:{width}}  " + "   ".join(ratios) + f"   target {target}")
    print(
        f"\n{os.cpu_count()} cores; peak memory is the largest resident set of a sitegen command's "
        f"whole process tree."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
