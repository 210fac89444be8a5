"""The progress display on a terminal: a row for each running stage (its name, a bar, items
done of all and the time left), drawn by rich's Progress, each row removed when its stage
ends, the whole display erased when the command's work is done.

Imported by progress.py only when a command has run long enough on a terminal for progress to
be shown (rich is slow to import). The counts are read from the stages
when rich redraws, on its own thread: the work that fills them only adds to a number.
Colour follows rich, which leaves it out when NO_COLOR is set. Standard output is left alone
(it may be a file; nothing prints there while the display is up: the command prints its result
once progress.done has taken the display away); what is printed to standard error meanwhile
appears above the display.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, TextIO

from rich.console import Console, RenderableType
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

REDRAWS_PER_S = 4


class Stage(Protocol):
    """What the display reads of a stage (progress.Stage; named here, not imported: progress
    imports this module)."""

    name: str
    alongside: bool

    def counts(self) -> tuple[int, int | None]: ...


class _Count(ProgressColumn):
    """``412/1,766``, or ``412`` for a stage whose total is not known (rich's MofN shows ``?``)."""

    def render(self, task: Task) -> Text:
        done = int(task.completed)
        text = f"{done:,}" if task.total is None else f"{done:,}/{int(task.total):,}"
        return Text(text if task.total is not None or done else "", style="progress.download")


class TerminalDisplay(Progress):
    """rich's Progress over ``stream``, its rows the stages shown (``show``, ``hide``)."""

    def __init__(self, stream: TextIO) -> None:
        # By id() of the stage; set first: Progress reads it as it starts.
        self._rows: dict[int, tuple[Stage, TaskID]] = {}
        console = Console(file=stream, force_terminal=True, highlight=False)
        super().__init__(
            TextColumn("{task.description}"),
            BarColumn(),
            _Count(),
            TimeRemainingColumn(),
            console=console,
            transient=True,
            refresh_per_second=REDRAWS_PER_S,
            redirect_stdout=False,
        )

    def show(self, stage: Stage) -> None:
        done, total = stage.counts()
        task = self.add_task(
            stage.name, total=total, completed=done, visible=not stage.alongside or bool(total)
        )
        self._rows[id(stage)] = (stage, task)

    def hide(self, stage: Stage) -> None:
        row = self._rows.pop(id(stage), None)
        if row is not None:
            self.remove_task(row[1])

    def say(self, message: str) -> None:
        """A line above the display, printed as it is (no markup read in it)."""
        self.console.print(Text(message), soft_wrap=True)

    def get_renderables(self) -> Iterable[RenderableType]:
        # (a copy: stages come and go on another thread)
        for stage, task in list(self._rows.values()):
            done, total = stage.counts()
            # (a stage alongside the others shows once it has something to do)
            self.update(
                task, completed=done, total=total, visible=not stage.alongside or bool(total)
            )
        yield from super().get_renderables()
