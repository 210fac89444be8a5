"""``sitegen collect``: gather every run, check it, and write ``.sitegen/collected.json``.

Reads everything first and writes only when every input is valid, so a failed collect
leaves the previous collected file untouched.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable, Collection
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sitegen import files
from sitegen import progress as stages
from sitegen.collect import manifest
from sitegen.collect.cache import EntryCache, code_salt
from sitegen.collect.local import Entry, discover, entry_source
from sitegen.collect.manifest import Manifest
from sitegen.collect.redact import redact_document, redact_document_detailed, redaction_warnings
from sitegen.config import CONFIG_NAME, Config
from sitegen.errors import Problem, SitegenError
from sitegen.files import MAX_STATE_BYTES, read_bounded
from sitegen.gc_and_exit import left_to_the_end, long_lived_work
from sitegen.parse import MAX_FILE_BYTES, Document, parse_document
from sitegen.plausibility import plausibility_warnings
from sitegen.receipts import RECEIPT_KEY, result_file_receipt
from sitegen.record_decorator import record
from sitegen.store import (
    CollectedRun,
    StoredResult,
    collected_path,
    layout,
    prune_measurements,
    run_entry,
    stored_and_canonical,
    stored_measurements,
    write_collected_bytes,
    write_measurements,
)
from sitegen.validate import (
    check_matrix_size,
    check_numbers,
    check_placeholders,
    check_result_rules,
    check_result_schema,
    check_text,
)

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
        return [
            Problem(
                document.source,
                1,
                "",
                "expected a mapping with hardware, engine, run and measurements",
            )
        ]
    problems = (
        check_result_schema(document)
        + check_numbers(document)
        + check_placeholders(document)
        + check_result_rules(document)
        + check_text(document)
        + check_matrix_size(document)
    )
    return sorted(set(problems), key=lambda p: (p.line or 0, p.pointer, p.message))


def check_run(document: Document) -> tuple[Document, list[Problem]]:
    """Redact secrets, then validate: what a run goes through before it is kept."""
    document, _ = redact_document(document)
    return document, validate_result(document)


def load_entry(entry: Entry, source: str, raw: bytes | None = None) -> Document:
    """Parse a result file (from ``raw``, its bytes, when already read) or adapt a raw-output
    folder."""
    if entry.kind == "raw":
        from sitegen.collect.adapters.raw import (
            adapt_folder,
        )  # the adapters' import is only for raw folders

        return adapt_folder(entry.readable_path, source)
    return parse_document(source, entry_bytes(entry, source) if raw is None else raw)


def entry_bytes(entry: Entry, source: str) -> bytes:
    """A result file's bytes, read once at its resolved place: no link followed, no pipe or
    device opened for reading, nothing past the size limit read. Raises SitegenError."""
    try:
        return read_bounded(entry.readable_path, MAX_FILE_BYTES, source)
    except OSError as exc:
        raise SitegenError(Problem(source, None, "", f"cannot read: {exc.strerror}")) from None


@record
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
    # A result file's entry-cache key (bookkeeping for the manifest: not part of the outcome).
    key: str | None = field(default=None, compare=False)
    # For a file as the last collect read it (collect/manifest.py), not read again: the digest of
    # its checked text, which is not loaded (``canonical`` is None, and there are no problems).
    known_digest: str | None = None
    # Its result as the collected file stores it, made where it was checked (a worker), beside
    # ``canonical``: writing the collected file then makes neither again.
    stored: StoredResult | None = field(default=None, compare=False)

    def data(self) -> Any:
        assert self.canonical is not None, "only a valid entry has data"
        return json.loads(self.canonical)


@record
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


def _look_up(
    entry: Entry, source: str, cache: EntryCache | None
) -> tuple[_Work, CheckedEntry | None]:
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
        return _Work(entry, source, raw, key), CheckedEntry(
            entry, source, hit[1], [], hit[0], key=key
        )
    return _Work(entry, source, raw, key), None


def _known(
    entry: Entry, source: str, recorded: manifest.KnownFile, cache: EntryCache | None
) -> CheckedEntry:
    """A result file as the last collect read it: not read again."""
    if cache is not None:
        cache.used.add(recorded.key)  # still in use: not pruned
    return CheckedEntry(
        entry,
        source,
        None,
        [],
        list(recorded.warnings),
        key=recorded.key,
        known_digest=recorded.digest,
    )


def _check(work: _Work) -> CheckedEntry:
    """Check one entry from its bytes: no disk access for a result file. Runs in worker processes
    too."""
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
    warnings += plausibility_warnings(
        document
    )  # figures that contradict each other: warned, never refused
    if work.raw is not None:  # a result file: the digest of the bytes its figures were read from
        document.data[RECEIPT_KEY] = result_file_receipt(source, work.raw)
    stored, text = stored_and_canonical(document.data)
    return CheckedEntry(entry, source, text, [], warnings, stored=stored)


def _remember(cache: EntryCache | None, work: _Work, checked: CheckedEntry) -> None:
    if cache is not None and work.key is not None and checked.canonical is not None:
        cache.put(work.key, checked.canonical, checked.warnings)


def _check_entries(
    entries: list[tuple[Entry, str]],
    cache: EntryCache | None,
    parallel_threshold: int = PARALLEL_THRESHOLD,
    known: Manifest | None = None,
) -> list[CheckedEntry]:
    """Check entries in order, each file read once (none that ``known`` recognises); when many
    are not cached, the misses are checked in one process per core, from the bytes read here."""
    results: list[CheckedEntry | None] = []
    misses: list[tuple[int, _Work]] = []
    stages.step("reading result files", len(entries), count=results.__len__)
    for entry, source in entries:
        # Most entries of an unchanged collect: what the manifest recorded, without a _Work.
        recorded = (
            known.trusted(entry.name, entry.found)
            if known is not None and entry.kind == "result"
            else None
        )
        if recorded is not None:
            results.append(_known(entry, source, recorded, cache))
            continue
        work, hit = _look_up(entry, source, cache)
        if hit is None:
            misses.append((len(results), work))
        results.append(hit)
    fresh: list[CheckedEntry] = []  # (filled one by one: its length is the stage's count)

    def settle(checked: CheckedEntry) -> None:
        # Kept in the cache as each comes back, so that with workers the writing is done while
        # they check the next ones, not after the last.
        index, work = misses[len(fresh)]
        fresh.append(checked)
        _remember(cache, work, checked)
        results[index] = replace(checked, entry=work.entry, key=work.key)  # (a worker's copy)

    if misses:
        stages.step("checking result files", len(misses), count=fresh.__len__)
    if len(misses) < parallel_threshold or (os.cpu_count() or 1) < 2:
        for _, work in misses:
            settle(_check(work))
    else:
        from sitegen.workers import pool_options

        with ProcessPoolExecutor(**pool_options()) as pool:
            chunk = max(1, len(misses) // 16)
            for checked in pool.map(_check, [work for _, work in misses], chunksize=chunk):
                settle(checked)  # (in order, as each chunk comes back)
    return [checked for checked in results if checked is not None]


def check_local(
    config: Config,
    only: Collection[Path] | None = None,
    cache: EntryCache | None = None,
    known: Manifest | None = None,
) -> tuple[list[Problem], list[CheckedEntry]]:
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
    runs_dir = config.runs_dir  # (a property that makes a Path: once, not once per entry)
    runs_shown = config.display(runs_dir)
    for entry in entries:
        # By the name it was found under: resolving it again could follow a link swapped in since.
        source = entry.source or entry_source(runs_dir, entry.name, lambda _: runs_shown)
        selected = only is None or entry.path in only
        if entry.id in first_origin:
            if selected:
                clash = (
                    f"run id {entry.id!r} is already used by {first_origin[entry.id]}; rename one "
                    f"of them"
                )
                checked.append(
                    CheckedEntry(
                        entry, source, None, [Problem(source, None, "", clash)], [], clash=True
                    )
                )
            continue
        first_origin[entry.id] = source
        if selected:
            work.append((entry, source))
    checked += _check_entries(work, cache, known=known)
    if len(checked) > len(work):  # clashes came first: put each after its entry's place
        order = {id(entry): index for index, entry in enumerate(entries)}
        checked.sort(key=lambda item: (order[id(item.entry)], item.clash))
    return problems, checked


def gather(
    config: Config,
    *,
    offline: bool = False,
    client: httpx.Client | None = None,
    progress: Callable[[str], None] | None = None,
) -> CollectReport:
    """Read and check every run; raise SitegenError listing every problem of every file.

    Remote ``sources`` are fetched with ``client`` (one is made when None), or read from the
    cache only when ``offline``; a source that fails but has a good cached copy is a warning.
    """
    report, _, cache = _gather(config, offline=offline, client=client, progress=progress)
    cache.prune()
    return report


def _gather(
    config: Config,
    *,
    offline: bool = False,
    client: httpx.Client | None = None,
    progress: Callable[[str], None] | None = None,
    known: Manifest | None = None,
) -> tuple[CollectReport, list[CheckedEntry], EntryCache]:
    """gather(), with the local entries as checked and the entry cache (not yet pruned). The
    files that ``known`` recognises are not read: their runs have a digest but no text."""
    cache = EntryCache(config.state_dir / "cache" / "collect")
    problems, checked = check_local(config, cache=cache, known=known)
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
            runs.append(
                CollectedRun(item.entry.id, item.source, None, item.canonical, stored=item.stored)
            )
        elif item.known_digest is not None:
            runs.append(CollectedRun(item.entry.id, item.source, None, digest=item.known_digest))
    if config.sources:
        from sitegen.collect.remote import (
            gather_remote,
        )  # httpx is slow to import; most sites have no sources

        stage = "reading cached sources" if offline else "fetching sources"
        stages.step(stage, len(config.sources))
        remote = gather_remote(
            config.sources,
            config.state_dir / "cache" / "remote",
            check_run,
            offline=offline,
            client=client,
            progress=progress,
            budget_s=config.sources_budget_s,
        )
        problems.extend(remote.problems)
        warnings.extend(remote.warnings)
        for run in remote.runs:
            if run.id in first_origin:
                problems.append(
                    Problem(
                        run.origin,
                        None,
                        "",
                        f"run id {run.id!r} is already used by "
                        f"{first_origin[run.id]}; give this source an id: in {CONFIG_NAME}",
                    )
                )
                continue
            first_origin[run.id] = run.origin
            # Located at the origin (the URL as shown everywhere else, secrets redacted) and the
            # fetched file's own lines, as a local file's warnings are at its path and lines.
            warnings.extend(
                replace(w, source=run.origin) for w in plausibility_warnings(run.document)
            )
            runs.append(CollectedRun(run.id, run.origin, run.document.data))
    if problems:
        raise SitegenError(problems)
    return CollectReport(runs, warnings), checked, cache


def collect(
    config: Config, *, offline: bool = False, progress: Callable[[str], None] | None = None
) -> CollectReport:
    """gather() and write the collected file, reading only the result files that changed since
    the last collect (collect/manifest.py): an unchanged collect reads no result file, and
    writes nothing when no run changed."""
    # What it reads (the manifest, each run's record) lives until it ends, with few cycles: run
    # without the cycle collector (gc_and_exit.long_lived_work).
    with long_lived_work():
        return _collect(config, offline=offline, progress=progress)


def _collect(
    config: Config, *, offline: bool, progress: Callable[[str], None] | None
) -> CollectReport:
    cache_root = config.state_dir / "cache"
    now = files.file_system_now(cache_root)  # before any file is looked at
    expected = manifest.fingerprint(
        code_salt(), repr(config).encode(), config.display(config.runs_dir)
    )
    manifest_path = cache_root / manifest.MANIFEST_NAME
    previous = manifest.load(manifest_path, expected)
    report, checked, cache = _gather(config, offline=offline, progress=progress, known=previous)
    stages.step("writing the collected file")
    written = _write(config.state_dir, report.runs, previous, now)
    if written is None:
        # A run not read again is in neither the collected file nor the manifest's record of it
        # (the collected file was edited or removed since): read everything, as without a manifest.
        previous = None
        report, checked, cache = _gather(config, offline=offline, progress=progress)
        written = _write(config.state_dir, report.runs, None, now)
        assert written is not None, "every run has its text when nothing is taken as known"
    if (
        previous is None
        or any(item.entry.kind == "result" and item.known_digest is None for item in checked)
        or len(previous.files) != sum(item.known_digest is not None for item in checked)
    ):
        cache.prune()  # a file was read, or one known is gone: entries may be unused now
    digests = {entry.id: entry.digest for entry in written.entries}
    known: dict[str, manifest.KnownFile] = {}
    for item in checked:
        name = item.entry.name
        if item.known_digest is not None and previous is not None:
            known[name] = previous.files[name]  # as recorded: its stat is the same
        elif (
            item.entry.kind == "result"
            and item.key is not None
            and item.entry.found is not None
            and item.entry.id in digests
            and files.settled(item.entry.found, now)
        ):
            known[name] = manifest.KnownFile(
                files.identity(item.entry.found),
                item.key,
                digests[item.entry.id],
                tuple(item.warnings),
            )
    recorded = manifest.Manifest(known, written.sha256, written.identity, written.entries)
    if recorded != previous:
        manifest.save(manifest_path, recorded, expected)
    left_to_the_end(locals())  # all it holds, never freed when the process ends with the collect
    return report


@dataclass(frozen=True)
class _Written:
    """The collected file as written (or found unchanged): what the manifest records of it."""

    sha256: str
    identity: files.Identity | None  # only when old enough to be trusted (files.settled)
    entries: list[manifest.CollectedEntry]


def _write(
    state_dir: Path, runs: list[CollectedRun], previous: Manifest | None, now: files.Clock | None
) -> _Written | None:
    """Write the collected file of ``runs`` and the measurements files it names, unless they
    hold them already; the entries of runs without text (files not read again) are copied from
    the previous collected file. None when one cannot be: the file is not what the manifest
    recorded, or the measurements file of such a run is gone."""
    runs = sorted(runs, key=lambda run: run.id)
    path = collected_path(state_dir)
    old_data, old_ok, found = _previous_collected(path, previous)
    listed = stored_measurements(state_dir)
    present = listed.digests
    spans = (
        {(entry.id, entry.origin, entry.digest): entry for entry in previous.collected}
        if old_ok and previous is not None
        else {}
    )
    made: list[bytes | None] = []
    listing: list[
        tuple[str, str, str, str]
    ] = []  # id, origin, digest, measurements' digest ("" for none)
    measurements: dict[str, bytes] = {}
    for run in runs:
        if run.canonical is None and run.result is None:
            assert run.digest is not None, "a run without text has a digest"
            span = spans.get((run.id, run.origin, run.digest))
            if span is None or (span.measurements and span.measurements not in present):
                return None
            made.append(None)
            listing.append((run.id, run.origin, run.digest, span.measurements))
        else:
            entry, stored = run_entry(run)
            made.append(entry)
            name = ""
            if stored.measurements is not None:
                name, measurements[name] = stored.measurements
            listing.append((run.id, run.origin, stored.digest, name))
    named = {name for *_, name in listing if name}
    if (
        old_ok
        and previous is not None
        and found is not None
        and named <= present
        and listing == [(e.id, e.origin, e.digest, e.measurements) for e in previous.collected]
    ):
        # No run changed: the file stays as it is, unread, and so does its time stamp.
        settled_identity = files.identity(found) if files.settled(found, now) else None
        if len(present) > len(named) or listed.leftovers:
            prune_measurements(state_dir, named, listed)
        return _Written(previous.collected_sha256 or "", settled_identity, previous.collected)
    parts: list[bytes | memoryview] = []
    old_view: memoryview | None = None
    for (run_id, origin, digest, _), fresh in zip(listing, made, strict=True):
        if fresh is not None:
            parts.append(fresh)
            continue
        if old_view is None:
            old_data = old_data if old_data is not None else _read_verified(path, previous)
            if old_data is None:
                return None
            old_view = memoryview(old_data)
        span = spans[(run_id, origin, digest)]
        parts.append(old_view[span.start : span.end])
    pieces, places = layout(parts)
    data = b"".join(pieces)
    # The measurements first: the collected file never names a file that is not there.
    write_measurements(state_dir, measurements, present)
    # The file recorded differs (a run changed): written without reading it to compare. Any
    # other file is compared first, and kept when it holds these bytes already.
    data_sha256 = hashlib.sha256(data).hexdigest()
    write_collected_bytes(state_dir, data, compare=not old_ok, sha256=data_sha256)
    prune_measurements(state_dir, named, listed)
    return _Written(
        data_sha256,
        None,
        [
            manifest.CollectedEntry(run_id, origin, digest, start, end, name)
            for (run_id, origin, digest, name), (start, end) in zip(listing, places, strict=True)
        ],
    )


def _previous_collected(
    path: Path, previous: Manifest | None
) -> tuple[bytes | None, bool, os.stat_result | None]:
    """The collected file's bytes (None when not read), whether it is the file the manifest
    recorded, and its stat (taken before it is read)."""
    if previous is None or previous.collected_sha256 is None:
        return None, False, None
    try:
        found = os.lstat(path)
    except OSError:
        return None, False, None
    if not stat.S_ISREG(found.st_mode):
        return None, False, None
    if (
        previous.collected_identity is not None
        and files.identity(found) == previous.collected_identity
    ):
        return None, True, found
    data = _read_verified(path, previous)
    return data, data is not None, found


def _read_verified(path: Path, previous: Manifest | None) -> bytes | None:
    """The collected file's bytes when they are what the manifest recorded, else None: the very
    file recorded (its identity after the read, recorded once it had settled) without hashing
    them; any other file when they hash as recorded."""
    if previous is None:
        return None
    read = _read_whole(path)
    if read is None:
        return None
    data, identity = read
    if previous.collected_identity is not None and identity == previous.collected_identity:
        return data
    return data if hashlib.sha256(data).hexdigest() == previous.collected_sha256 else None


def _read_whole(path: Path) -> tuple[bytes, files.Identity] | None:
    """A plain file's bytes and its identity once read; None when it is no plain file, too big
    or unreadable (a change while it was read shows in the identity)."""
    try:
        data, descriptor = files.read_bounded_open(path, MAX_STATE_BYTES, what="the collected file")
    except (OSError, SitegenError):
        return None
    try:
        return data, files.identity(os.fstat(descriptor))
    finally:
        os.close(descriptor)
