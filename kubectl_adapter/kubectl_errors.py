"""The one place where a failed kubectl run becomes a typed error.

Rules are tried in order against kubectl's stderr with klog noise removed (kubectl 1.32
prints 4-5 ``E1130 ... memcache.go`` lines before the real error). The order matters:
``apply`` wraps 401s and connection failures in "failed to download openapi", so the
credential and connection rules run before the generic validation rule.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .errors import (
    AdapterError,
    ConfigurationError,
    Conflict,
    Forbidden,
    InternalError,
    InvalidInput,
    NotFound,
    RolloutFailed,
    Timeout,
    Unauthorized,
    Unavailable,
)
from .redact import redact

_KLOG_LINE = re.compile(r"^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ \S+:\d+\] ")


class Rule(NamedTuple):
    pattern: re.Pattern[str]
    error: type[AdapterError]
    reason: str


def _rule(pattern: str, error: type[AdapterError], reason: str) -> Rule:
    return Rule(re.compile(pattern, re.S), error, reason)


ERROR_TABLE: tuple[Rule, ...] = (
    # Credentials: plain 401, raw-body 401, and apply's OpenAPI wrapper around a 401.
    _rule(r"You must be logged in to the server", Unauthorized, "unauthorized"),
    _rule(r"asked for the client to provide credentials", Unauthorized, "unauthorized"),
    # Configuration: kubeconfig, context, auth plugins. Before connection rules: a missing
    # kubeconfig named by --kubeconfig is a configuration problem, not an outage.
    _rule(r"Error in configuration", ConfigurationError, "invalid kubeconfig or context"),
    _rule(r'context "[^"]*" does not exist', ConfigurationError, "unknown context"),
    _rule(r"error: stat .*: no such file or directory", ConfigurationError, "kubeconfig missing"),
    _rule(
        r"error loading config file|couldn't get version/kind; json parse error|"
        r"invalid configuration|exec plugin",
        ConfigurationError,
        "invalid kubeconfig",
    ),
    # Authorization.
    _rule(r"Error from server \(Forbidden\)|is forbidden: ", Forbidden, "forbidden"),
    # Connection failures, including the ones apply hides behind "failed to download openapi".
    _rule(r"The connection to the server .* was refused", Unavailable, "connection refused"),
    _rule(
        r"no such host|Unable to connect to the server|tls: |x509: |i/o timeout|"
        r"connection reset by peer|EOF$|dial tcp",
        Unavailable,
        "API server unreachable",
    ),
    _rule(r"Client\.Timeout exceeded|request canceled", Unavailable, "API request timed out"),
    _rule(r"failed to download openapi", Unavailable, "API server unreachable"),
    _rule(
        r"Error from server \((InternalError|ServiceUnavailable|TooManyRequests|Timeout|"
        r"ServerTimeout|InternalServerError|BadGateway|GatewayTimeout)\)",
        Unavailable,
        "API server error",
    ),
    # Waits.
    _rule(r"exceeded its progress deadline", RolloutFailed, "progress deadline exceeded"),
    _rule(r"timed out waiting for", Timeout, "wait timed out"),
    _rule(r"^error: context deadline exceeded$", Timeout, "kubectl gave up retrying"),
    # Object state.
    _rule(r"Apply failed with \d+ conflicts?", Conflict, "server-side apply conflict"),
    _rule(r"Error from server \((Conflict|AlreadyExists)\)", Conflict, "conflict"),
    _rule(r"error: object has been deleted", NotFound, "deleted while waiting"),
    _rule(r"Error from server \(NotFound\)", NotFound, "not found"),
    # Input the server or kubectl rejected.
    _rule(
        r"is invalid|Error from server \((BadRequest|Invalid|UnsupportedMediaType)\)|"
        r"error parsing|no objects passed|does not match the namespace|unknown flag|"
        r"unknown shorthand flag|invalid argument",
        InvalidInput,
        "rejected input",
    ),
)


def clean_stderr(stderr: str) -> str:
    """kubectl's stderr without klog lines and blank lines, redacted."""
    lines = [line.rstrip() for line in stderr.splitlines()]
    kept = [line for line in lines if line.strip() and not _KLOG_LINE.match(line)]
    return redact("\n".join(kept))


def main_message(cleaned: str) -> str:
    """The line an operator needs: the first ``error``/``Error`` line, else the last line."""
    lines = [line for line in cleaned.splitlines() if not line.lower().startswith("warning:")]
    for line in lines:
        if line.startswith(("error:", "Error from server", "Error in configuration", "The ")):
            return line
    return lines[-1] if lines else cleaned


def classify(
    command: str, returncode: int, stderr: str, *, timed_out: bool = False
) -> AdapterError:
    """Map one failed kubectl run (exit status + stderr) to the adapter's error."""
    cleaned = clean_stderr(stderr)
    details: dict[str, object] = {"command": redact(command), "exitCode": returncode}
    if cleaned:
        details["stderr"] = cleaned[-4000:]
    if timed_out:
        # kubectl scale retries a 409 once a second for 5 minutes; with -v=6 the retries show.
        if re.search(r"\b409 Conflict\b", stderr):
            details["reason"] = "kubectl kept retrying 409 Conflict"
            return Conflict(
                f"kubectl kept getting 409 Conflict until its time ran out: {command}", details
            )
        details["reason"] = "process timeout"
        return Timeout(f"kubectl did not finish in time and was stopped: {command}", details)
    for rule in ERROR_TABLE:
        if rule.pattern.search(cleaned):
            details["reason"] = rule.reason
            return rule.error(main_message(cleaned), details)
    message = main_message(cleaned) or f"kubectl exited with status {returncode}"
    return InternalError(message, details)
