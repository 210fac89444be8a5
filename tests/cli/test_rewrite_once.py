"""The suite rewrites every test module's asserts once before collecting them, each worker from
its own place in the list (conftest.rewrite_test_modules): what it keeps is what pytest itself
loads, and it is a module with pytest's assert messages."""

from __future__ import annotations

from pathlib import Path

import pytest
from _pytest.assertion import rewrite

from tests.conftest import rewrite_test_modules


def _loaded(module: Path) -> dict[str, object]:
    """``module`` as pytest's import hook loads it from the cache file beside it."""
    pyc = rewrite.get_cache_dir(module) / (module.name[:-3] + rewrite.PYC_TAIL)
    code = rewrite._read_pyc(module, pyc)
    assert code is not None, module
    namespace: dict[str, object] = {}
    exec(code, namespace)
    return namespace


@pytest.mark.parametrize(("modules", "part"), [(1, 0), (3, 0), (5, 2)])
def test_test_modules_are_rewritten_once_and_loaded_as_pytest_loads_them(
    tmp_path: Path, pytestconfig: pytest.Config, modules: int, part: int
) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    for number in range(modules):
        (tests / f"test_sample{number}.py").write_text(
            f"def test_sum():\n    left = 1 + {number}\n    assert left == 9\n"
        )
    (tests / "helper.py").write_text("X = 1\n")  # not a test module: left alone
    assert rewrite_test_modules(pytestconfig, tests, part=part, parts=3) == modules
    assert rewrite_test_modules(pytestconfig, tests) == 0  # kept: not again, from any place
    for number in range(modules):
        test = _loaded(tests / f"test_sample{number}.py")["test_sum"]
        with pytest.raises(AssertionError, match=rf"assert {1 + number} == 9"):  # pytest's words
            test()  # type: ignore[operator]
    assert not list(tests.glob("__pycache__/helper*"))


def test_a_worker_rewrites_only_what_no_other_has_kept(
    tmp_path: Path, pytestconfig: pytest.Config
) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    for number in range(6):
        (tests / f"test_sample{number}.py").write_text(f"def test_it():\n    assert {number}\n")
    # One worker rewrote them all; another, starting elsewhere, rewrites only the two changed
    # since and finds the others kept.
    assert rewrite_test_modules(pytestconfig, tests, part=1, parts=3) == 6
    (tests / "test_sample0.py").write_text("def test_it():\n    assert 'changed'\n")
    (tests / "test_sample3.py").write_text("def test_it():\n    assert 'changed'\n")
    assert rewrite_test_modules(pytestconfig, tests, part=0, parts=3) == 2
