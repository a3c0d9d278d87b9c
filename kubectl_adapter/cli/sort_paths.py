"""``--sort-by`` given as a JSONPath, read as kubectl reads it.

kubectl relaxes the path first (``RelaxedJSONPathExpression`` in k8s.io/kubectl
``pkg/cmd/get/sorter.go``: ``name``, ``.name``, ``{name}`` and ``{.name}`` are one path),
then parses it with client-go's ``util/jsonpath`` parser: a malformed path is refused before
anything runs, with kubectl's words. Fields (``.a.b``, ``['a']``, escapes ``\\.``),
indexes (``[0]``, ``[-1]``) and wildcards (``.*``, ``[*]``) are read; the rest of the
template language (filters, ``..``, unions, slices, literals) is valid JSONPath that orders
nothing here and is refused as such. A path is looked up in each item as kubectl does, with
missing keys allowed: an item lacking the field is ``MISSING``, one holding ``null`` is
``None`` (kubectl sorts the first before the second, both before any value).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..contract.errors import InvalidInput

__all__ = ["MISSING", "PathKey", "path_key"]

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()
WILDCARD = object()

_RELAXED = re.compile(r"^\{\.?([^{}]+)\}$|^\.?([^{}]+)$")
_RELAXED_ERROR = (
    "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' "
    "or '{.name1.name2}'"
)
_TERMINATORS = set(" \t\r\n.,[]$@{}")
_DICT_KEY = re.compile(r"^'([^']*)'$")
_SLICE = re.compile(r"^(-?\d*)(:-?\d*)?(:-?\d*)?$")

Step = str | int | object  # a field name, an index, or WILDCARD


class _Malformed(ValueError):
    """kubectl's parser refuses the path."""


class _Unsupported(ValueError):
    """Valid JSONPath that selects no single field to order by."""


def _steps(text: str) -> list[Step]:
    """client-go ``jsonpath.Parser.parseInsideAction``, for the text between the braces."""
    steps: list[Step] = []
    i = 0
    while i < len(text):
        if text.startswith("[?(", i):
            raise _Unsupported("a filter [?(...)]")
        if text.startswith("..", i):
            raise _Unsupported("recursive descent '..'")
        char = text[i]
        if char in " @$":
            i += 1
        elif char == ".":
            i, name = _field(text, i + 1)
            steps.append(WILDCARD if name == "*" else name)
        elif char == "[":
            end = text.find("]", i)
            if end < 0 or "\n" in text[i:end]:
                raise _Malformed("unterminated array")
            steps.extend(_array(text[i + 1 : end]))
            i = end + 1
        elif char in "\"'":
            end = text.find(char, i + 1)
            raise (
                _Malformed("unterminated quoted string")
                if end < 0
                else _Unsupported(f"a literal {text[i : end + 1]}")
            )
        elif char in "+-" or char.isdigit() or char == "_" or char.isalpha():
            raise _Unsupported(f"{text[i:]!r}, not a field: a field begins with '.'")
        else:
            raise _Malformed(f"unrecognized character in action: U+{ord(char):04X} {char!r}")
    return steps


def _field(text: str, i: int) -> tuple[int, str]:
    start = i
    while i < len(text) and text[i] not in _TERMINATORS:
        i += 2 if text[i] == "\\" else 1
    return min(i, len(text)), text[start:i].replace("\\", "")


def _array(inside: str) -> list[Step]:
    if inside in ("*", ":"):
        return [WILDCARD]
    if "," in inside:
        raise _Unsupported(f"a union [{inside}]")
    key = _DICT_KEY.match(inside)
    if key:
        return _steps("." + key[1])  # as kubectl does: ['a.b'] is .a.b
    match = _SLICE.match(inside)
    if match is None:
        raise _Malformed(f"invalid array index {inside}")
    if match[2] is not None or match[3] is not None:
        raise _Unsupported(f"a slice [{inside}]")
    return [int(match[1])] if match[1] not in ("", "-") else [WILDCARD]


def _results(value: Any, steps: list[Step]) -> list[Any]:
    """Every value ``steps`` reach from ``value``; a missing key reaches nothing."""
    found = [value]
    for step in steps:
        reached: list[Any] = []
        for here in found:
            if step is WILDCARD:
                if isinstance(here, dict):
                    reached.extend(here[k] for k in sorted(here))
                elif isinstance(here, list):
                    reached.extend(here)
            elif isinstance(step, int):
                if isinstance(here, list) and -len(here) <= step < len(here):
                    reached.append(here[step])
            elif isinstance(here, dict) and step in here:
                reached.append(here[step])
        found = reached
    return found


@dataclass(frozen=True)
class PathKey:
    """A sort key read by a JSONPath; ``expression`` is kubectl's form of it (``{.a.b}``)."""

    expression: str
    steps: tuple[Step, ...]

    def __call__(self, item: dict[str, Any]) -> Any:
        found = _results(item, list(self.steps))
        return found[0] if found else MISSING


def path_key(given: str) -> PathKey:
    """The key kubectl would sort by, or InvalidInput saying why the path is refused."""
    relaxed = _RELAXED.match(given)
    if relaxed is None:
        raise InvalidInput(f"--sort-by {given!r}: {_RELAXED_ERROR}", {"field": "sort-by"})
    expression = "{." + (relaxed[1] or relaxed[2]) + "}"
    try:
        steps = _steps(expression[1:-1])
    except _Malformed as malformed:
        raise InvalidInput(
            f"--sort-by {given!r} is not a JSONPath kubectl parses: {malformed}",
            {"field": "sort-by", "sortBy": given},
        ) from None
    except _Unsupported as unsupported:
        raise InvalidInput(
            f"--sort-by {given!r}: {unsupported} orders nothing; a path of fields and "
            "indexes is (.createdAt, {.drift.state}, .items[0].name)",
            {"field": "sort-by", "sortBy": given},
        ) from None
    if not steps:
        raise InvalidInput(f"--sort-by {given!r}: no field named", {"field": "sort-by"})
    return PathKey(expression, tuple(steps))
