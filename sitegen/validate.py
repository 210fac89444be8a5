"""Check parsed documents against the JSON Schemas in schema/ and against the rules a
schema cannot express. Every problem is reported with file, line and JSON pointer, so a
contributor knows exactly which line of a pull request to edit.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import marshal
import math
import re
import sys
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import fastjsonschema

from sitegen.errors import Problem
from sitegen.parse import Document, pointer_join
from sitegen.resources import load_schema

if TYPE_CHECKING:  # jsonschema is imported only when a file is invalid: it is slow to import
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

_TYPE_NAMES = {
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "object": "a mapping of fields",
    "array": "a list",
    "boolean": "true or false",
    "null": "null",
}


@cache
def _validator(name: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(inline_refs(schema))


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with its local ``$ref``s replaced by their targets.

    Same meaning, but jsonschema no longer resolves a reference for every number of every
    cell: validation takes about half the time, which is most of a cold collect.
    """
    definitions = schema.get("$defs", {})

    def merge(target: dict[str, Any], siblings: dict[str, Any]) -> dict[str, Any]:
        merged = dict(target)
        for key, value in siblings.items():
            if key not in merged:
                merged[key] = value
            elif key in ("maxLength", "maxItems", "maximum"):
                merged[key] = min(merged[key], value)
            elif key != "description":  # the target's own description names what it checks
                return {"allOf": [target], **siblings}
        return merged

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        reference = node.get("$ref")
        if isinstance(reference, str) and reference.startswith("#/$defs/"):
            target = walk(definitions[reference.removeprefix("#/$defs/")])
            siblings = {key: walk(value) for key, value in node.items() if key != "$ref"}
            return merge(target, siblings) if siblings else target
        return {key: walk(value) for key, value in node.items() if key != "$defs"}

    inlined: dict[str, Any] = walk(schema)
    return inlined


@cache
def _fast_check(name: str) -> Callable[[Any], Any]:
    # fastjsonschema compiles the schema to Python: much faster than jsonschema, which matters
    # when collecting many files. Our schemas use no keyword newer than draft 7.
    schema = {
        **inline_refs(load_schema(name)),
        "$schema": "http://json-schema.org/draft-07/schema#",
    }
    if _compiled_folder is None:
        check: Callable[[Any], Any] = fastjsonschema.compile(schema)
        return check
    return _kept_check(name, schema, _compiled_folder)


# Where compiled schema checks are kept between runs (keep_compiled_checks); None: not kept.
_compiled_folder: Path | None = None
_ENTRY_POINT = re.compile(r"^def (\w+)\(", re.MULTILINE)


def keep_compiled_checks(folder: Path | None) -> None:
    """Keep the compiled schema checks in ``folder`` (``.sitegen/cache/validators/``).

    Compiling a schema costs as much as the rest of a collect that finds one new run, and
    sitegen.yaml's schema is compiled by every command. Like Python's ``__pycache__`` and the
    build's compiled templates, the entries are code that is run: the project folder is trusted
    as a whole. An entry is named by everything the code depends on (the schema,
    fastjsonschema's version, the Python version: marshal's format is Python's own), and read as
    every cache file is (store.read_cache: a checksum), so a damaged entry or a new version is
    compiled again."""
    global _compiled_folder
    _compiled_folder = folder
    _fast_check.cache_clear()


def _kept_check(name: str, schema: dict[str, Any], folder: Path) -> Callable[[Any], Any]:
    from sitegen.store import read_cache, write_cache

    # Named by everything the compiled code depends on, as one JSON list (no separator to pick).
    inputs = [fastjsonschema.VERSION, sys.version, sys.implementation.cache_tag or "", schema]
    key = hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()
    path = folder / f"{name}-{key[:32]}.code"
    data = read_cache(path)
    if data is not None:
        entry, _, code = data.partition(b"\n")
        # Any failure (a damaged entry, code that no longer runs) only means compiling again.
        with contextlib.suppress(Exception):
            namespace: dict[str, Any] = {}
            exec(marshal.loads(code), namespace)  # fastjsonschema's own code, compiled earlier
            kept: Callable[[Any], Any] = namespace[entry.decode()]
            return kept
    source = fastjsonschema.compile_to_code(schema)
    found = _ENTRY_POINT.search(source)
    if found is None:  # not the code this was written for: compile as without a folder
        check: Callable[[Any], Any] = fastjsonschema.compile(schema)
        return check
    compiled = compile(source, f"<schema {name}>", "exec")
    namespace = {}
    exec(compiled, namespace)  # what fastjsonschema.compile() itself does
    if folder.parent.parent.is_dir():  # only in a project that has its .sitegen/ already
        with contextlib.suppress(OSError):  # a check not kept is compiled again next time
            write_cache(path, found.group(1).encode() + b"\n" + marshal.dumps(compiled))
    made: Callable[[Any], Any] = namespace[found.group(1)]
    return made


# Result schemas by the schema_version that chooses them. Each version is the one before plus
# optional fields, so every version a file can declare is checked by exactly one published schema.
RESULT_SCHEMAS = {1: "result", 1.1: "result-1.1", 1.2: "result-1.2"}
LATEST_RESULT_VERSION = 1.2


def result_schema_name(data: Any) -> str:
    """The schema a result document declares with ``schema_version`` (schema 1 when unknown,
    so a wrong version is reported by the const rule with the versions there are)."""
    version = data.get("schema_version") if isinstance(data, dict) else None
    if isinstance(version, bool) or not isinstance(version, (int, float)):
        return RESULT_SCHEMAS[1]
    return RESULT_SCHEMAS.get(version, RESULT_SCHEMAS[1])


def check_result_schema(document: Document) -> list[Problem]:
    """``check_schema`` with the result schema the document declares, and the hints that
    schema versions need: a field of a later version in an older file, a version that does
    not exist."""
    name = result_schema_name(document.data)
    problems = check_schema(document, name)
    declared = next(v for v, n in RESULT_SCHEMAS.items() if n == name)
    hinted = []
    for problem in problems:
        field = problem.pointer.rsplit("/", 1)[-1]
        added_in = _version_adding(declared, field)
        if problem.message.startswith("unknown field") and added_in is not None:
            problem = Problem(
                problem.source,
                problem.line,
                problem.pointer,
                f"unknown field {field!r} in a schema_version {declared} file; "
                f"it is new in schema {added_in}, "
                f"so declare schema_version: {added_in} to use it",
            )
        elif problem.pointer == "/schema_version" and problem.message.startswith("must be"):
            *earlier, last = (str(v) for v in RESULT_SCHEMAS)
            versions = f"{', '.join(earlier)} or {last}"
            problem = Problem(
                problem.source,
                problem.line,
                problem.pointer,
                f"must be {versions}, not {_short(document.data.get('schema_version'))}",
            )
        hinted.append(problem)
    return hinted


def _version_adding(declared: float, field: str) -> float | None:
    """The first schema version after ``declared`` that allows ``field``, if any does."""
    for version in RESULT_SCHEMAS:
        if version > declared and field in _fields_new_in(declared, version):
            return version
    return None


@cache
def _fields_new_in(older: float, newer: float) -> frozenset[str]:
    """Field names the ``newer`` result schema allows that the ``older`` one does not."""
    old, new = load_schema(RESULT_SCHEMAS[older]), load_schema(RESULT_SCHEMAS[newer])
    added: set[str] = set()
    for name, definition in new["$defs"].items():
        before = set(old["$defs"].get(name, {}).get("properties", {}))
        added |= set(definition.get("properties", {})) - before
    return frozenset(added)


def check_schema(document: Document, schema_name: str) -> list[Problem]:
    """Every schema violation in ``document``, one Problem each, sorted by line."""
    try:
        _fast_check(schema_name)(document.data)
        return []  # valid: the common case, decided by the compiled check
    except fastjsonschema.JsonSchemaException:
        pass  # invalid: jsonschema names every problem, with the detail users need
    problems: list[Problem] = []
    for error in _validator(schema_name).iter_errors(document.data):
        if isinstance(error.instance, float) and not math.isfinite(error.instance):
            continue  # check_numbers explains non-finite numbers better than a range error
        if is_placeholder(error.instance):
            continue  # check_placeholders says what to fill in, which a type error would not
        problems.extend(_describe(document, error))
    return sorted(set(problems), key=lambda p: (p.line or 0, p.pointer, p.message))


def _pointer(path: Any) -> str:
    pointer = ""
    for token in path:
        pointer = pointer_join(pointer, token)
    return pointer


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return f"text {_short(value)}"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "…"


def _did_you_mean(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _describe(document: Document, error: ValidationError) -> Iterator[Problem]:
    pointer = _pointer(error.absolute_path)
    line = document.line_of(pointer)
    source = document.source
    validator = error.validator
    schema = error.schema if isinstance(error.schema, dict) else {}
    instance: Any = error.instance

    if validator == "additionalProperties" and isinstance(instance, dict):
        known = sorted(schema.get("properties", {}))
        for key in sorted(k for k in instance if k not in known):
            child = pointer_join(pointer, key)
            hint = _did_you_mean(key, known) or (f"; allowed: {', '.join(known)}" if known else "")
            yield Problem(source, document.line_of(child), child, f"unknown field {key!r}{hint}")
        return
    if validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        yield Problem(source, line, pointer, f"missing required field {missing!r}")
        return
    if validator == "enum":
        options = [str(o) for o in schema.get("enum", [])]
        hint = _did_you_mean(str(instance), options)
        yield Problem(
            source,
            line,
            pointer,
            f"{_short(instance)} is not one of {', '.join(repr(o) for o in options)}{hint}",
        )
        return
    if validator == "const":
        yield Problem(
            source, line, pointer, f"must be {schema.get('const')!r}, not {_short(instance)}"
        )
        return
    if validator == "type":
        wanted = schema.get("type")
        names = [wanted] if isinstance(wanted, str) else list(wanted or [])
        expected = " or ".join(_TYPE_NAMES.get(n, n) for n in names)
        yield Problem(source, line, pointer, f"expected {expected}, got {_type_of(instance)}")
        return
    if validator == "pattern":
        description = schema.get("description")
        if description and description[:1].islower():
            yield Problem(source, line, pointer, f"{_short(instance)} is not {description}")
        else:
            yield Problem(
                source,
                line,
                pointer,
                f"{_short(instance)} does not match the pattern {schema.get('pattern')}",
            )
        return
    if validator in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        bound = schema.get(validator)
        relation = {
            "minimum": "at least",
            "exclusiveMinimum": "more than",
            "maximum": "at most",
            "exclusiveMaximum": "less than",
        }[validator]
        yield Problem(
            source,
            line,
            pointer,
            f"{_short(instance)} is out of range: must be {relation} {bound:,}",
        )
        return
    if validator in ("minLength", "maxLength"):
        if validator == "minLength":
            yield Problem(source, line, pointer, "must not be empty; leave the field out instead")
        else:
            limit = schema.get("maxLength")
            yield Problem(
                source,
                line,
                pointer,
                f"text is {len(instance):,} characters, over the limit of {limit:,}",
            )
        return
    if validator in ("maxItems", "maxProperties"):
        yield Problem(
            source,
            line,
            pointer,
            f"too many entries ({len(instance):,}); the limit is {schema.get(validator):,}",
        )
        return
    if validator in ("oneOf", "anyOf") and error.context:
        best = min(error.context, key=lambda e: len(list(e.absolute_path)))
        yield from _describe(document, best)
        return
    yield Problem(source, line, pointer, error.message)


# --- rules the schema cannot express ------------------------------------------------

# `sitegen new` writes this in front of every value a contributor must supply.
PLACEHOLDER = "<fill in"


def is_placeholder(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(PLACEHOLDER)


def _scalars(value: Any) -> Iterator[tuple[str, str | int | None, Any]]:
    """Every value that is not a mapping or a list, in document order: its container's JSON
    pointer, its key or index there (None: the document is the value), and the value. A
    check makes the value's own pointer (_member_pointer) only for what it reports: a document has
    thousands of figures and most have nothing to say."""
    if not isinstance(value, dict | list):
        yield "", None, value
        return
    stack = [("", _members(value))]
    while stack:
        pointer, members = stack[-1]
        for key, item in members:
            if isinstance(item, dict | list):
                stack.append((pointer_join(pointer, key), _members(item)))
                break
            yield pointer, key, item
        else:
            stack.pop()


def _members(container: dict[str, Any] | list[Any]) -> Iterator[tuple[str | int, Any]]:
    return iter(container.items() if isinstance(container, dict) else enumerate(container))


def _member_pointer(container: str, key: str | int | None) -> str:
    return container if key is None else pointer_join(container, key)


def check_placeholders(document: Document) -> list[Problem]:
    """Values still holding a ``sitegen new`` placeholder, each with what belongs there."""
    problems: list[Problem] = []
    for container, key, value in _scalars(document.data):
        if is_placeholder(value):
            pointer = _member_pointer(container, key)
            wanted = value.removeprefix(PLACEHOLDER).lstrip(":").strip().removesuffix(">").strip()
            problems.append(
                Problem(
                    document.source,
                    document.line_of(pointer),
                    pointer,
                    f"fill in {wanted or 'this value'} (replace the placeholder from `sitegen "
                    f"new`)",
                )
            )
    return problems


_FIGURES = (
    "total_tokens_per_s",
    "per_request_tokens_per_s",
    "ttft_ms",
    "time_between_tokens_ms",
    "average_active_requests",
    "completed_requests",
    "output_tokens",
    "measured_s",
)
_MEASURED = {"valid", "requests_queued"}
_STATUSES = _MEASURED | {"over_capacity", "not_run", "failed"}


# The smallest figure that is not zero: a denormal speed such as 5e-324 passes a schema
# minimum of 0 but divides to infinity in every ratio the site shows.
SMALLEST_FIGURE = 1e-6


def check_numbers(document: Document) -> list[Problem]:
    """What a JSON Schema lets through in numbers: NaN and infinities, -0.0, figures too small
    to be measurements, and integral floats (``2.0``) where the result schema the document
    declares wants a whole number."""
    problems: list[Problem] = []
    whole = _integer_places(result_schema_name(document.data))
    for container, key, value in _scalars(document.data):
        if not isinstance(value, float):
            continue
        if math.isfinite(value) and abs(value) >= SMALLEST_FIGURE and not value.is_integer():
            continue  # a figure neither whole nor too small: nothing to say (most of them)
        pointer = _member_pointer(container, key)
        message = None
        if not math.isfinite(value):
            message = f"{value} is not a finite number; leave the figure out if it was not measured"
        elif value == 0 and math.copysign(1.0, value) < 0:
            message = "-0.0 is not a figure; write 0"
        elif 0 < abs(value) < SMALLEST_FIGURE:
            message = (
                f"{value!r} is too small to be a measurement (the smallest figure that is not 0 is "
                f"{SMALLEST_FIGURE:g}); write 0 or the figure in its unit"
            )
        elif value.is_integer() and _place(pointer) in whole:
            message = f"expected a whole number, got {value!r}; write {int(value)}"
        if message:
            problems.append(Problem(document.source, document.line_of(pointer), pointer, message))
    return problems


def _place(pointer: str) -> str:
    """A pointer with list indices as ``*``: the place in the schema that describes its value."""
    return "/".join("*" if token.isdigit() else token for token in pointer.split("/"))


@cache
def _integer_places(schema_name: str) -> frozenset[str]:
    """Every place (see _place) where the schema wants an integer. JSON Schema counts 2.0 as an
    integer, so without this a count of ``2.0`` would pass and be shown as "2.0 ×"."""
    places: set[str] = set()

    def walk(node: Any, place: str) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item, place)
            return
        if not isinstance(node, dict):
            return
        kind = node.get("type")
        if kind == "integer" or (
            isinstance(kind, list) and "integer" in kind and "number" not in kind
        ):
            places.add(place)
        for key in ("allOf", "anyOf", "oneOf"):
            walk(node.get(key), place)
        for name, child in (node.get("properties") or {}).items():
            walk(child, f"{place}/{name}")
        walk(node.get("items"), f"{place}/*")
        if isinstance(node.get("additionalProperties"), dict):
            walk(node["additionalProperties"], f"{place}/*")

    walk(inline_refs(load_schema(schema_name)), "")
    return frozenset(places)


def check_result_rules(document: Document) -> list[Problem]:
    """Duplicate cells and points, decode figures that contradict their status, load point rules."""
    problems: list[Problem] = []
    source = document.source
    measurements = document.data.get("measurements") if isinstance(document.data, dict) else None
    if not isinstance(measurements, dict):
        return problems

    prefill = measurements.get("prefill")
    if isinstance(prefill, list):
        seen: dict[tuple[Any, ...], int] = {}
        for index, point in enumerate(prefill):
            if not isinstance(point, dict) or "context_tokens" not in point:
                continue
            key = (point["context_tokens"], point.get("prompt_chunk_tokens"))
            pointer = f"/measurements/prefill/{index}"
            if not _hashable(key):
                continue  # a list or mapping where a number belongs: the schema reports it
            if key in seen:
                problems.append(
                    Problem(
                        source,
                        document.line_of(pointer),
                        pointer,
                        f"duplicate prefill point for context {point['context_tokens']} "
                        f"(first at /measurements/prefill/{seen[key]})",
                    )
                )
            else:
                seen[key] = index

    decode = measurements.get("decode")
    if isinstance(decode, list):
        cells: dict[tuple[Any, ...], int] = {}
        for index, cell in enumerate(decode):
            if not isinstance(cell, dict):
                continue
            pointer = f"/measurements/decode/{index}"
            position = (
                cell.get("context_tokens"),
                cell.get("concurrency"),
                cell.get("output_tokens_per_request"),
            )
            if None not in position[:2] and _hashable(position):
                if position in cells:
                    problems.append(
                        Problem(
                            source,
                            document.line_of(pointer),
                            pointer,
                            f"duplicate decode cell for context {position[0]} × {position[1]} "
                            f"requests "
                            f"(first at /measurements/decode/{cells[position]})",
                        )
                    )
                else:
                    cells[position] = index
            problems.extend(_check_status(document, cell, pointer))
    problems.extend(_check_load_points(document, measurements.get("load_points")))
    return problems


_LOAD_KEYS = (
    "request_rate",
    "arrival",
    "burstiness",
    "max_concurrency",
    "input_tokens_per_request",
    "output_tokens_per_request",
)


def _check_load_points(document: Document, points: Any) -> Iterator[Problem]:
    """No two load points with the same load and lengths; burstiness exactly for gamma arrivals."""
    if not isinstance(points, list):
        return
    seen: dict[tuple[Any, ...], int] = {}
    for index, point in enumerate(points):
        if not isinstance(point, dict):
            continue
        pointer = f"/measurements/load_points/{index}"
        key = tuple(point.get(name) for name in _LOAD_KEYS)
        if _hashable(key) and key in seen:
            yield Problem(
                document.source,
                document.line_of(pointer),
                pointer,
                f"duplicate load point at {point.get('request_rate')} requests/s with "
                "the same arrival, cap and lengths (first at "
                f"/measurements/load_points/{seen[key]})",
            )
        elif _hashable(key):
            seen[key] = index
        arrival = point.get("arrival")
        if arrival == "gamma" and "burstiness" not in point:
            child = f"{pointer}/arrival"
            yield Problem(
                document.source,
                document.line_of(child),
                child,
                "gamma arrivals need their shape: add burstiness (1 is Poisson: then "
                "write arrival: poisson)",
            )
        elif arrival in ("poisson", "constant") and "burstiness" in point:
            child = f"{pointer}/burstiness"
            yield Problem(
                document.source,
                document.line_of(child),
                child,
                "burstiness is the shape of gamma arrivals, but arrival is "
                f"{arrival!r}: remove it, or write arrival: gamma",
            )


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _check_status(document: Document, cell: dict[str, Any], pointer: str) -> Iterator[Problem]:
    status = cell.get("status")
    if not isinstance(status, str) or status not in _STATUSES:
        return  # the schema reports unknown statuses
    present = [name for name in _FIGURES if name in cell]
    if status in _MEASURED:
        if "total_tokens_per_s" not in cell:
            yield Problem(
                document.source,
                document.line_of(f"{pointer}/status"),
                f"{pointer}/status",
                f"status {status!r} needs total_tokens_per_s: a measured cell must give its "
                f"throughput",
            )
        concurrency = cell.get("concurrency")
        active = cell.get("average_active_requests")
        if (
            isinstance(concurrency, int)
            and isinstance(active, (int, float))
            and active > concurrency * 1.05
        ):
            child = f"{pointer}/average_active_requests"
            yield Problem(
                document.source,
                document.line_of(child),
                child,
                f"{active} active requests on average is more than the {concurrency} sent at once",
            )
    elif present:
        label = status.replace("_", " ")
        for name in present:
            child = pointer_join(pointer, name)
            yield Problem(
                document.source,
                document.line_of(child),
                child,
                f"a cell with status {status!r} has no measurements ({label}), but {name} is "
                f"given; "
                "remove the figure or correct the status",
            )


# --- text that would mislead a reader ---------------------------------------------------

# Bidirectional embeddings, overrides and isolates reorder what a reader sees ("Trojan Source"):
# a launch command or a model name could display as something other than what it is. Ordinary
# right-to-left text needs none of them, so they are refused everywhere rather than stripped
# (stripping would silently publish text that differs from the reviewed pull request).
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Invisible characters make two names that look identical differ (split model and hardware
# pages, impersonate a run). Prose may need them (ZWJ in emoji and Indic scripts); names do not.
_INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u061c\u00ad"
)
# The short fields that name a run, its hardware and its engine, and label its pages.
NAME_FIELDS = frozenset(
    {
        "/hardware/accelerator",
        "/hardware/vendor",
        "/engine/name",
        "/engine/version",
        "/engine/quantization",
        "/run/model",
        "/run/base_model",
        "/run/served_model_name",
        "/source/publisher",
    }
)
# C0 (but tab and line ends), DEL, C1, and the two noncharacters XML 1.0 forbids as well:
# any of them in text would make the feed, the sitemap or a chart not well-formed XML.
_CONTROLS = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff"
_REFUSED = re.compile(f"[{_CONTROLS}{''.join(sorted(_BIDI_CONTROLS))}]")
_NAME_REFUSED = re.compile(f"[{_CONTROLS}{''.join(sorted(_BIDI_CONTROLS | _INVISIBLE))}]")
MAX_MATRIX_CELLS = 20_000


def _character_name(char: str) -> str:
    import unicodedata

    return f"U+{ord(char):04X} {unicodedata.name(char, '')}".rstrip()


def check_text(document: Document) -> list[Problem]:
    """Control characters anywhere, bidi controls anywhere, invisible characters in names."""
    problems: list[Problem] = []

    def refuse(pointer: str, char: str, why: str) -> None:
        problems.append(
            Problem(
                document.source,
                document.line_of(pointer),
                pointer,
                f"contains {_character_name(char)}, {why}; remove it",
            )
        )

    def check(text: str, pointer: str) -> None:
        # One regular-expression scan per string, however long the file.
        found = (_NAME_REFUSED if pointer in NAME_FIELDS else _REFUSED).search(text)
        if found is None:
            return
        char = found.group()
        if char in _BIDI_CONTROLS:
            refuse(pointer, char, "which reorders how the text is shown")
        elif char in _INVISIBLE:
            refuse(pointer, char, "an invisible character that makes look-alike names")
        elif char in "\ufffe\uffff":
            problems.append(
                Problem(
                    document.source,
                    document.line_of(pointer),
                    pointer,
                    f"contains U+{ord(char):04X}, which is not a character (XML forbids it); "
                    f"remove it",
                )
            )
        else:
            problems.append(
                Problem(
                    document.source,
                    document.line_of(pointer),
                    pointer,
                    f"contains the control character U+{ord(char):04X}; remove it",
                )
            )

    def walk(value: Any, pointer: str) -> None:
        # The stricter pattern first, on every text: only one it finds anything in needs its
        # pointer, to tell a name field (where invisible characters are refused too).
        if isinstance(value, str):
            if _NAME_REFUSED.search(value):
                check(value, pointer)
        elif isinstance(value, dict):
            for key, item in value.items():
                if _NAME_REFUSED.search(key):
                    check(key, pointer_join(pointer, key))
                if isinstance(item, str):
                    if _NAME_REFUSED.search(item):
                        check(item, pointer_join(pointer, key))
                elif isinstance(item, dict | list):
                    walk(item, pointer_join(pointer, key))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, str | dict | list):
                    walk(item, pointer_join(pointer, index))

    walk(document.data, "")
    return problems


def check_matrix_size(document: Document) -> list[Problem]:
    """A decode matrix has one row per context and one column per concurrency level, so a few
    thousand cells on a diagonal would make a page of millions of empty cells."""
    measurements = document.data.get("measurements") if isinstance(document.data, dict) else None
    decode = measurements.get("decode") if isinstance(measurements, dict) else None
    if not isinstance(decode, list):
        return []
    cells = [cell for cell in decode if isinstance(cell, dict)]
    contexts = {repr(cell.get("context_tokens")) for cell in cells}  # repr: the values may be lists
    levels = {repr(cell.get("concurrency")) for cell in cells}
    if len(contexts) * len(levels) <= MAX_MATRIX_CELLS:
        return []
    pointer = "/measurements/decode"
    return [
        Problem(
            document.source,
            document.line_of(pointer),
            pointer,
            f"the decode matrix would be {len(contexts):,} contexts × {len(levels):,} concurrency "
            f"levels "
            f"= {len(contexts) * len(levels):,} cells; the limit is {MAX_MATRIX_CELLS:,}",
        )
    ]
