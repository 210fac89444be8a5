"""How the pages write a context (docs/result-format.md, "How the pages write a context"),
worked out here from the documented rule alone, for tests to compare the pages with."""

from __future__ import annotations


def context_label(tokens: int) -> str:
    """Under 1,024 tokens the count; else K of 1,024 tokens, whole for a multiple, one decimal
    rounded half up otherwise."""
    if tokens < 1024:
        return f"{tokens:,}"
    if tokens % 1024 == 0:
        return f"{tokens // 1024}K"
    kilo = round(tokens / 1024 + 1e-9, 1)
    return f"{kilo:.1f}K"
