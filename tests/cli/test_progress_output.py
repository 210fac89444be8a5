"""What ``sitegen collect`` and ``build`` print as they go, as a user sees it: a cold build of
a synthetic site (benchmarks/bench.py) piped, as in CI's log, and under a pseudo-terminal; an
unchanged rebuild of the shipped site. Times are read as the lines arrive, here."""

from __future__ import annotations

import fcntl
import importlib.util
import itertools
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest

from sitegen import progress
from tests.kit.project import REPO, SHOW_AFTER_S, run_cli

# Enough runs for a cold build to take several of the plain lines' intervals (EVERY_S) on a fast
# machine; more only cost the suite time.
RUNS = 50
CONTROL = re.compile(rb"[\x00-\x09\x0b-\x1f\x7f]")  # anything but a line feed
DEADLINE_S = 900.0  # a cold build of RUNS runs on a busy machine takes well under this
# The sitegen command with the plain lines' interval set small, so that a build of seconds
# shows many of them (the rule is the same at 5 s: tests/cli/test_progress.py).
COMMAND = """
import sys
from sitegen import progress
progress.EVERY_S = float(sys.argv[1])
from sitegen.cli import main
sys.exit(main(sys.argv[2:]))
"""
EVERY_S = 0.25


def _bench() -> object:
    spec = importlib.util.spec_from_file_location("bench", REPO / "benchmarks" / "bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench"] = module  # (its dataclasses look their module up there)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A synthetic site of RUNS runs, collected (its own chart cache: a cold build draws)."""
    folder = tmp_path_factory.mktemp("progress") / "site"
    _bench().make_site(folder, RUNS)  # type: ignore[attr-defined]
    done = subprocess.run(
        [sys.executable, "-m", "sitegen", "--config", str(folder / "sitegen.yaml"), "collect"],
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
        check=False,
        cwd=folder,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"collected {RUNS} runs into .sitegen/collected.json\n"
    return folder


def _cold(folder: Path, charts: bool = True) -> None:
    """Forget every build, so the next build makes every page; and, with ``charts``, every
    drawn chart, so that it draws them too."""
    made = [folder / "_site", folder / ".sitegen" / "build"]
    if charts:
        made.append(folder / ".sitegen" / "cache" / "charts")
    for path in made:
        shutil.rmtree(path, ignore_errors=True)
    for kept in ("figures.json", "fragments.json"):
        (folder / ".sitegen" / "cache" / kept).unlink(missing_ok=True)


def _piped(folder: Path, *args: str) -> tuple[int, list[tuple[float, bytes]], float]:
    """Run sitegen with both streams into one pipe: its exit code, each line with the seconds
    from the start to its arrival, and the seconds it ran."""
    start = time.monotonic()
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            COMMAND,
            str(EVERY_S),
            "--config",
            str(folder / "sitegen.yaml"),
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        cwd=folder,
    )
    lines: list[tuple[float, bytes]] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append((time.monotonic() - start, line))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    code = process.wait(timeout=DEADLINE_S)
    ran = time.monotonic() - start
    reader.join(timeout=60)
    return code, lines, ran


def _table(text: list[str]) -> dict[str, tuple[str, float]]:
    """The rows of the table of times: stage → (items, seconds)."""
    rows = {}
    for line in text:
        match = re.fullmatch(r"  (.+?)\s+([\d,]*)\s+(\d+\.\d) s(  \(alongside\))?", line)
        if match:
            rows[match[1]] = (match[2].replace(",", ""), float(match[3]))
    return rows


def test_a_cold_build_in_a_pipe_says_how_far_along_it_is(
    synthetic: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _cold(synthetic)
    code, lines, ran = _piped(synthetic, "build")
    said = [line.rstrip(b"\n").decode() for _, line in lines]
    assert code == 0, "\n".join(said)
    for _, line in lines:
        assert not CONTROL.search(line.rstrip(b"\n")), line
    progress_lines = [
        (when, line)
        for (when, _), line in zip(lines, said, strict=True)
        if line.startswith("build ")
    ]
    assert progress_lines, said
    # Timed by the command's own clock (each line says how long it has run), which a busy
    # machine slows no more than the work: the first line as soon as any shows (SHOW_AFTER_S
    # into a command with a stage running: its first stage starts after its own "starting",
    # which the table of times says and a busy machine stretches), and no stretch of the
    # build without one.
    stamps = [
        (when, float(found[1]))
        for when, line in progress_lines
        if (found := re.match(r"build ([\d.]+) s: ", line))
    ]
    assert len(stamps) == len(progress_lines), said
    starting = _table(said[-9:]).get("starting", ("", 0.0))[1]
    assert stamps[0][1] < max(SHOW_AFTER_S, starting) + 1.0, (starting, said)
    assert max(b - a for (_, a), (_, b) in itertools.pairwise(stamps)) < 5.0, said
    # Each line arrives as it is printed, not held back until the command ends: the time it
    # arrived here less the time it says is the same for every line, give or take the wait
    # for this test's reading thread to be scheduled.
    lags = [when - stamp for when, stamp in stamps]
    assert max(lags) - min(lags) < 3.0, (lags, said)
    # Within one stage, lines come again and again, their counts growing.
    counts: dict[str, list[int]] = {}
    for _, line in progress_lines:
        for name, done in re.findall(r"(writing pages|drawing charts) (\d+)/", line):
            counts.setdefault(name, []).append(int(done))
    assert any(len(set(found)) >= 2 for found in counts.values()), said
    assert all(found == sorted(found) for found in counts.values()), counts
    # The last lines: what it did, then each stage's time, the steps adding up to the whole.
    built = re.fullmatch(
        r"built (\d+) pages \((\d+) rendered, (\d+) new charts\) into _site/", said[-11]
    )
    assert built, said[-12:]
    assert said[-10].split() == ["stage", "items", "time"]
    rows = _table(said[-9:])
    assert list(rows) == [
        "starting",
        "reading collected runs",
        "planning pages",
        "writing pages",
        "drawing charts",
        "writing listings and data files",
        "writing charts",
        "saving the site",
        "sitegen build, in total",
    ]
    assert rows["reading collected runs"][0] == str(RUNS)
    assert rows["writing pages"][0] == built[1] and rows["drawing charts"][0] == built[3] != "0"
    total = rows.pop("sitegen build, in total")[1]
    steps = [seconds for name, (_, seconds) in rows.items() if name != "drawing charts"]
    assert sum(steps) == pytest.approx(total, abs=0.05 * len(steps) + 0.05)  # each shown to a tenth
    assert total <= ran
    # The pull-request summary carries the same figures.
    monkeypatch.chdir(synthetic)
    (synthetic / "changed.txt").write_text("")
    assert run_cli(synthetic, "summary", "--changed", str(synthetic / "changed.txt")) == 0
    summary = capsys.readouterr().out
    assert f"| **sitegen build, in total** | | **{total:.1f} s** |" in summary
    assert (
        f"| build: writing pages | {int(built[1]):,} | {rows['writing pages'][1]:.1f} s |"
        in summary
    )


# The sitegen command with its display's clock under the test's control: shown from the start
# and redrawn every 10 ms rather than after a second and four times a second, so that a stage
# lasting a fraction of a second on a fast machine is still drawn more than once.
_SHOWN_AT_ONCE = (
    "from sitegen import progress, progress_terminal; "
    "progress.SHOW_AFTER_S = 0.0; progress_terminal.REDRAWS_PER_S = 100; "
    "from sitegen.cli import run; run()"
)


def _on_a_terminal(folder: Path, *args: str) -> tuple[int, bytes, bytes]:
    """Run sitegen with a pseudo-terminal (100 columns, no colour) as its standard error and
    a pipe as its standard output, its display shown at once and redrawn often (_SHOWN_AT_ONCE):
    its exit code, what it wrote to the terminal, and to the pipe."""
    main, side = pty.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    environment = {**os.environ, "NO_COLOR": "1", "TERM": "xterm-256color"}
    process = subprocess.Popen(
        [sys.executable, "-c", _SHOWN_AT_ONCE, "--config", str(folder / "sitegen.yaml"), *args],
        stdin=side,
        stdout=subprocess.PIPE,
        stderr=side,
        cwd=folder,
        env=environment,
    )
    os.close(side)
    written = b""
    deadline = time.monotonic() + DEADLINE_S
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(main, 65536)
                except OSError:  # the other side closed: the command and its workers have ended
                    break
                if not chunk:
                    break
                written += chunk
            elif process.poll() is not None:
                break
        out, _ = process.communicate(timeout=60)
    finally:
        os.close(main)
    return process.returncode, written, out


def test_a_cold_build_on_a_terminal_shows_counts_that_grow(synthetic: Path) -> None:
    # Every page made again, the charts kept when the pipe's test drew them (the counts read
    # here are the pages'): drawing them again would only add time.
    _cold(synthetic, charts=False)
    code, written, out = _on_a_terminal(synthetic, "build")
    text = written.decode(errors="replace")
    assert code == 0, text
    assert "\x1b[?25l" in text and "\x1b[2K" in text  # a display: the cursor hidden, lines redrawn
    # The result stays on standard output, as it was, whatever the terminal shows.
    built = re.fullmatch(rb"built (\d+) pages \(\1 rendered, \d+ new charts\) into _site/\n", out)
    assert built, out
    pages = int(built[1])
    shown = [int(done) for done in re.findall(rf"writing pages[ ━╸╺]*?(\d+)/{pages}\b", text)]
    assert len(set(shown)) >= 2 and shown == sorted(shown), shown
    colours = [
        code
        for codes in re.findall(r"\x1b\[([\d;]*)m", text)
        for code in codes.split(";")
        if code.isdigit() and (30 <= int(code) <= 49 or 90 <= int(code) <= 107)
    ]
    assert colours == []  # NO_COLOR
    plain = re.sub(r"\x1b\[[\d;?]*[A-Za-z]", "", text).replace("\r", "")
    last = [line for line in plain.split("\n") if line.strip()][-1]
    assert re.fullmatch(r"  sitegen build, in total\s+\d+\.\d s", last), (
        last
    )  # the display gone, the table last


@pytest.mark.parametrize("show_after_s", [SHOW_AFTER_S, 0.0], ids=["as-shipped", "as-if-slow"])
def test_an_unchanged_rebuild_says_at_most_one_line_more(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    show_after_s: float,
) -> None:
    """Before progress was shown, an unchanged build of the shipped site said the note on
    site_url and its result line: now at most one line more, the time it took when it was slow
    (as-if-slow: every command counts as slow)."""
    monkeypatch.setattr(progress, "SHOW_AFTER_S", show_after_s)  # (conftest sets it off)
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    capsys.readouterr()
    assert run_cli(project, "build") == 0
    out, err = capsys.readouterr()
    assert re.fullmatch(r"built \d+ pages \(0 rendered, 0 new charts\) into _site/\n", out)
    before = [
        "note: no site_url in sitegen.yaml (or --site-url): links work anywhere, but sitemap.xml "
        "and the canonical and og: tags are left out and the feed's links are relative to feed.xml"
    ]
    lines = err.splitlines()
    assert lines[:1] == before and len(lines) <= len(before) + 1, lines
    assert all(re.fullmatch(r"sitegen build took \d+\.\d s", line) for line in lines[1:]), lines
    if show_after_s == 0:
        assert len(lines) == len(before) + 1, lines
