"""The compiled fast check and jsonschema must agree on what is valid: the fast one decides
the common case, jsonschema explains the rest, so a disagreement would let bad data in."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from sitegen.parse import parse_document
from sitegen.resources import load_schema
from sitegen.validate import RESULT_SCHEMAS, _fast_check, result_schema_name
from tests.kit.project import REPO, SEED_RUN_ID

FILES = sorted((REPO / "content" / "runs").glob("*.yaml")) + sorted(
    (REPO / "tests" / "data" / "valid").iterdir()
)
SEED = parse_document(
    "seed.yaml", (REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml").read_bytes()
).data
FULL = {name: Draft202012Validator(load_schema(name)) for name in RESULT_SCHEMAS.values()}


def _agree(data: Any) -> bool:
    name = result_schema_name(data)
    try:
        _fast_check(name)(data)
        fast = True
    except Exception:
        fast = False
    return fast == FULL[name].is_valid(data)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_shipped_and_valid_files(path: Path) -> None:
    data = parse_document(path.name, path.read_bytes()).data
    assert FULL[result_schema_name(data)].is_valid(data)
    assert _agree(data)


def _leaves(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(node, dict):
        return [path] + [
            leaf for key, value in node.items() for leaf in _leaves(value, (*path, key))
        ]
    if isinstance(node, list):
        return [path] + [
            leaf for index, value in enumerate(node) for leaf in _leaves(value, (*path, index))
        ]
    return [path]


REPLACEMENTS: list[Any] = [
    "",
    "x" * 3000,
    -1,
    0,
    1.5,
    10**12,
    None,
    True,
    [],
    {},
    "overcap",
    "2026-13-40",
    "valid",
]


def test_random_mutations_of_the_seed() -> None:
    rng = random.Random(20261129)
    leaves = [leaf for leaf in _leaves(SEED) if leaf]
    disagreements = []
    for _ in range(150):
        data = copy.deepcopy(SEED)
        path = rng.choice(leaves)
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        action = rng.random()
        if action < 0.15 and isinstance(parent, dict):
            del parent[path[-1]]
        elif action < 0.3 and isinstance(parent, dict):
            parent[path[-1] + "_typo"] = 1
        else:
            parent[path[-1]] = rng.choice(REPLACEMENTS)
        if not _agree(data):
            disagreements.append(path)
    assert disagreements == []


def test_random_mutations_of_a_schema_1_1_file() -> None:
    """The 1.1 additions (statistics, power, acknowledged warnings) through both checkers."""
    every = parse_document(
        "x.json", (REPO / "tests" / "data" / "valid" / "every-field-1-1.json").read_bytes()
    ).data
    rng = random.Random(20261201)
    leaves = [leaf for leaf in _leaves(every) if leaf]
    disagreements = []
    for _ in range(150):
        data = copy.deepcopy(every)
        path = rng.choice(leaves)
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = rng.choice([*REPLACEMENTS, "p50", {"p95th": 1}, {"mean": -1}])
        if not _agree(data):
            disagreements.append(path)
    assert disagreements == []


@pytest.mark.parametrize(("older", "newer"), [(1, 1.1), (1.1, 1.2)])
def test_each_later_schema_is_the_one_before_plus_optional_fields(
    older: float, newer: float
) -> None:
    """Every rule of ``older`` holds unchanged in ``newer``, which only adds properties, none of
    them required, so changing schema_version alone upgrades a file."""
    old, new = load_schema(RESULT_SCHEMAS[older]), load_schema(RESULT_SCHEMAS[newer])
    assert new["$id"] == f"urn:sitegen:schema:result:{newer}"
    assert old["$id"] == f"urn:sitegen:schema:result:{older}"
    assert new["properties"]["schema_version"]["const"] == newer
    assert {k: v for k, v in new["properties"].items() if k != "schema_version"} == {
        k: v for k, v in old["properties"].items() if k != "schema_version"
    } | {k: v for k, v in new["properties"].items() if k not in old["properties"]}
    for name, definition in old["$defs"].items():
        added = new["$defs"][name]
        if "properties" not in definition:
            assert added == definition, name
            continue
        assert added.get("required") == definition.get("required"), name
        for field, rule in definition["properties"].items():
            assert _same_or_widened(added["properties"][field], rule), (name, field)
    upgraded = 0
    for file in FILES:
        data = parse_document(file.name, file.read_bytes()).data
        if data.get("schema_version") == older:
            assert FULL[RESULT_SCHEMAS[newer]].is_valid({**data, "schema_version": newer}), file
            upgraded += 1
    assert upgraded  # some file of the older version was tried


def _same_or_widened(newer: Any, older: Any) -> bool:
    """A rule unchanged, or an enum that only gained values (a new plausibility check's id):
    every value the older schema allows is still allowed."""
    if newer == older:
        return True
    if not (
        isinstance(newer, dict) and isinstance(older, dict) and "enum" in newer and "enum" in older
    ):
        return False
    rest = {key: value for key, value in newer.items() if key != "enum"}
    return rest == {key: value for key, value in older.items() if key != "enum"} and set(
        older["enum"]
    ) <= set(newer["enum"])
