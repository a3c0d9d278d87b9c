"""How a command's document reaches stdout: ``-o json`` (Manager's contract), ``yaml``,
``table``, ``wide``, ``name``; ``describe``'s text.

JSON is the default and exactly what it always was, in UTF-8 whatever the locale
(``put_exact``). YAML, tables, names and describe's text are built from the same JSON
document, so they can never disagree with it, and are written by ``put``, through
``terminal_text.shown``: no character from the cluster or the spec acts on the terminal, and
what the stream's encoding cannot carry is escaped, never a failure. Notes and errors for a
person go to stderr, behind the same door (``terminal_text.ShownStream``). ``yaml_text``,
``tables`` and ``describe_text`` are imported only when asked for: Manager's JSON path
imports nothing new.

A stdout that cannot take the document (closed: ``>&-``; full: ``>/dev/full``; a reader that
went away: ``| head -c 1``) is the caller's choice, not a bug: ``deliver`` turns it into one
line on stderr and an exit code, never a traceback; ``settle`` keeps the interpreter's own
flush at exit from failing again ("Exception ignored … BrokenPipeError", exit 120).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sys
from collections.abc import Callable, Iterator
from typing import IO, Any

from ..contract.errors import OutputFailed
from .formats import FORMATS, HUMAN, Shown, refusal
from .terminal_text import ShownStream, shown, shown_stream

__all__ = [
    "FORMATS",
    "Shown",
    "deliver",
    "lost",
    "put",
    "put_exact",
    "refusal",
    "settle",
    "stderr_or_null",
    "stdout",
    "terminal_width",
    "write_error",
    "write_result",
]

# What writing to a stream that cannot be written raises: OSError (EPIPE, ENOSPC, EBADF,
# EIO), ValueError (a closed file object), AttributeError (a stream that is None).
WRITE_FAILURES = (OSError, ValueError, AttributeError)

# What ``-o table`` says on stderr, like kubectl's "No resources found", when a list is empty.
_EMPTY = {"list": "No Manager workloads found.", "nodes": "No nodes found."}


def write_json(document: Any, out: IO[str]) -> None:
    # Indented for a person at a terminal; one compact line for a program (Manager), where
    # json's C encoder is ~10x faster than the indenting one on a 5,000-item list.
    indent = 2 if out.isatty() else None
    # The documents are trees the adapter builds (no cycles to look for): ~17% quicker.
    put_exact(out, json.dumps(document, indent=indent, check_circular=False) + "\n")


def write_result(command: str, result: Any, how: Shown | str, out: IO[str], err: IO[str]) -> None:
    """A command's result: ``render``'s manifest as is, any other document as ``how`` says."""
    how = Shown(how) if isinstance(how, str) else how
    fmt = how.format
    person = shown_stream(err)  # notes for a person, behind the same door as the result
    if isinstance(result, str):
        # render's manifest, input for `kubectl apply`: exact (every value in it went
        # through tojson, so it is printable ASCII).
        put_exact(out, result)
    elif fmt == "yaml":
        _write_yaml(result, out)
    elif command == "describe" and fmt == "table" and "dryRun" not in result:
        from .describe_text import describe_text

        put(out, describe_text(result))
    elif fmt in ("table", "wide"):
        _write_table(command, result, how, out, person)
    elif fmt == "name":
        from .tables import names

        found = names(command, result)
        put(out, "".join(f"{name}\n" for name in found))
        if not found:  # kubectl: "No resources found", on stderr; a note, never a failure
            note = _EMPTY.get(command) or f"{result.get('providerId')}: no such deployment"
            _note(person, note)
    else:
        write_json(result, out)


def _write_table(command: str, result: Any, how: Shown, out: IO[str], err: ShownStream) -> None:
    from .tables import drifted, table

    wide = None
    if how.format == "wide":
        from ..rules.clock import utc_now

        wide = utc_now()
    text = table(command, result, wide=wide, headers=how.headers)
    if text is None:
        _write_yaml(result, out)
    elif text:
        from .tables import fitted

        # At the terminal's width, as a person sees it; -o wide shows every cell whole.
        put(out, fitted(text, None if wide is not None else terminal_width(out)))
        if how.headers:  # a person reading: say where the changes are shown
            for provider_id in drifted(command, result):
                _note(
                    err,
                    f"{provider_id} drifted from what Manager applied: "
                    f"{how.prog} describe {provider_id} shows what changed",
                )
    else:
        _note(err, _EMPTY.get(command, "Nothing found."))


def _note(err: ShownStream, line: str) -> None:
    """A note for a person on stderr: never a reason to fail the command."""
    with contextlib.suppress(*WRITE_FAILURES):
        err.write(line + "\n")


def write_error(
    document: dict[str, Any],
    fmt: str,
    out: IO[str],
    err: IO[str],
    *,
    command: str = "",
    target: str | None = None,
    prog: str = "kubectl-adapter",
) -> None:
    """``{"error": ...}`` on stdout in ``fmt``; with ``-o table|wide|name``, for a person, on
    stderr: at most five lines no wider than the terminal (``failure_text``), the whole
    document behind ``-o yaml``/``-o json``."""
    if fmt == "yaml":
        _write_yaml(document, out)
    elif fmt not in HUMAN:
        write_json(document, out)
    else:
        from .failure_text import failure_lines

        person = shown_stream(err)
        lines = failure_lines(
            document, command=command, target=target, prog=prog, width=terminal_width(err)
        )
        person.write("".join(f"{line}\n" for line in lines))
        person.flush()


def terminal_width(stream: Any) -> int | None:
    """The columns of the terminal ``stream`` is on; None for a pipe or a file."""
    try:
        if not stream.isatty():
            return None
        return os.get_terminal_size(stream.fileno()).columns or None
    except (AttributeError, OSError, ValueError):
        return None


def _write_yaml(document: Any, out: IO[str]) -> None:
    from .yaml_text import dump

    # Escaped inside double-quoted scalars where the terminal cannot show a character: still
    # valid YAML, read back to the same value (``put`` then finds nothing left to change).
    put(out, dump(document, encoding=_encoding(out)))


def _encoding(out: IO[str]) -> str:
    return getattr(out, "encoding", None) or "utf-8"


def put(out: IO[str], text: str) -> None:
    """A human form's ``text`` on ``out``: through ``terminal_text.shown`` in ``out``'s
    encoding, so nothing in it drives the terminal and every character can be written."""
    encoding = _encoding(out)
    _write_all(out, shown(text, encoding), encoding)


def put_exact(out: IO[str], text: str) -> None:
    """Manager's JSON (or render's manifest) as it is, in UTF-8 whatever the locale."""
    _write_all(out, text, "utf-8")


def _write_all(out: IO[str], text: str, encoding: str) -> None:
    """All of ``text`` on ``out``, or an exception. A stream with a file descriptor is written
    through it until every byte is out: when stdout is unbuffered (``PYTHONUNBUFFERED``, as
    under Manager's and CI's environments) its text layer takes one short ``write`` for the
    whole, so a reader that goes away mid-document (or a signal) silently cut it, exit 0."""
    try:
        fd = out.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        out.write(text)
        out.flush()
        return
    out.flush()
    data = memoryview(text.encode(encoding))
    while data:
        data = data[os.write(fd, data) :]


def deliver(write: Callable[[IO[str]], None], code: int, what: str, prog: str) -> int:
    """Write a document with ``write`` on stdout; the exit code. When stdout cannot take it,
    one line on stderr says so, and the code stays what the command's outcome says: a failed
    command's own code, OutputFailed (11) in place of success (0 promises the document)."""
    try:
        write(stdout())
    except WRITE_FAILURES as exc:
        return lost(exc, code, what, prog)
    return code


def stdout() -> IO[str]:
    """``sys.stdout``; OSError EBADF when the process started with fd 1 closed (None)."""
    if sys.stdout is None:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))
    return sys.stdout


def lost(exc: BaseException, code: int, what: str, prog: str) -> int:
    """``what`` could not be written to stdout (``exc``): one line on stderr; the exit code."""
    if code != 0:
        say(f"{prog}: {what} could not be written to stdout ({_reason(exc)}); exit {code}")
        return code
    say(
        f"{prog}: {what} could not be written to stdout ({_reason(exc)}); "
        f"the command succeeded: exit {OutputFailed.exit_code} ({OutputFailed.type})"
    )
    return OutputFailed.exit_code


def say(line: str) -> None:
    """One line on stderr, when stderr can take it (nothing else to tell it to otherwise)."""
    with contextlib.suppress(*WRITE_FAILURES):
        err = shown_stream(sys.stderr)
        err.write(line + "\n")
        err.flush()


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno is not None:
        return os.strerror(exc.errno)  # "Broken pipe", "No space left on device", ...
    return "the stream is closed" if isinstance(exc, ValueError) else str(exc)


@contextlib.contextmanager
def stderr_or_null() -> Iterator[None]:
    """A process started with fd 2 closed has ``sys.stderr`` None: logs and progress then go
    nowhere instead of failing on ``None.write``."""
    if sys.stderr is not None:
        yield
        return
    with open(os.devnull, "w", encoding="utf-8") as null:
        sys.stderr = null
        try:
            yield
        finally:
            sys.stderr = None  # as the process started


def settle() -> None:
    """Before the process exits: flush stdout and stderr, and point a stream whose bytes cannot
    be delivered at /dev/null, so the interpreter's final flush has nothing left to fail on.
    Only for the process itself (it rewires fd 1 or 2)."""
    for fd, stream in ((1, sys.stdout), (2, sys.stderr)):
        try:
            if stream is not None:
                stream.flush()
        except WRITE_FAILURES:
            with contextlib.suppress(OSError):
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, fd)
                os.close(null)
