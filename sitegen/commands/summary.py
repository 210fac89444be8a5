"""``sitegen summary``: the Markdown a pull-request check writes to its job summary.

It lists the runs a pull request adds, changes or removes, each checked like ``sitegen
check`` does, with the headline figures of the valid ones, says where the preview is, and
ends with the time each stage of the job's collect and build took (progress.py keeps them).
Which files changed comes in as the text of ``git diff --name-status`` between the base and
the pull request (the workflow runs git; this module never does), so it can be tested
without a repository. Each added run's regressions and improvements against the previous run
of its setup are read from the collected runs (site.setup_pages).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from sitegen.collect import CheckedEntry
from sitegen.collect.local import IGNORED_SUFFIXES, RESULT_SUFFIXES
from sitegen.commands.check import check_files
from sitegen.config import Config
from sitegen.errors import Problem, SitegenError
from sitegen.github import Level, annotation
from sitegen.model import run_from_dict
from sitegen.progress import ALONGSIDE, read_timings
from sitegen.site.figures import history, numbers
from sitegen.site.figures.headlines import headlines
from sitegen.site.page import hardware_name
from sitegen.site.sections.setups import SiteHistory, figure_words, ratio_words, where
from sitegen.store import read_collected

Change = Literal["added", "changed", "removed"]
PREVIEW_ARTIFACT = "site-preview"
_MAX_PROBLEMS_SHOWN = 5  # per run; the annotations on the diff have every one
_MAX_RUNS = 200  # a pull request touching more is summarised by count only


@dataclass(frozen=True)
class ChangedRun:
    run_id: str
    change: Change
    path: Path  # the result file or raw-output folder, absolute


def parse_name_status(text: str) -> list[tuple[str, str]]:
    """``git diff --name-status`` lines as (status letter, path); a rename is a removal plus an
    addition."""
    changes: list[tuple[str, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split("\t")
        status = fields[0][:1]
        if len(status) != 1 or status not in "ACDMRTU" or len(fields) < 2:
            raise SitegenError(
                Problem(
                    "changed files", number, "", f"not a line of `git diff --name-status`: {line!r}"
                )
            )
        if status in "RC" and len(fields) >= 3:
            if status == "R":
                changes.append(("D", fields[1]))
            changes.append(("A", fields[2]))
        else:
            changes.append((status, fields[1]))
    return changes


def changed_runs(config: Config, changes: list[tuple[str, str]], cwd: Path) -> list[ChangedRun]:
    """The runs of content/runs/ that ``changes`` (paths relative to ``cwd``) touch, by id."""
    runs_dir = config.runs_dir
    statuses: dict[Path, set[str]] = {}
    for status, name in changes:
        path = Path(os.path.abspath(cwd / name))
        if runs_dir not in path.parents:
            continue
        parts = path.relative_to(runs_dir).parts
        top = runs_dir / parts[0]
        if parts[0].startswith(".") or parts[0].endswith(IGNORED_SUFFIXES):
            continue
        if len(parts) == 1 and top.suffix.lower() not in RESULT_SUFFIXES and status != "D":
            continue  # not a run; `sitegen check` will say so in the annotations
        statuses.setdefault(top, set()).add(status)
    result: list[ChangedRun] = []
    for top, found in sorted(statuses.items()):
        run_id = (
            top.stem if top.suffix.lower() in RESULT_SUFFIXES and not top.is_dir() else top.name
        )
        change: Change
        if not top.exists():
            change = "removed"
        elif found == {"A"}:
            change = "added"
        else:
            change = "changed"
        result.append(ChangedRun(run_id, change, top))
    return result


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+!|~])")


def _cell(text: str) -> str:
    """Text from a contributor's file, safe in a table cell: no markup, links or line breaks."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def _figure(value: float | None, unit: str, at: str | None) -> str:
    if value is None:
        return numbers.MISSING
    return f"{numbers.rate(value)} {unit}" + (f" @ {at}" if at else "")


def _row(change: Change, checked: CheckedEntry) -> str:
    run = run_from_dict(checked.entry.id, checked.data(), checked.source)
    figures = headlines(run)
    single_at = (
        numbers.context(figures.decode_single_context)
        if figures.decode_single_context is not None
        else None
    )
    peak_at = f"{figures.decode_peak_concurrency} req" if figures.decode_peak_concurrency else None
    prefill_at = (
        numbers.context(figures.prefill_first_context)
        if figures.prefill_first_context is not None
        else None
    )
    longest = (
        numbers.context(figures.largest_context)
        if figures.largest_context is not None
        else numbers.MISSING
    )
    engine = " ".join(part for part in (run.engine.name, run.engine.version) if part)
    cells = [
        change,
        f"`{checked.entry.id}`",
        _cell(run.info.model),
        _cell(hardware_name(run)),
        _cell(engine),
        _figure(figures.decode_single, "tok/s", single_at),
        _figure(figures.decode_peak, "tok/s", peak_at),
        _figure(figures.prefill_first, "tok/s", prefill_at),
        longest,
    ]
    return "| " + " | ".join(cells) + " |"


def _problem_lines(checked: CheckedEntry) -> list[str]:
    count = len(checked.problems)
    lines = [f"- ❌ {_cell(checked.source)}: {numbers.count_noun(count, 'problem')}"]
    for problem in checked.problems[:_MAX_PROBLEMS_SHOWN]:
        where = f"line {problem.line}" if problem.line is not None else "file"
        pointer = f" `{problem.pointer}`" if problem.pointer else ""
        lines.append(f"  - {where}{pointer}: {_cell(problem.message)}")
    if count > _MAX_PROBLEMS_SHOWN:
        lines.append(
            f"  - … and {count - _MAX_PROBLEMS_SHOWN} more (see the annotations on the changed "
            f"files)"
        )
    return lines


@dataclass(frozen=True)
class SetupFinding:
    """A regression or an improvement an added run shows against the previous run of its setup."""

    run: ChangedRun
    change: history.Change


def setup_findings(
    config: Config, name_status: str, cwd: Path | None = None
) -> list[SetupFinding] | None:
    """Every regression and improvement of the runs a pull request adds, each against the
    previous run of its setup, from the collected runs (``sitegen collect`` first); None when
    there is no collected file to read."""
    changes = parse_name_status(name_status)
    added = {
        run.run_id: run
        for run in changed_runs(config, changes, cwd or Path.cwd())
        if run.change == "added"
    }
    if not added:
        return []
    try:
        runs = read_collected(config.state_dir)
    except SitegenError:
        return None
    site_history = SiteHistory.of(runs, config.change_threshold)
    setup_of = site_history.setup_of
    flagged = (history.REGRESSION, history.IMPROVEMENT)
    found: list[SetupFinding] = []
    for setup in sorted({setup_of[run_id] for run_id in added if run_id in setup_of}):
        found += [
            SetupFinding(added[change.run], change)
            for change in site_history.changes(setup)
            if change.run in added and change.verdict in flagged
        ]
    return found


def finding_annotations(config: Config, findings: list[SetupFinding]) -> list[str]:
    """Each finding as a workflow command on the added file (a warning for a regression)."""
    lines = []
    for item in findings:
        change = item.change
        problem = Problem(
            config.display(item.run.path), None, change.verdict, _finding_text(change)
        )
        level: Level = "warning" if change.verdict == history.REGRESSION else "notice"
        lines.append(annotation(problem, level))
    return lines


def _finding_text(change: history.Change) -> str:
    return (
        f"{change.verdict}: {figure_words(change)} at {where(change)} "
        f"{_value_text(change.before)} → {_value_text(change.after)} "
        f"({ratio_words(change.ratio)}) against {change.previous_run}, the previous run of "
        f"setup {change.setup} (rule: {change.rule})"
    )


def _value_text(value: float | None) -> str:
    return numbers.MISSING if value is None else f"{value:,.4g}"


def _findings_lines(findings: list[SetupFinding] | None) -> list[str]:
    lines = ["### Changes against the previous run of each setup", ""]
    if findings is None:
        return [*lines, "Not worked out: run `sitegen collect` before `sitegen summary`.", ""]
    if not findings:
        return [
            *lines,
            "No added run regressed or improved a figure against the previous run of its setup.",
            "",
        ]
    lines += [
        "| | run | figure | where | before | after | change | previous run |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for item in findings:
        change = item.change
        mark = "🔻 regression" if change.verdict == history.REGRESSION else "🔺 improvement"
        cells = [
            mark,
            f"`{change.run}`",
            figure_words(change),
            _cell(where(change)),
            _value_text(change.before),
            _value_text(change.after),
            ratio_words(change.ratio),
            f"`{change.previous_run}`",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return [*lines, "", f"Rule: a change {_cell(findings[0].change.rule)}.", ""]


def pr_summary(
    config: Config,
    name_status: str,
    *,
    cwd: Path | None = None,
    preview_url: str | None = None,
    artifact: str = PREVIEW_ARTIFACT,
    findings: list[SetupFinding] | bool | None = False,
) -> str:
    """The job-summary Markdown for a pull request whose changed files ``name_status`` lists;
    ``findings``: its added runs' changes (setup_findings), worked out here when not given."""
    if findings is False:
        findings = setup_findings(config, name_status, cwd)
    runs = changed_runs(config, parse_name_status(name_status), cwd or Path.cwd())
    lines = ["## Benchmark runs in this pull request", ""]
    if not runs:
        lines += ["This pull request adds, changes or removes no run in content/runs/.", ""]
    elif len(runs) > _MAX_RUNS:
        lines += [f"This pull request touches {len(runs):,} runs; too many to list here.", ""]
    else:
        present = [run for run in runs if run.change != "removed"]
        report = check_files(config, [run.path for run in present])
        by_id = {item.entry.id: item for item in report.checked}
        valid = [
            (run.change, by_id[run.run_id])
            for run in present
            if run.run_id in by_id and by_id[run.run_id].canonical is not None
        ]
        counts = ", ".join(
            f"{numbers.count_noun(n, 'run')} {change}"
            for change in ("added", "changed", "removed")
            if (n := sum(1 for run in runs if run.change == change))
        )
        lines += [counts + ".", ""]
        if valid:
            lines += [
                "| | run | model | hardware | engine | decode, 1 request | peak decode | prefill | "
                "longest context |",
                "|---|---|---|---|---|---|---|---|---|",
            ]
            lines += [_row(change, checked) for change, checked in valid]
            lines.append("")
        invalid = [item for item in report.checked if item.canonical is None]
        if invalid or report.listing:
            lines += [
                "### Problems",
                "",
                "Fix these before the run can be published (`sitegen check` shows them locally):",
                "",
            ]
            lines += [f"- ❌ {_cell(str(problem))}" for problem in report.listing]
            for item in invalid:
                lines += _problem_lines(item)
            lines.append("")
        if any(run.change == "added" for run in runs):
            lines += _findings_lines(None if findings is True else findings)
        removed = [run.run_id for run in runs if run.change == "removed"]
        if removed:
            lines += [
                "Removed (their pages and permalinks disappear): "
                + ", ".join(f"`{run_id}`" for run_id in removed),
                "",
            ]
    lines += ["### Preview", ""]
    if (
        preview_url
        and preview_url.startswith("https://")
        and not re.search(r"[\s()<>]", preview_url)
    ):
        lines.append(
            f"The built site is the **{artifact}** artifact of this workflow run: [download "
            f"it]({preview_url})."
        )
    else:
        lines.append(
            f"The built site is the **{artifact}** artifact of this workflow run (on the run's "
            f"summary page), "
            "when the build succeeded."
        )
    lines += [
        "Unzip it and serve the folder, e.g. `python3 -m http.server -d site-preview 8000 --bind "
        "127.0.0.1`, "
        "then open http://127.0.0.1:8000/. Or check out the branch and run `sitegen serve`.",
        "",
    ]
    lines += time_taken(config.state_dir)
    return "\n".join(lines)


def time_taken(state_dir: Path) -> list[str]:
    """The time each stage of the last ``sitegen collect`` and ``sitegen build`` in this folder
    took, as they printed it (kept in .sitegen/timings.json, progress.py); nothing when
    neither has run."""
    recorded = read_timings(state_dir)
    commands = [command for command in ("collect", "build") if command in recorded]
    if not commands:
        return []
    lines = ["### Time taken", "", "| stage | items | time |", "|---|--:|--:|"]
    for command in commands:
        record = recorded[command]
        for stage in record["stages"]:
            note = f" ({ALONGSIDE})" if stage.get(ALONGSIDE) is True else ""
            items = "" if stage.get("items") is None else f"{stage['items']:,}"
            seconds = f"{stage['seconds']:.1f} s"
            lines.append(f"| {command}: {_cell(stage['name'])}{note} | {items} | {seconds} |")
        lines.append(f"| **sitegen {command}, in total** | | **{record['seconds']:.1f} s** |")
    lines.append("")
    return lines
