"""``sitegen collect``: gather every run, check it, and write ``.sitegen/collected.json``.

Reads everything first and writes only when every input is valid, so a failed collect
leaves the previous collected file untouched.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sitegen.collect.adapters.raw import adapt_folder
from sitegen.collect.cache import EntryCache
from sitegen.collect.local import Entry, discover, entry_source
from sitegen.collect.redact import redact_document, redact_document_detailed, redaction_warnings
from sitegen.config import CONFIG_NAME, Config
from sitegen.errors import Problem, SitegenError
from sitegen.files import read_bounded
from sitegen.parse import MAX_FILE_BYTES, Document, parse_document
from sitegen.plausibility import plausibility_warnings
from sitegen.store import CollectedRun, canonical, write_collected
from sitegen.validate import (
    check_matrix_size,
    check_numbers,
    check_placeholders,
    check_result_rules,
    check_result_schema,
    check_text,
)
from sitegen.workers import worker_context

if TYPE_CHECKING:
    import httpx

# Below this many files to check, starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 40


@dataclass
class CollectReport:
    runs: list[CollectedRun]
    warnings: list[Problem] = field(default_factory=list)


def validate_result(document: Document) -> list[Problem]:
    """Schema problems plus the rules a schema cannot express."""
    if not isinstance(document.data, dict):
        return [Problem(document.source, 1, "", "expected a mapping with hardware, engine, run and measurements")]
    problems = (check_result_schema(document) + check_numbers(document) + check_placeholders(document)
                + check_result_rules(document) + check_text(document) + check_matrix_size(document))
    return sorted(set(problems), key=lambda p: (p.line or 0, p.pointer, p.message))


def check_run(document: Document) -> tuple[Document, list[Problem]]:
    """Redact secrets, then validate: what a run goes through before it is kept."""
    document, _ = redact_document(document)
    return document, validate_result(document)


def load_entry(entry: Entry, source: str, raw: bytes | None = None) -> Document:
    """Parse a result file (from ``raw``, its bytes, when already read) or adapt a raw-output folder."""
    if entry.kind == "raw":
        return adapt_folder(entry.readable_path, source)
    return parse_document(source, entry_bytes(entry, source) if raw is None else raw)


def entry_bytes(entry: Entry, source: str) -> bytes:
    """A result file's bytes, read once at its resolved place: no link followed, no pipe or
    device opened for reading, nothing past the size limit read. Raises SitegenError."""
    try:
        return read_bounded(entry.readable_path, MAX_FILE_BYTES, source)
    except OSError as exc:
        raise SitegenError(Problem(source, None, "", f"cannot read: {exc.strerror}")) from None


@dataclass(frozen=True)
class CheckedEntry:
    """One local entry after load, redact and validate.

    A valid entry keeps its redacted document as canonical JSON text (``canonical``): a tenth
    of its objects' memory (a collect of thousands of runs holds them all), and what
    collected.json stores anyway. ``data()`` parses it for the few who need the objects.
    """

    entry: Entry
    source: str
    canonical: str | None  # None when the entry has problems
    problems: list[Problem]
    warnings: list[Problem]
    clash: bool = False  # its id was already taken by an earlier entry, so it was not read

    def data(self) -> Any:
        assert self.canonical is not None, "only a valid entry has data"
        return json.loads(self.canonical)


@dataclass(frozen=True)
class _Work:
    """An entry to check, with the bytes of a result file already read (each file is read once)
    and its cache key."""

    entry: Entry
    source: str
    raw: bytes | None = None
    key: str | None = None


def check_entry(entry: Entry, source: str, cache: EntryCache | None = None) -> CheckedEntry:
    """Load, redact and validate one run: exactly what collect does to each file.

    With a cache, a result file whose bytes were checked before is taken from it.
    """
    work, hit = _look_up(entry, source, cache)
    if hit is not None:
        return hit
    checked = _check(work)
    _remember(cache, work, checked)
    return checked


def _look_up(entry: Entry, source: str, cache: EntryCache | None) -> tuple[_Work, CheckedEntry | None]:
    """Read a result file once; with a cache, return what it holds for these bytes."""
    if entry.kind != "result":
        return _Work(entry, source), None
    try:
        raw = entry_bytes(entry, source)
    except SitegenError as error:
        return _Work(entry, source), CheckedEntry(entry, source, None, error.problems, [])
    key = cache.key(source, raw) if cache is not None else None
    hit = cache.get(key) if cache is not None and key is not None else None
    if hit is not None:
        return _Work(entry, source, raw, key), CheckedEntry(entry, source, hit[1], [], hit[0])
    return _Work(entry, source, raw, key), None


def _check(work: _Work) -> CheckedEntry:
    """Check one entry from its bytes: no disk access for a result file. Runs in worker processes too."""
    entry, source = work.entry, work.source
    try:
        document = load_entry(entry, source, work.raw)
        # Before validation, so that no message or stored value repeats a secret.
        document, redactions = redact_document_detailed(document)
    except SitegenError as error:
        return CheckedEntry(entry, source, None, error.problems, [])
    found = validate_result(document)
    warnings = redaction_warnings(document, redactions)
    if found:
        return CheckedEntry(entry, source, None, found, warnings)
    warnings += plausibility_warnings(document)  # figures that contradict each other: warned, never refused
    return CheckedEntry(entry, source, canonical(document.data), [], warnings)


def _remember(cache: EntryCache | None, work: _Work, checked: CheckedEntry) -> None:
    if cache is not None and work.key is not None and checked.canonical is not None:
        cache.put(work.key, checked.canonical, checked.warnings)


def _check_entries(entries: list[tuple[Entry, str]], cache: EntryCache | None,
                   parallel_threshold: int = PARALLEL_THRESHOLD) -> list[CheckedEntry]:
    """Check entries in order, each file read once; when many are not cached, the misses are
    checked in one process per core, from the bytes read here."""
    results: list[CheckedEntry | None] = []
    misses: list[tuple[int, _Work]] = []
    for entry, source in entries:
        work, hit = _look_up(entry, source, cache)
        if hit is None:
            misses.append((len(results), work))
        results.append(hit)
    if len(misses) < parallel_threshold or (os.cpu_count() or 1) < 2:
        fresh = [_check(work) for _, work in misses]
    else:
        with ProcessPoolExecutor(mp_context=worker_context()) as pool:
            fresh = list(pool.map(_check, [work for _, work in misses], chunksize=max(1, len(misses) // 16)))
    for (index, work), checked in zip(misses, fresh, strict=True):
        _remember(cache, work, checked)
        results[index] = checked
    return [checked for checked in results if checked is not None]


def check_local(config: Config, only: Collection[Path] | None = None,
                cache: EntryCache | None = None) -> tuple[list[Problem], list[CheckedEntry]]:
    """Check the runs of content/runs/ in name order: listing problems, then each entry.

    With ``only`` (absolute paths of entries), just those are read and reported, but every
    entry still counts for id clashes, so ``sitegen check x.yaml`` sees an ``x.json`` beside it.
    """
    entries, problems = discover(config.runs_dir, config.content_dir, config.display)
    if only is not None:
        wanted = {config.display(path) for path in only}
        wanted |= {entry_source(config.runs_dir, path.name, config.display) for path in only}
        problems = [problem for problem in problems if problem.source in wanted]
    checked: list[CheckedEntry] = []
    work: list[tuple[Entry, str]] = []
    first_origin: dict[str, str] = {}
    runs_shown = config.display(config.runs_dir)
    for entry in entries:
        # By the name it was found under: resolving it again could follow a link swapped in since.
        source = entry_source(config.runs_dir, entry.path.name, lambda _: runs_shown)
        selected = only is None or entry.path in only
        if entry.id in first_origin:
            if selected:
                clash = f"run id {entry.id!r} is already used by {first_origin[entry.id]}; rename one of them"
                checked.append(CheckedEntry(entry, source, None, [Problem(source, None, "", clash)], [], clash=True))
            continue
        first_origin[entry.id] = source
        if selected:
            work.append((entry, source))
    checked += _check_entries(work, cache)
    order = {entry.path: index for index, entry in enumerate(entries)}
    checked.sort(key=lambda item: (order[item.entry.path], item.clash))
    return problems, checked


def gather(config: Config, *, offline: bool = False, client: httpx.Client | None = None,
           progress: Callable[[str], None] | None = None) -> CollectReport:
    """Read and check every run; raise SitegenError listing every problem of every file.

    Remote ``sources`` are fetched with ``client`` (one is made when None), or read from the
    cache only when ``offline``; a source that fails but has a good cached copy is a warning.
    """
    cache = EntryCache(config.state_dir / "cache" / "collect")
    problems, checked = check_local(config, cache=cache)
    cache.prune()
    runs: list[CollectedRun] = []
    warnings: list[Problem] = []
    first_origin: dict[str, str] = {}
    for item in checked:
        problems.extend(item.problems)
        warnings.extend(item.warnings)
        if not item.clash:
            first_origin[item.entry.id] = item.source
        if item.canonical is not None:
            # Copied as text, never parsed again: most of an unchanged collect.
            runs.append(CollectedRun(item.entry.id, item.source, None, item.canonical))
    if config.sources:
        from sitegen.collect.remote import gather_remote  # httpx is slow to import; most sites have no sources

        remote = gather_remote(config.sources, config.state_dir / "cache" / "remote", check_run,
                               offline=offline, client=client, progress=progress)
        problems.extend(remote.problems)
        warnings.extend(remote.warnings)
        for run in remote.runs:
            if run.id in first_origin:
                problems.append(Problem(run.origin, None, "", f"run id {run.id!r} is already used by "
                                        f"{first_origin[run.id]}; give this source an id: in {CONFIG_NAME}"))
                continue
            first_origin[run.id] = run.origin
            # Located at the origin (the URL as shown everywhere else, secrets redacted) and the
            # fetched file's own lines, as a local file's warnings are at its path and lines.
            warnings.extend(replace(w, source=run.origin) for w in plausibility_warnings(run.document))
            runs.append(CollectedRun(run.id, run.origin, run.document.data))
    if problems:
        raise SitegenError(problems)
    return CollectReport(runs, warnings)


def collect(config: Config, *, offline: bool = False, progress: Callable[[str], None] | None = None) -> CollectReport:
    report = gather(config, offline=offline, progress=progress)
    write_collected(config.state_dir, report.runs)
    return report
