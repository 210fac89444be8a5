"""The suite's controller rewrites every test module's asserts once, before the workers start
(conftest.rewrite_test_modules): what it keeps is what pytest itself loads, and it is a module
with pytest's assert messages."""

from __future__ import annotations

from pathlib import Path

import pytest
from _pytest.assertion import rewrite

from tests.conftest import rewrite_test_modules


def test_a_test_module_is_rewritten_once_and_loaded_as_pytest_loads_it(
    tmp_path: Path, pytestconfig: pytest.Config
) -> None:
    module = tmp_path / "tests" / "test_sample.py"
    module.parent.mkdir()
    module.write_text("def test_sum():\n    left = 1 + 1\n    assert left == 3\n")
    (tmp_path / "tests" / "helper.py").write_text("X = 1\n")  # not a test module: left alone
    assert rewrite_test_modules(pytestconfig, tmp_path / "tests") == 1
    assert rewrite_test_modules(pytestconfig, tmp_path / "tests") == 0  # kept: not again
    pyc = rewrite.get_cache_dir(module) / ("test_sample" + rewrite.PYC_TAIL)
    code = rewrite._read_pyc(module, pyc)  # as pytest's import hook reads it
    assert code is not None
    namespace: dict[str, object] = {}
    exec(code, namespace)
    with pytest.raises(AssertionError, match=r"assert 2 == 3"):  # pytest's message, not bare
        namespace["test_sum"]()  # type: ignore[operator]
    assert not list((tmp_path / "tests").glob("__pycache__/helper*"))
