"""``sitegen verify``: every figure traced back to the bytes it came from (sitegen/receipts.py).

For each run of ``content/runs/`` (or those named):

1. **Raw files.** A result file's ``provenance.raw_files`` are looked for in the project's
   folder and in each ``--raw`` folder; when all are at hand, each one's SHA-256 is checked
   against the receipt, and the run is imported from them again and compared, field by field
   and cell by cell, with the result file. A raw-output folder is imported as collect does.
2. **The published site** (the project's output folder, or ``--site`` folder or URL): each
   run's ``runs/<id>.json`` must name the result file it was made from by its digest (or
   list the raw files' digests), and hold the same figures.

Every difference is a Problem located in the result file (line and JSON pointer) with both
values; nothing is written.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sitegen.collect import check_entry, validate_result
from sitegen.collect.adapters import registry
from sitegen.collect.adapters.raw import RAW_MAX_BYTES, parse_records
from sitegen.collect.local import RESULT_SUFFIXES, Entry, discover
from sitegen.collect.redact import redact_document
from sitegen.config import Config
from sitegen.errors import Problem, SitegenError
from sitegen.files import read_bounded
from sitegen.measurement_rows import (
    RUN_JSON_VERSION_KEY,
    published_measurements,
    result_document,
)
from sitegen.parse import Document, parse_document, pointer_join
from sitegen.receipts import RECEIPT_KEY
from sitegen.record_decorator import record

# What verify does not compare as figures: the receipt itself, and the raw files' names, which
# depend on where they were found (their digests are checked one by one).
_NOT_FIGURES = {f"/{RECEIPT_KEY}", "/provenance/raw_files"}
# A published run JSON is a result file and its receipt; a site serves nothing larger.
MAX_RUN_JSON_BYTES = 64 * 1024 * 1024
_META_SECTIONS = {"hardware", "engine", "run", "source", "select"}


@record
class VerifyReport:
    """What verify found: problems (each a difference or a file that cannot be checked) and
    notes (what could not be checked, and why)."""

    checked: list[str]
    problems: list[Problem]
    notes: list[str]


@record
class _Local:
    """A run as the project holds it: its entry, its document (lines kept), its file's bytes."""

    entry: Entry
    source: str
    document: Document  # redacted, with the receipt collect would add
    file_bytes: bytes | None  # a result file's bytes (None for a raw-output folder)


def verify(
    config: Config, run_ids: list[str], raw_dirs: list[Path], site: str | None = None
) -> VerifyReport:
    """Check the named runs (all when none is named) against their raw files and the site."""
    entries, problems = discover(config.runs_dir, config.content_dir, config.display)
    chosen = _chosen(entries, run_ids, problems)
    report = VerifyReport([], list(problems), [])
    reader = _site_reader(config, site, report)
    for entry in chosen:
        local = _load(config, entry, report)
        if local is None:
            continue
        report.checked.append(entry.id)
        if entry.kind == "result":
            _check_raw_files(config, local, raw_dirs, report)
        if reader is not None:
            _check_published(local, reader, report)
    if reader is not None and not run_ids:
        report.problems.extend(_published_elsewhere(reader, {entry.id for entry in entries}))
    return report


def _published_elsewhere(reader: _SiteReader, local_ids: set[str]) -> list[Problem]:
    """Runs the site publishes that content/runs/ does not hold: no file stands behind them."""
    where, ids = reader.published_ids()
    return [
        Problem(where, None, "", f"publishes the run {run_id!r}, which content/runs/ does not hold")
        for run_id in sorted(set(ids) - local_ids)
    ]


def run_id_of(name: str) -> str:
    """A run id as given, or the id of a run's file or folder (content/runs/x.yaml → x)."""
    if "/" not in name and not name.endswith(RESULT_SUFFIXES):
        return name
    path = Path(name.rstrip("/"))
    return path.stem if path.suffix in RESULT_SUFFIXES else path.name


def _chosen(entries: list[Entry], run_ids: list[str], problems: list[Problem]) -> list[Entry]:
    if not run_ids:
        return entries
    known = {entry.id: entry for entry in entries}
    for run_id in run_ids:
        if run_id not in known:
            problems.append(
                Problem(
                    run_id,
                    None,
                    "",
                    "no such run in content/runs/ (give run ids, e.g. "
                    f"{next(iter(known), 'h100x2-vllm-llama33-70b')})",
                )
            )
    return [known[run_id] for run_id in dict.fromkeys(run_ids) if run_id in known]


def _load(config: Config, entry: Entry, report: VerifyReport) -> _Local | None:
    """The run as collect would keep it, with line numbers for a result file."""
    source = f"{config.display(config.runs_dir)}/{entry.name}"
    checked = check_entry(entry, source)
    if checked.canonical is None:
        report.problems.extend(checked.problems)
        return None
    data = checked.data()
    if entry.kind == "raw":
        return _Local(entry, source, Document(source, data, {}), None)
    file_bytes = read_bounded(entry.readable_path, RAW_MAX_BYTES, source)
    lines = parse_document(source, file_bytes).lines
    return _Local(entry, source, Document(source, data, lines), file_bytes)


# --- raw files -------------------------------------------------------------------------------


def _check_raw_files(
    config: Config, local: _Local, raw_dirs: list[Path], report: VerifyReport
) -> None:
    listed = local.document.data.get("provenance", {}).get("raw_files", [])
    if not listed:
        return
    found = [_find(config, item["file"], raw_dirs) for item in listed]
    if any(path is None for path in found):
        missing = ", ".join(
            item["file"] for item, path in zip(listed, found, strict=True) if path is None
        )
        report.notes.append(
            f"{local.source}: raw files not at hand ({missing}): not re-imported; "
            "give the folder that holds them with --raw FOLDER"
        )
        return
    paths = [path for path in found if path is not None]
    digests_agree = True
    for index, (item, path) in enumerate(zip(listed, paths, strict=True)):
        problem = _digest_problem(config, local, index, item, path)
        if problem is not None:
            report.problems.append(problem)
            digests_agree = False
    _compare_reimport(config, local, paths, report, digests_agree)


def _find(config: Config, name: str, raw_dirs: list[Path]) -> Path | None:
    """Where a raw file the receipt names is: in the project's folder, or in a --raw folder
    (by the name the receipt gives, or by the file's own name there)."""
    if name.startswith("/") or ".." in Path(name).parts:
        return None  # a receipt names files below a folder, never elsewhere
    places = [config.root / name]
    places += [place for folder in raw_dirs for place in (folder / name, folder / Path(name).name)]
    return next((place for place in places if place.is_file()), None)


def _digest_problem(
    config: Config, local: _Local, index: int, item: dict[str, Any], path: Path
) -> Problem | None:
    data = read_bounded(path, RAW_MAX_BYTES, str(path), "raw tool output")
    digest = hashlib.sha256(data).hexdigest()
    if digest == item["sha256"]:
        return None
    pointer = f"/provenance/raw_files/{index}/sha256"
    at = _at(local, pointer)
    return Problem(
        _shown(config, path),
        None,
        "",
        f"sha256 {digest} differs from the receipt's {item['sha256']} "
        f"({at}): the file changed since it was imported",
    )


def _compare_reimport(
    config: Config, local: _Local, paths: list[Path], report: VerifyReport, digests_agree: bool
) -> None:
    from sitegen.collect.importer import load_raw

    raw, meta = _split_meta(paths)
    try:
        document, _ = load_raw(raw, meta, config.root)
    except SitegenError as error:
        report.problems.extend(error.problems)
        return
    document = redact_document(document)[0]
    found = validate_result(document)
    if found:
        report.problems.extend(found)
        return
    differences = list(_differences(local, document.data, "the raw files give"))
    report.problems.extend(differences)
    if digests_agree and not differences:
        report.notes.append(
            f"{local.source}: {len(paths)} raw file{'s' if len(paths) != 1 else ''} match the "
            "receipt and give every figure of the file"
        )


def _split_meta(paths: list[Path]) -> tuple[list[Path], Path | None]:
    """The raw files and the run.yaml among the files a receipt lists (run.yaml is the one that
    is of no raw format and holds only a result file's sections)."""
    raw: list[Path] = []
    meta: Path | None = None
    for path in paths:
        records = parse_records(
            str(path), read_bounded(path, RAW_MAX_BYTES, str(path), "raw tool output")
        )
        data = records[0].data if len(records) == 1 else None
        if (
            isinstance(data, dict)
            and registry.recognise(data) is None
            and set(data) <= _META_SECTIONS
        ):
            meta = path
        else:
            raw.append(path)
    return raw, meta


# --- comparing figures -----------------------------------------------------------------------


def _differences(
    local: _Local, other: dict[str, Any], other_says: str, expected: dict[str, Any] | None = None
) -> Iterator[Problem]:
    """Every field in which ``other`` differs from the run's document (or ``expected``, the
    document as ``other`` should hold it), located in its file."""
    document = local.document.data if expected is None else expected
    for pointer, mine, theirs in _diff(document, other, ""):
        where = _cell_words(local.document.data, pointer)
        yield Problem(
            local.source,
            local.document.line_of(pointer) if local.file_bytes else None,
            pointer,
            f"{where}the file says {_value(mine)}, {other_says} {_value(theirs)}",
        )


def _diff(mine: Any, theirs: Any, pointer: str) -> Iterator[tuple[str, Any, Any]]:
    if pointer in _NOT_FIGURES:
        return
    if isinstance(mine, dict) and isinstance(theirs, dict):
        for key in sorted(set(mine) | set(theirs)):
            yield from _diff(
                mine.get(key, _MISSING), theirs.get(key, _MISSING), pointer_join(pointer, key)
            )
    elif (
        isinstance(mine, list) and isinstance(theirs, list) and pointer.startswith("/measurements/")
    ):
        yield from _diff_cells(mine, theirs, pointer)
    elif isinstance(mine, list) and isinstance(theirs, list) and len(mine) == len(theirs):
        for index, (a, b) in enumerate(zip(mine, theirs, strict=True)):
            yield from _diff(a, b, pointer_join(pointer, index))
    elif mine != theirs or (type(mine) is not type(theirs) and not _same_number(mine, theirs)):
        yield pointer, mine, theirs


def _diff_cells(mine: list[Any], theirs: list[Any], pointer: str) -> Iterator[tuple[str, Any, Any]]:
    """Cells matched by what they measure (context, requests, output length, prompt chunk)."""
    others = {_cell_key(cell): cell for cell in theirs}
    for index, cell in enumerate(mine):
        other = others.pop(_cell_key(cell), _MISSING)
        yield from _diff(cell, other, pointer_join(pointer, index))
    for key in sorted(others, key=str):
        yield pointer_join(pointer, "-"), _MISSING, others[key]


def _cell_key(cell: Any) -> tuple[Any, ...]:
    if not isinstance(cell, dict):
        return (json.dumps(cell, sort_keys=True),)
    return tuple(
        cell.get(name)
        for name in (
            "context_tokens",
            "concurrency",
            "output_tokens_per_request",
            "prompt_chunk_tokens",
        )
    )


def _same_number(a: Any, b: Any) -> bool:
    return (
        isinstance(a, int | float)
        and isinstance(b, int | float)
        and not isinstance(a, bool)
        and a == b
    )


class _Missing:
    def __repr__(self) -> str:
        return "nothing"


_MISSING: Any = _Missing()


def _value(value: Any) -> str:
    if value is _MISSING:
        return "nothing"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 200 else text[:200] + "…"


def _cell_words(data: dict[str, Any], pointer: str) -> str:
    """'decode cell 32768 × 16: ' for a pointer into a cell, so a reader sees which one."""
    parts = pointer.split("/")
    if len(parts) < 4 or parts[1] != "measurements" or not parts[3].isdigit():
        return ""
    cell = data["measurements"][parts[2]][int(parts[3])]
    if parts[2] == "decode":
        return f"decode cell {cell['context_tokens']} × {cell['concurrency']}: "
    return f"prefill point {cell['context_tokens']}: "


def _at(local: _Local, pointer: str) -> str:
    line = local.document.line_of(pointer)
    return f"{local.source}:{line}" if line else local.source


def _shown(config: Config, path: Path) -> str:
    return config.display(path)


# --- the published site ----------------------------------------------------------------------


@record
class _SiteReader:
    """Reads a published run's JSON from a site folder or a site's address."""

    where: str
    folder: Path | None
    client: Any = None  # an httpx.Client for an address

    def run_json(self, run_id: str) -> tuple[str, bytes | None]:
        name = f"runs/{run_id}.json"
        if self.folder is not None:
            path = self.folder / name
            shown = f"{self.where.rstrip('/')}/{name}"
            return shown, read_bounded(path, MAX_RUN_JSON_BYTES, shown) if path.is_file() else None
        url = self.where.rstrip("/") + "/" + name
        return url, _download(self.client, url)

    def published_ids(self) -> tuple[str, list[str]]:
        """Where the site lists its runs, and their ids (a folder's runs/*.json, or an
        address's data/runs.json, the index the site's own pages read)."""
        if self.folder is not None:
            return f"{self.where.rstrip('/')}/runs/", [
                p.stem for p in (self.folder / "runs").glob("*.json")
            ]
        url = self.where.rstrip("/") + "/data/runs.json"
        body = _download(self.client, url)
        try:
            listing = json.loads(body or b"null")
            at = listing["fields"].index("id")
            return url, [str(row[at]) for row in listing["runs"]]
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            raise SitegenError(
                Problem(url, None, "", "not a sitegen run list (data/runs.json)")
            ) from None


def _site_reader(config: Config, site: str | None, report: VerifyReport) -> _SiteReader | None:
    if site is None:
        if not (config.output_dir / "runs").is_dir():
            report.notes.append(
                f"{config.display(config.output_dir)}/ holds no built site: published JSON not "
                "checked (run sitegen build, or give --site)"
            )
            return None
        return _SiteReader(config.display(config.output_dir), config.output_dir)
    if site.startswith(("http://", "https://")):
        import httpx

        return _SiteReader(
            site, None, httpx.Client(timeout=httpx.Timeout(10.0), follow_redirects=False)
        )
    folder = Path(site)
    if not folder.is_dir():
        raise SitegenError(Problem(site, None, "", "not a folder or an http(s) address of a site"))
    return _SiteReader(site, folder)


def _download(client: Any, url: str) -> bytes | None:
    """A published file's bytes (None when the site has no such file); bounded in size and time."""
    import httpx

    try:
        with client.stream("GET", url) as response:
            if response.status_code == 404:
                return None
            if response.status_code != 200:
                raise SitegenError(Problem(url, None, "", f"HTTP {response.status_code}"))
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_RUN_JSON_BYTES:
                    raise SitegenError(Problem(url, None, "", f"over {MAX_RUN_JSON_BYTES:,} bytes"))
            return bytes(body)
    except httpx.HTTPError as exc:
        raise SitegenError(Problem(url, None, "", f"cannot fetch: {exc}")) from None


def _check_published(local: _Local, reader: _SiteReader, report: VerifyReport) -> None:
    where, body = reader.run_json(local.entry.id)
    if body is None:
        report.problems.append(
            Problem(
                where,
                None,
                "",
                f"not published: the site has no JSON of the run "
                f"{local.entry.id!r} (rebuild or republish the site)",
            )
        )
        return
    try:
        published = json.loads(body)
    except ValueError as exc:
        report.problems.append(Problem(where, None, "", f"not JSON ({exc})"))
        return
    if not isinstance(published, dict):
        report.problems.append(Problem(where, None, "", "not a run JSON"))
        return
    try:  # its measurements' rows read back to the result file's records
        published = result_document(published)
    except ValueError as exc:
        report.problems.append(Problem(where, None, f"/{RUN_JSON_VERSION_KEY}", str(exc)))
        return
    report.problems.extend(_published_receipt_problems(local, published, where))
    # The site publishes each figure at its published precision (measurement_rows).
    expected = published_measurements(local.document.data)
    report.problems.extend(_differences(local, published, f"{where} says", expected))


def _published_receipt_problems(
    local: _Local, published: dict[str, Any], where: str
) -> list[Problem]:
    """The published JSON must name the very files the project holds, by digest."""
    named = (published.get(RECEIPT_KEY) or {}).get("result_file") or {}
    if local.file_bytes is not None:
        digest = hashlib.sha256(local.file_bytes).hexdigest()
        if named.get("sha256") != digest:
            return [
                Problem(
                    local.source,
                    None,
                    "",
                    f"sha256 {digest} is not the one {where} names "
                    f"({named.get('sha256') or 'none'}): the site was built from another "
                    "version of the file; rebuild it, or the file was changed since",
                )
            ]
        return []
    mine = {
        item["file"]: item["sha256"]
        for item in local.document.data["provenance"].get("raw_files", [])
    }
    theirs = {
        item.get("file"): item.get("sha256")
        for item in (published.get("provenance") or {}).get("raw_files", [])
        if isinstance(item, dict)
    }
    return [
        Problem(
            f"{local.source}/{name}",
            None,
            "",
            f"sha256 {digest} is not the one {where} names "
            f"({theirs.get(name) or 'none'}): the file changed since the site was built",
        )
        for name, digest in sorted(mine.items())
        if theirs.get(name) != digest
    ]
