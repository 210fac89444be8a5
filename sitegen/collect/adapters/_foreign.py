"""Located, typed reading of foreign documents, and what an adapter hands back.

Raw tool output is not ours: any key may be missing, null or of the wrong type. Reading
it through :class:`Node` turns each surprise into a Problem with the file, line and JSON
pointer of the offending value, so a KeyError or TypeError never reaches the user.

An adapter returns an :class:`Adapted`: the canonical sections it could fill, plus the
raw value each canonical field was read from, so that a schema problem found after the
merge with run.yaml can be reported at the line of the raw file it came from.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sitegen.errors import Problem, SitegenError
from sitegen.parse import Document, pointer_join

SECTIONS = ("hardware", "engine", "run")
# Figures are rounded so that files stay reviewable, but finely enough that the page's own
# rounding gives what an exact value would: at 3 decimals 29.950304 s becomes 29.95, which
# the page (one decimal, binary float) shows as "29.9 s" instead of "30.0 s".
DECIMALS = 6
_ISO_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})(?:[T ]|$)")


def describe(value: Any) -> str:
    """A value's kind as a contributor would say it, for "expected X, got Y" messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        text = repr(value)
        return f"text {text if len(text) <= 60 else text[:57] + '…'}"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


@dataclass(frozen=True)
class Node:
    """One value of a foreign document, with where it is."""

    document: Document
    pointer: str
    value: Any

    @classmethod
    def root(cls, document: Document) -> Node:
        return cls(document, "", document.data)

    def error(self, message: str) -> SitegenError:
        return SitegenError(self.problem(message))

    def problem(self, message: str) -> Problem:
        return Problem(
            self.document.source, self.document.line_of(self.pointer), self.pointer, message
        )

    # --- navigation ----------------------------------------------------------------

    def get(self, key: str) -> Node | None:
        """The child ``key`` of a mapping, or None when it is absent or null."""
        mapping = self.mapping()
        if mapping.get(key) is None:
            return None
        return Node(self.document, pointer_join(self.pointer, key), mapping[key])

    def need(self, key: str, why: str = "") -> Node:
        """The child ``key``; its absence is a problem of this file (``why`` says what it means)."""
        child = self.get(key)
        if child is None:
            state = "null" if key in self.mapping() else "missing"
            raise self.error(f"{state} field {key!r}{why}")
        return child

    def items(self) -> list[tuple[str, Node]]:
        return [
            (key, Node(self.document, pointer_join(self.pointer, key), value))
            for key, value in self.mapping().items()
        ]

    def elements(self) -> list[Node]:
        return [
            Node(self.document, pointer_join(self.pointer, index), value)
            for index, value in enumerate(self.sequence())
        ]

    # --- typed values --------------------------------------------------------------

    def mapping(self) -> dict[str, Any]:
        if not isinstance(self.value, dict):
            raise self.error(f"expected a mapping of fields, got {describe(self.value)}")
        return self.value

    def sequence(self) -> list[Any]:
        if not isinstance(self.value, list):
            raise self.error(f"expected a list, got {describe(self.value)}")
        return self.value

    def text(self) -> str:
        if not isinstance(self.value, str):
            raise self.error(f"expected text, got {describe(self.value)}")
        return self.value

    def number(self) -> int | float:
        # bool is an int in Python; true/false is never a measurement.
        if isinstance(self.value, bool) or not isinstance(self.value, (int, float)):
            raise self.error(f"expected a number, got {describe(self.value)}")
        return self.value

    def integer(self) -> int:
        value = self.number()
        if isinstance(value, float):
            if not value.is_integer():
                raise self.error(f"expected a whole number, got {value!r}")
            return int(value)
        return value

    def flag(self) -> bool:
        if not isinstance(self.value, bool):
            raise self.error(f"expected true or false, got {describe(self.value)}")
        return self.value

    # --- optional children ---------------------------------------------------------

    def opt_number(self, key: str) -> int | float | None:
        child = self.get(key)
        return None if child is None else child.number()

    def opt_integer(self, key: str) -> int | None:
        child = self.get(key)
        return None if child is None else child.integer()

    def opt_text(self, key: str) -> str | None:
        child = self.get(key)
        return None if child is None else child.text()

    def opt_flag(self, key: str) -> bool | None:
        child = self.get(key)
        return None if child is None else child.flag()

    def iso_date(self) -> str:
        """The YYYY-MM-DD part of an ISO date and time (what a page shows of a run's date)."""
        match = _ISO_DATE.match(self.text())
        if not match:
            raise self.error(
                f"expected an ISO date and time such as '2026-07-09T14:39:31', got {self.text()!r}"
            )
        return match[1]


@dataclass(frozen=True)
class Origin:
    """Where a canonical value was read from."""

    document: Document
    pointer: str


@dataclass
class Record:
    """One canonical prefill point or decode cell, with the raw key of each field."""

    node: Node
    data: dict[str, Any] = field(default_factory=dict)
    raw_keys: dict[str, str] = field(default_factory=dict)

    def set(self, name: str, value: Any, raw_key: str | None = None) -> None:
        self.data[name] = value
        if raw_key is not None:
            self.raw_keys[name] = raw_key

    def figure(self, name: str, raw_key: str, scale: float = 1.0) -> None:
        """A statistic of the tool: 0 means "no data" there, so it is left out, never stored as
        0."""
        value = self.node.opt_number(raw_key)
        if value is None or value == 0:
            return
        # Multiplying by 1.0 would turn an int count into a float; keep the tool's type.
        self.set(name, round(value * scale if scale != 1.0 else value, DECIMALS), raw_key)


@dataclass(frozen=True)
class Recorded:
    """A fact the raw file records about the run (a GPU, a build, a server version): run.yaml
    may restate it, but not contradict it."""

    node: Node
    shown: str
    agrees: Callable[[Any], bool]


@dataclass
class Adapted:
    """The canonical result an adapter could build from a raw document alone."""

    imported_from: str
    sections: dict[str, dict[str, Any]] = field(
        default_factory=lambda: {name: {} for name in SECTIONS}
    )
    prefill: list[dict[str, Any]] = field(default_factory=list)
    decode: list[dict[str, Any]] = field(default_factory=list)
    load_points: list[dict[str, Any]] = field(default_factory=list)  # schema 1.2, open-loop points
    notes: list[str] = field(default_factory=list)
    origins: dict[str, Origin] = field(default_factory=dict)
    # The tool's own identification of the run (provenance.tool_run): seed, sweep ids, command.
    tool_run: dict[str, Any] = field(default_factory=dict)
    recorded: dict[str, Recorded] = field(default_factory=dict)

    def record(
        self,
        section: str,
        name: str,
        value: Any,
        node: Node,
        shown: str,
        agrees: Callable[[Any], bool],
    ) -> None:
        """Put a field the raw file records, which run.yaml may restate but not contradict."""
        self.put(section, name, value, node)
        self.recorded[f"/{section}/{name}"] = Recorded(node, shown, agrees)

    def put(self, section: str, name: str, value: Any, node: Node) -> None:
        """Set a field of hardware/engine/run, read from ``node`` (later calls win)."""
        self.sections[section][name] = value
        self.origins[f"/{section}/{name}"] = Origin(node.document, node.pointer)

    def drop(self, section: str, name: str) -> None:
        self.sections[section].pop(name, None)
        self.origins.pop(f"/{section}/{name}", None)

    def add_records(self, kind: str, records: list[Record]) -> None:
        """Append prefill points, decode cells or load points in order, remembering each
        field's origin."""
        kinds = {"prefill": self.prefill, "decode": self.decode, "load_points": self.load_points}
        target = kinds[kind]
        for record in records:
            base = f"/measurements/{kind}/{len(target)}"
            target.append(record.data)
            document, pointer = record.node.document, record.node.pointer
            self.origins[base] = Origin(document, pointer)
            for name, raw_key in record.raw_keys.items():
                self.origins[f"{base}/{name}"] = Origin(document, pointer_join(pointer, raw_key))


def yaml_words(value: Any) -> str:
    """A value as run.yaml would write it, for a message that asks for one: true and null, not
    Python's True and None."""
    return json.dumps(value) if isinstance(value, bool) or value is None else str(value)
