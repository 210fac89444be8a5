"""Pieces kept under keys made from the arguments their maker receives (Fragments.cached,
Fragments.render_cached, json_rows.run_piece): a changed argument is a changed piece, never a
stale one, and a maker that could hold an input outside its arguments is refused."""

from __future__ import annotations

import copy
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from sitegen.model import Run, run_from_dict
from sitegen.parse import parse_yaml
from sitegen.site.incremental.fragments import Fragments
from sitegen.site.json_rows import run_piece
from sitegen.store import digest
from tests.kit.project import REPO

MINIMAL = parse_yaml(
    "minimal.yaml", (REPO / "tests" / "data" / "valid" / "minimal.yaml").read_bytes()
).data


def _run(run_id: str, model: str) -> Run:
    """A run of ``model``, with the digest of its content as collect gives it."""
    data = copy.deepcopy(MINIMAL)
    data["run"]["model"] = model
    return run_from_dict(run_id, data, digest=digest(data))


def _shown(run: Run, label: str) -> str:
    """A piece made from a run and a label: what the test reads back is what it put in."""
    return f"{run.id}|{run.info.model}|{label}"


def _with_build(build: dict[str, str], run: Run) -> str:
    return f"{build['prefix']}{run.id}"


def _saved_and_read_again(fragments: Fragments, path: Path) -> Fragments:
    fragments.save()
    return Fragments(path, "scope")


def test_a_changed_argument_of_a_macro_changes_the_piece(tmp_path: Path) -> None:
    """The macro's arguments are its key: the next build with one argument changed renders the
    new text (autoescaped, as the templates render it), and the unchanged one is read back."""
    path = tmp_path / "fragments.json"
    first = Fragments(path, "scope")
    assert first.render_cached("compare_options", "Model A", []) == first.render(
        "compare_options", "Model A", []
    )
    second = _saved_and_read_again(first, path)
    kept = second.render_cached("compare_options", "Model A", [])
    assert second.made == 0 and "Model A" in kept
    changed = second.render_cached("compare_options", "Model <B>", [])
    assert second.made == 1
    assert "Model &lt;B&gt;" in changed and "Model A" not in changed


def test_a_changed_run_or_input_changes_the_piece_made_from_it(tmp_path: Path) -> None:
    path = tmp_path / "fragments.json"
    first = Fragments(path, "scope")
    run = _run("r1", "Llama-3.1-8B")
    assert first.cached(_shown, run, "label one") == "r1|Llama-3.1-8B|label one"
    second = _saved_and_read_again(first, path)
    assert second.cached(_shown, run, "label one") == "r1|Llama-3.1-8B|label one"
    assert second.made == 0
    # The same id with other content (a run edited), then another label: each a new piece.
    edited = _run("r1", "Qwen3-32B")
    assert edited.digest != run.digest
    assert second.cached(_shown, edited, "label one") == "r1|Qwen3-32B|label one"
    assert second.cached(_shown, run, "label two") == "r1|Llama-3.1-8B|label two"
    assert second.made == 2


def test_run_pieces_are_keyed_by_their_maker_run_and_inputs(tmp_path: Path) -> None:
    path = tmp_path / "fragments.json"
    first = Fragments(path, "scope")
    run = _run("r1", "Llama-3.1-8B")
    assert bytes(run_piece(first, _shown, run, "a")) == b"r1|Llama-3.1-8B|a"
    second = _saved_and_read_again(first, path)
    assert bytes(run_piece(second, _shown, run, "a")) == b"r1|Llama-3.1-8B|a"
    assert second.made == 0
    assert bytes(run_piece(second, _shown, run, "b")) == b"r1|Llama-3.1-8B|b"
    edited = _run("r1", "Qwen3-32B")
    assert bytes(run_piece(second, _shown, edited, "a")) == b"r1|Qwen3-32B|a"
    # Another maker of the same run and inputs is another piece, never this one's.
    build = {"prefix": "built:"}
    assert bytes(run_piece(second, _with_build, run, build=build)) == b"built:r1"
    assert second.made == 3


def _closure_maker() -> Any:
    hidden = {"label": "x"}

    def make(run: Run) -> str:
        return hidden["label"] + run.id

    return make


class _Maker:
    def make(self, run: Run) -> str:
        return run.id


@pytest.mark.parametrize(
    "maker",
    [_closure_maker(), lambda run: run.id, _Maker().make, partial(_shown, label="x"), repr],
    ids=["closure", "lambda", "bound method", "partial", "builtin"],
)
def test_a_maker_that_could_hold_inputs_outside_its_arguments_is_refused(
    tmp_path: Path, maker: Any
) -> None:
    fragments = Fragments(tmp_path / "fragments.json", "scope")
    with pytest.raises(TypeError, match="plain function of its module"):
        fragments.cached(maker, _run("r1", "m"))


def test_an_argument_without_a_whole_repr_is_refused(tmp_path: Path) -> None:
    fragments = Fragments(tmp_path / "fragments.json", "scope")
    with pytest.raises(TypeError, match="no repr"):
        fragments.cached(_shown, _run("r1", "m"), object())
