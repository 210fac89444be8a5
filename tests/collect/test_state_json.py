"""State files written by orjson (store.state_json) hold what the json module would write: read
back by the json module, the same value; for ASCII text, the very bytes of json.dumps."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.store import state_json

# What the manifests hold (strings, integers of stat results and beyond 64 bits, lists,
# string-keyed objects, null, booleans), with text of every kind.
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.text(max_size=12)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=6), inner, max_size=6)
    ),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(value=values, sort_keys=st.booleans())
def test_state_json_is_the_json_modules_json(value: Any, sort_keys: bool) -> None:
    written = state_json(value, sort_keys)
    assert json.loads(written) == value
    expected = json.dumps(value, sort_keys=sort_keys, separators=(",", ":"))
    if expected.isascii() and "\\u" not in expected:  # (orjson writes text beyond ASCII as UTF-8)
        assert written == expected.encode()


def test_an_integer_beyond_64_bits_is_written_by_the_json_module() -> None:
    assert (
        state_json({"b": [2**64], "a": 1}, sort_keys=True) == b'{"a":1,"b":[18446744073709551616]}'
    )


def test_a_lone_surrogate_is_written_by_the_json_module() -> None:
    """Text from a YAML escape may hold half of a surrogate pair, which UTF-8 cannot carry."""
    assert state_json(["\ud800"]) == b'["\\ud800"]'
    assert json.loads(state_json(["\ud800"])) == ["\ud800"]
