"""How a command's document reaches stdout: ``-o json`` (Manager's contract), ``yaml``,
``table``, ``wide``, ``name``; ``describe``'s text.

JSON is the default and exactly what it always was. YAML, tables, names and describe's text
are built from the same JSON document, so they can never disagree with it. ``yaml_text``,
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
from typing import IO, Any, NamedTuple

from ..contract.errors import OutputFailed

__all__ = [
    "FORMATS",
    "Shown",
    "deliver",
    "lost",
    "put",
    "refusal",
    "settle",
    "stderr_or_null",
    "stdout",
    "write_error",
    "write_result",
]

# What writing to a stream that cannot be written raises: OSError (EPIPE, ENOSPC, EBADF,
# EIO), ValueError (a closed file object), AttributeError (a stream that is None).
WRITE_FAILURES = (OSError, ValueError, AttributeError)

FORMATS = ("json", "yaml", "table", "wide", "name")
# For people: errors go to stderr as a line of text (Manager reads json).
HUMAN = frozenset({"table", "wide", "name"})
# The commands answering with Snapshots: the workload tables (tables.py) and -o wide.
SNAPSHOT_COMMANDS = frozenset({"list", "status", "create", "start", "stop", "reconfigure"})
# The commands -o name means something for: their answer names objects (tables.names).
NAME_COMMANDS = SNAPSHOT_COMMANDS | {"delete", "nodes"}


class Shown(NamedTuple):
    """How the result is shown: the format, and ``--no-headers``."""

    format: str
    headers: bool = True
    prog: str = "kubectl-adapter"  # how the hints name the command (``views.shown_prog``)


def refusal(command: str, fmt: str, *, dry_run: bool) -> str | None:
    """Why ``-o fmt`` means nothing for this command (checked before anything runs), or None."""
    if command == "render" and fmt != "yaml":
        return f"render prints the manifest as YAML: -o {fmt} does not apply"
    if fmt == "name":
        if dry_run:
            return "a --dry-run plan names no object: -o name does not apply (use -o json)"
        if command not in NAME_COMMANDS:
            return (
                f"{command} names no workload: -o name applies to list, status, create, "
                "start, stop, reconfigure, delete and nodes"
            )
    if fmt == "wide" and command not in SNAPSHOT_COMMANDS:
        return (
            f"-o wide applies to the workload tables (list, status, create, start, stop, "
            f"reconfigure), not to {command}"
        )
    if command == "describe" and fmt not in ("json", "yaml", "table"):
        return f"describe prints text, -o json or -o yaml: -o {fmt} does not apply"
    return None


# What ``-o table`` says on stderr, like kubectl's "No resources found", when a list is empty.
_EMPTY = {"list": "No Manager workloads found.", "nodes": "No nodes found."}


def write_json(document: Any, out: IO[str]) -> None:
    # Indented for a person at a terminal; one compact line for a program (Manager), where
    # json's C encoder is ~10x faster than the indenting one on a 5,000-item list.
    indent = 2 if out.isatty() else None
    # The documents are trees the adapter builds (no cycles to look for): ~17% quicker.
    put(out, json.dumps(document, indent=indent, check_circular=False) + "\n")


def write_result(command: str, result: Any, shown: Shown | str, out: IO[str], err: IO[str]) -> None:
    """A command's result: ``render``'s manifest as is, any other document as ``shown``."""
    shown = Shown(shown) if isinstance(shown, str) else shown
    fmt = shown.format
    if isinstance(result, str):
        put(out, result)
    elif fmt == "yaml":
        _write_yaml(result, out)
    elif command == "describe" and fmt == "table" and "dryRun" not in result:
        from .describe_text import describe_text

        put(out, describe_text(result))
    elif fmt in ("table", "wide"):
        _write_table(command, result, shown, out, err)
    elif fmt == "name":
        from .tables import names

        found = names(command, result)
        put(out, "".join(f"{name}\n" for name in found))
        if not found:  # kubectl: "No resources found", on stderr; a note, never a failure
            note = _EMPTY.get(command) or f"{result.get('providerId')}: no such deployment"
            _note(err, note)
    else:
        write_json(result, out)


def _write_table(command: str, result: Any, shown: Shown, out: IO[str], err: IO[str]) -> None:
    from .tables import drifted, table

    wide = None
    if shown.format == "wide":
        from ..rules.clock import utc_now

        wide = utc_now()
    text = table(command, result, wide=wide, headers=shown.headers)
    if text is None:
        _write_yaml(result, out)
    elif text:
        put(out, text)
        if shown.headers:  # a person reading: say where the changes are shown
            for provider_id in drifted(command, result):
                _note(
                    err,
                    f"{provider_id} drifted from what Manager applied: "
                    f"{shown.prog} describe {provider_id} shows what changed",
                )
    else:
        _note(err, _EMPTY.get(command, "Nothing found."))


def _note(err: IO[str], line: str) -> None:
    """A note for a person on stderr: never a reason to fail the command."""
    with contextlib.suppress(*WRITE_FAILURES):
        err.write(line + "\n")


def write_error(document: dict[str, Any], fmt: str, out: IO[str], err: IO[str]) -> None:
    """``{"error": ...}`` on stdout in ``fmt``; with ``-o table|wide|name``, for a person, on
    stderr."""
    if fmt == "yaml":
        _write_yaml(document, out)
    elif fmt not in HUMAN:
        write_json(document, out)
    else:
        from .yaml_text import dump

        error = document["error"]
        err.write(f"Error ({error['type']}): {error['message']}\n")
        if error.get("details"):
            details = dump({"details": error["details"]})
            err.write("".join(f"  {line}\n" for line in details.splitlines()))
        err.flush()


def _write_yaml(document: Any, out: IO[str]) -> None:
    from .yaml_text import dump

    put(out, dump(document))


def put(out: IO[str], text: str) -> None:
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
    encoding = getattr(out, "encoding", None) or "utf-8"
    data = memoryview(text.encode(encoding, getattr(out, "errors", None) or "strict"))
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
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


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
