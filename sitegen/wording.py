"""The words both stages use for a place in a result file: a context length (``context``) and
a JSON pointer into the measurements (``place``).

Collect's plausibility warnings and the run page's caveats name the same figure, so they share
these rules; a leaf module at the top of the package, so collect never imports the site.
"""

from __future__ import annotations

import re
from typing import Any

_DECODE_CELL = re.compile(r"^/measurements/decode/(\d+)(?:/(.*))?$")
_PREFILL_POINT = re.compile(r"^/measurements/prefill/(\d+)(?:/(.*))?$")
FIGURE_NAMES = {
    "total_tokens_per_s": "total tok/s",
    "per_request_tokens_per_s": "per-request tok/s",
    "ttft_ms": "TTFT",
    "time_between_tokens_ms": "time between tokens",
    "average_active_requests": "average active requests",
    "statistics": "statistics",
}


def context(tokens: int) -> str:
    """A context length, one way everywhere (docs/result-format.md): under 1,024 tokens the
    count (0, 500); from 1,024 up in K of 1,024 tokens, whole where it is a multiple (8K, 1019K,
    as the seed's matrix), else to one decimal, rounded half up (5,000 → 4.9K, 67,176 → 65.6K).
    Whole tenths in integers, so templates/static/site.js writes the same."""
    if tokens < 1024:
        return f"{tokens:,}"
    if tokens % 1024 == 0:
        return f"{tokens // 1024}K"
    tenths = (tokens * 10 + 512) // 1024
    return f"{tenths // 10}.{tenths % 10}K"


def place(data: Any, pointer: str) -> str:
    """Where ``pointer`` is, in a reader's words: '8K × 64 requests, total tok/s'."""
    measurements = data.get("measurements", {}) if isinstance(data, dict) else {}
    for pattern, kind in ((_DECODE_CELL, "decode"), (_PREFILL_POINT, "prefill")):
        match = pattern.match(pointer)
        items = measurements.get(kind) if isinstance(measurements, dict) else None
        if match is None or not isinstance(items, list) or int(match[1]) >= len(items):
            continue
        item = items[int(match[1])]
        if not isinstance(item, dict) or not isinstance(item.get("context_tokens"), int):
            break
        return _item_words(kind, item) + _figure_words(match[2] or "")
    return pointer


def _item_words(kind: str, item: dict[str, Any]) -> str:
    where = context(item["context_tokens"])
    if kind == "decode" and isinstance(item.get("concurrency"), int):
        requests = item["concurrency"]
        return where + f" × {requests} request{'s' if requests != 1 else ''}"
    return f"prefill at {where}"


def _figure_words(rest: str) -> str:
    """', total tok/s' for a figure of the item, ', statistics of TTFT' for a statistic."""
    figure = rest.split("/")[0]
    if not figure:
        return ""
    words = ", " + FIGURE_NAMES.get(figure, figure.replace("_", " "))
    if figure == "statistics" and rest.count("/") >= 1:
        words += " of " + FIGURE_NAMES.get(rest.split("/")[1], rest.split("/")[1])
    return words
