"""The documentation keeps up with the schema and the page contexts."""

from __future__ import annotations

import dataclasses
import json
import re

from sitegen.site import page as common
from sitegen.site import plan as pages
from sitegen.site.pages import index as index_page
from sitegen.site.pages import run as run_page
from tests.kit.project import REPO


def _property_names(schema: object) -> set[str]:
    names: set[str] = set()
    if isinstance(schema, dict):
        names.update(schema.get("properties", {}))
        for value in schema.values():
            names |= _property_names(value)
    elif isinstance(schema, list):
        for value in schema:
            names |= _property_names(value)
    return names


def test_every_schema_field_is_documented() -> None:
    # Backticked names: sha256 too, so digits after the first letter.
    text = (REPO / "docs" / "result-format.md").read_text()
    documented = set(re.findall(r"`([a-z_][a-z0-9_]*)`", text))
    for name in ("result.schema.json", "result-1.1.schema.json", "result-1.2.schema.json"):
        schema = json.loads((REPO / "schema" / name).read_text())
        assert _property_names(schema) - documented == set(), name


def test_every_plausibility_check_and_threshold_is_documented() -> None:
    from sitegen import plausibility

    text = (REPO / "docs" / "result-format.md").read_text()
    schema = json.loads((REPO / "schema" / "result-1.2.schema.json").read_text())
    assert (
        list(plausibility.CHECKS)
        == schema["$defs"]["acknowledged_warning"]["properties"]["check"]["enum"]
    )
    for check in plausibility.CHECKS:
        assert f"`{check}`" in text, check
    for value in (
        *plausibility.THROUGHPUT_RATIO,
        plausibility.ACTIVE_SHARE,
        *plausibility.TBT_PRODUCT,
        plausibility.JUMP_FACTOR,
    ):
        assert f"{value:g}" in text.split("## Plausibility warnings", 1)[1], value


def test_every_page_context_is_a_documented_dataclass() -> None:
    for module, name in (
        (run_page, "RunPageContext"),
        (index_page, "IndexPageContext"),
        (pages, "NotFoundPageContext"),
        (run_page, "MatrixCell"),
        (common, "Page"),
        (common, "Site"),
    ):
        cls = getattr(module, name)
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen, name  # type: ignore[attr-defined]
        assert cls.__doc__ and not cls.__doc__.startswith(name + "("), f"{name} needs a docstring"


def test_every_module_is_in_the_architecture_table() -> None:
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text.split("## Modules", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"^\| `(sitegen/[\w/]+\.py)` \|", table, re.M))
    modules = {path.relative_to(REPO).as_posix() for path in (REPO / "sitegen").rglob("*.py")}
    assert modules - named == set(), "add these to docs/architecture.md's module table"
    assert named - modules == set(), "docs/architecture.md names modules that are gone"


def _shell_lines(text: str) -> list[tuple[int, str]]:
    """Each line of the ```sh blocks of a Markdown text, with its offset in the text."""
    lines = []
    for block in re.finditer(r"```sh\n(.*?)```", text, re.S):
        offset = block.start(1)
        for line in block.group(1).splitlines(keepends=True):
            lines.append((offset, line.strip()))
            offset += len(line)
    return lines


def test_readme_and_contributing_commands_work_in_a_newcomers_shell() -> None:
    """After README's command 1, `sitegen` is .venv/bin/sitegen: a command that calls it by name
    comes after the documents say how to put it on the path, and names a command that exists."""
    from sitegen import cli

    activate = ". .venv/bin/activate"
    for name in ("README.md", "CONTRIBUTING.md"):
        text = (REPO / name).read_text(encoding="utf-8")
        assert activate in text, name
        told = text.index(activate)
        commands = [
            (offset, line)
            for offset, line in _shell_lines(text)
            if re.match(r"(\.venv/bin/)?sitegen ", line)
        ]
        assert commands, name
        for offset, line in commands:
            assert line.startswith(".venv/bin/") or offset > told, f"{name}: {line!r} too early"
            verb = line.split()[1]
            assert verb in cli.COMMANDS, f"{name}: {line!r}"
