"""kubectl's own log (klog) told from its error lines, an entry that spans lines included.

From ``-v=6`` on, kubectl logs a failed request's Status body as one klog entry over many
lines (``helpers.go:246] server response object: [{`` then the indented JSON, then ``}]``):
only its first line carries klog's header, and the rest would pass for kubectl's own error.
"""

from __future__ import annotations

import re

from .requests_log import KLOG_LINE

# A line that goes on an open entry: indented, or closing what it opened.
_GOES_ON = re.compile(r"^(?:\s|[\]}])")


def without_klog(lines: list[str]) -> list[str]:
    """``lines`` without klog's entries: a header line, and the lines after it that go on
    a bracket it left open (a JSON body), until that bracket closes."""
    kept: list[str] = []
    depth = 0
    for line in lines:
        header = KLOG_LINE.match(line)
        if header is not None:
            depth = _opened(line[header.end() :])
            continue
        if depth > 0 and _GOES_ON.match(line):
            depth += _opened(line)
            continue
        depth = 0
        kept.append(line)
    return kept


def _opened(text: str) -> int:
    """Brackets and braces ``text`` opens minus those it closes, outside JSON strings."""
    depth = 0
    quoted = escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif quoted:
            escaped = char == "\\"
            quoted = char != '"'
        elif char == '"':
            quoted = True
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
    return depth
