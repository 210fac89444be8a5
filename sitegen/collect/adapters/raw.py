"""Reading raw tool output, and merging what an adapter made of it with run.yaml.

Raw output never says everything (hardware type, the published model id, the engine
version…), so it comes with a run.yaml holding ``hardware``/``engine``/``run`` (and
``source``) fields like a result file's; a field given there wins over the raw file, except
where the raw file *records* it (llama-bench's GPU and build, SGLang's server version,
AIPerf's GPU telemetry): then the two must agree, and a contradiction is an error at the
run.yaml line.

The merged document is checked here, against the same rules as any result file, and each
problem is reported where it can be fixed: at the run.yaml line for a value given there,
at the raw file's line for a value read from it, and as "give it in run.yaml" for a
required field that neither tells.
"""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path
from typing import Any

from sitegen.collect.adapters import registry
from sitegen.collect.adapters._foreign import SECTIONS, Adapted, Node, Origin, yaml_words
from sitegen.collect.redact import redact_document
from sitegen.errors import Problem, SitegenError
from sitegen.files import read_bounded
from sitegen.parse import MAX_FILE_BYTES, Document, parse_json, parse_yaml
from sitegen.receipts import file_entry
from sitegen.validate import (
    LATEST_RESULT_VERSION,
    check_numbers,
    check_result_rules,
    check_result_schema,
    check_schema,
)

META_NAME = "run.yaml"
# Raw output keeps request samples and telemetry, so it may be much larger than a result file.
RAW_MAX_BYTES = 64 * 1024 * 1024
RAW_SUFFIXES = (".json", ".json.gz", ".jsonl", ".yaml", ".yml")
# A sweep is a few dozen files; a bound keeps a mistaken folder (a home directory) from being read.
MAX_RAW_FILES = 2000
# Files a folder may hold beside the run: notes for people, never read.
_IGNORED_SUFFIXES = (".md", ".txt", ".rst", ".log")
_GZIP_MAGIC = b"\x1f\x8b"


def adapt_raw(results: Document, meta: Document | None, source: str) -> Document:
    """A raw tool output document (plus its run.yaml metadata) as a canonical result document.

    ``source`` names the run (a folder, a URL) for problems that belong to neither file.
    Raises SitegenError listing every problem; the returned document passed the same checks
    as a result file (before redaction, which the caller does).
    """
    return adapt_records([results], meta, source)


def adapt_records(records: list[Document], meta: Document | None, source: str) -> Document:
    """The records of one run — one file, the lines of a JSON Lines file, or every file of a
    sweep — as one canonical result document (see :func:`adapt_raw`)."""
    select = None
    if meta is not None:
        _check_meta(meta)
        select = Node.root(meta).get("select")
    adapted = _adapt(records, select)
    return _merge(adapted, meta, source)


def adapt_folder(folder: Path, source: str) -> Document:
    """A raw-output folder (``content/runs/<id>/``) as a canonical result document.

    The folder holds ``run.yaml`` and the raw files of one run: one file, or every file of a
    sweep. Which format they are follows from their content, not their names.
    """
    _refuse_links(folder, source)
    raw_paths = find_raw_files(folder, source)
    meta_path = folder / META_NAME
    if not meta_path.is_file():
        raise SitegenError(
            Problem(
                source,
                None,
                "",
                f"no {META_NAME}: a raw-output folder needs one with at least "
                "hardware: type: (see docs/importing.md)",
            )
        )
    records: list[Document] = []
    read: list[dict[str, Any]] = []
    for path in raw_paths:
        data = _read_bytes(path, f"{source}/{path.name}")
        records += parse_records(f"{source}/{path.name}", data)
        read.append(file_entry(path.name, data))
    meta_bytes = _read_meta_bytes(meta_path, f"{source}/{META_NAME}")
    read.append(file_entry(META_NAME, meta_bytes))
    document = adapt_records(records, parse_yaml(f"{source}/{META_NAME}", meta_bytes), source)
    return with_raw_files(document, read)


def with_raw_files(document: Document, read: list[dict[str, Any]]) -> Document:
    """The document with the files it was read from, by digest, in ``provenance.raw_files``
    (sitegen/receipts.py), sorted by name so the same files give the same document."""
    document.data["provenance"]["raw_files"] = sorted(read, key=lambda entry: entry["file"])
    return document


def _refuse_links(folder: Path, source: str) -> None:
    """A folder in content/ comes from a pull request: a link in it could make collect read
    (and publish) any file of the machine that builds the site, or block on a device."""
    try:
        children = sorted(folder.iterdir())
    except OSError as exc:
        raise SitegenError(
            Problem(source, None, "", f"cannot read the folder: {exc.strerror}")
        ) from None
    problems = [
        Problem(f"{source}/{path.name}", None, "", "is a link; copy the file in instead")
        for path in children
        if path.is_symlink()
    ]
    problems += [
        Problem(
            f"{source}/{path.name}",
            None,
            "",
            "is not a plain file or folder (a device, pipe or socket)",
        )
        for path in children
        if not path.is_symlink() and not path.is_file() and not path.is_dir()
    ]
    if problems:
        raise SitegenError(problems)


def find_raw_files(folder: Path, source: str) -> list[Path]:
    """The raw files of a raw-output folder (beside run.yaml); anything unexpected there is a
    problem."""
    raw: list[Path] = []
    problems: list[Problem] = []
    try:
        children = sorted(folder.iterdir())
    except OSError as exc:
        raise SitegenError(
            Problem(source, None, "", f"cannot read the folder: {exc.strerror}")
        ) from None
    for path in children:
        name = path.name
        if name.startswith(".") or name == META_NAME or name.endswith(_IGNORED_SUFFIXES):
            continue
        if path.is_file() and name.lower().endswith(RAW_SUFFIXES):
            raw.append(path)
        else:
            problems.append(
                Problem(
                    f"{source}/{name}",
                    None,
                    "",
                    f"unexpected in a raw-output folder, which holds "
                    f"{META_NAME} and the raw files of one run ({', '.join(RAW_SUFFIXES)})",
                )
            )
    if not raw and not problems:
        problems.append(
            Problem(
                source,
                None,
                "",
                "no raw file: put the benchmark's output (for example "
                "benchmark_results.json) beside run.yaml",
            )
        )
    if len(raw) > MAX_RAW_FILES:
        problems.append(
            Problem(
                source, None, "", f"more than {MAX_RAW_FILES} raw files; a folder holds one run"
            )
        )
    if problems:
        raise SitegenError(problems)
    return raw


def find_raw_file(folder: Path, source: str) -> Path:
    """The one raw file of a folder that must hold exactly one (kept for single-file formats)."""
    raw = find_raw_files(folder, source)
    if len(raw) > 1:
        names = ", ".join(p.name for p in raw)
        raise SitegenError(
            Problem(source, None, "", f"more than one raw file ({names}); a folder holds one run")
        )
    return raw[0]


def walk_raw_files(folder: Path, source: str) -> list[tuple[Path, str]]:
    """Every raw-looking file under ``folder`` (any depth), for ``sitegen import`` of a tool's
    output folder: a sweep keeps one sub-folder per point, beside logs, CSV copies and inputs."""
    found: list[tuple[Path, str]] = []
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            children = sorted(current.iterdir(), reverse=True)
        except OSError as exc:
            raise SitegenError(
                Problem(str(current), None, "", f"cannot read the folder: {exc.strerror}")
            ) from None
        for path in children:
            name = path.name
            if name.startswith(".") or path.is_symlink():
                continue  # links could lead anywhere, even into a loop
            if path.is_dir():
                stack.append(path)
            elif path.is_file() and name != META_NAME and name.lower().endswith(RAW_SUFFIXES):
                found.append((path, f"{source.rstrip('/')}/{path.relative_to(folder).as_posix()}"))
                if len(found) > MAX_RAW_FILES:
                    raise SitegenError(
                        Problem(
                            source,
                            None,
                            "",
                            f"more than {MAX_RAW_FILES} raw files; point "
                            "sitegen import at the folder of one sweep",
                        )
                    )
    return sorted(found, key=lambda item: item[1])


def read_raw_file(path: Path, source: str) -> Document:
    """A raw file that holds one JSON document (see :func:`read_records` for every format)."""
    return parse_raw(source, _read_bytes(path, source))


def read_records(path: Path, source: str) -> list[Document]:
    """The records of a raw file: one document, or one per line of a JSON Lines file."""
    return parse_records(source, _read_bytes(path, source))


def _read_bytes(path: Path, source: str) -> bytes:
    # No link followed, no pipe or device read, nothing past the limit read (sitegen.files).
    try:
        return read_bounded(path, RAW_MAX_BYTES, source, "raw tool output")
    except OSError as exc:
        raise SitegenError(Problem(source, None, "", f"cannot read: {exc.strerror}")) from None


def parse_raw(source: str, raw: bytes) -> Document:
    """Parse raw tool output: JSON, gzip-compressed or not (lil-bench saves ``.json.gz``).

    Python's bare ``Infinity`` and ``NaN`` are read as numbers (SGLang writes
    ``"request_rate": Infinity``); the adapters decide what they mean, and the result file
    never holds one.
    """
    if raw.startswith(_GZIP_MAGIC):
        raw = _gunzip(source, raw)
    return parse_json(source, raw, max_bytes=RAW_MAX_BYTES, non_finite=True)


def parse_records(source: str, raw: bytes) -> list[Document]:
    """Parse raw output as JSON, JSON Lines (one record a line) or YAML (GuideLLM)."""
    if raw.startswith(_GZIP_MAGIC):
        raw = _gunzip(source, raw)
    path = source.lower().removesuffix(".gz")
    if path.endswith((".yaml", ".yml")):
        return [parse_yaml(source, raw, max_bytes=RAW_MAX_BYTES, python_tuples=True)]
    try:
        return [parse_json(source, raw, max_bytes=RAW_MAX_BYTES, non_finite=True)]
    except SitegenError as error:
        lines = _json_lines(source, raw)
        if lines is None:
            raise error from None
        return lines


def _json_lines(source: str, raw: bytes) -> list[Document] | None:
    """The records of a JSON Lines file, each with the file's line numbers; None if it is not
    one."""
    rows = [(number, line) for number, line in enumerate(raw.split(b"\n"), start=1) if line.strip()]
    if len(rows) < 2 or not rows[0][1].lstrip().startswith(b"{"):
        return None
    records: list[Document] = []
    for number, line in rows:
        document = parse_json(source, line, max_bytes=RAW_MAX_BYTES, non_finite=True)
        lines = {pointer: at + number - 1 for pointer, at in document.lines.items()}
        lines.setdefault("", number)
        records.append(Document(source, document.data, lines))
    return records


def parse_raw_bytes(source: str, raw: bytes) -> bytes:
    """Raw tool output unpacked when it is gzip, within the size limit; raises SitegenError."""
    return _gunzip(source, raw) if raw.startswith(_GZIP_MAGIC) else raw


def _gunzip(source: str, raw: bytes) -> bytes:
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as stream:
            # Read one byte past the limit instead of trusting the header: a small file may inflate
            # to gigabytes.
            data = stream.read(RAW_MAX_BYTES + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise SitegenError(Problem(source, None, "", f"not a readable gzip file ({exc})")) from None
    if len(data) > RAW_MAX_BYTES:
        raise SitegenError(
            Problem(source, None, "", f"decompresses to over the {RAW_MAX_BYTES:,}-byte limit")
        )
    return data


def read_meta(path: Path, source: str) -> Document:
    return parse_yaml(source, _read_meta_bytes(path, source))


def _read_meta_bytes(path: Path, source: str) -> bytes:
    try:
        return read_bounded(path, MAX_FILE_BYTES, source, "run.yaml")
    except OSError as exc:
        raise SitegenError(Problem(source, None, "", f"cannot read: {exc.strerror}")) from None


def recognised(records: list[Document]) -> tuple[list[Document], list[str]]:
    """The records of a known format, and the sources of files that hold none (for
    ``sitegen import`` of a tool's output folder, which also holds inputs and raw exports)."""
    known = [
        record
        for record in records
        if registry.recognise(record.data) is not None or registry.is_result_file(record.data)
    ]
    skipped = sorted({record.source for record in records} - {record.source for record in known})
    return known, skipped


def _adapt(records: list[Document], select: Node | None = None) -> Adapted:
    problems: list[Problem] = []
    formats: dict[str, list[Document]] = {}
    chosen: registry.Format | None = None
    unknown: Document | None = None
    for record in records:
        data = record.data
        if registry.is_result_file(data):
            problems.append(
                Problem(
                    record.source,
                    record.line_of("/schema_version"),
                    "",
                    "this is already a sitegen result file: copy it into content/runs/ "
                    "instead of importing it",
                )
            )
            continue
        format_ = registry.recognise(data)
        if format_ is None:
            problems.append(
                Problem(
                    record.source,
                    record.line_of(""),
                    "",
                    "not a raw format sitegen can import; the formats it reads, and what tells "
                    "each apart, follow (docs/importing.md)",
                )
            )
            unknown = unknown or record
            continue
        formats.setdefault(format_.name, []).append(record)
        chosen = format_
    if unknown is not None:
        problems += [
            Problem(unknown.source, None, "", f"a format sitegen reads — {told}")
            for told in registry.formats_told_apart()
        ]
    if problems:
        raise SitegenError(problems)
    if len(formats) > 1:
        which = "; ".join(
            f"{name}: {', '.join(sorted({r.source for r in group}))}"
            for name, group in formats.items()
        )
        raise SitegenError(
            Problem(
                records[0].source,
                None,
                "",
                f"these files are of different tools ({which}); "
                "one run comes from one tool: import them separately",
            )
        )
    assert chosen is not None  # records is never empty: every caller reads at least one file
    if not chosen.sweep and len(records) > 1:
        sources = ", ".join(sorted({r.source for r in records}))
        raise SitegenError(
            Problem(
                records[0].source,
                None,
                "",
                f"a {chosen.name} holds a whole run, but there are "
                f"{len(records)} ({sources}): import each on its own",
            )
        )
    nodes = [Node.root(record) for record in records]
    if select is None:
        adapted = chosen.adapt(nodes)
    else:
        rows = _rows(nodes)
        kept = _selected(chosen, rows, select)
        adapted = chosen.adapt(kept)
        wanted = ", ".join(
            f"{key} = {yaml_words(value)}" for key, value in select.mapping().items()
        )
        adapted.notes.append(
            f"Only the rows with {wanted} were read (run.yaml select:): {len(kept)} of {len(rows)}."
        )
    if chosen.ttft_prompt_cache is not None:  # run.yaml may still say otherwise
        adapted.sections["run"].setdefault("ttft_prompt_cache", chosen.ttft_prompt_cache)
    return adapted


def _rows(records: list[Node]) -> list[Node]:
    """The rows of a row format's records: a JSON Lines file's lines, a JSON array's items."""
    return [
        row
        for record in records
        for row in (record.elements() if isinstance(record.value, list) else [record])
    ]


def _selected(chosen: registry.Format, rows: list[Node], select: Node) -> list[Node]:
    """The rows whose every field named in run.yaml's ``select:`` holds its value."""
    if not chosen.rows:
        raise select.error(
            f"select: picks the rows of one configuration from a file that mixes several "
            f"(llama-bench); a {chosen.name} is one configuration: leave select: out"
        )
    wanted = select.mapping()
    mappings = [row for row in rows if isinstance(row.value, dict)]
    kept = [
        row
        for row in mappings
        if all(_holds(row.value.get(key), value) for key, value in wanted.items())
    ]
    if not kept:
        found = "; ".join(
            f"{key}: {', '.join(sorted({yaml_words(row.value.get(key)) for row in mappings}))}"
            for key in wanted
        )
        raise select.error(
            f"no row of {rows[0].document.source} holds every value select: asks for; "
            f"the rows hold {found}"
        )
    return kept


def _holds(value: Any, wanted: Any) -> bool:
    """A row's value is the one asked for: equal (true is never 1), or the same text, as YAML
    may read a commit of digits as a number."""
    if isinstance(value, bool) or isinstance(wanted, bool):
        return value is wanted
    return bool(value == wanted or (value is not None and str(value) == str(wanted)))


def _check_meta(meta: Document) -> None:
    if not isinstance(meta.data, dict):
        raise SitegenError(
            Problem(
                meta.source,
                1,
                "",
                "expected a mapping with hardware:, engine:, run: (and source:) sections",
            )
        )
    # Checked as redacted, so that no message quotes a secret (a token in a field of the wrong
    # type); the caller keeps the document as it is, and redacts it later with notes.
    problems = check_schema(redact_document(meta)[0], "run-meta")
    if problems:
        raise SitegenError(problems)


# --- merge and check ------------------------------------------------------------------------


def _merge(adapted: Adapted, meta: Document | None, source: str) -> Document:
    given: dict[str, Any] = meta.data if meta is not None else {}
    contradictions = _contradictions(adapted, meta, given)
    data: dict[str, Any] = {"schema_version": LATEST_RESULT_VERSION}
    if "source" in given:
        data["source"] = given["source"]
    for section in SECTIONS:
        fields = dict(adapted.sections[section])
        override = given.get(section, {})
        if section == "hardware" and "accelerator" in override:
            # The raw file's vendor belongs to the raw file's accelerator name, not to this one.
            fields.pop("vendor", None)
        fields.update(override)
        data[section] = fields
    provenance: dict[str, Any] = {"method": "imported", "imported_from": adapted.imported_from}
    if adapted.notes:
        provenance["notes"] = list(adapted.notes)
    if adapted.tool_run:
        provenance["tool_run"] = dict(adapted.tool_run)
    data["provenance"] = provenance
    data["measurements"] = {"prefill": adapted.prefill, "decode": adapted.decode}
    if adapted.load_points:
        data["measurements"]["load_points"] = adapted.load_points
    document = Document(source, data, {})
    checked = redact_document(document)[0]  # what messages may quote: see _check_meta
    problems = check_result_schema(checked) + check_numbers(checked) + check_result_rules(checked)
    if problems or contradictions:
        located = {_locate(problem, adapted.origins, meta, given) for problem in problems}
        located.update(contradictions)
        raise SitegenError(
            sorted(located, key=lambda p: (p.source, p.line or 0, p.pointer, p.message))
        )
    return document


def _contradictions(
    adapted: Adapted, meta: Document | None, given: dict[str, Any]
) -> list[Problem]:
    """run.yaml values that contradict what the raw file itself records (a GPU, a build, a
    version)."""
    problems: list[Problem] = []
    if meta is None:
        return problems
    for pointer, fact in adapted.recorded.items():
        section, name = pointer.split("/")[1:3]
        value = given.get(section, {}).get(name) if isinstance(given.get(section), dict) else None
        if value is None or fact.agrees(value):
            continue
        where = fact.node.document
        line = where.line_of(fact.node.pointer)
        at = f"{where.source}:{line}" if line else where.source
        problems.append(
            Problem(
                meta.source,
                meta.line_of(pointer),
                pointer,
                f"{value!r} contradicts the raw file, which records {fact.shown} "
                f"({at}, {fact.node.pointer or 'its root'}); correct run.yaml, or leave "
                f"{section}.{name} out to use the recorded value",
            )
        )
    return problems


def _locate(
    problem: Problem, origins: dict[str, Origin], meta: Document | None, given: dict[str, Any]
) -> Problem:
    """Report a problem of the merged document in the file (and line) where it can be fixed."""
    pointer = problem.pointer
    tokens = pointer.split("/")[1:3]
    hint = "; the raw file does not tell it, so give it in run.yaml"
    if meta is not None and tokens and tokens[0] in given:
        # Sections and fields are the same in run.yaml and the result, so the pointer is too.
        if len(tokens) > 1 and tokens[1] in given[tokens[0]]:
            return Problem(meta.source, meta.line_of(pointer), pointer, problem.message)
        if len(tokens) == 1:
            # A problem of a whole section is a field missing from it (see _check_meta for the
            # rest).
            return Problem(meta.source, meta.line_of(pointer), pointer, problem.message + hint)
    prefix = pointer
    while prefix:
        origin = origins.get(prefix)
        if origin is not None:
            # The raw field's own name differs from the canonical one, so point at the raw value
            # (or, for a figure the adapter derived, at the raw record it came from).
            return Problem(
                origin.document.source,
                origin.document.line_of(origin.pointer),
                origin.pointer,
                f"{problem.message} (read into {pointer})",
            )
        prefix = prefix.rpartition("/")[0]
    if len(tokens) != 1 or tokens[0] not in SECTIONS:
        return problem  # about the run as a whole (e.g. too many cells): no file to point at
    # A field neither file gives: the raw format has no place for it, so run.yaml must.
    if meta is None:
        return Problem(
            problem.source,
            None,
            pointer,
            f"{problem.message}{hint} (sitegen import --meta run.yaml)",
        )
    return Problem(meta.source, meta.line_of(pointer), pointer, problem.message + hint)
