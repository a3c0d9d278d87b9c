"""Ages as kubectl prints them (apimachinery's ``duration.HumanDuration``)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_adapter.rules.clock import age, human_duration

MINUTE, HOUR, DAY, YEAR = 60, 3600, 86400, 365 * 86400


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        # apimachinery's own test table (duration_test.go)
        (1, "1s"),
        (70, "70s"),
        (190, "3m10s"),
        (70 * MINUTE, "70m"),
        (47 * HOUR, "47h"),
        (49 * HOUR, "2d1h"),
        ((8 * 24 + 2) * HOUR, "8d"),
        (367 * DAY, "367d"),
        (2 * YEAR + 25 * HOUR, "2y1d"),
        (8 * YEAR + 2 * HOUR, "8y"),
        # each unit's boundaries
        (0, "0s"),
        (119.9, "119s"),
        (120, "2m"),
        (310, "5m10s"),
        (599, "9m59s"),
        (600, "10m"),
        (179 * MINUTE + 59, "179m"),
        (3 * HOUR, "3h"),
        (3 * HOUR + 5 * MINUTE, "3h5m"),
        (8 * HOUR, "8h"),
        (2 * DAY, "2d"),
        (2 * DAY + 3 * HOUR, "2d3h"),
        # a clock a little ahead is "now"; more is invalid
        (-0.5, "0s"),
        (-1.9, "0s"),
        (-2, "<invalid>"),
    ],
)
def test_human_duration_is_kubectls(seconds: float, text: str) -> None:
    assert human_duration(seconds) == text


UNIT_SECONDS = {"s": 1, "m": MINUTE, "h": HOUR, "d": DAY, "y": YEAR}


@given(st.floats(min_value=0, max_value=20 * YEAR))
def test_an_age_is_the_duration_cut_down_to_its_last_unit(seconds: float) -> None:
    """``3m10s`` means 190 s up to 191 s; ``70m``, 4200 s up to 4260 s: never more than the
    duration, never a whole last unit less, in at most two units."""
    text = human_duration(seconds)
    parts = re.findall(r"(\d+)([smhdy])", text)
    assert "".join(n + u for n, u in parts) == text and 1 <= len(parts) <= 2
    shown = sum(int(n) * UNIT_SECONDS[u] for n, u in parts)
    assert shown <= seconds < shown + UNIT_SECONDS[parts[-1][1]]


def test_age_counts_from_an_api_timestamp() -> None:
    now = datetime(2026, 12, 1, 20, 5, 10, tzinfo=UTC)
    assert age("2026-12-01T20:00:00Z", now) == "5m10s"
    assert age("2026-11-29T20:05:10Z", now) == "2d"
    assert age(None, now) == "<unknown>"
    assert age("yesterday", now) == "<unknown>"
