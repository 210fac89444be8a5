"""The one error type users see, and the located problem it carries.

::

    SitegenError            raised by any stage; carries one or more Problems
      └─ problems: list[Problem(source, line, pointer, message)]

The CLI is the only place that catches SitegenError; it prints one line per problem
(``content/runs/x.yaml:14: /measurements/decode/3/status: …``) and exits non-zero.
Anything else is a bug in sitegen and keeps its traceback.

Every Problem is made safe to show where it is made: secrets in its text are redacted
(a duplicate key or a rejected value may be a token; a source may be a URL with
credentials) and each part is capped in length, so no message printed, annotated or
cached by any stage can leak a secret or flood a terminal.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sitegen.secret_text import redact_text

# Longer parts keep their start (the context) and their end (usually what to do).
MAX_PART_CHARS = 600
_KEEP_START = 300
_KEEP_END = 200


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with one input, located as precisely as the input allows."""

    source: str
    line: int | None
    pointer: str
    message: str

    def __post_init__(self) -> None:
        for name in ("source", "pointer", "message"):
            value = getattr(self, name)
            safe = _shown(value)
            if safe is not value:
                object.__setattr__(self, name, safe)

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


def _shown(text: str) -> str:
    """``text`` with secrets redacted and its length capped: the one rule for all messages."""
    if not isinstance(text, str):
        return text  # type: ignore[unreachable]
    # Redacted before the cut, so that a secret cut in two cannot escape its pattern.
    text = redact_text(text)
    if len(text) > MAX_PART_CHARS:
        left_out = len(text) - _KEEP_START - _KEEP_END
        text = f"{text[:_KEEP_START]}…({left_out:,} characters left out)…{text[-_KEEP_END:]}"
    return text


def shown(text: str) -> str:
    """Text for the terminal that is not a Problem (progress lines): redacted and capped alike."""
    return _shown(text)
