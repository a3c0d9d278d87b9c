"""A label selector a person passes with ``-l``, checked before any kubectl call.

The grammar and its rules are the API server's, restated whole: requirements joined by
commas, each ``key``, ``!key``, ``key=value``, ``key==value``, ``key!=value``,
``key in (v1,v2)``, ``key notin (v1,v2)``, ``key>N`` or ``key<N`` (k8s.io/apimachinery
``pkg/labels/selector.go``, ``Parse``). A key is a qualified name: an optional prefix, a
DNS-1123 subdomain of at most 253 characters, and ``/``, then a name of at most 63
characters of ``[A-Za-z0-9._-]`` beginning and ending alphanumeric; a value is such a name
or empty (``pkg/util/validation/validation.go``, ``IsQualifiedName``, ``IsValidLabelValue``).
kubectl passes ``-l`` to the server unread; checking it here says which rule a selector
breaks with no call made. Joined to the adapter's own selector by a comma it can only narrow
it: a selector has no "or".
"""

from __future__ import annotations

import re

from .errors import InvalidInput

__all__ = ["NAME_MAX", "PREFIX_MAX", "check_selector", "selector_problem"]

NAME_MAX = 63
PREFIX_MAX = 253
_NAME = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")
_DNS_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN = re.compile(rf"{_DNS_LABEL}(\.{_DNS_LABEL})*")
_SPECIAL = "=!(),<>"
_SPACE = " \t\r\n"  # the lexer's whitespace (isWhitespace)
# The operators the lexer knows, longest first: it takes the longest that is one.
_SYMBOLS = ("!=", "==", "=", "!", "(", ")", ",", ">", "<")
_BINARY = {"=", "==", "!=", "in", "notin", ">", "<"}
_INT64 = 2**63


class _Broken(ValueError):
    """One broken rule, worded for the person who typed the selector."""


def _tokens(text: str) -> list[str]:
    """The lexer's tokens: operators, and runs of anything else up to a space or operator."""
    tokens, i = [], 0
    while i < len(text):
        if text[i] in _SPACE:
            i += 1
        elif text[i] in _SPECIAL:
            # every special character is an operator; a two-character one wins
            symbol = next(s for s in _SYMBOLS if text.startswith(s, i))
            tokens.append(symbol)
            i += len(symbol)
        else:
            start = i
            while i < len(text) and text[i] not in _SPACE and text[i] not in _SPECIAL:
                i += 1
            tokens.append(text[start:i])
    return tokens


def _is_word(token: str | None) -> bool:
    return token is not None and token not in _SYMBOLS


def key_problem(key: str) -> str | None:
    """The rule a label key breaks (``IsQualifiedName``), or None."""
    prefix, slash, name = key.rpartition("/")
    if slash and "/" in prefix:
        return f"key {key!r} has more than one '/' (a key is [prefix/]name)"
    if slash and not prefix:
        return f"key {key!r}: the prefix before '/' is empty"
    if slash and len(prefix) > PREFIX_MAX:
        return (
            f"key {key[:40]!r}…: its prefix is {len(prefix)} characters, over {PREFIX_MAX} "
            "(a key's prefix is a DNS subdomain)"
        )
    if slash and not _SUBDOMAIN.fullmatch(prefix):
        return (
            f"key {key!r}: prefix {prefix!r} is not a DNS subdomain (lower-case letters, "
            "digits, '-' and '.', each part beginning and ending alphanumeric)"
        )
    if not name:
        return f"key {key!r}: the name is empty"
    return _name_problem(f"key {key!r}: name", name)


def _name_problem(what: str, name: str) -> str | None:
    if len(name) > NAME_MAX:
        return f"{what} is {len(name)} characters, over {NAME_MAX}"
    if not _NAME.fullmatch(name):
        return (
            f"{what} {name!r} is not letters, digits, '-', '_' and '.' beginning and ending "
            "with a letter or digit"
        )
    return None


def value_problem(key: str, value: str, operator: str) -> str | None:
    """The rule a value breaks (``IsValidLabelValue``; ``>``/``<`` also an int64), or None."""
    if value:
        problem = _name_problem(f"value of {key!r}", value)
        if problem:
            return problem
    if operator in {">", "<"} and not (value.isascii() and value.isdigit() and int(value) < _INT64):
        return f"{key}{operator}{value!r}: '>' and '<' take an integer"
    return None


class _Parser:
    """``labels.Parse``'s recursive descent, step for step, raising the first broken rule."""

    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.at = 0

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> str | None:
        token = self.peek()
        self.at += 1
        return token

    def selector(self) -> None:
        if self.peek() is None:
            return
        while True:
            self.requirement()
            after = self.take()
            if after is None:
                return
            if after != ",":
                raise _Broken(f"found {after!r} where ',' or the end belongs")
            if not (_is_word(self.peek()) or self.peek() == "!"):
                found = self.peek()
                raise _Broken(
                    "nothing after ','" if found is None else f"found {found!r} after ','"
                )

    def requirement(self) -> None:
        negated = self.peek() == "!"
        if negated:
            self.take()
        key = self.take()
        if not _is_word(key):
            raise _Broken("'!' is not followed by a key" if negated else f"found {key!r}")
        assert key is not None
        problem = key_problem(key)
        if problem:
            raise _Broken(problem)
        if negated or self.peek() in {None, ","}:
            return
        operator = self.take()
        if operator not in _BINARY:
            raise _Broken(
                f"found {operator!r} after key {key!r} (operators: =, ==, !=, in, notin, >, <)"
            )
        assert operator is not None
        values = self.value_set(key) if operator in {"in", "notin"} else [self.exact_value(key)]
        for value in values:
            problem = value_problem(key, value, operator)
            if problem:
                raise _Broken(problem)

    def exact_value(self, key: str) -> str:
        if self.peek() in {None, ","}:
            return ""
        value = self.take()
        if not _is_word(value):
            raise _Broken(f"found {value!r} where the value of {key!r} belongs")
        assert value is not None
        return value

    def value_set(self, key: str) -> list[str]:
        """``parseValues``/``parseIdentifiersList`` as written, their empty values included:
        ``()``, ``(,a)``, ``(a,)``, ``(a,,b)`` and ``(,,,)`` parse, ``(,,)`` and ``(a,,)`` do
        not."""
        if self.take() != "(":
            raise _Broken(f"'in' and 'notin' take a set in parentheses: {key} in (a,b)")
        if self.peek() == ")":
            self.take()
            return [""]
        values: list[str] = []
        while True:
            token = self.take()
            if _is_word(token):
                assert token is not None
                values.append(token)
                if self.peek() == ")":
                    break
                if self.peek() != ",":
                    raise self._unclosed(key)
            elif token == ",":
                values = values or [""]
                if self.peek() == ")":
                    values.append("")
                    break
                if self.peek() == ",":
                    self.take()
                    values.append("")
            else:
                raise self._unclosed(key, token)
        self.take()  # the ')' just seen
        return values

    def _unclosed(self, key: str, token: str | None = None) -> _Broken:
        found = self.peek() if token is None else token
        if found is None:
            return _Broken(f"the set of {key!r} is not closed with ')'")
        return _Broken(f"found {found!r} in the set of {key!r} (values separated by ',')")


def selector_problem(text: str) -> str | None:
    """The first rule ``text`` breaks, or None when the API server would take it."""
    try:
        _Parser(text).selector()
    except _Broken as broken:
        return str(broken)
    return None


def check_selector(text: str) -> str:
    """``text`` as given when Kubernetes would take it; else InvalidInput naming the rule."""
    if not text.strip():
        raise InvalidInput("-l/--selector is empty", {"field": "selector", "selector": text})
    problem = selector_problem(text)
    if problem:
        raise InvalidInput(
            f"-l/--selector {text!r}: {problem}", {"field": "selector", "selector": text}
        )
    return text
