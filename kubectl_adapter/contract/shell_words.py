"""A string entrypoint split into words exactly as ``shlex.split`` does, in linear time.

``shlex`` grows each word one character at a time (``self.token += c`` on an attribute, a
copy per character): a 1 MB quoted argument took a minute, past any ``--timeout``. This
scans whole runs with regular expressions instead. The rules are shlex's POSIX mode: words
split on space, tab, CR and LF; ``'…'`` is literal; in ``"…"`` a backslash escapes only
``"`` and ``\\`` (elsewhere it stays); outside quotes a backslash escapes any character;
``''`` is an empty word. ``tests/contract/test_shell_words.py`` holds it to shlex, errors
included.
"""

from __future__ import annotations

import re

__all__ = ["split"]

# One piece of a word, or the blanks between words. Possessive quantifiers: an unclosed
# double quote must fail in one pass, never by backtracking through its content.
_PIECE = re.compile(
    r"""(?P<blank>[ \t\r\n]++)"""
    r"""|(?P<plain>[^ \t\r\n'"\\]++)"""
    r"""|'(?P<single>[^']*+)'"""
    r'''|"(?P<double>(?:[^"\\]++|\\.)*+)"'''
    r"""|\\(?P<escaped>.)""",
    re.DOTALL,
)
_DOUBLE_ESCAPE = re.compile(r'\\([\\"])')
_DOUBLE_UNCLOSED = re.compile(r'"(?:[^"\\]++|\\.)*+', re.DOTALL)


def split(text: str) -> list[str]:
    """``shlex.split(text)``; ValueError ``No closing quotation`` / ``No escaped character``
    where shlex raises them."""
    words: list[str] = []
    word: list[str] = []
    started = False  # an empty quoted piece ('' or "") still makes a word
    position, end = 0, len(text)
    match = _PIECE.match
    while position < end:
        piece = match(text, position)
        if piece is None:
            raise ValueError(_failure(text, position))
        kind = piece.lastgroup
        if kind == "blank":
            if started:
                words.append("".join(word))
                word.clear()
                started = False
        else:
            value = piece.group(kind or "")
            word.append(_DOUBLE_ESCAPE.sub(r"\1", value) if kind == "double" else value)
            started = True
        position = piece.end()
    if started:
        words.append("".join(word))
    return words


def _failure(text: str, position: int) -> str:
    """What shlex says at the first piece that does not close."""
    if text[position] == "'":
        return "No closing quotation"
    if text[position] == '"':
        unclosed = _DOUBLE_UNCLOSED.match(text, position)
        if unclosed is not None and unclosed.end() == len(text):
            return "No closing quotation"
    return "No escaped character"  # a backslash as the very last character
