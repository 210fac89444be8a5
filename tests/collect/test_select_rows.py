"""run.yaml's ``select:`` (docs/importing.md#llamacpp-llama-bench): one configuration's rows of a
llama-bench file that mixes several, read as the same run as the rows split out by hand.

The file is the real Strix Halo history's third version (tests/data/history/strixhalo-…/,
SOURCES.md there): ROCm and Vulkan, AMDVLK and RADV, two builds, flash attention off and on.
Its ``_split/`` files are the rows split out with jq when it was shipped, so they are an
independent reading of which rows one configuration is."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.kit.importing import imported, refused, run_import, write_meta
from tests.kit.project import DATA, run_cli

HISTORY = DATA / "history" / "strixhalo-8060s-llamacpp-llama2-7b-q4_0-pp-tg-sweep"
MIXED = HISTORY / "2025-08-08_b6077-b6111__raw_runs.jsonl"
SPLIT = HISTORY / "_split" / "2025-08-08_b6111__vulkan-amdvlk-fa0.jsonl"
META = (HISTORY / "_run" / "2025-08-08-fa0.run.yaml").read_text(encoding="utf-8")
ONE_CONFIGURATION = """select:
  gpu_info: Radeon 8060S Graphics
  flash_attn: false
  build_commit: 7ad67ba9
"""


def test_select_reads_the_rows_of_one_configuration(project: Path, tmp_path: Path) -> None:
    (tmp_path / "selected").mkdir()
    (tmp_path / "split").mkdir()
    meta = write_meta(tmp_path / "selected", META + ONE_CONFIGURATION)
    assert run_import(project, [MIXED], meta, "selected") == 0
    assert run_import(project, [SPLIT], write_meta(tmp_path / "split", META), "split") == 0
    selected, split = imported(project, "selected"), imported(project, "split")
    assert selected["measurements"] == split["measurements"]
    assert selected["engine"] == split["engine"] and selected["hardware"] == split["hardware"]
    rows = [json.loads(line) for line in MIXED.read_text(encoding="utf-8").splitlines()]
    kept = [json.loads(line) for line in SPLIT.read_text(encoding="utf-8").splitlines()]
    assert (
        "Only the rows with gpu_info = Radeon 8060S Graphics, flash_attn = false, build_commit = "
        f"7ad67ba9 were read (run.yaml select:): {len(kept)} of {len(rows)}."
    ) in selected["provenance"]["notes"]
    # The receipt names the whole file it read, and the run.yaml whose select: chose the rows.
    assert [entry["file"] for entry in selected["provenance"]["raw_files"]] == [
        MIXED.name,
        "meta-run.yaml",
    ]


def test_a_selected_run_verifies_against_its_files(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    shutil.copy(MIXED, raw / MIXED.name)
    meta = write_meta(raw, META + ONE_CONFIGURATION)
    assert run_import(project, [raw / MIXED.name], meta, "selected") == 0
    capsys.readouterr()
    assert run_cli(project, "verify", "selected", "--raw", str(raw)) == 0
    assert "2 raw files match the receipt and give every figure" in capsys.readouterr().err
    # The receipt holds run.yaml's digest: another select: would be another run, and is named.
    meta.write_text(META + ONE_CONFIGURATION.replace("false", "true"), encoding="utf-8")
    assert run_cli(project, "verify", "selected", "--raw", str(raw)) == 1


def test_a_select_no_row_holds_names_what_the_rows_hold(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    meta = write_meta(tmp_path, META + "select:\n  flash_attn: false\n  backends: CUDA\n")
    capsys.readouterr()
    assert run_import(project, [MIXED], meta) == 1
    err = refused(project, capsys)
    line = (META + "select:\n").count("\n")  # select: is the line after run.yaml's own lines
    assert (
        f"{meta}:{line}: /select: no row of {MIXED} holds every value select: asks for; the rows "
        "hold flash_attn: false, true; backends: ROCm, Vulkan"
    ) in err


def test_select_is_refused_for_a_file_of_one_configuration(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vllm = next((DATA / "history").glob("dgxspark1-*-bf16-office-baseline/2026-05-05_*.json"))
    meta = write_meta(
        tmp_path,
        "hardware: {type: integrated-gpu, accelerator: GB10, count: 1}\n"
        "engine: {name: vLLM}\nrun: {model: google/gemma-4-26B-A4B-it}\n"
        "select: {burstiness: 0.7}\n",
    )
    capsys.readouterr()
    assert run_import(project, [vllm], meta) == 1
    assert f"{meta}:4: /select: select: picks the rows of one configuration" in refused(
        project, capsys
    )


def test_a_mixed_file_without_select_is_refused_with_the_way_to_pick_one(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert run_import(project, [MIXED], write_meta(tmp_path, META)) == 1
    err = refused(project, capsys)
    assert "flash_attn: false, true" in err
    assert "name one configuration's values in run.yaml's select:" in err
