"""Parsing keeps line numbers and refuses the YAML features hostile files use."""

from __future__ import annotations

import pytest

from sitegen.errors import SitegenError
from sitegen.parse import MAX_FILE_BYTES, parse_document, parse_json, parse_yaml


def test_yaml_lines_for_every_pointer() -> None:
    document = parse_yaml("x.yaml", b"a: 1\nb:\n  - c: 2\n    d: [1, 2]\ne: 2026-07-09\n")
    assert document.data == {"a": 1, "b": [{"c": 2, "d": [1, 2]}], "e": "2026-07-09"}
    assert document.lines["/b/0/d"] == 4
    assert document.line_of("/b/0/d/5") == 4  # falls back to the nearest parent
    assert document.line_of("/missing") == 1


def test_every_pointer_has_the_line_yaml_gives_it() -> None:
    """The lines, made from the walk's tree when first asked for, against PyYAML's own node
    marks: a mapping's member at its key's line, a list item at its own, escaped keys too."""
    text = b"a: 1\nb/c:\n  - x~y: [1,\n      2]\n  - 3\nd:\n  e: {f: 4}\n"
    document = parse_yaml("x.yaml", text)
    assert dict(document.lines) == {
        "": 1,
        "/a": 1,
        "/b~1c": 2,
        "/b~1c/0": 3,
        "/b~1c/0/x~0y": 3,
        "/b~1c/0/x~0y/0": 3,
        "/b~1c/0/x~0y/1": 4,
        "/b~1c/1": 5,
        "/d": 6,
        "/d/e": 7,
        "/d/e/f": 7,
    }
    assert len(document.lines) == 11 and "/d/e/f" in document.lines


@pytest.mark.parametrize(
    "number",
    [
        "1.5",
        "-0.0",
        "+1.5",
        "1.0e+3",
        ".5",
        "1.",
        "42",
        "0",
        "-7",
        "+3",
        "-0",
        "00",
        "017",
        "0x1F",
        "1_000",
        ".inf",
        "-.inf",
        "1:30",
        "1e3",
        "685.230_15e+03",
        "0b101",
        "-0x1F",
    ],
)
def test_numbers_read_as_yaml_reads_them(number: str) -> None:
    """Plain figures are read without PyYAML's constructor (block_yaml.plain_number); every form,
    plain or not, reads as PyYAML reads it: same type, same value."""
    import yaml

    theirs = yaml.safe_load(f"v: {number}")["v"]
    ours = parse_yaml("x.yaml", f"v: {number}".encode()).data["v"]
    assert (type(ours), repr(ours)) == (type(theirs), repr(theirs))


def test_json_gets_lines_too() -> None:
    document = parse_json("x.json", b'{\n "a": [1,\n  {"b": 2}]\n}')
    assert document.data == {"a": [1, {"b": 2}]}
    assert document.lines["/a/1/b"] == 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"a: &x 1\nb: *x\n", "x.yaml:2: anchors and aliases"),
        (b"a: 1\na: 2\n", "x.yaml:2: /a: duplicate key 'a' (first at line 1)"),
        (
            b"a: !!python/object/apply:os.system [ls]\n",
            "the tag 'tag:yaml.org,2002:python/object/apply:os.system' is not allowed",
        ),
        (b"a: !custom 1\n", "the tag '!custom' is not allowed"),
        (b"<<: {a: 1}\n", "merge keys (<<) are not allowed"),
        (b"a: [\n", "x.yaml:2: invalid YAML"),
        (b"   \n", "x.yaml: file is empty"),
        (b"a: \xff\n", "x.yaml:1: file is not valid UTF-8"),
        (b"a:\n" + b"  " * 1 + b"[" * 100 + b"]" * 100 + b"\n", "nested more than 64 levels deep"),
    ],
)
def test_yaml_refusals(text: bytes, message: str) -> None:
    with pytest.raises(SitegenError) as caught:
        parse_yaml("x.yaml", text)
    assert message in str(caught.value)


def test_bom_and_crlf_are_accepted() -> None:
    assert parse_yaml("x.yaml", b"\xef\xbb\xbfa: 1\r\nb: 2\r\n").data == {"a": 1, "b": 2}


def test_oversized_file_is_refused_before_parsing() -> None:
    with pytest.raises(SitegenError, match="over the"):
        parse_document("x.yaml", b"a: 1\n" + b"#" * MAX_FILE_BYTES)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b'{"a": 1, "a": 2}', "duplicate key 'a'"),
        (b'{"a": NaN}', "NaN is not a number JSON allows"),
        (b'{"a": Infinity}', "Infinity is not a number JSON allows"),
        (b'{"a":', "x.json:1: invalid JSON: Expecting value"),
        (b"[" * 10000 + b"]" * 10000, "nested more than"),
    ],
)
def test_json_refusals(text: bytes, message: str) -> None:
    with pytest.raises(SitegenError) as caught:
        parse_document("x.json", text)
    assert message in str(caught.value)
