"""The numbers that bound a command: flag limits, defaults, and the overall deadline.

Plain constants and pure functions, no imports worth a start-up cost: the CLI checks every
numeric flag with them while parsing, before anything else runs.
"""

from __future__ import annotations

import math

DEFAULT_WAIT_TIMEOUT = 300.0
DEFAULT_REQUEST_TIMEOUT = 10.0
DEFAULT_CALL_TIMEOUT = 60.0

# The largest value any numeric flag accepts: a day. Beyond it a bound is no bound, and
# kubectl's durations (and Python's round()) would overflow on inf or 1e300.
MAX_SECONDS = 86400.0

# A read-only kubectl (get, version) may live its request timeout plus this: the Cloud SDK
# dispatcher's own /version request (5 s) and process start-up. Without it kubectl retries
# discovery five times against an API that never answers (55 s at --request-timeout 10).
READ_GRACE_SECONDS = 5.0

# Commands that only read: their whole run is bounded like one non-wait kubectl process.
READ_COMMANDS = frozenset({"status", "describe", "network", "list", "nodes", "check", "render"})


def check_seconds(value: float) -> float:
    """A number of seconds a flag may carry: finite, > 0 and at most ``MAX_SECONDS``."""
    if not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
        raise ValueError(f"must be a number of seconds > 0 and <= {MAX_SECONDS:g}")
    return value


# What a command that waits may take beyond its --timeout (counted from its start): the
# read after a wait that just succeeded, and killing kubectl and printing the document
# within the documented "S + 1 s" on a loaded machine.
AFTER_TIMEOUT_SECONDS = 0.5


def default_deadline(
    command: str,
    *,
    timeout: float,
    call_timeout: float,
    rollback: bool = False,
) -> float:
    """The overall bound of a command when ``--deadline`` is not given.

    Reads: one ``--call-timeout`` (what a single call used to be allowed). Commands that wait:
    their ``--timeout`` (two with ``--rollback-on-failure``) plus ``AFTER_TIMEOUT_SECONDS``,
    since the timeout counts from the command's start: every call before the wait, the wait
    and the reads after it share it, and an API server that never answers cannot hold the
    command for a read's own bound (15 s) when ``--timeout`` is shorter. ``call_timeout``
    still bounds each call.
    """
    if command in READ_COMMANDS:
        return call_timeout
    waits = 2 if rollback else 1
    return waits * timeout + AFTER_TIMEOUT_SECONDS


def seconds_arg(value: float) -> str:
    """kubectl duration: whole seconds, at least 1 (``0`` would mean "no timeout")."""
    return f"{max(1, round(value))}s"
