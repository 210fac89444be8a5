"""GitHub Actions workflow commands: problems as annotations on a pull request's files.

An annotation is one line, ``::error file=<path>,line=<n>,title=<title>::<message>``. Result
files come from strangers, so every value is escaped by GitHub's rules (those of
``@actions/core``): in the message ``%``, CR and LF; in a property also ``:`` and ``,``. No
value can then end the line and start a command of its own.
"""

from __future__ import annotations

from typing import Literal

from sitegen.errors import Problem

Level = Literal["error", "warning", "notice"]


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _in_repository(source: str) -> bool:
    # A URL (remote source) or an absolute path is no file of the pull request: GitHub could not
    # place it.
    return "://" not in source and not source.startswith("/") and source != "sitegen"


def annotation(problem: Problem, level: Level = "error") -> str:
    """One problem as a workflow command, placed on its file and line when it has them."""
    properties: list[str] = []
    message = problem.message
    if _in_repository(problem.source):
        properties.append(f"file={escape_property(problem.source)}")
        if problem.line is not None:
            properties.append(f"line={problem.line}")
    else:
        message = f"{problem.source}: {message}"
    properties.append(f"title={escape_property(problem.pointer or 'sitegen')}")
    return f"::{level} {','.join(properties)}::{escape_data(message)}"
