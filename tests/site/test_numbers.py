"""The page's number formats, as the seed page writes them."""

from __future__ import annotations

import pytest

from sitegen.site.figures import numbers


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (10211.0, "10.2K"),
        (15018.0, "15K"),
        (9544.0, "9,544.0"),
        (228.386789, "228.4"),
        (4695.4, "4,695.4"),
        (0.0, "0.0"),
        (999_949.0, "999.9K"),
        (1_250_000.0, "1.2M"),
        (None, "—"),
    ],
)
def test_rate(value: float | None, text: str) -> None:
    assert numbers.rate(value) == text


@pytest.mark.parametrize(
    ("value", "text"), [(9544.0, "9,544"), (10211.0, "10.2K"), (6762.4, "6,762")]
)
def test_rate_short(value: float, text: str) -> None:
    assert numbers.rate_short(value) == text


def test_times_and_counts() -> None:
    assert numbers.milliseconds(1317.2) == "1,317 ms"
    assert numbers.milliseconds(107.865) == "108 ms"
    assert numbers.milliseconds_fine(4.365) == "4.4 ms"
    assert numbers.seconds(29.950304) == "30.0 s"
    assert numbers.seconds_setting(30) == "30 s"
    assert numbers.seconds_setting(7.5) == "7.5 s"
    assert numbers.decimal(1) == "1.0"
    assert numbers.integer(140770) == "140,770"
    assert numbers.tokens(4096) == "4,096 tokens"
    assert numbers.gigabytes(282) == "282 GB"
    assert numbers.gigabytes(97.9) == "97.9 GB"
    assert numbers.integer(None) == numbers.seconds(None) == numbers.milliseconds(None) == "—"


@pytest.mark.parametrize(
    ("tokens", "label"),
    [
        (8192, "8K"),
        (1043456, "1019K"),
        (1048576, "1024K"),
        (0, "0"),
        (128, "128"),
        (1023, "1,023"),
        (1024, "1K"),
        (1536, "1.5K"),
        (5000, "4.9K"),
        (67176, "65.6K"),
        (8190, "8.0K"),
        # 1,075 / 1,024 = 1.0498… → 1.0K; 1,076 → 1.05078… → 1.1K; 1,587 × 10 = 15,870 = 15.498… ×
        # 1,024
        (1075, "1.0K"),
        (1076, "1.1K"),
        (1587, "1.5K"),
        # 10,496 tokens = 10.25K exactly, halfway between tenths: rounds up
        (10496, "10.3K"),
    ],
)
def test_context_labels(tokens: int, label: str) -> None:
    assert numbers.context(tokens) == label


def test_axis_summary() -> None:
    assert numbers.axis_summary(8, "context", "contexts", "8K", "1019K") == "8 contexts (8K–1019K)"
    assert numbers.axis_summary(1, "context", "contexts", "8K", "8K") == "1 context (8K)"


def test_the_measurements_table_gives_a_rounded_context_its_exact_count() -> None:
    assert numbers.context_exact(5000) == "4.9K (5,000 tokens)"
    assert numbers.context_exact(67176) == "65.6K (67,176 tokens)"
    assert numbers.context_exact(8192) == "8K"
    assert numbers.context_exact(0) == "0"
