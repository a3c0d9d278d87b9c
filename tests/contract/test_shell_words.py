"""The entrypoint splitter: exactly ``shlex.split``, errors included, in linear time."""

from __future__ import annotations

import shlex
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_adapter.contract.shell_words import split

# Every character the rules treat apart, and a few they do not.
ALPHABET = " \t\r\n'\"\\$()ab\u00e9\u00a0\u2028;#*"


def _shlex(text: str) -> list[str] | str:
    try:
        return shlex.split(text)
    except ValueError as exc:
        return str(exc)


def _ours(text: str) -> list[str] | str:
    try:
        return split(text)
    except ValueError as exc:
        return str(exc)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "sh -c 'echo hi'",
        "a  b\tc\nd\re",
        "''",
        '""',
        "a '' b",
        "a''b",
        "'a'\"b\"c",
        r'"a\"b"',
        r'"a\\b"',
        r'"a\xb"',
        r'"a\$b"',
        r"a\ b",
        r"a\\",
        "a\\\nb",
        r"'a\b'",
        "$HOME $(X) $$ ${Y}",
        "it's",
        '"unclosed',
        "'unclosed",
        "trailing\\",
        '"trailing\\',
        '"a\\"',
        "# not a comment",
    ],
)
def test_known_cases_are_split_as_shlex_splits_them(text: str) -> None:
    assert _ours(text) == _shlex(text)


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=40))
def test_any_text_is_split_as_shlex_splits_it(text: str) -> None:
    assert _ours(text) == _shlex(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_unicode_is_split_as_shlex_splits_it(text: str) -> None:
    assert _ours(text) == _shlex(text)


def _seconds(text: str) -> float:
    best = float("inf")
    for _ in range(5):  # the best of five: what the code costs, not the machine's load
        started = time.perf_counter()
        split(text)
        best = min(best, time.perf_counter() - started)
    return best


@pytest.mark.parametrize("quote", ["'", '"', ""])
def test_time_grows_linearly_with_the_input(quote: str) -> None:
    """10x the input costs about 10x the time; shlex's quadratic copy costs 100x (issue 26:
    200 KB took 1.5 s, 1 MB 63 s). The ratio, not a wall-clock bound, so load cannot fail it."""
    small = _seconds(f"sh -c {quote}echo {'y' * 200_000}{quote}")
    large = _seconds(f"sh -c {quote}echo {'y' * 2_000_000}{quote}")
    # A floor of 1 ms: a scan this fast is noise-sized, and quadratic 2 MB takes minutes.
    assert large < 30 * max(small, 1e-3), (small, large)


def test_a_megabyte_of_words_splits_at_once() -> None:
    """Many short words and escapes, the other shape: 1 MB in well under a second, with the
    generous bound quadratic growth cannot meet."""
    text = 'a \'b\' "c\\"" d\\ e ' * 70_000
    started = time.perf_counter()
    words = split(text)
    assert time.perf_counter() - started < 5
    assert words[:4] == ["a", "b", 'c"', "d e"] and len(words) == 280_000
