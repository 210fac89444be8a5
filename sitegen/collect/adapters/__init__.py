"""Adapters turn foreign formats into canonical result documents before validation,
so that the schema stays the single contract. One module per foreign format:

* :mod:`.llm_inference_bench` — ``benchmark_results.json`` of llm-inference-bench;
* :mod:`.lil_bench` — lil-bench result documents (which embed the former).

Raw output never says everything (hardware type, the published model id, the engine
version…), so it comes with a run.yaml holding ``hardware``/``engine``/``run`` (and
``source``) fields like a result file's; a field given there wins over the raw file.

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

from sitegen.collect.adapters import lil_bench, llm_inference_bench
from sitegen.collect.adapters._foreign import SECTIONS, Adapted, Origin
from sitegen.errors import Problem, SitegenError
from sitegen.parse import Document, parse_json, parse_yaml
from sitegen.validate import LATEST_RESULT_VERSION, check_numbers, check_result_rules, check_result_schema, check_schema

META_NAME = "run.yaml"
# Raw output keeps request samples and telemetry, so it may be much larger than a result file.
RAW_MAX_BYTES = 64 * 1024 * 1024
RAW_SUFFIXES = (".json", ".json.gz")
# Files a folder may hold beside the run: notes for people, never read.
_IGNORED_SUFFIXES = (".md", ".txt", ".rst", ".log")
_GZIP_MAGIC = b"\x1f\x8b"


def adapt_raw(results: Document, meta: Document | None, source: str) -> Document:
    """A raw tool output document (plus its run.yaml metadata) as a canonical result document.

    ``source`` names the run (a folder, a URL) for problems that belong to neither file.
    Raises SitegenError listing every problem; the returned document passed the same checks
    as a result file (before redaction, which the caller does).
    """
    adapted = _adapt(results)
    if meta is not None:
        _check_meta(meta)
    return _merge(adapted, meta, source)


def adapt_folder(folder: Path, source: str) -> Document:
    """A raw-output folder (``content/runs/<id>/``) as a canonical result document.

    The folder holds ``run.yaml`` and exactly one raw file: ``benchmark_results.json``, or a
    lil-bench document (``<run id>.json.gz`` or ``.json``). Which format it is follows from
    its content, not its name.
    """
    _refuse_links(folder, source)
    raw_path = find_raw_file(folder, source)
    meta_path = folder / META_NAME
    if not meta_path.is_file():
        raise SitegenError(Problem(source, None, "", f"no {META_NAME}: a raw-output folder needs one with at least "
                                   "hardware: type: (see docs/importing.md)"))
    results = read_raw_file(raw_path, f"{source}/{raw_path.name}")
    meta = read_meta(meta_path, f"{source}/{META_NAME}")
    return adapt_raw(results, meta, source)


def _refuse_links(folder: Path, source: str) -> None:
    """A folder in content/ comes from a pull request: a link in it could make collect read
    (and publish) any file of the machine that builds the site, or block on a device."""
    try:
        children = sorted(folder.iterdir())
    except OSError as exc:
        raise SitegenError(Problem(source, None, "", f"cannot read the folder: {exc.strerror}")) from None
    problems = [Problem(f"{source}/{path.name}", None, "", "is a link; copy the file in instead")
                for path in children if path.is_symlink()]
    problems += [Problem(f"{source}/{path.name}", None, "", "is not a plain file or folder (a device, pipe or socket)")
                 for path in children if not path.is_symlink() and not path.is_file() and not path.is_dir()]
    if problems:
        raise SitegenError(problems)


def find_raw_file(folder: Path, source: str) -> Path:
    """The one raw file of a raw-output folder; anything unexpected there is a problem."""
    raw: list[Path] = []
    problems: list[Problem] = []
    try:
        children = sorted(folder.iterdir())
    except OSError as exc:
        raise SitegenError(Problem(source, None, "", f"cannot read the folder: {exc.strerror}")) from None
    for path in children:
        name = path.name
        if name.startswith(".") or name == META_NAME or name.endswith(_IGNORED_SUFFIXES):
            continue
        if path.is_file() and name.endswith(RAW_SUFFIXES):
            raw.append(path)
        else:
            problems.append(Problem(f"{source}/{name}", None, "", f"unexpected in a raw-output folder, which holds "
                                    f"{META_NAME} and one raw file ({' or '.join(RAW_SUFFIXES)})"))
    if not raw and not problems:
        problems.append(Problem(source, None, "", "no raw file: put benchmark_results.json (or a lil-bench "
                                "result .json.gz) beside run.yaml"))
    if len(raw) > 1:
        names = ", ".join(p.name for p in raw)
        problems.append(Problem(source, None, "", f"more than one raw file ({names}); a folder holds one run"))
    if problems:
        raise SitegenError(problems)
    return raw[0]


def read_raw_file(path: Path, source: str) -> Document:
    try:
        if path.stat().st_size > RAW_MAX_BYTES:
            raise SitegenError(Problem(source, None, "", f"file is over the {RAW_MAX_BYTES:,}-byte limit"))
        raw = path.read_bytes()
    except OSError as exc:
        raise SitegenError(Problem(source, None, "", f"cannot read: {exc.strerror}")) from None
    return parse_raw(source, raw)


def parse_raw(source: str, raw: bytes) -> Document:
    """Parse raw tool output: JSON, gzip-compressed or not (lil-bench saves ``.json.gz``)."""
    if raw.startswith(_GZIP_MAGIC):
        raw = _gunzip(source, raw)
    return parse_json(source, raw, max_bytes=RAW_MAX_BYTES)


def _gunzip(source: str, raw: bytes) -> bytes:
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as stream:
            # Read one byte past the limit instead of trusting the header: a small file may inflate to gigabytes.
            data = stream.read(RAW_MAX_BYTES + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise SitegenError(Problem(source, None, "", f"not a readable gzip file ({exc})")) from None
    if len(data) > RAW_MAX_BYTES:
        raise SitegenError(Problem(source, None, "", f"decompresses to over the {RAW_MAX_BYTES:,}-byte limit"))
    return data


def read_meta(path: Path, source: str) -> Document:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SitegenError(Problem(source, None, "", f"cannot read: {exc.strerror}")) from None
    return parse_yaml(source, raw)


def _adapt(results: Document) -> Adapted:
    data = results.data
    if isinstance(data, dict) and "schema_version" in data:
        raise SitegenError(Problem(results.source, results.line_of("/schema_version"), "",
                                   "this is already a sitegen result file: copy it into content/runs/ "
                                   "instead of importing it"))
    if lil_bench.looks_like(data):
        return lil_bench.adapt(results)
    if llm_inference_bench.looks_like(data):
        return llm_inference_bench.adapt(results)
    raise SitegenError(Problem(results.source, results.line_of(""), "",
                               "not a raw format sitegen can import: expected an llm-inference-bench "
                               "benchmark_results.json (with 'metadata') or a lil-bench result document "
                               f"(with schema: {lil_bench.SCHEMA!r})"))


def _check_meta(meta: Document) -> None:
    if not isinstance(meta.data, dict):
        raise SitegenError(Problem(meta.source, 1, "", "expected a mapping with hardware:, engine:, run: "
                                   "(and source:) sections"))
    problems = check_schema(meta, "run-meta")
    if problems:
        raise SitegenError(problems)


# --- merge and check ------------------------------------------------------------------------


def _merge(adapted: Adapted, meta: Document | None, source: str) -> Document:
    given: dict[str, Any] = meta.data if meta is not None else {}
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
    data["provenance"] = provenance
    data["measurements"] = {"prefill": adapted.prefill, "decode": adapted.decode}
    document = Document(source, data, {})
    problems = check_result_schema(document) + check_numbers(document) + check_result_rules(document)
    if problems:
        located = {_locate(problem, adapted.origins, meta, given) for problem in problems}
        raise SitegenError(sorted(located, key=lambda p: (p.source, p.line or 0, p.pointer, p.message)))
    return document


def _locate(problem: Problem, origins: dict[str, Origin], meta: Document | None, given: dict[str, Any]) -> Problem:
    """Report a problem of the merged document in the file (and line) where it can be fixed."""
    pointer = problem.pointer
    tokens = pointer.split("/")[1:3]
    hint = "; the raw file does not tell it, so give it in run.yaml"
    if meta is not None and tokens and tokens[0] in given:
        # Sections and fields are the same in run.yaml and the result, so the pointer is too.
        if len(tokens) > 1 and tokens[1] in given[tokens[0]]:
            return Problem(meta.source, meta.line_of(pointer), pointer, problem.message)
        if len(tokens) == 1:
            # A problem of a whole section is a field missing from it (see _check_meta for the rest).
            return Problem(meta.source, meta.line_of(pointer), pointer, problem.message + hint)
    prefix = pointer
    while prefix:
        origin = origins.get(prefix)
        if origin is not None:
            # The raw field's own name differs from the canonical one, so point at the raw value
            # (or, for a figure the adapter derived, at the raw record it came from).
            return Problem(origin.document.source, origin.document.line_of(origin.pointer), origin.pointer,
                           f"{problem.message} (read into {pointer})")
        prefix = prefix.rpartition("/")[0]
    if len(tokens) != 1 or tokens[0] not in SECTIONS:
        return problem  # about the run as a whole (e.g. too many cells): no file to point at
    # A field neither file gives: the raw format has no place for it, so run.yaml must.
    if meta is None:
        return Problem(problem.source, None, pointer, f"{problem.message}{hint} (sitegen import --meta run.yaml)")
    return Problem(meta.source, meta.line_of(pointer), pointer, problem.message + hint)
