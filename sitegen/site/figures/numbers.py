"""How the site writes numbers. Every figure on every page goes through here, so the
rounding rules of the speed-test-matrix page live in one place.

Values arrive in the result file's raw units (tokens, tok/s, ms, s, GB); ``None`` means
"not measured" and is written as an em dash.
"""

from __future__ import annotations

# One rule for a context's label in both stages (collect's warnings, the pages): wording's.
from sitegen.wording import context as context

MISSING = "—"


def _strip_zero(text: str) -> str:
    return text[:-2] if text.endswith(".0") else text


def _scaled(value: float) -> str | None:
    """10.2K, 15K, 1.3M for values of 10,000 and up; None below that."""
    if value >= 999_950:
        return _strip_zero(f"{value / 1_000_000:.1f}") + "M"
    if value >= 10_000:
        return _strip_zero(f"{value / 1000:.1f}") + "K"
    return None


def rate(value: float | None) -> str:
    """A throughput in tables: 10.2K, 9,544.0, 228.4."""
    if value is None:
        return MISSING
    return _scaled(value) or f"{value:,.1f}"


def rate_short(value: float | None) -> str:
    """A throughput on a chart label: 10.2K, 9,544, 228."""
    if value is None:
        return MISSING
    return _scaled(value) or f"{value:,.0f}"


def milliseconds(value: float | None) -> str:
    """A time to first token: 1,317 ms."""
    return MISSING if value is None else f"{value:,.0f} ms"


def milliseconds_fine(value: float | None) -> str:
    """A time between tokens: 4.4 ms."""
    return MISSING if value is None else f"{value:,.1f} ms"


def seconds(value: float | None) -> str:
    """A measured window: 30.0 s."""
    return MISSING if value is None else f"{value:,.1f} s"


def seconds_setting(value: float | None) -> str:
    """A configured duration: 30 s, 7.5 s."""
    return MISSING if value is None else f"{_plain(value)} s"


def setting(value: str | float | bool | None) -> str:
    """A launch setting's value as the run page's Engine card shows it: yes or no for a switch."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "unset" if value is None else str(value)


def watts(value: float | None) -> str:
    """An average power: 1,234 W."""
    return MISSING if value is None else f"{value:,.0f} W"


def _significant(value: float) -> str:
    # Energy figures span 0.01 to 100: three significant digits, never scientific notation.
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def joules(value: float | None) -> str:
    """Energy per output token: 3.67 J, 0.412 J."""
    return MISSING if value is None else f"{_significant(value)} J"


def per_joule(value: float | None) -> str:
    """Output tokens per joule: 2.43 tok/J."""
    return MISSING if value is None else f"{_significant(value)} tok/J"


def decimal(value: float | None) -> str:
    """An average count: 7.9."""
    return MISSING if value is None else f"{value:,.1f}"


def integer(value: int | None) -> str:
    """A count: 6,851."""
    return MISSING if value is None else f"{value:,}"


def tokens(value: int | None) -> str:
    return MISSING if value is None else f"{value:,} tokens"


def _plain(value: float) -> str:
    """1, 2.5, 141 — no trailing zeros, no thousands separator games."""
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


def gigabytes(value: float | None) -> str:
    return MISSING if value is None else f"{_plain(value)} GB"


# What a context of 0 is, wherever one is shown: the requests start with no context before them.
CONTEXT_ZERO = "0 (no earlier context: each request's own short prompt only)"
# The same in short, beside a 0 in an index cell, where the full sentence does not fit.
CONTEXT_ZERO_NOTE = "no earlier context"


def context_exact(tokens: int) -> str:
    """A context with its exact count where ``context`` rounds it: "4.9K (5,000 tokens)", "8K"."""
    label = context(tokens)
    return label if tokens < 1024 or tokens % 1024 == 0 else f"{label} ({tokens:,} tokens)"


def count_noun(count: int, singular: str, plural: str | None = None) -> str:
    return f"{count:,} {singular if count == 1 else (plural or singular + 's')}"


def axis_summary(count: int, singular: str, plural: str, first: str, last: str) -> str:
    """'8 contexts (8K–1019K)'; '1 context (8K)'."""
    if count == 0:
        return f"no {plural}"
    inside = first if count == 1 else f"{first}–{last}"
    return f"{count_noun(count, singular, plural)} ({inside})"
