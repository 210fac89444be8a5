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
from sitegen.validate import _fast_check
from tests.conftest import REPO, SEED_RUN_ID

FILES = sorted((REPO / "content" / "runs").glob("*.yaml")) + sorted((REPO / "tests" / "data" / "valid").iterdir())
SEED = parse_document("seed.yaml", (REPO / "content" / "runs" / f"{SEED_RUN_ID}.yaml").read_bytes()).data
FULL = Draft202012Validator(load_schema("result"))


def _agree(data: Any) -> bool:
    try:
        _fast_check("result")(data)
        fast = True
    except Exception:
        fast = False
    return fast == FULL.is_valid(data)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_shipped_and_valid_files(path: Path) -> None:
    data = parse_document(path.name, path.read_bytes()).data
    assert FULL.is_valid(data)
    assert _agree(data)


def _leaves(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(node, dict):
        return [path] + [leaf for key, value in node.items() for leaf in _leaves(value, (*path, key))]
    if isinstance(node, list):
        return [path] + [leaf for index, value in enumerate(node) for leaf in _leaves(value, (*path, index))]
    return [path]


REPLACEMENTS: list[Any] = ["", "x" * 3000, -1, 0, 1.5, 10**12, None, True, [], {}, "overcap", "2026-13-40", "valid"]


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
