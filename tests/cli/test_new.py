"""`sitegen new`: the annotated template fails `sitegen check` with "fill in …" messages at
the right lines until it is filled in, then passes, with every optional field uncommented too."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sitegen.commands.new import template
from tests.kit.project import REPO, collected_entries, run_cli

FILLED = {
    "type": "discrete-gpu",
    "accelerator": "RTX 4090",
    "count": "1",
    "name": "llama.cpp",
    "model": "Qwen/Qwen3-8B",
    "context_tokens": "8192",
    "prompt_tokens_per_s": "5000.5",
    "concurrency": "1",
    "total_tokens_per_s": "120.5",
}
PLACEHOLDER_LINE = re.compile(r'^(\s*(?:- )?)([a-z_]+): "<fill in: [^"]+>"$')


def _fill(text: str, *, optional: bool) -> str:
    """The template with every placeholder replaced and, when ``optional``, every commented field
    uncommented."""
    lines = []
    for line in text.splitlines():
        commented = re.match(r"^(\s*)# (\s*[a-z_]+:(?: .*)?)$", line)
        if optional and commented:
            line = commented[1] + commented[2]
        placeholder = PLACEHOLDER_LINE.match(line)
        if placeholder:
            line = f"{placeholder[1]}{placeholder[2]}: {FILLED[placeholder[2]]}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def test_new_writes_the_template(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(project, "new", "rtx4090-llamacpp-qwen3-8b") == 0
    path = project / "content" / "runs" / "rtx4090-llamacpp-qwen3-8b.yaml"
    assert path.read_text() == template(
        "content/runs/rtx4090-llamacpp-qwen3-8b.yaml",
        "# yaml-language-server: $schema=../../schema/result-1.2.schema.json\n",
    )
    out = capsys.readouterr().out
    assert "wrote content/runs/rtx4090-llamacpp-qwen3-8b.yaml" in out
    assert "sitegen check content/runs/rtx4090-llamacpp-qwen3-8b.yaml" in out
    assert "sitegen import" in out


def test_the_unfilled_template_says_what_to_fill_in_at_each_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(project, "new", "my-run") == 0
    path = project / "content" / "runs" / "my-run.yaml"
    capsys.readouterr()
    assert run_cli(project, "check", str(path)) == 1
    err = capsys.readouterr().err.splitlines()
    lines = path.read_text().splitlines()
    expected = [
        number for number, line in enumerate(lines, start=1) if PLACEHOLDER_LINE.match(line)
    ]
    assert len(expected) == 10  # context_tokens twice: in the prefill point and in the decode cell
    assert [int(line.split(":")[1]) for line in err[:-1]] == expected
    for message in err[:-1]:
        assert re.fullmatch(
            r"content/runs/my-run\.yaml:\d+: /[\w/]+: fill in .+ \(replace the placeholder from "
            r"`sitegen new`\)",
            message,
        ), message
    assert (
        "content/runs/my-run.yaml:17: /hardware/type: fill in discrete-gpu, integrated-gpu, "
        "accelerator or cpu" in err[0]
    )
    assert err[-1] == "sitegen check: 10 problems"


def test_the_filled_in_template_passes_check_and_builds(project: Path) -> None:
    assert run_cli(project, "new", "my-run") == 0
    path = project / "content" / "runs" / "my-run.yaml"
    path.write_text(_fill(path.read_text(), optional=False))
    assert run_cli(project, "check", str(path)) == 0
    assert run_cli(project, "collect") == 0
    run = next(r for r in collected_entries(project) if r["id"] == "my-run")["result"]
    assert run["hardware"] == {"type": "discrete-gpu", "accelerator": "RTX 4090", "count": 1}
    assert run["measurements"]["decode"] == [
        {"context_tokens": 8192, "concurrency": 1, "status": "valid", "total_tokens_per_s": 120.5}
    ]


def test_every_example_in_the_template_is_valid(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(project, "new", "my-run") == 0
    path = project / "content" / "runs" / "my-run.yaml"
    path.write_text(_fill(path.read_text(), optional=True))
    assert run_cli(project, "check", str(path)) == 0, capsys.readouterr().err


def _schema_fields(node: object) -> set[str]:
    names: set[str] = set()
    if isinstance(node, dict):
        names.update(node.get("properties", {}))
        for value in node.values():
            names |= _schema_fields(value)
    elif isinstance(node, list):
        for value in node:
            names |= _schema_fields(value)
    return names


def test_the_template_names_every_field_of_the_format() -> None:
    schema = json.loads((REPO / "schema" / "result.schema.json").read_text())
    named = set(re.findall(r"^\s*(?:#\s*)?(?:- )?([a-z_]+):", template("x.yaml"), re.M))
    assert _schema_fields(schema) - named == set()


def test_new_never_replaces_a_run(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed = project / "content" / "runs" / "h200nvl2-sglang-deepseek-v4-flash-dspark.yaml"
    before = seed.read_bytes()
    assert run_cli(project, "new", "h200nvl2-sglang-deepseek-v4-flash-dspark") == 1
    assert seed.read_bytes() == before
    assert capsys.readouterr().err.splitlines()[0] == (
        "content/runs/h200nvl2-sglang-deepseek-v4-flash-dspark.yaml: already has the run id "
        "'h200nvl2-sglang-deepseek-v4-flash-dspark'; edit it, or choose another id"
    )
    (project / "content" / "runs" / "raw-run").mkdir()
    assert run_cli(project, "new", "raw-run") == 1
    assert not (project / "content" / "runs" / "raw-run.yaml").exists()


def test_new_refuses_an_id_that_is_no_permalink(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(project, "new", "My Run") == 1
    assert "'My Run' cannot be a run id" in capsys.readouterr().err
    assert not list((project / "content" / "runs").glob("*My*"))
