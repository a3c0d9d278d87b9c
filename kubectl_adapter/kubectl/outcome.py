"""What a kubectl that succeeded answered: ``parse_json`` turns a JSON answer into the plain
data the rules read (or an InternalError naming the command); ``WatchEnd`` is how a wait's
watches ended. Failures are typed before this, once, by ``classify``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ..contract.errors import AdapterError, InternalError
from .process import text
from .shapes import output_problem
from .transcript import display


class WatchEnd(NamedTuple):
    """How a run of watches ended: ``decided`` True (over) / False (time passed) / None
    (a kubectl exited first; ``failure``: its error when it exited non-zero)."""

    decided: bool | None
    failure: AdapterError | None


def parse_json(
    args: Sequence[str],
    argv: Sequence[str],
    output: str | bytes,
    decode: Callable[[bytes], Any] | None,
) -> Any:
    """A JSON answer as the rules read it: ``decode``'s typed answer when it gives one, else
    ``json.loads``, checked by ``shapes``; empty output is None only under
    ``--ignore-not-found``, anything else unreadable an InternalError naming the command
    (``argv``, the one run)."""
    if not output or output.isspace():  # isspace stops at the first byte
        if _ignores_not_found(args):
            return None  # kubectl's only silent success: the named object is absent
        # Never "absent": a kubectl (or a wrapper) that exits 0 and prints nothing where
        # JSON is due would otherwise turn a running Deployment into "missing".
        shown = display(argv)
        raise InternalError(
            f"{shown} exited 0 but printed nothing where JSON was expected",
            {"command": shown, "problem": "output is empty"},
        )
    if isinstance(output, bytes):
        typed = decode(output) if decode is not None else None
        if typed is not None:
            return typed
        output = text(output)
    try:
        data = json.loads(output)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InternalError(
            f"kubectl printed output that is not JSON: {exc}", {"command": display(argv)}
        ) from None
    problem = output_problem(args, data)
    if problem is not None:
        shown = display(argv)  # only for the message: shlex and redaction, not on success
        raise InternalError(
            f"{shown} printed JSON the adapter cannot read: the output{problem}",
            {"command": shown, "problem": f"output{problem}"},
        )
    return data


def _ignores_not_found(args: Sequence[str]) -> bool:
    """``--ignore-not-found`` is on: an absent object is printed as nothing at all."""
    flags = [str(arg) for arg in args if str(arg).startswith("--ignore-not-found")]
    return bool(flags) and flags[-1] in ("--ignore-not-found", "--ignore-not-found=true")
