"""The one door human text goes through (``terminal_text``): what a terminal would act on, or
what the stream's encoding cannot carry, comes out as a visible escape; the rest unchanged."""

from __future__ import annotations

import io
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_adapter.cli.terminal_text import (
    ShownStream,
    escape,
    is_shown,
    one_line,
    shown,
    shown_stderr,
    shown_stream,
)

C0 = [chr(c) for c in range(0x20) if chr(c) not in "\n\t"]
C1 = [chr(c) for c in range(0x80, 0xA0)]
# Characters that reorder, hide or break what is shown: bidi embeddings, overrides and
# isolates (Trojan Source), marks, zero-width and format characters, line/paragraph
# separators, the BOM, a lone surrogate, a noncharacter, private use, unassigned.
INVISIBLE = ["\u061c", "\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u202a", "\u202b",
             "\u202c", "\u202d", "\u202e", "\u2060", "\u2066", "\u2067", "\u2068", "\u2069",
             "\u2028", "\u2029", "\ufeff", "\ud800", "\uffff", "\ue000", "\U000e0001",
             "\u00a0"]  # fmt: skip
UNSAFE = [*C0, "\x7f", *C1, *INVISIBLE]
ENCODINGS = ["utf-8", "ascii", "latin-1", "cp1252"]


def readable(text: str, encoding: str = "utf-8") -> bool:
    """Nothing a terminal acts on but the line feed, and every character encodable."""
    text.encode(encoding)
    return all(c == "\n" or c.isprintable() for c in text)


@pytest.mark.parametrize("char", UNSAFE, ids=lambda c: f"U+{ord(c):04X}")
def test_every_character_a_terminal_acts_on_is_escaped(char: str) -> None:
    out = shown(f"a{char}b")
    assert out == f"a{escape(char)}b"
    assert readable(out)
    assert out.isascii()


@pytest.mark.parametrize(
    ("char", "written"),
    [
        ("\x1b", "\\x1b"),
        ("\r", "\\r"),
        ("\x07", "\\a"),
        ("\x08", "\\b"),
        ("\x7f", "\\x7f"),
        ("\x00", "\\x00"),
        ("\x85", "\\u0085"),
        ("\x9b", "\\u009b"),
        ("\u202e", "\\u202e"),
        ("\U000e0001", "\\U000e0001"),
    ],
)
def test_escapes_are_go_quoted(char: str, written: str) -> None:
    assert escape(char) == written


def test_screen_clear_title_and_csi_sequences_are_shown_not_run() -> None:
    hostile = "nginx\x1b[2J\x1b]0;pwned\x07\x9b31m\r\x08"
    assert shown(hostile) == "nginx\\x1b[2J\\x1b]0;pwned\\a\\u009b31m\\r\\b"


def test_line_feeds_stay_and_tabs_become_spaces_as_the_terminal_shows_them() -> None:
    assert shown("Did you mean this?\n\tlist\n") == "Did you mean this?\n        list\n"
    assert one_line("a\nb\tc") == "a\\nb\\tc"


@pytest.mark.parametrize("text", ["plain ascii", "café 😀 日本語", "a\\x1b literal", ""])
def test_printable_text_is_unchanged(text: str) -> None:
    assert shown(text) == text
    assert one_line(text) == text


@pytest.mark.parametrize(
    ("encoding", "written"),
    [("ascii", "caf\\u00e9 \\U0001f600"), ("latin-1", "café \\U0001f600"), ("utf-8", "café 😀")],
)
def test_what_the_encoding_cannot_carry_is_escaped(encoding: str, written: str) -> None:
    assert shown("café 😀", encoding) == written
    assert not is_shown("é", "ascii") and is_shown("é", "latin-1")


@settings(max_examples=400, deadline=None)
@given(text=st.text(), encoding=st.sampled_from(ENCODINGS))
def test_any_text_comes_out_readable_and_stays_so(text: str, encoding: str) -> None:
    out = shown(text, encoding)
    assert readable(out, encoding)
    assert shown(out, encoding) == out  # escapes are printable ASCII: nothing more to do
    line = one_line(text, encoding)
    assert readable(line, encoding) and "\n" not in line
    # nothing shown as itself is lost: every printable, encodable character is still there
    kept = [c for c in text.expandtabs() if c == "\n" or is_shown(c, encoding)]
    assert all(c in out for c in kept)


def test_a_shown_stream_escapes_writes_but_not_the_displays_own_controls() -> None:
    raw = io.StringIO()
    stream = shown_stream(raw)
    assert shown_stream(stream) is stream
    stream.write("x\x1b[2J\n")
    stream.write_control("\r\x1b[K")
    assert raw.getvalue() == "x\\x1b[2J\n\r\x1b[K"


def test_stderr_is_behind_the_door_while_a_command_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = io.StringIO()
    monkeypatch.setattr(sys, "stderr", raw)
    with shown_stderr():
        assert isinstance(sys.stderr, ShownStream)
        print("evil\x1b]0;title\x07", file=sys.stderr)
    assert sys.stderr is raw
    assert raw.getvalue() == "evil\\x1b]0;title\\a\n"
