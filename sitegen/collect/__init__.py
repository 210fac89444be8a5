"""``sitegen collect``: gather every run, check it, and write ``.sitegen/collected.json``.

Reads everything first and writes only when every input is valid, so a failed collect
leaves the previous collected file untouched.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sitegen.collect.adapters import adapt_folder
from sitegen.collect.local import Entry, discover
from sitegen.parse import Document, parse_document
from sitegen.config import Config
from sitegen.errors import Problem, SitegenError
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


def load_entry(entry: Entry, source: str) -> Document:
    if entry.kind == "raw":
        return adapt_folder(entry.path, source)
    try:
        raw = entry.path.read_bytes()
    except OSError as exc:
        raise SitegenError(Problem(source, None, "", f"cannot read: {exc.strerror}")) from None
    return parse_document(source, raw)


def gather(config: Config) -> CollectReport:
    """Read and check every run; raise SitegenError listing every problem of every file."""
    entries, problems = discover(config.runs_dir, config.content_dir, config.display)
    runs: list[CollectedRun] = []
    first_origin: dict[str, str] = {}
    for entry in entries:
        source = config.display(entry.path)
        if entry.id in first_origin:
            problems.append(Problem(source, None, "", f"run id {entry.id!r} is already used by {first_origin[entry.id]}; rename one of them"))
            continue
        first_origin[entry.id] = source
        try:
            document = load_entry(entry, source)
        except SitegenError as error:
            problems.extend(error.problems)
            continue
        found = validate_result(document)
        if found:
            problems.extend(found)
            continue
        runs.append(CollectedRun(entry.id, source, document.data))
    if problems:
        raise SitegenError(problems)
    return CollectReport(runs)


def collect(config: Config) -> CollectReport:
    report = gather(config)
    write_collected(config.state_dir, report.runs)
    return report
