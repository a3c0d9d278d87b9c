"""A label selector a person passes with ``-l``, checked before any kubectl call.

The grammar is the API server's (``k8s.io/apimachinery/pkg/labels``): requirements joined by
commas, each ``key``, ``!key``, ``key=value``, ``key==value``, ``key!=value``,
``key in (v1,v2)`` or ``key notin (v1,v2)``. kubectl only parses it once it has reached the
server; checking it here says what is wrong with no call made. Joined to the adapter's own
selector by a comma it can only narrow it: a selector has no "or".
"""

from __future__ import annotations

import re

from .errors import InvalidInput

__all__ = ["check_selector"]

_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_PREFIX = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
KEY = rf"(?:{_PREFIX}/)?{_NAME}"
VALUE = rf"(?:{_NAME})?"
_REQUIREMENT = re.compile(
    rf"\s*(?:!\s*{KEY}"
    rf"|{KEY}\s*(?:(?:==|!=|=)\s*{VALUE}"
    rf"|\s(?:in|notin)\s*\(\s*{VALUE}(?:\s*,\s*{VALUE})*\s*\))?)\s*"
)
_SPLIT = re.compile(r",(?![^()]*\))")  # the commas between requirements, not in a set


def check_selector(text: str) -> str:
    """``text`` as given when every requirement parses; else InvalidInput naming the first
    that does not."""
    if not text.strip():
        raise InvalidInput("-l/--selector is empty", {"field": "selector", "selector": text})
    for requirement in _SPLIT.split(text):
        if not _REQUIREMENT.fullmatch(requirement):
            raise InvalidInput(
                f"-l/--selector {text!r}: {requirement.strip()!r} is not a label requirement "
                "(key, !key, key=value, key!=value, key in (a,b), key notin (a,b))",
                {"field": "selector", "selector": text},
            )
    return text
