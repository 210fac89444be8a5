"""A collect worker hands back each result as the collected file stores it and as its canonical
text, made from each member's JSON once (store.stored_and_canonical): both are what json.dumps
writes for the whole document, worked out here."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.store import stored_and_canonical

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)
# Keys that sort before and after "measurements", one that differs only by case, text beyond ASCII.
keys = st.sampled_from(["engine", "hardware", "run", "measurementz", "Measurements", "é", "a"])


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


@settings(max_examples=100, deadline=None)
@given(
    members=st.dictionaries(keys | st.text(max_size=4), values, max_size=5),
    measurements=st.none() | values,
)
def test_the_stored_form_and_the_canonical_text_are_json_dumps(
    members: dict[str, Any], measurements: Any
) -> None:
    result = dict(members)
    if measurements is not None:
        result["measurements"] = measurements
    stored, text = stored_and_canonical(result)
    assert text == _json(result)
    if measurements is None:
        assert stored.text == text and stored.measurements is None
    else:
        data = _json(measurements).encode()
        name = hashlib.sha256(data).hexdigest()
        assert stored.measurements == (name, data)
        assert stored.text == _json({**result, "measurements": name})
    assert stored.digest == hashlib.sha256(stored.text.encode()).hexdigest()
