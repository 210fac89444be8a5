"""The one error type users see, and the located problem it carries.

::

    SitegenError            raised by any stage; carries one or more Problems
      └─ problems: list[Problem(source, line, pointer, message)]

The CLI is the only place that catches SitegenError; it prints one line per problem
(``content/runs/x.yaml:14: /measurements/decode/3/status: …``) and exits non-zero.
Anything else is a bug in sitegen and keeps its traceback.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with one input, located as precisely as the input allows."""

    source: str
    line: int | None
    pointer: str
    message: str

    def __str__(self) -> str:
        where = self.source
        if self.line is not None:
            where += f":{self.line}"
        if self.pointer:
            return f"{where}: {self.pointer}: {self.message}"
        return f"{where}: {self.message}"


class SitegenError(Exception):
    """A problem the user can fix: bad input, a missing file, an unwritable folder."""

    def __init__(self, problems: Problem | str | Iterable[Problem]) -> None:
        if isinstance(problems, str):
            problems = [Problem("sitegen", None, "", problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))
