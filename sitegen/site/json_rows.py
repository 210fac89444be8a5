"""Data files of many like records, written small but readable: the field names once, then
one record per line as an array in that order (as CSV would, with JSON's types and nulls)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def json_rows(head: dict[str, Any], fields: Sequence[str], rows: Iterable[Sequence[Any]], key: str) -> bytes:
    """``head``'s keys, then ``"fields"`` and ``key``: every row on its own line. Parses as one
    JSON document; ``grep`` and ``diff`` read it a record at a time."""
    document = dumps({**head, "fields": list(fields)})[:-1]
    lines = ",\n".join(dumps(list(row)) for row in rows)
    return f'{document},"{key}":[\n{lines}\n]}}\n'.encode()
