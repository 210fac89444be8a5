"""The pull-request check (.github/workflows/pr-check.yml) run on a copy of the repository:
``sitegen collect --format github`` puts each problem on its file and line, and ``sitegen
summary`` lists the runs a pull request adds or changes with their headline figures.

The workflow takes the changed files from ``git diff --name-status``; here that text is
written by hand, so no git repository is needed."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from sitegen.commands.summary import changed_runs, parse_name_status, pr_summary
from sitegen.config import load_config
from sitegen.errors import SitegenError
from tests.kit.project import REPO, SEED_RUN_ID, run_cli

DATA = REPO / "tests" / "data"
SEED = REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml"
PREVIEW = "https://github.com/owner/site/actions/runs/1/artifacts/2"
# The seed page's own figures: 1 request at 8K, 128 requests at 8K, prefill at 8K, longest context.
SEED_ROW = (
    "| deepseek-ai/DeepSeek-V4-Flash-DSpark | H200 NVL 141GB ×2 | sglang 0.5.16 | 228.4 tok/s @ 8K "
    "| "
    "4,695.4 tok/s @ 128 req | 10.2K tok/s @ 8K | 1024K |"
)


def _summary(
    project: Path,
    changed: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *extra: str,
) -> str:
    """What the workflow's summary step appends to $GITHUB_STEP_SUMMARY, run from the repository
    root."""
    monkeypatch.chdir(project)
    listing = project.parent / "changed.txt"
    listing.write_text(changed)
    assert run_cli(project, "summary", "--changed", str(listing), *extra) == 0
    return capsys.readouterr().out


def test_a_broken_file_is_annotated_at_its_file_and_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(
        DATA / "invalid" / "bad-status.yaml", project / "content" / "runs" / "h100-broken.yaml"
    )
    assert run_cli(project, "collect", "--format", "github") == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "::error file=content/runs/h100-broken.yaml,line=10,"
        "title=/measurements/decode/0/status::'overcap' is not "
        "one of 'valid', 'requests_queued', 'over_capacity', 'not_run', 'failed'; did you mean "
        "'over_capacity'?",
    ]
    assert err.splitlines()[-1] == "sitegen collect: 1 problem; nothing was written"
    assert not (project / ".sitegen" / "collected.json").exists()


def test_a_broken_line_deep_in_a_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = SEED.read_text()
    broken = text.replace("      ttft_ms: 1096.0\n", "      ttft_ms: -1096.0\n", 1)
    assert broken != text
    line = broken.splitlines().index("      ttft_ms: -1096.0") + 1
    (project / "content" / "runs" / f"{SEED_RUN_ID}.yaml").write_text(broken)
    assert run_cli(project, "collect", "--format", "github") == 1
    assert capsys.readouterr().out.splitlines() == [
        f"::error file=content/runs/{SEED_RUN_ID}.yaml,line={line},"
        "title=/measurements/prefill/1/ttft_ms::"
        "-1096.0 is out of range: must be at least 0",
    ]


def test_summary_lists_an_added_run_with_its_headline_figures(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(SEED, project / "content" / "runs" / "h200nvl2-new.yaml")
    summary = _summary(
        project,
        "A\tcontent/runs/h200nvl2-new.yaml\nM\tREADME.md\n",
        monkeypatch,
        capsys,
        "--preview-url",
        PREVIEW,
    )
    lines = summary.splitlines()
    assert lines[0] == "## Benchmark runs in this pull request"
    assert "1 run added." in lines
    header = lines.index(
        "| | run | model | hardware | engine | decode, 1 request | peak decode | prefill | longest "
        "context |"
    )
    assert lines[header + 2] == f"| added | `h200nvl2-new` {SEED_ROW}"
    assert (
        len([line for line in lines if line.startswith("| added") or line.startswith("| changed")])
        == 1
    )
    assert f"[download it]({PREVIEW})" in summary
    assert "**site-preview** artifact" in summary
    assert "### Problems" not in summary


def test_summary_says_what_is_wrong_with_a_changed_run(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(SEED, project / "content" / "runs" / "h200nvl2-new.yaml")
    shutil.copy(
        DATA / "invalid" / "bad-status.yaml", project / "content" / "runs" / "h100-broken.yaml"
    )
    changed = (
        "A\tcontent/runs/h200nvl2-new.yaml\nM\tcontent/runs/h100-broken.yaml\n"
        "D\tcontent/runs/retired.yaml\n"
    )
    summary = _summary(project, changed, monkeypatch, capsys)
    assert "1 run added, 1 run changed, 1 run removed." in summary
    assert f"| added | `h200nvl2-new` {SEED_ROW}" in summary
    assert "- ❌ content/runs/h100-broken.yaml: 1 problem" in summary
    assert "  - line 10 `/measurements/decode/0/status`: 'overcap' is not one of" in summary
    assert "Removed (their pages and permalinks disappear): `retired`" in summary
    assert "download it" not in summary  # no preview address: the build step did not upload one


def test_summary_without_run_changes(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = _summary(
        project, "M\tsitegen/cli.py\nM\tcontent/runs/README.md\n", monkeypatch, capsys
    )
    assert "This pull request adds, changes or removes no run in content/runs/." in summary


def test_changes_inside_a_raw_output_folder_are_one_run(project: Path) -> None:
    folder = project / "content" / "runs" / "h200-raw"
    folder.mkdir()
    (folder / "run.yaml").write_text("{}")
    config = load_config(project / "sitegen.yaml")
    changes = parse_name_status(
        "A\tcontent/runs/h200-raw/run.yaml\nA\tcontent/runs/h200-raw/benchmark_results.json\n"
        "R100\tcontent/runs/old.yaml\tcontent/runs/h200-raw/notes.md\n"
    )
    runs = changed_runs(config, changes, project)
    assert [(run.run_id, run.change) for run in runs] == [("h200-raw", "added"), ("old", "removed")]


def test_contributor_text_cannot_inject_markup(project: Path) -> None:
    text = SEED.read_text().replace(
        "model: deepseek-ai/DeepSeek-V4-Flash-DSpark",
        "model: '<img src=x onerror=alert(1)> | [x](javascript:alert(1))'",
    )
    (project / "content" / "runs" / "h200nvl2-new.yaml").write_text(text)
    summary = pr_summary(
        load_config(project / "sitegen.yaml"),
        "A\tcontent/runs/h200nvl2-new.yaml\n",
        cwd=project,
        preview_url="javascript:alert(1)",
    )
    row = next(line for line in summary.splitlines() if line.startswith("| added"))
    assert "\\<img src=x onerror=alert\\(1\\)\\>" in row  # shown as text, not an element
    assert not re.search(
        r"(?<!\\)[<>\[\]()]", row.split(" | ")[2]
    )  # every bracket escaped: no link, no tag
    assert len(re.findall(r"(?<!\\)\|", row)) == 10  # the model's '|' did not add a column
    assert "javascript:" not in summary.split("### Preview")[1]


def test_a_garbled_change_list_is_a_located_problem() -> None:
    with pytest.raises(SitegenError) as caught:
        parse_name_status("A\tcontent/runs/x.yaml\nnot a status line\n")
    assert (
        str(caught.value)
        == "changed files:2: not a line of `git diff --name-status`: 'not a status line'"
    )
    with pytest.raises(SitegenError):
        parse_name_status("\tcontent/runs/x.yaml\n")
