"""The progress of collect and build (sitegen/progress.py) under a clock the test moves: when
plain lines appear and what they say, the table of times, quiet and short commands, the
timings file and the pull-request summary's copy of it. The real commands, piped and under a
pseudo-terminal, are in test_progress_output.py."""

from __future__ import annotations

import io
import itertools
import json
import os
import pty
import re
from pathlib import Path

import pytest

from sitegen import progress
from sitegen.collect import remote
from sitegen.commands.summary import time_taken
from sitegen.progress import Reporter, mode_of, read_timings, reporting
from tests.kit.network import no_proxies
from tests.kit.project import SHOW_AFTER_S, run_cli
from tests.kit.scripted_server import (
    FAST,
    RUN,
    Site,
    good,
    replies,
    serve_scripted,
    set_sources,
)

CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")  # anything but a line feed


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Written(io.StringIO):
    """A stream that notes the clock's time of each line written."""

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock
        self.lines: list[tuple[float, str]] = []

    def write(self, text: str) -> int:
        for line in text.splitlines():
            self.lines.append((self.clock.now, line))
        return super().write(text)


def _reporter(mode: progress.Mode = "plain") -> tuple[Reporter, Clock, Written]:
    clock = Clock()
    stream = Written(clock)
    return (
        Reporter("build", mode, stream, clock=clock, show_after_s=1.0, every_s=5.0),
        clock,
        stream,
    )


def test_a_command_shorter_than_a_second_shows_nothing() -> None:
    reporter, clock, stream = _reporter()
    stage = reporter.step("writing pages", 10)
    for tenth in range(1, 10):
        clock.now = tenth / 10
        stage.advance()
        reporter.tick()
    reporter.stop()
    assert stream.getvalue() == ""
    assert reporter.table() == []


def test_plain_lines_start_after_a_second_and_are_never_further_apart_than_the_interval() -> None:
    """A long build, ticked every tenth of a second as the thread would be: the first line at
    one second, then one at least every five, each line's counts and time left worked out here."""
    reporter, clock, stream = _reporter()
    reporter.step("reading collected runs")
    clock.now = 0.4
    pages = reporter.step("writing pages", 1000)  # from 0.4 s: 25 pages a second, 40 s in all
    for tick in range(5, 420):
        clock.now = tick / 10
        pages.done = min(1000, int((clock.now - 0.4) * 25))
        reporter.tick()
    clock.now = 42.0
    reporter.step("writing charts")
    clock.now = 43.0
    reporter.stop()
    times = [when for when, _ in stream.lines]
    assert times[0] == 1.0
    assert max(later - earlier for earlier, later in itertools.pairwise(times)) <= 5.0 + 1e-9
    assert times[-1] == 42.0  # the new stage said at once
    for when, line in stream.lines:
        assert not CONTROL.search(line), line
        if "writing pages" in line:
            done = min(1000, int((when - 0.4) * 25))
            elapsed = when - 0.4
            left = max(1, round(elapsed * (1000 - done) / done))  # never "0 s" while one is left
            expected = f"writing pages {done:,}/1,000 ({done * 100 // 1000}%"
            if elapsed < 1.0 or done == 1000:  # too soon to tell the time left, or none left
                expected += ")"
            else:
                expected += (
                    f", about {left} s left)"
                    if left < 90
                    else f", about {round(left / 60)} min left)"
                )
            assert line == f"build {when:.1f} s: {expected}", line
    assert stream.lines[-1][1] == "build 42.0 s: writing charts"


def test_a_long_stage_that_starts_late_is_said_at_its_start() -> None:
    reporter, clock, stream = _reporter()
    reporter.step("planning pages")
    clock.now = 1.0
    reporter.tick()
    clock.now = 1.5
    reporter.step("writing pages", 3).advance(2)
    clock.now = 6.5
    reporter.tick()
    assert [line for _, line in stream.lines] == [
        "build 1.0 s: planning pages",
        "build 1.5 s: writing pages 0/3 (0%)",
        "build 6.5 s: writing pages 2/3 (66%, about 2 s left)",
    ]  # 5 s for 2 pages: 2.5 s for the last


def test_the_table_gives_each_stage_its_time_and_the_whole() -> None:
    reporter, clock, _ = _reporter()
    clock.now = 0.5
    reporter.step("reading collected runs").done = 20
    clock.now = 2.0
    pages = reporter.step("writing pages", 30)
    charts = reporter.beside("drawing charts", lambda: (7, 7))
    pages.advance(30)
    clock.now = 3.0
    charts.end()
    clock.now = 5.25
    reporter.step("saving the site")
    clock.now = 6.0
    reporter.stop()
    assert reporter.table() == [
        "  stage                    items   time",
        "  starting                        0.5 s",
        "  reading collected runs      20  1.5 s",
        "  writing pages               30  3.2 s",
        "  drawing charts               7  1.0 s  (alongside)",
        "  saving the site                 0.8 s",
        "  sitegen build, in total         6.0 s",
    ]
    # The steps, one after another, make up the whole: 0.5 + 1.5 + 3.25 + 0.75 = 6.0.
    steps = [row for row in reporter.record()["stages"] if not row["alongside"]]
    assert sum(row["seconds"] for row in steps) == pytest.approx(6.0)


@pytest.mark.parametrize("seconds", [7.0503, 7.0497, 0.15, 2.2501, 2.2449, 12.34951])
def test_the_table_and_the_kept_timings_give_each_stage_the_same_tenth(seconds: float) -> None:
    """The pull-request summary words the seconds timings.json keeps, each to a tenth as the
    table does (sitegen/commands/summary.py): the two agree whatever the seconds' later digits."""
    reporter, clock, _ = _reporter()
    reporter.step("writing pages")
    clock.now = seconds
    reporter.step("saving the site")
    clock.now = seconds + 1.0
    reporter.stop()
    [kept] = [row for row in reporter.record()["stages"] if row["name"] == "writing pages"]
    assert kept["seconds"] == round(seconds, 3)  # to the millisecond
    [shown] = [line for line in reporter.table() if "writing pages" in line]
    assert shown.endswith(f" {kept['seconds']:.1f} s")


def test_a_stage_run_twice_is_one_row_with_both_times() -> None:
    """Collect reads every file again when its record of the last collect was stale."""
    reporter, clock, _ = _reporter()
    for start in (0.0, 2.0):
        clock.now = start
        reading = reporter.step("reading result files", 5)
        reading.advance(5)
        clock.now = start + 1.0
        reporter.step("writing the collected file")
    clock.now = 4.0
    reporter.stop()
    rows = {row["name"]: (row["items"], row["seconds"]) for row in reporter.record()["stages"]}
    assert rows == {
        "starting": (None, 0.0),
        "reading result files": (10, 2.0),
        "writing the collected file": (None, 2.0),
    }


def test_a_command_of_no_stage_ends_in_one_line() -> None:
    """An unchanged build stops before its first stage: one line, and only when it was slow."""
    reporter, clock, _ = _reporter()
    clock.now = 1.25
    reporter.stop()
    assert reporter.table() == ["sitegen build took 1.2 s"]


def test_a_stage_alongside_shows_in_the_lines_of_the_steps() -> None:
    reporter, clock, stream = _reporter()
    reporter.step("planning pages")
    clock.now = 1.0
    reporter.tick()
    reporter.step("writing pages", 10)
    drawn = [0]
    reporter.beside("drawing charts", lambda: (drawn[0], 4))
    drawn[0] = 3
    clock.now = 6.0
    reporter.tick()
    assert [line for _, line in stream.lines] == [
        "build 1.0 s: planning pages",
        "build 1.0 s: writing pages 0/10 (0%)",
        "build 6.0 s: writing pages 0/10 (0%); drawing charts 3/4 (75%, about 2 s left)",
    ]


def test_charts_with_nothing_to_draw_are_left_out() -> None:
    reporter, clock, stream = _reporter()
    reporter.step("writing pages", 4)
    drawing = reporter.beside("drawing charts", lambda: (0, 0))
    clock.now = 1.0
    reporter.tick()
    drawing.end()
    clock.now = 2.0
    reporter.stop()
    assert stream.lines == [(1.0, "build 1.0 s: writing pages 0/4 (0%)")]
    assert [row["name"] for row in reporter.record()["stages"]] == ["starting", "writing pages"]


def test_messages_come_between_lines() -> None:
    reporter, clock, stream = _reporter()
    reporter.step("fetching sources", 2)
    clock.now = 1.0
    reporter.tick()
    reporter.say("fetching https://example.org/run.yaml …")
    assert [line for _, line in stream.lines] == [
        "build 1.0 s: fetching sources 0/2 (0%)",
        "fetching https://example.org/run.yaml …",
    ]


def test_quiet_shows_nothing_but_keeps_the_times(tmp_path: Path) -> None:
    stream = io.StringIO()
    with reporting("build", quiet=True, state_dir=tmp_path, stream=stream) as reporter:
        reporter.started -= 30  # as if it had run half a minute
        progress.step("writing pages", 2)
        progress.advance(2)
        reporter.tick()
    assert stream.getvalue() == ""
    record = read_timings(tmp_path)["build"]
    assert record["seconds"] >= 30
    assert [(row["name"], row["items"]) for row in record["stages"]] == [
        ("starting", None),
        ("writing pages", 2),
    ]


def test_the_table_follows_the_command_and_its_figures_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress, "SHOW_AFTER_S", SHOW_AFTER_S)  # as shipped (conftest sets it off)
    stream = io.StringIO()
    with reporting("collect", state_dir=tmp_path, stream=stream) as reporter:
        reporter.started -= 2
        progress.step("reading result files", 3, count=lambda: 3)
    table = stream.getvalue().splitlines()
    assert table[0].split() == ["stage", "items", "time"]
    assert table[2].split()[:4] == ["reading", "result", "files", "3"]
    total = float(table[-1].split()[-2])
    assert table[-1].startswith("  sitegen collect, in total") and 2.0 <= total < 60
    kept = json.loads((tmp_path / "timings.json").read_text())
    assert kept["commands"]["collect"]["seconds"] == pytest.approx(total, abs=0.05)
    assert progress._current is None  # nothing left set for the next command


def test_the_pull_request_summary_carries_the_kept_times(tmp_path: Path) -> None:
    (tmp_path / "timings.json").write_text(
        json.dumps(
            {
                "version": 1,
                "commands": {
                    "build": {
                        "seconds": 24.31,
                        "stages": [
                            {
                                "name": "starting",
                                "items": None,
                                "seconds": 0.42,
                                "alongside": False,
                            },
                            {
                                "name": "writing pages",
                                "items": 1766,
                                "seconds": 14.2,
                                "alongside": False,
                            },
                            {
                                "name": "drawing charts",
                                "items": 712,
                                "seconds": 12.94,
                                "alongside": True,
                            },
                        ],
                    },
                    "collect": {
                        "seconds": 3.0,
                        "stages": [
                            {
                                "name": "checking result files",
                                "items": 1000,
                                "seconds": 2.96,
                                "alongside": False,
                            }
                        ],
                    },
                },
            }
        )
    )
    assert time_taken(tmp_path) == [
        "### Time taken",
        "",
        "| stage | items | time |",
        "|---|--:|--:|",
        "| collect: checking result files | 1,000 | 3.0 s |",
        "| **sitegen collect, in total** | | **3.0 s** |",
        "| build: starting |  | 0.4 s |",
        "| build: writing pages | 1,766 | 14.2 s |",
        "| build: drawing charts (alongside) | 712 | 12.9 s |",
        "| **sitegen build, in total** | | **24.3 s** |",
        "",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{",
        "[]",
        '{"version": 2, "commands": {}}',
        '{"version": 1, "commands": {"build": {"seconds": "x", "stages": []}}}',
    ],
)
def test_a_damaged_timings_file_means_no_times(tmp_path: Path, text: str) -> None:
    (tmp_path / "timings.json").write_text(text)
    assert read_timings(tmp_path) == {}
    assert time_taken(tmp_path) == []


def test_the_mode_follows_the_stream_and_the_terminal() -> None:
    assert mode_of(io.StringIO(), quiet=False) == "plain"
    assert mode_of(io.StringIO(), quiet=True) == "quiet"
    main, side = pty.openpty()
    try:
        with os.fdopen(side, "w", closefd=False) as terminal:
            assert mode_of(terminal, quiet=False, environ={"TERM": "xterm"}) == "terminal"
            assert mode_of(terminal, quiet=False, environ={"TERM": "dumb"}) == "plain"
            assert mode_of(terminal, quiet=True, environ={"TERM": "xterm"}) == "quiet"
    finally:
        os.close(main)
        os.close(side)


@pytest.mark.parametrize("where", ["before", "after"])
def test_quiet_before_or_after_the_command(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    assert run_cli(project, "collect") == 0
    monkeypatch.setattr(progress, "SHOW_AFTER_S", 0.0)  # every command long enough for its table
    capsys.readouterr()
    assert run_cli(project, "build") == 0
    assert "sitegen build, in total" in capsys.readouterr().err
    arguments = ["--quiet", "build"] if where == "before" else ["build", "-q"]
    assert run_cli(project, *arguments) == 0
    out, err = capsys.readouterr()
    assert out.startswith("built ") and "in total" not in err and "took" not in err
    assert read_timings(project / ".sitegen")["build"]["seconds"] >= 0  # still kept for the summary


def test_collect_counts_the_sources_it_fetches(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Against a real server on 127.0.0.1: two sources fetched, then read from the cache offline."""
    no_proxies(monkeypatch)
    monkeypatch.setattr(remote, "DEFAULT_SETTINGS", FAST)
    monkeypatch.setattr(progress, "SHOW_AFTER_S", 0.0)
    site = Site()
    site.routes[RUN] = replies(good())
    with serve_scripted(site):
        set_sources(
            project,
            {"url": site.url(RUN), "id": "remote-one"},
            {"url": site.url(RUN), "id": "remote-two"},
        )
        for arguments, stage in (
            (["collect"], "fetching sources"),
            (["collect", "--offline"], "reading cached sources"),
        ):
            assert run_cli(project, *arguments) == 0
            rows = [line.split() for line in capsys.readouterr().err.splitlines()]
            assert [*stage.split(), "2"] in [row[:-2] for row in rows], rows
