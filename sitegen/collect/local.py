"""Find result files and raw-output folders under content/runs/.

A run's id is its file (or folder) name without the extension: a lower-case slug
that becomes its permalink, so names that would make bad URLs are refused here.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from dataclasses import field
from functools import cached_property
from pathlib import Path
from typing import Literal

from sitegen.errors import Problem
from sitegen.parse import MAX_FILE_BYTES
from sitegen.record_decorator import record

RESULT_SUFFIXES = (".yaml", ".yml", ".json")
# \Z, not $: '$' also matches before a final newline, which would let 'x\n.yaml' through.
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,99}\Z")
# Files an editor or a repository keeps beside results; never taken for runs.
IGNORED_SUFFIXES = (".md", ".txt", ".rst")


@record
class Entry:
    """One run to read: a canonical result file, or a folder of raw tool output."""

    id: str
    folder: Path  # the folder it was found in, named as the user names it
    name: str  # its name there
    kind: Literal["result", "raw"]
    # Where the entry really is when that is not ``path`` (links resolved once, at discovery):
    # what is read, never through a link again, so a link swapped in later cannot lead elsewhere.
    real_path: Path | None = None
    # Its stat at discovery (of the file a link leads to): collect's manifest compares it with
    # the last collect's, to know an unchanged file without reading it (collect/manifest.py).
    found: os.stat_result | None = field(default=None, compare=False, repr=False)
    # How problems name it (entry_source), worked out once by discover(); "" when not made there.
    source: str = field(default="", compare=False, repr=False)

    @cached_property
    def path(self) -> Path:
        # Made when asked for: a collect of unchanged files needs none of them, and making a
        # Path per file was a large part of its time.
        return self.folder / self.name

    @property
    def readable_path(self) -> Path:
        return self.real_path or self.path


def suggest_id(name: str) -> str:
    slug = re.sub(r"[^a-z0-9_-]+", "-", name.lower()).strip("-_")
    return slug[:100] or "run"


def check_id(run_id: str, source: str) -> Problem | None:
    if ID_PATTERN.match(run_id):
        return None
    return Problem(
        source,
        None,
        "",
        f"{run_id!r} cannot be a run id: use lower-case letters, digits, '-' and '_' "
        f"(at most 100, starting with a letter or digit), e.g. {suggest_id(run_id)!r}",
    )


def entry_source(runs_dir: Path, name: str, display: Callable[[Path], str]) -> str:
    """How problems name an entry: by its own name, never its link target (which display()
    would resolve), escaped when unprintable (a newline or a bidi override would garble it)."""
    shown = name if name.isprintable() else name.encode("unicode_escape").decode("ascii")
    return f"{display(runs_dir)}/{shown}"


def discover(
    runs_dir: Path, content_dir: Path, display: Callable[[Path], str]
) -> tuple[list[Entry], list[Problem]]:
    """Every entry under ``runs_dir``, sorted by name, and the problems with names and links."""
    entries: list[Entry] = []
    problems: list[Problem] = []
    content_root = content_dir.resolve()
    # Named without resolving: display() would show where a linked runs folder leads.
    runs_named = f"{display(content_dir)}/{runs_dir.name}"
    runs_real, problem = resolve_inside(runs_dir, content_root, runs_named, "content/")
    if problem:
        return entries, [problem]
    assert runs_real is not None
    if not runs_real.is_dir():
        return entries, [
            Problem(
                display(runs_dir), None, "", "folder not found; result files go in content/runs/"
            )
        ]
    runs_shown = display(runs_dir)  # once, not once per entry: it resolves the path
    try:
        with os.scandir(runs_real) as listing:
            children = sorted(listing, key=lambda child: child.name)
    except OSError as exc:
        return entries, [Problem(runs_shown, None, "", f"cannot read the folder: {exc.strerror}")]
    same_place = runs_real == runs_dir
    for child in children:
        name = child.name
        if name.startswith(".") or name.endswith(IGNORED_SUFFIXES):
            continue
        source = entry_source(runs_dir, name, lambda _: runs_shown)
        real: Path | None
        try:
            if child.is_symlink():
                # Only a link needs resolving (and may lead out of content/): an entry that is not
                # one is where the resolved runs folder has it, which saves a realpath per file.
                # Named as the user sees it; read at its real place.
                real, problem = resolve_inside(runs_dir / name, content_root, source, "content/")
                if problem:
                    problems.append(problem)
                    continue
                assert real is not None
                found = real.stat()
            else:
                # No Path at all when the runs folder is no link (Entry.path is made when asked
                # for).
                real, found = (
                    None if same_place else runs_real / name,
                    child.stat(follow_symlinks=False),
                )
        except OSError as exc:  # gone or unreadable since the folder was listed
            problems.append(Problem(source, None, "", f"cannot read: {exc.strerror}"))
            continue
        is_dir, is_file = stat.S_ISDIR(found.st_mode), stat.S_ISREG(found.st_mode)
        # Path.suffix and Path.stem, from the name (pathlib's own rule, without its cost per file).
        dot = name.rfind(".")
        suffix, stem = (name[dot:].lower(), name[:dot]) if 0 < dot < len(name) - 1 else ("", name)
        if not is_dir and not is_file:
            # A pipe would block collect forever; a device could be read without end.
            problems.append(
                Problem(
                    source, None, "", "is not a plain file or folder (a device, pipe or socket)"
                )
            )
            continue
        if is_file and suffix in RESULT_SUFFIXES and found.st_size > MAX_FILE_BYTES:
            # Refused before anything reads it: a huge file is never loaded into memory.
            size = found.st_size
            problems.append(
                Problem(
                    source,
                    None,
                    "",
                    f"file is {size:,} bytes, over the {MAX_FILE_BYTES:,}-byte limit "
                    "for a result file",
                )
            )
            continue
        if is_dir:
            kind: Literal["result", "raw"] = "raw"
            run_id = name
        elif suffix in RESULT_SUFFIXES:
            kind = "result"
            run_id = stem
        else:
            problems.append(
                Problem(
                    source, None, "", f"not a result file: use one of {', '.join(RESULT_SUFFIXES)}"
                )
            )
            continue
        problem = check_id(run_id, source)
        if problem:
            problems.append(problem)
            continue
        entries.append(Entry(run_id, runs_dir, name, kind, real, found, source))
    return entries, problems


def resolve_inside(
    path: Path, root: Path, source: str, root_name: str
) -> tuple[Path | None, Problem | None]:
    """``path`` with every link resolved, or the problem when a link loops or leads out of ``root``
    (an already resolved folder). A path that does not exist resolves to itself."""
    try:
        real = Path(os.path.realpath(path, strict=True))
    except FileNotFoundError:
        if os.path.islink(path):
            return None, Problem(
                source,
                None,
                "",
                "is a link to nothing (a broken link); remove it or copy the file in",
            )
        return path, None
    except (OSError, RuntimeError):
        return None, Problem(
            source, None, "", "is a link that loops back on itself; remove it or copy the file in"
        )
    if real != root and root not in real.parents:
        return None, Problem(
            source, None, "", f"is a link to a place outside {root_name}; copy the file in instead"
        )
    return real, None
