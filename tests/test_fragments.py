"""The fragment cache (sitegen/site/fragments.py): pieces kept by key between builds, any doubt a miss."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitegen.site.fragments import Fragments
from sitegen.store import read_cache


def made_by(log: list[str], text: str):  # type: ignore[no-untyped-def]
    def make() -> str:
        log.append(text)
        return text

    return make


def test_a_piece_is_made_once_and_read_back_by_the_next_build(tmp_path: Path) -> None:
    path = tmp_path / "fragments.json"
    log: list[str] = []
    first = Fragments(path, "scope")
    key = Fragments.key("row", "run-1", "digest-1")
    assert first.get(key, made_by(log, "<tr>one")) == "<tr>one"
    assert first.get(key, made_by(log, "<tr>other")) == "<tr>one"  # once per build
    first.save()
    second = Fragments(path, "scope")
    assert second.get(key, made_by(log, "<tr>again")) == "<tr>one"
    assert log == ["<tr>one"]
    assert second.made == 0


def test_keys_name_their_inputs() -> None:
    assert Fragments.key("row", "a", 1) != Fragments.key("row", "a", 2)
    assert Fragments.key("row", "a") != Fragments.key("section", "a")
    assert Fragments.key("row", ("a", "b")) == Fragments.key("row", ("a", "b"))


def test_another_scope_misses_everything(tmp_path: Path) -> None:
    path = tmp_path / "fragments.json"
    first = Fragments(path, "code 1")
    key = Fragments.key("row", "x")
    first.get(key, lambda: "old")
    first.save()
    assert Fragments(path, "code 2").get(key, lambda: "new") == "new"


@pytest.mark.parametrize("makes_a_piece", [True, False], ids=["made a piece", "made none"])
def test_a_build_that_makes_pieces_keeps_only_those_it_used(tmp_path: Path, makes_a_piece: bool) -> None:
    """A build that made a piece keeps only the pieces it used; one that made none (it rebuilt
    no listing, so it used few) keeps the file whole for the next one."""
    path = tmp_path / "fragments.json"
    first = Fragments(path, "s")
    first.get(Fragments.key("row", "unused"), lambda: "<tr>unused")
    first.get(Fragments.key("row", "used"), lambda: "<tr>used")
    first.save()
    second = Fragments(path, "s")
    second.get(Fragments.key("row", "used"), lambda: "made again")
    if makes_a_piece:
        second.get(Fragments.key("row", "new"), lambda: "<tr>new")
    second.save()
    data = read_cache(path)
    assert data is not None and b"<tr>used" in data
    assert (b"<tr>unused" in data) is not makes_a_piece
    assert (b"<tr>new" in data) is makes_a_piece


def test_a_damaged_file_is_a_miss_never_content(tmp_path: Path) -> None:
    path = tmp_path / "fragments.json"
    first = Fragments(path, "s")
    key = Fragments.key("row", "x")
    first.get(key, lambda: "<tr>kept")
    first.save()
    raw = path.read_bytes()
    path.write_bytes(raw.replace(b"<tr>kept", b"<tr>evil"))  # the checksum no longer matches
    assert Fragments(path, "s").get(key, lambda: "made") == "made"
    path.write_bytes(b"not a cache file")
    assert Fragments(path, "s").get(key, lambda: "made") == "made"


def test_without_a_file_pieces_are_still_made_once(tmp_path: Path) -> None:
    fragments = Fragments(None, "")
    log: list[str] = []
    key = Fragments.key("row", 1)
    fragments.get(key, made_by(log, "a"))
    fragments.get(key, made_by(log, "b"))
    fragments.save()  # nowhere to keep them: nothing written, no error
    assert log == ["a"]
    assert list(tmp_path.iterdir()) == []


def test_a_piece_of_a_page_is_rendered_by_the_builds_own_templates(tmp_path: Path) -> None:
    """fragments.render calls a macro of _macros.html: the build's templates (a site's own),
    or without them the ones sitegen ships."""
    from markupsafe import Markup

    from sitegen.site.capacity_page import PointSection, SectionLink
    from sitegen.site.render import environment

    (tmp_path / "_macros.html").write_text("{% macro capacity_row(row, priced) %}<tr>{{ row.model }}{% endmacro %}")
    own = Fragments(None, "", environment(tmp_path))
    assert own.render("capacity_row", SectionLink("a", "<b>"), False) == "<tr>&lt;b&gt;"  # escaped as in a page
    shipped = Fragments(None, "")
    section = PointSection("m-x", "M", True, Markup("<tr><th>kept"))
    assert shipped.render("point_section", section, None, False) == \
        '    <tbody id="m-x"><tr class=mh><th scope=rowgroup colspan=7>M (continued)<tr><th>kept    </tbody>'


def test_a_run_is_named_by_its_content() -> None:
    from sitegen.model import run_from_dict
    from sitegen.store import digest

    data = {"hardware": {"type": "discrete-gpu", "accelerator": "RTX 4090", "count": 1}, "engine": {"name": "x"},
            "run": {"model": "m"}, "measurements": {"prefill": [], "decode": []}}
    assert Fragments.content(run_from_dict("r", data, digest="d1")) == ("r", "d1")
    # Made without a digest (tests, tools): its content's, so another content is another key.
    assert Fragments.content(run_from_dict("r", data)) == ("r", digest(data))
    other = {**data, "run": {"model": "n"}}
    assert Fragments.content(run_from_dict("r", other)) != Fragments.content(run_from_dict("r", data))
