"""A failure as a person reads it on a terminal: at most five lines, none wider than the screen.

1. the headline, ``Error (Type): message``: the message's first part (a RolloutFailed's
   message goes on with `` | ``-separated facts, all of them in the document);
2. what was left in the cluster, when something may have been (``deployment manager/bad-img
   was created and is kept``);
3. the next commands to paste (``kubectl-adapter status manager/bad-img``, ``… delete …``);
4. where the whole error is: ``-o yaml`` (or ``-o json``) prints the document, exactly what a
   pipe gets.

Pure: the error document in, lines out; ``output.write_error`` writes them.
"""

from __future__ import annotations

from typing import Any

from .terminal_text import one_line

__all__ = ["MAX_LINES", "cut", "failure_lines"]

MAX_LINES = 5
ELLIPSIS = "\u2026"
# Errors raised after a write may have left: what create, reconfigure, start, stop and
# delete leave behind is stated in the contract (docs/cli.md, "writeSent").
_WRITES = ("create", "reconfigure", "start", "stop", "delete")


def cut(line: str, width: int | None) -> str:
    """``line`` at most ``width`` characters, the last one ``…`` when it was longer."""
    if width is None or len(line) <= width:
        return line
    return line[: max(width - 1, 0)] + ELLIPSIS


def _left(command: str, error: dict[str, Any], target: str) -> str | None:
    """What may be in the cluster after this failure, in words; None when nothing was written."""
    details = error.get("details") or {}
    kind = error.get("type")
    if command not in _WRITES or kind in ("InvalidInput", "InvalidProviderId", "NotFound"):
        return None
    if details.get("applied") is False or details.get("writeSent") is False:
        return "nothing was changed in the cluster"
    if command == "create":
        if kind == "Interrupted":
            return f"deployment {target} may have been created and is kept"
        if details.get("writeSent") is True and details.get("writeAnswer") is None:
            return f"deployment {target} may have been created (the answer was lost): it is kept"
        return f"deployment {target} was created and is kept"
    if kind == "Interrupted" or details.get("writeSent") is True:
        return f"the {command} of deployment {target} may have been made: read its status"
    if kind in ("RolloutFailed", "Timeout"):
        return f"deployment {target} was changed and is kept as it is"
    return None


def _next(command: str, error: dict[str, Any], target: str, prog: str) -> list[str]:
    """Commands to paste, each with a shell comment saying what it is for."""
    kind = error.get("type")
    if not target or kind in ("InvalidInput", "InvalidProviderId", "ConfigurationError"):
        return []
    if kind == "NotFound":
        if (error.get("details") or {}).get("missing") == "namespace":
            return ["kubectl get namespaces   # the namespaces there are"]
        return [f"{prog} list   # the workloads there are"]
    steps = [f"{prog} status {target}   # what it is now"]
    left = _left(command, error, target)
    if command == "create" and left not in (None, "nothing was changed in the cluster"):
        steps.append(f"{prog} delete {target}   # remove it")
    elif command in ("reconfigure", "start") and kind in ("RolloutFailed", "Timeout"):
        steps.append(f"{prog} describe {target}   # its Pods, conditions and events")
    return steps


def failure_lines(
    document: dict[str, Any],
    *,
    command: str,
    target: str | None,
    prog: str,
    width: int | None,
) -> list[str]:
    """At most ``MAX_LINES`` lines, each at most ``width`` characters when it is known."""
    error = document.get("error") or {}
    message = str(error.get("message", ""))
    headline = one_line(f"Error ({error.get('type')}): {message.split(' | ', 1)[0]}")
    target = target or str((error.get("details") or {}).get("providerId") or "")
    left = _left(command, error, target) if target else None
    whole = "the whole error: -o yaml" if error.get("details") or " | " in message else None
    tail = _next(command, error, target, prog)
    merged = f"{left}; {whole}" if left and whole else None
    if merged and 2 + 1 + len(tail) + 1 > MAX_LINES and (width is None or len(merged) <= width):
        left, whole = merged, None  # one line for both: the headline gets two
    tail = [line for line in (left, *tail, whole) if line]
    room = max(1, min(2, MAX_LINES - len(tail)))
    return [*_wrapped(headline, width, room), *(cut(line, width) for line in tail)][:MAX_LINES]


def _wrapped(text: str, width: int | None, lines: int) -> list[str]:
    """``text`` in at most ``lines`` lines of ``width``, the last cut with ``…`` if need be."""
    if width is None or len(text) <= width:
        return [text]
    import textwrap

    wrapped = textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False)
    if len(wrapped) > lines:
        rest = " ".join(wrapped[lines - 1 :])
        wrapped = [*wrapped[: lines - 1], cut(rest, width)]
    return wrapped
