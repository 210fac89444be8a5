"""``sitegen import``: raw benchmark output → a canonical ``content/runs/<id>.yaml``.

The paths given are the files of one run: a file, several files, or folders (read at any
depth: a sweep keeps one sub-folder per point). Files given by name must be of a format
sitegen reads; in a folder, files that are not (a tool's inputs, per-request exports) are
skipped and listed, since tools write them beside their results.

Adapt (with run.yaml), redact secrets, validate, then write atomically; any problem stops
it before anything is written. An existing run is replaced only with ``force``, and never
when the id belongs to a different file or folder (collect would then see the id twice).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitegen.collect import validate_result
from sitegen.collect.adapters.raw import (
    META_NAME,
    adapt_records,
    read_meta,
    read_records,
    recognised,
    walk_raw_files,
    with_raw_files,
)
from sitegen.collect.local import RESULT_SUFFIXES, check_id, suggest_id
from sitegen.collect.redact import redact_document
from sitegen.collect.result_yaml import dump_result, schema_modeline
from sitegen.config import Config
from sitegen.errors import Problem, SitegenError
from sitegen.parse import Document
from sitegen.receipts import file_entry, recorded_name
from sitegen.store import write_atomic


@dataclass(frozen=True)
class ImportReport:
    run_id: str
    path: Path
    data: dict[str, Any]
    replaced: bool
    redacted: tuple[str, ...]
    # (file, why) for files of a folder that were not read as results
    skipped: tuple[tuple[str, str], ...] = ()

    def summary(self) -> str:
        """One line: how many points and cells of each status were written."""
        measurements = self.data["measurements"]
        statuses: dict[str, int] = {}
        for cell in measurements["decode"]:
            statuses[cell["status"]] = statuses.get(cell["status"], 0) + 1
        parts = ", ".join(
            f"{count} {status.replace('_', ' ')}" for status, count in sorted(statuses.items())
        )
        cells = len(measurements["decode"])
        loads = len(measurements.get("load_points", ()))
        return (
            f"{len(measurements['prefill'])} prefill points, {cells} decode "
            f"cell{'s' if cells != 1 else ''}"
            + (f" ({parts})" if parts else "")
            + (f", {loads} load point{'s' if loads != 1 else ''}" if loads else "")
        )


def default_id(data: dict[str, Any]) -> str:
    """``<accelerator><count>-<engine>-<model>``, e.g.
    ``h200nvl2-sglang-deepseek-v4-flash-dspark``."""
    hardware, engine, run = data["hardware"], data["engine"], data["run"]
    accelerator = re.sub(r"[^a-z0-9]+", "", str(hardware["accelerator"]).lower())
    count = int(hardware["count"])
    if count > 1:
        # "b200x2", but "h200nvl2": an x keeps a trailing model number apart from the count.
        accelerator += f"x{count}" if accelerator[-1:].isdigit() else str(count)
    # The model's own name, without the publisher: "deepseek-ai/DeepSeek-V4-Flash" →
    # "deepseek-v4-flash".
    model = str(run["model"]).rstrip("/").rsplit("/", 1)[-1]
    parts = (accelerator, suggest_id(str(engine["name"])), suggest_id(model))
    return suggest_id("-".join(part for part in parts if part))


def load_raw(
    paths: list[Path], meta_path: Path | None, project_root: Path | None = None
) -> tuple[Document, tuple[tuple[str, str], ...]]:
    """Adapt the raw files of one run, and the files of its folders that were skipped.

    A single folder's own run.yaml is used unless ``meta_path`` names another. Every file read
    is listed with its digest in ``provenance.raw_files`` (named by receipts.recorded_name).
    """
    root = project_root or Path.cwd()
    read_files: dict[str, Path] = {}  # what each record's source names, for the receipt
    records: list[Document] = []
    skipped: list[tuple[str, str]] = []
    problems: list[Problem] = []
    for path in paths:
        display = str(path)
        if path.is_dir():
            if meta_path is None and len(paths) == 1 and (path / META_NAME).is_file():
                meta_path = path / META_NAME
            found = walk_raw_files(path, display)
            read: list[Document] = []
            for file, shown in found:
                read_files[shown] = file
                try:
                    read += read_records(
                        file.resolve(), shown
                    )  # paths the user chose: links followed once
                except SitegenError as error:
                    # A tool's folder holds other files (huge per-request exports, inputs): say why,
                    # go on.
                    skipped.append((shown, f"not read ({error.problems[0].message})"))
            known, unknown = recognised(read)
            records += known
            skipped += [(shown, "not a benchmark result sitegen reads") for shown in unknown]
            if not known:
                problems.append(
                    Problem(
                        display,
                        None,
                        "",
                        "holds no benchmark result sitegen reads "
                        f"({len(found)} file{'s' if len(found) != 1 else ''} looked at); "
                        "see docs/importing.md for the formats",
                    )
                )
        elif path.is_file():
            read_files[display] = path
            records += read_records(path.resolve(), display)
        else:
            problems.append(Problem(display, None, "", "not found"))
    if problems:
        raise SitegenError(problems)
    meta = None
    if meta_path is not None:
        if not meta_path.is_file():
            raise SitegenError(Problem(str(meta_path), None, "", "not found"))
        meta = read_meta(meta_path.resolve(), str(meta_path))
    source = str(paths[0]) if len(paths) == 1 else f"{paths[0]} (and {len(paths) - 1} more)"
    document = adapt_records(records, meta, source)
    used = [
        (read_files[shown], _given_root(read_files[shown], paths))
        for shown in sorted({r.source for r in records})
    ]
    if meta_path is not None:
        used.append((meta_path, meta_path.parent))
    digests = [
        file_entry(recorded_name(path, root, given), path.resolve().read_bytes())
        for path, given in used
    ]
    return with_raw_files(document, digests), tuple(sorted(skipped))


def _given_root(path: Path, given: list[Path]) -> Path:
    """The folder on the command line a raw file was found in (its own folder if named itself)."""
    for folder in given:
        if folder.is_dir() and folder.resolve() in path.resolve().parents:
            return folder
    return path.parent


def import_run(
    config: Config,
    paths: list[Path],
    *,
    meta_path: Path | None = None,
    run_id: str | None = None,
    force: bool = False,
) -> ImportReport:
    """Write ``content/runs/<id>.yaml`` from raw output; raise SitegenError (writing nothing) on
    any problem."""
    document, skipped = load_raw(paths, meta_path, config.root)
    document, redacted = redact_document(document)
    problems = validate_result(document)
    if problems:
        raise SitegenError(problems)
    run_id = run_id or default_id(document.data)
    problem = check_id(run_id, "--id")
    if problem:
        raise SitegenError(problem)
    target = config.runs_dir / f"{run_id}.yaml"
    replaced = _check_target(config, run_id, target, force)
    content = dump_result(
        document.data, config.display(target), schema_modeline(config, target, document.data)
    )
    try:
        write_atomic(target, content)
    except OSError as exc:
        raise SitegenError(
            Problem(config.display(target), None, "", f"cannot write: {exc.strerror}")
        ) from None
    return ImportReport(run_id, target, document.data, replaced, tuple(redacted), skipped)


def _check_target(config: Config, run_id: str, target: Path, force: bool) -> bool:
    """Whether ``target`` will be replaced; refuse ids another file or folder already uses."""
    others = [
        config.runs_dir / f"{run_id}{suffix}" for suffix in RESULT_SUFFIXES if suffix != ".yaml"
    ]
    others.append(config.runs_dir / run_id)
    for other in others:
        if other.exists():
            kind = "a raw-output folder" if other.is_dir() else "a result file"
            raise SitegenError(
                Problem(
                    config.display(other),
                    None,
                    "",
                    f"{kind} already has the run id {run_id!r}; "
                    "import with another --id (or remove it first)",
                )
            )
    if target.exists():
        if not force:
            raise SitegenError(
                Problem(
                    config.display(target),
                    None,
                    "",
                    "already exists; pass --force to replace it, or --id to import as another run",
                )
            )
        return True
    return False
