"""A run's receipt: the SHA-256 of every file its figures were read from, and how to run it again.

Two kinds of file stand behind a run. Its **result file** (``content/runs/<id>.yaml``) is
hashed by collect, which records name and digest in the collected run under ``receipt`` (a key
the site adds, never one a contributor writes). Its **raw files** (tool output and run.yaml)
are listed with their digests in ``provenance.raw_files``: written by ``sitegen import``, and
worked out by collect for a raw-output folder ``content/runs/<id>/``. The run page and
``/runs/<id>.json`` show both, with the sitegen and schema versions; ``sitegen verify``
(sitegen/verify.py) reads the files again and checks them against it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from sitegen import __version__
from sitegen.record_decorator import record

RECEIPT_KEY = "receipt"  # the collected result's (and the run JSON's) member the site adds


def file_entry(name: str, data: bytes) -> dict[str, Any]:
    """One file of ``provenance.raw_files``: its name, the SHA-256 of its bytes and their count."""
    return {"file": name, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}


def result_file_receipt(name: str, data: bytes) -> dict[str, Any]:
    """The collected result's ``receipt``: which result file it was read from, by digest."""
    return {
        "result_file": {
            "file": name,
            "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data),
        }
    }


def recorded_name(path: Path, project_root: Path, given_root: Path) -> str:
    """How ``sitegen import`` names a raw file it read: from the project's folder when the file
    is inside it (so ``sitegen verify`` finds it there), else from the folder given on the
    command line (a file given by name: its name alone), so no local path is published."""
    real = path.resolve()
    for root in (project_root.resolve(), given_root.resolve()):
        if real == root:
            return real.name
        if root in real.parents:
            return real.relative_to(root).as_posix()
    return real.name


@record
class Receipt:
    """What the run page's "Reproduce this run" block and the run JSON show."""

    result_file: dict[str, Any] | None
    raw_files: tuple[dict[str, Any], ...]
    benchmark_tool: str | None
    benchmark_tool_version: str | None
    launch_command: str | None
    benchmark_command: str | None
    container_image: str | None
    container_image_digest: str | None
    schema_version: str
    sitegen_version: str

    def as_json(self) -> dict[str, Any]:
        """The run JSON's ``receipt`` member: what the document itself does not hold (its tool,
        commands, image and raw files are in its own sections)."""
        members = {
            "result_file": self.result_file,
            "schema_version": self.schema_version,
            "sitegen_version": self.sitegen_version,
        }
        return {key: value for key, value in members.items() if value is not None}


def receipt_of(document: dict[str, Any]) -> Receipt:
    """The receipt of a collected result document (``Run.raw``)."""
    engine, run = document.get("engine", {}), document.get("run", {})
    provenance = document.get("provenance", {})
    added = document.get(RECEIPT_KEY) or {}
    return Receipt(
        added.get("result_file"),
        tuple(provenance.get("raw_files", ())),
        run.get("benchmark_tool"),
        run.get("benchmark_tool_version"),
        engine.get("launch_command"),
        run.get("benchmark_command"),
        engine.get("container_image"),
        engine.get("container_image_digest"),
        str(document.get("schema_version", "1")),
        __version__,
    )
