"""A reader of the block YAML result files are written in, for parse.parse_yaml: the same data
and lines as PyYAML's reading, in a fraction of its time, or None for anything else.

Why: composing a file with PyYAML calls back into Python for every value (to make its node and
to resolve its tag), which was most of a collect's processor time. Result files use a small
part of YAML: block mappings of plain keys and block sequences; plain, quoted and block
(``|``, ``|-``, ``>``, ``>-``) scalars; flow collections of plain scalars; comments. This reads
that part a line at a time. Whatever it does not know for certain it reads as PyYAML does (a
tab, an anchor or alias, a tag, an escape, a key that is not a plain word, a duplicate key, an
empty value, a document that is not a mapping, a limit reached) it leaves to PyYAML by giving
None, which also gives every refusal its message. A plain scalar's tag is PyYAML's own
resolver's, so ``yes``, ``~`` or ``2026-07-09`` mean what they mean there.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import ScalarNode

# What PyYAML refuses (characters that are not printable) or reads as a line break.
_SPECIAL = re.compile("[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_.\-]*):(?: +(.*))?\Z")
_PLAIN_FLOAT = re.compile(r"-?[0-9]+\.[0-9]+\Z")  # only YAML's float pattern matches these
_PLAIN_INT = re.compile(r"-?(?:0|[1-9][0-9]*)\Z")  # and only its int pattern these
# What a plain scalar may not start with here (indicators, quotes, flow, tags, aliases, …).
_NOT_PLAIN_START = frozenset("[]{}#&*!|>'\"%@`,?:")
_STR_TAG = "tag:yaml.org,2002:str"
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_NULL_TAG = "tag:yaml.org,2002:null"
_BOOL_TAG = "tag:yaml.org,2002:bool"

_resolver = yaml.resolver.Resolver()
_tags: dict[str, str] = {}  # a plain scalar's text → its tag (bounded: see _plain)
_MEMO_LIMIT = 10_000
_INT_DIGITS = 4_000  # (Python reads integers of up to 4,300 digits)


class _NotBlock(Exception):
    """The text is not of the part of YAML read here: PyYAML reads it."""


def read_block_yaml(text: str, max_depth: int, max_nodes: int) -> tuple[Any, Any] | None:
    """The document's data and line tree (parse._LineTree) as parse_yaml's walk gives them,
    or None when PyYAML must read it (see the module's docstring)."""
    try:
        reader = _Reader(text, max_depth, max_nodes)
        return reader.document()
    except _NotBlock:
        return None


class _Reader:
    def __init__(self, text: str, max_depth: int, max_nodes: int) -> None:
        if "\t" in text or "\r" in text or _SPECIAL.search(text):
            raise _NotBlock
        self.lines = text.split("\n")
        self.max_depth = max_depth
        self.nodes_left = max_nodes
        self.at = 0  # the index of the next line to read
        self.indent = -1  # the current content line's indent (after _next), -1 at the end
        self.content = ""  # and its text after the indent

    def document(self) -> tuple[Any, Any]:
        self._next()
        if self.indent != 0 or self.content.startswith("-"):
            raise _NotBlock  # a document that is not a mapping at the margin (or "---")
        data, tree = self._mapping(0, 0)
        if self.indent != -1:
            raise _NotBlock
        return data, tree

    def _next(self) -> None:
        """Move to the next line with content (not blank, not only a comment)."""
        lines = self.lines
        while self.at < len(lines):
            line = lines[self.at]
            self.at += 1
            content = line.lstrip(" ")
            if content and content[0] != "#":
                self.indent = len(line) - len(content)
                self.content = content
                return
        self.indent = -1
        self.content = ""

    @property
    def line(self) -> int:
        """The current content line's number (1-based)."""
        return self.at

    def _count(self, depth: int) -> None:
        self.nodes_left -= 1
        if self.nodes_left < 0 or depth > self.max_depth:
            raise _NotBlock  # PyYAML's reading says which limit

    def _block(self, parent_indent: int, depth: int) -> tuple[Any, Any]:
        """The block collection after ``key:`` at ``parent_indent``, on the next lines."""
        self._next()
        indent, content = self.indent, self.content
        if content.startswith("- ") and indent >= parent_indent:
            return self._sequence(indent, depth)
        if indent > parent_indent and not content.startswith("-"):
            return self._mapping(indent, depth)
        raise _NotBlock  # an empty value, or a "-" of another kind

    def _mapping(self, indent: int, depth: int) -> tuple[dict[str, Any], Any]:
        self._count(depth)
        start = self.line
        data: dict[str, Any] = {}
        lines: dict[str, tuple[int, Any]] = {}
        while self.indent == indent:
            match = _KEY.match(self.content)
            if match is None:
                raise _NotBlock
            key, rest = match.group(1), match.group(2)
            if key in data:
                raise _NotBlock
            key_line = self.line
            if not rest or rest[0] == "#":
                data[key], where = self._block(indent, depth + 1)
            else:
                self._count(depth + 1)
                data[key], where = self._scalar(rest, indent, key_line)
                self._next()
            lines[key] = (key_line, where)
        if self.indent > indent:
            raise _NotBlock  # a plain scalar over several lines, or worse
        return data, (start, lines)

    def _sequence(self, indent: int, depth: int) -> tuple[list[Any], Any]:
        self._count(depth)
        start = self.line
        items: list[Any] = []
        lines: list[Any] = []
        while self.indent == indent and self.content.startswith("- "):
            item = self.content[2:]
            column = indent + 2 + (len(item) - len(item.lstrip(" ")))
            item = item.lstrip(" ")
            if not item or item[0] == "#" or item == "-" or item.startswith("- "):
                raise _NotBlock
            if _KEY.match(item):
                # A mapping that starts on the item's line: read it as if its key began the line.
                self.indent, self.content = column, item
                value, where = self._mapping(column, depth + 1)
            else:
                self._count(depth + 1)
                value, where = self._scalar(item, indent, self.line)
                self._next()
            items.append(value)
            lines.append(where)
        if self.indent > indent:
            raise _NotBlock
        return items, (start, lines)

    def _scalar(self, text: str, parent_indent: int, line: int) -> tuple[Any, Any]:
        """The value written from ``text`` on line ``line`` (the rest of that line; a block
        scalar's lines, and a quoted scalar's or a flow collection's next lines, are read too),
        and its line tree."""
        first = text[0]
        if first in "[{":
            return self._flow(text, parent_indent, line)
        if first == "'":
            return self._single_quoted(text, parent_indent), line
        if first in "|>":
            return self._block_scalar(text, parent_indent), line
        if first == '"':
            end = text.find('"', 1)
            if end < 0 or "\\" in text[:end]:
                raise _NotBlock  # escapes, or over several lines
            _end_of_value(text[end + 1 :])
            return text[1:end], line
        if " #" not in text and self.at < len(self.lines):
            # (A comment ends a plain scalar. Most are followed at once by a line that is not
            # indented more than their key: no line continues them.)
            after = self.lines[self.at]
            if not after or after[parent_indent : parent_indent + 1] == " ":
                text += self._plain_continued(parent_indent)
        return _plain(text), line

    def _plain_continued(self, parent_indent: int) -> str:
        """The lines that continue a plain scalar (indented more than its key), folded as YAML
        folds them: a line break is a space, each empty line a line break; "" when none."""
        lines = self.lines
        folded = ""
        at = self.at
        breaks = 0
        while at < len(lines):
            raw = lines[at]
            content = raw.strip(" ")
            if not content:
                breaks += 1
                at += 1
                continue
            if len(raw) - len(raw.lstrip(" ")) <= parent_indent:
                break
            if content[0] in _NOT_PLAIN_START or content[0] == "-" or " #" in content:
                raise _NotBlock
            folded += ("\n" * breaks if breaks else " ") + content
            breaks = 0
            at += 1
            self.at = at  # (empty lines after the last continued line are not the scalar's)
        return folded

    def _flow(self, text: str, parent_indent: int, line: int) -> tuple[Any, Any]:
        """A flow sequence (``[a, b]``) or mapping (``{p50: 1.5, p90: 2}``) of plain scalars,
        over as many lines as it takes, each item at its own line."""
        closing = "]" if text[0] == "[" else "}"
        joined, starts = text, [(0, line)]  # the lines joined by spaces; where each starts
        while closing not in joined:
            if self.at >= len(self.lines):
                raise _NotBlock
            raw = self.lines[self.at]
            self.at += 1
            content = raw.strip(" ")
            if not content or len(raw) - len(raw.lstrip(" ")) <= parent_indent:
                raise _NotBlock
            joined += " "
            starts.append((len(joined), self.at))
            joined += content
        end = joined.index(closing)
        _end_of_value(joined[end + 1 :])
        inner = joined[1:end]
        if any(character in inner for character in "[]{}'\"#"):
            raise _NotBlock

        def line_at(offset: int) -> int:
            return next(number for start, number in reversed(starts) if start <= offset)

        items: list[tuple[str, int]] = []  # each item's text and where it starts in ``joined``
        offset = 1
        for item in inner.split(","):
            stripped = item.lstrip(" ")
            items.append((stripped.rstrip(" "), offset + len(item) - len(stripped)))
            offset += len(item) + 1
        if len(items) == 1 and not items[0][0]:
            items = []
        elif not items[-1][0]:
            items.pop()  # a trailing comma
        self.nodes_left -= len(items)
        if self.nodes_left < 0 or not all(item for item, _ in items):
            raise _NotBlock
        if closing == "]":
            if any(": " in item or item.endswith(":") for item, _ in items):
                raise _NotBlock
            return [_plain(item) for item, _ in items], (
                line,
                [line_at(at) for _, at in items],
            )
        mapping: dict[str, Any] = {}
        lines: dict[str, tuple[int, int]] = {}
        for item, at in items:
            match = _KEY.match(item)
            if match is None or not match.group(2) or match.group(1) in mapping:
                raise _NotBlock
            key, value = match.group(1), match.group(2)
            if ": " in value or value.endswith(":"):
                raise _NotBlock
            mapping[key] = _plain(value)
            lines[key] = (line_at(at), line_at(at + item.index(value, len(key) + 1)))
        return mapping, (line, lines)

    def _single_quoted(self, text: str, parent_indent: int) -> str:
        """A single-quoted scalar from ``text`` on, over as many lines as it takes (folded as
        YAML folds a flow scalar: a line break is a space, each empty line a line break)."""
        pieces: list[str] = []
        body = text[1:]
        first = True
        while True:
            end = _closing_quote(body)
            if end >= 0:
                last = body[:end]
                pieces.append(last if first else last.lstrip(" "))
                _end_of_value(body[end + 1 :])
                break
            pieces.append(body.rstrip(" ") if first else body.strip(" "))
            first = False
            if self.at >= len(self.lines):
                raise _NotBlock
            body = self.lines[self.at]
            self.at += 1
            stripped = body.lstrip(" ")
            if stripped and len(body) - len(stripped) <= parent_indent:
                raise _NotBlock  # a continuation line must be indented more than its key
        folded = pieces[0]
        breaks = 0  # empty lines since the last line with text
        for index in range(1, len(pieces)):
            piece = pieces[index]
            if not piece and index < len(pieces) - 1:
                breaks += 1
                continue
            folded += ("\n" * breaks if breaks else " ") + piece
            breaks = 0
        return folded.replace("''", "'")

    def _block_scalar(self, header: str, parent_indent: int) -> str:
        """A literal (``|``) or folded (``>``) block scalar, kept (clip) or stripped (``-``) of
        its final line break; the other forms (``|+``, an indentation digit) are PyYAML's."""
        style, chomp = header[0], header[1:2]
        _end_of_value(header[2:] if chomp == "-" else header[1:])
        lines = self.lines
        body: list[str] = []
        indent = 0  # the block's indentation, set by its first line with text
        at = self.at
        while at < len(lines):
            line = lines[at]
            content = line.lstrip(" ")
            spaces = len(line) - len(content)
            if content:
                if spaces <= parent_indent:
                    break  # the next key
                if not indent:
                    indent = spaces
                if spaces < indent:
                    raise _NotBlock
                if style == ">" and spaces > indent:
                    raise _NotBlock  # a more-indented line of a folded scalar keeps its breaks
                body.append(line[indent:])
            else:
                if line and (not indent or spaces > indent):
                    raise _NotBlock  # spaces that would be text of the block
                body.append("")
            at += 1
        self.at = at
        while body and not body[-1]:
            body.pop()  # trailing empty lines: chomped
        if not body:
            return ""
        if style == ">" and not body[0]:
            raise _NotBlock  # leading empty lines of a folded scalar
        if style == "|":
            text = "\n".join(body)
        else:
            text = body[0]
            breaks = 0
            for piece in body[1:]:
                if not piece:
                    breaks += 1
                    continue
                text += ("\n" * breaks if breaks else " ") + piece
                breaks = 0
        return text if chomp == "-" else text + "\n"


def _closing_quote(body: str) -> int:
    """Where the quote that ends a single-quoted scalar is in ``body`` ('' is a quote inside)."""
    at = 0
    while True:
        at = body.find("'", at)
        if at < 0 or body[at + 1 : at + 2] != "'":
            return at
        at += 2


def _end_of_value(rest: str) -> None:
    """After a quoted scalar or a flow collection: nothing, or a comment after a space."""
    if rest.strip(" ") and not (rest[0] == " " and rest.lstrip(" ")[0] == "#"):
        raise _NotBlock


def _plain(text: str) -> Any:
    if text[0] in _NOT_PLAIN_START or text.startswith(("- ", "---", "...")) or text == "-":
        raise _NotBlock
    comment = text.find(" #")
    if comment >= 0:
        text = text[:comment]
    text = text.rstrip(" ")
    if ": " in text or text.endswith(":"):
        raise _NotBlock
    if _PLAIN_FLOAT.match(text):
        return float(text)
    if _PLAIN_INT.match(text):
        if len(text) > _INT_DIGITS:
            raise _NotBlock  # Python refuses it: parse's walk says so
        return int(text)
    tag = _tags.get(text)
    if tag is None:
        tag = _resolver.resolve(ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
        if len(_tags) < _MEMO_LIMIT:
            _tags[text] = tag
    if tag in (_STR_TAG, _TIMESTAMP_TAG):  # dates stay text, as parse's walk keeps them
        return text
    if tag == _NULL_TAG:
        return None
    if tag == _BOOL_TAG:
        return SafeConstructor.bool_values[text.lower()]
    number = plain_number(tag, text)
    if number is None:
        raise _NotBlock  # another form (1_000, 0x1F, .inf, 1:30, a merge key): PyYAML's
    return number


_FLOAT_TAG = "tag:yaml.org,2002:float"
_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_CHARACTERS = frozenset("0123456789.eE+-")


def plain_number(tag: str, text: str) -> int | float | None:
    """A number as YAML's constructor reads it, for the plain forms a figure is written in
    (``-12.5``, ``1.0e+3``, ``42``), without the constructor's bookkeeping; None for every
    other form (``.inf``, ``1_000``, ``0x1F``, octal ``017``, ``1:30``), which it reads."""
    if tag == _FLOAT_TAG:
        return float(text) if _FLOAT_CHARACTERS.issuperset(text) else None
    if tag == _INT_TAG:
        digits = text[1:] if text[:1] in ("-", "+") else text
        if digits.isascii() and digits.isdigit() and (digits == "0" or digits[0] != "0"):
            return int(text)
    return None
