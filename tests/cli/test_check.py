"""`sitegen check`: collect's checks on chosen files, its exit codes, its two output formats,
GitHub's escaping rules, and the pre-commit hooks that call it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from sitegen.errors import Problem
from sitegen.github import annotation, escape_data, escape_property
from tests.kit.project import REPO, SEED_RUN_ID, run_cli

DATA = REPO / "tests" / "data"
SEED = REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml"
BAD_STATUS = (
    "content/runs/bad-status.yaml:10: /measurements/decode/0/status: 'overcap' is not one of "
    "'valid', "
    "'requests_queued', 'over_capacity', 'not_run', 'failed'; did you mean 'over_capacity'?"
)


def _add(project: Path, source: Path, name: str | None = None) -> Path:
    target = project / "content" / "runs" / (name or source.name)
    shutil.copy(source, target)
    return target


def test_everything_valid_exits_0(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(project, "check") == 0
    out, err = capsys.readouterr()
    runs = len(list((project / "content" / "runs").iterdir()))
    assert out == f"checked {runs} runs: no problems\n"
    assert err == ""


def test_one_bad_file_exits_1_with_collects_message(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _add(project, DATA / "invalid" / "bad-status.yaml")
    assert run_cli(project, "check") == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [BAD_STATUS, "sitegen check: 1 problem"]
    # The very message collect gives.
    assert run_cli(project, "collect") == 1
    assert capsys.readouterr().err.splitlines()[0] == BAD_STATUS


def test_only_the_named_files_are_read(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _add(project, DATA / "invalid" / "bad-status.yaml")
    assert run_cli(project, "check", str(project / "content" / "runs" / f"{SEED_RUN_ID}.yaml")) == 0
    assert capsys.readouterr().out == "checked 1 run: no problems\n"


def test_paths_relative_to_the_working_folder(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _add(project, DATA / "invalid" / "bad-status.yaml")
    monkeypatch.chdir(project)
    assert run_cli(project, "check", "content/runs/bad-status.yaml", "content/runs/notes.md") == 1
    assert capsys.readouterr().err.splitlines() == [BAD_STATUS, "sitegen check: 1 problem"]


def test_github_format_prints_annotations_on_stdout(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _add(project, DATA / "invalid" / "bad-status.yaml")
    assert run_cli(project, "check", "--format", "github") == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "::error file=content/runs/bad-status.yaml,line=10,"
        "title=/measurements/decode/0/status::'overcap' is not one "
        "of 'valid', 'requests_queued', 'over_capacity', 'not_run', 'failed'; did you mean "
        "'over_capacity'?",
    ]
    assert err == "sitegen check: 1 problem\n"


def test_every_problem_of_every_named_file(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _add(project, DATA / "invalid" / "bad-status.yaml")
    syntax = _add(project, DATA / "invalid" / "yaml-syntax.yaml")
    assert run_cli(project, "check", "--format", "github", str(bad), str(syntax)) == 1
    out = capsys.readouterr().out
    assert re.findall(r"^::error file=([^,]+),line=(\d+),", out, re.M) == [
        ("content/runs/bad-status.yaml", "10"),
        ("content/runs/yaml-syntax.yaml", "4"),
    ]


def test_a_file_inside_a_raw_output_folder_checks_the_folder(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project / "content" / "runs" / "h200-raw"
    folder.mkdir()
    shutil.copy(
        DATA / "upstream" / "sample_benchmark_results.json", folder / "benchmark_results.json"
    )
    shutil.copy(DATA / "import" / "seed-run.yaml", folder / "run.yaml")
    assert (
        run_cli(project, "check", str(folder / "run.yaml"), str(folder / "benchmark_results.json"))
        == 0
    )
    assert capsys.readouterr().out == "checked 1 run: no problems\n"
    (folder / "run.yaml").write_text("hardware:\n  type: gpu\n")
    assert run_cli(project, "check", str(folder / "run.yaml")) == 1
    assert (
        "content/runs/h200-raw/run.yaml:2: /hardware/type: 'gpu' is not one of"
        in capsys.readouterr().err
    )


def test_an_id_clash_with_a_file_beside_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    json_twin = project / "content" / "runs" / f"{SEED_RUN_ID}.yml"
    shutil.copy(SEED, json_twin)
    assert run_cli(project, "check", str(json_twin)) == 1
    assert capsys.readouterr().err.splitlines()[0] == (
        f"content/runs/{SEED_RUN_ID}.yml: run id '{SEED_RUN_ID}' is already used by "
        f"content/runs/{SEED_RUN_ID}.yaml; "
        "rename one of them"
    )


def test_missing_and_foreign_files(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.csv"
    notes.write_text("a,b\n")
    missing = project / "content" / "runs" / "nope.yaml"
    assert run_cli(project, "check", str(missing), str(notes)) == 1
    assert capsys.readouterr().err.splitlines() == [
        "content/runs/nope.yaml: not found",
        f"{notes}: not a result file: use one of .yaml, .yml, .json",
        "sitegen check: 2 problems",
    ]


def test_a_file_outside_the_site(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "elsewhere.yaml"
    shutil.copy(DATA / "valid" / "minimal.yaml", outside)
    assert run_cli(project, "check", str(outside)) == 0
    shutil.copy(DATA / "invalid" / "bad-status.yaml", outside)
    assert run_cli(project, "check", str(outside)) == 1
    assert f"{outside}:10: /measurements/decode/0/status:" in capsys.readouterr().err


def test_redactions_are_warnings_not_failures(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = SEED.read_text().replace(
        "--api-key <redacted>", "--api-key sk-live-0123456789abcdef0123"
    )
    assert "sk-live" in text
    (project / "content" / "runs" / f"{SEED_RUN_ID}.yaml").write_text(text)
    assert run_cli(project, "check", "--format", "github") == 0
    out = capsys.readouterr().out
    assert out.startswith(f"::warning file=content/runs/{SEED_RUN_ID}.yaml,line=")
    assert "sk-live" not in out


def test_nothing_is_written(project: Path) -> None:
    _add(project, DATA / "invalid" / "bad-status.yaml")
    before = sorted(p.relative_to(project) for p in project.rglob("*"))
    run_cli(project, "check")
    run_cli(project, "check", str(project / "content" / "runs" / "bad-status.yaml"))
    assert sorted(p.relative_to(project) for p in project.rglob("*")) == before


# --- GitHub's workflow-command escaping ------------------------------------------------------


def test_escaping_follows_githubs_rules() -> None:
    assert escape_data("100% a\r\nb: c, d") == "100%25 a%0D%0Ab: c, d"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_a_hostile_message_stays_on_one_line() -> None:
    problem = Problem("content/runs/a,b:c.yaml", 3, "/run/notes", "bad\n::set-env name=X::1\r%0A")
    line = annotation(problem)
    assert "\n" not in line and "\r" not in line
    assert line == (
        "::error file=content/runs/a%2Cb%3Ac.yaml,line=3,title=/run/notes::"
        "bad%0A::set-env name=X::1%0D%250A"
    )


def test_sources_outside_the_repository_are_named_in_the_message() -> None:
    remote = annotation(Problem("https://example.org/x.yaml", 14, "/run", "missing"), "warning")
    assert remote == "::warning title=/run::https://example.org/x.yaml: missing"
    assert annotation(Problem("content/runs/x.yaml", None, "", "not found")) == (
        "::error file=content/runs/x.yaml,title=sitegen::not found"
    )


# --- pre-commit ------------------------------------------------------------------------------


def test_pre_commit_hook_offered_to_other_sites() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    hook = next(h for h in hooks if h["id"] == "sitegen-check")
    assert hook["entry"] == "sitegen check"
    assert hook["language"] == "python"
    assert re.search(hook["files"], "content/runs/x.yaml")
    assert re.search(hook["files"], "content/runs/x/run.yaml")
    assert not re.search(hook["files"], "docs/result-format.md")


def test_this_repository_uses_the_hook_and_ruff() -> None:
    config = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text())
    hooks = {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}
    assert hooks["sitegen-check"]["entry"] == ".venv/bin/sitegen check"
    assert hooks["sitegen-check"]["files"] == "^content/runs/"
    assert hooks["ruff"]["entry"].startswith(".venv/bin/ruff check")
