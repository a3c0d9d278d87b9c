"""The entrypoint splitter: exactly ``shlex.split``, errors included, in linear time."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_adapter.contract.shell_words import split
from tests.cost import grows_linearly

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


@pytest.mark.parametrize("quote", ["'", '"', ""])
def test_cost_grows_linearly_with_the_input(quote: str) -> None:
    """10x the input costs about 10x the CPU time; shlex's quadratic copy costs 100x (issue 26:
    200 KB took 1.5 s, 1 MB 63 s). CPU time against the same run's smaller input, so load
    cannot fail it (``tests/cost.py``). 200 KB costs about 1 ms; shlex fails on it (0.6 s, past
    the 0.1 s limit) before it starts on the 2 MB input."""
    small = f"sh -c {quote}echo {'y' * 200_000}{quote}"
    large = f"sh -c {quote}echo {'y' * 2_000_000}{quote}"
    grows_linearly(lambda: split(small), lambda: split(large), limit=0.1)


def test_many_short_words_cost_linear_time() -> None:
    """Many short words and escapes, the other shape (a word per piece, 280,000 of them in
    1 MB): 10x the words cost about 10x the CPU time, not 100x."""
    words = 'a \'b\' "c\\"" d\\ e '
    small, large = words * 7_000, words * 70_000
    assert split(small)[:4] == ["a", "b", 'c"', "d e"] and len(split(large)) == 280_000
    grows_linearly(lambda: split(small), lambda: split(large), rounds=3, limit=1.0)
