"""`sitegen collect`: valid files pass, every invalid case gets its exact located messages,
and a failed collect leaves the previous collected file and site untouched."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from tests.kit.project import REPO, SEED_RUN_ID, load_yaml, run_cli

DATA = REPO / "tests" / "data"
INVALID = sorted(p for p in (DATA / "invalid").iterdir() if p.suffix != ".expected")
VALID = sorted((DATA / "valid").iterdir())


def _only(project: Path, *files: Path) -> Path:
    runs = project / "content" / "runs"
    shutil.rmtree(runs)
    runs.mkdir()
    for file in files:
        shutil.copy(file, runs / file.name)
    return project


@pytest.mark.parametrize("case", INVALID, ids=lambda p: p.stem)
def test_invalid_case_reports_exact_messages(
    project: Path, case: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _only(project, case)
    assert run_cli(project, "collect") == 1
    err = capsys.readouterr().err.splitlines()
    expected = case.with_suffix(".expected").read_text(encoding="utf-8").splitlines()
    assert err[:-1] == expected
    assert err[-1].startswith("sitegen collect: ") and err[-1].endswith("nothing was written")
    assert "Traceback" not in "\n".join(err)


@pytest.mark.parametrize("case", VALID, ids=lambda p: p.stem)
def test_valid_case_is_collected(project: Path, case: Path) -> None:
    _only(project, case)
    assert run_cli(project, "collect") == 0
    collected = json.loads((project / ".sitegen" / "collected.json").read_text())
    assert [run["id"] for run in collected["runs"]] == [case.stem]


def test_every_problem_of_every_file_is_reported_at_once(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _only(
        project,
        DATA / "invalid" / "bad-status.yaml",
        DATA / "invalid" / "alias.yaml",
        DATA / "valid" / "minimal.yaml",
    )
    assert run_cli(project, "collect") == 1
    err = capsys.readouterr().err
    assert "content/runs/bad-status.yaml:10:" in err
    assert "content/runs/alias.yaml:5:" in err
    assert "2 problems" in err


def test_collected_file_is_versioned_sorted_and_stable(project: Path) -> None:
    assert run_cli(project, "collect") == 0
    path = project / ".sitegen" / "collected.json"
    first = path.read_bytes()
    document = json.loads(first)
    assert document["format"] == "sitegen-collected" and document["version"] == 2
    ids = [run["id"] for run in document["runs"]]
    assert ids == sorted(ids) and SEED_RUN_ID in ids
    assert (
        first
        == json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()
        + b"\n"
    )
    # Each run's measurements are a file of their own, named by the sha256 of their bytes, and
    # are the result file's measurements; the entry's digest covers the result as it stands.
    folder = project / ".sitegen" / "measurements"
    checked = 0
    for run in document["runs"]:
        result = run["result"]
        name = result["measurements"]
        data = (folder / f"{name}.json").read_bytes()
        assert hashlib.sha256(data).hexdigest() == name
        source = project / "content" / "runs" / f"{run['id']}.yaml"
        if source.is_file():  # (raw output folders are read by their adapters)
            checked += 1
            assert json.loads(data) == load_yaml(source.read_text(encoding="utf-8"))["measurements"]
        text = json.dumps(result, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        assert hashlib.sha256(text.encode()).hexdigest() == run["digest"]
    assert checked >= 2
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        f"{r['result']['measurements']}.json" for r in document["runs"]
    )
    assert run_cli(project, "collect") == 0
    assert path.read_bytes() == first


def test_breaking_a_shipped_file_names_file_and_line_and_keeps_previous_output(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(project, "collect") == 0
    assert run_cli(project, "build") == 0
    collected = (project / ".sitegen" / "collected.json").read_bytes()
    site_before = {p: p.read_bytes() for p in (project / "_site").rglob("*") if p.is_file()}

    seed = project / "content" / "runs" / f"{SEED_RUN_ID}.yaml"
    lines = seed.read_text(encoding="utf-8").splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines) if "status: valid" in line)
    lines[number] = lines[number].replace("status: valid", "status: overcap")
    seed.write_text("".join(lines), encoding="utf-8")
    capsys.readouterr()

    assert run_cli(project, "collect") == 1
    err = capsys.readouterr().err
    assert (
        f"content/runs/{SEED_RUN_ID}.yaml:{number + 1}: /measurements/decode/0/status: 'overcap' "
        f"is not one of" in err
    )
    assert "Traceback" not in err
    assert (project / ".sitegen" / "collected.json").read_bytes() == collected
    assert {p: p.read_bytes() for p in (project / "_site").rglob("*") if p.is_file()} == site_before


def test_duplicate_run_ids_are_refused(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _only(project, DATA / "valid" / "minimal.yaml")
    shutil.copy(DATA / "valid" / "every-field.json", project / "content" / "runs" / "minimal.json")
    assert run_cli(project, "collect") == 1
    err = capsys.readouterr().err
    assert (
        "content/runs/minimal.yaml: run id 'minimal' is already used by content/runs/minimal.json"
        in err
    )


@pytest.mark.parametrize(
    "name", ["Upper.yaml", "has space.yaml", "-dash.yaml", "dots.in.name.yaml"]
)
def test_file_names_that_make_bad_urls_are_refused(
    project: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _only(project)
    shutil.copy(DATA / "valid" / "minimal.yaml", project / "content" / "runs" / name)
    assert run_cli(project, "collect") == 1
    assert "cannot be a run id" in capsys.readouterr().err


def test_link_pointing_outside_content_is_refused(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside.yaml"
    shutil.copy(DATA / "valid" / "minimal.yaml", outside)
    _only(project)
    (project / "content" / "runs" / "linked.yaml").symlink_to(outside)
    assert run_cli(project, "collect") == 1
    assert (
        "content/runs/linked.yaml: is a link to a place outside content/" in capsys.readouterr().err
    )


def test_bad_config_is_reported_with_its_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "sitegen.yaml").write_text("title: x\nsite_url: /x\nthemes: []\n", encoding="utf-8")
    assert run_cli(project, "collect") == 1
    err = capsys.readouterr().err
    assert "sitegen.yaml:2: /site_url:" in err
    assert "sitegen.yaml:3: /themes: unknown field 'themes'" in err


def test_missing_config_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(tmp_path, "collect") == 1
    assert "no sitegen.yaml here" in capsys.readouterr().err
