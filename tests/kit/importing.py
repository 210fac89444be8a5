"""`sitegen import` as the import tests run it: the real tools' sample files (tests/data/samples/),
a run.yaml written for the test, the command run in-process, and its result or refusal read back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sitegen.parse import parse_yaml
from tests.kit.project import REPO, run_cli

SAMPLES = REPO / "tests" / "data" / "samples"  # the real tools' output, sources in SOURCES.md
LLAMA = SAMPLES / "llama-bench"
# Figures are stored rounded to 6 decimals.
CLOSE = 2e-6


def close(expected: float) -> Any:
    return pytest.approx(expected, abs=CLOSE, rel=1e-9)


def write_meta(tmp_path: Path, text: str) -> Path:
    meta = tmp_path / "meta-run.yaml"
    meta.write_text(text, encoding="utf-8")
    return meta


def run_import(
    project: Path, paths: list[Path], meta: Path | None, run_id: str = "imported"
) -> int:
    args = ["import", *map(str, paths), "--id", run_id]
    if meta is not None:
        args += ["--meta", str(meta)]
    return run_cli(project, *args)


def imported(project: Path, run_id: str = "imported") -> dict[str, Any]:
    path = project / "content" / "runs" / f"{run_id}.yaml"
    data: dict[str, Any] = parse_yaml(str(path), path.read_bytes()).data
    return data


def refused(project: Path, capsys: pytest.CaptureFixture[str], run_id: str = "imported") -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.rstrip().splitlines()[-1].endswith("nothing was written")
    assert not (project / "content" / "runs" / f"{run_id}.yaml").exists()
    return err


def cells_by_context(data: dict[str, Any]) -> dict[tuple[int, int], dict[str, Any]]:
    return {(c["context_tokens"], c["concurrency"]): c for c in data["measurements"]["decode"]}


def load_json(path: Path) -> Any:
    # Python's json reads the bare Infinity SGLang writes.
    return json.loads(path.read_text(encoding="utf-8"))


def load_lines(path: Path) -> list[Any]:
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


# run.yaml of a llama-bench import, its hardware type and model filled in by the test.
LLAMA_META = """\
hardware:
  type: {type}
  count: 1
run:
  model: {model}
"""
