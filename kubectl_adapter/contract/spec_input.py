"""Reading a spec's JSON document with bounds: size, time, depth, and the kinds of file it
may come from (``spec`` validates the document).

``--spec`` is whatever path Manager (or a person) passes: a regular file, ``-`` for stdin, a
FIFO, or by mistake ``/dev/zero`` or a FIFO nobody writes to. None of these may cost
unbounded memory or block forever. Apart from validating, so that the CLI can start a
command's first reads between the two (``cli.dispatch``) before it imports the rules.
"""

from __future__ import annotations

import json
import os
import select
import stat
import sys
from time import monotonic
from typing import Any

from .errors import InvalidInput

# A spec is a few hundred bytes: the bound only stops hostile input (``/dev/zero``).
MAX_SPEC_BYTES = 1 << 20
# How long a pipe (stdin, a FIFO) may take to deliver the whole spec: Manager writes it at once.
SPEC_WAIT_SECONDS = 10.0
# A spec is two levels deep; deeper JSON is hostile (``[[[[...``), refused before validating.
MAX_SPEC_DEPTH = 32


def read_document(source: str, wait_seconds: float = SPEC_WAIT_SECONDS) -> Any:
    """The spec's decoded JSON, not yet validated: at most ``MAX_SPEC_BYTES`` and
    ``MAX_SPEC_DEPTH`` levels, within ``wait_seconds`` from a pipe (``read_spec``)."""
    raw = read_spec(source, wait_seconds)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"spec {source!r} is not UTF-8: {exc}") from None
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        data = None
        depth = MAX_SPEC_DEPTH + 1
    except ValueError as exc:  # JSONDecodeError, and ints longer than Python converts
        raise InvalidInput(f"spec {source!r} is not valid JSON: {exc}") from None
    else:
        depth = _depth(data)
    if depth > MAX_SPEC_DEPTH:
        raise InvalidInput(
            f"spec {source!r} is nested more than {MAX_SPEC_DEPTH} levels deep",
            {"maxDepth": MAX_SPEC_DEPTH},
        )
    return data


def _depth(value: Any) -> int:
    """Nesting depth of decoded JSON, without recursion (a scalar is 0, ``[]`` is 1)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in item)
    return deepest


def _reject_constant(name: str) -> Any:
    """``NaN`` and ``Infinity`` are not JSON, even though Python's json accepts them."""
    raise ValueError(f"{name} is not a JSON value")


def read_spec(source: str, wait_seconds: float) -> bytes:
    """The spec's bytes, at most ``MAX_SPEC_BYTES``, never blocking past ``wait_seconds``."""
    if source == "-":
        try:
            fd = sys.stdin.fileno()
        except (AttributeError, OSError, ValueError):  # replaced by a text stream (tests)
            text = sys.stdin.read(MAX_SPEC_BYTES + 1)
            return _bounded(source, text.encode("utf-8", "surrogatepass"))
        wait = None if os.isatty(fd) else wait_seconds
        return _bounded(source, _read_fd(source, fd, wait))
    try:
        # Non-blocking: opening a FIFO with no writer would otherwise block forever.
        fd = os.open(source, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        raise InvalidInput(f"cannot read spec {source!r}: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISREG(mode):
            return _bounded(source, _read_fd(source, fd, None))
        if stat.S_ISFIFO(mode):
            return _bounded(source, _read_fd(source, fd, wait_seconds))
        raise InvalidInput(
            f"cannot read spec {source!r}: not a regular file or a pipe (use - for stdin)"
        )
    finally:
        os.close(fd)


def _read_fd(source: str, fd: int, wait_seconds: float | None) -> bytes:
    """Read to end of file or one byte past the size limit; with ``wait_seconds``, wait for
    data with select() only (a FIFO without a writer reads as end of file at once)."""
    deadline = None if wait_seconds is None else monotonic() + wait_seconds
    chunks: list[bytes] = []
    size = 0
    while size <= MAX_SPEC_BYTES:
        if deadline is not None:
            remaining = deadline - monotonic()
            if remaining <= 0:
                raise InvalidInput(
                    f"spec {source!r}: no complete spec within {wait_seconds:g}s "
                    "(nothing, or no end of input, was written)",
                    {"waitSeconds": wait_seconds},
                )
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            continue
        except OSError as exc:
            raise InvalidInput(f"cannot read spec {source!r}: {exc.strerror or exc}") from None
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _bounded(source: str, data: bytes) -> bytes:
    if len(data) > MAX_SPEC_BYTES:
        raise InvalidInput(
            f"spec {source!r} is larger than {MAX_SPEC_BYTES} bytes",
            {"maxBytes": MAX_SPEC_BYTES},
        )
    return data
