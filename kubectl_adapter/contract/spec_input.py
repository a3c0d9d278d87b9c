"""Reading a spec's bytes with bounds: size, time, and the kinds of file it may come from.

``--spec`` is whatever path Manager (or a person) passes: a regular file, ``-`` for stdin, a
FIFO, or by mistake ``/dev/zero`` or a FIFO nobody writes to. None of these may cost
unbounded memory or block forever.
"""

from __future__ import annotations

import os
import select
import stat
import sys
from time import monotonic

from .errors import InvalidInput

# A spec is a few hundred bytes: the bound only stops hostile input (``/dev/zero``).
MAX_SPEC_BYTES = 1 << 20
# How long a pipe (stdin, a FIFO) may take to deliver the whole spec: Manager writes it at once.
SPEC_WAIT_SECONDS = 10.0


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
