"""How far along long work is: the stages of ``sitegen collect`` and ``build``, shown while
they run and timed when they end.

The pipeline names its stages as it goes: ``step`` starts the command's next stage and ends
the one before, ``beside`` starts one that runs alongside them (charts drawn while pages are
written). Items are counted on the stage (``advance``, or a ``count`` the stage reads when
asked); nothing is printed per item. For one command the CLI sets up a reporter
(``reporting``), whose own thread reads those counts, and only once the command has run
``SHOW_AFTER_S``, so that a short command prints nothing extra:

- on a terminal, a display of the running stages (count, bar, time left) drawn by rich
  (progress_terminal.py, imported only then), each row gone when its stage ends;
- elsewhere (CI logs, pipes), plain lines without a control character: one when a stage
  starts, and one at least every ``EVERY_S`` seconds with the count of each running stage;
- with ``--quiet``, nothing.

When the command has succeeded, a table of the time each stage took follows its result line
(on standard error, like the progress: standard output stays the same from run to run), and
the figures are kept in ``.sitegen/timings.json`` for the pull-request summary. Without a
reporter (library calls, ``sitegen check``), stages are counted and forgotten.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO

from sitegen.errors import SitegenError

if TYPE_CHECKING:
    from sitegen.progress_terminal import TerminalDisplay

Mode = Literal["terminal", "plain", "quiet"]
Counts = Callable[[], tuple[int, int | None]]

SHOW_AFTER_S = 1.0  # a command shorter than this shows no progress and no table of times
EVERY_S = 5.0  # plain lines: at most this long apart while a stage runs (CI's limit is 10 s)
TIMINGS_NAME = "timings.json"  # in the state folder (.sitegen/)
TIMINGS_VERSION = 1
ALONGSIDE = "alongside"


class Stage:
    """One stage of a command: its name, its items done and (when known) in all, and when it
    started and ended (the reporter's clock). ``advance`` is all an item costs."""

    __slots__ = ("_counts", "_reporter", "alongside", "done", "ended", "name", "started", "total")

    def __init__(
        self,
        name: str,
        total: int | None,
        started: float,
        counts: Counts | None = None,
        alongside: bool = False,
        reporter: Reporter | None = None,
    ) -> None:
        self.name = name
        self.total = total
        self.done = 0
        self.started = started
        self.ended: float | None = None
        self.alongside = alongside
        self._counts = counts
        self._reporter = reporter

    def advance(self, count: int = 1) -> None:
        self.done += count

    def counts(self) -> tuple[int, int | None]:
        """Items done and in all (None: not known), read from ``counts`` while the stage runs."""
        counts = self._counts
        return counts() if counts is not None else (self.done, self.total)

    def end(self, at: float | None = None) -> None:
        """End the stage (at ``at``, a time of the reporter's clock, when it ended earlier)."""
        if self._reporter is not None:
            self._reporter.end(self, at)
        elif self.ended is None:
            self._close(time.monotonic() if at is None else at)

    def _close(self, at: float) -> None:
        self.done, self.total = self.counts()
        self._counts = None
        self.ended = max(at, self.started)


def mode_of(stream: TextIO, quiet: bool, environ: Mapping[str, str] = os.environ) -> Mode:
    """``terminal`` when ``stream`` is a terminal that can move its cursor, ``plain`` otherwise
    (a pipe, a file, CI's log, TERM=dumb), ``quiet`` when asked."""
    if quiet:
        return "quiet"
    try:
        is_terminal = stream.isatty()
    except (AttributeError, ValueError, OSError):
        is_terminal = False
    return (
        "terminal"
        if is_terminal and environ.get("TERM", "") not in ("dumb", "unknown")
        else "plain"
    )


class Reporter:
    """The stages of one command and what is shown of them (see the module's docstring).

    ``tick`` is what the reporter's thread does each time it wakes; tests call it with a
    clock of their own instead of starting the thread (``start``)."""

    def __init__(
        self,
        command: str,
        mode: Mode,
        stream: TextIO,
        *,
        clock: Callable[[], float] = time.monotonic,
        show_after_s: float | None = None,
        every_s: float | None = None,
    ) -> None:
        self.command = command
        self.mode = mode
        self.stream = stream
        self.clock = clock
        # (the module's settings as they are now: a test may set them for a command it runs)
        self.show_after_s = SHOW_AFTER_S if show_after_s is None else show_after_s
        self.every_s = EVERY_S if every_s is None else every_s
        self.started = clock()
        self.ended: float | None = None
        self.stages: list[Stage] = []
        self._step: Stage | None = None
        self._lock = threading.RLock()
        self._shown = False  # progress shown: the command has run show_after_s with a stage running
        self._last_line = self.started
        self._display: TerminalDisplay | None = None
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the thread that shows progress (nothing to show with --quiet, or when it is
        never to be shown)."""
        if self.mode != "quiet" and math.isfinite(self.show_after_s):
            self._thread = threading.Thread(target=self._run, name="sitegen-progress", daemon=True)
            self._thread.start()

    def step(
        self, name: str, total: int | None = None, count: Callable[[], int] | None = None
    ) -> Stage:
        with self._lock:
            if self._step is not None:
                self.end(self._step)
            counts = (lambda: (count(), total)) if count is not None else None
            self._step = self._begin(Stage(name, total, self.clock(), counts, reporter=self))
            return self._step

    def beside(self, name: str, counts: Counts) -> Stage:
        with self._lock:
            return self._begin(
                Stage(name, None, self.clock(), counts, alongside=True, reporter=self)
            )

    def _begin(self, stage: Stage) -> Stage:
        self.stages.append(stage)
        if self._display is not None:
            self._display.show(stage)
        elif self._shown and self.mode == "plain" and not stage.alongside:
            self._line(self.clock())  # (a stage alongside shows in the next line)
        return stage

    def end(self, stage: Stage, at: float | None = None) -> None:
        with self._lock:
            if stage.ended is not None:
                return
            stage._close(self.clock() if at is None else at)
            if stage is self._step:
                self._step = None
            if self._display is not None:
                self._display.hide(stage)

    def running(self) -> list[Stage]:
        return [stage for stage in self.stages if stage.ended is None]

    def tick(self, now: float | None = None) -> None:
        """Show progress once the command has run show_after_s with a stage running; then, on
        plain output, a line whenever every_s has passed since the last one."""
        with self._lock:
            now = self.clock() if now is None else now
            if self.ended is not None or self.mode == "quiet" or not self.stages:
                return
            if not self._shown:
                if now - self.started < self.show_after_s or not self.running():
                    return
                self._shown = True
                if self.mode == "terminal":
                    self._show_display()
                    return
                self._line(now)
            elif self.mode == "plain" and now - self._last_line >= self.every_s:
                self._line(now)

    def _next_tick(self) -> float:
        """Seconds until the next tick is due: show_after_s from the start (then every quarter
        of a second until a stage runs), then every_s from the last line."""
        now = self.clock()
        if not self._shown:
            return max(0.25, self.started + self.show_after_s - now)
        return max(0.05, self._last_line + self.every_s - now)

    def _run(self) -> None:
        while not self._wake.wait(self._next_tick()):
            self.tick()
            if self._shown and self.mode == "terminal":
                return  # rich's own thread redraws the display from here on

    def _show_display(self) -> None:
        try:
            from sitegen.progress_terminal import TerminalDisplay

            display = TerminalDisplay(self.stream)
            for stage in self.running():
                display.show(stage)
            display.start()
        except Exception:  # no display is better than a failed command: fall back to lines
            self.mode = "plain"
            self._line(self.clock())
            return
        self._display = display

    def _line(self, now: float) -> None:
        self._last_line = now
        self._write(self.status(now))

    def status(self, now: float) -> str:
        """The plain line: the command's time so far and each running stage's count."""
        parts = [
            _describe(stage, now)
            for stage in self.running()
            if not stage.alongside or any(stage.counts())
        ]
        return f"{self.command} {_seconds(now - self.started)}: " + (
            "; ".join(parts) or "finishing"
        )

    def say(self, message: str) -> None:
        """A message (a slow download, a note) between the progress, never inside a line of it."""
        with self._lock:
            if self._display is not None:
                self._display.say(message)
            else:
                self._write(message)

    def _write(self, line: str) -> None:
        # A closed pipe ends the output, not the command.
        with contextlib.suppress(OSError, ValueError):
            self.stream.write(line + "\n")
            self.stream.flush()

    def stop(self) -> None:
        """End every stage and stop showing progress: the display goes, the thread ends."""
        with self._lock:
            if self.ended is not None:
                return
            now = self.clock()
            for stage in self.running():
                self.end(stage, now)
            self.ended = now
            display, self._display = self._display, None
            self._wake.set()
        if display is not None:
            display.stop()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()

    def rows(self) -> list[tuple[str, int | None, float, bool]]:
        """(stage, items, seconds, alongside) in the order the stages started, a stage that ran
        twice (collect reads again when its record was stale) once, with both times; first the
        time before the first stage ("starting"); a stage alongside that counted nothing is
        left out."""
        end = self.ended if self.ended is not None else self.clock()
        first = min((stage.started for stage in self.stages), default=end)
        found: dict[str, list[Any]] = {"starting": [None, first - self.started, False]}
        for stage in self.stages:
            done, total = stage.counts()
            if stage.alongside and not done:
                continue  # nothing to do beside the steps (no chart to draw)
            row = found.setdefault(stage.name, [None, 0.0, stage.alongside])
            if total is not None or done:
                row[0] = (row[0] or 0) + done
            row[1] += (stage.ended if stage.ended is not None else end) - stage.started
        return [
            (name, items, seconds, alongside) for name, (items, seconds, alongside) in found.items()
        ]

    def table(self) -> list[str]:
        """The lines that end a command: each stage's time, then the whole; nothing for a
        command shorter than show_after_s, one line for one that ran no stage."""
        total = (self.ended if self.ended is not None else self.clock()) - self.started
        if total < self.show_after_s:
            return []
        if not self.stages:
            return [f"sitegen {self.command} took {_seconds(total)}"]
        rows = [
            (
                name,
                "" if items is None else f"{items:,}",
                _seconds(seconds),
                f"  ({ALONGSIDE})" if alongside else "",
            )
            for name, items, seconds, alongside in self.rows()
        ]
        rows.insert(0, ("stage", "items", "time", ""))
        rows.append((f"sitegen {self.command}, in total", "", _seconds(total), ""))
        name_width = max(len(row[0]) for row in rows)
        items_width = max(len(row[1]) for row in rows)
        time_width = max(len(row[2]) for row in rows)
        return [
            f"  {name:<{name_width}}  {items:>{items_width}}  {when:>{time_width}}{note}".rstrip()
            for name, items, when, note in rows
        ]

    def record(self) -> dict[str, Any]:
        """What .sitegen/timings.json keeps of this command."""
        end = self.ended if self.ended is not None else self.clock()
        return {
            "seconds": _kept(end - self.started),
            "stages": [
                {"name": name, "items": items, "seconds": _kept(seconds), ALONGSIDE: alongside}
                for name, items, seconds, alongside in self.rows()
            ],
        }


def _kept(seconds: float) -> float:
    """Seconds as timings.json keeps them, to the millisecond."""
    return round(seconds, 3)


def _seconds(seconds: float) -> str:
    """Seconds to a tenth, from what timings.json keeps of them: the pull-request summary
    words the kept figure, so that its tenth is the table's (7.0503 s is kept as 7.05, whose
    tenth a float makes 7.0, where the unkept figure's is 7.1)."""
    return f"{_kept(seconds):.1f} s"


def _describe(stage: Stage, now: float) -> str:
    """``writing pages 412/1,766 (23%, about 18 s left)``: a running stage in a plain line."""
    done, total = stage.counts()
    if total is None:
        return f"{stage.name} {done:,}" if done else stage.name
    text = f"{stage.name} {done:,}/{total:,}"
    if total <= 0:
        return text
    share = f"{min(100, done * 100 // total)}%"
    elapsed = now - stage.started
    if 0 < done < total and elapsed >= 1.0:
        return f"{text} ({share}, about {_left(elapsed * (total - done) / done)} left)"
    return f"{text} ({share})"


def _left(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    return f"{round(seconds / 60)} min"


# The reporter of the command running now, set by ``reporting``; None outside one.
_current: Reporter | None = None


def step(name: str, total: int | None = None, count: Callable[[], int] | None = None) -> Stage:
    """Start the command's next stage (``total`` items, when known), ending the one before.
    Count its items with ``advance``, or give ``count``, which is read when the stage is shown
    (``len`` of a list the stage fills costs its loop nothing)."""
    reporter = _current
    if reporter is None:
        counts = (lambda: (count(), total)) if count is not None else None
        return Stage(name, total, 0.0, counts)
    return reporter.step(name, total, count)


def beside(name: str, counts: Counts) -> Stage:
    """Start a stage that runs alongside the steps; ``counts`` gives its items done and in all.
    End it with ``Stage.end``."""
    reporter = _current
    if reporter is None:
        return Stage(name, None, 0.0, counts, alongside=True)
    return reporter.beside(name, counts)


def advance(count: int = 1) -> None:
    """Count ``count`` items done on the current step (none: nothing)."""
    reporter = _current
    if reporter is not None and reporter._step is not None:
        reporter._step.done += count


def done() -> None:
    """The command's work is over: end its stages and stop showing progress, before the command
    prints what it did (a line printed under the terminal's display would be drawn over)."""
    reporter = _current
    if reporter is not None:
        reporter.stop()


def say(message: str) -> None:
    """A line for the person at the terminal (standard error), placed between progress lines."""
    reporter = _current
    if reporter is not None and reporter.mode != "quiet":
        reporter.say(message)
    else:
        print(message, file=sys.stderr, flush=True)


@contextlib.contextmanager
def reporting(
    command: str,
    *,
    quiet: bool = False,
    state_dir: Path | None = None,
    stream: TextIO | None = None,
) -> Iterator[Reporter]:
    """Show the progress of one command on ``stream`` (standard error); when it succeeds,
    print its table of times and keep them in ``state_dir``/timings.json."""
    global _current
    stream = stream if stream is not None else sys.stderr
    reporter = Reporter(command, mode_of(stream, quiet), stream)
    _current = reporter
    reporter.start()
    try:
        yield reporter
    finally:
        _current = None
        reporter.stop()
    if reporter.mode != "quiet":
        lines = reporter.table()
        if lines:
            with contextlib.suppress(OSError, ValueError):
                sys.stdout.flush()  # the result line first, in a log that joins both streams
            reporter._write("\n".join(lines))
    if state_dir is not None:
        with contextlib.suppress(OSError):  # figures for the summary: never worth failing a command
            keep_timings(state_dir, command, reporter.record())


def keep_timings(state_dir: Path, command: str, record: dict[str, Any]) -> None:
    """Put ``record`` into the state folder's timings.json under ``command``, keeping the other
    commands' records."""
    commands = read_timings(state_dir)
    commands[command] = record
    data = json.dumps({"version": TIMINGS_VERSION, "commands": commands}, indent=1, sort_keys=True)
    # Replaced whole, as the state files are (store.write_atomic, whose buffer for large files
    # costs more than this small file's write); the project's lock keeps other writers out.
    path = state_dir / TIMINGS_NAME
    temporary = path.with_name(f".{TIMINGS_NAME}.{os.getpid()}.tmp")
    try:
        temporary.write_text(data + "\n", encoding="utf-8")
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def read_timings(state_dir: Path) -> dict[str, dict[str, Any]]:
    """Each command's record in timings.json; nothing when it is missing, damaged or of
    another version (the summary then leaves the times out)."""
    from sitegen.files import read_bounded

    try:
        document = json.loads(
            read_bounded(state_dir / TIMINGS_NAME, 1_000_000, what="the timings file")
        )
    except (OSError, ValueError, SitegenError):  # any doubt about a file of figures: none are shown
        return {}
    if (
        not isinstance(document, dict)
        or document.get("version") != TIMINGS_VERSION
        or not isinstance(document.get("commands"), dict)
    ):
        return {}
    return {
        name: value
        for name, value in document["commands"].items()
        if isinstance(name, str) and _valid_record(value)
    }


def _valid_record(value: Any) -> bool:
    if (
        not isinstance(value, dict)
        or not isinstance(value.get("seconds"), int | float)
        or not isinstance(value.get("stages"), list)
    ):
        return False
    return all(
        isinstance(stage, dict)
        and isinstance(stage.get("name"), str)
        and isinstance(stage.get("seconds"), int | float)
        and (stage.get("items") is None or isinstance(stage.get("items"), int))
        for stage in value["stages"]
    )
