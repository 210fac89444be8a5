"""``sitegen check [FILES…]``: the checks of ``sitegen collect`` on just the given runs.

Meant for editors, pre-commit hooks and pull-request checks: it loads, redacts and
validates with the very functions collect uses (so the messages are the same), skips
remote sources and writes nothing. Without files it checks everything in content/runs/.

Files are taken the way pre-commit passes them: a result file, a raw-output folder, or any
file inside one (``content/runs/<id>/run.yaml`` checks the folder ``<id>``); notes beside
the runs (``*.md``, ``*.txt``, ``*.rst``) are skipped. A file outside content/runs/ is
checked as a run named after the file.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sitegen.collect import CheckedEntry, check_entry, check_local
from sitegen.collect.adapters.raw import META_NAME
from sitegen.collect.local import IGNORED_SUFFIXES, RESULT_SUFFIXES, Entry, check_id
from sitegen.config import Config
from sitegen.errors import Problem


@dataclass(frozen=True)
class CheckReport:
    checked: list[CheckedEntry]
    listing: list[
        Problem
    ]  # problems with no run to read: a missing file, a name that cannot be an id

    @property
    def problems(self) -> list[Problem]:
        return self.listing + [problem for item in self.checked for problem in item.problems]

    @property
    def warnings(self) -> list[Problem]:
        return [warning for item in self.checked for warning in item.warnings]


def _absolute(path: Path) -> Path:
    """``path`` made absolute with its folders resolved, but not a link in its last part:
    discover() lists a linked run under its own name, and so must we."""
    absolute = Path(os.path.abspath(path))
    return absolute.parent.resolve() / absolute.name


def _skipped(name: str) -> bool:
    return name.startswith(".") or name.endswith(IGNORED_SUFFIXES)


def _outside_entry(config: Config, path: Path) -> tuple[Entry | None, Problem | None]:
    """An entry for a path outside content/runs/, or the reason there is none."""
    source = config.display(path)
    if not path.exists():
        return None, Problem(source, None, "", "not found")
    if path.is_file() and (path.name == META_NAME or (path.parent / META_NAME).is_file()):
        path = path.parent  # a file of a raw-output folder: the run is the folder
        source = config.display(path)
    if path.is_dir():
        entry = Entry(path.name, path.parent, path.name, "raw", path.resolve())
    elif path.suffix.lower() in RESULT_SUFFIXES:
        entry = Entry(path.stem, path.parent, path.name, "result", path.resolve())
    else:
        return None, Problem(
            source, None, "", f"not a result file: use one of {', '.join(RESULT_SUFFIXES)}"
        )
    problem = check_id(entry.id, source)
    return (None, problem) if problem else (entry, None)


def check_files(config: Config, paths: Sequence[Path]) -> CheckReport:
    """Check the runs ``paths`` name (all of content/runs/ when empty); never raises for bad
    input."""
    runs_dir = config.runs_dir
    given = [_absolute(path) for path in paths]
    if not given or runs_dir in given:
        listing, everything = check_local(config)
        return CheckReport(everything, listing)
    inside: set[Path] = set()
    outside: dict[Path, Entry] = {}
    problems: list[Problem] = []
    for path in given:
        if runs_dir in path.parents:
            top = runs_dir / path.relative_to(runs_dir).parts[0]
            if _skipped(top.name):
                continue  # what collect skips too: notes, editor and VCS files
            if not top.exists():
                problems.append(Problem(config.display(path), None, "", "not found"))
                continue
            inside.add(top)
            continue
        entry, problem = _outside_entry(config, path)
        if problem:
            problems.append(problem)
        elif entry is not None:
            outside.setdefault(entry.path, entry)
    checked: list[CheckedEntry] = []
    if inside:
        listing, checked = check_local(config, only=inside)
        problems.extend(listing)
    checked.extend(check_entry(entry, config.display(entry.path)) for entry in outside.values())
    return CheckReport(checked, problems)
