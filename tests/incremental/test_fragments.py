"""The fragment cache (sitegen/site/incremental/fragments.py): pieces kept by key between builds,
any doubt a miss."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitegen.site.incremental.fragments import Fragments


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


def test_pieces_beyond_ascii_read_back_as_text_and_as_bytes(tmp_path: Path) -> None:
    """Pieces are kept as UTF-8 and found by their length in bytes: a page's piece reads back as
    the text it was, a data file's as its UTF-8 bytes, whatever characters either holds."""
    path = tmp_path / "fragments.json"
    texts = {
        "ascii": "<tr>plain",
        "latin": "8K · 10.2K × 2",
        "wide": "≤ 50 ms — ✓",
        "astral": "🚀 fast",
        "empty": "",
    }
    first = Fragments(path, "s")
    for name, text in texts.items():
        assert first.get(Fragments.key("row", name), lambda text=text: text) == text  # type: ignore[misc]
        assert (
            first.get(Fragments.key("row", name), lambda: "made twice") == text
        )  # once a build, even ""
    assert first.made == len(texts)
    first.save()
    second = Fragments(path, "s")
    for name, text in texts.items():
        assert bytes(second.get_bytes(Fragments.key("row", name), lambda: "made")) == text.encode()
        assert second.get(Fragments.key("row", name), lambda: "made") == text
    assert second.made == 0
    # The lengths in the file are each piece's bytes, in the order of the pieces' text.
    head = json.loads(path.read_bytes().split(b"\n", 1)[0])
    assert head["lengths"] == [len(text.encode()) for text in texts.values()]
    assert head["bytes"] == sum(len(text.encode()) for text in texts.values())


def test_a_kept_piece_that_is_not_utf8_is_made_again(tmp_path: Path) -> None:
    """A segment whose checksum holds but whose piece is not UTF-8 (written so by hand) is a
    miss for that piece as text, never an error."""
    path = tmp_path / "fragments.json"
    first = Fragments(path, "s")
    first.get(Fragments.key("row", "x"), lambda: "<tr>ok")
    first._used[Fragments.key("row", "x")] = b"<tr>\xff\xfe"  # as a hand-made file would hold it
    first.save()
    second = Fragments(path, "s")
    assert second.get(Fragments.key("row", "x"), lambda: "<tr>made") == "<tr>made"
    assert second.made == 1


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


def _build_asking_for(path: Path, pieces: dict[str, str], save: bool = True) -> Fragments:
    """A build that asks for each piece (its key's name → the text it would make), then saves."""
    fragments = Fragments(path, "s")
    for name, text in pieces.items():
        fragments.get(Fragments.key("row", name), lambda text=text: text)  # type: ignore[misc]
    if save:
        fragments.save()
    return fragments


def test_a_build_that_makes_pieces_appends_them(tmp_path: Path) -> None:
    """The file as the last build left it stays byte for byte; the new pieces follow it, and the
    next build finds the old and the new."""
    path = tmp_path / "fragments.json"
    _build_asking_for(path, {"a": "<tr>a"})
    before = path.read_bytes()
    _build_asking_for(path, {"a": "made again", "b": "<tr>b"})
    after = path.read_bytes()
    assert (
        after.startswith(before)
        and b"<tr>b" in after[len(before) :]
        and b"<tr>a" not in after[len(before) :]
    )
    third = Fragments(path, "s")
    log: list[str] = []
    assert third.get(Fragments.key("row", "a"), made_by(log, "x")) == "<tr>a"
    assert third.get(Fragments.key("row", "b"), made_by(log, "x")) == "<tr>b"
    assert log == [] and third.made == 0


@pytest.mark.parametrize("makes_a_piece", [True, False], ids=["made a piece", "made none"])
def test_once_unused_pieces_outweigh_the_used_a_whole_store_keeps_only_those_used(
    tmp_path: Path, makes_a_piece: bool
) -> None:
    """Where every build asks for every live piece (the figure cache), a build that made a
    piece, and found the file holding more characters of pieces nobody used than of the ones it
    used, rewrites it with only those; one that made none keeps the file as it is."""
    path = tmp_path / "fragments.json"
    first = Fragments(path, "s", every_build_asks_all=True)
    for name, text in {"unused": "<tr>unused" + "x" * 1000, "used": "<tr>used"}.items():
        first.get(Fragments.key("row", name), lambda text=text: text)  # type: ignore[misc]
    first.save()
    before = path.read_bytes()
    second = Fragments(path, "s", every_build_asks_all=True)
    second.get(Fragments.key("row", "used"), lambda: "made again")
    if makes_a_piece:
        second.get(Fragments.key("row", "new"), lambda: "<tr>new")
    second.save()
    data = path.read_bytes()
    assert b"<tr>used" in data
    assert (b"<tr>unused" in data) is not makes_a_piece
    assert (b"<tr>new" in data) is makes_a_piece
    assert (data == before) is not makes_a_piece
    third = Fragments(path, "s")
    assert third.get(Fragments.key("row", "used"), lambda: "made") == "<tr>used"


def test_a_rewrite_keeps_the_last_whole_writes_pieces_and_drops_unasked_appended_ones(
    tmp_path: Path,
) -> None:
    """A build that adds a run asks only for the pieces of the pages it makes again: the pieces
    of the last whole write (the file's first segment) stay for the builds that make the other
    pages again, appended to or rewritten; appended pieces no build asked for since go, once
    the appended pieces outweigh the first segment and the build's own."""
    path = tmp_path / "fragments.json"
    _build_asking_for(path, {"whole": "<tr>whole", "used": "<tr>used"})  # written whole
    _build_asking_for(path, {"used": "made again", "big": "<tr>big" + "x" * 1000})
    data = path.read_bytes()
    assert b"<tr>whole" in data and b"<tr>big" in data  # appended: nothing dropped
    _build_asking_for(path, {"used": "made again", "other": "<tr>other"})
    data = path.read_bytes()
    assert data.count(b'{"format"') == 1  # rewritten as one segment
    assert b"<tr>whole" in data and b"<tr>used" in data and b"<tr>other" in data
    assert b"<tr>big" not in data  # appended, and asked for by no build since
    log: list[str] = []
    fourth = Fragments(path, "s")
    assert fourth.get(Fragments.key("row", "whole"), made_by(log, "x")) == "<tr>whole"
    assert log == []


@pytest.mark.parametrize(
    "damage",
    [
        "cut short",
        "a byte of the first segment",
        "a byte of the second segment",
        "garbage after it",
    ],
)
def test_a_damaged_segment_is_a_miss_for_it_and_what_follows(tmp_path: Path, damage: str) -> None:
    """A crash while appending leaves a segment cut short at the end; a changed byte fails its
    segment's checksum. The pieces before it are still found; it and what follows are made
    again, and the next save rewrites the file whole."""
    path = tmp_path / "fragments.json"
    _build_asking_for(path, {"a": "<tr>first piece"})
    _build_asking_for(path, {"a": "made", "b": "<tr>second piece"})
    raw = path.read_bytes()
    if damage == "cut short":
        path.write_bytes(raw[:-3])
    elif damage == "garbage after it":
        path.write_bytes(raw + b"{not a segment")
    else:
        piece = b"<tr>first piece" if "first" in damage else b"<tr>second piece"
        at = raw.index(piece) + 5
        path.write_bytes(raw[:at] + bytes([raw[at] ^ 1]) + raw[at + 1 :])
    third = Fragments(path, "s")
    log: list[str] = []
    third.get(Fragments.key("row", "a"), made_by(log, "<tr>first piece"))
    third.get(Fragments.key("row", "b"), made_by(log, "<tr>second piece"))
    expected = {
        "cut short": ["<tr>second piece"],
        "garbage after it": [],
        "a byte of the first segment": ["<tr>first piece", "<tr>second piece"],
        "a byte of the second segment": ["<tr>second piece"],
    }[damage]
    assert log == expected
    if not expected:  # a whole file with garbage after it: nothing was made, so nothing is saved
        return
    third.save()
    fourth = Fragments(path, "s")
    assert fourth.get(Fragments.key("row", "a"), lambda: "made") == "<tr>first piece"
    assert fourth.get(Fragments.key("row", "b"), lambda: "made") == "<tr>second piece"
    assert (
        path.read_bytes().count(b"<tr>second piece") == 1
    )  # rewritten whole, not appended after the damage


def test_a_file_replaced_since_it_was_read_is_rewritten_not_appended_to(tmp_path: Path) -> None:
    path = tmp_path / "fragments.json"
    _build_asking_for(path, {"a": "<tr>a"})
    second = _build_asking_for(path, {"a": "made", "b": "<tr>b"}, save=False)
    path.unlink()
    path.write_bytes(b"someone else's file")
    second.save()
    assert b"someone else's file" not in path.read_bytes()
    third = Fragments(path, "s")
    assert third.get(Fragments.key("row", "b"), lambda: "made") == "<tr>b"


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

    from sitegen.site.pages.presets import PointSection
    from sitegen.site.render import environment
    from sitegen.site.sections.capacity import SectionLink

    (tmp_path / "_macros.html").write_text(
        "{% macro capacity_row(row, priced) %}<tr>{{ row.model }}{% endmacro %}"
    )
    own = Fragments(None, "", environment(tmp_path))
    assert (
        own.render("capacity_row", SectionLink("a", "<b>"), False) == "<tr>&lt;b&gt;"
    )  # escaped as in a page
    shipped = Fragments(None, "")
    section = PointSection("m-x", "M", True, Markup("<tr><th>kept"))
    assert shipped.render("point_section", section, None, False) == (
        '    <tbody id="m-x"><tr class=mh><th scope=rowgroup colspan=7>M '
        "(continued)<tr><th>kept    </tbody>"
    )


def test_a_run_is_named_by_its_content() -> None:
    from sitegen.model import run_from_dict
    from sitegen.store import digest

    data = {
        "hardware": {"type": "discrete-gpu", "accelerator": "RTX 4090", "count": 1},
        "engine": {"name": "x"},
        "run": {"model": "m"},
        "measurements": {"prefill": [], "decode": []},
    }
    assert Fragments.content(run_from_dict("r", data, digest="d1")) == ("r", "d1")
    # Made without a digest (tests, tools): its content's, so another content is another key.
    assert Fragments.content(run_from_dict("r", data)) == ("r", digest(data))
    other = {**data, "run": {"model": "n"}}
    assert Fragments.content(run_from_dict("r", other)) != Fragments.content(
        run_from_dict("r", data)
    )


def _checksums_checked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the segment bodies whose checksums a read works out from now on (a read
    hashes slices of the file read; keys and segments written are hashed from bytes)."""
    import hashlib

    from sitegen.site.incremental import fragments as module

    sizes: list[int] = []
    real = hashlib.sha256

    def counting(data: bytes | memoryview = b"") -> object:
        if isinstance(data, memoryview):
            sizes.append(len(data))
        return real(data)

    class Counting:
        sha256 = staticmethod(counting)

    monkeypatch.setattr(module, "hashlib", Counting)
    return sizes


def test_a_file_checked_or_appended_to_is_not_checked_again_until_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read checks each segment's checksum and, once the file has settled, records its
    identity; the next read of that very file takes the pieces without checking them, and so
    does the read after a write or an append (recorded by the build that wrote it). A file
    changed since (a byte, same size) is checked again, and its damaged segment is a miss."""
    from sitegen import files

    path = tmp_path / "fragments.json"
    _build_asking_for(path, {"a": "<tr>first"})  # a new file, written whole: recorded
    sizes = _checksums_checked(monkeypatch)
    _build_asking_for(path, {"a": "made"}, save=False)
    assert sizes == []  # as the build that wrote it recorded it
    (tmp_path / "fragments-checked.json").unlink()  # no record: a file from elsewhere
    files.file_system_now(tmp_path, after_tick=True)  # the clock past the file: settled
    _build_asking_for(path, {"a": "made"}, save=False)
    assert sizes == [len("<tr>first")]  # checked, and recorded
    sizes.clear()
    _build_asking_for(path, {"a": "made"}, save=False)
    assert sizes == []
    _build_asking_for(path, {"a": "made", "b": "<tr>second"})  # not checked again; appends
    assert sizes == []
    third = _build_asking_for(path, {"a": "made", "b": "made"}, save=False)
    assert sizes == []  # the appended file, as recorded
    assert third.made == 0
    raw = path.read_bytes()
    at = raw.index(b"<tr>first") + 4
    path.write_bytes(raw[:at] + b"F" + raw[at + 1 :])  # in place: the same inode and size
    log: list[str] = []
    fourth = Fragments(path, "s")
    fourth.get(Fragments.key("row", "a"), made_by(log, "<tr>first"))
    fourth.get(Fragments.key("row", "b"), made_by(log, "<tr>second"))
    assert log == [
        "<tr>first",
        "<tr>second",
    ]  # the first segment fails its checksum, and what follows is a miss
    assert sizes and sizes[0] == len("<tr>first")


def test_a_piece_put_then_used_stays_the_one_put(tmp_path: Path) -> None:
    # (figure_cache: an entry put by this build, then asked to be kept as it is.)
    path = tmp_path / "fragments.json"
    first = Fragments(path, "s")
    first.put("k", b"old")
    first.save()
    second = Fragments(path, "s")
    second.put("k", b"new")
    second.use("k")
    second.put("other", b"x")
    second.save()
    assert Fragments(path, "s").get("k", lambda: "made") == "new"


def _run_piece(run: object, *inputs: object) -> str:
    return f"{getattr(run, 'id', '')}:{getattr(run, 'digest', '')}:{inputs!r}"


def _other_piece(run: object, *inputs: object) -> str:
    return "other"


def test_a_collected_runs_piece_is_kept_by_its_id_digest_maker_and_inputs(tmp_path: Path) -> None:
    """cached_run_bytes keys a collected run's piece by its maker, id, digest and inputs (a
    cheaper key than cached_bytes's, docs/performance-log.md): the next build reads it back
    only when all four are as they were."""
    from sitegen.model import run_from_dict

    data = {
        "hardware": {"type": "discrete-gpu", "accelerator": "RTX 4090", "count": 1},
        "engine": {"name": "x"},
        "run": {"model": "m"},
        "measurements": {"prefill": [], "decode": []},
    }
    path = tmp_path / "fragments.json"
    first = Fragments(path, "s")
    run = run_from_dict("r", data, digest="d1")
    assert bytes(first.cached_run_bytes(_run_piece, run, 1)) == b"r:d1:(1,)"
    first.save()
    second = Fragments(path, "s")
    assert bytes(second.cached_run_bytes(_run_piece, run, 1)) == b"r:d1:(1,)"
    assert second.made == 0  # all four as they were: read back
    for maker, changed, inputs in (
        (_run_piece, run_from_dict("r", data, digest="d2"), (1,)),  # the content changed
        (_run_piece, run_from_dict("r2", data, digest="d1"), (1,)),  # another run
        (_run_piece, run, (2,)),  # another input
        (_run_piece, run, ()),  # no input
        (_other_piece, run, (1,)),  # another maker
    ):
        before = second.made
        second.cached_run_bytes(maker, changed, *inputs)
        assert second.made == before + 1, (maker.__name__, changed.id, inputs)


def test_a_recorded_file_is_read_a_piece_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The very file a build wrote (its identity recorded) is not read whole: its heads are, and
    each piece when it is asked for, the same text as a whole read gives; a file from elsewhere
    (no record) is read whole and checked."""
    from sitegen.site.incremental import fragments as module

    path = tmp_path / "fragments.json"
    pieces = {"a": "<tr>a", "b": "<tr>bé…", "c": ""}
    _build_asking_for(path, pieces)
    _build_asking_for(path, {**pieces, "d": "<tr>appended"})  # a second segment
    whole_reads: list[Path] = []
    real = module.read_bounded_open

    def counted(file: Path, *args: object, **kwargs: object) -> object:
        whole_reads.append(file)
        return real(file, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(module, "read_bounded_open", counted)
    log: list[str] = []
    lazy = Fragments(path, "s")
    for name, text in {**pieces, "d": "<tr>appended"}.items():
        assert lazy.get(Fragments.key("row", name), made_by(log, "made")) == text
        assert bytes(lazy.get_bytes(Fragments.key("row", name), made_by(log, "made"))) == (
            text.encode()
        )
    assert log == [] and whole_reads == []
    (tmp_path / "fragments-checked.json").unlink()
    whole = Fragments(path, "s")
    assert whole.get(Fragments.key("row", "b"), made_by(log, "made")) == "<tr>bé…"
    assert whole_reads == [path] and log == []


def test_a_piece_cut_from_the_file_after_its_heads_were_read_is_made_again(
    tmp_path: Path,
) -> None:
    path = tmp_path / "fragments.json"
    _build_asking_for(path, {"a": "<tr>a", "b": "<tr>b"})
    lazy = Fragments(path, "s")
    data = path.read_bytes()
    with open(path, "r+b") as stream:
        stream.truncate(len(data) - 2)  # the last piece cut short, in place
    log: list[str] = []
    assert lazy.get(Fragments.key("row", "a"), made_by(log, "made")) == "<tr>a"
    assert lazy.get(Fragments.key("row", "b"), made_by(log, "<tr>b again")) == "<tr>b again"
    assert log == ["<tr>b again"]


def test_a_rewrite_of_a_file_read_a_piece_at_a_time_keeps_every_piece(tmp_path: Path) -> None:
    """A rewrite (the appended pieces outweigh the rest) keeps the last whole write's pieces,
    read from the file, whole."""
    path = tmp_path / "fragments.json"
    first = {f"p{at}": f"<tr>{at}" for at in range(50)}
    _build_asking_for(path, first)
    for round_ in range(6):  # each build asks for one new piece, large: appended
        _build_asking_for(path, {f"big {round_}": f"<tr>{round_}" * 200})
    log: list[str] = []
    last = Fragments(path, "s")
    assert last.get(Fragments.key("row", "big 5"), made_by(log, "made")) == "<tr>5" * 200
    for name, text in first.items():
        assert last.get(Fragments.key("row", name), made_by(log, "made")) == text
    assert log == []
    data = path.read_bytes()
    assert sum(f"<tr>{at}".encode() * 200 in data for at in range(6)) < 6  # it was rewritten
