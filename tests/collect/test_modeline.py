"""Result files start with the YAML language server's modeline, so editors check them against
their schema as people type: the shipped ones, and those `sitegen new` and `sitegen import`
write. The path is relative to the file and names the schema its schema_version declares."""

from __future__ import annotations

import functools
import json
import re
import shutil
from pathlib import Path

import jsonschema
import pytest
import yaml

from sitegen.parse import parse_document
from tests.kit.project import DATA, REPO, load_yaml, run_cli

MODELINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)$")
SCHEMA_FILES = {
    1: "result.schema.json",
    1.1: "result-1.1.schema.json",
    1.2: "result-1.2.schema.json",
}  # docs/result-format.md


def _schema_of(file: Path) -> Path:
    """The schema file the first line of ``file`` points at, resolved as an editor does."""
    first = file.read_text(encoding="utf-8").splitlines()[0]
    match = MODELINE.match(first)
    assert match, f"{file}: first line is {first!r}"
    target = (file.parent / match.group(1)).resolve()
    assert target.is_file(), f"{file}: {match.group(1)} is not a file"
    return target


@functools.cache
def _checker(schema_text: str) -> jsonschema.protocols.Validator:
    """What jsonschema.validate checks with: the validator class the schema's $schema names,
    after the schema itself is checked against it. Made once for each schema's text, as the
    shipped files share a few schemas."""
    schema = json.loads(schema_text)
    checker = jsonschema.validators.validator_for(schema)
    checker.check_schema(schema)
    return checker(schema)


def _check_as_an_editor_would(file: Path, schema: Path) -> None:
    data = load_yaml(file.read_text(encoding="utf-8"))
    assert schema.name == SCHEMA_FILES[data["schema_version"]]
    # jsonschema.validate, with the checker made once: the error it would raise, if any.
    error = jsonschema.exceptions.best_match(
        _checker(schema.read_text(encoding="utf-8")).iter_errors(data)
    )
    if error is not None:
        raise error


@pytest.mark.parametrize(
    "file", sorted((REPO / "content" / "runs").glob("*.yaml")), ids=lambda p: p.stem
)
def test_every_shipped_file_points_at_its_schema(file: Path) -> None:
    schema = _schema_of(file)
    assert schema.parent == REPO / "schema"
    _check_as_an_editor_would(file, schema)


def test_the_shipped_files_use_both_schemas() -> None:
    # So the test above checks the modeline of a schema-1 file and of a file of the latest
    # version (the one sitegen import writes).
    names = {_schema_of(file).name for file in (REPO / "content" / "runs").glob("*.yaml")}
    assert {SCHEMA_FILES[1], SCHEMA_FILES[max(SCHEMA_FILES)]} <= names <= set(SCHEMA_FILES.values())


def test_the_parser_reads_past_the_modeline(project: Path) -> None:
    file = project / "content" / "runs" / "ttp300-vllm-qwen3-4b.yaml"
    text = file.read_text(encoding="utf-8")
    document = parse_document(str(file), file.read_bytes())
    assert document.data == yaml.safe_load(text)
    # Lines still count from the top of the file, modeline included.
    assert document.line_of("/schema_version") == text.splitlines().index("schema_version: 1") + 1
    assert text.splitlines()[0].startswith("# yaml-language-server: $schema=")


def test_new_writes_the_modeline(project: Path) -> None:
    assert run_cli(project, "new", "h100-test-run") == 0
    file = project / "content" / "runs" / "h100-test-run.yaml"
    assert _schema_of(file) == (project / "schema" / "result-1.2.schema.json").resolve()
    assert (
        file.read_text().splitlines()[0]
        == "# yaml-language-server: $schema=../../schema/result-1.2.schema.json"
    )


def test_import_writes_the_modeline(project: Path) -> None:
    sample = DATA / "upstream" / "sample_benchmark_results.json"
    assert (
        run_cli(
            project,
            "import",
            str(sample),
            "--meta",
            str(DATA / "import" / "seed-run.yaml"),
            "--id",
            "x",
        )
        == 0
    )
    file = project / "content" / "runs" / "x.yaml"
    _check_as_an_editor_would(file, _schema_of(file))
    assert run_cli(project, "check", str(file)) == 0


def test_a_content_folder_elsewhere_gets_the_right_relative_path(project: Path) -> None:
    config = project / "sitegen.yaml"
    config.write_text(config.read_text() + "content_dir: data/results\n")
    (project / "data" / "results" / "runs").mkdir(parents=True)
    assert run_cli(project, "new", "h100-test-run") == 0
    file = project / "data" / "results" / "runs" / "h100-test-run.yaml"
    assert (
        file.read_text().splitlines()[0]
        == "# yaml-language-server: $schema=../../../schema/result-1.2.schema.json"
    )
    assert _schema_of(file) == (project / "schema" / "result-1.2.schema.json").resolve()


def test_without_a_schema_folder_the_published_schema_or_nothing(project: Path) -> None:
    shutil.rmtree(project / "schema")  # a site that uses an installed sitegen keeps no schema/
    assert run_cli(project, "new", "no-schema-here") == 0
    assert (
        not (project / "content" / "runs" / "no-schema-here.yaml")
        .read_text()
        .startswith("# yaml-language-server")
    )
    config = project / "sitegen.yaml"
    config.write_text(config.read_text() + "site_url: https://example.org/bench/\n")
    assert run_cli(project, "new", "published-schema") == 0
    first = (project / "content" / "runs" / "published-schema.yaml").read_text().splitlines()[0]
    assert (
        first
        == "# yaml-language-server: $schema=https://example.org/bench/schema/result-1.2.schema.json"
    )
