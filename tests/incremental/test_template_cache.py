"""Compiled templates are kept in .sitegen/cache/templates/ between builds
(render.CompiledTemplates):
a later build compiles none of them again, an edited template is compiled again, and a damaged
entry is compiled again, never used."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from jinja2 import Environment

from sitegen.site.render import environment
from tests.kit.project import REPO

NAMES = ("pages/index.html", "pages/run.html", "_macros.html", "base.html")


def _compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    original = Environment.compile

    def counting(
        self: Environment, source: str, name: str | None = None, *args: object, **kwargs: object
    ) -> object:
        seen.append(str(name))
        return original(self, source, name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Environment, "compile", counting)
    return seen


@pytest.fixture
def templates(tmp_path: Path) -> Path:
    folder = tmp_path / "templates"
    shutil.copytree(REPO / "templates", folder)
    return folder


def test_a_later_environment_compiles_no_template_again(
    templates: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiled = _compiles(monkeypatch)
    cache = tmp_path / "cache"
    for name in NAMES:
        environment(templates, cache).get_template(name)
    assert sorted(set(compiled)) == sorted(NAMES)
    assert len(list(cache.iterdir())) == len(NAMES)
    compiled.clear()
    for name in NAMES:
        environment(templates, cache).get_template(name)
    assert compiled == []


def test_an_edited_template_is_compiled_again(
    templates: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    (templates / "probe.html").write_text("before {{ 1 + 1 }}")
    assert environment(templates, cache).get_template("probe.html").render() == "before 2"
    (templates / "probe.html").write_text("after {{ 2 + 2 }}")
    compiled = _compiles(monkeypatch)
    assert environment(templates, cache).get_template("probe.html").render() == "after 4"
    assert compiled == ["probe.html"]


@pytest.mark.parametrize("damage", ["cut short", "other bytes", "a directory"])
def test_a_damaged_entry_is_compiled_again(
    templates: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    cache = tmp_path / "cache"
    (templates / "probe.html").write_text("<p>{{ 6 * 7 }}</p>")
    environment(templates, cache).get_template("probe.html")
    [entry] = cache.iterdir()
    if damage == "cut short":
        entry.write_bytes(entry.read_bytes()[:40])
    elif damage == "other bytes":
        data = entry.read_bytes()
        entry.write_bytes(data[:-10] + b"x" * 10)
    else:
        entry.unlink()
        entry.mkdir()
    compiled = _compiles(monkeypatch)
    assert environment(templates, cache).get_template("probe.html").render() == "<p>42</p>"
    assert compiled == ["probe.html"]
