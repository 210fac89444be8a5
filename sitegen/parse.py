"""Parse YAML and JSON documents into plain data, keeping the line of every value.

Result files come from strangers, so the YAML subset is deliberately small: no
anchors or aliases (alias bombs), no merge keys, no custom tags, no duplicate keys,
bounded size and depth. A parse failure is a Problem, never an exception from a
third-party library.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from sitegen.block_yaml import plain_number, read_block_yaml
from sitegen.errors import Problem, SitegenError

MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 500_000
_SCALAR_TAGS = {f"tag:yaml.org,2002:{name}" for name in ("null", "bool", "int", "float", "str")}


@dataclass(frozen=True)
class Document:
    """A parsed file: its data and the 1-based line of each JSON pointer in it."""

    source: str
    data: Any
    lines: Mapping[str, int]

    def line_of(self, pointer: str) -> int | None:
        """The line of the value at ``pointer``, or of its nearest parent that has one."""
        while True:
            if pointer in self.lines:
                return self.lines[pointer]
            if not pointer:
                return None
            pointer = pointer.rsplit("/", 1)[0]


def escape_pointer_token(token: str | int) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def pointer_join(pointer: str, token: str | int) -> str:
    return f"{pointer}/{escape_pointer_token(token)}"


# libyaml's parser is many times faster than PyYAML's own; both compose an alias as a second
# reference to one node (never expanding it), which is how _Walk finds and refuses aliases.
_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_ALIAS = "anchors and aliases (*name) are not allowed; write the value out"
_HUGE_NUMBER = "a number with thousands of digits is not a figure; write it in a normal size"
_MERGE_KEY = "merge keys (<<) are not allowed; write the keys out"
_SURROGATE = "text holds an invalid character (a lone UTF-16 surrogate such as \\ud800); remove it"


class _Refused(Exception):
    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def _decode(source: str, raw: bytes, max_bytes: int = MAX_FILE_BYTES) -> str:
    if len(raw) > max_bytes:
        raise SitegenError(
            Problem(
                source,
                None,
                "",
                f"file is {len(raw):,} bytes, over the {max_bytes:,}-byte limit for a result file",
            )
        )
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SitegenError(
            Problem(source, line, "", "file is not valid UTF-8 text; save it as UTF-8")
        ) from None
    if not text.strip():
        raise SitegenError(Problem(source, None, "", "file is empty"))
    return text.replace("\r\n", "\n")


def parse_yaml(
    source: str, raw: bytes, *, max_bytes: int = MAX_FILE_BYTES, python_tuples: bool = False
) -> Document:
    """Parse one YAML document with line numbers; raise SitegenError on any problem.

    ``max_bytes`` lets raw tool output (a GuideLLM YAML report) be larger than a result file.
    ``python_tuples`` reads the ``!!python/tuple`` sequences of Python's ``yaml.dump`` (GuideLLM
    0.6 reports) as lists: only for foreign files; a result file never holds one.
    """
    text = _decode(source, raw, max_bytes)
    # Most result files are read by block_yaml, which gives what the walk below would, or None.
    read = read_block_yaml(text, MAX_DEPTH, MAX_NODES)
    if read is not None:
        data, tree = read
        return Document(source, data, _LazyLines(lambda: _tree_lines(tree)))
    loader = _Loader(text)
    try:
        try:
            node = loader.get_single_node()
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line = mark.line + 1 if mark else None
            what = exc.problem or exc.context or "invalid YAML"
            raise SitegenError(Problem(source, line, "", f"invalid YAML: {what}")) from None
        except yaml.YAMLError as exc:
            raise SitegenError(Problem(source, None, "", f"invalid YAML: {exc}")) from None
        if node is None:
            raise SitegenError(Problem(source, None, "", "file is empty"))
        walk = _Walk(loader, source, python_tuples)
        try:
            data, tree = walk.value(node, 0, 1)
        except yaml.YAMLError as exc:
            raise SitegenError(Problem(source, None, "", f"invalid YAML: {exc}")) from None
        return Document(source, data, _LazyLines(lambda: _tree_lines(tree)))
    finally:
        loader.dispose()


# Where a YAML value is, as the walk finds it: a scalar's line; a list's line and its items';
# a mapping's line and, by key, each key's line and its value's. A pointer for every value
# is made only when a line is asked for (_LazyLines): most documents have no problem to place.
_LineTree = int | tuple[int, list[Any]] | tuple[int, dict[str, tuple[int, Any]]]


class _LazyLines(Mapping[str, int]):
    """The line of each value of a document under its JSON pointer, worked out by ``work_out``
    the first time one is asked for: only a problem to report needs them, and working them out
    costs more than the rest of reading a file."""

    def __init__(self, work_out: Callable[[], Mapping[str, int]]) -> None:
        self._work_out: Callable[[], Mapping[str, int]] | None = work_out
        self._found: Mapping[str, int] = {}

    def _lines(self) -> Mapping[str, int]:
        if self._work_out is not None:
            self._found = self._work_out()
            self._work_out = None  # (nor what it holds) not needed again
        return self._found

    def __getitem__(self, pointer: str) -> int:
        return self._lines()[pointer]

    def __contains__(self, pointer: object) -> bool:
        return pointer in self._lines()

    def __iter__(self) -> Iterator[str]:
        return iter(self._lines())

    def __len__(self) -> int:
        return len(self._lines())


def _tree_lines(tree: _LineTree) -> dict[str, int]:
    """A YAML document's lines from the walk's tree (a mapping's member at its key's line)."""
    found: dict[str, int] = {}
    _flatten(tree, "", found)
    return found


def _flatten(tree: _LineTree, pointer: str, out: dict[str, int]) -> None:
    if isinstance(tree, int):
        out.setdefault(pointer, tree)
        return
    line, children = tree
    out.setdefault(pointer, line)
    if isinstance(children, list):
        for index, child in enumerate(children):
            _flatten(child, f"{pointer}/{index}", out)
        return
    for key, (key_line, child) in children.items():
        at = pointer_join(pointer, key)
        out[at] = key_line
        _flatten(child, at, out)


class _Walk:
    """Plain data from a composed YAML document, node by node, with each value's line (a
    _LineTree), refusing what a result file must not hold: aliases, tags, merge keys, duplicate
    keys, documents too large or too deep. The path to the value being read is kept as tokens,
    made a JSON pointer only for a refusal's message."""

    def __init__(self, loader: yaml.SafeLoader, source: str, python_tuples: bool) -> None:
        self.loader = loader
        self.source = source
        self.python_tuples = python_tuples
        self.seen: set[int] = set()
        self.path: list[str | int] = []

    def value(self, node: Node, depth: int, used_at: int) -> tuple[Any, _LineTree]:
        """The value of ``node`` and its lines; ``used_at`` is the line that uses it (where an
        alias is named)."""
        line = node.start_mark.line + 1
        if id(node) in self.seen:
            raise SitegenError(Problem(self.source, used_at, "", _ALIAS))
        self.seen.add(id(node))
        if len(self.seen) > MAX_NODES:
            self._refuse(line, f"document has more than {MAX_NODES:,} values")
        if depth > MAX_DEPTH:
            self._refuse(line, f"nested more than {MAX_DEPTH} levels deep")
        if isinstance(node, ScalarNode):
            return self._scalar(node, line), line
        if isinstance(node, SequenceNode):
            return self._sequence(node, line, depth)
        if isinstance(node, MappingNode):
            return self._mapping(node, line, depth)
        self._refuse(line, "unsupported YAML node")

    def _scalar(self, node: ScalarNode, line: int) -> Any:
        if node.tag == "tag:yaml.org,2002:str":
            return node.value  # the common case, without the constructor's bookkeeping
        if node.tag == "tag:yaml.org,2002:timestamp":
            # Dates stay strings so that 2026-07-09 means the same in YAML and JSON.
            return node.value
        if node.tag not in _SCALAR_TAGS:
            self._refuse_tag(node, line)
        try:
            plain = plain_number(node.tag, node.value)
            if plain is not None:
                return plain
            return self.loader.construct_object(node, deep=True)
        except yaml.YAMLError as exc:
            self._refuse(line, f"invalid value: {exc}")
        except ValueError:
            # Python refuses integers of more than 4,300 digits (a denial-of-service guard).
            self._refuse(line, _HUGE_NUMBER)

    def _sequence(self, node: SequenceNode, line: int, depth: int) -> tuple[Any, _LineTree]:
        tuples = self.python_tuples and node.tag == "tag:yaml.org,2002:python/tuple"
        if node.tag != "tag:yaml.org,2002:seq" and not tuples:
            self._refuse_tag(node, line)
        items: list[Any] = []
        lines: list[_LineTree] = []
        path = self.path
        for index, item in enumerate(node.value):
            path.append(index)
            value, where = self.value(item, depth + 1, item.start_mark.line + 1)
            path.pop()
            items.append(value)
            lines.append(where)
        return items, (line, lines)

    def _mapping(self, node: MappingNode, line: int, depth: int) -> tuple[Any, _LineTree]:
        if node.tag != "tag:yaml.org,2002:map":
            self._refuse_tag(node, line)
        result: dict[str, Any] = {}
        lines: dict[str, tuple[int, _LineTree]] = {}
        path = self.path
        for key_node, value_node in node.value:
            key_line = key_node.start_mark.line + 1
            if key_node.tag == "tag:yaml.org,2002:merge":
                self._refuse(key_line, _MERGE_KEY)
            if not isinstance(key_node, ScalarNode):
                self._refuse(key_line, "keys must be plain strings")
            key = str(key_node.value)
            path.append(key)
            if key in result:
                first = lines[key][0]
                self._refuse(key_line, f"duplicate key {key!r} (first at line {first})")
            result[key], where = self.value(value_node, depth + 1, key_line)
            path.pop()
            lines[key] = (key_line, where)
        return result, (line, lines)

    def _refuse_tag(self, node: Node, line: int) -> NoReturn:
        self._refuse(line, f"the tag {node.tag!r} is not allowed; use plain values")

    def _refuse(self, line: int, message: str) -> NoReturn:
        pointer = "".join(f"/{escape_pointer_token(token)}" for token in self.path)
        raise SitegenError(Problem(self.source, line, pointer, message)) from None


def parse_json(
    source: str, raw: bytes, *, max_bytes: int = MAX_FILE_BYTES, non_finite: bool = False
) -> Document:
    """Parse JSON strictly (no NaN, no duplicate keys); lines come from a YAML pass when it agrees.

    ``max_bytes`` lets raw tool output (telemetry, request samples) be larger than a result
    file; past MAX_FILE_BYTES the YAML pass refuses, so such a document has no line numbers.
    ``non_finite`` reads the bare ``Infinity``/``NaN`` that Python tools write (SGLang's
    ``"request_rate": Infinity``) as floats: only for foreign files, whose adapters decide what
    such a value means; a result file never holds one.
    """
    text = _decode(source, raw, max_bytes)

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in items:
            if key in result:
                raise _Refused(f"duplicate key {key!r}", None)
            result[key] = value
        return result

    def constant(name: str) -> Any:
        raise _Refused(f"{name} is not a number JSON allows; leave the figure out", None)

    try:
        data = json.loads(
            text, object_pairs_hook=pairs, parse_constant=float if non_finite else constant
        )
    except json.JSONDecodeError as exc:
        raise SitegenError(
            Problem(source, exc.lineno, "", f"invalid JSON: {exc.msg} (column {exc.colno})")
        ) from None
    except RecursionError:
        raise SitegenError(
            Problem(source, None, "", f"nested more than {MAX_DEPTH} levels deep")
        ) from None
    except _Refused as exc:
        raise SitegenError(
            Problem(source, _line_of_text(text, exc.message), "", exc.message)
        ) from None
    except ValueError:
        # Integers of more than 4,300 digits: Python refuses to convert them (a denial-of-service
        # guard).
        raise SitegenError(Problem(source, None, "", _HUGE_NUMBER)) from None
    # Worked out from the file's bytes alone, so what the document's data becomes later does
    # not change them; their YAML pass costs more than reading the JSON.
    lines = _LazyLines(lambda: _json_lines(source, raw))
    _check_plain(source, data, lines)
    return Document(source, data, lines)


def _check_plain(source: str, data: Any, lines: Mapping[str, int]) -> None:
    """What YAML refuses while parsing but JSON lets through: deep nesting and lone surrogates.

    Walks with an explicit stack, so that nesting just under Python's recursion limit cannot
    crash a later recursive stage (redaction, validation, rendering) instead.
    """
    stack: list[tuple[Any, str, int]] = [(data, "", 0)]
    while stack:
        value, pointer, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise SitegenError(
                Problem(source, None, "", f"nested more than {MAX_DEPTH} levels deep")
            )
        if isinstance(value, str):
            if _has_surrogate(value):
                raise SitegenError(Problem(source, _line(lines, pointer), pointer, _SURROGATE))
        elif isinstance(value, dict):
            for key, item in value.items():
                child = pointer_join(pointer, key)
                if _has_surrogate(key):
                    raise SitegenError(Problem(source, _line(lines, pointer), pointer, _SURROGATE))
                stack.append((item, child, depth + 1))
        elif isinstance(value, list):
            stack.extend(
                (item, pointer_join(pointer, index), depth + 1) for index, item in enumerate(value)
            )


def _has_surrogate(text: str) -> bool:
    # A lone surrogate can be decoded from a JSON escape but never encoded again as UTF-8,
    # so it would crash writing the collected file or a page.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _line(lines: Mapping[str, int], pointer: str) -> int | None:
    return Document("", None, lines).line_of(pointer)


def _line_of_text(text: str, message: str) -> int | None:
    # Best effort: find the first occurrence of the quoted key or constant named in the message.
    for quote in ("'", '"'):
        if quote in message:
            needle = f'"{message.split(quote)[1]}"'
            index = text.find(needle)
            if message.startswith("duplicate key") and index >= 0:
                # The duplicate is a later occurrence than the first: point at the second one.
                index = text.find(needle, index + 1)
            if index >= 0:
                return text.count("\n", 0, index) + 1
    for constant in ("NaN", "-Infinity", "Infinity"):
        if constant in message:
            index = text.find(constant)
            if index >= 0:
                return text.count("\n", 0, index) + 1
    return None


def _json_lines(source: str, raw: bytes) -> Mapping[str, int]:
    """The line of each value of ``raw``, a JSON document parse_json accepted."""
    # JSON is (nearly) YAML, so a YAML compose gives positions; if it disagrees, go without.
    try:
        document = parse_yaml(source, raw)
    except SitegenError:
        return {}
    # YAML reads a few JSON scalars differently (1e999 is text to YAML, infinity to JSON), but
    # any document both accept has the same shape in both, so its lines still apply. The JSON
    # is read again for its shape: parse_json read it without fault, so with the default for
    # repeated keys (there were none) and for Infinity and NaN (allowed, or absent).
    try:
        data = json.loads(_decode(source, raw, len(raw)), parse_constant=float)
        return document.lines if _shape(document.data) == _shape(data) else {}
    except RecursionError:
        return {}  # too deep for lines (_check_plain refuses such a document)


def _shape(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(item) for item in value]
    return None


def parse_document(source: str, raw: bytes) -> Document:
    """Parse by file extension: .json strictly as JSON, anything else as YAML."""
    if source.lower().endswith(".json"):
        return parse_json(source, raw)
    return parse_yaml(source, raw)
