"""Time flags take Go durations as kubectl's do (``cli.durations``), compared with the grammar
of Go's ``time.ParseDuration`` (go/src/time/format.go: "A duration string is a possibly
signed sequence of decimal numbers, each with optional fraction and a unit suffix, such as
"300ms", "-1.5h" or "2h45m". Valid time units are "ns", "us" (or "µs"), "ms", "s", "m",
"h"."), written here independently as a regular expression and exact fractions."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_adapter.cli import main
from kubectl_adapter.cli.durations import go_duration_seconds, seconds_of

UNITS = {
    "ns": Fraction(1, 10**9),
    "us": Fraction(1, 10**6),
    "\u00b5s": Fraction(1, 10**6),
    "\u03bcs": Fraction(1, 10**6),
    "ms": Fraction(1, 1000),
    "s": Fraction(1),
    "m": Fraction(60),
    "h": Fraction(3600),
}
_NUMBER = r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
_UNIT = "|".join(sorted(map(re.escape, UNITS), key=len, reverse=True))
GO_DURATION = re.compile(rf"[-+]?(?:0|(?:{_NUMBER}(?:{_UNIT}))+)")
_PART = re.compile(rf"({_NUMBER})({_UNIT})")


def go_reference(text: str) -> Fraction | None:
    """Seconds, or None where Go's ParseDuration returns an error (beyond int64 ns too)."""
    if not GO_DURATION.fullmatch(text):
        return None
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-")
    if body == "0":
        return Fraction(0)
    total = sum(Fraction(number) * UNITS[unit] for number, unit in _PART.findall(body))
    if total * 10**9 >= 2**63:
        return None
    return sign * total


number = st.one_of(
    st.integers(0, 10**6).map(str),
    st.tuples(st.integers(0, 999), st.integers(0, 999_999)).map(lambda p: f"{p[0]}.{p[1]}"),
    st.integers(0, 999).map(lambda n: f".{n}"),
    st.integers(0, 999).map(lambda n: f"{n}."),
)
well_formed = st.tuples(
    st.sampled_from(["", "-", "+"]),
    st.lists(st.tuples(number, st.sampled_from(sorted(UNITS))), min_size=1, max_size=4),
).map(lambda t: t[0] + "".join(n + u for n, u in t[1]))
anything = st.text(alphabet="0123456789.+-nsuµμmhd ", max_size=12)


@given(st.one_of(well_formed, anything))
def test_the_grammar_and_values_are_gos(text: str) -> None:
    expected = go_reference(text)
    if expected is None:
        with pytest.raises(ValueError):
            go_duration_seconds(text)
        return
    got = go_duration_seconds(text)
    # Go truncates each part to whole nanoseconds: up to 1 ns per part, and float's rounding
    parts = max(1, len(_PART.findall(text)))
    assert abs(Fraction(got) - expected) <= Fraction(parts, 10**9) + abs(expected) / 10**12


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90s", 90), ("5m", 300), ("1h30m", 5400), ("1.5h", 5400), ("300ms", 0.3), ("90", 90),
     ("2.5", 2.5), ("24h", 86400), ("1h0m0.5s", 3600.5)],
)  # fmt: skip
def test_kubectls_forms_and_a_bare_number_of_seconds(text: str, seconds: float) -> None:
    assert seconds_of(text, maximum=86400) == pytest.approx(seconds)


@pytest.mark.parametrize(
    "text", ["0", "0s", "-1s", "24h1ns", "25h", "inf", "nan", "1e309", "5 m", "", "m"]
)
def test_the_bounds_are_todays_and_a_refusal_shows_an_accepted_form(text: str) -> None:
    with pytest.raises(ValueError, match="such as 90s, 5m or 1h30m"):
        seconds_of(text, maximum=86400)


@pytest.mark.parametrize("flag", ["--timeout", "--request-timeout", "--call-timeout", "--deadline"])
def test_every_time_flag_takes_durations_and_refuses_with_an_example(
    flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from kubectl_adapter.cli.parser import build_parser

    assert (
        getattr(build_parser().parse_args([flag, "1h30m", "check"]), flag[2:].replace("-", "_"))
        == 5400
    )
    assert main([flag, "5 minutes", "check"]) == 2
    out = capsys.readouterr().out
    assert "InvalidInput" in out and "such as 90s, 5m or 1h30m" in out
