"""``sitegen collect``: gather every run, check it, and write ``.sitegen/collected.json``.

Reads everything first and writes only when every input is valid, so a failed collect
leaves the previous collected file untouched.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

from sitegen.collect.adapters import adapt_folder
from sitegen.collect.local import Entry, discover
from sitegen.collect.redact import redact_document, redact_document_detailed, redaction_warnings
from sitegen.collect.remote import gather_remote
from sitegen.config import CONFIG_NAME, Config
from sitegen.errors import Problem, SitegenError
from sitegen.parse import Document, parse_document
from sitegen.store import CollectedRun, write_collected
from sitegen.validate import check_numbers, check_result_rules, check_schema


@dataclass
class CollectReport:
    runs: list[CollectedRun]
    warnings: list[Problem] = field(default_factory=list)


def validate_result(document: Document) -> list[Problem]:
    """Schema problems plus the rules a schema cannot express."""
    if not isinstance(document.data, dict):
        return [Problem(document.source, 1, "", "expected a mapping with hardware, engine, run and measurements")]
    problems = check_schema(document, "result") + check_numbers(document) + check_result_rules(document)
    return sorted(set(problems), key=lambda p: (p.line or 0, p.pointer, p.message))


def check_run(document: Document) -> tuple[Document, list[Problem]]:
    """Redact secrets, then validate: what a run goes through before it is kept."""
    document, _ = redact_document(document)
    return document, validate_result(document)


def load_entry(entry: Entry, source: str) -> Document:
    if entry.kind == "raw":
        return adapt_folder(entry.path, source)
    try:
        raw = entry.path.read_bytes()
    except OSError as exc:
        raise SitegenError(Problem(source, None, "", f"cannot read: {exc.strerror}")) from None
    return parse_document(source, raw)


def gather(config: Config, *, offline: bool = False, client: httpx.Client | None = None,
           progress: Callable[[str], None] | None = None) -> CollectReport:
    """Read and check every run; raise SitegenError listing every problem of every file.

    Remote ``sources`` are fetched with ``client`` (one is made when None), or read from the
    cache only when ``offline``; a source that fails but has a good cached copy is a warning.
    """
    entries, problems = discover(config.runs_dir, config.content_dir, config.display)
    runs: list[CollectedRun] = []
    warnings: list[Problem] = []
    first_origin: dict[str, str] = {}
    for entry in entries:
        source = config.display(entry.path)
        if entry.id in first_origin:
            clash = f"run id {entry.id!r} is already used by {first_origin[entry.id]}; rename one of them"
            problems.append(Problem(source, None, "", clash))
            continue
        first_origin[entry.id] = source
        try:
            document = load_entry(entry, source)
            # Before validation, so that no message or stored value repeats a secret.
            document, redactions = redact_document_detailed(document)
        except SitegenError as error:
            problems.extend(error.problems)
            continue
        warnings.extend(redaction_warnings(document, redactions))
        found = validate_result(document)
        if found:
            problems.extend(found)
            continue
        runs.append(CollectedRun(entry.id, source, document.data))
    if config.sources:
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
            runs.append(CollectedRun(run.id, run.origin, run.document.data))
    if problems:
        raise SitegenError(problems)
    return CollectReport(runs, warnings)


def collect(config: Config, *, offline: bool = False, progress: Callable[[str], None] | None = None) -> CollectReport:
    report = gather(config, offline=offline, progress=progress)
    write_collected(config.state_dir, report.runs)
    return report
